//! Instances made before their call: each still serves exactly one call (from the
//! pool, on threads, across reloads), they go with a component a reload removes, and
//! what is ready stays within its bounds.

use crate::common;

use std::fs;
use std::time::{Duration, Instant};

use serde_json::json;
use toolhost::{Host, Prewarm, PrewarmState};

/// Waits (at most 20 s) until `ready` holds for what the host has ready; returns it.
fn wait_for(host: &Host, ready: impl Fn(PrewarmState) -> bool) -> PrewarmState {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let state = host.prewarmed();
        if ready(state) || Instant::now() > deadline {
            return state;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn hostile_host(prewarm: Prewarm) -> Host {
    Host::builder()
        .component_file(common::test_guest("hostile"))
        .cache_dir(common::test_cache_dir())
        .prewarm(prewarm)
        .build()
        .expect("hostile loads")
}

#[test]
fn a_ready_instance_serves_one_call_and_is_never_reused() {
    let host = hostile_host(Prewarm::default());
    for _ in 0..20 {
        // Two ready: this call takes one of them.
        assert_eq!(wait_for(&host, |s| s.instances == 2).instances, 2);
        assert_eq!(host.call("count_calls", &json!({})), Ok(json!(1)));
    }
    // Back to back and on threads, ready or made on the spot: a fresh global every time.
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..100 {
                    assert_eq!(host.call("count_calls", &json!({})), Ok(json!(1)));
                }
            });
        }
    });
}

#[test]
fn a_reload_keeps_one_call_per_instance_and_takes_a_removed_components_instances() {
    let folder = tempfile::tempdir().expect("temporary folder");
    fs::copy(common::test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    fs::copy(common::plugins_dir().join("calculator.wasm"), folder.path().join("calculator.wasm")).expect("copy");
    let host = Host::builder().plugin_dir(folder.path()).cache_dir(common::test_cache_dir()).build().expect("host");
    assert_eq!(wait_for(&host, |s| s.instances == 4).instances, 4, "two ready for each component");

    // The calculator changes (another component under its name): its ready instances
    // are the old version's, and go with it; the new one's serve.
    fs::copy(common::plugins_dir().join("units.wasm"), folder.path().join("calculator.wasm")).expect("replace");
    assert!(host.reload().expect("reload"));
    assert_eq!(host.call("convert", &json!({"value": 1, "from": "kilometer", "to": "meter"})), Ok(json!(1000.0)));
    assert!(host.call("gcd", &json!({"a": 2, "b": 4})).is_err(), "the old calculator is gone");
    for _ in 0..10 {
        assert_eq!(host.call("count_calls", &json!({})), Ok(json!(1)));
    }

    fs::remove_file(folder.path().join("calculator.wasm")).expect("remove");
    assert!(host.reload().expect("reload"));
    let state = wait_for(&host, |s| s.instances == 2);
    assert_eq!(state.instances, 2, "only hostile's are left: {state:?}");
    fs::remove_file(folder.path().join("hostile.wasm")).expect("remove");
    assert!(host.reload().expect("reload"));
    assert_eq!(wait_for(&host, |s| s.instances == 0), PrewarmState { instances: 0, memory_bytes: 0 });
}

#[test]
fn ready_memory_stays_within_its_bound() {
    let unbounded = hostile_host(Prewarm::default());
    let two = wait_for(&unbounded, |s| s.instances == 2);
    assert_eq!(two.instances, 2);
    let one_instance = two.memory_bytes / 2;
    assert!(one_instance > 0, "an instance holds some memory: {two:?}");

    let bound = one_instance + one_instance / 2;
    let bounded = hostile_host(common::with(Prewarm::default(), |p| p.memory_bytes = bound));
    let state = wait_for(&bounded, |s| s.instances >= 1);
    assert_eq!(state.instances, 1);
    // Give the thread time to try for a second, then check it did not make one.
    std::thread::sleep(Duration::from_millis(300));
    let state = bounded.prewarmed();
    assert_eq!(state.instances, 1, "{state:?}");
    assert!(state.memory_bytes <= bound, "{state:?} holds more than {bound} bytes");
    assert_eq!(bounded.call("echo", &json!({"text": "still serves"})), Ok(json!("still serves")));
}

#[test]
fn an_idle_component_gives_up_its_instances_and_its_next_call_fills_them_again() {
    let host = hostile_host(common::with(Prewarm::default(), |p| p.idle = Duration::from_millis(300)));
    assert_eq!(wait_for(&host, |s| s.instances == 2).instances, 2);
    assert_eq!(wait_for(&host, |s| s.instances == 0).instances, 0, "given up after 300 ms without a call");
    assert_eq!(host.call("count_calls", &json!({})), Ok(json!(1)));
    assert_eq!(wait_for(&host, |s| s.instances == 2).instances, 2);
}

#[test]
fn without_prewarming_nothing_is_ready_and_calls_are_the_same() {
    let host = hostile_host(common::with(Prewarm::default(), |p| p.per_component = 0));
    for _ in 0..5 {
        assert_eq!(host.call("count_calls", &json!({})), Ok(json!(1)));
    }
    assert_eq!(host.prewarmed(), PrewarmState::default());
}
