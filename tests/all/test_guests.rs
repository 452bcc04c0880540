//! The test-only guests: panics and traps surface as corrective errors, and the host
//! keeps serving afterwards.

use crate::common;

use std::sync::OnceLock;

use serde_json::json;
use toolhost::{Host, ToolError};

fn host() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(common::hostile_host)
}

fn echo_still_works() {
    assert_eq!(host().call("echo", &json!({"text": "still here"})), Ok(json!("still here")));
}

#[test]
fn a_guest_panic_surfaces_as_a_crash_with_its_message() {
    let error = host().call("panic_with", &json!({"message": "the disk is on fire"})).expect_err("panics");
    assert_eq!(
        error,
        ToolError::Crashed { tool: "panic_with".into(), reason: "it panicked: the disk is on fire".into() }
    );
    assert_eq!(
        error.to_string(),
        "Tool 'panic_with' crashed: it panicked: the disk is on fire. Retrying with the same arguments will fail the same way."
    );
    echo_still_works();
}

#[test]
fn a_silent_trap_is_a_crash_without_a_message() {
    let error = host().call("trap_silently", &json!({})).expect_err("traps");
    assert_eq!(
        error,
        ToolError::Crashed { tool: "trap_silently".into(), reason: "it aborted without a message".into() }
    );
    echo_still_works();
}
