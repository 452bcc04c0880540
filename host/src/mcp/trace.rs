//! OpenTelemetry spans of the MCP face: one `execute_tool {tool}` span per call, with
//! the attributes of OpenTelemetry's GenAI semantic conventions and the host's own
//! (the name as sent when it was repaired, the repairs, the outcome's kind), a child
//! of the caller's trace when the request carries W3C Trace Context — in `_meta`, as
//! MCP has it (SEP-414), or as HTTP headers. The library speaks only OpenTelemetry's
//! API: spans go to the tracer provider and propagator the application installed
//! (the `toolhost` command's: OTLP and W3C Trace Context), and nowhere without one.

use opentelemetry::propagation::Extractor;
use opentelemetry::trace::{Span, SpanKind, Status, Tracer};
use opentelemetry::{Context, KeyValue, global};
use rmcp::RoleServer;
use rmcp::service::RequestContext;

use super::Caller;
use crate::host::CallOutcome;

/// The longest error description a span carries (a corrective message can be long).
const MAX_DESCRIPTION: usize = 256;

/// The trace a call's span joins: the caller's, as its request carries it.
pub(crate) fn parent(context: &RequestContext<RoleServer>) -> Context {
    global::get_text_map_propagator(|propagator| propagator.extract(&Carried(context)))
}

/// A call's span, started: its name is the name sent until the call ends.
pub(crate) fn start(name: &str, caller: &Caller, parent: &Context) -> global::BoxedSpan {
    let tracer = global::tracer("toolhost");
    tracer
        .span_builder(format!("execute_tool {name}"))
        .with_kind(SpanKind::Internal)
        .with_attributes([
            KeyValue::new("gen_ai.operation.name", "execute_tool"),
            KeyValue::new("gen_ai.tool.type", "function"),
            KeyValue::new("gen_ai.tool.name", name.to_string()),
            KeyValue::new("toolhost.caller", caller.name().to_string()),
        ])
        .start_with_context(&tracer, parent)
}

/// Ends `span` with what the call came to.
pub(crate) fn end(mut span: global::BoxedSpan, outcome: &CallOutcome) {
    if let Some(tool) = &outcome.tool {
        span.update_name(format!("execute_tool {tool}"));
        span.set_attribute(KeyValue::new("gen_ai.tool.name", tool.clone()));
    }
    if let Some(sent) = &outcome.repaired_from {
        span.set_attribute(KeyValue::new("toolhost.tool.name_sent", sent.clone()));
    }
    span.set_attribute(KeyValue::new("toolhost.repairs", i64::try_from(outcome.repairs.len()).unwrap_or(i64::MAX)));
    span.set_attribute(KeyValue::new("toolhost.outcome", outcome.kind()));
    if let Err(error) = &outcome.result {
        span.set_attribute(KeyValue::new("error.type", error.kind()));
        let mut description = error.to_string();
        if description.len() > MAX_DESCRIPTION {
            let cut = (0..=MAX_DESCRIPTION).rev().find(|&at| description.is_char_boundary(at)).unwrap_or(0);
            description.truncate(cut);
        }
        span.set_status(Status::error(description));
    }
    span.end();
}

/// Where a request carries Trace Context: its `_meta` first, then its HTTP headers.
struct Carried<'a>(&'a RequestContext<RoleServer>);

impl Extractor for Carried<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        let meta = &self.0.meta;
        let in_meta = match key {
            "traceparent" => meta.get_traceparent(),
            "tracestate" => meta.get_tracestate(),
            _ => None,
        };
        in_meta.or_else(|| self.header(key))
    }

    fn keys(&self) -> Vec<&str> {
        vec!["traceparent", "tracestate"]
    }
}

impl Carried<'_> {
    #[cfg(feature = "http")]
    fn header(&self, key: &str) -> Option<&str> {
        let parts = self.0.extensions.get::<axum::http::request::Parts>()?;
        parts.headers.get(key)?.to_str().ok()
    }

    #[cfg(not(feature = "http"))]
    fn header(&self, _key: &str) -> Option<&str> {
        None
    }
}
