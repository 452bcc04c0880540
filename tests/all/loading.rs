//! Loading a plugin folder into a host: the tools it lists and what each spec says,
//! files skipped, the compile cache, names two components share, unusable
//! signatures, descriptions made for undocumented functions; and a call from async code.

use crate::common;

use std::fs;

use serde_json::json;
use toolhost::{Host, ParamSpec, ToolAnnotations, ToolError, ToolOrigin, ToolSpec, WitFunction, WitType};

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
            "count_hosts",
            "days_between",
            "decode",
            "describe",
            "evaluate",
            "factorial",
            "format_date",
            "format_date_time",
            "gcd",
            "get_part",
            "histogram",
            "is_palindrome",
            "keys",
            "length",
            "list_dir",
            "list_units",
            "parse_date",
            "parse_url",
            "percentage",
            "percentile",
            "plot",
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
}

#[test]
fn a_tool_spec_carries_its_docs_signature_and_annotations() {
    let units = [
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
    ];
    let unit = WitType::Enum(units.map(String::from).to_vec());
    let convert = listed_read_only(
        ("convert", "units", "Convert"),
        "Converts a value from one unit to another of the same dimension, e.g.\n\
         5 kilometer to mile. Fails when the units measure different things or the\n\
         temperature is below absolute zero.",
    );
    let params = vec![
        param("value", WitType::F64, "the amount to convert, in `from` units."),
        param("from", unit.clone(), "the unit `value` is in."),
        param("to", unit, "the unit to convert to."),
        param(
            "precision",
            WitType::Option(Box::new(WitType::U8)),
            "decimal places to round the result to (0-12); omit for 10 places.",
        ),
    ];
    let result = WitType::Result { ok: Some(Box::new(WitType::F64)), err: Some(Box::new(WitType::String)) };
    assert_eq!(convert.origin, ToolOrigin::Component(WitFunction::new("convert", params, Some(result))));
}

#[test]
fn a_function_of_an_exported_interface_is_a_tool_of_its_own() {
    let slugify = listed_read_only(
        ("slugify", "text", "Slugify"),
        "Turns a text into a lowercase URL slug, e.g. \"Hello, World!\" -> \"hello-world\".\n\
         Accents are dropped from Latin letters; other symbols become separators.",
    );
    let params = vec![
        param("text", WitType::String, "the text to turn into a slug."),
        param(
            "separator",
            WitType::Option(Box::new(WitType::Char)),
            "the character between words; \"-\" when omitted.",
        ),
    ];
    let mut function = WitFunction::new("slugify", params, Some(WitType::String));
    function.interface = Some("example:text/text".into());
    assert_eq!(slugify.origin, ToolOrigin::Component(function));
    assert_eq!((slugify.required_params(), slugify.optional_params()), (vec!["text"], vec!["separator"]));
}

/// The example tool `name` of `component`, checked to be listed with `title` and
/// `description` and to be read-only.
fn listed_read_only((name, component, title): (&str, &str, &str), description: &str) -> ToolSpec {
    let spec = common::example_host_shared().tool(name).expect("listed");
    assert_eq!((spec.component.as_str(), spec.title.as_str()), (component, title));
    assert_eq!(spec.description, description);
    assert_eq!(spec.annotations, read_only());
    spec
}

/// A parameter with a description.
fn param(name: &str, ty: WitType, description: &str) -> ParamSpec {
    ParamSpec { name: name.into(), ty, description: Some(description.into()) }
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
    assert_eq!(host.tools().iter().filter(|t| t.component == "calculator").count(), 6);
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

#[tokio::test]
async fn calls_run_from_async_code() {
    let host = common::hostile_host();
    assert_eq!(host.request("echo").arguments(&json!({"text": "async"})).run_async().await.result, Ok(json!("async")));
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

/// The annotations of a tool granted nothing: it reads, and changes nothing.
fn read_only() -> ToolAnnotations {
    ToolAnnotations { read_only: true, destructive: false, idempotent: true, open_world: false }
}
