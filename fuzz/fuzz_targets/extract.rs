//! A model's reply read for tool calls in every dialect: never a panic, and every
//! call's span a part of the reply that no other call's span overlaps.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|reply: &str| {
    let mut spans = toolhost::fuzzing::extract(reply);
    spans.sort_by_key(|span| span.start);
    for span in &spans {
        assert!(span.start < span.end && reply.get(span.clone()).is_some(), "{span:?} is not inside the reply");
    }
    for pair in spans.windows(2) {
        assert!(pair[0].end <= pair[1].start, "{:?} overlaps {:?}", pair[0], pair[1]);
    }
});
