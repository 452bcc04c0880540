//! Calls one tool again and again with a gap between calls, for profiling a call's
//! path (`perf record -g target/release/examples/paced_calls …`):
//!
//! ```text
//! cargo run --release -p toolhost --example paced_calls -- COMPONENT TOOL ARGUMENTS_JSON [CALLS] [GAP_MS] [PER_COMPONENT]
//! ```
//!
//! `GAP_MS` 0 makes the calls back-to-back. Prints the median and 90th percentile
//! latency of the calls (default: 2000 calls, 1 ms apart). `PER_COMPONENT` is how
//! many instances are made ahead of their call (default 2; 0: each when its call comes).

use std::time::{Duration, Instant};

use toolhost::Prewarm;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, component, tool, arguments, rest @ ..] = args.as_slice() else {
        return Err("usage: paced_calls COMPONENT TOOL ARGUMENTS_JSON [CALLS] [GAP_MS] [PER_COMPONENT]".into());
    };
    let calls: usize = rest.first().map_or(Ok(2000), |n| n.parse())?.max(1);
    let gap = Duration::from_millis(rest.get(1).map_or(Ok(1), |n| n.parse())?);
    let per_component = rest.get(2).map_or(Ok(Prewarm::default().per_component), |n| n.parse())?;
    let arguments: serde_json::Value = serde_json::from_str(arguments)?;
    let mut prewarm = Prewarm::default();
    prewarm.per_component = per_component;
    let host = toolhost::Host::builder().component_file(component).prewarm(prewarm).build()?;
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        std::thread::sleep(gap);
        let started = Instant::now();
        host.call(tool, &arguments)?;
        times.push(started.elapsed());
    }
    times.sort();
    println!("{calls} calls, {gap:?} apart: median {:?}, p90 {:?}", times[calls / 2], times[calls * 9 / 10]);
    Ok(())
}
