//! `toolhost serve --http --otlp-endpoint`: a span per tool call, exported over OTLP
//! (HTTP, protobuf) to a receiver built here on OpenTelemetry's own protocol
//! definitions (`opentelemetry-proto`), parented by the W3C Trace Context the request
//! carries in `_meta` or in its headers.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use opentelemetry_proto::tonic::collector::trace::v1::{ExportTraceServiceRequest, ExportTraceServiceResponse};
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::{Span, span::SpanKind, status::StatusCode};
use prost::Message;
use serde_json::json;

use crate::common;
use crate::http::{Server, post as post_mcp};

/// The spans an OTLP receiver got, in order.
pub(crate) type Received = Arc<Mutex<Vec<Span>>>;

/// Serves OTLP's `POST /v1/traces` on a loopback port of a runtime of its own.
pub(crate) fn receiver() -> (u16, Received, tokio::runtime::Runtime) {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("a runtime");
    let received = Received::default();
    let app = Router::new().route("/v1/traces", post(export)).with_state(received.clone());
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("a loopback port");
    let port = listener.local_addr().expect("its address").port();
    runtime.spawn(async move { axum::serve(listener, app).await.expect("the receiver serves") });
    (port, received, runtime)
}

async fn export(State(received): State<Received>, body: Bytes) -> Vec<u8> {
    let request = ExportTraceServiceRequest::decode(body).expect("an OTLP trace export");
    let spans = request.resource_spans.into_iter().flat_map(|r| r.scope_spans).flat_map(|s| s.spans);
    received.lock().expect("the spans").extend(spans);
    ExportTraceServiceResponse::default().encode_to_vec()
}

/// A span's attribute as text (numbers as their digits).
fn attribute(span: &Span, key: &str) -> Option<String> {
    let value = span.attributes.iter().find(|kv| kv.key == key)?.value.as_ref()?.value.as_ref()?;
    match value {
        AnyValue::StringValue(text) => Some(text.clone()),
        AnyValue::IntValue(n) => Some(n.to_string()),
        other => Some(format!("{other:?}")),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What `received` holds once it holds `count` spans (or after 10 s).
pub(crate) fn wait_for(received: &Received, count: usize) -> Vec<Span> {
    for _ in 0..100 {
        let spans = received.lock().expect("the spans").clone();
        if spans.len() >= count {
            return spans;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    received.lock().expect("the spans").clone()
}

/// A stateless `tools/call` with these extra header lines and `_meta` fields.
pub(crate) fn call(server: &Server, headers: &str, name: &str, arguments: serde_json::Value, meta: serde_json::Value) {
    let mut meta = meta;
    meta["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({});
    let params = json!({"name": name, "arguments": arguments, "_meta": meta});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).to_string();
    let headers =
        format!("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: {name}\r\n{headers}");
    let response = post_mcp(server.port, &headers, &body);
    assert_eq!(response.status, 200, "{}", response.body);
}

#[test]
fn each_call_is_a_span_exported_over_otlp_in_the_callers_trace() {
    let (port, received, _runtime) = receiver();
    let endpoint = format!("http://127.0.0.1:{port}");
    let options = ["--otlp-endpoint", endpoint.as_str()];
    // Batches every 100 ms rather than every 5 s.
    let server = Server::start_with_env(&common::plugins_dir(), &options, &[("OTEL_BSP_SCHEDULE_DELAY", "100")]);
    server.wait_until_ready();

    let (in_header, in_meta) = ("4bf92f3577b34da6a3ce929d0e0e4736", "0af7651916cd43dd8448eb211c80319c");
    let header = format!("traceparent: 00-{in_header}-00f067aa0ba902b7-01\r\n");
    call(&server, &header, "evaluate", json!({"expression": "6*7"}), json!({}));
    let meta = json!({"traceparent": format!("00-{in_meta}-b7ad6b7169203331-01")});
    call(&server, "", "Evaluate", json!({"expression": "1+1"}), meta);
    call(&server, "", "factorial", json!({"n": 30}), json!({}));

    let spans = wait_for(&received, 3);
    assert_eq!(spans.len(), 3, "{spans:?}");
    let (first, second, third) = (&spans[0], &spans[1], &spans[2]);

    // Parented by the header's traceparent; GenAI's attributes.
    assert_eq!(first.name, "execute_tool evaluate");
    assert_eq!((hex(&first.trace_id), hex(&first.parent_span_id)), (in_header.into(), "00f067aa0ba902b7".into()));
    assert_eq!(first.kind, SpanKind::Internal as i32);
    assert_eq!(attribute(first, "gen_ai.operation.name").as_deref(), Some("execute_tool"));
    assert_eq!(attribute(first, "gen_ai.tool.name").as_deref(), Some("evaluate"));
    assert_eq!(attribute(first, "toolhost.outcome").as_deref(), Some("ok"));
    assert_eq!(attribute(first, "toolhost.caller").as_deref(), Some("anonymous"));
    assert!(first.end_time_unix_nano >= first.start_time_unix_nano);

    // Parented by _meta's traceparent (MCP's SEP-414); the repair is on the span.
    assert_eq!(second.name, "execute_tool evaluate");
    assert_eq!((hex(&second.trace_id), hex(&second.parent_span_id)), (in_meta.into(), "b7ad6b7169203331".into()));
    assert_eq!(attribute(second, "toolhost.tool.name_sent").as_deref(), Some("Evaluate"));
    assert_eq!(attribute(second, "toolhost.repairs").as_deref(), Some("1"));

    // Without Trace Context: a trace of its own. A failed call is an error span.
    assert_eq!(third.name, "execute_tool factorial");
    assert!(third.parent_span_id.is_empty(), "{third:?}");
    assert!(![in_header, in_meta].contains(&hex(&third.trace_id).as_str()));
    assert_eq!(attribute(third, "error.type").as_deref(), Some("tool_failed"));
    let status = third.status.as_ref().expect("a status");
    assert_eq!(status.code, StatusCode::Error as i32);
    assert!(!status.message.is_empty() && status.message.len() <= 256, "{status:?}");
}
