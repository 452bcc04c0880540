//! REST APIs as plugins (`NAME.openapi.toml`), against real servers: a FastAPI
//! application (tests/rest/inventory.py, its OpenAPI 3.1 written by FastAPI and
//! fetched from it) under uvicorn, and the Swagger Petstore (OpenAPI 3.0, from ReadMe's
//! `@readme/oas-examples` on npm) served by Stoplight's Prism mock server. Both are
//! installed pinned by scripts/install-mcp-servers.sh. Path, query, header and body
//! parameters, a bearer token and an API key, error answers, a timeout, redirects
//! inside and outside the allowed hosts, an image, drifted names and arguments
//! repaired, and operations a model cannot use skipped with the reason. And every
//! OpenAPI 3.x document of that collection loads without a panic, each operation a
//! tool or a warning saying why not.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use toolhost::{Content, Host, Repair, ToolError, ToolOrigin};

use crate::common;
use crate::process::{Process, serve_on_free_port};

/// The npm packages' folder.
fn node_modules() -> PathBuf {
    let folder = common::root().join("target/mcp-servers/node_modules");
    assert!(
        folder.join("@stoplight/prism-cli").is_dir() && folder.join("@readme/oas-examples").is_dir(),
        "Prism and the OpenAPI examples are missing: run scripts/install-mcp-servers.sh (scripts/test.sh does)"
    );
    folder
}

/// The inventory application under uvicorn, on a free loopback port.
fn inventory() -> (Process, u16) {
    let venv = common::root().join("target/rest-venv");
    assert!(venv.join("bin/uvicorn").is_file(), "{} is missing: run scripts/install-mcp-servers.sh", venv.display());
    serve_on_free_port("the FastAPI application", |port| {
        let mut command = Command::new(venv.join("bin/uvicorn"));
        command
            .args(["--app-dir", "tests/rest", "inventory:app", "--host", "127.0.0.1", "--log-level", "warning"])
            .args(["--port", &port.to_string()])
            .current_dir(common::root());
        command
    })
}

/// Prism serving `document` as a mock API, on a free loopback port.
fn prism(document: &Path) -> (Process, u16) {
    let entry = node_modules().join("@stoplight/prism-cli/dist/index.js");
    serve_on_free_port("Prism", |port| {
        let mut command = Command::new("node");
        command.arg(&entry).args(["mock", "-h", "127.0.0.1", "-p", &port.to_string()]).arg(document);
        command.stdout(std::process::Stdio::null());
        command
    })
}

/// A plugin folder with `files` (name, text) written in it.
fn folder_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let folder = tempfile::tempdir().expect("a folder");
    for (name, text) in files {
        std::fs::write(folder.path().join(name), text).expect("write");
    }
    folder
}

fn host_of(folder: &Path) -> Host {
    Host::builder().plugin_dir(folder).cache_dir(common::test_cache_dir()).build().expect("the host loads")
}

fn names(host: &Host) -> Vec<String> {
    let mut names: Vec<String> = host.tools().into_iter().map(|tool| tool.name).collect();
    names.sort();
    names
}

fn failure(host: &Host, name: &str, arguments: Value) -> ToolError {
    host.request(name).arguments(&arguments).run().result.expect_err("the call fails")
}

/// The inventory application, and a host with two plugin files for it: its items'
/// operations with a bearer token, its `stats` with an API key (both files secrets).
fn inventory_host() -> (Process, u16, tempfile::TempDir, Host) {
    let (app, port) = inventory();
    let base = format!("http://127.0.0.1:{port}");
    let inventory = format!(
        "document = \"{base}/openapi.json\"\ntimeout_ms = 1500\nexclude = [\"tag:stats\", \"tag:oauth\"]\n\
         [auth]\nbearer = {{ file = \"token.txt\" }}\n[tools.create_item]\ndefaults = {{ tags = [\"new\"] }}\n"
    );
    let stats = format!(
        "document = \"{base}/openapi.json\"\ninclude = [\"tag:stats\"]\n\
         [auth]\napi_key = {{ header = \"X-API-Key\", value = {{ file = \"key.txt\" }} }}\n"
    );
    let folder = folder_with(&[
        ("inventory.openapi.toml", &inventory),
        ("stats.openapi.toml", &stats),
        ("token.txt", "inventory-token\n"),
        ("key.txt", "stats-key"),
    ]);
    let host = host_of(folder.path());
    (app, port, folder, host)
}

#[test]
fn a_fastapi_applications_operations_are_tools_called_with_parameters_of_every_place() {
    let (_app, _port, folder, host) = inventory_host();
    assert_eq!(names(&host), ["chart", "create_item", "get_item", "moved", "search_items", "stats", "wait"]);
    let warnings = host.load_report().warnings.join("\n");
    assert!(
        warnings.contains("POST /items/{item_id}/photo is not a tool: it takes a file upload (multipart/form-data)"),
        "{warnings}"
    );
    assert!(warnings.contains("GET /events is not a tool: it answers with a stream"), "{warnings}");
    // Said once, by the file that chose them: `stats` includes only its own tag.
    assert_eq!(warnings.matches("is not a tool").count(), 2, "{warnings}");
    assert!(warnings.contains("inventory: GET /events") && !warnings.contains("stats: "), "{warnings}");
    // The documents fetched from their URL are pinned in the lock file: both files',
    // loaded at once.
    let lock = std::fs::read_to_string(folder.path().join("toolhost.lock")).expect("a lock file");
    assert_eq!(lock.matches("[[document]]").count(), 2, "{lock}");
    assert!(lock.contains("name = \"inventory\"") && lock.contains("name = \"stats\""), "{lock}");

    let spec = host.tools().into_iter().find(|tool| tool.name == "get_item").expect("get_item");
    assert!(matches!(&spec.origin, ToolOrigin::RestApi(operation) if operation.remote_name == "GET /items/{item_id}"));
    assert!(spec.annotations.read_only && !spec.annotations.destructive);
    assert_eq!(spec.component, "inventory");

    // Path, query and header parameters, with a drifted name, key and values repaired.
    let outcome =
        host.request("getItem").arguments(&json!({"itemId": "1", "verbose": "true", "x_trace_id": "t-9"})).run();
    let value = outcome.result.expect("get_item runs");
    assert_eq!(
        value,
        json!({"item": {"id": 1, "name": "lamp", "price": 25.0, "tags": ["light"]}, "verbose": true, "trace": "t-9"})
    );
    assert_eq!(outcome.tool.as_deref(), Some("get_item"));
    assert!(outcome.repairs.iter().any(|r| matches!(r, Repair::ToolName { .. })), "{:?}", outcome.repairs);
    assert!(outcome.repairs.iter().any(|r| matches!(r, Repair::Key { .. })), "{:?}", outcome.repairs);
    assert!(outcome.repairs.iter().any(|r| matches!(r, Repair::Value { .. })), "{:?}", outcome.repairs);

    // A JSON body from the tool's own parameters, with the file's default filled in.
    let made = host.call("create_item", &json!({"name": "chair", "price": 40})).expect("create_item runs");
    assert_eq!(made["name"], "chair");
    assert_eq!(made["tags"], json!(["new"]));
    assert!(made["id"].as_i64().is_some_and(|id| id >= 3), "{made}");

    // A query array, each item its own `tag=`.
    let found = host.call("search_items", &json!({"q": "amp", "tag": ["light"]})).expect("search runs");
    assert_eq!(found.as_array().map(Vec::len), Some(1), "{found}");
    // The API key of the other file.
    assert_eq!(host.call("stats", &json!({})).expect("stats runs")["items"].as_u64().map(|n| n >= 2), Some(true));
}

#[test]
fn a_fastapi_applications_errors_limits_redirects_and_images_reach_the_model_as_they_should() {
    let (_app, port, _folder, host) = inventory_host();
    // The document's own bounds are checked before anything is sent.
    let refused = failure(&host, "search_items", json!({"q": "a", "limit": 500}));
    assert!(matches!(refused, ToolError::InvalidValue { .. }), "{refused:?}");

    // The API's own error, with its status and words.
    let missing = failure(&host, "get_item", json!({"item_id": 999}));
    assert!(matches!(missing, ToolError::ApiFailed { status: Some(404), retry: false, .. }), "{missing:?}");
    assert!(missing.to_string().contains("there is no item 999"), "{missing}");

    // The file's time limit.
    let slow = failure(&host, "wait", json!({"seconds": 5}));
    assert!(matches!(slow, ToolError::TimedOut { .. }), "{slow:?}");

    // A redirect within the API is followed; one to another host is not.
    let within = host.call("moved", &json!({"to": "/items/2"})).expect("followed");
    assert_eq!(within["item"]["name"], "desk");
    let elsewhere = failure(&host, "moved", json!({"to": format!("http://localhost:{port}/items/2")}));
    let said = elsewhere.to_string();
    assert!(
        matches!(elsewhere, ToolError::ApiFailed { retry: false, .. })
            && said.contains("a host this plugin may not reach"),
        "{said}"
    );

    // An image is content.
    let chart = host.request("chart").run();
    assert!(chart.result.is_ok(), "{:?}", chart.result);
    assert!(
        matches!(chart.content.as_slice(), [Content::Image(media)] if media.mime_type == "image/png"),
        "{:?}",
        chart.content
    );
}

#[test]
fn an_access_token_is_got_with_client_credentials_from_a_real_authorization_server() {
    let issuer = crate::oauth::Issuer::start(None);
    let (_app, port) = inventory();
    let file = format!(
        "document = \"http://127.0.0.1:{port}/openapi.json\"\ninclude = [\"tag:oauth\"]\n\
         [auth.client_credentials]\ntoken_url = \"{}/token\"\nclient_id = \"agent\"\n\
         client_secret = {{ file = \"secret.txt\" }}\nscopes = [\"inventory:read\", \"inventory:write\"]\n",
        issuer.url
    );
    let folder = folder_with(&[("oauth.openapi.toml", &file), ("secret.txt", "agent-secret\n")]);
    let host = host_of(folder.path());
    for _ in 0..2 {
        let claims = host.call("whoami", &json!({})).expect("whoami runs");
        assert_eq!(claims, json!({"iss": issuer.url, "scope": "inventory:read inventory:write"}));
    }
    // A token endpoint that is not there: the call says so and names the file's table.
    let file = file.replace(&format!("{}/token", issuer.url), &format!("http://127.0.0.1:{port}/no-token-here"));
    let folder = folder_with(&[("oauth.openapi.toml", &file), ("secret.txt", "agent-secret\n")]);
    let error = failure(&host_of(folder.path()), "whoami", json!({}));
    let said = error.to_string();
    assert!(said.contains("could not get an access token") && said.contains("[auth.client_credentials]"), "{said}");
}

#[test]
fn wrong_credentials_and_a_dead_api_say_what_failed_and_whether_retrying_helps() {
    let (mut app, port) = inventory();
    let base = format!("http://127.0.0.1:{port}");
    let folder = folder_with(&[(
        "inventory.openapi.toml",
        &format!("document = \"{base}/openapi.json\"\n[auth]\nbearer = \"wrong\"\n"),
    )]);
    std::fs::copy(common::plugins_dir().join("calculator.wasm"), folder.path().join("calculator.wasm")).expect("copy");
    let host = host_of(folder.path());
    let refused = failure(&host, "get_item", json!({"item_id": 1}));
    assert!(matches!(refused, ToolError::ApiFailed { status: Some(401), retry: false, .. }), "{refused:?}");
    assert!(refused.to_string().contains("refused the plugin's credentials"), "{refused}");
    // The file's own limit on an answer's size.
    let small =
        format!("document = \"{base}/openapi.json\"\nmax_response_bytes = 40\n[auth]\nbearer = \"inventory-token\"\n");
    let limited = host_of(folder_with(&[("inventory.openapi.toml", &small)]).path());
    let large = failure(&limited, "get_item", json!({"item_id": 1}));
    assert!(matches!(large, ToolError::ResultTooLarge { limit_bytes: 40, .. }), "{large:?}");
    assert!(
        limited.call("stats", &json!({})).is_err_and(|e| matches!(e, ToolError::ApiFailed { status: Some(403), .. }))
    );
    app.kill();
    let dead = failure(&host, "get_item", json!({"item_id": 1}));
    assert!(matches!(dead, ToolError::ApiFailed { status: None, retry: true, .. }), "{dead:?}");
    assert!(dead.to_string().contains("could not be reached at 127.0.0.1"), "{dead}");
    // The rest of the host serves on.
    assert_eq!(host.call("gcd", &json!({"a": 12, "b": 18})).expect("the component runs"), json!(6));
}

/// The Swagger Petstore (OpenAPI 3.0, YAML) under Prism, and a host with three files
/// for it: the store's operations with an API key, the pets' with a bearer token, and
/// the inventory again without its key (renamed).
fn petstore_host() -> (Process, tempfile::TempDir, Host) {
    let examples = node_modules().join("@readme/oas-examples");
    let folder = tempfile::tempdir().expect("a folder");
    let document = folder.path().join("petstore.yaml");
    std::fs::copy(examples.join("3.0/yaml/petstore.yaml"), &document).expect("copy");
    let (prism, port) = prism(&document);
    let base = format!("http://127.0.0.1:{port}");
    let file = |auth: &str, choice: &str| {
        format!("document = \"petstore.yaml\"\nbase_url = \"{base}\"\n{choice}\n[auth]\n{auth}\n")
    };
    let files = [
        (
            "store.openapi.toml",
            file(
                "api_key = { header = \"api_key\", value = \"any-key\" }",
                "include = [\"getPetById\", \"getInventory\", \"placeOrder\", \"getUserByName\"]",
            ),
        ),
        ("pets.openapi.toml", file("bearer = \"any-token\"", "include = [\"tag:pet\"]\nexclude = [\"getPetById\"]")),
        (
            "nokey.openapi.toml",
            file(
                "bearer = \"x\"",
                "include = [\"getInventory\"]\n[tools.getInventory]\nname = \"inventory_without_key\"",
            ),
        ),
    ];
    for (name, text) in &files {
        std::fs::write(folder.path().join(name), text).expect("write");
    }
    let host = host_of(folder.path());
    (prism, folder, host)
}

#[test]
fn the_swagger_petstore_under_prism_takes_an_api_key_and_a_bearer_token() {
    let (_prism, _folder, host) = petstore_host();
    let warnings = host.load_report().warnings.join("\n");
    assert!(
        warnings.contains("POST /pet/{petId}/uploadImage is not a tool: it takes a file upload (multipart/form-data)"),
        "{warnings}"
    );
    let tools = names(&host);
    for expected in
        ["addPet", "findPetsByStatus", "getInventory", "getPetById", "inventory_without_key", "updatePetWithForm"]
    {
        assert!(tools.iter().any(|name| name == expected), "{expected} in {tools:?}");
    }
    assert!(!tools.iter().any(|name| name == "uploadFile"), "{tools:?}");

    // A path parameter with the API key in its header; the string repaired to the integer the schema asks.
    let pet = host.request("get_pet_by_id").arguments(&json!({"petId": "7"})).run();
    assert_eq!(pet.tool.as_deref(), Some("getPetById"));
    let pet = pet.result.expect("getPetById runs");
    assert!(pet["name"].is_string() && pet["photoUrls"].is_array(), "{pet}");
    // The same operation's security without its key: Prism answers 401.
    let keyless = failure(&host, "inventory_without_key", json!({}));
    assert!(matches!(keyless, ToolError::ApiFailed { status: Some(401), .. }), "{keyless:?}");
    assert!(host.call("getInventory", &json!({})).expect("with the key").is_object());

    // A path parameter is one segment: a `/` in it is escaped, and `..` refused.
    let user = host.call("getUserByName", &json!({"username": "a/../../store/inventory"})).expect("one segment");
    assert!(user.get("username").is_some(), "{user}");
    let climbing = failure(&host, "getUserByName", json!({"username": ".."}));
    assert!(climbing.to_string().contains("cannot take '..' as its path parameter 'username'"), "{climbing}");

    // A query array and a JSON body, with a bearer token (Prism checks the body against the schema).
    let found =
        host.call("findPetsByStatus", &json!({"status": ["available", "sold"]})).expect("findPetsByStatus runs");
    assert!(found.is_array(), "{found}");
    let order =
        host.call("placeOrder", &json!({"petId": 7, "quantity": "2", "status": "placed"})).expect("placeOrder runs");
    assert!(order.is_object(), "{order}");
    // The document gives adding a pet only one answer, 405 "Invalid input": the API's
    // error, with its status, after Prism checked the body against the schema.
    let added = failure(&host, "addPet", json!({"name": "rex", "photoUrls": ["https://example.com/rex.png"]}));
    assert!(matches!(added, ToolError::ApiFailed { status: Some(405), .. }), "{added:?}");
    let incomplete = failure(&host, "addPet", json!({"name": "rex"}));
    assert!(matches!(incomplete, ToolError::InvalidArguments { .. }), "{incomplete:?}");
    // A form body: checked by Prism too (a form it refused would be 422, not the document's 405).
    let form = failure(&host, "updatePetWithForm", json!({"petId": 7, "name": "max", "status": "sold"}));
    assert!(matches!(form, ToolError::ApiFailed { status: Some(405), .. }), "{form:?}");
}

#[test]
fn every_openapi_3_document_of_a_public_collection_loads_into_tools_or_reasons() {
    let examples = node_modules().join("@readme/oas-examples");
    let mut documents = 0;
    let mut tools = 0;
    for version in ["3.0", "3.1"] {
        for format in ["json", "yaml"] {
            let dir = examples.join(version).join(format);
            let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
                .expect("the examples")
                .map(|e| e.expect("an entry").path())
                .filter(|p| p.is_file())
                .collect();
            entries.sort();
            for path in entries {
                let folder = tempfile::tempdir().expect("a folder");
                let document = path.file_name().and_then(|n| n.to_str()).expect("a name").to_string();
                std::fs::copy(&path, folder.path().join(&document)).expect("copy");
                let file = format!("document = {document:?}\nbase_url = \"http://127.0.0.1:9\"\n");
                std::fs::write(folder.path().join("api.openapi.toml"), file).expect("write");
                let host = host_of(folder.path());
                let report = host.load_report();
                let operations = count_operations(&path);
                let skipped = report.warnings.iter().filter(|w| w.contains(" is not a tool: ")).count();
                let loaded = host.tools().len();
                let refused = report.warnings.iter().any(|w| w.contains("cannot be used"));
                assert!(
                    refused || loaded + skipped >= operations,
                    "{}: {operations} operations, {loaded} tools, warnings {:?}",
                    path.display(),
                    report.warnings
                );
                documents += 1;
                tools += loaded;
            }
        }
    }
    assert!(documents > 40 && tools > 100, "{documents} documents, {tools} tools");
}

/// How many operations a document (JSON or YAML) describes, counted by Python's YAML
/// reader (Debian's python3-yaml, else PyYAML of the virtualenv): a second reading.
fn count_operations(path: &Path) -> usize {
    let script = "import sys, json, yaml\n\
                  d = yaml.safe_load(open(sys.argv[1]))\n\
                  m = {'get','put','post','delete','options','head','patch','trace'}\n\
                  print(sum(1 for item in (d.get('paths') or {}).values() if isinstance(item, dict) for k in item if k in m))";
    let python = common::root().join("target/rest-venv/bin/python");
    let output = Command::new(python).args(["-c", script]).arg(path).output().expect("python runs");
    String::from_utf8_lossy(&output.stdout).trim().parse().unwrap_or(0)
}
