//! Helpers shared by the integration tests: where the built guests are, and hosts over them.
//! (Also compiled into `tests/memory`, which uses only some of them.)

#![allow(dead_code)]

use std::path::PathBuf;

use toolhost::Host;

/// A plugin folder made in `folder` holding one MCP server plugin, `NAME.mcp.toml`:
/// tests/servers/functions.mjs (on the MCP project's SDK) serving `tools` (MCP tool
/// definitions) and answering each call with what it received.
pub(crate) fn functions_server_plugins(folder: &std::path::Path, name: &str, tools: &serde_json::Value) -> PathBuf {
    let tools_file = folder.join("tools.json");
    std::fs::write(&tools_file, tools.to_string()).expect("write the tools");
    let modules = root().join("target/mcp-servers/node_modules");
    let script = root().join("tests/servers/functions.mjs");
    let plugins = folder.join("plugins");
    std::fs::create_dir(&plugins).expect("a folder");
    let config = format!("command = [\"node\", {script:?}, {modules:?}, {tools_file:?}]\n");
    std::fs::write(plugins.join(format!("{name}.mcp.toml")), config).expect("write the plugin");
    plugins
}

/// The repository root (the tests are the command's, in `cli/`).
pub(crate) fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn built(folder: &str) -> PathBuf {
    let dir = root().join("target").join(folder);
    assert!(
        dir.is_dir(),
        "{} is missing: build the guests first with scripts/build-guests.sh (scripts/test.sh does both)",
        dir.display()
    );
    dir
}

/// The example tools, built by scripts/build-guests.sh.
pub(crate) fn plugins_dir() -> PathBuf {
    built("plugins")
}

/// The test-only guests, built by scripts/build-guests.sh.
pub(crate) fn test_guests_dir() -> PathBuf {
    built("test-guests")
}

/// A cache folder for tests, apart from the user's own cache.
pub(crate) fn test_cache_dir() -> PathBuf {
    root().join("target").join("test-cache")
}

/// A temporary plugin folder with copies of these example tools.
pub(crate) fn plugins_with(names: &[&str]) -> tempfile::TempDir {
    let folder = tempfile::tempdir().expect("temporary folder");
    for name in names {
        let file = format!("{name}.wasm");
        std::fs::copy(plugins_dir().join(&file), folder.path().join(&file)).expect("copy");
    }
    folder
}

/// A host over the example tools.
pub(crate) fn example_host() -> Host {
    Host::builder().plugin_dir(plugins_dir()).cache_dir(test_cache_dir()).build().expect("example tools load")
}

/// One host over the example tools, shared by a test binary's tests.
pub(crate) fn example_host_shared() -> &'static Host {
    static HOST: std::sync::OnceLock<Host> = std::sync::OnceLock::new();
    HOST.get_or_init(example_host)
}

/// The built file of one test guest.
pub(crate) fn test_guest(name: &str) -> PathBuf {
    test_guests_dir().join(format!("{name}.wasm"))
}

/// A host over the `hostile` test guest alone, with tight limits (300 ms, 64 MiB) so
/// that each misbehaving call ends quickly.
pub(crate) fn limited_hostile_host() -> Host {
    let limits = with(time_limit(std::time::Duration::from_millis(300)), |limits| limits.memory_bytes = 64 << 20);
    Host::builder()
        .component_file(test_guest("hostile"))
        .cache_dir(test_cache_dir())
        .limits(limits)
        .build()
        .expect("hostile loads")
}

/// The default limits with `time` instead of 10 s.
pub(crate) fn time_limit(time: std::time::Duration) -> toolhost::Limits {
    with(toolhost::Limits::default(), |limits| limits.time = time)
}

/// `value` as `change` leaves it: settings built from their defaults (the library's
/// settings structs are `#[non_exhaustive]`, so struct update syntax cannot make them).
pub(crate) fn with<T>(mut value: T, change: impl FnOnce(&mut T)) -> T {
    change(&mut value);
    value
}

/// A host over the `hostile` test guest alone.
pub(crate) fn hostile_host() -> Host {
    Host::builder().component_file(test_guest("hostile")).cache_dir(test_cache_dir()).build().expect("hostile loads")
}

/// A loopback HTTP server for the tools' `wasi:http` requests: it counts the
/// connections it gets and the most it held at once.
pub(crate) struct LoopbackServer {
    /// The port it listens on, on 127.0.0.1.
    pub(crate) port: u16,
    connections: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    most_at_once: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl LoopbackServer {
    /// Answers every request with `200 hello` after holding it for `hold`; with
    /// `answer` false, holds every connection open and never answers.
    pub(crate) fn start(answer: bool, hold: std::time::Duration) -> LoopbackServer {
        use std::io::{Read, Write};
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};

        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().expect("address").port();
        let (connections, now, most_at_once) =
            (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let (counted, most) = (connections.clone(), most_at_once.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                counted.fetch_add(1, Ordering::SeqCst);
                let (now, most) = (now.clone(), most.clone());
                std::thread::spawn(move || {
                    most.fetch_max(now.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                    if !answer {
                        // Hold the connection open without a reply, as a stuck server would.
                        std::thread::sleep(std::time::Duration::from_secs(30));
                        return;
                    }
                    let mut request = [0u8; 4096];
                    let _ = stream.read(&mut request);
                    std::thread::sleep(hold);
                    now.fetch_sub(1, Ordering::SeqCst);
                    let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello");
                });
            }
        });
        LoopbackServer { port, connections, most_at_once }
    }

    /// A URL on this server, with `host` for its host name.
    pub(crate) fn url(&self, host: &str) -> String {
        format!("http://{host}:{}/greeting", self.port)
    }

    /// How many connections it has had.
    pub(crate) fn connections(&self) -> usize {
        self.connections.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The most requests it held at once.
    pub(crate) fn most_at_once(&self) -> usize {
        self.most_at_once.load(std::sync::atomic::Ordering::SeqCst)
    }
}
