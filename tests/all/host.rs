//! The host: loading a folder into a registry, the compile cache, duplicates and
//! unusable signatures, limits and the sandbox.

use crate::common;

use std::fs;
use std::time::Duration;

use serde_json::json;
use toolhost::{Host, Limits, ParamSpec, ToolAnnotations, ToolError, ToolOrigin, ToolSpec, WitType};

#[test]
fn example_folder_yields_the_exact_tool_list() {
    let host = common::example_host();
    let names: Vec<String> = host.tools().into_iter().map(|t| t.name).collect();
    assert_eq!(
        names,
        [
            "add_duration",
            "average",
            "build_url",
            "char_at",
            "convert",
            "days_between",
            "decode",
            "describe",
            "evaluate",
            "factorial",
            "format_date",
            "format_date_time",
            "gcd",
            "get_part",
            "is_palindrome",
            "keys",
            "length",
            "list_dir",
            "list_units",
            "parse_date",
            "parse_url",
            "percentage",
            "percentile",
            "query",
            "ratio",
            "read_file",
            "replace",
            "slugify",
            "statistics",
            "summarize",
            "top_words",
            "weekday",
            "word_count",
            "write_file",
        ]
    );
    let unit = WitType::Enum(
        [
            "millimeter",
            "centimeter",
            "meter",
            "kilometer",
            "inch",
            "foot",
            "mile",
            "gram",
            "kilogram",
            "ounce",
            "pound",
            "celsius",
            "fahrenheit",
            "kelvin",
            "second",
            "minute",
            "hour",
            "day",
        ]
        .map(String::from)
        .to_vec(),
    );
    assert_eq!(
        host.tool("convert"),
        Some(ToolSpec {
            name: "convert".into(),
            component: "units".into(),
            interface: None,
            wit_name: "convert".into(),
            description: "Converts a value from one unit to another of the same dimension, e.g.\n\
                5 kilometer to mile. Fails when the units measure different things or the\n\
                temperature is below absolute zero."
                .into(),
            params: vec![
                ParamSpec {
                    name: "value".into(),
                    ty: WitType::F64,
                    description: Some("the amount to convert, in `from` units.".into())
                },
                ParamSpec {
                    name: "from".into(),
                    ty: unit.clone(),
                    description: Some("the unit `value` is in.".into())
                },
                ParamSpec { name: "to".into(), ty: unit, description: Some("the unit to convert to.".into()) },
                ParamSpec {
                    name: "precision".into(),
                    ty: WitType::Option(Box::new(WitType::U8)),
                    description: Some("decimal places to round the result to (0-12); omit for 10 places.".into()),
                },
            ],
            result: Some(WitType::Result { ok: Some(Box::new(WitType::F64)), err: Some(Box::new(WitType::String)) }),
            title: "Convert".into(),
            annotations: ToolAnnotations { read_only: true, destructive: false, idempotent: true, open_world: false },
            origin: ToolOrigin::Component,
        })
    );
    assert_eq!(
        host.tool("slugify"),
        Some(ToolSpec {
            name: "slugify".into(),
            component: "text".into(),
            interface: Some("example:text/text".into()),
            wit_name: "slugify".into(),
            description: "Turns a text into a lowercase URL slug, e.g. \"Hello, World!\" -> \"hello-world\".\n\
                Accents are dropped from Latin letters; other symbols become separators."
                .into(),
            params: vec![
                ParamSpec {
                    name: "text".into(),
                    ty: WitType::String,
                    description: Some("the text to turn into a slug.".into())
                },
                ParamSpec {
                    name: "separator".into(),
                    ty: WitType::Option(Box::new(WitType::Char)),
                    description: Some("the character between words; \"-\" when omitted.".into()),
                },
            ],
            result: Some(WitType::String),
            title: "Slugify".into(),
            annotations: ToolAnnotations { read_only: true, destructive: false, idempotent: true, open_world: false },
            origin: ToolOrigin::Component,
        })
    );
    let slugify = host.tool("slugify").expect("listed");
    assert_eq!((slugify.required_params(), slugify.optional_params()), (vec!["text"], vec!["separator"]));
}

#[test]
fn bad_files_are_skipped_with_one_warning_each() {
    let folder = tempfile::tempdir().expect("temporary folder");
    let good = fs::read(common::plugins_dir().join("calculator.wasm")).expect("calculator built");
    fs::write(folder.path().join("calculator.wasm"), &good).expect("write");
    fs::write(folder.path().join("corrupt.wasm"), &good[..good.len() / 2]).expect("write");
    fs::write(folder.path().join("core.wasm"), b"\0asm\x01\0\0\0").expect("write");
    fs::write(folder.path().join("empty.wasm"), b"").expect("write");
    fs::write(folder.path().join("notes.txt"), b"not a plugin").expect("write");

    let host = Host::builder().plugin_dir(folder.path()).no_cache().build().expect("host");
    assert_eq!(host.tools().iter().filter(|t| t.component == "calculator").count(), 5);
    assert_eq!(host.call("gcd", &json!({"a": 12, "b": 18})), Ok(json!(6)));

    let warnings = &host.load_report().warnings;
    assert_eq!(warnings.len(), 3, "{warnings:#?}");
    let warning_for = |file: &str| {
        let hits: Vec<&String> = warnings.iter().filter(|w| w.contains(file)).collect();
        assert_eq!(hits.len(), 1, "one warning for {file} in {warnings:#?}");
        hits[0].clone()
    };
    assert!(
        warning_for("corrupt.wasm")
            .ends_with("corrupt.wasm: not a valid component: failed to parse WebAssembly module"),
        "{}",
        warning_for("corrupt.wasm")
    );
    assert!(warning_for("core.wasm").contains("core.wasm: a core WebAssembly module, not a component"));
    assert!(warning_for("empty.wasm").ends_with("empty.wasm: the file is empty"));
}

#[test]
fn a_missing_plugin_folder_is_an_error_naming_it() {
    let error = Host::builder().plugin_dir("/no/such/folder").build().err().expect("fails");
    assert!(error.to_string().starts_with("cannot read the plugin folder /no/such/folder: "), "{error}");
}

#[test]
fn a_warm_cache_compiles_nothing_and_a_truncated_entry_is_recompiled() {
    let cache = tempfile::tempdir().expect("temporary folder");
    // The Rust example tools only: compiling the large Python and JavaScript ones cold
    // would add half a minute and test nothing more.
    let folder = tempfile::tempdir().expect("temporary folder");
    for name in ["calculator", "dates", "files", "json-query", "text", "units"] {
        fs::copy(common::plugins_dir().join(format!("{name}.wasm")), folder.path().join(format!("{name}.wasm")))
            .expect("copy");
    }
    let build = || Host::builder().plugin_dir(folder.path()).cache_dir(cache.path()).build().expect("host");

    let cold = build();
    let components = cold.load_report().components.len();
    assert_eq!(cold.load_report().compiled(), components);
    drop(cold);

    let warm = build();
    assert_eq!(warm.load_report().compiled(), 0);
    assert_eq!(warm.call("gcd", &json!({"a": 4, "b": 6})), Ok(json!(2)));
    drop(warm);

    let mut entries: Vec<_> = fs::read_dir(cache.path())
        .expect("cache")
        .map(|e| e.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "cwasm"))
        .collect();
    entries.sort();
    assert_eq!(entries.len(), components);
    let victim = &entries[0];
    let length = fs::metadata(victim).expect("entry").len();
    fs::write(victim, &fs::read(victim).expect("entry")[..(length / 3) as usize]).expect("truncate");

    let repaired = build();
    assert_eq!(repaired.load_report().compiled(), 1);
    assert_eq!(fs::metadata(victim).expect("rewritten").len(), length);
    assert_eq!(repaired.load_report().warnings, Vec::<String>::new());
}

#[test]
fn a_name_two_components_export_is_qualified_and_the_bare_name_ambiguous() {
    let host = Host::builder()
        .component_file(common::test_guest("hostile"))
        .component_file(common::test_guest("mirror"))
        .cache_dir(common::test_cache_dir())
        .build()
        .expect("host");
    assert!(host.tool("echo").is_none());
    assert_eq!(host.call("hostile/echo", &json!({"text": "abc"})), Ok(json!("abc")));
    assert_eq!(host.call("mirror/echo", &json!({"text": "abc"})), Ok(json!("cba")));
    let error = host.call("echo", &json!({"text": "abc"})).expect_err("ambiguous");
    assert_eq!(
        error,
        ToolError::AmbiguousTool { name: "echo".into(), candidates: vec!["hostile/echo".into(), "mirror/echo".into()] }
    );
}

#[test]
fn resource_typed_functions_are_left_out_with_a_warning() {
    let host = Host::builder().component_file(common::test_guest("mirror")).no_cache().build().expect("host");
    let names: Vec<String> = host.tools().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["echo"]);
    assert_eq!(
        host.load_report().warnings,
        [
            "mirror: function '[constructor]counter' is not available as a tool: its result is a own<resource>, which a model cannot send or receive",
            "mirror: function '[method]counter.increment' is not available as a tool: parameter 'self' is a borrow<resource>, which a model cannot send or receive",
            "mirror: function 'peek' is not available as a tool: parameter 'counter' is a borrow<resource>, which a model cannot send or receive",
        ]
    );
}

fn limited_host(limits: Limits) -> Host {
    Host::builder()
        .component_file(common::test_guest("hostile"))
        .cache_dir(common::test_cache_dir())
        .limits(limits)
        .build()
        .expect("host")
}

fn still_serves(host: &Host) {
    assert_eq!(host.call("echo", &json!({"text": "next"})), Ok(json!("next")));
}

#[test]
fn endless_loops_are_stopped_by_the_time_limit() {
    let limits = Limits { time: Duration::from_millis(200), ..Limits::default() };
    let host = limited_host(limits);
    for tool in ["spin", "spin_with_imports"] {
        let error = host.call(tool, &json!({})).expect_err("stopped");
        assert_eq!(error, ToolError::TimedOut { tool: tool.into(), limit: Duration::from_millis(200) });
        assert_eq!(
            error.to_string(),
            format!(
                "Tool '{tool}' was stopped after its time limit of 200 ms. Retrying may help only with smaller input."
            )
        );
        still_serves(&host);
    }
}

#[test]
fn endless_allocation_is_stopped_by_the_memory_limit() {
    let limits = Limits { memory_bytes: 32 << 20, ..Limits::default() };
    let host = limited_host(limits);
    let error = host.call("allocate_forever", &json!({})).expect_err("stopped");
    assert_eq!(error, ToolError::OutOfMemory { tool: "allocate_forever".into(), limit_bytes: 32 << 20 });
    still_serves(&host);
}

#[test]
fn a_result_over_the_size_limit_is_refused() {
    let limits = Limits { result_bytes: 1000, ..Limits::default() };
    let host = limited_host(limits);
    assert_eq!(host.call("big_string", &json!({"length": 900})).map(|v| v.as_str().map(str::len)), Ok(Some(900)));
    let error = host.call("big_string", &json!({"length": 5000})).expect_err("too large");
    assert_eq!(error, ToolError::ResultTooLarge { tool: "big_string".into(), limit_bytes: 1000 });
    still_serves(&host);
}

#[test]
fn nothing_is_granted_by_default() {
    let host = common::hostile_host();
    assert_eq!(host.call("env_var", &json!({"name": "PATH"})), Ok(json!(null)));
    assert_eq!(host.call("env_var", &json!({"name": "HOME"})), Ok(json!(null)));
    let error = host.call("read_path", &json!({"path": "/etc/passwd"})).expect_err("denied");
    assert!(matches!(error, ToolError::Denied { .. }), "{error:?}");
    let error = host.call("write_path", &json!({"path": "/tmp/toolhost-escape", "contents": "x"})).expect_err("denied");
    assert!(matches!(error, ToolError::Denied { .. }), "{error:?}");
    assert!(!std::path::Path::new("/tmp/toolhost-escape").exists());
}

#[test]
fn granted_directories_and_variables_are_visible_as_granted() {
    let folder = tempfile::tempdir().expect("temporary folder");
    fs::write(folder.path().join("data.txt"), "granted").expect("write");
    let host = Host::builder()
        .component_file(common::test_guest("hostile"))
        .cache_dir(common::test_cache_dir())
        .grant_dir("hostile", folder.path(), "/data", true)
        .grant_env("hostile", "GREETING", "hello")
        .build()
        .expect("host");
    assert_eq!(host.call("env_var", &json!({"name": "GREETING"})), Ok(json!("hello")));
    assert_eq!(host.call("env_var", &json!({"name": "PATH"})), Ok(json!(null)));
    assert_eq!(host.call("read_path", &json!({"path": "/data/data.txt"})), Ok(json!("granted")));
    let error = host.call("write_path", &json!({"path": "/data/new.txt", "contents": "x"})).expect_err("read-only");
    assert!(matches!(error, ToolError::Denied { .. }), "{error:?}");
    assert!(!folder.path().join("new.txt").exists());
}

#[test]
fn a_manifest_beside_the_component_grants_and_limits() {
    let folder = tempfile::tempdir().expect("temporary folder");
    fs::copy(common::test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    fs::create_dir(folder.path().join("shared")).expect("folder");
    fs::write(
        folder.path().join("hostile.toml"),
        "[limits]\ntime_ms = 150\n\n[[dirs]]\nhost = \"shared\"\nguest = \"/shared\"\nread_only = false\n\n[env]\nMODE = \"test\"\n",
    )
    .expect("manifest");
    let host = Host::builder().plugin_dir(folder.path()).cache_dir(common::test_cache_dir()).build().expect("host");
    assert_eq!(host.call("env_var", &json!({"name": "MODE"})), Ok(json!("test")));
    assert_eq!(host.call("write_path", &json!({"path": "/shared/out.txt", "contents": "written"})), Ok(json!(null)));
    assert_eq!(fs::read_to_string(folder.path().join("shared/out.txt")).expect("written"), "written");
    assert_eq!(
        host.call("spin", &json!({})),
        Err(ToolError::TimedOut { tool: "spin".into(), limit: Duration::from_millis(150) })
    );
}

#[test]
fn an_invalid_manifest_skips_its_component_with_a_warning() {
    let folder = tempfile::tempdir().expect("temporary folder");
    fs::copy(common::test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    fs::copy(common::plugins_dir().join("calculator.wasm"), folder.path().join("calculator.wasm")).expect("copy");
    fs::write(folder.path().join("hostile.toml"), "[limits]\ntime = 5\n").expect("manifest");
    let host = Host::builder().plugin_dir(folder.path()).cache_dir(common::test_cache_dir()).build().expect("host");
    assert!(host.tools().iter().all(|t| t.component == "calculator"));
    let warnings = &host.load_report().warnings;
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("hostile.toml is invalid: unknown field `time`"), "{warnings:?}");
}

#[tokio::test]
async fn calls_run_from_async_code() {
    let host = common::hostile_host();
    assert_eq!(host.call_async("echo", json!({"text": "async"})).await, Ok(json!("async")));
}

#[test]
fn a_manifest_describes_tools_and_hides_plumbing() {
    let folder = tempfile::tempdir().expect("temporary folder");
    fs::copy(common::test_guest("mirror"), folder.path().join("mirror.wasm")).expect("copy");
    fs::write(
        folder.path().join("mirror.toml"),
        "hide = []\n\n[tools.echo]\ndescription = \"Mirrors a text.\"\nparams = { text = \"what to mirror\" }\n",
    )
    .expect("manifest");
    let host = Host::builder().plugin_dir(folder.path()).cache_dir(common::test_cache_dir()).build().expect("host");
    let echo = host.tool("echo").expect("listed");
    assert_eq!(echo.description, "Mirrors a text.");
    assert_eq!(echo.params[0].description.as_deref(), Some("what to mirror"));

    fs::copy(common::test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    fs::write(folder.path().join("hostile.toml"), "hide = [\"spin\", \"spin-with-imports\"]\n").expect("manifest");
    assert!(host.reload().expect("reloads"));
    let names: Vec<String> = host.tools().into_iter().map(|t| t.name).collect();
    assert!(names.contains(&"panic_with".to_string()), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("spin")), "{names:?}");
    let error = host.call("spin", &json!({})).expect_err("hidden");
    assert!(matches!(error, ToolError::UnknownTool { .. }), "{error:?}");
}

#[test]
fn a_tool_without_docs_gets_a_description_from_its_signature() {
    let folder = tempfile::tempdir().expect("temporary folder");
    // wasm-tools strips custom sections; a copy without them has no docs at all.
    let bytes = fs::read(common::test_guest("mirror")).expect("built");
    let stripped = strip_custom_sections(&bytes);
    fs::write(folder.path().join("bare.wasm"), stripped).expect("write");
    let host = Host::builder().plugin_dir(folder.path()).no_cache().build().expect("host");
    assert_eq!(
        host.tool("echo").map(|t| t.description),
        Some("Calls `echo(text: string) -> string` in the bare component (it has no description).".to_string())
    );
}

/// The component with every `toolhost-docs` section renamed, so that no docs are found.
fn strip_custom_sections(bytes: &[u8]) -> Vec<u8> {
    let needle = b"toolhost-docs";
    let mut out = bytes.to_vec();
    let mut i = 0;
    while i + needle.len() <= out.len() {
        if &out[i..i + needle.len()] == needle {
            out[i..i + needle.len()].copy_from_slice(b"toolhost-xxxx");
        }
        i += 1;
    }
    out
}
