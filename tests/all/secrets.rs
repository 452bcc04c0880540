//! Secrets per component: `toolhost secret set|list|rm` keep them in private files,
//! a component's calls (and no other's) see its own as environment variables and
//! through `wasi:config/store`, a secret set while the host runs is used by the next
//! call, and their values appear in no output of a run that uses them: the server's
//! debug log, the audit log with arguments, the spans it exports, the error the model
//! reads, `config check`.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::json;

use crate::common::{self, test_guest};
use crate::http::{Server, call, client};

/// The secret the tests keep: long enough to be found anywhere it leaks.
const VALUE: &str = "k3y-VALUE-that-must-never-show-0417";

/// `toolhost secret ARGS` over the secrets folder `dir`, `stdin` written to it.
fn secret(dir: &Path, args: &[&str], stdin: &str) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .arg("secret")
        .args(args)
        .env("TOOLHOST_SECRETS_DIR", dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("toolhost runs");
    child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("write the value");
    child.wait_with_output().expect("toolhost ends")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_command_keeps_secrets_in_private_files_and_never_prints_them() {
    let folder = tempfile::tempdir().expect("a folder");
    let dir = folder.path().join("secrets");
    let set = secret(&dir, &["set", "hostile", "API_KEY"], &format!("{VALUE}\n"));
    assert!(set.status.success(), "{}", text(&set.stderr));
    let stored = std::fs::read_to_string(dir.join("hostile/API_KEY")).expect("the file");
    assert_eq!(stored, VALUE, "one trailing newline is dropped");
    let mode =
        |path: &Path| std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(path).expect("it").permissions());
    assert_eq!((mode(&dir.join("hostile/API_KEY")) & 0o777, mode(&dir.join("hostile")) & 0o777), (0o600, 0o700));
    let value_file = folder.path().join("value");
    std::fs::write(&value_file, "from a file").expect("write");
    let from_file = secret(&dir, &["set", "other", "TOKEN", "--from-file", value_file.to_str().expect("UTF-8")], "");
    assert!(from_file.status.success(), "{}", text(&from_file.stderr));
    let list = secret(&dir, &["list"], "");
    assert_eq!(text(&list.stdout), "hostile API_KEY\nother TOKEN\n");
    assert_eq!(text(&secret(&dir, &["list", "other"], "").stdout), "other TOKEN\n");
    // A value is never an argument (clap refuses the extra one), and a name that is no
    // variable is refused.
    let as_argument = secret(&dir, &["set", "hostile", "API_KEY", "a-value"], "");
    assert_eq!(as_argument.status.code(), Some(2));
    let bad = secret(&dir, &["set", "hostile", "API-KEY"], "x");
    assert!(text(&bad.stderr).contains("'API-KEY' cannot name a secret"), "{}", text(&bad.stderr));
    for output in [&set, &from_file, &list, &bad] {
        assert!(!text(&output.stdout).contains(VALUE) && !text(&output.stderr).contains(VALUE));
    }
    assert!(secret(&dir, &["rm", "other", "TOKEN"], "").status.success());
    assert_eq!(secret(&dir, &["rm", "other", "TOKEN"], "").status.code(), Some(1));
    assert_eq!(text(&secret(&dir, &["list"], "").stdout), "hostile API_KEY\n");
}

#[test]
fn a_components_calls_see_its_secrets_and_no_output_of_the_run_shows_them() {
    let folder = tempfile::tempdir().expect("a folder");
    let (plugins, dir) = (folder.path().join("plugins"), folder.path().join("secrets"));
    std::fs::create_dir(&plugins).expect("a plugin folder");
    std::fs::copy(test_guest("hostile"), plugins.join("hostile.wasm")).expect("copy");
    std::fs::copy(test_guest("hostile"), plugins.join("other.wasm")).expect("copy");
    assert!(secret(&dir, &["set", "hostile", "API_KEY"], VALUE).status.success());
    let audit = folder.path().join("audit.log");
    let options = [
        "--audit-log",
        audit.to_str().expect("UTF-8"),
        "--audit-arguments",
        "--secrets-dir",
        dir.to_str().expect("UTF-8"),
    ];
    // Every crate at info, toolhost at debug (all of wasmtime's debug lines would pass the
    // 10,000 lines the test keeps before the calls).
    let server = Server::start_with_env(&plugins, &options, &[("TOOLHOST_LOG", "info,toolhost=debug")]);
    server.wait_until_ready();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let texts: Vec<String> = runtime.block_on(async {
        let client = client(&server.url(), None, None).await;
        let mut texts = Vec::new();
        // Two components share the tool, so each is known by its qualified name.
        for tool in ["hostile/use_secret", "other/use_secret"] {
            let result = client.call_tool(call(tool, json!({"name": "API_KEY"}))).await.expect("tools/call");
            texts.push(serde_json::to_value(&result.content).expect("JSON")[0]["text"].as_str().unwrap_or("").into());
        }
        client.cancel().await.expect("the client closes");
        texts
    });
    // The component's call had it (and quoted it, redacted); the other never saw it.
    assert_eq!(texts, ["the service refused the key [secret API_KEY]", "API_KEY is not set"]);
    assert!(server.said("[secret API_KEY]") >= 2, "the guest's output and log line were logged, redacted");
    assert_eq!(server.said(VALUE), 0, "the value is in the server's log");
    let audit = std::fs::read_to_string(&audit).expect("the audit log");
    assert!(audit.contains("use_secret") && !audit.contains(VALUE), "{audit}");
}

#[test]
fn a_secret_its_manifest_needs_and_that_is_not_set_is_named_with_the_command_that_sets_it() {
    let folder = tempfile::tempdir().expect("a folder");
    std::fs::copy(test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    std::fs::write(folder.path().join("hostile.toml"), "secrets = [\"API_KEY\"]\n").expect("the manifest");
    let host = toolhost::Host::builder()
        .plugin_dir(folder.path())
        .cache_dir(common::test_cache_dir())
        .secrets_dir(folder.path().join("no-secrets"))
        .build()
        .expect("the host builds");
    let refused = host.call("echo", &json!({"text": "hi"})).expect_err("refused");
    assert_eq!(
        refused.to_string(),
        "Tool 'echo' could not be run: it needs the secret 'API_KEY', which is not set: set it with `toolhost secret \
         set hostile API_KEY` (the value on stdin). This is a problem with the tool, not the arguments."
    );
    let given = toolhost::Host::builder()
        .plugin_dir(folder.path())
        .cache_dir(common::test_cache_dir())
        .secret("hostile", "API_KEY", VALUE)
        .build()
        .expect("the host builds");
    assert_eq!(given.call("echo", &json!({"text": "hi"})), Ok(json!("hi")));
    let used = given.call("use_secret", &json!({"name": "API_KEY"})).expect_err("the tool fails");
    assert_eq!(used.to_string(), "the service refused the key [secret API_KEY]");
}

#[test]
fn a_secret_set_while_the_host_runs_is_used_from_the_next_call_on_and_read_through_wasi_config() {
    let folder = tempfile::tempdir().expect("a folder");
    std::fs::copy(test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    std::fs::write(folder.path().join("hostile.toml"), "secrets = [\"API_KEY\"]\n").expect("the manifest");
    let dir = folder.path().join("secrets");
    // Instances are made ahead (two by default): one made before a change must not
    // serve a call after it.
    let host = toolhost::Host::builder()
        .plugin_dir(folder.path())
        .cache_dir(common::test_cache_dir())
        .secrets_dir(&dir)
        .build()
        .expect("the host builds");
    let config_secret = |name: &str| host.call("config_secret", &json!({"name": name}));
    assert!(host.call("echo", &json!({"text": "hi"})).is_err(), "refused while API_KEY is not set");

    let store = toolhost::SecretStore::new(&dir);
    store.set("hostile", "API_KEY", VALUE).expect("set");
    for _ in 0..3 {
        assert_eq!(host.call("echo", &json!({"text": "hi"})), Ok(json!("hi")));
        assert_eq!(config_secret("API_KEY"), Ok(json!(format!("{} characters; all: API_KEY", VALUE.len()))));
    }
    store.set("hostile", "OTHER", "other-value").expect("set");
    store.set("hostile", "API_KEY", "shorter").expect("replace");
    for _ in 0..3 {
        assert_eq!(config_secret("API_KEY"), Ok(json!("7 characters; all: API_KEY,OTHER")));
        assert_eq!(
            host.call("env_var", &json!({"name": "API_KEY"})),
            Ok(json!("shorter")),
            "the environment is the secrets' as they are now"
        );
    }
    // A key that is not set: the store's error names the command that sets it.
    let unset = config_secret("MISSING").expect_err("the tool fails");
    assert_eq!(
        unset.to_string(),
        "the secret 'MISSING' is not set for the component 'hostile': set it with `toolhost secret set hostile \
         MISSING` (the value on stdin)"
    );
    assert!(store.remove("hostile", "API_KEY").expect("remove"));
    for _ in 0..3 {
        let refused = host.call("echo", &json!({"text": "hi"})).expect_err("refused again");
        assert!(refused.to_string().contains("`toolhost secret set hostile API_KEY`"), "{refused}");
    }
}

#[test]
fn a_secret_never_reaches_the_spans_a_server_exports() {
    let (port, received, _runtime) = crate::spans::receiver();
    let folder = tempfile::tempdir().expect("a folder");
    let (plugins, dir) = (folder.path().join("plugins"), folder.path().join("secrets"));
    std::fs::create_dir(&plugins).expect("a plugin folder");
    std::fs::copy(test_guest("hostile"), plugins.join("hostile.wasm")).expect("copy");
    assert!(secret(&dir, &["set", "hostile", "API_KEY"], VALUE).status.success());
    let endpoint = format!("http://127.0.0.1:{port}");
    let options = ["--otlp-endpoint", endpoint.as_str(), "--secrets-dir", dir.to_str().expect("UTF-8")];
    let server = Server::start_with_env(&plugins, &options, &[("OTEL_BSP_SCHEDULE_DELAY", "100")]);
    server.wait_until_ready();
    for (tool, arguments) in [("use_secret", json!({"name": "API_KEY"})), ("echo", json!({"text": VALUE}))] {
        crate::spans::call(&server, "", tool, arguments, json!({}));
    }
    let spans = crate::spans::wait_for(&received, 2);
    assert_eq!(spans.len(), 2, "{spans:?}");
    let message = spans[0].status.as_ref().map(|status| status.message.as_str());
    assert_eq!(message, Some("the service refused the key [secret API_KEY]"), "the failed call's span says why");
    // A span carries no arguments or results: not even a value the caller sent itself.
    assert!(!format!("{spans:?}").contains(VALUE), "{spans:?}");
}

#[test]
fn config_check_names_the_secrets_it_gives_and_never_shows_them() {
    let folder = tempfile::tempdir().expect("a folder");
    let config = folder.path().join("toolhost.toml");
    std::fs::write(folder.path().join("key"), VALUE).expect("write");
    let written = "[secrets.hostile]\nAPI_KEY = \"${SECRETS_TEST_KEY}\"\nOTHER = { file = \"key\" }\n";
    std::fs::write(&config, written).expect("write the config");
    let check = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["config", "check"])
        .arg(&config)
        .env("SECRETS_TEST_KEY", VALUE)
        .output()
        .expect("toolhost runs");
    let (stdout, stderr) = (text(&check.stdout), text(&check.stderr));
    assert!(check.status.success(), "{stderr}");
    let from_file = folder.path().join("key");
    let line = format!("secrets of hostile: API_KEY (from its variable), OTHER (from {})", from_file.display());
    assert!(stdout.contains(&line), "{stdout}");
    assert!(!stdout.contains(VALUE) && !stderr.contains(VALUE));
    let unset = Command::new(env!("CARGO_BIN_EXE_toolhost")).args(["config", "check"]).arg(&config).output();
    let unset = unset.expect("toolhost runs");
    assert_eq!(unset.status.code(), Some(2));
    assert!(text(&unset.stderr).contains("[secrets.hostile] API_KEY"), "{}", text(&unset.stderr));
}
