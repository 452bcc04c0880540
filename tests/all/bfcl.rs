//! Real function schemas and the calls accepted for them: the Berkeley Function
//! Calling Leaderboard's own test cases (its PyPI package `bfcl-eval`, whose data
//! scripts/install-test-data.sh puts in target/bfcl), served as an MCP server plugin
//! by a server on the MCP project's SDK (tests/servers/functions.mjs) that answers
//! with what it received. Many of the functions have dotted names (`uber.ride`,
//! `math.factorial`). Each call is made as an OpenAI-style harness makes it: by the
//! name the host's OpenAI definitions show. A call BFCL accepts must reach the server
//! unchanged; the mistakes the host takes (`null` for an optional parameter, a lone
//! value for an array, `{"": ""}` for no parameters) reach it as the call meant.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::{Map, Value, json};
use toolhost::{Host, Repair, ToolFormat};

use crate::common;

/// The categories with one language's schemas (Python's types) and single-turn calls.
const CATEGORIES: [&str; 8] = [
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
];

/// Two made-up functions with names longer than any provider takes, alike for their
/// first 64 characters.
const LONG_NAMES: [&str; 2] = [
    "org.example.analytics.reporting.v2.QuarterlyRevenueReportService.generate_summary",
    "org.example.analytics.reporting.v2.QuarterlyRevenueReportService.generate_details",
];

/// One BFCL test case: its calls, each a function's name and the arguments chosen
/// from the accepted ones.
struct Case {
    id: String,
    calls: Vec<Call>,
}

/// One call of a case.
struct Call {
    name: String,
    /// As BFCL accepts it (`null` allowed for an optional parameter).
    sent: Map<String, Value>,
    /// What it means: without the `null`s for optional parameters that do not take
    /// null; what the server must receive.
    meant: Map<String, Value>,
}

/// The served functions (their schemas as sent to the server) and the test cases.
struct Suite {
    host: Host,
    schemas: BTreeMap<String, Value>,
    cases: Vec<Case>,
    _folder: tempfile::TempDir,
}

pub(crate) fn data_dir() -> PathBuf {
    let dir = common::root().join("target/bfcl/bfcl_eval/data");
    assert!(dir.is_dir(), "{} is missing: run scripts/install-test-data.sh (scripts/test.sh does)", dir.display());
    dir
}

/// The JSON lines of a data file.
pub(crate) fn lines(file: PathBuf) -> Vec<Value> {
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).expect("a JSON line")).collect()
}

/// A BFCL parameter schema as JSON Schema, as BFCL's own OpenAI handler sends it:
/// `dict` is `object`, `float` is `number`, `tuple` is `array`, `any` is any type.
pub(crate) fn json_schema(bfcl: &Value) -> Value {
    match bfcl {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, value) in map {
                let value = match (key.as_str(), value.as_str()) {
                    ("type", Some("dict")) => json!("object"),
                    ("type", Some("float")) => json!("number"),
                    ("type", Some("tuple")) => json!("array"),
                    ("type", Some("any")) => continue,
                    ("properties", _) => {
                        let properties = value.as_object().into_iter().flatten();
                        Value::Object(properties.map(|(name, schema)| (name.clone(), json_schema(schema))).collect())
                    }
                    ("items", _) => json_schema(value),
                    _ => value.clone(),
                };
                out.insert(key.clone(), value);
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// Whether any parameter is an object (whose accepted answers BFCL nests differently).
fn has_objects(parameters: &Value) -> bool {
    let properties = parameters.get("properties").and_then(Value::as_object).into_iter().flatten();
    properties
        .into_iter()
        .any(|(_, schema)| schema["type"] == "dict" || schema.get("items").is_some_and(|items| items["type"] == "dict"))
}

/// `arguments` without a `null` for a parameter that is not required and whose
/// schema names types, none of them null.
fn without_optional_nulls(arguments: &Map<String, Value>, schema: &Value) -> Map<String, Value> {
    let required = schema["required"].as_array().cloned().unwrap_or_default();
    let takes_null = |name: &str| match &schema["properties"][name]["type"] {
        Value::String(ty) => ty == "null",
        Value::Array(types) => types.contains(&json!("null")),
        _ => true,
    };
    let dropped =
        |(name, value): &(&String, &Value)| value.is_null() && !required.contains(&json!(name)) && !takes_null(name);
    arguments.iter().filter(|pair| !dropped(pair)).map(|(k, v)| (k.clone(), v.clone())).collect()
}

/// Whether the schema accepts `arguments` (some of BFCL's accepted answers do not fit
/// the schemas it gives: `true` for a string, a required parameter left out).
fn fits(schema: &Value, arguments: &Map<String, Value>) -> bool {
    jsonschema::is_valid(schema, &Value::Object(arguments.clone()))
}

/// One accepted value for each parameter: the first of its accepted values that is
/// not `""` (BFCL's "may be left out"); a parameter with no other is left out.
fn chosen(accepted: &Map<String, Value>) -> Map<String, Value> {
    let mut arguments = Map::new();
    for (name, values) in accepted {
        let first = values.as_array().into_iter().flatten().find(|v| **v != json!(""));
        if let Some(value) = first {
            arguments.insert(name.clone(), value.clone());
        }
    }
    arguments
}

fn suite() -> &'static Suite {
    static SUITE: OnceLock<Suite> = OnceLock::new();
    SUITE.get_or_init(|| {
        let dir = data_dir();
        let mut docs: BTreeMap<String, Value> = BTreeMap::new();
        let mut cases = Vec::new();
        for category in CATEGORIES {
            let answers = lines(dir.join(format!("possible_answer/BFCL_v4_{category}.json")));
            let answers: BTreeMap<String, Value> =
                answers.into_iter().map(|a| (a["id"].as_str().expect("an id").to_string(), a)).collect();
            for test in lines(dir.join(format!("BFCL_v4_{category}.json"))) {
                let functions = test["function"].as_array().expect("functions");
                // A name keeps the first schema it was seen with; a case using it with
                // another schema is left out.
                let served = functions.iter().all(|f| {
                    let name = f["name"].as_str().expect("a name");
                    docs.entry(name.to_string()).or_insert_with(|| f.clone()) == f
                });
                let id = test["id"].as_str().expect("an id");
                if !served || functions.iter().any(|f| has_objects(&f["parameters"])) {
                    continue;
                }
                let calls = answers[id]["ground_truth"].as_array().expect("ground truth").iter().map(|call| {
                    let (name, accepted) = call.as_object().and_then(|c| c.iter().next()).expect("one call");
                    let sent = chosen(accepted.as_object().expect("parameters"));
                    let meant = without_optional_nulls(&sent, &json_schema(&docs[name]["parameters"]));
                    Call { name: name.clone(), sent, meant }
                });
                cases.push(Case { id: id.to_string(), calls: calls.collect() });
            }
        }
        let mut schemas: BTreeMap<String, Value> =
            docs.iter().map(|(name, doc)| (name.clone(), json_schema(&doc["parameters"]))).collect();
        for name in LONG_NAMES {
            schemas.insert(name.into(), json!({"type": "object", "properties": {"quarter": {"type": "integer"}}}));
        }
        let tools: Vec<Value> = schemas
            .iter()
            .map(|(name, schema)| {
                let description = docs
                    .get(name)
                    .map_or("A made-up function with a long name.", |d| d["description"].as_str().unwrap_or_default());
                json!({"name": name, "description": description, "inputSchema": schema})
            })
            .collect();
        let folder = tempfile::tempdir().expect("a folder");
        let plugins = common::functions_server_plugins(folder.path(), "bfcl", &Value::Array(tools));
        let host = Host::builder().plugin_dir(&plugins).build().expect("the host loads");
        // Merged from every category, some functions differ only by `.` and `_`
        // (`math.gcd`, `math_gcd`): the one warning a load gives here.
        let warnings = host.load_report().warnings;
        assert!(warnings.iter().all(|w| w.contains("have the same name for model providers")), "{warnings:?}");
        assert_eq!(host.tools().len(), schemas.len(), "every function is served");
        Suite { host, schemas, cases, _folder: folder }
    })
}

/// Registered name → the name the host's OpenAI definitions show.
fn shown_names(host: &Host) -> BTreeMap<String, String> {
    let definitions = host.tool_definitions(ToolFormat::OpenAiChat);
    let shown = definitions.as_array().expect("an array").iter().map(|d| d["function"]["name"].clone());
    host.tools().into_iter().map(|t| t.name).zip(shown.map(|n| n.as_str().expect("a name").to_string())).collect()
}

/// Calls `name` (as shown) with `arguments`; what the server received, and the
/// words of each repair but the name's.
fn call(shown: &str, arguments: &Value) -> Result<(String, Value, Vec<String>), String> {
    let outcome = suite().host.request(shown).arguments(arguments).run();
    let text = outcome.result.map_err(|e| e.to_string())?;
    let received: Value = serde_json::from_str(text.as_str().expect("the server answers with text")).expect("JSON");
    let tool = received["tool"].as_str().expect("a tool").to_string();
    assert_eq!(outcome.tool.as_deref(), Some(tool.as_str()));
    let repairs = outcome.repairs.iter().filter(|r| !matches!(r, Repair::ToolName { .. })).map(ToString::to_string);
    Ok((tool, received["arguments"].clone(), repairs.collect()))
}

/// Whether two JSON values are the same, numbers compared by value (the server's
/// JavaScript writes 1.0 as 1).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(key, x)| y.get(key).is_some_and(|y| same(x, y)))
        }
        _ => a == b,
    }
}

/// Whether a name is what OpenAI's and Anthropic's APIs document for a function name
/// (`^[a-zA-Z0-9_-]{1,64}$`) and starts as Gemini's must (a letter or `_`).
fn fits_every_provider(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
}

#[test]
fn every_name_shown_to_providers_fits_their_patterns_and_calls_its_tool() {
    let host = &suite().host;
    for format in [ToolFormat::OpenAiChat, ToolFormat::OpenAiResponses, ToolFormat::Anthropic] {
        let definitions = host.tool_definitions(format);
        for definition in definitions.as_array().expect("an array") {
            let name = definition.get("function").unwrap_or(definition)["name"].as_str().expect("a name");
            assert!(fits_every_provider(name), "{} shows {name:?}", format.name());
        }
    }
    let shown = shown_names(host);
    let dotted = shown.keys().filter(|name| name.contains('.')).count();
    assert!(dotted > 500, "BFCL has hundreds of dotted names: {dotted}");
    assert_eq!(shown["uber.ride"], "uber_ride");
    let long: Vec<&String> = LONG_NAMES.iter().map(|name| &shown[*name]).collect();
    assert_ne!(long[0], long[1], "long names stay apart");
    let mut distinct: Vec<&String> = shown.values().collect();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), shown.len(), "no two tools are shown under one name");
    for (registered, name) in &shown {
        let outcome = host.request(name).arguments(&json!({})).run();
        assert_eq!(outcome.tool.as_ref(), Some(registered), "{name} calls {registered}");
    }
    // MCP's own format keeps the names as the server gave them.
    let mcp = host.tool_definitions(ToolFormat::Mcp);
    let mcp: Vec<&str> =
        mcp.as_array().expect("an array").iter().map(|d| d["name"].as_str().expect("a name")).collect();
    assert!(mcp.contains(&"uber.ride") && mcp.contains(&LONG_NAMES[0]));
}

/// Every call of every case whose meaning the schema accepts, with its case's id;
/// and how many were left out because the schema refuses BFCL's own answer.
fn fitting_calls(suite: &Suite) -> (Vec<(&str, &Call)>, usize) {
    let all = suite.cases.iter().flat_map(|case| case.calls.iter().map(|call| (case.id.as_str(), call)));
    let (fitting, misfits): (Vec<_>, Vec<_>) = all.partition(|(_, call)| fits(&suite.schemas[&call.name], &call.meant));
    (fitting, misfits.len())
}

#[test]
fn every_accepted_call_reaches_the_server_as_it_means_by_the_name_providers_are_shown() {
    let suite = suite();
    let shown = shown_names(&suite.host);
    let (calls, misfits) = fitting_calls(suite);
    assert!(calls.len() > 1000 && misfits * 50 < calls.len(), "{} calls, {misfits} left out", calls.len());
    let mut failures = Vec::new();
    for (id, call) in &calls {
        let nulls = call.sent.keys().filter(|key| !call.meant.contains_key(*key));
        let expected: Vec<String> = nulls.map(|key| format!("'{key}': null taken as not given")).collect();
        match self::call(&shown[&call.name], &Value::Object(call.sent.clone())) {
            Ok((tool, received, repairs))
                if tool == call.name && same(&received, &Value::Object(call.meant.clone())) && repairs == expected => {}
            Ok(other) => failures.push(format!("{id}: {} {:?} -> {other:?}", call.name, call.sent)),
            Err(error) => failures.push(format!("{id}: {} {:?} -> {error}", call.name, call.sent)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} accepted calls changed or refused:\n{}",
        failures.len(),
        calls.len(),
        failures.join("\n")
    );
}

#[test]
fn null_for_an_optional_parameter_reaches_the_server_as_not_given() {
    let suite = suite();
    let shown = shown_names(&suite.host);
    let mut made = 0;
    for (id, call) in fitting_calls(suite).0 {
        let schema = &suite.schemas[&call.name];
        let required = schema["required"].as_array().cloned().unwrap_or_default();
        let properties = schema["properties"].as_object().into_iter().flatten();
        for (optional, _) in properties.filter(|(p, _)| !required.contains(&json!(p))) {
            let mut sent = call.meant.clone();
            sent.insert(optional.clone(), Value::Null);
            let (_, received, repairs) = self::call(&shown[&call.name], &Value::Object(sent))
                .unwrap_or_else(|e| panic!("{id}: {} with {optional}: null refused: {e}", call.name));
            let mut meant = call.meant.clone();
            meant.remove(optional);
            assert!(same(&received, &Value::Object(meant)), "{id}: {received}");
            assert_eq!(repairs, [format!("'{optional}': null taken as not given")], "{id}");
            made += 1;
        }
    }
    assert!(made > 500, "only {made} calls were made");
}

#[test]
fn a_lone_value_for_an_array_reaches_the_server_as_its_one_item() {
    let suite = suite();
    let shown = shown_names(&suite.host);
    let mut made = 0;
    for (id, call) in fitting_calls(suite).0 {
        for (parameter, value) in &call.meant {
            let Some([item]) = value.as_array().map(Vec::as_slice) else { continue };
            if item.is_array() || item.is_object() || item.is_null() {
                continue;
            }
            let mut sent = call.meant.clone();
            sent.insert(parameter.clone(), item.clone());
            let (_, received, repairs) = self::call(&shown[&call.name], &Value::Object(sent))
                .unwrap_or_else(|e| panic!("{id}: {} with a lone {parameter} refused: {e}", call.name));
            assert!(same(&received, &Value::Object(call.meant.clone())), "{id}: {received}");
            assert_eq!(repairs, [format!("'{parameter}' wrapped in a list")], "{id}");
            made += 1;
        }
    }
    assert!(made > 30, "only {made} calls were made");
}

#[test]
fn an_empty_named_parameter_to_a_function_without_parameters_is_dropped() {
    let suite = suite();
    let shown = shown_names(&suite.host);
    let without: Vec<&String> = suite
        .schemas
        .iter()
        .filter(|(_, schema)| schema["properties"].as_object().is_some_and(Map::is_empty))
        .map(|(name, _)| name)
        .collect();
    assert!(!without.is_empty(), "BFCL has functions without parameters");
    for name in without {
        let (_, received, repairs) = call(&shown[name], &json!({"": ""})).expect("called");
        assert_eq!(received, json!({}));
        assert_eq!(repairs, ["an empty-named parameter (\"\": \"\") dropped"]);
    }
}
