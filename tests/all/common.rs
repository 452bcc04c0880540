//! Helpers shared by the integration tests: where the built guests are, and hosts over them.
//! (Also compiled into `tests/memory`, which uses only some of them.)

#![allow(dead_code)]

use std::path::PathBuf;

use toolhost::Host;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
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
pub fn plugins_dir() -> PathBuf {
    built("plugins")
}

/// The test-only guests, built by scripts/build-guests.sh.
pub fn test_guests_dir() -> PathBuf {
    built("test-guests")
}

/// A cache folder for tests, apart from the user's own cache.
pub fn test_cache_dir() -> PathBuf {
    root().join("target").join("test-cache")
}

/// A host over the example tools.
pub fn example_host() -> Host {
    Host::builder().plugin_dir(plugins_dir()).cache_dir(test_cache_dir()).build().expect("example tools load")
}

/// One host over the example tools, shared by a test binary's tests.
pub fn example_host_shared() -> &'static Host {
    static HOST: std::sync::OnceLock<Host> = std::sync::OnceLock::new();
    HOST.get_or_init(example_host)
}

/// The built file of one test guest.
pub fn test_guest(name: &str) -> PathBuf {
    test_guests_dir().join(format!("{name}.wasm"))
}

/// A host over the `hostile` test guest alone, with tight limits (300 ms, 64 MiB) so
/// that each misbehaving call ends quickly.
pub fn limited_hostile_host() -> Host {
    Host::builder()
        .component_file(test_guest("hostile"))
        .cache_dir(test_cache_dir())
        .limits(toolhost::Limits {
            time: std::time::Duration::from_millis(300),
            memory_bytes: 64 << 20,
            ..toolhost::Limits::default()
        })
        .build()
        .expect("hostile loads")
}

/// A host over the `hostile` test guest alone.
pub fn hostile_host() -> Host {
    Host::builder().component_file(test_guest("hostile")).cache_dir(test_cache_dir()).build().expect("hostile loads")
}
