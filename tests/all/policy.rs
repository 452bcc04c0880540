//! Policies: the `policy-probe` test component, Rust policies and the example policies
//! (Rust and Python) looking at calls of the `hostile` guest's tools before and after
//! they run — allowing, refusing, rewriting, and failing closed when they misbehave.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolhost::{
    DEFAULT_POLICY_LIMITS, Host, HostBuilder, LoadError, Policy, PolicyCall, PolicyComponent, PolicyScope, ToolError,
    Verdict,
};

use crate::common::{self, test_guest, with};

/// The hostile guest's tools, for the calls `scope` chooses looked at by the probe
/// (each look limited to 300 ms and 64 MiB), after the policies `first` adds.
fn host_with_probe(scope: PolicyScope, first: impl FnOnce(HostBuilder) -> HostBuilder) -> Host {
    let limits = with(DEFAULT_POLICY_LIMITS, |limits| limits.time = Duration::from_millis(300));
    let builder = Host::builder().component_file(test_guest("hostile")).cache_dir(common::test_cache_dir());
    let probe = PolicyComponent::new(test_guest("policy-probe")).scope(scope).limits(limits);
    first(builder).policy_component(probe).build().expect("the host builds")
}

fn echo(host: &Host, text: &str) -> Result<Value, ToolError> {
    host.call("echo", &json!({ "text": text }))
}

/// The policy and message of a call a policy stopped.
fn refusal(result: Result<Value, ToolError>) -> (String, String) {
    match result {
        Err(ToolError::Refused { policy, message, .. }) => (policy, message),
        other => panic!("not refused by a policy: {other:?}"),
    }
}

#[test]
fn a_policy_component_allows_refuses_and_rewrites_calls_and_results() {
    let host = host_with_probe(PolicyScope::every_call().tools(["echo", "read_*"]), |builder| builder);
    assert_eq!(echo(&host, "hello"), Ok(json!("hello")));
    let refused = echo(&host, "deny not today");
    assert_eq!(refused.as_ref().map_err(ToolError::kind), Err("refused"));
    assert_eq!(refusal(refused), ("policy-probe".into(), "The probe refused: not today".into()));
    // Before: the tool gets the arguments as rewritten.
    assert_eq!(echo(&host, "mail ada@example.com today"), Ok(json!("mail [email] today")));
    // A rewrite of a string to a number is read as a model's would be.
    assert_eq!(echo(&host, "number"), Ok(json!("7")));
    // After: a result holding a secret is withheld; the tool's own words in an error
    // are redacted.
    let (_, message) = refusal(echo(&host, "key sk-12345"));
    assert_eq!(message, "The result held a secret, so it was withheld.");
    let failed = host.call("read-path", &json!({"path": "ada@example.com"}));
    match failed {
        Err(ToolError::Denied { message, .. }) => {
            assert!(message.starts_with("[email] ") && !message.contains("ada@"), "{message}");
        }
        other => panic!("not the tool's error after a denial: {other:?}"),
    }
    // A tool the scope does not name is not looked at.
    assert_eq!(host.call("big_string", &json!({"length": 3})), Ok(json!("xxx")));
}

#[test]
fn a_misbehaving_policy_component_fails_closed_within_its_limits_and_the_host_serves_on() {
    let host = host_with_probe(PolicyScope::every_call(), |builder| builder);
    let not_run = "A policy (policy-probe) failed, so the call of 'echo' was not run.";
    for text in ["loop", "trap", "flood", "huge", "elsewhere", "boolean"] {
        let started = Instant::now();
        let (policy, message) = refusal(echo(&host, text));
        assert_eq!((policy.as_str(), message.as_str()), ("policy-probe", not_run), "{text}");
        assert!(started.elapsed() < Duration::from_secs(5), "{text} took {:?}", started.elapsed());
    }
    let (_, message) = refusal(echo(&host, "trap after"));
    assert_eq!(message, "A policy (policy-probe) failed, so the result of 'echo' was withheld.");
    assert_eq!(echo(&host, "still here"), Ok(json!("still here")));
}

#[test]
fn a_reused_instance_serves_later_calls_and_one_that_failed_is_never_used_again() {
    let probe = |reuse: bool| {
        let builder = Host::builder().component_file(test_guest("hostile")).cache_dir(common::test_cache_dir());
        builder
            .policy_component(PolicyComponent::new(test_guest("policy-probe")).reuse_instances(reuse))
            .build()
            .expect("the host builds")
    };
    let counted = |host: &Host| refusal(echo(host, "count")).1;
    let (fresh, reused) = (probe(false), probe(true));
    for _ in 0..3 {
        assert_eq!(counted(&fresh), "This instance has looked at 1 calls.", "a fresh instance per call");
    }
    for count in 1..=3 {
        assert_eq!(counted(&reused), format!("This instance has looked at {count} calls."));
    }
    assert_eq!(echo(&reused, "hello"), Ok(json!("hello")));
    assert_eq!(counted(&reused), "This instance has looked at 5 calls.");
    // An instance that trapped is dropped: the next call starts a fresh one.
    assert_eq!(refusal(echo(&reused, "trap")).1, "A policy (policy-probe) failed, so the call of 'echo' was not run.");
    assert_eq!(counted(&reused), "This instance has looked at 1 calls.");
}

/// Refuses `secret`, rewrites `shout` to upper case, panics on `panic`, and marks
/// results it passes with a `!`.
struct Loud;

impl Policy for Loud {
    fn before(&self, call: &PolicyCall<'_>) -> Verdict {
        match call.arguments["text"].as_str() {
            Some("secret") => Verdict::Deny("Not that.".into()),
            Some("panic") => panic!("the Rust policy was told to panic"),
            Some(text) if text.starts_with("shout ") => Verdict::Rewrite(json!({ "text": text.to_uppercase() })),
            Some(_) | None => Verdict::Allow,
        }
    }

    fn after(&self, _call: &PolicyCall<'_>, result: &Value) -> Verdict {
        match result["value"].as_str() {
            Some(text) => Verdict::Rewrite(json!({ "value": format!("{text}!"), "content": result["content"] })),
            None => Verdict::Allow,
        }
    }
}

#[test]
fn rust_policies_chain_with_components_in_order_and_a_panic_fails_closed() {
    let host = host_with_probe(PolicyScope::every_call(), |builder| {
        builder.policy("loud", Loud, PolicyScope::every_call().tools(["echo"]))
    });
    assert_eq!(refusal(echo(&host, "secret")), ("loud".into(), "Not that.".into()));
    // Loud rewrites first; the probe then sees (and redacts in) what Loud let through.
    assert_eq!(echo(&host, "shout ada@example.com"), Ok(json!("SHOUT [email]!")));
    let (policy, message) = refusal(echo(&host, "panic"));
    assert_eq!(
        (policy.as_str(), message.as_str()),
        ("loud", "A policy (loud) failed, so the call of 'echo' was not run.")
    );
    assert_eq!(echo(&host, "fine"), Ok(json!("fine!")));
}

#[test]
fn a_policy_for_some_callers_looks_only_at_their_calls() {
    let host = host_with_probe(PolicyScope::every_call().callers(["mallory"]), |builder| builder);
    let call = |caller: Option<&str>| {
        let arguments = json!({"text": "deny who"});
        let request = host.request("echo").arguments(&arguments);
        match caller {
            Some(caller) => request.caller(caller).run().result,
            None => request.run().result,
        }
    };
    assert_eq!(refusal(call(Some("mallory"))).1, "The probe refused: who");
    assert_eq!(call(Some("alice")), Ok(json!("deny who")));
    assert_eq!(call(None), Ok(json!("deny who")));
}

#[test]
fn async_calls_are_looked_at_too() {
    let host = host_with_probe(PolicyScope::every_call(), |builder| builder);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let arguments = json!({"text": "write to ada@example.com"});
    let outcome = runtime.block_on(host.request("echo").arguments(&arguments).run_async());
    assert_eq!(outcome.result, Ok(json!("write to [email]")));
    let arguments = json!({"text": "loop"});
    let outcome = runtime.block_on(host.request("echo").arguments(&arguments).run_async());
    assert_eq!(outcome.result.map_err(|e| e.kind()), Err("refused"));
}

#[test]
fn a_policy_that_cannot_be_used_stops_the_build_naming_it() {
    let build = |path: std::path::PathBuf, scope: PolicyScope| {
        Host::builder()
            .component_file(test_guest("hostile"))
            .cache_dir(common::test_cache_dir())
            .policy_component(PolicyComponent::new(path).scope(scope))
            .build()
    };
    let reason = |result: Result<Host, LoadError>| match result {
        Err(LoadError::Policy { name, reason }) => (name, reason),
        Err(other) => panic!("not a policy error: {other}"),
        Ok(_) => panic!("the host was built"),
    };
    let (name, why) = reason(build(test_guest("echo"), PolicyScope::every_call()));
    assert_eq!(name, "echo");
    assert!(why.contains("exports no `toolhost:tool/policy@0.3.0`"), "{why}");
    let (name, why) = reason(build(test_guest("no-such-policy"), PolicyScope::every_call()));
    assert!(name == "no-such-policy" && why.contains("cannot read it"), "{why}");
    let (_, why) = reason(build(test_guest("policy-probe"), PolicyScope::every_call().tools(["echo["])));
    assert!(why.contains("'echo[' is not a tool name pattern"), "{why}");
}

#[test]
fn a_policy_component_in_a_plugin_folder_is_not_served_as_tools() {
    let folder = tempfile::tempdir().expect("a folder");
    std::fs::copy(test_guest("policy-probe"), folder.path().join("policy-probe.wasm")).expect("copy");
    std::fs::copy(test_guest("echo"), folder.path().join("echo.wasm")).expect("copy");
    let host = Host::builder().plugin_dir(folder.path()).cache_dir(common::test_cache_dir()).build().expect("builds");
    let warnings = host.load_report().warnings.join("\n");
    assert!(warnings.contains("policy-probe.wasm: is a policy component, not a tool"), "{warnings}");
    assert!(host.tool("before").is_none() && host.tool("after").is_none());
}

/// A folder holding `plugins/hostile.wasm` and the probe as `probe.wasm`, for a
/// config to name; and its plugin folder.
fn served_with_probe() -> (tempfile::TempDir, std::path::PathBuf) {
    let folder = tempfile::tempdir().expect("a folder");
    let plugins = folder.path().join("plugins");
    std::fs::create_dir(&plugins).expect("a plugin folder");
    std::fs::copy(test_guest("hostile"), plugins.join("hostile.wasm")).expect("copy");
    std::fs::copy(test_guest("policy-probe"), folder.path().join("probe.wasm")).expect("copy");
    (folder, plugins)
}

#[test]
fn the_config_chains_policy_components_for_the_callers_it_names_over_mcp() {
    let (folder, plugins) = served_with_probe();
    let (config, audit) = (folder.path().join("toolhost.toml"), folder.path().join("audit.log"));
    let text = "[auth.tokens]\nci = \"${POLICY_TEST_CI}\"\nops = \"${POLICY_TEST_OPS}\"\n\
                [[policy]]\ncomponent = \"probe.wasm\"\ntools = [\"echo\"]\ncallers = [\"ci\"]\ntime_limit_ms = 500\n\
                reuse = true\n";
    std::fs::write(&config, text).expect("write the config");
    let check = std::process::Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["config", "check"])
        .arg(&config)
        .envs([("POLICY_TEST_CI", "ci-token"), ("POLICY_TEST_OPS", "ops-token")])
        .output()
        .expect("toolhost runs");
    let summary = String::from_utf8_lossy(&check.stdout);
    let probe = folder.path().join("probe.wasm");
    let line = format!("policy: {} for tools [echo] and callers [ci], its instances reused", probe.display());
    assert!(summary.contains(&line), "{summary}");
    let options = ["--config", config.to_str().expect("UTF-8"), "--audit-log", audit.to_str().expect("UTF-8")];
    let env = [("POLICY_TEST_CI", "ci-token"), ("POLICY_TEST_OPS", "ops-token")];
    let server = crate::http::Server::start_with_env(&plugins, &options, &env);
    server.wait_until_ready();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let texts = runtime.block_on(async {
        let mut texts = Vec::new();
        for token in ["ci-token", "ops-token"] {
            let client = crate::http::client(&server.url(), Some(token), None).await;
            for text in ["deny not for ci", "mail ada@example.com"] {
                let result =
                    client.call_tool(crate::http::call("echo", json!({"text": text}))).await.expect("tools/call");
                let shown = serde_json::to_value(&result.content).expect("JSON")[0]["text"].clone();
                texts.push((result.is_error, shown));
            }
            client.cancel().await.expect("the client closes");
        }
        texts
    });
    assert_eq!(
        texts,
        [
            (Some(true), json!("The probe refused: not for ci")),
            // A value's text is its JSON.
            (Some(false), json!("\"mail [email]\"")),
            (Some(false), json!("\"deny not for ci\"")),
            (Some(false), json!("\"mail ada@example.com\"")),
        ]
    );
    let log = std::fs::read_to_string(&audit).expect("the audit log");
    let outcomes: Vec<(String, String)> = log
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("a JSON line"))
        .map(|line| (line["caller"].as_str().unwrap_or("").into(), line["outcome"].as_str().unwrap_or("").into()))
        .collect();
    let expected = [("ci", "refused"), ("ci", "ok"), ("ops", "ok"), ("ops", "ok")];
    assert_eq!(outcomes, expected.map(|(caller, outcome)| (caller.to_string(), outcome.to_string())));
}

#[test]
fn a_policy_for_a_profile_looks_only_at_the_calls_that_come_through_it() {
    let (folder, plugins) = served_with_probe();
    let config = folder.path().join("toolhost.toml");
    let text = "[profiles.guarded]\ntools = [\"echo\"]\n\n[profiles.open]\ntools = [\"echo\"]\n\n\
                [[policy]]\ncomponent = \"probe.wasm\"\nprofiles = [\"guarded\"]\n";
    std::fs::write(&config, text).expect("write the config");
    let options = ["--config", config.to_str().expect("UTF-8")];
    let server = crate::http::Server::start_with_env(&plugins, &options, &[]);
    server.wait_until_ready();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let texts = runtime.block_on(async {
        let mut texts = Vec::new();
        for path in ["/guarded", "/open", ""] {
            let client = crate::http::client(&format!("{}{path}", server.url()), None, None).await;
            let result = client.call_tool(crate::http::call("echo", json!({"text": "deny here"}))).await;
            let result = result.expect("tools/call");
            texts.push(serde_json::to_value(&result.content).expect("JSON")[0]["text"].clone());
            client.cancel().await.expect("the client closes");
        }
        texts
    });
    assert_eq!(texts, [json!("The probe refused: here"), json!("\"deny here\""), json!("\"deny here\"")]);

    // A profile the config does not define is named, with those it does.
    std::fs::write(&config, text.replace("profiles = [\"guarded\"]", "profiles = [\"gaurded\"]")).expect("write");
    let check = std::process::Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["config", "check"])
        .arg(&config)
        .output()
        .expect("toolhost runs");
    let said = String::from_utf8_lossy(&check.stderr);
    assert!(
        !check.status.success() && said.contains("no profile 'gaurded' (the [profiles] define guarded, open)"),
        "{said}"
    );
}

/// The example policy `name` (built by `scripts/build-guests.sh` into target/policies).
fn example_policy(name: &str) -> PolicyComponent {
    PolicyComponent::new(common::root().join(format!("target/policies/{name}.wasm")))
}

/// The hostile guest's tools (its `TOKEN` variable set to `token`) behind `policy`.
fn host_behind(policy: PolicyComponent, token: &str) -> Host {
    Host::builder()
        .component_file(test_guest("hostile"))
        .cache_dir(common::test_cache_dir())
        .grant_env("hostile", "TOKEN", token)
        .policy_component(policy)
        .build()
        .expect("the host builds")
}

#[test]
fn the_rust_example_redacts_emails_phone_and_card_numbers_from_results() {
    let host = host_behind(example_policy("pii-redact"), "");
    let text = "Write to ada.lovelace@example.co.uk or +44 20 7946 0958 or (555) 123-4567, card 4111 1111 1111 \
                1111; order 4111111111111112 of 2026-12-05 at 10:30, 3 items.";
    assert_eq!(
        echo(&host, text),
        Ok(json!(
            "Write to [email] or [phone] or [phone], card [card]; order 4111111111111112 of 2026-12-05 at 10:30, \
             3 items."
        ))
    );
    assert_eq!(echo(&host, "nothing personal"), Ok(json!("nothing personal")));
}

#[test]
fn the_rust_example_keeps_a_file_tool_inside_the_folders_it_allows() {
    let host = host_behind(example_policy("path-allow").env("ALLOW", "notes/, /workspace/docs"), "");
    let read = |path: &str| host.call("read_path", &json!({ "path": path }));
    // Allowed paths reach the tool (whose sandbox then denies them: nothing is granted).
    for path in ["notes/todo.txt", "./notes/a/../b.txt", "/workspace/docs/x.md"] {
        assert!(matches!(read(path), Err(ToolError::Denied { .. })), "{path}: {:?}", read(path));
    }
    let allowed = "('notes/', '/workspace/docs/')";
    for path in ["notes/../secrets.txt", "../notes/x", "/etc/passwd", "notesy/x", "/workspace/documents/x"] {
        let (policy, message) = refusal(read(path));
        assert_eq!(policy, "path-allow");
        assert_eq!(
            message,
            format!(
                "The path '{path}' is outside the folders this agent may use {allowed}; use a path inside one of them."
            ),
        );
    }
    // Arguments that name no path are not its business.
    assert_eq!(echo(&host, "../../etc"), Ok(json!("../../etc")));
    let nothing = host_behind(example_policy("path-allow"), "");
    let (_, message) = refusal(nothing.call("read_path", &json!({"path": "notes/a"})));
    assert_eq!(message, "The path 'notes/a' cannot be used: this agent may not use any folder.");
}

#[test]
fn the_python_example_keeps_secrets_out_of_arguments_and_results() {
    let token = format!("ghp_{}", "a1B2".repeat(9));
    let host = host_behind(example_policy("secret-guard"), &token);
    let (policy, message) = refusal(echo(&host, "deploy with AKIAIOSFODNN7EXAMPLE please"));
    assert_eq!(policy, "secret-guard");
    assert_eq!(
        message,
        "The call of 'echo' was not run: its argument at /text holds what looks like an AWS access key. Never pass \
         credentials to tools; call again without it."
    );
    assert!(!message.contains("AKIA"));
    let (_, message) = refusal(host.call("env_var", &json!({"name": "TOKEN"})));
    assert_eq!(message, "The result of 'env_var' was withheld: it held what looks like a GitHub token (at /value).");
    assert_eq!(echo(&host, "no secrets here, sk-short"), Ok(json!("no secrets here, sk-short")));
}
