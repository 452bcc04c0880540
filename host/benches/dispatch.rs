//! Benchmarks of a call's path and of loading: `cargo bench -p toolhost`.
//!
//! Needs the guests built first (`scripts/build-guests.sh`). The trivial tool of the
//! `dispatch` groups is the `echo` function of the `hostile` test guest (string in,
//! string out, with the ~50 WASI imports a Rust tool built with std has); the
//! `language` groups compare a trivial tool in each language with a guest that has none;
//! the `policy` group, what policies add to that trivial call.

#![allow(missing_docs, reason = "criterion_group! writes a public function without a doc comment")]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolhost::{Compiler, Host, ParamSpec, PolicyComponent, Prewarm, Registry, ToolSpec, WitFunction, WitType};

fn built(folder: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target").join(folder);
    assert!(dir.is_dir(), "{} is missing: run scripts/build-guests.sh first", dir.display());
    dir
}

fn echo_host() -> Host {
    host_of(&built("test-guests").join("hostile.wasm"))
}

/// A host of one component, its compiled form kept between runs.
fn host_of(component: &Path) -> Host {
    host_with(component, Prewarm::default())
}

/// The same, with `prewarm` for what is made ahead of the calls. Always Cranelift's
/// code: with `Compiler::Auto` a large component not yet cached would be measured on
/// Winch's code while the optimizer competes for the cores.
fn host_with(component: &Path, prewarm: Prewarm) -> Host {
    Host::builder()
        .component_file(component)
        .cache_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-cache"))
        .compiler(Compiler::Optimizing)
        .prewarm(prewarm)
        .build()
        .unwrap_or_else(|error| panic!("{} loads: {error}", component.display()))
}

fn dispatch(c: &mut Criterion) {
    let host = echo_host();
    let arguments = json!({"text": "hello"});
    let mut group = c.benchmark_group("dispatch");
    group.bench_function("exact", |b| b.iter(|| host.call("echo", &arguments).expect("echo")));
    group.bench_function("repaired", |b| b.iter(|| host.call("Echo", &arguments).expect("echo")));
    for tools in [10, 1_000, 10_000] {
        let registry = synthetic_registry(tools);
        group.bench_with_input(BenchmarkId::new("unknown", tools), &registry, |b, registry| {
            b.iter(|| registry.resolve("fetch_wether_forcast").expect_err("unknown").to_string())
        });
    }
    group.finish();
}

/// What policies add to the trivial call: none, one policy component that allows
/// everything (`policy-noop`), three of them, one Rust policy that does, and the
/// policy component with its instances reused (`reuse_instances`); each
/// back-to-back, and paced (`policy/paced/…`) as `dispatch/paced/1ms` is: the
/// latency an agent sees, when the instances were made while it waited.
fn policy(c: &mut Criterion) {
    let noop = || PolicyComponent::new(built("test-guests").join("policy-noop.wasm"));
    let chained = |count: usize| {
        let builder = Host::builder()
            .component_file(built("test-guests").join("hostile.wasm"))
            .cache_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-cache"))
            .compiler(Compiler::Optimizing);
        (0..count).fold(builder, |builder, _| builder.policy_component(noop())).build().expect("the host builds")
    };
    /// A Rust policy that allows everything.
    struct Allow;
    impl toolhost::Policy for Allow {}
    let native = Host::builder()
        .component_file(built("test-guests").join("hostile.wasm"))
        .cache_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-cache"))
        .compiler(Compiler::Optimizing)
        .policy("allow", Allow, toolhost::PolicyScope::every_call())
        .build()
        .expect("the host builds");
    let arguments = json!({"text": "hello"});
    let reused = Host::builder()
        .component_file(built("test-guests").join("hostile.wasm"))
        .cache_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-cache"))
        .compiler(Compiler::Optimizing)
        .policy_component(noop().reuse_instances(true))
        .build()
        .expect("the host builds");
    let hosts = [
        ("none", chained(0)),
        ("noop", chained(1)),
        ("three", chained(3)),
        ("rust-noop", native),
        ("noop-reused", reused),
    ];
    let mut group = c.benchmark_group("policy");
    for (label, host) in &hosts {
        group.bench_function(*label, |b| b.iter(|| host.call("echo", &arguments).expect("echo")));
    }
    group.finish();
    let mut group = c.benchmark_group("policy/paced");
    paced_settings(&mut group);
    for (label, host) in &hosts {
        group.bench_function(*label, |b| b.iter_custom(|iterations| paced_calls(host, "echo", &arguments, iterations)));
    }
    group.finish();
}

/// Registry entries with real-looking names, for the unknown-name hint at scale.
fn synthetic_registry(count: usize) -> Registry {
    const VERBS: [&str; 10] = ["get", "set", "list", "create", "delete", "update", "search", "fetch", "send", "run"];
    const NOUNS: [&str; 10] =
        ["weather", "user", "file", "event", "email", "stock", "order", "ticket", "report", "note"];
    Registry::from_specs(
        (0..count)
            .map(|i| ToolSpec::new(&format!("{}_{}_{}", VERBS[i % 10], NOUNS[(i / 10) % 10], i / 100), "synthetic")),
    )
}

/// Back-to-back calls on 1 and 2 threads: `dispatch/parallel/T` as a host runs by
/// default, and `dispatch/parallel/inline/T` with nothing made ahead (each call makes
/// its own instance), which is how the call path itself scales: by default a single
/// calling thread already has the preparing thread working on the other core.
fn parallel(c: &mut Criterion) {
    let mut nothing_ahead = Prewarm::default();
    nothing_ahead.per_component = 0;
    let inline = host_with(&built("test-guests").join("hostile.wasm"), nothing_ahead);
    let mut group = c.benchmark_group("dispatch/parallel");
    group.throughput(Throughput::Elements(1));
    for (label, host) in [("", echo_host()), ("inline/", inline)] {
        for threads in [1, 2] {
            group.bench_with_input(
                BenchmarkId::from_parameter(format!("{label}{threads}")),
                &threads,
                |b, &threads| b.iter_custom(|iterations| calls_on_threads(&host, threads, iterations)),
            );
        }
    }
    group.finish();
}

/// The latency an agent sees: one call after an idle gap of about a millisecond (an
/// agent's calls do not come back-to-back), each timed alone; the gaps are not timed.
fn paced(c: &mut Criterion) {
    let host = echo_host();
    let mut group = c.benchmark_group("dispatch/paced");
    paced_settings(&mut group);
    group.bench_function("1ms", |b| {
        b.iter_custom(|iterations| paced_calls(&host, "echo", &json!({"text": "hello"}), iterations))
    });
    group.finish();
}

/// Criterion sizes a sample from the timed part only; every paced call also sleeps
/// 1 ms, so a short measurement time keeps the whole run to seconds.
fn paced_settings(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    group.sample_size(20).measurement_time(Duration::from_secs(1)).warm_up_time(Duration::from_millis(300));
}

/// The time `iterations` calls take when each comes 1 ms after the last one ended.
fn paced_calls(host: &Host, tool: &str, arguments: &Value, iterations: u64) -> Duration {
    let mut spent = Duration::ZERO;
    for _ in 0..iterations {
        std::thread::sleep(Duration::from_millis(1));
        let started = Instant::now();
        host.call(tool, arguments).expect("the benchmarked call succeeds");
        spent += started.elapsed();
    }
    spent
}

/// One trivial tool per language the example tools are written in, and the smallest
/// component there is (the `echo` test guest: no imports at all), each back-to-back
/// and paced. The Python and JavaScript components take 10-20 s each to compile the
/// first time (kept in `target/bench-cache` after that).
fn languages(c: &mut Criterion) {
    let cases: [(&str, PathBuf, &str, Value); 4] = [
        ("minimal", built("test-guests").join("echo.wasm"), "echo", json!({"text": "hello"})),
        ("rust", built("plugins").join("calculator.wasm"), "gcd", json!({"a": 12, "b": 18})),
        ("python", built("plugins").join("stats-py.wasm"), "ratio", json!({"numerator": 1.0, "denominator": 4.0})),
        ("javascript", built("plugins").join("urls-js.wasm"), "decode", json!({"text": "a%20b"})),
    ];
    for (language, component, tool, arguments) in cases {
        let host = host_of(&component);
        let mut group = c.benchmark_group(format!("language/{language}"));
        group.bench_function("back-to-back", |b| b.iter(|| host.call(tool, &arguments).expect("the call succeeds")));
        paced_settings(&mut group);
        group.bench_function("paced", |b| b.iter_custom(|iterations| paced_calls(&host, tool, &arguments, iterations)));
        group.finish();
    }
}

/// A JavaScript call with work in it, beside the trivial one: urls-js's `count_hosts`
/// over 500 URLs of 50 hosts (URL parsing, a map, a sort, an SVG chart), where code
/// compiled ahead of time (`WEVAL=path/to/weval scripts/build-guests.sh`) can differ from the
/// interpreter's.
fn javascript_work(c: &mut Criterion) {
    let host = host_of(&built("plugins").join("urls-js.wasm"));
    let urls: Vec<String> = (0..500).map(|i| format!("https://host{}.example/page/{i}?q={i}", i % 50)).collect();
    let arguments = json!({ "urls": urls });
    let mut group = c.benchmark_group("language/javascript");
    group.bench_function("count-hosts-500", |b| {
        b.iter(|| host.call("count_hosts", &arguments).expect("the call succeeds"))
    });
    group.finish();
}

/// Each compiler (see `toolhost::Compiler`) for a trivial tool in each language: a
/// host started with no cache until its first call's answer (compiling included),
/// and back-to-back calls on the code it made. `Compiler::Auto` starts as `baseline`
/// does for a large component (it is not measured itself: each start would leave a
/// background compile running into the next sample).
fn compilers(c: &mut Criterion) {
    let cases: [(&str, PathBuf, &str, Value); 3] = [
        ("rust", built("plugins").join("calculator.wasm"), "gcd", json!({"a": 12, "b": 18})),
        ("python", built("plugins").join("stats-py.wasm"), "ratio", json!({"numerator": 1.0, "denominator": 4.0})),
        ("javascript", built("plugins").join("urls-js.wasm"), "decode", json!({"text": "a%20b"})),
    ];
    let start = |component: &Path, compiler: Compiler| {
        let builder = Host::builder().component_file(component).no_cache().compiler(compiler);
        builder.build().unwrap_or_else(|error| panic!("{} loads: {error}", component.display()))
    };
    for (language, component, tool, arguments) in cases {
        let mut group = c.benchmark_group(format!("compilers/{language}"));
        group.sample_size(10);
        for (label, compiler) in [("baseline", Compiler::Baseline), ("optimizing", Compiler::Optimizing)] {
            group.bench_function(format!("{label}/first-call"), |b| {
                b.iter(|| start(&component, compiler).call(tool, &arguments).expect("the call succeeds"))
            });
            let host = start(&component, compiler);
            assert_eq!(host.load_report().components[0].baseline, compiler == Compiler::Baseline);
            group.bench_function(format!("{label}/call"), |b| {
                b.iter(|| host.call(tool, &arguments).expect("the call succeeds"))
            });
        }
        group.finish();
    }
}

/// Time for `iterations` calls spread over `threads` threads.
fn calls_on_threads(host: &Host, threads: u64, iterations: u64) -> Duration {
    let arguments = json!({"text": "hello"});
    let started = Instant::now();
    std::thread::scope(|scope| {
        for t in 0..threads {
            let share = iterations / threads + u64::from(t < iterations % threads);
            let (host, arguments) = (host.clone(), &arguments);
            scope.spawn(move || {
                for _ in 0..share {
                    host.call("echo", arguments).expect("echo");
                }
            });
        }
    });
    started.elapsed()
}

fn bind(c: &mut Criterion) {
    let item = WitType::Record(vec![
        toolhost::Field { name: "name".into(), ty: WitType::String },
        toolhost::Field { name: "count".into(), ty: WitType::U32 },
        toolhost::Field { name: "tags".into(), ty: WitType::List(Box::new(WitType::String)) },
        toolhost::Field { name: "score".into(), ty: WitType::Option(Box::new(WitType::F64)) },
    ]);
    let params = vec![ParamSpec { name: "items".into(), ty: WitType::List(Box::new(item)), description: None }];
    let spec = ToolSpec::for_function("synthetic", WitFunction::new("ingest", params, None));
    let items: Vec<_> =
        (0..1000).map(|i| json!({"name": format!("item {i}"), "count": i, "tags": ["a", "b"], "score": 0.5})).collect();
    let arguments = json!({ "items": items });
    c.bench_function("bind/nested", |b| b.iter(|| toolhost::bind::check_arguments(&spec, &arguments).expect("binds")));
}

/// What checking a call that needs no repair costs, stage by stage, with APIs that
/// were there before repairs were collected and reported (so the same benchmark runs
/// on the code before and after, BENCHMARKS.md "Repairs on a call that needs none"):
/// the exact name among 1,000 tools, strict argument text, a WIT tool's arguments
/// (the `search` shape) and an MCP tool's against its JSON Schema.
fn no_repair(c: &mut Criterion) {
    let registry = synthetic_registry(1_000);
    let params = vec![
        ParamSpec { name: "query".into(), ty: WitType::String, description: None },
        ParamSpec { name: "limit".into(), ty: WitType::Option(Box::new(WitType::U32)), description: None },
        ParamSpec { name: "tags".into(), ty: WitType::List(Box::new(WitType::String)), description: None },
    ];
    let spec = ToolSpec::for_function("synthetic", WitFunction::new("search", params, None));
    let arguments = json!({"query": "orbits", "limit": 5, "tags": ["space", "physics"]});
    let text = arguments.to_string();
    let schema = toolhost::bind::SchemaBinder::new(json!({
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer", "minimum": 1},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["query"],
        "additionalProperties": false,
    }));
    let mut group = c.benchmark_group("no_repair");
    group.bench_function("resolve", |b| b.iter(|| registry.resolve("search_note_5").expect("a tool")));
    group.bench_function("text", |b| b.iter(|| toolhost::bind::parse_arguments(&spec, &text).expect("JSON")));
    group.bench_function("wit", |b| b.iter(|| toolhost::bind::check_arguments(&spec, &arguments).expect("binds")));
    group.bench_function("schema", |b| b.iter(|| schema.bind("search", &arguments).expect("binds")));
    group.finish();
}

/// A folder with the Rust example tools (the figures in BENCHMARKS.md are for these
/// six; the Python and JavaScript ones take 10-20 s each to compile cold).
fn rust_plugins() -> tempfile::TempDir {
    let folder = tempfile::tempdir().expect("plugin folder");
    for entry in std::fs::read_dir(built("plugins")).expect("plugins").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".wasm") && !name.ends_with("-py.wasm") && !name.ends_with("-js.wasm") {
            std::fs::copy(entry.path(), folder.path().join(&name)).expect("copy");
        }
    }
    folder
}

fn load(c: &mut Criterion) {
    let folder = rust_plugins();
    let plugins = folder.path();
    let cache = tempfile::tempdir().expect("cache folder");
    let mut group = c.benchmark_group("load");
    group.sample_size(10);
    group.bench_function("cold", |b| b.iter(|| Host::builder().plugin_dir(plugins).no_cache().build().expect("loads")));
    Host::builder().plugin_dir(plugins).cache_dir(cache.path()).build().expect("fills the cache");
    group.bench_function("warm", |b| {
        b.iter(|| {
            let host = Host::builder().plugin_dir(plugins).cache_dir(cache.path()).build().expect("loads");
            assert_eq!(host.load_report().compiled(), 0);
            host
        })
    });
    group.finish();
}

/// Recovering the calls written into a reply: 1 KB and 1 MB of prose with near
/// misses (tags without JSON, code, stray brackets) and one call at the end, and
/// 1 MB with none; the throughput is in bytes, so the figure per KB can be read off.
fn extract(c: &mut Criterion) {
    let host = echo_host();
    let noise = "Some prose, `code`, <tool_call> without JSON, [TOOL_CALLS] nothing, {\"name\": 1}, \"quotes\n";
    let call = "<tool_call>{\"name\": \"Echo\", \"arguments\": {\"text\": \"hi\"}}</tool_call>";
    let mut group = c.benchmark_group("extract");
    for (label, size) in [("1kb", 1 << 10), ("1mb", 1 << 20)] {
        let reply = noise.repeat(size / noise.len()) + call;
        group.throughput(Throughput::Bytes(reply.len() as u64));
        group.bench_function(label, |b| b.iter(|| assert_eq!(host.extract_calls(&reply).calls.len(), 1)));
    }
    // No call at all, so every reading is tried: the whole reply, a fence, unnamed
    // tag pairs, one call among prose; and the shapes that would make a careless
    // scan quadratic (brackets opened and never closed, tags never paired).
    let prose = "Prose with [a list], a {\"json\": 1} object, <tool> and [TOOL] tags, f(x) and `code`.\n";
    for (label, unit) in [("1mb_no_call", prose), ("1mb_open_brackets", "[{"), ("1mb_unpaired_tags", "<tool>[call]")] {
        let reply = unit.repeat((1 << 20) / unit.len());
        group.throughput(Throughput::Bytes(reply.len() as u64));
        group.bench_function(label, |b| b.iter(|| assert!(host.extract_calls(&reply).calls.is_empty())));
    }
    group.finish();
}

criterion_group!(
    benches,
    dispatch,
    policy,
    paced,
    parallel,
    languages,
    javascript_work,
    compilers,
    bind,
    no_repair,
    load,
    extract
);
criterion_main!(benches);
