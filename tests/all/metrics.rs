//! `toolhost serve --http --metrics-addr`: Prometheus metrics, scraped by a real
//! Prometheus (Debian's) whose query API then returns the calls the test made, by
//! tool and outcome, and the host's state.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common;
use crate::http::{Server, call, client, raw};
use crate::process::{Process, serve_on_free_port};

/// Prometheus in the foreground, its data in a folder of its own, scraping `target`
/// every second.
struct Prometheus {
    port: u16,
    _child: Process,
}

impl Prometheus {
    fn start(folder: &Path, target: u16) -> Prometheus {
        let binary = Path::new("/usr/bin/prometheus");
        assert!(
            binary.is_file(),
            "prometheus is not installed: `apt-get install prometheus` (scripts/test.sh does it)"
        );
        let config = folder.join("prometheus.yml");
        let scrape = format!(
            "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: toolhost\n    static_configs:\n      \
             - targets: [\"127.0.0.1:{target}\"]\n"
        );
        std::fs::write(&config, scrape).expect("write the config");
        let (child, port) = serve_on_free_port("prometheus", |port| {
            let mut command = Command::new(binary);
            command
                .arg(format!("--config.file={}", config.display()))
                .arg(format!("--storage.tsdb.path={}", folder.join("data").display()))
                .arg(format!("--web.listen-address=127.0.0.1:{port}"))
                .stdout(Stdio::null());
            command
        });
        Prometheus { port, _child: child }
    }

    /// The series a PromQL query returns now (empty while it has none, or is not up).
    fn query(&self, query: &str) -> Vec<Value> {
        if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            return Vec::new();
        }
        let query: String = query
            .bytes()
            .map(|b| if b.is_ascii_alphanumeric() || b == b'_' { (b as char).to_string() } else { format!("%{b:02X}") })
            .collect();
        let response = raw(self.port, &format!("GET /api/v1/query?query={query} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
        let answer: Value = serde_json::from_str(&response.body).unwrap_or(Value::Null);
        answer["data"]["result"].as_array().cloned().unwrap_or_default()
    }

    /// The series of `query` once they are `expected` in number (a bounded wait).
    fn wait_for(&self, query: &str, expected: usize) -> Vec<Value> {
        for _ in 0..150 {
            let series = self.query(query);
            if series.len() >= expected {
                return series;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        panic!("prometheus had no {expected} series of {query} within 30 s: {:?}", self.query(query));
    }
}

/// A series' value, as a number.
fn value(series: &Value) -> f64 {
    series["value"][1].as_str().and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("a value: {series}"))
}

#[test]
fn prometheus_scrapes_the_calls_by_tool_and_outcome_and_the_hosts_state() {
    let server = Server::start(&common::plugins_dir(), &["--metrics-addr", "127.0.0.1:0"]);
    server.wait_until_ready();
    let metrics_port = server.metrics_port.expect("the metrics address");
    tokio::runtime::Runtime::new().expect("a runtime").block_on(async {
        let client = client(&server.url(), None, None).await;
        for (name, arguments) in [
            ("evaluate", json!({"expression": "1+1"})),
            ("Evaluate", json!({"expression": "2*3"})),
            ("evaluate", json!({"expression": "2^"})),
            ("factorial", json!({"n": 30})),
            ("no_such_tool", json!({})),
        ] {
            client.call_tool(call(name, arguments)).await.expect("tools/call");
        }
        client.cancel().await.expect("the client closes");
    });

    // What the endpoint says, as Prometheus's text parser reads it.
    let scraped = raw(metrics_port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    assert_eq!(scraped.status, 200);
    assert!(scraped.head.contains("content-type: application/openmetrics-text"), "{}", scraped.head);
    assert!(
        scraped.body.contains("toolhost_tool_calls_total{tool=\"evaluate\",outcome=\"ok\"} 2\n"),
        "{}",
        scraped.body
    );
    assert!(scraped.body.ends_with("# EOF\n"), "{}", scraped.body);

    let folder = tempfile::tempdir().expect("temporary folder");
    let prometheus = Prometheus::start(folder.path(), metrics_port);
    let calls = prometheus.wait_for("toolhost_tool_calls_total", 4);
    let count = |tool: &str, outcome: &str| {
        let found = calls.iter().find(|s| {
            s["metric"]["tool"].as_str().unwrap_or("") == tool && s["metric"]["outcome"].as_str() == Some(outcome)
        });
        found.map_or(0.0, value)
    };
    assert_eq!(count("evaluate", "ok"), 2.0, "{calls:?}");
    assert_eq!(count("evaluate", "tool_failed"), 1.0, "{calls:?}");
    assert_eq!(count("factorial", "tool_failed"), 1.0, "{calls:?}");
    // A made-up name is no label: the call counts under no tool.
    assert_eq!(count("", "unknown_tool"), 1.0, "{calls:?}");
    let durations = prometheus.wait_for("toolhost_tool_call_duration_seconds_count{tool=\"evaluate\"}", 1);
    assert_eq!(value(&durations[0]), 3.0);
    let components = prometheus.wait_for("toolhost_components", 1);
    let loaded = std::fs::read_dir(common::plugins_dir()).expect("the plugins").count();
    assert!(value(&components[0]) >= 1.0 && value(&components[0]) <= loaded as f64, "{components:?}");
    assert!(value(&prometheus.wait_for("toolhost_tools", 1)[0]) > 5.0);
    assert_eq!(value(&prometheus.wait_for("toolhost_mcp_server_restarts_total", 1)[0]), 0.0);
}
