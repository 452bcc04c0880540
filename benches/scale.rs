//! The host at 10,000 tools: `cargo bench -p toolhost-cli --bench scale`.
//!
//! 1,000 components of 10 tools each are written from text (each has its own tool
//! names, so each is its own bytes, compiled on its own) into a plugin folder, then:
//!
//! - `scale/load/{empty_cache,warm_cache}`: building a host of the folder;
//! - `scale/resolve/{exact,repaired,unknown}` and `scale/call/exact`: a name among
//!   10,000, and a whole call of one of them;
//! - `scale/definitions/mcp`: the 10,000 MCP tool definitions, and
//!   `scale/stdio/tools_list` the same list asked of `toolhost serve` over stdio (its
//!   size and the server's resident memory are printed);
//! - `scale/definitions/disclosed`, `scale/stdio/tools_list_disclosed`: the same,
//!   disclosing ten tools and the finder (sizes printed); `scale/find_tools`: a
//!   search of the finder among the 10,000;
//! - `scale/gateway/*`: ten MCP servers of 1,000 tools each (each a `toolhost serve`
//!   of 100 of the components) as the plugins of one host: its start, resolution and
//!   a call through it.

#![allow(missing_docs, reason = "criterion_group! writes a public function without a doc comment")]

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::Served;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolhost::{Disclosure, Host, ToolError, ToolFormat};

const COMPONENTS: usize = 1_000;
const VERBS: [&str; 5] = ["get", "list", "create", "update", "delete"];
const NOUNS: [&str; 2] = ["record", "note"];
/// The gateway's servers, each serving `COMPONENTS / SERVERS` components.
const SERVERS: usize = 10;
/// The tools a disclosing host lists beside its finder: ten of the 10,000.
const CORE: &str = "get_record1?";

/// Component `k` in the component model's text format: ten tools `{verb}-{noun}{k}`,
/// each `(x: s32) -> s32` returning its argument plus its index.
fn component_text(k: usize) -> String {
    let mut core = String::new();
    let mut lifted = String::new();
    for (i, (verb, noun)) in VERBS.iter().flat_map(|v| NOUNS.iter().map(move |n| (v, n))).enumerate() {
        core.push_str(&format!(
            "(func (export \"f{i}\") (param i32) (result i32) local.get 0 i32.const {i} i32.add)\n"
        ));
        lifted.push_str(&format!(
            "(func $t{i} (param \"x\" s32) (result s32) (canon lift (core func $m \"f{i}\")))\n\
             (export \"{verb}-{noun}{k}\" (func $t{i}))\n"
        ));
    }
    format!("(component\n(core module $code\n{core})\n(core instance $m (instantiate $code))\n{lifted})\n")
}

/// Writes the 1,000 components into `dir/all`, and links them into `SERVERS`
/// folders of 100 each (`dir/part{s}`), which it returns.
fn write_components(dir: &Path) -> Vec<PathBuf> {
    let all = dir.join("all");
    let parts: Vec<PathBuf> = (0..SERVERS).map(|s| dir.join(format!("part{s}"))).collect();
    for folder in parts.iter().chain([&all]) {
        std::fs::create_dir_all(folder).expect("a folder");
    }
    for k in 0..COMPONENTS {
        let bytes = wat::parse_str(component_text(k)).expect("the component text is valid");
        let file = format!("svc{k:04}.wasm");
        std::fs::write(all.join(&file), bytes).expect("write");
        std::fs::hard_link(all.join(&file), parts[k / (COMPONENTS / SERVERS)].join(&file)).expect("link");
    }
    parts
}

/// A host of the folder `plugins` with `cache` as its cache.
fn host_of(plugins: &Path, cache: &Path) -> Host {
    let host = Host::builder().plugin_dir(plugins).cache_dir(cache).build().expect("the host loads");
    assert_eq!(host.tools().len(), COMPONENTS * 10, "{:?}", host.load_report());
    host
}

fn scale(c: &mut Criterion) {
    let root = tempfile::tempdir().expect("a folder");
    let parts = write_components(root.path());
    let plugins = root.path().join("all");
    let warm = root.path().join("cache");

    let mut group = c.benchmark_group("scale");
    group.sample_size(10).warm_up_time(Duration::from_millis(1));
    group.bench_function("load/empty_cache", |b| {
        b.iter_custom(|iterations| {
            (0..iterations)
                .map(|_| {
                    let cache = tempfile::tempdir_in(root.path()).expect("a folder");
                    let started = Instant::now();
                    drop(host_of(&plugins, cache.path()));
                    started.elapsed()
                })
                .sum()
        });
    });
    drop(host_of(&plugins, &warm));
    group.bench_function("load/warm_cache", |b| b.iter(|| host_of(&plugins, &warm)));
    group.finish();

    let host = host_of(&plugins, &warm);
    let mut group = c.benchmark_group("scale");
    group.bench_function("resolve/exact", |b| b.iter(|| host.resolve_name("get_record500").expect("a tool")));
    group.bench_function("resolve/repaired", |b| b.iter(|| host.resolve_name("GetRecord500").expect("a tool")));
    group.bench_function("resolve/unknown", |b| {
        b.iter(|| {
            let error = host.resolve_name("fetch_recrod500").expect_err("no such tool");
            assert!(matches!(error, ToolError::UnknownTool { .. }));
            error
        });
    });
    let unknown = host.resolve_name("fetch_recrod500").expect_err("no such tool").to_string();
    println!("scale: an unknown name's message is {} bytes: {unknown}", unknown.len());
    group.bench_function("call/exact", |b| b.iter(|| host.call("get_record500", &json!({"x": 1})).expect("calls")));
    let definitions = host.tool_definitions(ToolFormat::Mcp);
    println!("scale: 10,000 MCP definitions, {} bytes as JSON; one: {}", definitions.to_string().len(), definitions[0]);
    group.bench_function("definitions/mcp", |b| b.iter(|| host.tool_definitions(ToolFormat::Mcp)));
    disclosed(&mut group, &host);
    drop(host);

    let mut served = Served::toolhost(&[("TOOLHOST_PLUGINS", &plugins), ("TOOLHOST_CACHE_DIR", &warm)]);
    let list = served.ask("tools/list", json!({}));
    println!(
        "scale: tools/list over stdio lists {} tools in {} bytes; the server holds {} MiB resident (peak {} MiB)",
        list["result"]["tools"].as_array().map_or(0, Vec::len),
        list.to_string().len(),
        served.memory_kib("VmRSS:") / 1024,
        served.memory_kib("VmHWM:") / 1024,
    );
    group.bench_function("stdio/tools_list", |b| b.iter(|| served.ask("tools/list", json!({}))));
    let call = json!({"name": "get_record500", "arguments": {"x": 1}});
    assert_eq!(served.ask("tools/call", call.clone())["result"]["structuredContent"]["result"], 1);
    group.bench_function("stdio/call", |b| b.iter(|| served.ask("tools/call", call.clone())));
    drop(served);
    disclosed_over_stdio(&mut group, &plugins, &warm);
    group.finish();

    gateway(c, &parts, &warm, root.path());
}

/// `host` disclosing ten tools beside the finder, which searches all 10,000.
fn disclosed(group: &mut BenchmarkGroup<'_, WallTime>, host: &Host) {
    let disclosing = host.disclosing(Disclosure::new(&[CORE]).expect("a pattern"));
    let shown = disclosing.tool_definitions(ToolFormat::Mcp);
    let (count, bytes) = (shown.as_array().map_or(0, Vec::len), shown.to_string().len());
    println!("scale: disclosing, {count} MCP definitions, {bytes} bytes as JSON");
    group.bench_function("definitions/disclosed", |b| b.iter(|| disclosing.tool_definitions(ToolFormat::Mcp)));
    let find = json!({"query": "update the note", "limit": 5});
    let found = disclosing.call("find_tools", &find).expect("the finder runs");
    let (count, bytes) = (found["tools"].as_array().map_or(0, Vec::len), found.to_string().len());
    println!("scale: find_tools found {count} tools in {bytes} bytes");
    group.bench_function("find_tools", |b| b.iter(|| disclosing.call("find_tools", &find).expect("the finder runs")));
}

/// `toolhost serve --disclose` over the 10,000 tools: its `tools/list`.
fn disclosed_over_stdio(group: &mut BenchmarkGroup<'_, WallTime>, plugins: &PathBuf, warm: &PathBuf) {
    let core = PathBuf::from(CORE);
    let env = [("TOOLHOST_PLUGINS", plugins), ("TOOLHOST_CACHE_DIR", warm), ("TOOLHOST_DISCLOSE", &core)];
    let mut served = Served::toolhost(&env);
    let list = served.ask("tools/list", json!({}));
    let listed = list["result"]["tools"].as_array().map_or(0, Vec::len);
    println!("scale: disclosing, tools/list over stdio lists {listed} tools in {} bytes", list.to_string().len());
    group.bench_function("stdio/tools_list_disclosed", |b| b.iter(|| served.ask("tools/list", json!({}))));
}

/// Ten MCP servers of 1,000 tools each behind one host.
fn gateway(c: &mut Criterion, parts: &[PathBuf], warm: &Path, root: &Path) {
    let servers = root.join("servers");
    std::fs::create_dir_all(&servers).expect("a folder");
    for (s, part) in parts.iter().enumerate() {
        let file = format!(
            "command = [{:?}, \"serve\"]\nstart_timeout_ms = 120000\n[env]\nTOOLHOST_PLUGINS = {:?}\nTOOLHOST_CACHE_DIR = {:?}\n",
            env!("CARGO_BIN_EXE_toolhost"),
            part,
            warm
        );
        std::fs::write(servers.join(format!("gw{s}.mcp.toml")), file).expect("write");
    }
    let start = || {
        let host = Host::builder().plugin_dir(&servers).no_cache().build().expect("the gateway loads");
        assert_eq!(host.tools().len(), COMPONENTS * 10, "{:?}", host.load_report());
        host
    };
    let mut group = c.benchmark_group("scale/gateway");
    group.sample_size(10).warm_up_time(Duration::from_millis(1));
    group.bench_function("load", |b| b.iter(start));
    let host = start();
    group.bench_function("resolve/exact", |b| b.iter(|| host.resolve_name("get_record500").expect("a tool")));
    group.bench_function("resolve/repaired", |b| b.iter(|| host.resolve_name("GetRecord500").expect("a tool")));
    group.bench_function("resolve/unknown", |b| b.iter(|| host.resolve_name("fetch_recrod500").expect_err("unknown")));
    group.bench_function("call/exact", |b| b.iter(|| host.call("get_record500", &json!({"x": 1})).expect("calls")));
    group.finish();
}

criterion_group!(benches, scale);
criterion_main!(benches);
