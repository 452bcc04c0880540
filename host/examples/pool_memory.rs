//! Resident memory of a host whose components have their instances made ahead of
//! their calls, against the same host making every instance when its call comes:
//!
//! ```text
//! cargo run --release -p toolhost --example pool_memory -- PLUGIN_FOLDER [PER_COMPONENT]
//! ```
//!
//! Loads the folder (every component from the compile cache after the first run),
//! waits for the preparing thread to settle, and prints the ready instances, their
//! linear memory and the process's resident memory (VmRSS). Run it once with
//! `PER_COMPONENT` 0 and once with the default (2) to see what the ready ones cost.

use std::time::{Duration, Instant};

use toolhost::{Host, Prewarm};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, folder, rest @ ..] = args.as_slice() else {
        return Err("usage: pool_memory PLUGIN_FOLDER [PER_COMPONENT]".into());
    };
    let per_component = rest.first().map_or(Ok(Prewarm::default().per_component), |n| n.parse())?;
    let before = resident_kib()?;
    let mut prewarm = Prewarm::default();
    prewarm.per_component = per_component;
    let host = Host::builder().plugin_dir(folder).prewarm(prewarm).build()?;
    let settled = wait_until_settled(&host);
    let components =
        host.tools().iter().map(|tool| tool.component.as_str()).collect::<std::collections::BTreeSet<_>>().len();
    let ready = host.prewarmed();
    println!(
        "{components} components, {per_component} per component: {} instances ready ({} MiB of linear memory) after {settled:?}; \
         resident {} MiB before loading, {} MiB now",
        ready.instances,
        ready.memory_bytes >> 20,
        before >> 10,
        resident_kib()? >> 10,
    );
    Ok(())
}

/// Waits (at most 30 s) until the count of ready instances has not changed for a second.
fn wait_until_settled(host: &Host) -> Duration {
    let started = Instant::now();
    let (mut last, mut since) = (host.prewarmed(), Instant::now());
    while since.elapsed() < Duration::from_secs(1) && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
        let now = host.prewarmed();
        if now != last {
            (last, since) = (now, Instant::now());
        }
    }
    started.elapsed()
}

/// The process's resident memory in KiB, from /proc/self/status.
fn resident_kib() -> Result<u64, Box<dyn std::error::Error>> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:")).ok_or("no VmRSS in /proc/self/status")?;
    Ok(line.split_whitespace().nth(1).ok_or("VmRSS has no value")?.parse()?)
}
