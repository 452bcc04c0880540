//! The floor of MCP over HTTP, for `benches/peers/compare-http.sh`: a server on the
//! same stack as `toolhost serve --http` (tokio on two worker threads, hyper through
//! axum, serde_json) that answers every stateless `tools/call` of `echo` as toolhost
//! does, with no MCP library behind it. What it costs a call is what any server on
//! this stack pays for the connection, HTTP and JSON. Given a plugin folder, it runs
//! the call through a [`toolhost::Host`] (the library's sandboxed call) instead of
//! answering at once: the floor plus the call, still without an MCP library.
//!
//! ```text
//! cargo run --release -p toolhost --features http --example http_floor -- PORT [PLUGINS]
//! ```

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port: u16 = std::env::args().nth(1).ok_or("usage: http_floor PORT [PLUGINS]")?.parse()?;
    let host = match std::env::args().nth(2) {
        Some(plugins) => Some(toolhost::Host::builder().plugin_dir(plugins).build()?),
        None => None,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
        axum::serve(listener, Router::new().route("/mcp", post(answer)).with_state(host)).await
    })?;
    Ok(())
}

/// Parses the request and answers a `tools/call` with its `text` argument, as
/// toolhost answers a call of `echo` (through `host`'s call, when there is one).
async fn answer(State(host): State<Option<toolhost::Host>>, body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "not JSON").into_response();
    };
    let arguments = &request["params"]["arguments"];
    let text = match &host {
        Some(host) => match host.request("echo").arguments(arguments).run_async().await.result {
            Ok(value) => value,
            Err(error) => return (StatusCode::INTERNAL_SERVER_ERROR, error.to_string()).into_response(),
        },
        None => arguments["text"].clone(),
    };
    let result = json!({
        "jsonrpc": "2.0",
        "id": request["id"],
        "result": {
            "resultType": "complete",
            "content": [{"type": "text", "text": text.to_string()}],
            "structuredContent": {"result": text},
            "isError": false,
        },
    });
    ([(header::CONTENT_TYPE, "application/json")], result.to_string()).into_response()
}
