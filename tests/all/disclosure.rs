//! Showing a model fewer tools than the host holds: definitions within a budget, and
//! progressive disclosure (a core and a finder; every tool callable; a session lists
//! what it found), in the library, over MCP on stdio (`toolhost serve --disclose`) and
//! over HTTP to rmcp's client, and from a config file.

use serde_json::{Value, json};
use toolhost::{Disclosure, ToolFormat};

use crate::common;
use crate::http::{Server, call, client};

/// The names in an array of definitions in `format`.
fn names(definitions: &Value, format: ToolFormat) -> Vec<String> {
    let name = |definition: &Value| match format {
        ToolFormat::OpenAiChat => definition["function"]["name"].as_str().map(str::to_string),
        _ => definition["name"].as_str().map(str::to_string),
    };
    definitions.as_array().expect("an array").iter().filter_map(name).collect()
}

#[test]
fn a_disclosing_host_shows_its_core_and_the_finder_and_runs_what_was_found() {
    let host = common::example_host_shared();
    let total = host.tools().len();
    let shown = host.disclosing(Disclosure::new(&["evaluate", "gcd"]).unwrap().format(ToolFormat::OpenAiChat));
    let definitions = shown.tool_definitions(ToolFormat::OpenAiChat);
    assert_eq!(names(&definitions, ToolFormat::OpenAiChat), ["find_tools", "evaluate", "gcd"]);
    let description = definitions[0]["function"]["description"].as_str().unwrap();
    assert!(description.contains(&format!("among the {} tools not listed", total - 2)), "{description}");
    assert_eq!(shown.tools().len(), total, "the inventory still holds every tool");

    let found = shown.call("find_tools", &json!({"query": "convert miles to kilometres", "limit": 3})).unwrap();
    let tools = found["tools"].as_array().unwrap();
    assert!(!tools.is_empty() && tools.len() <= 3, "{found}");
    assert_eq!(tools[0]["function"]["name"], "convert", "{found}");
    assert!(
        tools[0]["function"]["parameters"]["properties"]["from"]["enum"].is_array(),
        "the full definition: {found}"
    );

    // The tool it found is callable, though not listed.
    let converted = shown.call("convert", &json!({"value": 1, "from": "mile", "to": "kilometer"})).unwrap();
    assert!((converted.as_f64().unwrap() - 1.609).abs() < 0.01, "{converted}");

    // The finder's name drifts and its arguments are repaired as any tool's are.
    let outcome = shown.request("FindTools").text("{query: 'count the words and lines of a text'}").run();
    assert_eq!(outcome.tool.as_deref(), Some("find_tools"));
    assert_eq!(outcome.repaired_from.as_deref(), Some("FindTools"));
    assert!(outcome.repairs.len() >= 2, "the name and the argument text: {:?}", outcome.repairs);
    let found = names(&outcome.result.unwrap()["tools"], ToolFormat::OpenAiChat);
    assert!(found[..3].contains(&"word_count".to_string()), "{found:?}");

    // A query nothing fits, and arguments that are wrong, each get a message.
    let nothing = shown.call("find_tools", &json!({"query": "zebra crossing"})).unwrap();
    assert_eq!(nothing["tools"], json!([]));
    assert!(nothing["note"].as_str().unwrap().contains("other words"), "{nothing}");
    let error = shown.call("find_tools", &json!({"limit": 3})).unwrap_err().to_string();
    assert!(error.contains("query"), "{error}");
    // A host that does not disclose has no finder.
    assert_eq!(host.call("find_tools", &json!({"query": "x"})).unwrap_err().kind(), "unknown_tool");
}

#[test]
fn a_caller_runs_what_the_finder_found_for_frameworks_that_call_only_what_they_were_given() {
    let host = common::example_host_shared();
    let shown = host.disclosing(Disclosure::new(&["evaluate"]).unwrap().caller(toolhost::CALLER_NAME));
    let listed: Vec<String> = shown.shown_tools().into_iter().map(|spec| spec.name).collect();
    assert_eq!(listed, ["find_tools", "call_tool", "evaluate"]);
    let finder = &shown.shown_tools()[0];
    assert!(
        finder.description.contains("through call_tool, with its name and its arguments"),
        "{}",
        finder.description
    );

    // Found, then called through the caller: a drifted name and a number as text repaired.
    let found = shown.call("find_tools", &json!({"query": "greatest common divisor"})).unwrap();
    assert_eq!(found["tools"][0]["name"], "gcd", "{found}");
    let outcome = shown.request("callTool").text(r#"{"name": "GCD", "arguments": {"a": "12", "b": 18}}"#).run();
    assert_eq!(outcome.result, Ok(json!(6)), "{outcome:?}");
    assert_eq!(outcome.tool.as_deref(), Some("gcd"), "the outcome is the tool's");
    let repairs: Vec<String> = outcome.repairs.iter().map(ToString::to_string).collect();
    assert!(repairs[0].contains("callTool") && repairs.iter().any(|r| r.contains("GCD")), "{repairs:?}");
    assert!(repairs.iter().any(|r| r.contains("\"12\"")), "{repairs:?}");

    // Async too; and what is wrong comes back as the message for the model.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let called = json!({"name": "convert", "arguments": {"value": 1, "from": "mile", "to": "kilometer"}});
    let outcome = runtime.block_on(shown.request("call_tool").arguments(&called).run_async());
    assert!((outcome.result.unwrap().as_f64().unwrap() - 1.609).abs() < 0.01);
    let wrong = shown.call("call_tool", &json!({"name": "gcd", "arguments": {"a": 12}})).unwrap_err();
    assert!(wrong.to_string().contains("'b'"), "{wrong}");
    let unknown = shown.call("call_tool", &json!({"name": "teleport", "arguments": {}})).unwrap_err();
    assert_eq!(unknown.kind(), "unknown_tool");
    let itself = shown.call("call_tool", &json!({"name": "call_tool", "arguments": {"name": "gcd"}})).unwrap_err();
    assert!(itself.to_string().contains("a tool other than call_tool"), "{itself}");
    // The finder through the caller is a search.
    let searched = shown.call("call_tool", &json!({"name": "find_tools", "arguments": {"query": "slugify"}})).unwrap();
    assert!(searched["tools"].as_array().is_some_and(|tools| !tools.is_empty()), "{searched}");
    // A caller's toolset (per-caller access) calls only its own tools through it.
    let limited = shown.toolset(&["evaluate", "gcd"]).unwrap();
    assert_eq!(limited.call("call_tool", &json!({"name": "gcd", "arguments": {"a": 4, "b": 6}})), Ok(json!(2)));
    assert_eq!(limited.call("call_tool", &called).unwrap_err().kind(), "unknown_tool");
    // Without a caller, its name is no tool.
    let plain = host.disclosing(Disclosure::new(&["evaluate"]).unwrap());
    assert_eq!(plain.call("call_tool", &called).unwrap_err().kind(), "unknown_tool");
}

#[test]
fn a_toolset_of_a_disclosing_host_finds_only_its_own_tools() {
    let host = common::example_host_shared().disclosing(Disclosure::new::<&str>(&[]).unwrap());
    let caller = host.toolset_matching(&["word_*", "evaluate"]).unwrap();
    assert_eq!(names(&caller.tool_definitions(ToolFormat::Mcp), ToolFormat::Mcp), ["find_tools"]);
    let found = caller.call("find_tools", &json!({"query": "convert miles to kilometres"})).unwrap();
    let found = names(&found["tools"], ToolFormat::Mcp);
    assert!(found.iter().all(|name| name.starts_with("word_") || name == "evaluate"), "{found:?}");
    assert!(caller.call("convert", &json!({"value": 1, "from": "mile", "to": "meter"})).is_err());
}

#[test]
fn definitions_within_a_budget_say_what_they_left_out() {
    let host = common::example_host_shared();
    let total = host.tools().len();
    let first_two = host.definitions(ToolFormat::OpenAiChat).most(2).for_task("convert a temperature unit").get();
    let shown = names(&first_two.tools, ToolFormat::OpenAiChat);
    assert_eq!(shown.len(), 2);
    assert_eq!(shown[0], "convert", "the tools fitting the task come first: {shown:?}");
    assert_eq!(first_two.left_out.len(), total - 2);
    assert!(!first_two.left_out.contains(&"convert".to_string()));

    // A byte budget: the array as sent, brackets and commas counted.
    let one = serde_json::to_string(&first_two.tools[0]).unwrap().len();
    let budget = one + 2;
    let fitted =
        host.definitions(ToolFormat::OpenAiChat).for_task("convert a temperature unit").max_bytes(budget).get();
    assert!(serde_json::to_string(&fitted.tools).unwrap().len() <= budget);
    assert_eq!(names(&fitted.tools, ToolFormat::OpenAiChat)[0], "convert");
    assert_eq!(fitted.tools.as_array().unwrap().len() + fitted.left_out.len(), total);
    let none = host.definitions(ToolFormat::Anthropic).max_bytes(1).get();
    assert_eq!((none.tools, none.left_out.len()), (json!([]), total));

    // Unbudgeted: every tool, as `tool_definitions` gives them.
    let all = host.definitions(ToolFormat::Anthropic).get();
    assert_eq!(all.tools, host.tool_definitions(ToolFormat::Anthropic));
    assert!(all.left_out.is_empty());
    // A disclosing host's: the finder first, whatever the task; the rest left out.
    let disclosing = host.disclosing(Disclosure::new(&["*"]).unwrap());
    let budgeted = disclosing.definitions(ToolFormat::Mcp).most(3).for_task("words in a text").get();
    let shown = names(&budgeted.tools, ToolFormat::Mcp);
    assert_eq!(shown[0], "find_tools");
    assert!(shown[1].starts_with("word") || shown[1].contains("text"), "{shown:?}");
    assert_eq!(budgeted.left_out.len(), total - 2);
}

#[test]
fn a_bad_core_pattern_is_refused_by_name() {
    let error = Disclosure::new(&["files.[read"]).unwrap_err().to_string();
    assert!(error.contains("files.[read"), "{error}");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["serve", "--plugins"])
        .arg(common::plugins_dir())
        .args(["--disclose", "evaluate,files.[read"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("--disclose") && said.contains("files.[read"), "{said}");

    let folder = tempfile::tempdir().unwrap();
    let config = folder.path().join("toolhost.toml");
    std::fs::write(&config, "[disclosure]\ncore = [\"evaluate\", \"[\"]\n").unwrap();
    let check = config_check(&config);
    assert_eq!(check.status.code(), Some(2));
    let said = String::from_utf8_lossy(&check.stderr);
    assert!(said.contains("[disclosure] core") && said.contains("'['"), "{said}");
    std::fs::write(&config, "[disclosure]\ncore = [\"evaluate\"]\nfinder = \"search_tools\"\ncaller = \"run_tool\"\n")
        .unwrap();
    let check = config_check(&config);
    assert!(check.status.success(), "{check:?}");
    assert!(
        String::from_utf8_lossy(&check.stdout)
            .contains("listed: search_tools, run_tool and the tools matching [evaluate]")
    );
}

#[test]
fn an_mcp_client_on_stdio_finds_and_calls_a_tool_it_was_not_shown() {
    let mut client = crate::mcp::Client::start_with(&common::plugins_dir(), &["--disclose", "evaluate"]);
    client.initialize();
    let listed = client.request(2, "tools/list", json!({}));
    let tools = &listed["result"]["tools"];
    assert_eq!(names(tools, ToolFormat::Mcp), ["find_tools", "evaluate"], "{listed}");
    assert_eq!(tools[0]["annotations"]["readOnlyHint"], true);

    let found = client.request(
        3,
        "tools/call",
        json!({"name": "find_tools", "arguments": {"query": "greatest common divisor"}}),
    );
    let text = found["result"]["content"][0]["text"].as_str().unwrap();
    let found: Value = serde_json::from_str(text).unwrap();
    assert_eq!(found["tools"][0]["name"], "gcd", "{found}");
    assert!(found["tools"][0]["inputSchema"]["properties"].is_object(), "{found}");

    // The session is told its list changed, and lists what it found from now on.
    let told = client.answered().iter().any(|message| message["method"] == "notifications/tools/list_changed");
    assert!(told, "no notifications/tools/list_changed before the finder's answer");
    let listed = client.request(4, "tools/list", json!({}));
    let now = names(&listed["result"]["tools"], ToolFormat::Mcp);
    assert_eq!(now[..2], ["find_tools", "evaluate"]);
    assert!(now.contains(&"gcd".to_string()), "{now:?}");

    let called = client.request(5, "tools/call", json!({"name": "gcd", "arguments": {"a": 12, "b": 18}}));
    assert_eq!(called["result"]["isError"], false, "{called}");
    assert_eq!(called["result"]["content"][0]["text"], "6", "{called}");
    // Finding the same tools again changes nothing to tell.
    client.request(6, "tools/call", json!({"name": "find_tools", "arguments": {"query": "greatest common divisor"}}));
    assert!(client.answered().iter().all(|message| message["method"] != "notifications/tools/list_changed"));
}

#[test]
fn rmcp_clients_over_http_find_and_call_a_tool_they_were_not_shown() {
    let folder = common::plugins_with(&["calculator", "units", "text"]);
    let server = Server::start(folder.path(), &["--disclose", "word_*"]);
    server.wait_until_ready();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        // The stateless revision, then a session of the one before it.
        for revision in [None, Some(rmcp::model::ProtocolVersion::V_2025_06_18)] {
            let client = client(&server.url(), None, revision.clone()).await;
            let listed = client.list_all_tools().await.expect("tools/list");
            let listed: Vec<&str> = listed.iter().map(|tool| tool.name.as_ref()).collect();
            assert_eq!(listed[0], "find_tools", "{listed:?}");
            assert!(listed[1..].iter().all(|name| name.starts_with("word_")) && listed.len() > 1, "{listed:?}");

            let found = client.call_tool(call("find_tools", json!({"query": "convert 5 miles into kilometers"}))).await;
            let found = found.expect("tools/call");
            assert_eq!(found.is_error, Some(false), "{found:?}");
            let block = serde_json::to_value(&found.content[0]).unwrap();
            let definitions: Value = serde_json::from_str(block["text"].as_str().unwrap()).unwrap();
            assert_eq!(definitions["tools"][0]["name"], "convert", "{definitions}");

            let converted = client.call_tool(call("convert", json!({"value": 5, "from": "mile", "to": "kilometer"})));
            let converted = converted.await.expect("tools/call");
            assert_eq!(converted.is_error, Some(false), "{revision:?}: {converted:?}");
            client.cancel().await.expect("the client closes");
        }
    });
}

/// Two callers: `ops` may use every tool, `alice` only `gcd` and the word tools.
const CALLERS: &str = r#"
[auth.tokens]
ops = "${DISCLOSURE_TEST_OPS}"
alice = "${DISCLOSURE_TEST_ALICE}"

[access]
ops = ["*"]
alice = ["gcd", "word_*"]
"#;

/// Two profiles, one shown through a finder.
const PROFILES: &str = r#"
[profiles.math]
tools = ["evaluate", "gcd"]

[profiles.words]
tools = ["word_*", "top_words"]
disclose = []
"#;

/// The names an rmcp client at `url` is listed.
async fn listed_at(url: &str, token: &str) -> Vec<String> {
    let client = client(url, Some(token), None).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    client.cancel().await.expect("the client closes");
    tools.iter().map(|tool| tool.name.to_string()).collect()
}

#[test]
fn each_profile_is_served_at_its_own_path_within_each_callers_access() {
    let folder = tempfile::tempdir().unwrap();
    let config = folder.path().join("toolhost.toml");
    std::fs::write(&config, format!("{CALLERS}{PROFILES}")).unwrap();
    let env = [("DISCLOSURE_TEST_OPS", "ops-secret"), ("DISCLOSURE_TEST_ALICE", "alice-secret")];
    let options = ["--config", config.to_str().unwrap()];
    let server = crate::http::Server::start_with_env(&common::plugins_dir(), &options, &env);
    server.wait_until_ready();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let all = listed_at(&server.url(), "ops-secret").await;
        assert_eq!(all.len(), common::example_host_shared().tools().len());
        assert_eq!(listed_at(&format!("{}/math", server.url()), "ops-secret").await, ["evaluate", "gcd"]);
        assert_eq!(listed_at(&format!("{}/math", server.url()), "alice-secret").await, ["gcd"]);
        assert_eq!(listed_at(&format!("{}/words", server.url()), "alice-secret").await, ["find_tools"]);

        // A profile's tools alone are callable at its path; its finder finds only them.
        let math = client(&format!("{}/math", server.url()), Some("ops-secret"), None).await;
        let gcd = math.call_tool(call("gcd", json!({"a": 4, "b": 6}))).await.expect("tools/call");
        assert_eq!(gcd.is_error, Some(false), "{gcd:?}");
        let convert = math.call_tool(call("convert", json!({"value": 1, "from": "mile", "to": "meter"}))).await;
        assert_eq!(convert.expect("tools/call").is_error, Some(true));
        math.cancel().await.expect("the client closes");
        let words = client(&format!("{}/words", server.url()), Some("alice-secret"), None).await;
        let found = words.call_tool(call("find_tools", json!({"query": "count the words of a text", "limit": 20})));
        let block = serde_json::to_value(&found.await.expect("tools/call").content[0]).unwrap();
        let found: Value = serde_json::from_str(block["text"].as_str().unwrap()).unwrap();
        let found = names(&found["tools"], ToolFormat::Mcp);
        assert!(!found.is_empty() && found.iter().all(|name| name.starts_with("word_")), "alice's words: {found:?}");
        words.cancel().await.expect("the client closes");
    });

    // A path that names no profile is a 404 saying where the profiles are (after the token).
    let headers = "Authorization: Bearer ops-secret\r\n";
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let unknown = crate::http::post_to(server.port, "/mcp/nope", headers, body);
    assert_eq!(unknown.status, 404, "{}", unknown.body);
    assert!(unknown.body.contains("/mcp/math, /mcp/words"), "{}", unknown.body);
    let anonymous = crate::http::post_to(server.port, "/mcp/nope", "", body);
    assert_eq!(anonymous.status, 401, "{}", anonymous.body);
    assert!(!anonymous.body.contains("math"));
}

#[test]
fn the_command_serves_one_profile_on_stdio_and_refuses_an_unknown_one() {
    let folder = tempfile::tempdir().unwrap();
    let config = folder.path().join("toolhost.toml");
    std::fs::write(&config, PROFILES).unwrap();
    let mut client = crate::mcp::Client::start_with(
        &common::plugins_dir(),
        &["--config", config.to_str().unwrap(), "--profile", "math"],
    );
    client.initialize();
    let listed = client.request(2, "tools/list", json!({}));
    assert_eq!(names(&listed["result"]["tools"], ToolFormat::Mcp), ["evaluate", "gcd"], "{listed}");

    let serve = |options: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args(["serve", "--plugins"])
            .arg(common::plugins_dir())
            .args(["--config", config.to_str().unwrap()])
            .args(options)
            .output()
            .unwrap()
    };
    let unknown = serve(&["--profile", "nope"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&unknown.stderr)
            .contains("no profile 'nope': the config file's [profiles] define math, words")
    );
    let over_http = serve(&["--profile", "math", "--http", "127.0.0.1:0"]);
    assert_eq!(over_http.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&over_http.stderr).contains("/mcp/NAME"));

    std::fs::write(&config, "[profiles.\"no spaces\"]\ntools = [\"*\"]\n").unwrap();
    let check = config_check(&config);
    assert_eq!(check.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&check.stderr).contains("[profiles.no spaces]"), "{check:?}");
    std::fs::write(&config, "[profiles.math]\ntools = [\"[\"]\n").unwrap();
    let check = config_check(&config);
    assert!(String::from_utf8_lossy(&check.stderr).contains("[profiles.math] tools"), "{check:?}");
}

/// What `toolhost config check` says of the config file at `config`.
fn config_check(config: &std::path::Path) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_toolhost")).args(["config", "check"]).arg(config).output().unwrap()
}
