//! Every function of every example tool, called through a real host with real
//! arguments, its real result asserted.

use crate::common;

use std::sync::OnceLock;

use serde_json::{Value, json};
use toolhost::{Host, ToolAnnotations, ToolError, ToolSpec};

fn host() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(common::example_host)
}

/// Calls a tool that must succeed, after checking that its schema accepts the
/// arguments; checks that its structured result fits its output schema.
fn call(name: &str, arguments: Value) -> Value {
    let spec = host().tool(name).unwrap_or_else(|| panic!("no tool {name}"));
    let schema = spec.parameters_schema();
    assert!(
        jsonschema::draft202012::is_valid(&schema, &arguments),
        "the schema of {name} rejects {arguments}: {schema}"
    );
    let value = host().call(name, &arguments).unwrap_or_else(|e| panic!("{name}({arguments}) failed: {e}"));
    fits_output_schema(&spec, &value);
    value
}

/// The structured form of a tool's result validates against its output schema; a
/// tool without one returned nothing.
fn fits_output_schema(spec: &ToolSpec, value: &Value) {
    match (spec.output_schema(), spec.structured_result(value.clone())) {
        (Some(schema), Some(structured)) => assert!(
            jsonschema::draft202012::is_valid(&schema, &structured),
            "{}: {structured} does not fit its output schema {schema}",
            spec.name
        ),
        (None, None) => assert_eq!(value, &Value::Null, "{} has no output schema but returned {value}", spec.name),
        other => panic!("{}: an output schema and a structured result go together: {other:?}", spec.name),
    }
}

fn call_err(name: &str, arguments: Value) -> ToolError {
    match host().call(name, &arguments) {
        Ok(value) => panic!("{name}({arguments}) should fail, returned {value}"),
        Err(error) => error,
    }
}

fn tool_failed(name: &str, arguments: Value) -> String {
    match call_err(name, arguments) {
        ToolError::ToolFailed { message, .. } => message,
        other => panic!("expected the tool's own error, got {other:?}"),
    }
}

#[test]
fn every_example_component_loads_without_warnings() {
    let report = host().load_report();
    assert_eq!(report.warnings, Vec::<String>::new());
    let names: Vec<&str> = report.components.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["calculator", "dates", "files", "json-query", "stats-py", "text", "units", "urls-js"]);
}

#[test]
fn calculator_evaluates_expressions_and_reports_errors() {
    assert_eq!(call("evaluate", json!({"expression": "2 * (3 + 4) ^ 2"})), json!(98.0));
    assert_eq!(call("evaluate", json!({"expression": "sqrt(16) + pi - pi"})), json!(4.0));
    assert_eq!(tool_failed("evaluate", json!({"expression": "1 / (2 - 2)"})), "division by zero at position 12");
    assert_eq!(tool_failed("evaluate", json!({"expression": "2 +"})), "unexpected end of expression at position 4");
}

#[test]
fn calculator_percentage_uses_f32() {
    assert_eq!(call("percentage", json!({"part": 1.5, "whole": 6})), json!(25.0));
    assert_eq!(
        tool_failed("percentage", json!({"part": 1, "whole": 0})),
        "whole must not be zero: a percentage of nothing is undefined"
    );
}

#[test]
fn calculator_gcd_and_factorial_use_u64_and_u8() {
    assert_eq!(call("gcd", json!({"a": 1071, "b": 462})), json!(21));
    assert_eq!(call("gcd", json!({"a": u64::MAX, "b": 5})), json!(5));
    assert_eq!(call("factorial", json!({"n": 20})), json!(2_432_902_008_176_640_000u64));
    assert_eq!(
        tool_failed("factorial", json!({"n": 21})),
        "21! does not fit in 64 bits; the largest supported n is 20"
    );
}

#[test]
fn calculator_statistics_returns_an_optional_record() {
    assert_eq!(
        call("statistics", json!({"values": [3, -1, 10, i64::MAX]})),
        json!({"count": 4, "sum": i64::MAX, "min": -1, "max": i64::MAX, "mean": (12.0 + i64::MAX as f64) / 4.0})
    );
    assert_eq!(call("statistics", json!({"values": []})), Value::Null);
}

#[test]
fn units_convert_between_enum_units_with_optional_precision() {
    assert_eq!(call("convert", json!({"value": 5, "from": "kilometer", "to": "mile", "precision": 3})), json!(3.107));
    assert_eq!(call("convert", json!({"value": 100, "from": "celsius", "to": "fahrenheit"})), json!(212.0));
    assert_eq!(call("convert", json!({"value": 1.5, "from": "hour", "to": "minute"})), json!(90.0));
    assert_eq!(
        tool_failed("convert", json!({"value": 1, "from": "meter", "to": "gram"})),
        "cannot convert meter (length) to gram (mass): they measure different things"
    );
    assert_eq!(
        tool_failed("convert", json!({"value": -500, "from": "celsius", "to": "kelvin"})),
        "-500 celsius is below absolute zero"
    );
}

#[test]
fn units_describe_and_list() {
    assert_eq!(
        call("describe", json!({"unit": "kilometer"})),
        json!({"symbol": "km", "dimension": "length", "base_unit": "meter"})
    );
    assert_eq!(call("list_units", json!({"dimension": "temperature"})), json!(["celsius", "fahrenheit", "kelvin"]));
    assert_eq!(call("list_units", json!({})).as_array().map(Vec::len), Some(18));
}

#[test]
fn text_counts_and_slugifies() {
    assert_eq!(
        call("word_count", json!({"text": "two words\nthree more words\n"})),
        json!({"words": 5, "lines": 2, "characters": 27, "bytes": 27})
    );
    assert_eq!(call("slugify", json!({"text": "Héllo, Wörld! 2024"})), json!("hello-world-2024"));
    assert_eq!(call("slugify", json!({"text": "a b", "separator": "_"})), json!("a_b"));
}

#[test]
fn text_replace_takes_flags_and_fails_on_bad_patterns() {
    assert_eq!(
        call(
            "replace",
            json!({"text": "Cat cat catalog", "pattern": "cat", "replacement": "dog",
            "options": ["case_insensitive", "whole_word"]})
        ),
        json!("dog dog catalog")
    );
    assert_eq!(
        call(
            "replace",
            json!({"text": "a.b.c", "pattern": ".", "replacement": "-", "options": ["literal", "first_only"]})
        ),
        json!("a-b.c")
    );
    assert_eq!(
        call(
            "replace",
            json!({"text": "2024-03-15", "pattern": r"(\d+)-(\d+)-(\d+)", "replacement": "$3/$2/$1", "options": []})
        ),
        json!("15/03/2024")
    );
    let message = tool_failed("replace", json!({"text": "x", "pattern": "(", "replacement": "", "options": []}));
    assert!(message.starts_with("invalid pattern: regex parse error"), "{message}");
}

#[test]
fn text_top_words_returns_tuples() {
    assert_eq!(
        call("top_words", json!({"text": "the cat and the hat and the bat", "limit": 2})),
        json!([["the", 3], ["and", 2]])
    );
}

#[test]
fn text_char_at_and_palindromes() {
    assert_eq!(call("char_at", json!({"text": "añb", "index": 1})), json!("ñ"));
    assert_eq!(call("char_at", json!({"text": "ab", "index": 5})), Value::Null);
    assert_eq!(call("is_palindrome", json!({"text": "A man, a plan, a canal: Panama"})), json!(true));
    assert_eq!(call("is_palindrome", json!({"text": "toolhost"})), json!(false));
}

#[test]
fn json_query_returns_variants() {
    let document =
        r#"{"users": [{"name": "Ada", "age": 36, "admin": true, "score": 9.5, "tags": ["x"], "boss": null}]}"#;
    let query = |path: &str| call("query", json!({"document": document, "path": path}));
    assert_eq!(query("users[0].name"), json!({"tag": "text", "value": "Ada"}));
    assert_eq!(query("/users/0/age"), json!({"tag": "integer", "value": 36}));
    assert_eq!(query("users[0].admin"), json!({"tag": "boolean", "value": true}));
    assert_eq!(query("users[0].score"), json!({"tag": "number", "value": 9.5}));
    assert_eq!(query("users[0].tags"), json!({"tag": "array", "value": "[\"x\"]"}));
    assert_eq!(query("users[0].boss"), json!({"tag": "null"}));
    assert_eq!(
        tool_failed("query", json!({"document": document, "path": "users[3]"})),
        "nothing at '[3]' after 'users': the value there is an array of 1 items"
    );
    assert!(
        tool_failed("query", json!({"document": "{nope", "path": ""})).starts_with("the document is not valid JSON")
    );
}

#[test]
fn json_query_keys_and_length() {
    let document = r#"{"b": 1, "a": {"x": [1, 2, 3]}}"#;
    assert_eq!(call("keys", json!({"document": document, "path": ""})), json!(["b", "a"]));
    assert_eq!(call("length", json!({"document": document, "path": "a.x"})), json!(3));
    assert_eq!(
        tool_failed("keys", json!({"document": document, "path": "b"})),
        "the value at 'b' is a number, not an object"
    );
}

#[test]
fn dates_parse_and_format_records_and_enums() {
    assert_eq!(call("parse_date", json!({"text": "15 March 2024"})), json!({"year": 2024, "month": 3, "day": 15}));
    assert_eq!(call("parse_date", json!({"text": "2024-02-29"})), json!({"year": 2024, "month": 2, "day": 29}));
    assert!(
        tool_failed("parse_date", json!({"text": "someday"})).starts_with("'someday' is not a date in a known form")
    );
    let date = json!({"year": 2024, "month": 3, "day": 15});
    assert_eq!(call("format_date", json!({"date": date, "style": "long"})), json!("Friday, 15 March 2024"));
    assert_eq!(call("format_date", json!({"date": date, "style": "us"})), json!("03/15/2024"));
    assert_eq!(
        tool_failed("format_date", json!({"date": {"year": 2023, "month": 2, "day": 29}, "style": "iso"})),
        "2023-02-29 is not a date that exists"
    );
}

#[test]
fn dates_arithmetic_with_s8_s16_s32_s64() {
    let moment = json!({"date": {"year": 2024, "month": 12, "day": 31}, "hour": 23, "minute": 30, "second": 0});
    assert_eq!(
        call(
            "add_duration",
            json!({"start": moment, "duration": {"days": 1, "hours": -2, "minutes": 45, "seconds": 30}})
        ),
        json!({"date": {"year": 2025, "month": 1, "day": 1}, "hour": 22, "minute": 15, "second": 30})
    );
    assert_eq!(
        call("format_date_time", json!({"moment": moment, "utc_offset_hours": -5})),
        json!("2024-12-31T23:30:00-05:00")
    );
    assert_eq!(call("format_date_time", json!({"moment": moment})), json!("2024-12-31T23:30:00Z"));
    assert_eq!(
        call(
            "days_between",
            json!({"from": {"year": 2024, "month": 1, "day": 1}, "to": {"year": 2023, "month": 1, "day": 1}})
        ),
        json!(-365)
    );
    assert_eq!(call("weekday", json!({"date": {"year": 2000, "month": 1, "day": 1}})), json!("saturday"));
}

#[test]
fn files_work_only_inside_the_granted_folder() {
    let workspace = tempfile::tempdir().expect("temporary folder");
    std::fs::create_dir(workspace.path().join("notes")).expect("folder");
    let granted = Host::builder()
        .plugin_dir(common::plugins_dir())
        .cache_dir(common::test_cache_dir())
        .grant_dir("files", workspace.path(), "/workspace", false)
        .build()
        .expect("host");
    let call = |name: &str, args: Value| granted.call(name, &args);

    assert_eq!(
        call("write_file", json!({"path": "notes/todo.txt", "contents": "milk\n", "mode": "create"})),
        Ok(json!(5))
    );
    assert_eq!(
        call("write_file", json!({"path": "notes/todo.txt", "contents": "eggs\n", "mode": "append"})),
        Ok(json!(10))
    );
    assert_eq!(call("read_file", json!({"path": "/workspace/notes/todo.txt"})), Ok(json!("milk\neggs\n")));
    assert_eq!(std::fs::read_to_string(workspace.path().join("notes/todo.txt")).expect("written"), "milk\neggs\n");
    assert_eq!(call("list_dir", json!({"path": "."})), Ok(json!([{"name": "notes", "kind": "directory", "size": 0}])));
    assert_eq!(
        call("write_file", json!({"path": "notes/todo.txt", "contents": "", "mode": "create"}))
            .map_err(|e| e.to_string()),
        Err("could not open 'notes/todo.txt': it already exists (use mode overwrite or append)".to_string())
    );
    assert_eq!(
        call("read_file", json!({"path": "../etc/passwd"})).map_err(|e| e.to_string()),
        Err("'../etc/passwd' leaves the granted folder: '..' is not allowed".to_string())
    );
    // The shared host grants nothing: the same tool cannot see any folder, and the
    // model is told the sandbox refused it.
    assert_eq!(
        self::host().call("read_file", &json!({"path": "notes/todo.txt"})).map_err(|e| e.to_string()),
        Err("Tool 'read_file' was denied by its sandbox: opening '/workspace/notes/todo.txt' (it is outside the \
             folders granted to this tool). The tool reported: could not read 'notes/todo.txt': permission denied \
             (the grant may be read-only). Retrying will not help; only the tool's manifest can grant this access."
            .to_string())
    );
}

#[test]
fn python_stats_summarises_averages_and_interpolates() {
    assert_eq!(
        call("summarize", json!({"values": [2, 4, 4, 4, 5, 5, 7, 9]})),
        json!({"count": 8, "mean": 5.0, "median": 4.5, "minimum": 2.0, "maximum": 9.0, "stdev": 2.138089935299395})
    );
    assert_eq!(call("summarize", json!({"values": [3.5]}))["stdev"], json!(0.0));
    assert_eq!(call("average", json!({"values": [1, 2, 2, 9], "kind": "mean"})), json!(3.5));
    assert_eq!(call("average", json!({"values": [1, 2, 2, 9], "kind": "median"})), json!(2.0));
    assert_eq!(call("average", json!({"values": [1, 2, 2, 9], "kind": "mode"})), json!(2.0));
    assert_eq!(call("percentile", json!({"values": [10, 20, 30, 40], "percent": 50})), json!(25.0));
    assert_eq!(call("percentile", json!({"values": [10, 20, 30, 40], "percent": 100})), json!(40.0));
    assert_eq!(
        tool_failed("percentile", json!({"values": [1], "percent": 101})),
        "percent must be between 0 and 100, got 101.0"
    );
    assert_eq!(
        tool_failed("average", json!({"values": [], "kind": "mean"})),
        "the list of values is empty: give at least one number"
    );
    assert_eq!(call("ratio", json!({"numerator": 1, "denominator": 4})), json!(0.25));
}

#[test]
fn python_stats_histogram_reports_progress_and_a_log_line_and_adds_an_svg_chart() {
    let outcome = self::host().request("histogram").arguments(&json!({"values": [1, 2, 2, 3, 10], "bins": 3})).run();
    assert_eq!(outcome.result, Ok(json!([4, 0, 1])));
    let [toolhost::Content::Image(chart)] = outcome.content.as_slice() else { panic!("{:?}", outcome.content) };
    assert_eq!(chart.mime_type, "image/svg+xml");
    let svg = String::from_utf8_lossy(&chart.data);
    assert!(svg.starts_with("<svg") && svg.contains("5 values from 1 to 10") && svg.matches("<rect").count() == 3);
    assert_eq!(tool_failed("histogram", json!({"values": [1], "bins": 0})), "bins must be between 1 and 100, got 0");

    // Over MCP: progress for the token, the log line, then the counts and the chart.
    let folder = common::plugins_with(&["stats-py"]);
    let mut client = crate::mcp::Client::start_with(folder.path(), &[]);
    client.initialize();
    let values: Vec<u32> = (0..25_000).collect();
    let call = json!({"name": "histogram", "arguments": {"values": values, "bins": 4}, "_meta": {"progressToken": 7}});
    let answer = client.request(2, "tools/call", call);
    let notices: Vec<Value> = client.answered().into_iter().map(|notice| notice["params"].clone()).collect();
    let progress: Vec<(f64, &str)> = notices
        .iter()
        .filter(|notice| notice["progressToken"] == 7)
        .map(|notice| (notice["progress"].as_f64().unwrap_or(-1.0), notice["message"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(progress, [(0.0, "counting"), (10_000.0, "counting"), (20_000.0, "counting"), (25_000.0, "counted")]);
    assert!(notices.iter().any(|notice| notice["data"] == "counting 25000 values into 4 bins of width 6249.75"));
    let blocks = answer["result"]["content"].as_array().cloned().unwrap_or_default();
    assert_eq!(blocks[0]["text"], "[6250,6250,6250,6250]", "{answer}");
    assert_eq!((&blocks[1]["type"], &blocks[1]["mimeType"]), (&json!("image"), &json!("image/svg+xml")));
}

/// The one image a call added, as text (the example tools draw SVG).
fn svg_of(outcome: &toolhost::CallOutcome) -> String {
    let [toolhost::Content::Image(chart)] = outcome.content.as_slice() else { panic!("{:?}", outcome.content) };
    assert_eq!(chart.mime_type, "image/svg+xml");
    String::from_utf8(chart.data.clone()).expect("SVG is text")
}

#[test]
fn rust_calculator_plots_an_expression_and_adds_its_chart() {
    let outcome = self::host().request("plot").arguments(&json!({"expression": "x ^ 2", "first": -1, "last": 1})).run();
    let values = outcome.result.clone().expect("plotted");
    let values: Vec<f64> = values.as_array().expect("a list").iter().filter_map(Value::as_f64).collect();
    assert_eq!((values.len(), values[0], values[100]), (101, 1.0, 1.0));
    assert!(values[50].abs() < 1e-12, "{}", values[50]);
    let svg = svg_of(&outcome);
    assert!(svg.starts_with("<svg") && svg.contains(">x ^ 2</text>") && svg.contains("<polyline"), "{svg}");
    assert_eq!(
        tool_failed("plot", json!({"expression": "ln(x)", "first": 1, "last": 0})),
        "first must be less than last, both finite numbers (got 1 and 0)"
    );
    assert_eq!(
        tool_failed("plot", json!({"expression": "1 / y", "first": 0, "last": 1})),
        format!("at x = 0: {}", tool_failed("evaluate", json!({"expression": "1 / y"})))
    );
}

#[test]
fn javascript_urls_count_hosts_and_add_their_chart() {
    let urls = ["https://a.example/x", "not a url", "http://b.example", "https://a.example/y"];
    let outcome = self::host().request("count_hosts").arguments(&json!({"urls": urls})).run();
    assert_eq!(outcome.result, Ok(json!([["a.example", 2], ["b.example", 1]])));
    let svg = svg_of(&outcome);
    assert!(svg.contains(">a.example (2)</text>") && svg.matches("<rect").count() == 2, "{svg}");
}

#[test]
fn javascript_urls_take_apart_build_and_decode() {
    assert_eq!(
        call("parse_url", json!({"url": "https://example.com:8080/a/b?x=1&y=caf%C3%A9#top"})),
        json!({"scheme": "https", "host": "example.com", "port": 8080, "path": "/a/b",
               "query": [["x", "1"], ["y", "café"]], "fragment": "top"})
    );
    assert_eq!(
        call("parse_url", json!({"url": "http://example.org"})),
        json!({"scheme": "http", "host": "example.org", "port": null, "path": "/", "query": [], "fragment": ""})
    );
    assert_eq!(call("get_part", json!({"url": "https://example.com/a?b=c&d=e", "part": "query"})), json!("b=c&d=e"));
    assert_eq!(call("get_part", json!({"url": "https://example.com/a", "part": "port"})), json!(""));
    assert_eq!(
        tool_failed("get_part", json!({"url": "/relative", "part": "host"})),
        "'/relative' is not an absolute URL (like https://example.com/path)"
    );
    assert_eq!(
        call(
            "build_url",
            json!({"host": "example.com", "path": "/search", "query": [["q", "a b"], ["lang", "en"]], "secure": true})
        ),
        json!("https://example.com/search?q=a+b&lang=en")
    );
    assert_eq!(
        call("build_url", json!({"host": "example.com", "path": "/", "query": [], "secure": false})),
        json!("http://example.com/")
    );
    assert_eq!(call("decode", json!({"text": "caf%C3%A9"})), json!("café"));
}

#[test]
fn every_tool_that_returns_something_has_an_output_schema_of_an_object() {
    for spec in host().tools() {
        let returns = match &spec.wit_function().expect("a component's tool").result {
            Some(toolhost::WitType::Result { ok, .. }) => ok.is_some(),
            other => other.is_some(),
        };
        let schema = spec.output_schema();
        assert_eq!(schema.is_some(), returns, "{}", spec.name);
        if let Some(schema) = schema {
            assert_eq!(schema["type"], "object", "{}: {schema}", spec.name);
            assert!(jsonschema::meta::is_valid(&schema), "{}: {schema}", spec.name);
        }
    }
    // A record result is its own object; anything else is wrapped as `result`.
    let parse_url = host().tool("parse_url").expect("listed");
    assert_eq!(parse_url.output_schema().expect("a record")["required"][0], "scheme");
    let gcd = host().tool("gcd").expect("listed");
    assert_eq!(gcd.output_schema().expect("a number")["required"], json!(["result"]));
    assert_eq!(gcd.structured_result(json!(6)), Some(json!({"result": 6})));
}

/// The hints of a tool that can write nowhere and reach nothing.
const PURE: ToolAnnotations =
    ToolAnnotations { read_only: true, destructive: false, idempotent: true, open_world: false };

#[test]
fn tools_granted_nothing_are_read_only_and_closed_world() {
    for spec in host().tools() {
        assert_eq!(spec.annotations, PURE, "{}", spec.name);
        assert!(!spec.title.is_empty(), "{}", spec.name);
    }
    assert_eq!(host().tool("format_date_time").expect("listed").title, "Format date time");
}

#[test]
fn a_writable_grant_or_the_network_takes_the_hints_away_and_a_manifest_only_narrows() {
    let folder = tempfile::tempdir().expect("temporary folder");
    std::fs::copy(common::plugins_dir().join("files.wasm"), folder.path().join("files.wasm")).expect("copy");
    std::fs::create_dir(folder.path().join("data")).expect("folder");
    std::fs::write(
        folder.path().join("files.toml"),
        "[[dirs]]\nhost = \"data\"\nguest = \"/workspace\"\nread_only = false\n\n\
         [tools.read_file]\ntitle = \"Read a file\"\ndestructive = false\nidempotent = true\n",
    )
    .expect("manifest");
    let host = Host::builder().plugin_dir(folder.path()).cache_dir(common::test_cache_dir()).build().expect("host");
    let writer = ToolAnnotations { read_only: false, destructive: true, idempotent: false, open_world: false };
    assert_eq!(host.tool("write_file").expect("listed").annotations, writer);
    let read_file = host.tool("read_file").expect("listed");
    assert_eq!(read_file.annotations, ToolAnnotations { destructive: false, idempotent: true, ..writer });
    assert_eq!(read_file.title, "Read a file");

    let fetcher = Host::builder()
        .component_file(common::test_guest("hostile"))
        .cache_dir(common::test_cache_dir())
        .allow_http("hostile", "api.example.com")
        .expect("a host pattern")
        .build()
        .expect("hostile loads");
    let hints = fetcher.tool("http_get").expect("listed").annotations;
    assert_eq!(hints, ToolAnnotations { read_only: false, destructive: true, idempotent: false, open_world: true });
    // A read-only grant takes nothing away.
    let reader = Host::builder()
        .plugin_dir(common::plugins_dir())
        .cache_dir(common::test_cache_dir())
        .grant_dir("files", folder.path(), "/workspace", true)
        .build()
        .expect("host");
    assert_eq!(reader.tool("write_file").expect("listed").annotations, PURE);
}
