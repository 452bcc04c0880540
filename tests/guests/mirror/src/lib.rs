//! Test-only guest: an `echo` that clashes with another guest's, and resource-typed
//! functions that cannot be tools.

#![allow(
    missing_docs,
    reason = "the bindings toolhost_guest::generate! writes have no doc comments: a tool's docs are its WIT's"
)]

use std::cell::Cell;

use exports::test::mirror::counters::{CounterBorrow, Guest as CountersGuest, GuestCounter};

toolhost_guest::generate!({ world: "mirror" });

struct Mirror;

impl Guest for Mirror {
    fn echo(text: String) -> String {
        text.chars().rev().collect()
    }
}

/// A counter resource.
pub struct Counter(Cell<u32>);

impl GuestCounter for Counter {
    fn new() -> Counter {
        Counter(Cell::new(0))
    }

    fn increment(&self) -> u32 {
        self.0.set(self.0.get() + 1);
        self.0.get()
    }
}

impl CountersGuest for Mirror {
    type Counter = Counter;

    fn peek(counter: CounterBorrow<'_>) -> u32 {
        counter.get::<Counter>().0.get()
    }
}

export!(Mirror);
