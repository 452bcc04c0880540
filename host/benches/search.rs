//! Benchmarks of tool search: `cargo bench -p toolhost --bench search`.
//!
//! Over real tools: BFCL's functions and, up to the count, real REST operations
//! (tests/search/pool.rs; run scripts/install-test-data.sh first), queried with
//! BFCL's real requests in turn. `search/query/N` is one search among N tools; the
//! spread over the requests (p50, p99) is printed after each count. `search/index/N`
//! is a registry's first search among N tools, which builds its index; the resident
//! memory the index adds is printed. `search/unknown_name/N` is the corrective error for a
//! made-up name among N tools (its nearest by words, then by spelling).

#![allow(missing_docs, reason = "criterion_group! writes a public function without a doc comment")]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use toolhost::{Registry, ToolSpec};

#[path = "../../tests/search/pool.rs"]
mod pool;

/// `count` real tools, and BFCL's requests.
fn tools(count: usize) -> (Vec<ToolSpec>, Vec<String>) {
    let (bfcl, rest) = pool::data(&PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target")));
    let (mut tools, queries) = pool::bfcl(&bfcl);
    tools.truncate(count);
    let more = count - tools.len();
    tools.extend(pool::rest(&rest, more));
    (pool::specs(&tools), queries.into_iter().map(|query| query.text).collect())
}

fn search(c: &mut Criterion) {
    let mut group = c.benchmark_group("search/query");
    for count in [1_000, 10_000] {
        let (specs, queries) = tools(count);
        let registry = Registry::from_specs(specs);
        let mut times = Vec::new();
        group.bench_with_input(BenchmarkId::from_parameter(count), &registry, |b, registry| {
            b.iter_custom(|iterations| {
                let mut spent = Duration::ZERO;
                for i in 0..iterations {
                    let query = &queries[i as usize % queries.len()];
                    let started = Instant::now();
                    std::hint::black_box(registry.search(query, 10));
                    let took = started.elapsed();
                    times.push(took);
                    spent += took;
                }
                spent
            })
        });
        if times.is_empty() {
            continue; // filtered out
        }
        times.sort_unstable();
        let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
        println!(
            "search/query/{count}: {} searches, p50 {:?}, p99 {:?}, max {:?}",
            times.len(),
            at(0.5),
            at(0.99),
            at(1.0)
        );
    }
    group.finish();
}

fn index(c: &mut Criterion) {
    let mut group = c.benchmark_group("search/index");
    group.sample_size(10);
    for count in [1_000, 10_000] {
        let (specs, _) = tools(count);
        // The index is built at a registry's first search.
        let registry = Registry::from_specs(specs.clone());
        let before = resident();
        registry.search("weather", 1);
        println!("search/index/{count}: the index adds {:.1} MiB resident", (resident() - before) as f64 / 1048576.0);
        drop(registry);
        group.bench_with_input(BenchmarkId::from_parameter(count), &specs, |b, specs| {
            b.iter_batched(
                || Registry::from_specs(specs.iter().cloned()),
                |registry| registry.search("weather", 1),
                criterion::BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

/// The process's resident bytes (Linux; 0 elsewhere).
fn resident() -> i64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: i64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
    pages * 4096
}

/// The corrective error for a name that is no tool's among N real tools: the search
/// by the name's words and the spelling hint together (`Registry::resolve`).
fn unknown_name(c: &mut Criterion) {
    let mut group = c.benchmark_group("search/unknown_name");
    group.sample_size(20);
    for count in [1_000, 10_000] {
        let (specs, _) = tools(count);
        // Names a model might make up: each tool's own, worded as a request for it.
        let names: Vec<String> = specs.iter().step_by(97).map(|spec| format!("fetch_{}_now", spec.name)).collect();
        let registry = Registry::from_specs(specs);
        let mut next = names.iter().cycle();
        group.bench_function(BenchmarkId::from_parameter(count), |b| {
            b.iter(|| std::hint::black_box(registry.resolve(next.next().expect("names")).is_err()))
        });
    }
    group.finish();
}

criterion_group!(benches, search, index, unknown_name);
criterion_main!(benches);
