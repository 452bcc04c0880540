//! Prometheus metrics of the MCP face: tool calls by tool and outcome, and their
//! durations, counted as they end; and, read from the host at each scrape, what it
//! holds and does (components, MCP server plugins, tools, calls running and waiting,
//! instances ready, MCP server plugin restarts). Encoded in the OpenMetrics text
//! format, which Prometheus scrapes.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use crate::host::{CallOutcome, Host};

/// The metrics of one server: register the host with [`Metrics::watch`], scrape
/// with [`Metrics::encode`].
///
/// ```no_run
/// # let host = toolhost::Host::builder().plugin_dir("target/plugins").build()?;
/// use std::sync::Arc;
/// use toolhost::mcp::{McpServer, Metrics};
///
/// let metrics = Arc::new(Metrics::new());
/// let server = McpServer::new(host).with_metrics(Some(metrics.clone()));
/// // Serve `server`; answer each scrape with:
/// let text = metrics.encode(); // Content-Type: Metrics::CONTENT_TYPE
/// assert!(text.contains("# TYPE toolhost_tools gauge") && text.ends_with("# EOF\n"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Metrics {
    registry: Registry,
    calls: Family<CallLabels, Counter>,
    durations: Family<ToolLabel, Histogram>,
    host: Arc<OnceLock<Host>>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

/// A call's labels: the tool it reached (empty for a name that is no tool's: the
/// names a model makes up are not labels), and `ok` or its error's kind.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    tool: String,
    outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabel {
    tool: String,
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

impl Metrics {
    /// The metrics, none counted yet.
    pub fn new() -> Metrics {
        let mut registry = Registry::default();
        let calls = Family::<CallLabels, Counter>::default();
        registry.register(
            "toolhost_tool_calls",
            "Tool calls, by tool and outcome (ok or the error's kind)",
            calls.clone(),
        );
        // 100 µs to about 26 s, by fours.
        let durations =
            Family::<ToolLabel, Histogram>::new_with_constructor(|| Histogram::new(exponential_buckets(1e-4, 4.0, 10)));
        let help = "How long tool calls took, in seconds, from the request to the result";
        registry.register("toolhost_tool_call_duration_seconds", help, durations.clone());
        let host = Arc::new(OnceLock::new());
        registry.register_collector(Box::new(HostCollector(host.clone())));
        Metrics { registry, calls, durations, host }
    }

    /// Reads what `host` holds and does at each scrape (the first host given).
    pub fn watch(&self, host: &Host) {
        let _ = self.host.set(host.clone());
    }

    /// Every metric, in the OpenMetrics text format (see [`Metrics::CONTENT_TYPE`]).
    pub fn encode(&self) -> String {
        let mut text = String::new();
        if let Err(error) = prometheus_client::encoding::text::encode(&mut text, &self.registry) {
            tracing::error!("the metrics could not be encoded: {error}");
        }
        text
    }

    /// The `Content-Type` of [`Metrics::encode`]'s text.
    pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    /// Counts one call that ended with `outcome` after `took`.
    pub(crate) fn record(&self, outcome: &CallOutcome, took: Duration) {
        let tool = outcome.tool.clone().unwrap_or_default();
        let labels = CallLabels { tool: tool.clone(), outcome: outcome.kind().to_string() };
        self.calls.get_or_create(&labels).inc();
        self.durations.get_or_create(&ToolLabel { tool }).observe(took.as_secs_f64());
    }
}

/// What the host holds and does, read at each scrape.
struct HostCollector(Arc<OnceLock<Host>>);

impl std::fmt::Debug for HostCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostCollector").field("loaded", &self.0.get().is_some()).finish()
    }
}

impl Collector for HostCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        // Before the host has loaded there is nothing to say of it.
        let Some(host) = self.0.get() else { return Ok(()) };
        let stats = host.stats();
        let gauges = [
            ("toolhost_components", "Components loaded", stats.components),
            ("toolhost_mcp_servers", "MCP servers served as plugins", stats.mcp_servers),
            ("toolhost_tools", "Tools served", stats.tools),
            ("toolhost_calls_running", "Tool calls running", stats.running_calls),
            ("toolhost_calls_queued", "Tool calls waiting for a slot", stats.queued_calls),
            ("toolhost_instances_ready", "Instances made ahead of their calls", stats.ready_instances),
        ];
        for (name, help, value) in gauges {
            let gauge = ConstGauge::new(i64::try_from(value).unwrap_or(i64::MAX));
            gauge.encode(encoder.encode_descriptor(name, help, None, gauge.metric_type())?)?;
        }
        let restarts = ConstCounter::new(stats.mcp_server_restarts);
        let help = "Times the MCP server plugins served now were started again after their first start";
        restarts.encode(encoder.encode_descriptor(
            "toolhost_mcp_server_restarts",
            help,
            None,
            restarts.metric_type(),
        )?)
    }
}
