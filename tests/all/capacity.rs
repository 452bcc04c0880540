//! Beyond capacity: more calls than call slots wait their turn in a bounded queue for a
//! bounded time, and the rest are told the host is busy; never the instance pool's own
//! error, never a panic, never a hang.

use std::sync::Barrier;
use std::time::Duration;

use serde_json::json;
use toolhost::{Capacity, Host, ToolError};

use crate::common::{self, LoopbackServer};

fn hostile_with(capacity: Capacity, port: Option<u16>) -> Host {
    let builder = Host::builder()
        .component_file(common::test_guest("hostile"))
        .cache_dir(common::test_cache_dir())
        .limits(common::time_limit(Duration::from_secs(10)))
        .capacity(capacity);
    let builder = match port {
        Some(port) => builder.allow_http("hostile", &format!("127.0.0.1:{port}")).expect("a host pattern"),
        None => builder,
    };
    builder.build().expect("hostile loads")
}

/// Runs `calls` calls at once (released together), each made by `call(i)`.
fn all_at_once<T: Send>(calls: usize, call: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let start = Barrier::new(calls);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..calls)
            .map(|i| {
                let (start, call) = (&start, &call);
                scope.spawn(move || {
                    start.wait();
                    call(i)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a calling thread")).collect()
    })
}

#[test]
fn eight_times_as_many_calls_as_slots_wait_their_turn_and_all_run() {
    let server = LoopbackServer::start(true, Duration::from_millis(150));
    let capacity = capacity(2, 64, Duration::from_secs(30));
    let host = hostile_with(capacity, Some(server.port));
    let url = server.url("127.0.0.1");
    let outcomes = all_at_once(16, |i| match i % 4 {
        // Slow calls, waiting in the host on the server...
        0 | 1 => host.call("http_get", &json!({"url": url})),
        // ...and quick ones, one of them taking 32 MiB.
        2 => host.call("allocate_huge", &json!({"bytes": 32 << 20})),
        _ => host.call("echo", &json!({"text": format!("call {i}")})),
    });
    for (i, outcome) in outcomes.iter().enumerate() {
        assert!(outcome.is_ok(), "call {i} failed: {outcome:?}");
    }
    assert_eq!(outcomes[0], Ok(json!("200 hello")));
    let most = server.most_at_once();
    assert!((1..=2).contains(&most), "{most} requests were in flight at once with 2 call slots");
}

#[test]
fn a_call_that_waits_too_long_is_told_the_host_is_busy() {
    let capacity = capacity(2, 64, Duration::from_millis(300));
    let host = hostile_with(capacity, None);
    let outcomes = all_at_once(10, |_| host.call("sleep", &json!({"ms": 1500})));
    let ran = outcomes.iter().filter(|o| o.is_ok()).count();
    let busy: Vec<&ToolError> = outcomes.iter().filter_map(|o| o.as_ref().err()).collect();
    assert_eq!((ran, busy.len()), (2, 8), "{outcomes:?}");
    for error in busy {
        let ToolError::Busy { running, waited, .. } = error else { panic!("not a busy error: {error:?}") };
        assert_eq!(*running, 2);
        assert!(*waited >= Duration::from_millis(300), "gave up after {waited:?}");
        let message = error.to_string();
        assert!(message.starts_with("Tool 'sleep' was not run: the host is busy (2 calls running, "), "{message}");
        assert!(message.ends_with(" Nothing is wrong with the call; retrying in a while can help."), "{message}");
        assert_eq!(error.kind(), "busy");
    }
    assert_eq!(host.call("echo", &json!({"text": "after"})), Ok(json!("after")));
}

#[test]
fn a_call_beyond_a_full_queue_is_refused_at_once() {
    let capacity = capacity(1, 2, Duration::from_secs(30));
    let host = hostile_with(capacity, None);
    let outcomes = all_at_once(6, |_| host.call("sleep", &json!({"ms": 400})));
    let busy: Vec<&ToolError> = outcomes.iter().filter_map(|o| o.as_ref().err()).collect();
    assert_eq!(busy.len(), 3, "one runs, two wait, three are refused: {outcomes:?}");
    for error in busy {
        let ToolError::Busy { running, queued, waited, .. } = error else { panic!("not a busy error: {error:?}") };
        assert_eq!((*running, *queued), (1, 2), "{error}");
        assert!(*waited < Duration::from_secs(1), "a refused call waited {waited:?}");
    }
}

/// `concurrent` calls at once, `queued` waiting, each for at most `timeout`.
fn capacity(concurrent: usize, queued: usize, timeout: Duration) -> Capacity {
    common::with(Capacity::default(), |capacity| {
        capacity.max_concurrent_calls = concurrent;
        capacity.max_queued_calls = queued;
        capacity.queue_timeout = timeout;
    })
}
