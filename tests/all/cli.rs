//! The `toolhost` command, run as a built binary: every subcommand, exit codes, and
//! the exact corrective messages.

use crate::common;

use std::io::Write;
use std::process::{Command, Output};

use serde_json::Value;

/// Runs `toolhost` with `args`, the example tools as the plugin folder.
fn toolhost(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(args)
        .env("TOOLHOST_PLUGINS", common::plugins_dir())
        .env("TOOLHOST_CACHE_DIR", common::test_cache_dir())
        .output()
        .expect("toolhost runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn list_prints_every_tool_with_its_parameters() {
    let output = toolhost(&["list"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("evaluate  [calculator]\n    (expression: string) -> result<f64, string>\n    Evaluates an arithmetic expression"), "{text}");
    assert!(text.contains("slugify  [text]\n    (text: string, separator?: option<char>) -> string\n"), "{text}");
    assert!(text.ends_with("37 tools\n"), "{text}");
}

#[test]
fn schema_prints_each_providers_format() {
    let parse = |format: &str| -> Vec<Value> {
        let output = toolhost(&["schema", "--format", format]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        serde_json::from_slice::<Vec<Value>>(&output.stdout).expect("a JSON array")
    };
    let keys = |v: &Value| -> Vec<String> { v.as_object().expect("object").keys().cloned().collect() };
    for tool in parse("openai") {
        assert_eq!(keys(&tool), ["type", "function"]);
        assert_eq!(tool["type"], "function");
        assert_eq!(keys(&tool["function"]), ["name", "description", "parameters"]);
        assert_eq!(tool["function"]["parameters"]["type"], "object");
    }
    for tool in parse("openai-responses") {
        assert_eq!(keys(&tool), ["type", "name", "description", "parameters"]);
    }
    for tool in parse("anthropic") {
        assert_eq!(keys(&tool), ["name", "description", "input_schema"]);
        assert!(
            tool["name"].as_str().is_some_and(|n| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        );
    }
    let mcp = parse("mcp");
    assert_eq!(mcp.len(), 37);
    for tool in mcp {
        // `outputSchema` for the tools that return something: all of the example tools.
        assert_eq!(keys(&tool), ["name", "title", "description", "inputSchema", "outputSchema", "annotations"]);
        assert!(!tool["description"].as_str().unwrap_or("").is_empty());
        assert_eq!(
            tool["annotations"],
            serde_json::json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
        );
    }
    let output = toolhost(&["schema", "--format", "yaml"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stderr(&output), "error: unknown format 'yaml': use one of openai, openai-responses, anthropic, mcp\n");
}

#[test]
fn call_prints_the_result_and_notes_a_repair() {
    let output = toolhost(&["call", "Evaluate", r#"{"expression": "6 * 7"}"#]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "42.0\n");
    assert_eq!(stderr(&output), "repaired tool name 'Evaluate' -> 'evaluate'\n");
}

#[test]
fn a_failed_call_prints_the_corrective_message_and_exits_1() {
    let output = toolhost(&["call", "evalute", r#"{"expression": "1"}"#]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output)
            .starts_with("Tool 'evalute' not found. Did you mean 'evaluate'? Available tools: ['add_duration', "),
        "{}",
        stdout(&output)
    );
    let output = toolhost(&["call", "factorial", r#"{"n": "five"}"#]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "Invalid arguments for 'factorial': 'n' must be an integer between 0 and 255, got \"five\".\n"
    );
    let output = toolhost(&["call", "factorial", r#"{"n": five}"#]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "The arguments for 'factorial' are not valid JSON: expected ident at line 1 column 8, near `{\"n\": five}`. \
         Expected parameters for 'factorial' — required: ['n'], optional: [].\n"
    );
}

#[test]
fn check_describes_one_component() {
    let output = toolhost(&["check", common::test_guest("mirror").to_str().expect("utf-8 path")]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.starts_with("warning: mirror: function '[constructor]counter' is not available as a tool"), "{text}");
    assert!(text.contains("echo  [mirror]\n    (text: string) -> string\n"), "{text}");
    assert!(text.ends_with("\n1 tool\n"), "{text}");

    let folder = tempfile::tempdir().expect("temporary folder");
    let core = folder.path().join("core.wasm");
    std::fs::write(&core, b"\0asm\x01\0\0\0").expect("write");
    let output = toolhost(&["check", core.to_str().expect("utf-8 path")]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("core.wasm: a core WebAssembly module, not a component"), "{}", stdout(&output));
}

#[test]
fn replay_shows_each_call_what_the_host_did_and_the_reply() {
    let folder = tempfile::tempdir().expect("temporary folder");
    let transcript = folder.path().join("calls.jsonl");
    let mut file = std::fs::File::create(&transcript).expect("create");
    writeln!(file, r#"{{"name": "GCD", "arguments": {{"a": 12, "b": 18}}}}"#).expect("write");
    writeln!(file, r#"{{"function": {{"name": "gcd", "arguments": "{{\"a\": 1}}"}}}}"#).expect("write");
    drop(file);
    let output = toolhost(&["replay", transcript.to_str().expect("utf-8 path")]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "\nmodel calls   GCD {\"a\":12,\"b\":18}\nhost          repaired 'GCD' -> 'gcd', ran it\nmodel gets    6\n\
         \nmodel calls   gcd {\"a\": 1}\nhost          invalid arguments\n\
         model gets    Tool 'gcd' was called with missing required parameter 'b'. Expected parameters for 'gcd' — required: ['a', 'b'], optional: [].\n\
         \n1 calls ran, 1 came back with a corrective message\n"
    );
}

#[test]
fn edge_errors_are_one_clear_line() {
    let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["list", "--plugins", "/no/such/folder"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: cannot read the plugin folder /no/such/folder: No such file or directory (os error 2)\n"
    );

    let output = toolhost(&["replay", "/no/such/transcript.jsonl"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: cannot read the transcript /no/such/transcript.jsonl: No such file or directory (os error 2)\n"
    );

    let folder = tempfile::tempdir().expect("temporary folder");
    let transcript = folder.path().join("bad.jsonl");
    std::fs::write(&transcript, "{\"name\": \"gcd\"}\nnot json\n").expect("write");
    let output = toolhost(&["replay", transcript.to_str().expect("utf-8 path")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output)
            .ends_with("error: transcript line 2: the line is not JSON: expected ident at line 1 column 2\n"),
        "{}",
        stderr(&output)
    );
}

/// Every successful call of the demo transcript sends arguments its tool's schema
/// accepts, except the calls that show argument repair on purpose.
#[test]
fn the_demo_transcripts_successful_arguments_fit_the_schemas() {
    const REPAIRED_ON_PURPOSE: [&str; 4] = [
        "A number sent as text: converted without loss",
        "A lone number where a list belongs, and a stray quote in the text: both read as meant, and each repair said",
        "An enum value in the wrong case: repaired",
        "Argument names in camelCase, argument text with a trailing comma",
    ];
    let host = common::example_host();
    let transcript = std::fs::read_to_string(common::root().join("examples/transcript.jsonl")).expect("transcript");
    let mut checked = 0;
    for line in transcript.lines() {
        let call: Value = serde_json::from_str(line).expect("JSON line");
        let call_part = call.get("function").unwrap_or(&call);
        // A raw reply (`{"reply": …}`) holds its calls in its text: tests/all/extract.rs.
        let Some(name) = call_part["name"].as_str() else {
            assert!(call["reply"].is_string(), "a transcript line with neither a name nor a reply: {line}");
            continue;
        };
        let arguments = call_part.get("arguments").or_else(|| call_part.get("input")).expect("arguments");
        let outcome = match arguments {
            Value::String(text) => host.request(name).text(text).run(),
            other => host.request(name).arguments(other).run(),
        };
        let (Ok(_), Some(tool)) = (&outcome.result, &outcome.tool) else { continue };
        let note = call["note"].as_str().unwrap_or("");
        let arguments = match arguments {
            Value::String(text) => serde_json::from_str(text).unwrap_or(Value::Null),
            other => other.clone(),
        };
        let schema = host.tool(tool).expect("ran, so registered").parameters_schema();
        let fits = jsonschema::draft202012::is_valid(&schema, &arguments);
        assert_eq!(fits, !REPAIRED_ON_PURPOSE.contains(&note), "{note}: {arguments} against {schema}");
        checked += 1;
    }
    assert_eq!(checked, 12);
}

/// Runs `toolhost` with `args`, `input` on its stdin.
fn toolhost_with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(args)
        .env("TOOLHOST_PLUGINS", common::plugins_dir())
        .env("TOOLHOST_CACHE_DIR", common::test_cache_dir())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("toolhost runs");
    let mut stdin = child.stdin.take().expect("a stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().expect("toolhost ends");
    writer.join().expect("the writer ends").expect("the input is written");
    output
}

#[test]
fn call_reads_the_arguments_from_stdin_or_a_file_whatever_their_length() {
    // Longer than the 128 KiB Linux allows one command-line argument.
    let text = "word ".repeat(40_000);
    let arguments = serde_json::json!({ "text": text }).to_string();
    let output = toolhost_with_stdin(&["call", "word_count", "-"], arguments.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let counted: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(counted["words"], 40_000);

    let folder = tempfile::tempdir().expect("temporary folder");
    let file = folder.path().join("args.json");
    std::fs::write(&file, r#"{"a": 12, "b": 18}"#).expect("write");
    let output = toolhost(&["call", "gcd", &format!("@{}", file.display())]);
    assert_eq!((output.status.code(), stdout(&output)), (Some(0), "6\n".to_string()), "{}", stderr(&output));

    let output = toolhost(&["call", "gcd", "@/no/such/args.json"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: cannot read the arguments from /no/such/args.json: No such file or directory (os error 2)\n"
    );
}

#[test]
fn call_verbose_lists_every_repair() {
    let output = toolhost(&["call", "--verbose", "Statistics", r#"{"Values": "7",}"#]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "repaired: name 'Statistics' → 'statistics'\n\
         repaired: argument text: a trailing comma removed\n\
         repaired: parameter 'Values' read as 'values'\n\
         repaired: 'values' wrapped in a list\n\
         repaired: 'values[0]': \"7\" read as 7\n"
    );
    let result: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(result["count"], 1);
    let quiet = toolhost(&["call", "statistics", r#"{"values": [7]}"#]);
    assert_eq!(stderr(&quiet), "", "a call that needs no repair says nothing");
}

#[test]
fn config_check_validates_a_file_and_names_the_key_at_fault() {
    let folder = tempfile::tempdir().expect("a folder");
    let write = |name: &str, text: &str| {
        let file = folder.path().join(name);
        std::fs::write(&file, text).expect("write");
        file.to_str().expect("UTF-8").to_string()
    };
    let good = write(
        "good.toml",
        "plugins = \"tools\"\nwatch = true\ncompiler = \"baseline\"\n[capacity]\nmax_concurrent_calls = 8\n\
         [http]\naddress = \"0.0.0.0:8080\"\ntoken_file = \"token\"\n\
         [rate_limits]\ncalls_per_minute = 30\n[rate_limits.tools]\nevaluate = 5\n",
    );
    let checked = toolhost(&["config", "check", &good]);
    assert!(checked.status.success(), "{}", stderr(&checked));
    let shown = stdout(&checked);
    assert!(shown.contains(": valid") && shown.contains("watch: true"), "{shown}");
    assert!(shown.contains("compiler: baseline"), "{shown}");
    let limits = "rate limits per caller: calls of a tool 30 a minute, evaluate 5 a minute; requests no limit";
    assert!(shown.contains(limits), "{shown}");
    // Relative paths are the file's folder's.
    let token = folder.path().join("token");
    assert!(shown.contains(&format!("http: 0.0.0.0:8080, token from {}", token.display())), "{shown}");

    let cases = [
        ("typo.toml", "[http]\nadress = \"127.0.0.1:8080\"\n", "unknown field `adress`"),
        ("literal.toml", "[http]\ntoken = \"hunter2\"\n", "a secret is not written in the config"),
        (
            "unset.toml",
            "[http]\ntoken = \"${TOOLHOST_TEST_UNSET_VARIABLE}\"\n",
            "TOOLHOST_TEST_UNSET_VARIABLE is not set",
        ),
        ("type.toml", "[capacity]\nmax_queued_calls = \"many\"\n", "invalid type: string \"many\""),
        ("both.toml", "[http]\ntoken = \"${PATH}\"\ntoken_file = \"t\"\n", "both token and token_file"),
        (
            "compiler.toml",
            "compiler = \"fast\"\n",
            "there is no compiler 'fast': use 'auto', 'optimizing' or 'baseline'",
        ),
    ];
    for (name, text, expected) in cases {
        let output = toolhost(&["config", "check", &write(name, text)]);
        assert_eq!(output.status.code(), Some(2), "{name}");
        assert!(stderr(&output).contains(expected), "{name}: {}", stderr(&output));
        assert!(!stderr(&output).contains("hunter2"), "a secret is never echoed");
    }
}

#[test]
fn serve_takes_the_plugin_folder_from_the_config_when_no_flag_or_variable_gives_one() {
    let folder = tempfile::tempdir().expect("a folder");
    let config = folder.path().join("toolhost.toml");
    std::fs::write(&config, format!("plugins = {:?}\n", common::plugins_dir())).expect("write");
    let mut child = crate::process::Process::spawn(
        Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args(["serve", "--config"])
            .arg(&config)
            .env_remove("TOOLHOST_PLUGINS")
            .env("TOOLHOST_CACHE_DIR", common::test_cache_dir())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped()),
    )
    .expect("toolhost runs");
    let requests = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    ];
    let mut stdin = child.stdin.take().expect("a stdin");
    writeln!(stdin, "{}", requests.join("\n")).expect("write the requests");
    // Read (a bounded while) until the list arrives, then close stdin: the server
    // ends with its client.
    let stdout = child.stdout.take().expect("a stdout");
    let (sender, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)).map_while(Result::ok) {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    let list = std::iter::from_fn(|| lines.recv_timeout(std::time::Duration::from_secs(60)).ok())
        .find(|line| line.contains("\"id\":2"))
        .expect("the tool list within a minute");
    drop(stdin);
    assert!(child.wait().expect("toolhost ends").success());
    assert!(list.contains("\"name\":\"evaluate\""), "{list}");
}

#[test]
fn the_deployments_config_is_valid_and_kubernetes_carries_the_same() {
    let file = common::root().join("deploy/toolhost.toml");
    let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["config", "check"])
        .arg(&file)
        .env("TOOLHOST_TOKEN", "a-token")
        .output()
        .expect("toolhost runs");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("http: 0.0.0.0:8080, token from its variable"), "{}", stdout(&output));
    // The ConfigMap's toolhost.toml is the file, indented.
    let kubernetes = std::fs::read_to_string(common::root().join("deploy/kubernetes.yaml")).expect("the manifest");
    let block = kubernetes.split("  toolhost.toml: |\n").nth(1).expect("a toolhost.toml in the ConfigMap");
    let block = block.split("\n---").next().expect("the block");
    let unindented: Vec<&str> = block.lines().map(|line| line.strip_prefix("    ").unwrap_or(line)).collect();
    let written = std::fs::read_to_string(&file).expect("the file");
    assert_eq!(unindented.join("\n").trim_end(), written.trim_end());
}
