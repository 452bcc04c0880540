//! The JSON-Schema binder (an MCP server's tool): any schema a server might send,
//! any arguments a model might write. Never a panic; a value let through is one the
//! schema accepts (when the schema can be read); a refusal names a path, or the
//! parameters the tool takes.
//!
//! The input is the schema's JSON text and the arguments' text, split at the first
//! NUL byte.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolhost::ToolError;
use toolhost::bind::SchemaBinder;

fuzz_target!(|data: &[u8]| {
    let Some(split) = data.iter().position(|&b| b == 0) else { return };
    let (Ok(schema), Ok(arguments)) = (std::str::from_utf8(&data[..split]), std::str::from_utf8(&data[split + 1..]))
    else {
        return;
    };
    let Ok(schema) = serde_json::from_str::<Value>(schema) else { return };
    let binder = SchemaBinder::new(schema);
    let _ = binder.expected_parameters();
    match binder.bind_text("tool", arguments) {
        Ok(bound) => {
            assert!(bound.is_object(), "{bound} is not an arguments object");
            if binder.unreadable().is_none() {
                let options = jsonschema::options().should_validate_formats(false);
                let validator = options.build(binder.schema()).expect("a readable schema builds again");
                assert!(validator.is_valid(&bound), "{bound} was let through {}", binder.schema());
            }
        }
        Err(ToolError::InvalidValue { path, .. }) => assert!(!path.is_empty(), "a refusal without a path"),
        Err(error @ ToolError::InvalidArguments { .. }) => {
            let message = error.to_string();
            assert!(
                message.contains("Expected parameters for 'tool'") || message.contains("not valid JSON"),
                "{message}"
            );
        }
        Err(other) => panic!("unexpected error {other:?}"),
    }
});
