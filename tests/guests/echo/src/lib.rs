//! Test and benchmark guest: one tool that returns its text and uses nothing of WASI,
//! so a call into it measures the host's own cost.

#![allow(
    missing_docs,
    reason = "the bindings toolhost_guest::generate! writes have no doc comments: a tool's docs are its WIT's"
)]

toolhost_guest::generate!({ world: "echo" });

struct Echo;

impl Guest for Echo {
    fn echo(text: String) -> String {
        text
    }
}

export!(Echo);
