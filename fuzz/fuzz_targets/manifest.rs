//! A manifest's bytes read and applied (limits, grants, `hide`, descriptions) to a
//! set of tools whose names collide: never a panic, and every problem a message.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match toolhost::fuzzing::manifest(data) {
        Ok(warnings) => assert!(warnings.iter().all(|w| w.starts_with("fuzz: its manifest's "))),
        Err(error) => assert!(error.starts_with("its manifest fuzz.toml is invalid: "), "{error}"),
    }
});
