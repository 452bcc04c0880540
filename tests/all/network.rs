//! Outgoing HTTP through `wasi:http`: a host on the component's allow list is reached,
//! any other is refused with a message naming it and never sees a connection.

use crate::common::{self, LoopbackServer};

use std::time::Duration;

use serde_json::json;
use toolhost::{Host, HostBuilder, ToolError};

fn hostile(configure: impl FnOnce(HostBuilder) -> HostBuilder) -> Host {
    let builder = Host::builder().component_file(common::test_guest("hostile")).cache_dir(common::test_cache_dir());
    configure(builder).build().expect("hostile loads")
}

#[test]
fn an_allowed_host_is_reached() {
    let server = LoopbackServer::start(true, Duration::ZERO);
    let host = hostile(|b| b.allow_http("hostile", "127.0.0.1").expect("pattern"));
    assert_eq!(host.call("http_get", &json!({"url": server.url("127.0.0.1")})), Ok(json!("200 hello")));
    assert_eq!(server.connections(), 1);

    let exact_port = hostile(|b| b.allow_http("hostile", &format!("127.0.0.1:{}", server.port)).expect("pattern"));
    assert_eq!(exact_port.call("http_get", &json!({"url": server.url("127.0.0.1")})), Ok(json!("200 hello")));
    assert_eq!(server.connections(), 2);
}

#[test]
fn a_host_not_allowed_is_never_reached_and_the_message_names_it() {
    let server = LoopbackServer::start(true, Duration::ZERO);
    let port = server.port;
    let cases: [(&str, String, String); 3] = [
        ("nothing allowed", String::new(), "this tool may reach no hosts".to_string()),
        (
            "another port",
            format!("127.0.0.1:{}", port.wrapping_add(1)),
            format!("this tool may reach only '127.0.0.1:{}'", port.wrapping_add(1)),
        ),
        ("another name", "*.example.com".to_string(), "this tool may reach only '*.example.com'".to_string()),
    ];
    for (case, pattern, allowed) in cases {
        let host =
            hostile(|b| if pattern.is_empty() { b } else { b.allow_http("hostile", &pattern).expect("pattern") });
        let error = host.call("http_get", &json!({"url": server.url("127.0.0.1")})).expect_err(case);
        assert_eq!(
            error.to_string(),
            format!(
                "Tool 'http_get' was denied by its sandbox: an HTTP request to '127.0.0.1:{port}' ({allowed}). \
                 The tool reported: request failed: ErrorCode::HttpRequestDenied. Retrying will not help; only \
                 the tool's manifest can grant this access."
            ),
            "{case}"
        );
        assert!(matches!(&error, ToolError::Denied { denied, .. } if denied.len() == 1), "{case}: {error:?}");
        assert_eq!(host.call("echo", &json!({"text": "still here"})), Ok(json!("still here")));
    }
    assert_eq!(server.connections(), 0, "a denied request reached the server");
}

#[test]
fn a_server_that_never_answers_is_cut_off_at_the_time_limit() {
    let server = LoopbackServer::start(false, Duration::ZERO);
    let host = hostile(|b| {
        b.allow_http("hostile", "127.0.0.1").expect("pattern").limits(common::time_limit(Duration::from_millis(500)))
    });
    let error = host.call("http_get", &json!({"url": server.url("127.0.0.1")})).expect_err("no answer");
    assert_eq!(error.kind(), "timed_out", "{error}");
    assert_eq!(server.connections(), 1);
    assert_eq!(host.call("echo", &json!({"text": "after"})), Ok(json!("after")));
}
