//! Test guest: a tool built against `toolhost:tool@0.1.0` (its `log` import), with
//! wit-bindgen directly, as tools were before 0.2.0: the host keeps serving it.

#![allow(
    missing_docs,
    reason = "the bindings wit_bindgen::generate! writes have no doc comments: a tool's docs are its WIT's"
)]

wit_bindgen::generate!({ world: "legacy-log", generate_all });

use toolhost::tool::log::{Level, log};

struct LegacyLog;

impl Guest for LegacyLog {
    fn warn(message: String) -> String {
        log(Level::Warn, &message);
        message
    }
}

export!(LegacyLog);
