//! Hostile tools, hostile input and faults: none takes the host down, escapes the
//! sandbox, or corrupts another call.

use crate::common;
use crate::process::Process;

use std::fs;
use std::sync::OnceLock;
use std::time::Duration;

use proptest::prelude::*;
use serde_json::{Value, json};
use toolhost::{Compiler, Host, ToolError, ToolSpec};

/// The hostile guest with tight limits, so that each case ends quickly.
fn host() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(common::limited_hostile_host)
}

/// After every hostile call, an ordinary one must still work.
fn serves_normally(host: &Host) {
    assert_eq!(host.call("echo", &json!({"text": "after"})), Ok(json!("after")));
}

fn kind_of(host: &Host, tool: &str, arguments: Value) -> &'static str {
    let outcome = host.call(tool, &arguments);
    serves_normally(host);
    match outcome {
        Ok(_) => "ok",
        Err(error) => error.kind(),
    }
}

/// Misbehaviour the tight limits end, with the kind of error each gets.
fn limited_cases() -> [(&'static str, Value, &'static str); 8] {
    [
        ("spin", json!({}), "timed_out"),
        ("spin_with_imports", json!({}), "timed_out"),
        ("sleep", json!({"ms": 60_000}), "timed_out"),
        ("allocate_huge", json!({"bytes": 1536u64 << 20}), "out_of_memory"),
        ("recurse", json!({"depth": 0}), "crashed"),
        ("panic_with", json!({"message": "boom"}), "crashed"),
        ("trap_silently", json!({}), "crashed"),
        ("read_out_of_bounds", json!({}), "crashed"),
    ]
}

#[test]
fn misbehaving_tools_get_the_right_error_and_the_host_serves_on() {
    for (tool, arguments, kind) in limited_cases() {
        assert_eq!(kind_of(host(), tool, arguments.clone()), kind, "{tool}({arguments})");
    }
    // Under the default time limit, so that a slow machine cannot turn these into time-outs.
    let roomy = common::hostile_host();
    for (tool, arguments, kind) in [
        ("big_string", json!({"length": 2 << 20}), "result_too_large"),
        ("big_list", json!({"count": 200_000}), "result_too_large"),
        // Past wasmtime's bound on the host memory a returned value may take (128 MiB).
        ("big_list", json!({"count": 10_000_000}), "result_too_large"),
        ("fail_structured", json!({"code": 1}), "tool_failed"),
        // Filling 64 MiB page by page took more than 300 ms once on a loaded machine.
        ("allocate_forever", json!({}), "out_of_memory"),
    ] {
        assert_eq!(kind_of(&roomy, tool, arguments.clone()), kind, "{tool}({arguments})");
    }
}

#[test]
fn the_baseline_compilers_code_is_held_to_the_same_limits() {
    let limits = common::with(common::time_limit(Duration::from_millis(300)), |l| l.memory_bytes = 64 << 20);
    let host = Host::builder()
        .component_file(common::test_guest("hostile"))
        .no_cache()
        .compiler(Compiler::Baseline)
        .limits(limits)
        .build()
        .expect("hostile loads");
    assert!(host.load_report().components.iter().all(|c| c.baseline), "{:?}", host.load_report());
    for (tool, arguments, kind) in limited_cases() {
        assert_eq!(kind_of(&host, tool, arguments.clone()), kind, "{tool}({arguments}) on baseline code");
    }
    assert_eq!(host.call("count_calls", &json!({})), Ok(json!(1)));
    assert_eq!(host.call("count_calls", &json!({})), Ok(json!(1)));
}

#[test]
fn a_global_does_not_survive_between_calls() {
    assert_eq!(host().call("count_calls", &json!({})), Ok(json!(1)));
    assert_eq!(host().call("count_calls", &json!({})), Ok(json!(1)));
}

/// The guest's own account of a denied operation.
fn tool_failure(host: &Host, tool: &str, arguments: Value) -> String {
    let outcome = host.call(tool, &arguments);
    serves_normally(host);
    match outcome {
        Err(ToolError::ToolFailed { message, .. }) => message,
        other => panic!("{tool}({arguments}) should be refused to the tool, got {other:?}"),
    }
}

#[test]
fn the_sandbox_denies_files_and_variables() {
    let outside = tempfile::tempdir().expect("temporary folder");
    fs::write(outside.path().join("secret.txt"), "secret").expect("write");
    let granted = tempfile::tempdir().expect("temporary folder");
    fs::write(granted.path().join("ok.txt"), "fine").expect("write");
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), granted.path().join("link.txt")).expect("symlink");
    let host = Host::builder()
        .component_file(common::test_guest("hostile"))
        .cache_dir(common::test_cache_dir())
        .grant_dir("hostile", granted.path(), "/data", true)
        .build()
        .expect("host");
    assert_eq!(host.call("read_path", &json!({"path": "/data/ok.txt"})), Ok(json!("fine")));

    // Files: the host sees each refused open (a path outside every grant reaches the
    // empty folder every call has at `/`), and the model is told what was denied.
    for (tool, arguments, expected) in file_denials() {
        let outcome = host.call(tool, &arguments);
        serves_normally(&host);
        let error = outcome.expect_err("denied");
        assert_eq!((error.kind(), error.to_string()), ("denied", expected), "{tool}({arguments})");
    }
    assert!(!granted.path().join("new.txt").exists());
    // A file that is simply missing inside a grant is the tool's own error, not a denial.
    assert_eq!(
        tool_failure(&host, "read_path", json!({"path": "/data/missing.txt"})),
        "/data/missing.txt: No such file or directory (os error 44)"
    );
    // Variables that were not granted do not exist inside the sandbox.
    assert_eq!(host.call("env_var", &json!({"name": "HOME"})), Ok(json!(null)));
}

/// Opens the `hostile` guest tries with `/data` granted read-only, and what the
/// model is told of each.
fn file_denials() -> [(&'static str, Value, String); 4] {
    let told = |what: &str, reported: &str| {
        format!(
            "Tool '{}' was denied by its sandbox: {what}. The tool reported: {reported}. Retrying will not \
             help; only the tool's manifest can grant this access.",
            if what.starts_with("writing") { "write_path" } else { "read_path" }
        )
    };
    [
        (
            "read_path",
            json!({"path": "/etc/passwd"}),
            told(
                "opening '/etc/passwd' (it is outside the folders granted to this tool)",
                "/etc/passwd: Permission denied (os error 2)",
            ),
        ),
        (
            "read_path",
            json!({"path": "/data/../../../../etc/passwd"}),
            told(
                "opening '../../../../etc/passwd' (the path leads out of the folder granted to this tool)",
                "/data/../../../../etc/passwd: Operation not permitted (os error 63)",
            ),
        ),
        (
            "read_path",
            json!({"path": "/data/link.txt"}),
            told(
                "opening 'link.txt' (the path leads out of the folder granted to this tool)",
                "/data/link.txt: Operation not permitted (os error 63)",
            ),
        ),
        (
            "write_path",
            json!({"path": "/data/new.txt", "contents": "x"}),
            told(
                "writing 'new.txt' (the folder is read-only for this tool, or the path leads out of it)",
                "/data/new.txt: Operation not permitted (os error 63)",
            ),
        ),
    ]
}

#[test]
fn the_sandbox_denies_sockets_and_names() {
    let host = Host::builder()
        .component_file(common::test_guest("hostile"))
        .cache_dir(common::test_cache_dir())
        .build()
        .expect("host");
    // The network: the host sees each attempt, and the model is told what was denied.
    let network = [
        (
            "connect",
            json!({"address": "127.0.0.1:9"}),
            "Tool 'connect' was denied by its sandbox: opening a TCP socket (tools may not open sockets; HTTP \
             requests to allowed hosts are the only network access). The tool reported: \
             connect 127.0.0.1:9: Permission denied (os error 2). Retrying will not help; only the tool's \
             manifest can grant this access.",
        ),
        (
            "resolve",
            json!({"host": "localhost"}),
            "Tool 'resolve' was denied by its sandbox: a lookup of the host name 'localhost' (tools may not \
             resolve host names; HTTP requests to allowed hosts are the only network access). The tool reported: \
             resolve localhost: failed to lookup address information: Non-recoverable error. Retrying will \
             not help; only the tool's manifest can grant this access.",
        ),
    ];
    for (tool, arguments, expected) in network {
        let outcome = host.call(tool, &arguments);
        serves_normally(&host);
        let error = outcome.expect_err("denied");
        assert_eq!(error.kind(), "denied", "{tool}({arguments})");
        assert_eq!(error.to_string(), expected, "{tool}({arguments})");
    }
}

#[test]
fn hostile_tool_names_get_a_corrective_error() {
    let host = common::example_host();
    let long = "x".repeat(10_000);
    for name in
        ["", long.as_str(), "eval\u{0}uate", "\u{1b}[31mevaluate", "еvaluate", "___", "- -", "ｅｖａｌｕａｔｅ", "🦀"]
    {
        match host.call(name, &json!({"expression": "1"})) {
            Err(ToolError::UnknownTool { available_tools, .. }) => assert_eq!(available_tools.len(), 37),
            Err(ToolError::AmbiguousTool { .. }) => {}
            other => panic!("{name:?}: expected a corrective error, got {other:?}"),
        }
    }
}

#[test]
fn a_bad_plugin_folder_warns_and_serves_the_rest() {
    let folder = tempfile::tempdir().expect("temporary folder");
    fs::copy(common::plugins_dir().join("calculator.wasm"), folder.path().join("calculator.wasm")).expect("copy");
    fs::copy(common::test_guest("needy"), folder.path().join("needy.wasm")).expect("copy");
    std::os::unix::fs::symlink(folder.path().join("gone.wasm"), folder.path().join("vanished.wasm")).expect("symlink");
    fs::create_dir(folder.path().join("folder.wasm")).expect("folder");
    let not_a_folder = folder.path().join("plain-file");
    fs::write(&not_a_folder, "x").expect("write");

    let host =
        Host::builder().plugin_dir(folder.path()).cache_dir(not_a_folder.join("cache")).build().expect("host builds");
    assert_eq!(host.call("gcd", &json!({"a": 6, "b": 4})), Ok(json!(2)));
    let warnings = &host.load_report().warnings;
    assert_eq!(warnings.len(), 4, "{warnings:#?}");
    let about = |file: &str| {
        warnings.iter().find(|w| w.contains(file)).unwrap_or_else(|| panic!("no warning for {file}: {warnings:#?}"))
    };
    assert!(about("needy.wasm").contains("test:needy/secrets"), "{}", about("needy.wasm"));
    assert!(about("vanished.wasm").contains("cannot read"), "{}", about("vanished.wasm"));
    assert!(
        about("folder.wasm").contains("cannot read it: it is a folder, not a regular file"),
        "{}",
        about("folder.wasm")
    );
    assert!(
        about("plain-file/cache").starts_with("the compile cache is not used: cannot use ")
            && about("plain-file/cache")
                .ends_with(": Not a directory (os error 20); components are compiled on every start meanwhile"),
        "{}",
        about("plain-file/cache")
    );
}

#[test]
fn a_process_killed_while_writing_the_cache_leaves_nothing_trusted() {
    let cache = tempfile::tempdir().expect("temporary folder");
    for delay_ms in [20, 60, 120, 200, 300, 450] {
        let mut child = Process::spawn(
            std::process::Command::new(env!("CARGO_BIN_EXE_toolhost"))
                .args(["list", "--plugins"])
                .arg(common::plugins_dir())
                .env("TOOLHOST_CACHE_DIR", cache.path())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null()),
        )
        .expect("toolhost starts");
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill();
    }
    let host = Host::builder().plugin_dir(common::plugins_dir()).cache_dir(cache.path()).build().expect("host");
    assert_eq!(host.load_report().warnings, Vec::<String>::new());
    assert_eq!(host.call("gcd", &json!({"a": 9, "b": 6})), Ok(json!(3)));
    let again = Host::builder().plugin_dir(common::plugins_dir()).cache_dir(cache.path()).build().expect("host");
    assert_eq!(again.load_report().compiled(), 0);
}

/// Arbitrary JSON values, for the binder.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
        ".{0,12}".prop_map(Value::String),
        "[a-z_]{1,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-zA-Z_-]{1,16}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Arguments shaped like each example tool's, with arbitrary values.
fn tool_arguments() -> impl Strategy<Value = (String, Value)> {
    let host = common::example_host_shared();
    let tools: Vec<(String, Vec<String>)> = host.tools().iter().map(|t| (t.name.clone(), param_names(t))).collect();
    prop::sample::select(tools).prop_flat_map(|(name, params)| {
        let values = prop::collection::vec(any_json(), params.len());
        (Just(name), values)
            .prop_map(move |(name, values)| (name, Value::Object(params.iter().cloned().zip(values).collect())))
    })
}

/// A component's tool's parameter names, in call order.
fn param_names(tool: &ToolSpec) -> Vec<String> {
    let function = tool.wit_function().expect("the example tools are components'");
    function.params.iter().map(|p| p.name.clone()).collect()
}

fn fuzz_cases() -> u32 {
    std::env::var("TOOLHOST_FUZZ_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(2000)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(fuzz_cases()))]

    /// Every rejection of arbitrary arguments is a corrective error, never a panic.
    #[test]
    fn arbitrary_arguments_never_panic_the_binder((tool, arguments) in tool_arguments()) {
        let host = common::example_host_shared();
        let spec = host.tool(&tool).expect("listed");
        if let Err(error) = toolhost::bind::check_arguments(&spec, &arguments) {
            prop_assert!(!error.to_string().is_empty());
        }
    }

    /// Arbitrary argument text through the repairing parser and the binder.
    #[test]
    fn arbitrary_argument_text_never_panics(text in prop_oneof![".{0,80}", "[{}\\[\\]:,'\"a-z0-9 `\n]{0,60}"], tool in prop::sample::select(vec!["evaluate", "convert", "add_duration", "replace", "query"])) {
        let spec = common::example_host_shared().tool(tool).expect("listed");
        // Parsed and bound as the host would, without running the tool.
        let checked = toolhost::bind::parse_arguments(&spec, &text).and_then(|value| toolhost::bind::check_arguments(&spec, &value));
        if let Err(error) = checked {
            prop_assert!(!error.to_string().is_empty());
        }
    }
}
