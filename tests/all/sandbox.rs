//! What a call runs under: its limits (time, memory, result size), each stopping a
//! misbehaving tool with a corrective message while the host serves on, and its
//! grants (nothing by default; folders and variables as granted).

use std::fs;
use std::time::Duration;

use serde_json::json;
use toolhost::{Host, Limits, ToolError};

use crate::common;

/// A host over the `hostile` test guest with `limits`.
fn limited_host(limits: Limits) -> Host {
    Host::builder()
        .component_file(common::test_guest("hostile"))
        .cache_dir(common::test_cache_dir())
        .limits(limits)
        .build()
        .expect("host")
}

/// The host still answers an ordinary call.
fn still_serves(host: &Host) {
    assert_eq!(host.call("echo", &json!({"text": "next"})), Ok(json!("next")));
}

#[test]
fn endless_loops_are_stopped_by_the_time_limit() {
    let limits = common::time_limit(Duration::from_millis(200));
    let host = limited_host(limits);
    for tool in ["spin", "spin_with_imports"] {
        let error = host.call(tool, &json!({})).expect_err("stopped");
        assert_eq!(error, ToolError::TimedOut { tool: tool.into(), limit: Duration::from_millis(200) });
        assert_eq!(
            error.to_string(),
            format!(
                "Tool '{tool}' was stopped after its time limit of 200 ms. Retrying may help only with smaller input."
            )
        );
        still_serves(&host);
    }
}

#[test]
fn endless_allocation_is_stopped_by_the_memory_limit() {
    let limits = common::with(Limits::default(), |limits| limits.memory_bytes = 32 << 20);
    let host = limited_host(limits);
    let error = host.call("allocate_forever", &json!({})).expect_err("stopped");
    assert_eq!(error, ToolError::OutOfMemory { tool: "allocate_forever".into(), limit_bytes: 32 << 20 });
    still_serves(&host);
}

#[test]
fn a_result_over_the_size_limit_is_refused() {
    let limits = common::with(Limits::default(), |limits| limits.result_bytes = 1000);
    let host = limited_host(limits);
    assert_eq!(host.call("big_string", &json!({"length": 900})).map(|v| v.as_str().map(str::len)), Ok(Some(900)));
    let error = host.call("big_string", &json!({"length": 5000})).expect_err("too large");
    assert_eq!(error, ToolError::ResultTooLarge { tool: "big_string".into(), limit_bytes: 1000 });
    still_serves(&host);
}

#[test]
fn nothing_is_granted_by_default() {
    let host = common::hostile_host();
    assert_eq!(host.call("env_var", &json!({"name": "PATH"})), Ok(json!(null)));
    assert_eq!(host.call("env_var", &json!({"name": "HOME"})), Ok(json!(null)));
    let error = host.call("read_path", &json!({"path": "/etc/passwd"})).expect_err("denied");
    assert!(matches!(error, ToolError::Denied { .. }), "{error:?}");
    let error = host.call("write_path", &json!({"path": "/tmp/toolhost-escape", "contents": "x"})).expect_err("denied");
    assert!(matches!(error, ToolError::Denied { .. }), "{error:?}");
    assert!(!std::path::Path::new("/tmp/toolhost-escape").exists());
}

#[test]
fn granted_directories_and_variables_are_visible_as_granted() {
    let folder = tempfile::tempdir().expect("temporary folder");
    fs::write(folder.path().join("data.txt"), "granted").expect("write");
    let host = Host::builder()
        .component_file(common::test_guest("hostile"))
        .cache_dir(common::test_cache_dir())
        .grant_dir("hostile", folder.path(), "/data", true)
        .grant_env("hostile", "GREETING", "hello")
        .build()
        .expect("host");
    assert_eq!(host.call("env_var", &json!({"name": "GREETING"})), Ok(json!("hello")));
    assert_eq!(host.call("env_var", &json!({"name": "PATH"})), Ok(json!(null)));
    assert_eq!(host.call("read_path", &json!({"path": "/data/data.txt"})), Ok(json!("granted")));
    let error = host.call("write_path", &json!({"path": "/data/new.txt", "contents": "x"})).expect_err("read-only");
    assert!(matches!(error, ToolError::Denied { .. }), "{error:?}");
    assert!(!folder.path().join("new.txt").exists());
}
