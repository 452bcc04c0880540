//! An OpenAPI document's bytes (JSON or YAML, from a file or a URL anyone serves)
//! read and made into tools, each schema given to the binder: never a panic, a
//! stack overflow or a hang, and every tool named as a model API takes a name.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(names) = toolhost::fuzzing::openapi(data) {
        for (i, name) in names.iter().enumerate() {
            let valid = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            assert!(!name.is_empty() && name.len() <= 64 && valid, "{name:?}");
            assert!(!names[..i].contains(name), "{name:?} twice");
        }
    }
});
