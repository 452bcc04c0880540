//! Test-only guest that imports an interface no host provides.

#![allow(
    missing_docs,
    reason = "the bindings toolhost_guest::generate! writes have no doc comments: a tool's docs are its WIT's"
)]

toolhost_guest::generate!({ world: "needy" });

struct Needy;

impl Guest for Needy {
    fn reveal(name: String) -> String {
        test::needy::secrets::lookup(&name)
    }
}

export!(Needy);
