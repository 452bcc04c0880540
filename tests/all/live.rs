//! A live plugin folder: components added, replaced and removed while calls run,
//! through explicit reloads and through the folder watcher.

use crate::common;

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use toolhost::{Host, ToolError};

fn copy(guest: &Path, folder: &Path, name: &str) {
    // Written beside, then renamed into place, as a deployment would.
    let staging = folder.join(format!(".{name}.part"));
    fs::copy(guest, &staging).expect("copy");
    fs::rename(&staging, folder.join(name)).expect("rename");
}

fn tool_names(host: &Host) -> Vec<String> {
    host.tools().into_iter().map(|t| t.name).collect()
}

#[test]
fn components_are_added_replaced_and_removed_while_calls_run() {
    let folder = tempfile::tempdir().expect("temporary folder");
    copy(&common::test_guest("mirror"), folder.path(), "voice.wasm");
    let host = Host::builder().plugin_dir(folder.path()).cache_dir(common::test_cache_dir()).build().expect("host");
    assert_eq!(host.call("echo", &json!({"text": "abc"})), Ok(json!("cba")));

    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let caller = scope.spawn(|| {
            let (mut reversed, mut same) = (0, 0);
            while !stop.load(Ordering::Relaxed) {
                match host.call("echo", &json!({"text": "abc"})) {
                    Ok(value) if value == json!("cba") => reversed += 1,
                    Ok(value) if value == json!("abc") => same += 1,
                    other => panic!("a call during reloads failed or mixed versions: {other:?}"),
                }
                match host.call("convert", &json!({"value": 1, "from": "meter", "to": "centimeter"})) {
                    Ok(value) => assert_eq!(value, json!(100.0)),
                    Err(ToolError::UnknownTool { .. }) => {}
                    Err(other) => panic!("convert failed for a reason other than being gone: {other}"),
                }
            }
            (reversed, same)
        });

        copy(&common::plugins_dir().join("units.wasm"), folder.path(), "units.wasm");
        assert!(host.reload().expect("reloads"));
        assert!(tool_names(&host).contains(&"convert".to_string()));

        copy(&common::test_guest("hostile"), folder.path(), "voice.wasm");
        assert!(host.reload().expect("reloads"));
        assert_eq!(host.call("echo", &json!({"text": "abc"})), Ok(json!("abc")));

        fs::remove_file(folder.path().join("units.wasm")).expect("remove");
        assert!(host.reload().expect("reloads"));
        assert!(!tool_names(&host).contains(&"convert".to_string()));
        assert!(!host.reload().expect("reloads"));

        std::thread::sleep(Duration::from_millis(100));
        stop.store(true, Ordering::Relaxed);
        let (reversed, same) = caller.join().expect("the caller thread");
        assert!(reversed > 0 && same > 0, "both versions served: {reversed} reversed, {same} same");
    });
}

#[test]
fn a_broken_replacement_keeps_the_old_version_serving() {
    let folder = tempfile::tempdir().expect("temporary folder");
    copy(&common::plugins_dir().join("calculator.wasm"), folder.path(), "calculator.wasm");
    let host = Host::builder().plugin_dir(folder.path()).cache_dir(common::test_cache_dir()).build().expect("host");
    fs::write(folder.path().join("calculator.wasm"), b"\0asm\x0d\0\x01\0 broken").expect("overwrite");
    assert!(host.reload().expect("reloads"));
    assert_eq!(host.call("gcd", &json!({"a": 12, "b": 8})), Ok(json!(4)));
    let warnings = host.load_report().warnings;
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].starts_with("kept the previous version: "), "{warnings:?}");
    assert!(warnings[0].contains("calculator.wasm"), "{warnings:?}");
}

#[test]
fn a_manifest_change_takes_effect_like_a_replaced_component() {
    let folder = tempfile::tempdir().expect("temporary folder");
    copy(&common::test_guest("hostile"), folder.path(), "hostile.wasm");
    fs::write(folder.path().join("hostile.toml"), "[limits]\ntime_ms = 400\n").expect("manifest");
    let host = Host::builder().plugin_dir(folder.path()).cache_dir(common::test_cache_dir()).build().expect("host");
    let limit = |host: &Host| match host.call("spin", &json!({})) {
        Err(ToolError::TimedOut { limit, .. }) => limit,
        other => panic!("expected a time-out, got {other:?}"),
    };
    assert_eq!(limit(&host), Duration::from_millis(400));
    fs::write(folder.path().join("hostile.toml"), "[limits]\ntime_ms = 100\n").expect("manifest");
    assert!(host.reload().expect("reloads"));
    assert_eq!(limit(&host), Duration::from_millis(100));
}

/// Polls until `ready` holds, up to 15 s; returns how long it took.
fn wait_for(ready: impl Fn() -> bool) -> Duration {
    let started = Instant::now();
    while !ready() {
        assert!(started.elapsed() < Duration::from_secs(15), "not visible after 15 s");
        std::thread::sleep(Duration::from_millis(10));
    }
    started.elapsed()
}

#[test]
fn the_watcher_loads_new_files_only_once_complete() {
    let folder = tempfile::tempdir().expect("temporary folder");
    copy(&common::plugins_dir().join("calculator.wasm"), folder.path(), "calculator.wasm");
    let host = Host::builder()
        .plugin_dir(folder.path())
        .cache_dir(common::test_cache_dir())
        .watch(true)
        .build()
        .expect("host");
    let has = |name: &str| tool_names(&host).contains(&name.to_string());

    // A file written in two steps with a pause: never served half-written.
    let bytes = fs::read(common::plugins_dir().join("units.wasm")).expect("units built");
    let target = folder.path().join("units.wasm");
    fs::write(&target, &bytes[..bytes.len() / 2]).expect("first half");
    std::thread::sleep(Duration::from_millis(1000));
    assert!(!has("convert"), "a half-written component was loaded");
    let mut file = fs::OpenOptions::new().append(true).open(&target).expect("open");
    std::io::Write::write_all(&mut file, &bytes[bytes.len() / 2..]).expect("second half");
    drop(file);
    wait_for(|| has("convert"));
    assert_eq!(host.call("convert", &json!({"value": 2, "from": "kilogram", "to": "gram"})), Ok(json!(2000.0)));

    // How long a change takes to become visible, over several changes.
    let mut delays = Vec::new();
    for round in 0..5 {
        let name = format!("text{round}.wasm");
        copy(&common::plugins_dir().join("text.wasm"), folder.path(), &name);
        delays.push(wait_for(|| host.tools().iter().any(|t| t.component == format!("text{round}"))));
        fs::remove_file(folder.path().join(&name)).expect("remove");
        wait_for(|| !host.tools().iter().any(|t| t.component == format!("text{round}")));
    }
    delays.sort();
    println!("a new component became visible after {:?} (median of {:?})", delays[delays.len() / 2], delays);
}
