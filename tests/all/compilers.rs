//! Which compiler a component's code comes from: a large component serves at once on
//! the baseline compiler's code, then on optimized code compiled in the background;
//! the cache keeps both, and optimized code found there is used whatever the setting.

use std::time::{Duration, Instant};

use serde_json::json;
use toolhost::{Compiler, Host};

use crate::common;

/// The number of compiled components in a cache folder.
fn entries_in(cache: &std::path::Path) -> usize {
    let entries = std::fs::read_dir(cache).expect("the cache folder");
    entries.filter(|e| e.as_ref().is_ok_and(|e| e.path().extension().is_some_and(|x| x == "cwasm"))).count()
}

#[test]
fn a_large_component_serves_on_baseline_code_at_once_then_on_optimized_code() {
    let cache = tempfile::tempdir().expect("temporary folder");
    let folder = common::plugins_with(&["stats-py"]);
    std::fs::copy(common::plugins_dir().join("stats-py.toml"), folder.path().join("stats-py.toml")).expect("copy");
    let build = || Host::builder().plugin_dir(folder.path()).cache_dir(cache.path()).build().expect("host");
    let (arguments, median) = (json!({"values": [1, 2, 3, 4], "kind": "median"}), json!(2.5));

    let host = build();
    let report = host.load_report().components[0].clone();
    assert!(report.compiled && report.baseline, "{report:?}");
    let tools = host.tools();
    assert_eq!(host.call("average", &arguments), Ok(median.clone()));

    // A debug build on two busy cores optimizes the 18 MB component in well under this.
    let deadline = Instant::now() + Duration::from_secs(300);
    while host.load_report().components[0].baseline {
        assert!(Instant::now() < deadline, "the optimized code did not replace the baseline code");
        assert_eq!(host.call("average", &arguments), Ok(median.clone()), "a call while it is being optimized");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(host.call("average", &arguments), Ok(median.clone()), "a call on optimized code");
    assert_eq!(host.tools(), tools);
    assert_eq!(host.load_report().warnings, Vec::<String>::new());
    drop(host);

    assert_eq!(entries_in(cache.path()), 2, "the baseline and the optimized code are both kept");
    let next = build();
    let report = &next.load_report().components[0];
    assert!(!report.compiled && !report.baseline, "{report:?}");
    assert_eq!(next.call("average", &arguments), Ok(median));
}

#[test]
fn a_small_component_is_optimized_before_it_serves() {
    let folder = common::plugins_with(&["calculator"]);
    let host = Host::builder().plugin_dir(folder.path()).no_cache().build().expect("host");
    let report = &host.load_report().components[0];
    assert!(report.compiled && !report.baseline, "{report:?}");
    assert_eq!(host.call("gcd", &json!({"a": 4, "b": 6})), Ok(json!(2)));
}

#[test]
fn optimized_code_in_the_cache_is_used_by_every_setting() {
    // scripts/test.sh fills the tests' cache with the example tools' optimized code.
    let folder = common::plugins_with(&["stats-py"]);
    for compiler in [Compiler::Auto, Compiler::Baseline, Compiler::Optimizing] {
        let host = Host::builder()
            .plugin_dir(folder.path())
            .cache_dir(common::test_cache_dir())
            .compiler(compiler)
            .build()
            .expect("host");
        let report = &host.load_report().components[0];
        assert!(!report.compiled && !report.baseline, "{compiler:?}: {report:?}");
    }
}

#[test]
fn baseline_only_code_serves_and_is_kept_for_the_next_start() {
    let cache = tempfile::tempdir().expect("temporary folder");
    let folder = common::plugins_with(&["calculator"]);
    let build = || {
        let builder = Host::builder().plugin_dir(folder.path()).cache_dir(cache.path());
        builder.compiler(Compiler::Baseline).build().expect("host")
    };
    let first = build();
    assert!(first.load_report().components.iter().all(|c| c.baseline && c.compiled));
    assert_eq!(first.call("gcd", &json!({"a": 4, "b": 6})), Ok(json!(2)));
    drop(first);
    let second = build();
    assert!(second.load_report().components.iter().all(|c| c.baseline && !c.compiled));
    assert_eq!(second.call("evaluate", &json!({"expression": "2 * (3 + 4)"})), Ok(json!(14.0)));
    assert_eq!(entries_in(cache.path()), 1, "only baseline code was made");
}

#[test]
fn a_command_that_ends_first_leaves_optimized_code_behind_and_prepare_makes_it_ahead() {
    let folder = common::plugins_with(&["stats-py"]);
    std::fs::copy(common::plugins_dir().join("stats-py.toml"), folder.path().join("stats-py.toml")).expect("copy");
    let toolhost = |command: &str, cache: &std::path::Path| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args([command, "--plugins"])
            .arg(folder.path())
            .env("TOOLHOST_CACHE_DIR", cache)
            .env_remove("TOOLHOST_NO_PREPARE")
            .output()
            .expect("toolhost runs");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8_lossy(&output.stdout).into_owned()
    };

    // `toolhost list` serves the large component on baseline code and ends at once;
    // the `toolhost prepare` it leaves running adds the optimized code.
    let cache = tempfile::tempdir().expect("temporary folder");
    assert!(toolhost("list", cache.path()).contains("average"));
    let deadline = Instant::now() + Duration::from_secs(300);
    while entries_in(cache.path()) < 2 {
        assert!(Instant::now() < deadline, "no optimized code was left behind");
        std::thread::sleep(Duration::from_millis(200));
    }
    let next = Host::builder().plugin_dir(folder.path()).cache_dir(cache.path()).build().expect("host");
    let report = &next.load_report().components[0];
    assert!(!report.compiled && !report.baseline, "{report:?}");
    let again = toolhost("prepare", cache.path());
    assert!(again.contains("1 component(s): 0 compiled now, 1 there already"), "{again}");

    // `toolhost prepare` on an empty cache compiles the optimized code, and only that.
    let fresh = tempfile::tempdir().expect("temporary folder");
    let prepared = toolhost("prepare", fresh.path());
    assert!(prepared.contains("1 component(s): 1 compiled now, 0 there already"), "{prepared}");
    assert_eq!(entries_in(fresh.path()), 1);
}
