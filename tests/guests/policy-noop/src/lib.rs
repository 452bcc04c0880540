//! Test and benchmark policy component: allows every call and every result. What a
//! policy costs a call at the least (`cargo bench -p toolhost -- policy`).

#![allow(missing_docs, reason = "the bindings wit-bindgen writes have no doc comments")]

toolhost_guest::wit_bindgen::generate!({
    path: "../../../wit",
    world: "policy-component",
    runtime_path: "::toolhost_guest::wit_bindgen::rt",
});

use exports::toolhost::tool::policy::{Call, Field, Guest, Verdict};

struct Noop;

impl Guest for Noop {
    fn before(_call: Call) -> Verdict {
        Verdict::Allow
    }

    fn after(_call: Call, _returned: Vec<Field>) -> Verdict {
        Verdict::Allow
    }
}

export!(Noop);
