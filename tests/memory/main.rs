//! Memory under load: two threads of mixed calls (good, repaired, refused, crashing)
//! get their own results and the host's memory stays flat; megabytes of guest output
//! are bounded, not buffered.
//!
//! The one test binary besides `tests/all`, on purpose: resident memory is the whole
//! process's, so no other test may run beside these (they also take turns).

#[path = "../all/common.rs"]
mod common;

use std::fs;
use std::sync::{Mutex, OnceLock};

use serde_json::json;
use toolhost::Host;

fn host() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(common::limited_hostile_host)
}

/// Held by each test while it measures memory, so they never overlap.
static MEASURING: Mutex<()> = Mutex::new(());

/// After a hostile call, an ordinary one must still work.
fn serves_normally(host: &Host) {
    assert_eq!(host.call("echo", &json!({"text": "after"})), Ok(json!("after")));
}

/// Resident memory of this process, in KiB.
fn rss_kib() -> u64 {
    let status = fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS");
    line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("a number")
}

#[test]
fn two_threads_of_mixed_calls_get_their_own_results_and_memory_stays_flat() {
    let _alone = MEASURING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let host = host().clone();
    let round = |host: &Host, thread: usize, i: usize| {
        let text = format!("thread {thread} call {i}");
        assert_eq!(host.call("echo", &json!({"text": text})), Ok(json!(text)));
        assert_eq!(host.call("Echo", &json!({"Text": text})), Ok(json!(text)));
        assert_eq!(host.call("count_calls", &json!({})), Ok(json!(1)));
        assert_eq!(host.call("echo", &json!({})).map_err(|e| e.kind()), Err("invalid_arguments"));
        assert_eq!(host.call("ecko", &json!({})).map_err(|e| e.kind()), Err("unknown_tool"));
        assert_eq!(
            host.call("fail_structured", &json!({"code": i})).map_err(|e| e.to_string()),
            Err(format!("{{\"code\":{i},\"reason\":\"the structured failure asked for\"}}"))
        );
        if i.is_multiple_of(50) {
            assert_eq!(host.call("panic_with", &json!({"message": text})).map_err(|e| e.kind()), Err("crashed"));
        }
    };
    let run = |rounds: usize| {
        std::thread::scope(|scope| {
            for thread in 0..2 {
                let host = &host;
                scope.spawn(move || (0..rounds).for_each(|i| round(host, thread, i)));
            }
        });
    };
    run(200);
    let warm = rss_kib();
    run(1000);
    let after = rss_kib();
    println!("12,000 calls on 2 threads: resident memory {warm} KiB after warm-up, {after} KiB after");
    assert!(after.saturating_sub(warm) < 16 * 1024, "memory grew from {warm} KiB to {after} KiB");
}

#[test]
fn megabytes_of_output_are_bounded_not_buffered() {
    let _alone = MEASURING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let host = &common::hostile_host();
    host.call("shout", &json!({"megabytes": 1})).expect("warm-up");
    let before = rss_kib();
    assert_eq!(host.call("shout", &json!({"megabytes": 64})), Ok(json!(64)));
    let growth = rss_kib().saturating_sub(before);
    println!("128 MiB of guest output: resident memory grew by {growth} KiB");
    assert!(growth < 32 * 1024, "128 MiB of output grew the host by {growth} KiB");
    serves_normally(host);
}

#[test]
fn a_huge_file_and_a_device_in_the_plugin_folder_are_never_read() {
    let _alone = MEASURING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let folder = tempfile::tempdir().expect("temporary folder");
    fs::copy(common::test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    let load = || Host::builder().plugin_dir(folder.path()).cache_dir(common::test_cache_dir()).build().expect("host");
    drop(load());
    let before = rss_kib();
    // 4 GiB that a reader would have to hold whole, and a device that never ends.
    fs::File::create(folder.path().join("huge.wasm")).expect("create").set_len(4 << 30).expect("a sparse file");
    std::os::unix::fs::symlink("/dev/zero", folder.path().join("zero.wasm")).expect("symlink");
    let host = load();
    let growth = rss_kib().saturating_sub(before);
    println!("a 4 GiB file and /dev/zero in the plugin folder: resident memory grew by {growth} KiB");
    assert!(growth < 32 * 1024, "loading grew the host by {growth} KiB");
    assert_eq!(host.load_report().warnings.len(), 2, "{:#?}", host.load_report().warnings);
    serves_normally(&host);
}
