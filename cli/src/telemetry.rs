//! `toolhost serve`'s OpenTelemetry: with an OTLP endpoint (`--otlp-endpoint`,
//! `[tracing] otlp_endpoint`, or OpenTelemetry's own `OTEL_EXPORTER_OTLP_ENDPOINT`),
//! every tool call's span (see the library's `mcp/trace.rs`) is exported over OTLP
//! (HTTP, protobuf) in batches, and W3C Trace Context in a request parents it.

use anyhow::Context;
use opentelemetry::global;
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;

/// The exporter while the server runs; dropping it sends what is left.
pub(crate) struct Telemetry(Option<SdkTracerProvider>);

impl Telemetry {
    /// Whether calls are spans.
    pub(crate) fn tracing(&self) -> bool {
        self.0.is_some()
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Some(provider) = self.0.take()
            && let Err(error) = provider.shutdown()
        {
            eprintln!("warning: the last spans could not be exported: {error}");
        }
    }
}

/// Starts exporting to `endpoint` (the collector's base URL; `/v1/traces` is added),
/// else to where OpenTelemetry's variables say, else nowhere.
pub(crate) fn start(endpoint: Option<&str>) -> anyhow::Result<Telemetry> {
    let from_environment = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]
        .iter()
        .any(|variable| std::env::var_os(variable).is_some_and(|value| !value.is_empty()));
    if endpoint.is_none() && !from_environment {
        return Ok(Telemetry(None));
    }
    let mut exporter = opentelemetry_otlp::SpanExporter::builder().with_http().with_protocol(Protocol::HttpBinary);
    if let Some(endpoint) = endpoint {
        exporter = exporter.with_endpoint(format!("{}/v1/traces", endpoint.trim_end_matches('/')));
    }
    let exporter = exporter.build().context("cannot set up the OTLP exporter")?;
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(Resource::builder().with_service_name("toolhost").build())
        .build();
    global::set_tracer_provider(provider.clone());
    global::set_text_map_propagator(TraceContextPropagator::new());
    Ok(Telemetry(Some(provider)))
}
