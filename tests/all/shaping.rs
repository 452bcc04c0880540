//! Tool shaping, with the same `[tools.NAME]` keys in a component's manifest and an
//! MCP server's file: a new name (the tool's own still resolves), a description
//! extended, a default, a parameter fixed and hidden, `include`/`exclude`; a real
//! server plugin (tests/servers/functions.mjs, which answers with the arguments it
//! got) and a real component (the units example); every fault a load error naming
//! the file and line.

use serde_json::{Value, json};
use toolhost::{Host, ToolFormat};

use crate::common;

/// The forecast tool and one the file excludes, as a server lists them.
fn forecast_tools() -> Value {
    let schema = json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "the city"},
            "units": {"type": "string", "enum": ["metric", "imperial"]},
            "api_key": {"type": "string"}
        },
        "required": ["city", "units", "api_key"]
    });
    json!([
        {"name": "get_forecast", "description": "The weather forecast for a city.", "inputSchema": schema},
        {"name": "delete_city", "description": "Deletes a city.", "inputSchema": {"type": "object"}}
    ])
}

/// The shaping a server file and a manifest may both write.
const FORECAST_SHAPING: &str = r#"
exclude = ["delete_*"]

[tools.get_forecast]
name = "weather"
append_description = "Use it for any question about the weather."
defaults = { units = "metric" }
fixed = { api_key = "k-123" }
"#;

/// A host over the server plugin with `shaping` added to its file.
fn server_host(folder: &std::path::Path, shaping: &str) -> Host {
    let plugins = common::functions_server_plugins(folder, "forecasts", &forecast_tools());
    let file = plugins.join("forecasts.mcp.toml");
    let written = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{written}{shaping}")).unwrap();
    Host::builder().plugin_dir(&plugins).cache_dir(common::test_cache_dir()).build().expect("the folder loads")
}

/// What the functions server says it was sent.
fn sent(value: Value) -> Value {
    let value = match value {
        Value::String(text) => serde_json::from_str(&text).expect("JSON"),
        value => value,
    };
    value["arguments"].clone()
}

#[test]
fn a_shaped_server_tool_is_renamed_defaulted_and_sent_its_fixed_value() {
    let folder = tempfile::tempdir().unwrap();
    let host = server_host(folder.path(), FORECAST_SHAPING);
    let names: Vec<String> = host.tools().into_iter().map(|tool| tool.name).collect();
    assert_eq!(names, ["weather"], "renamed, and delete_city excluded");
    let definition = &host.tool_definitions(ToolFormat::Mcp)[0];
    assert_eq!(definition["name"], "weather");
    assert_eq!(
        definition["description"],
        "The weather forecast for a city.\n\nUse it for any question about the weather."
    );
    assert_eq!(definition["inputSchema"]["required"], json!(["city"]));
    assert_eq!(definition["inputSchema"]["properties"]["units"]["default"], "metric");
    assert!(definition["inputSchema"]["properties"].get("api_key").is_none(), "{definition}");
    assert!(!definition.to_string().contains("k-123"));

    // The server gets the default and the fixed value; the model's own value wins a default.
    let got = sent(host.call("weather", &json!({"city": "Oslo"})).unwrap());
    assert_eq!(got, json!({"city": "Oslo", "units": "metric", "api_key": "k-123"}));
    let got = sent(host.call("weather", &json!({"city": "Oslo", "units": "imperial"})).unwrap());
    assert_eq!(got["units"], "imperial");
    // The tool's own name still reaches it, as a repair.
    let outcome = host.request("get_forecast").text(r#"{"city": "Bergen"}"#).run();
    assert_eq!((outcome.tool.as_deref(), outcome.repaired_from.as_deref()), (Some("weather"), Some("get_forecast")));
    assert_eq!(sent(outcome.result.unwrap())["api_key"], "k-123");

    // A model that sends the hidden parameter is told it is none; the value is not shown.
    let error = host.call("weather", &json!({"city": "Oslo", "apiKey": "stolen"})).unwrap_err().to_string();
    assert!(error.contains("'apiKey' is not a parameter of 'weather': the host sets it"), "{error}");
    assert!(!error.contains("k-123") && !error.contains("api_key"), "{error}");
    let missing = host.call("weather", &json!({"units": "metric"})).unwrap_err().to_string();
    assert!(missing.contains("city") && !missing.contains("api_key"), "{missing}");
}

#[test]
fn a_shaped_component_tool_is_renamed_defaulted_and_fixed() {
    let folder = common::plugins_with(&["units"]);
    let manifest = "[tools.convert]\nname = \"miles_to\"\nappend_description = \"From miles only.\"\n\
                    defaults = { to = \"kilometer\" }\nfixed = { from = \"mile\" }\n";
    std::fs::write(folder.path().join("units.toml"), manifest).unwrap();
    let host = Host::builder().plugin_dir(folder.path()).cache_dir(common::test_cache_dir()).build().unwrap();
    let spec = host.tool("miles_to").expect("renamed");
    assert!(spec.description.ends_with("\n\nFrom miles only."), "{}", spec.description);
    assert_eq!(spec.required_params(), ["value"]);
    let kilometres = host.call("miles_to", &json!({"value": 2})).unwrap();
    assert!((kilometres.as_f64().unwrap() - 3.218_688).abs() < 1e-6, "{kilometres}");
    let metres = host.call("convert", &json!({"value": 1, "to": "meter"})).unwrap();
    assert!((metres.as_f64().unwrap() - 1609.344).abs() < 1e-6, "{metres}");
    let error = host.call("miles_to", &json!({"value": 1, "from": "foot"})).unwrap_err().to_string();
    assert!(error.contains("'from' is not a parameter of 'miles_to'"), "{error}");
}

#[test]
fn every_shaping_fault_is_a_load_error_naming_the_file_and_line() {
    let faults = [
        ("[tools.get_forcast]\ndescription = \"x\"\n", "line 3: [tools.get_forcast] names none of its tools"),
        (
            "\n[tools.get_forecast]\ndefaults = { town = \"Oslo\" }\n",
            "line 5: [tools.get_forecast] defaults names the parameter 'town', which it does not have",
        ),
        (
            "[tools.get_forecast]\nfixed = { units = \"kelvin\" }\n",
            "line 4: [tools.get_forecast] fixed: \"kelvin\" is not a value of 'units'",
        ),
        (
            "[tools.get_forecast]\ndefaults = { units = \"metric\" }\nfixed = { units = \"metric\" }\n",
            "gives 'units' both a default and a fixed value",
        ),
        ("[tools.get_forecast]\nname = \"the weather\"\n", "name 'the weather' is not a tool name"),
        ("[tools.get_forecast]\nname = \"delete_city\"\n", "two of its tools would be called 'delete_city'"),
        ("include = [\"[\"]\n", "`include`: '[' is not a tool name pattern"),
    ];
    // The server file's first line starts the server; the shaping starts on line 3.
    for (shaping, expected) in faults {
        let folder = tempfile::tempdir().unwrap();
        let host = server_host(folder.path(), &format!("\n{shaping}"));
        assert!(host.tools().is_empty(), "{shaping}: the server is not served");
        let said = host.load_report().warnings.join("\n");
        assert!(said.contains("forecasts.mcp.toml") && said.contains(expected), "{shaping}: {said}");
    }

    // A component's manifest: the same keys, the same errors.
    let folder = common::plugins_with(&["units", "calculator"]);
    std::fs::write(folder.path().join("units.toml"), "[tools.convert]\nfixed = { unit = \"mile\" }\n").unwrap();
    let host = Host::builder().plugin_dir(folder.path()).cache_dir(common::test_cache_dir()).build().unwrap();
    assert!(host.tool("convert").is_none() && host.tool("evaluate").is_some(), "the others still load");
    let said = host.load_report().warnings.join("\n");
    assert!(
        said.contains("units.toml") && said.contains("line 2: [tools.convert] fixed names the parameter 'unit'"),
        "{said}"
    );
}
