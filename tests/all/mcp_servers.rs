//! MCP servers as plugins, against servers nobody here wrote: the MCP project's
//! `everything` and `filesystem` reference servers from npm (installed pinned into
//! target/mcp-servers by scripts/install-mcp-servers.sh), over stdio, and
//! `everything` over streamable HTTP. Their tools are listed, names and arguments
//! repaired, misfits answered in the host's words, a killed server started again, a
//! hanging call stopped, and a server that cannot start leaves the rest serving. One
//! small server of our own, on the MCP project's SDK (tests/servers/changing.mjs),
//! changes its tool list.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use toolhost::{Host, ToolError};

use crate::common;
use crate::process::{Process, serve_on_free_port};

/// The entry point of a reference server's npm package.
pub(crate) fn server_entry(package: &str) -> PathBuf {
    let entry = common::root()
        .join("target/mcp-servers/node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js");
    assert!(
        entry.is_file(),
        "{} is missing: run scripts/install-mcp-servers.sh (scripts/test.sh does)",
        entry.display()
    );
    entry
}

/// A plugin folder holding the calculator component and the given server files.
fn plugins(servers: &[(&str, String)]) -> tempfile::TempDir {
    let folder = tempfile::tempdir().expect("a folder");
    std::fs::copy(common::plugins_dir().join("calculator.wasm"), folder.path().join("calculator.wasm")).expect("copy");
    for (name, text) in servers {
        std::fs::write(folder.path().join(format!("{name}.mcp.toml")), text).expect("write");
    }
    folder
}

fn host_of(folder: &Path) -> Host {
    Host::builder().plugin_dir(folder).cache_dir(common::test_cache_dir()).build().expect("the host loads")
}

/// `everything` over stdio; `marker`, an argument it ignores, tells its process apart.
fn everything_stdio(marker: &str, extra: &str) -> String {
    format!("command = [\"node\", {:?}, \"stdio\", \"{marker}\"]\n{extra}", server_entry("server-everything"))
}

fn error_of(host: &Host, name: &str, arguments: serde_json::Value) -> ToolError {
    host.call(name, &arguments).expect_err("the call fails")
}

#[test]
fn a_stdio_servers_tools_are_listed_repaired_and_bound_like_a_components() {
    let folder = plugins(&[("everything", everything_stdio("listed", ""))]);
    let host = host_of(folder.path());
    let sum = host.tool("get-sum").expect("the server's tool is listed");
    assert_eq!((sum.component.as_str(), sum.sandboxed()), ("everything", false));
    assert_eq!(sum.expected_parameters().required, ["a", "b"]);
    let echo = host.tool("echo").expect("listed");
    assert!(
        echo.annotations.read_only && !echo.annotations.open_world,
        "the server's own hints pass: {:?}",
        echo.annotations
    );
    assert!(host.tool("evaluate").is_some(), "the components serve beside it");

    // A drifted name, a drifted parameter name and a number written as a string.
    let outcome = host.request("GetSum").arguments(&json!({"A": "2", "b": 3.5})).run();
    assert_eq!(outcome.tool.as_deref(), Some("get-sum"));
    assert_eq!(outcome.repaired_from.as_deref(), Some("GetSum"));
    assert_eq!(outcome.result, Ok(json!("The sum of 2 and 3.5 is 5.5.")));
    assert_eq!(host.request("echo").text("{message: 'hi',}").run().result, Ok(json!("Echo: hi")));

    assert_eq!(
        error_of(&host, "get_sum", json!({"a": 2})).to_string(),
        "Tool 'get-sum' was called with missing required parameter 'b'. \
         Expected parameters for 'get-sum' — required: ['a', 'b'], optional: []."
    );
    assert_eq!(
        error_of(&host, "get-sum", json!({"a": "two", "b": 1})).to_string(),
        "Invalid arguments for 'get-sum': 'a' must be a number, got \"two\"."
    );
    // Its environment is what the file grants, and PATH: nothing else of the host's.
    let granted = plugins(&[("everything", everything_stdio("env", "env = { GREETING = \"hi\" }\n"))]);
    let env = host_of(granted.path()).call("get-env", &json!({})).expect("get-env");
    let env: serde_json::Value = serde_json::from_str(env.as_str().expect("text")).expect("JSON");
    let names: Vec<&str> = env.as_object().expect("an object").keys().map(String::as_str).collect();
    assert_eq!(names, ["GREETING", "PATH"], "{env}");
    let definitions = host.tool_definitions(toolhost::ToolFormat::Mcp).to_string();
    assert!(definitions.contains("\"get-sum\"") && definitions.contains("\"readOnlyHint\":true"), "{definitions}");
}

#[test]
fn the_filesystem_server_s_own_errors_pass_unchanged() {
    let allowed = tempfile::tempdir().expect("a folder");
    std::fs::write(allowed.path().join("notes.txt"), "first line\nsecond line\n").expect("write");
    let command = format!("command = [\"node\", {:?}, {:?}]\n", server_entry("server-filesystem"), allowed.path());
    let folder = plugins(&[("files", command)]);
    let host = host_of(folder.path());
    let read = host.call("ReadTextFile", &json!({"Path": allowed.path().join("notes.txt"), "head": "1"}));
    assert_eq!(read, Ok(json!({"content": "first line"})));
    let outside = error_of(&host, "read_text_file", json!({"path": "/etc/hostname"}));
    assert_eq!(outside.kind(), "tool_failed");
    assert!(outside.to_string().starts_with("Access denied - path outside allowed directories"), "{outside}");
    assert_eq!(
        error_of(&host, "list_directory", json!({"path": true})).to_string(),
        "Invalid arguments for 'list_directory': 'path' must be a string, got true."
    );
    // A number for a plain string is its text: the server is asked for the folder "5".
    let number = error_of(&host, "list_directory", json!({"path": 5}));
    assert_eq!(number.kind(), "tool_failed");
    assert!(number.to_string().ends_with("/5'"), "{number}");
}

#[test]
fn a_hanging_call_is_stopped_at_its_timeout_and_the_server_serves_on() {
    let folder = plugins(&[("everything", everything_stdio("hanging", "timeout_ms = 1500\n"))]);
    let host = host_of(folder.path());
    let started = Instant::now();
    let error = error_of(&host, "trigger-long-running-operation", json!({"duration": 30, "steps": 2}));
    assert!(matches!(error, ToolError::TimedOut { limit, .. } if limit == Duration::from_millis(1500)), "{error}");
    assert!(started.elapsed() < Duration::from_secs(10), "the call took {:?}", started.elapsed());
    assert_eq!(host.call("echo", &json!({"message": "after"})), Ok(json!("Echo: after")));
}

#[test]
fn a_killed_server_is_started_again_and_the_call_in_flight_is_told() {
    let folder = plugins(&[("everything", everything_stdio("killed-between-calls", ""))]);
    let host = host_of(folder.path());
    assert_eq!(host.call("echo", &json!({"message": "one"})), Ok(json!("Echo: one")));
    kill_process_with("killed-between-calls");
    assert_eq!(host.call("echo", &json!({"message": "two"})), Ok(json!("Echo: two")), "not started again");

    // Killed while a call runs: that call is told, the next one is served.
    let running = {
        let host = host.clone();
        std::thread::spawn(move || host.call("trigger-long-running-operation", &json!({"duration": 20, "steps": 2})))
    };
    std::thread::sleep(Duration::from_millis(700));
    kill_process_with("killed-between-calls");
    let error = running.join().expect("the call returns").expect_err("the server died under it");
    assert!(matches!(error, ToolError::ServerFailed { retry: true, .. }), "{error:?}");
    assert!(error.to_string().contains("MCP server 'everything'"), "{error}");
    assert_eq!(host.call("echo", &json!({"message": "three"})), Ok(json!("Echo: three")));
}

#[test]
fn servers_that_cannot_start_or_are_not_mcp_leave_the_others_serving() {
    let folder = plugins(&[
        ("missing", "command = [\"/nonexistent/mcp-server\"]\n".into()),
        ("chatty", "command = [\"sh\", \"-c\", \"echo hello; sleep 30\"]\nstart_timeout_ms = 1500\n".into()),
        ("typo", "comand = [\"node\"]\n".into()),
        ("everything", everything_stdio("beside-broken-ones", "")),
    ]);
    let host = host_of(folder.path());
    let warnings = host.load_report().warnings.join("\n");
    for words in [
        "missing.mcp.toml: the MCP server 'missing' cannot be used: cannot start `/nonexistent/mcp-server`",
        "chatty.mcp.toml: the MCP server 'chatty' cannot be used",
        "typo.mcp.toml: not a valid MCP server file: unknown field `comand`",
    ] {
        assert!(warnings.contains(words), "no {words:?} in:\n{warnings}");
    }
    assert_eq!(host.call("echo", &json!({"message": "still"})), Ok(json!("Echo: still")));
    assert_eq!(host.call("gcd", &json!({"a": 12, "b": 18})), Ok(json!(6)));
}

#[test]
fn a_server_over_streamable_http_is_a_plugin_too() {
    let server = HttpEverything::start();
    let file = |variable: &str| format!("url = \"{}\"\nheaders = {{ X-Test = \"${{{variable}}}\" }}\n", server.url());
    let unset = plugins(&[("remote", file("TOOLHOST_TEST_UNSET_VARIABLE"))]);
    let warnings = host_of(unset.path()).load_report().warnings.join("\n");
    assert!(warnings.contains("`headers.X-Test` names the variable TOOLHOST_TEST_UNSET_VARIABLE"), "{warnings}");
    let folder = plugins(&[("remote", file("PATH"))]);
    let host = host_of(folder.path());
    let outcome = host.request("Echo").arguments(&json!({"Message": "over HTTP"})).run();
    assert_eq!((outcome.tool.as_deref(), outcome.result), (Some("echo"), Ok(json!("Echo: over HTTP"))));
    assert_eq!(host.tool("echo").map(|t| t.component), Some("remote".to_string()));
}

#[test]
fn a_server_whose_tools_change_is_listed_again_and_the_host_says_so() {
    let modules = common::root().join("target/mcp-servers/node_modules");
    let script = common::root().join("tests/servers/changing.mjs");
    let folder = plugins(&[("changing", format!("command = [\"node\", {script:?}, {modules:?}]\n"))]);
    let host = host_of(folder.path());
    let told = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = told.clone();
    host.on_change(move || {
        counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    });
    assert!(host.tool("added").is_none());
    assert_eq!(host.call("add_tool", &json!({})), Ok(json!("added")));
    let deadline = Instant::now() + Duration::from_secs(10);
    while host.tool("added").is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(25));
    }
    assert!(host.tool("added").is_some(), "the new tool was not listed");
    assert!(told.load(std::sync::atomic::Ordering::SeqCst) >= 1, "the host's listeners were not told");
    assert_eq!(host.call("Added", &json!({"Name": "ada"})), Ok(json!("hello, ada")));
}

#[test]
fn a_server_file_added_changed_or_removed_is_taken_up_by_a_reload() {
    let folder = plugins(&[]);
    let host = host_of(folder.path());
    assert!(host.tool("echo").is_none());
    let file = folder.path().join("everything.mcp.toml");
    std::fs::write(&file, everything_stdio("reloaded", "")).expect("write");
    assert_eq!(host.reload().map_err(|e| e.to_string()), Ok(true));
    assert_eq!(host.call("echo", &json!({"message": "added"})), Ok(json!("Echo: added")));
    std::fs::write(&file, everything_stdio("reloaded", "hide = [\"echo\"]\n")).expect("write");
    assert_eq!(host.reload().map_err(|e| e.to_string()), Ok(true));
    assert!(host.tool("echo").is_none() && host.tool("get-sum").is_some(), "the changed file was not taken up");
    std::fs::remove_file(&file).expect("remove");
    assert_eq!(host.reload().map_err(|e| e.to_string()), Ok(true));
    assert!(host.tool("get-sum").is_none(), "the removed server's tools are still listed");
    assert_eq!(host.call("gcd", &json!({"a": 4, "b": 6})), Ok(json!(2)));
}

/// `everything` serving streamable HTTP on a port of its own.
struct HttpEverything {
    /// Kept for its drop, which ends the server.
    _child: Process,
    port: u16,
}

impl HttpEverything {
    fn start() -> HttpEverything {
        let (child, port) = serve_on_free_port("the everything server", |port| {
            let mut command = Command::new("node");
            command.arg(server_entry("server-everything")).arg("streamableHttp").env("PORT", port.to_string());
            command.stdout(Stdio::null());
            command
        });
        HttpEverything { _child: child, port }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

/// Kills (SIGKILL) the processes whose command line holds `marker`, and waits until
/// they are gone.
fn kill_process_with(marker: &str) {
    let pids: Vec<i32> = std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .filter(|pid: &i32| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            String::from_utf8_lossy(&cmdline).split('\0').any(|arg| arg == marker)
        })
        .collect();
    assert!(!pids.is_empty(), "no process runs with {marker}");
    for pid in &pids {
        let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
    }
    for _ in 0..200 {
        if pids.iter().all(|pid| !Path::new(&format!("/proc/{pid}")).exists() || is_zombie(*pid)) {
            std::thread::sleep(Duration::from_millis(100));
            return;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("{pids:?} did not end");
}

fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| stat.split(' ').nth(2) == Some("Z"))
}
