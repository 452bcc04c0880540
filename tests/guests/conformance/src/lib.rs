//! Test guest: the tools the MCP conformance suite's server scenarios call, built
//! from the scenario descriptions in `@modelcontextprotocol/conformance`.

#![allow(
    missing_docs,
    reason = "the bindings toolhost_guest::generate! writes have no doc comments: a tool's docs are its WIT's"
)]

use std::time::Duration;

use toolhost_guest::{log, progress};

toolhost_guest::generate!({ world: "conformance" });

/// The pause between two reports of the logging and progress tools.
const PAUSE: Duration = Duration::from_millis(50);

struct Conformance;

impl Guest for Conformance {
    fn test_simple_text() -> String {
        "This is a simple text response for testing.".to_string()
    }

    fn test_tool_with_logging() -> String {
        log::info("Tool execution started");
        std::thread::sleep(PAUSE);
        log::info("Tool processing data");
        std::thread::sleep(PAUSE);
        log::info("Tool execution completed");
        "Tool with logging executed successfully".to_string()
    }

    fn test_tool_with_progress() -> String {
        for (step, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
            if step > 0 {
                std::thread::sleep(PAUSE);
            }
            progress::report(done, Some(100.0), None);
        }
        "Tool with progress executed successfully".to_string()
    }

    fn test_error_handling() -> Result<String, String> {
        Err("This tool intentionally returns an error for testing".to_string())
    }
}

export!(Conformance);
