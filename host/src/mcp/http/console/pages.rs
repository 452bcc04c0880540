//! The console's pages as HTML (Try's are `attempt.rs`'s), written with maud, which
//! escapes every value it puts in a page: a tool's description, a model's text and a
//! tool's result are untrusted, and show as text.

use maud::{DOCTYPE, Markup, html};
use serde_json::Value;

use super::{CallFilter, Viewer};
use crate::host::{HostStats, McpServerState};
use crate::load::{ComponentReport, LoadReport};
use crate::mcp::recent::{BUCKET, Bucket, CallRecord};
use crate::sandbox::{Grants, Limits};
use crate::tool::{ToolOrigin, ToolSpec};

/// A page as an answer.
pub(super) struct Page(Markup);

impl axum::response::IntoResponse for Page {
    fn into_response(self) -> axum::response::Response {
        let headers = [(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")];
        (headers, self.0.into_string()).into_response()
    }
}

/// The frame around every page: its title, the navigation, who is signed in.
pub(super) fn layout(title: &str, viewer: Option<&Viewer>, body: Markup) -> Page {
    framed(title, viewer, body, false)
}

/// [`layout`], the page reloading itself every few seconds when `live`.
fn framed(title: &str, viewer: Option<&Viewer>, body: Markup, live: bool) -> Page {
    Page(html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                @if live { meta http-equiv="refresh" content="3"; }
                title { (title) " · toolhost" }
                link rel="stylesheet" href="/console/console.css";
                // No icon to fetch from the server's root, which is not the console's.
                link rel="icon" href="data:,";
            }
            body {
                header {
                    span.brand { "toolhost" }
                    @if let Some(viewer) = viewer {
                        nav {
                            a href="/console/tools" { "Tools" }
                            a href="/console/try" { "Try" }
                            a href="/console/calls" { "Calls" }
                            a href="/console/health" { "Health" }
                        }
                        span.who { "as " (viewer.caller.name()) }
                        @if viewer.signed_in {
                            form method="post" action="/console/sign-out" {
                                button type="submit" { "Sign out" }
                            }
                        }
                    }
                }
                main { h1 { (title) } (body) }
            }
        }
    })
}

/// A page that only says something.
pub(super) fn message(title: &str, text: &str) -> Page {
    layout(title, None, html! { p { (text) } })
}

/// The sign-in form, with why the last try failed; `remote`: the page is not on
/// loopback, where the session's cookie needs HTTPS.
pub(super) fn sign_in(requires_token: bool, remote: bool, failed: Option<&str>) -> Page {
    let body = html! {
        @if !requires_token {
            p { "This server asks for no token: " a href="/console/tools" { "go to the tools" } "." }
        } @else {
            p { "Sign in with a token this server takes: a static token, or an OAuth access token. "
                "It is sent once, in this form, and never appears in an address." }
            @if remote {
                p.muted { "Away from this machine the session's cookie is sent over HTTPS only: reach the console "
                    "through TLS, or through an SSH tunnel to localhost." }
            }
            @if let Some(why) = failed {
                p.error role="alert" { "Not signed in: " (why) }
            }
            form method="post" action="/console/sign-in" {
                label for="token" { "Token" }
                input #token type="password" name="token" autocomplete="current-password" required autofocus;
                button type="submit" { "Sign in" }
            }
        }
    };
    layout("Sign in", None, body)
}

/// The tools, all (the first of them) or those a search found, of `total`; and the
/// load's warnings.
pub(super) fn tools(viewer: &Viewer, query: &str, tools: &[ToolSpec], total: usize, warnings: &[String]) -> Page {
    let body = html! {
        form.search method="get" action="/console/tools" role="search" {
            input type="search" name="q" value=(query) placeholder="What should the tool do?" aria-label="Search the tools";
            button type="submit" { "Search" }
        }
        p.count {
            @if !query.is_empty() { (tools.len()) " tools fit “" (query) "”, best first" }
            @else if tools.len() < total { "The first " (tools.len()) " of " (total) " tools: search to find the others" }
            @else { (total) " tools" }
        }
        table.tools {
            thead { tr { th { "Tool" } th { "From" } th { "What it does" } } }
            tbody {
                @for tool in tools {
                    tr {
                        td { a href={ "/console/tools/" (tool.name) } { (tool.name) } }
                        td { (tool.component) }
                        td.description { (first_line(&tool.description)) }
                    }
                }
            }
        }
        @if !warnings.is_empty() {
            h2 { "Load warnings" }
            ul.warnings { @for warning in warnings { li { (warning) } } }
        }
    };
    layout("Tools", Some(viewer), body)
}

/// One tool: what it does, its parameters, what it may touch, where it came from.
pub(super) fn tool(
    viewer: &Viewer,
    tool: &ToolSpec,
    settings: Option<&(Grants, Limits)>,
    report: Option<&ComponentReport>,
) -> Page {
    let schema = tool.parameters_schema();
    let required: Vec<&str> = schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let annotations = &tool.annotations;
    let body = html! {
        p.title { (tool.title) }
        pre.description { (tool.description) }
        p { a.button href={ "/console/try?tool=" (tool.name) } { "Try it" } }
        h2 { "Parameters" }
        @if let Some(properties) = schema["properties"].as_object().filter(|p| !p.is_empty()) {
            table.params {
                thead { tr { th { "Name" } th { "Type" } th { "Required" } th { "Description" } } }
                tbody {
                    @for (name, property) in properties {
                        tr {
                            td { code { (name) } }
                            td { code { (type_of(property)) } }
                            td { @if required.contains(&name.as_str()) { "yes" } @else { "no" } }
                            td { (property["description"].as_str().unwrap_or_default()) }
                        }
                    }
                }
            }
        } @else {
            p { "None." }
        }
        details { summary { "Its JSON Schema" } pre { (pretty(&schema)) } }
        h2 { "What it may do" }
        ul.facts {
            li { "Read-only: " (yes(annotations.read_only)) }
            li { "Destructive: " (yes(annotations.destructive)) }
            li { "Idempotent: " (yes(annotations.idempotent)) }
            li { "Reaches outside (open world): " (yes(annotations.open_world)) }
            li { "Asks a person before each call: " (yes(tool.approval)) }
        }
        @if let Some((grants, limits)) = settings { (limits_view(grants, limits)) }
        (origin_view(tool, report))
    };
    layout(&tool.name, Some(viewer), body)
}

/// What a component's tool may use, and how much.
fn limits_view(grants: &Grants, limits: &Limits) -> Markup {
    html! {
        h2 { "Limits and grants" }
        ul.facts {
            li { "Time: " (limits.time.as_millis()) " ms; memory: " (limits.memory_bytes >> 20) " MiB; result: "
                 (limits.result_bytes) " bytes" }
            @for dir in &grants.dirs {
                li { "Folder " code { (dir.guest_path) } @if dir.read_only { " (read-only)" } }
            }
            @for host in grants.http_hosts.iter() { li { "HTTP to " code { (host) } } }
            @for (name, _) in &grants.env { li { "Environment variable " code { (name) } } }
        }
    }
}

/// Where a tool comes from: its component's function or its server, its file.
fn origin_view(tool: &ToolSpec, report: Option<&ComponentReport>) -> Markup {
    html! {
        h2 { "Where it comes from" }
        ul.facts {
            @match &tool.origin {
                ToolOrigin::Component(function) => {
                    li { "The component " code { (tool.component) } ", function " code { (function.wit_name) }
                         @if let Some(interface) = &function.interface { " of " code { (interface) } } }
                }
                ToolOrigin::McpServer(server) => {
                    li { "The MCP server " code { (tool.component) } " (outside the sandbox), as "
                         code { (server.remote_name) } }
                }
                ToolOrigin::RestApi(operation) => {
                    li { "The REST API " code { (tool.component) } " (outside the sandbox), as "
                         code { (operation.remote_name) } }
                }
            }
            @if let Some(report) = report {
                li { "File: " code { (report.path.display()) } }
                li { "Provenance: " (provenance(&report.provenance)) }
            }
        }
    }
}

/// A schema property's type in a few characters.
fn type_of(property: &Value) -> String {
    match &property["type"] {
        Value::String(kind) if kind == "array" => format!("array of {}", type_of(&property["items"])),
        Value::String(kind) => kind.clone(),
        Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" or "),
        _ if property.get("enum").is_some() => "one of a list".into(),
        _ if property.get("anyOf").is_some() || property.get("oneOf").is_some() => "one of several".into(),
        _ => "any".into(),
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

fn yes(flag: bool) -> &'static str {
    if flag { "yes" } else { "no" }
}

pub(super) fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// The recent calls, filtered, each opening its repairs and message.
pub(super) fn calls(viewer: &Viewer, filter: &CallFilter, calls: &[CallRecord], everyone: bool) -> Page {
    const OUTCOMES: [(&str, &str); 8] = [
        ("", "any outcome"),
        ("ok", "ok"),
        ("failed", "failed"),
        ("invalid_arguments", "invalid arguments"),
        ("invalid_value", "invalid value"),
        ("unknown_tool", "unknown tool"),
        ("tool_failed", "tool failed"),
        ("refused", "refused"),
    ];
    let body = html! {
        p { @if everyone { "The last calls of every caller" } @else { "Your last calls" }
            ", newest first (the server keeps the last 1,000 in memory)." }
        form.filters method="get" action="/console/calls" {
            input type="text" name="tool" value=(filter.tool) placeholder="tool" aria-label="Tool";
            @if everyone { input type="text" name="caller" value=(filter.caller) placeholder="caller" aria-label="Caller"; }
            select name="outcome" aria-label="Outcome" {
                @for (value, label) in OUTCOMES {
                    option value=(value) selected[filter.outcome == value] { (label) }
                }
            }
            label.inline { input type="checkbox" name="live" value="1" checked[filter.live.is_some()]; " live" }
            button type="submit" { "Show" }
        }
        @if calls.is_empty() { p.count { "No call yet." } }
        @for call in calls {
            details.call id={ "call-" (call.number) } {
                summary {
                    span.time { "#" (call.number) " " (call.time) }
                    code { (call.tool.as_deref().unwrap_or(&call.name)) }
                    span class={ "outcome " @if call.outcome == "ok" { "ok" } @else { "bad" } } { (call.outcome) }
                    span.muted { (call.caller) " · " (call.took.as_millis()) " ms"
                        @if !call.repairs.is_empty() { " · " (call.repairs.len()) " repaired" } }
                }
                @if call.tool.as_deref().is_some_and(|tool| tool != call.name) {
                    p { "Called as " code { (call.name) } }
                }
                @if call.repairs.is_empty() { p { "Nothing repaired." } }
                ul { @for repair in &call.repairs { li { "Repaired: " (repair) } } }
                @if let Some(message) = &call.message { p { "The model was told:" } pre.message { (message) } }
            }
        }
    };
    framed("Calls", Some(viewer), body, filter.live.is_some())
}

/// What the health page shows only to a caller who may use every tool: the charts,
/// the components and the MCP servers.
pub(super) struct Whole {
    pub(super) buckets: Vec<Bucket>,
    pub(super) report: LoadReport,
    pub(super) servers: Vec<McpServerState>,
}

/// The server's state: its tools, calls now, and (`whole`) charts, components and
/// MCP servers.
pub(super) fn health(viewer: &Viewer, stats: &HostStats, whole: Option<&Whole>, live: bool) -> Page {
    let body = html! {
        p { a href={ "/console/health" @if !live { "?live=1" } } { @if live { "Stop reloading" } @else { "Reload every 3 s" } } }
        ul.facts {
            li { (stats.tools) " tools from " (stats.components) " components and " (stats.mcp_servers) " MCP servers" }
            li { (stats.running_calls) " calls running, " (stats.queued_calls) " waiting for a slot" }
            li { (stats.ready_instances) " instances made ahead, ready" }
            li { (stats.mcp_server_restarts) " restarts of MCP servers since they were first started" }
        }
        @if let Some(whole) = whole { (charts_view(&whole.buckets)) (parts_view(&whole.report, &whole.servers)) }
    };
    framed("Health", Some(viewer), body, live)
}

/// Calls, failures and latency over the last ten minutes.
fn charts_view(buckets: &[Bucket]) -> Markup {
    let seconds = BUCKET.as_secs_f64();
    let rate: Vec<f64> = buckets.iter().map(|b| f64::from(b.calls) / seconds).collect();
    let failed: Vec<f64> = buckets.iter().map(|b| f64::from(b.failed) / seconds).collect();
    let latency: Vec<f64> = buckets.iter().map(mean_ms).collect();
    html! {
        (super::charts::bars("Calls a second", &rate, "calls/s"))
        (super::charts::bars("Failed calls a second", &failed, "calls/s"))
        (super::charts::bars("Mean latency", &latency, "ms"))
    }
}

/// The components as loaded, the MCP servers as served, the load's warnings.
fn parts_view(report: &LoadReport, servers: &[McpServerState]) -> Markup {
    html! {
        h2 { "Components" }
        table.tools {
            thead { tr { th { "Component" } th { "Tools" } th { "Code" } th { "Loaded in" } th { "From" } } }
            tbody {
                @for component in &report.components {
                    tr {
                        td { (component.name) }
                        td { (component.tools) }
                        td { @if component.baseline { "baseline (optimizing)" } @else { "optimized" } }
                        td { (component.elapsed.as_millis()) " ms" }
                        td { (provenance(&component.provenance)) }
                    }
                }
            }
        }
        @if !servers.is_empty() {
            h2 { "MCP servers" }
            table.servers {
                thead { tr { th { "Server" } th { "Tools" } th { "Restarts" } th { "Connection" } } }
                tbody {
                    @for server in servers {
                        tr {
                            td { (server.name) }
                            td { (server.tools) }
                            td { (server.restarts) }
                            td { @match &server.down { None => { span.outcome.ok { "up" } }
                                                        Some(why) => { span.outcome.bad { "down: " (why) } } } }
                        }
                    }
                }
            }
        }
        @if !report.warnings.is_empty() {
            h2 { "Load warnings" }
            ul.warnings { @for warning in &report.warnings { li { (warning) } } }
        }
    }
}

/// A bucket's mean latency, in milliseconds.
fn mean_ms(bucket: &Bucket) -> f64 {
    match bucket.calls {
        0 => 0.0,
        calls => bucket.total.as_secs_f64() * 1000.0 / f64::from(calls),
    }
}

/// Where a component's file came from, in words.
fn provenance(provenance: &crate::load::Provenance) -> String {
    match provenance {
        crate::load::Provenance::Local => "a local file".into(),
        crate::load::Provenance::Pulled { reference, signed_by } if signed_by.is_empty() => {
            format!("{reference} (pulled, unsigned)")
        }
        crate::load::Provenance::Pulled { reference, signed_by } => {
            format!("{reference} (signed by {})", signed_by.join(", "))
        }
    }
}
