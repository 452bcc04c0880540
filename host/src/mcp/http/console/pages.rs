//! The console's pages as HTML, written with maud, which escapes every value it
//! puts in a page: a tool's description, a model's text and a tool's result are
//! untrusted, and show as text. Also here: what Try reads out of what a model wrote.

use base64::Engine as _;
use maud::{DOCTYPE, Markup, html};
use serde_json::Value;

use super::{CallFilter, Viewer};
use crate::error::ToolError;
use crate::host::HostStats;
use crate::host::{CallOutcome, Host, RepairedCall};
use crate::load::ComponentReport;
use crate::load::LoadReport;
use crate::mcp::recent::{BUCKET, Bucket, CallRecord};
use crate::sandbox::{Grants, Limits};
use crate::tool::{Content, ToolOrigin, ToolSpec};

/// A page as an answer.
pub(super) struct Page(Markup);

impl axum::response::IntoResponse for Page {
    fn into_response(self) -> axum::response::Response {
        let headers = [(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")];
        (headers, self.0.into_string()).into_response()
    }
}

/// The frame around every page: its title, the navigation, who is signed in.
fn layout(title: &str, viewer: Option<&Viewer>, body: Markup) -> Page {
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
            }
            @if let Some(report) = report {
                li { "File: " code { (report.path.display()) } }
                li { "Provenance: " (provenance(&report.provenance)) }
            }
        }
    }
}

/// One call Try found: how it was written, what the host reads it as (or why it is
/// no call), and its outcome once run.
pub(super) struct Step {
    /// How it was written, when it came from a reply.
    written: Option<&'static str>,
    /// The name as written.
    name: String,
    /// The call the host would run, or the message the model would get.
    reading: Result<RepairedCall, ToolError>,
    /// What running it gave.
    pub(super) outcome: Option<CallOutcome>,
}

impl Step {
    /// Whether there is a call to run.
    pub(super) fn runnable(&self) -> bool {
        self.reading.is_ok()
    }

    /// The tool and the arguments as bound (for a runnable step).
    pub(super) fn call(&self) -> (String, Value) {
        match &self.reading {
            Ok(call) => (call.tool.clone(), call.arguments.clone()),
            Err(_) => (self.name.clone(), Value::Null),
        }
    }
}

/// What the host reads in `text`: the argument text of a call of `tool` when one is
/// named, else every call a reply holds, in any dialect.
pub(super) fn read_attempt(host: &Host, tool: &str, text: &str) -> Vec<Step> {
    if !tool.is_empty() {
        return vec![Step { written: None, name: tool.into(), reading: host.repair_call(tool, text), outcome: None }];
    }
    let found = host.extract_calls(text);
    found
        .in_order()
        .into_iter()
        .map(|call| {
            let reading = match (&call.rejected, &call.tool) {
                (Some(error), _) => Err(error.clone()),
                (None, tool) => {
                    let tool = tool.as_deref().unwrap_or(&call.name);
                    host.repair_call(tool, &call.arguments.to_string()).map(|mut repaired| {
                        let mut repairs = call.repairs.clone();
                        repairs.append(&mut repaired.repairs);
                        repaired.repairs = repairs;
                        repaired
                    })
                }
            };
            Step { written: Some(call.dialect.name()), name: call.name.clone(), reading, outcome: None }
        })
        .collect()
}

/// Try: the form, and the steps of what was sent.
pub(super) fn try_page(viewer: &Viewer, tool: &str, text: &str, steps: Option<&[Step]>) -> Page {
    let body = html! {
        p { "Paste what a model wrote: the argument text of a call (and the tool's name as it wrote it), or a whole "
            "reply with calls in any dialect (leave the name empty). Showing the steps runs nothing; "
            "running calls the tools, which may do things." }
        form.try method="post" action="/console/try" {
            label for="tool" { "Tool name, as the model wrote it (empty for a whole reply)" }
            input #tool type="text" name="tool" value=(tool) autocomplete="off";
            label for="text" { "What the model wrote" }
            textarea #text name="text" rows="8" spellcheck="false" { (text) }
            div.actions {
                button type="submit" name="action" value="steps" { "Show the steps" }
                button.run type="submit" name="action" value="run" { "Run" }
            }
        }
        @if let Some(steps) = steps {
            @if steps.is_empty() {
                p.error role="status" { "No call was found in what was written. Name the tool to read it as a call's arguments." }
            }
            @for (number, step) in steps.iter().enumerate() {
                (step_view(number + 1, step))
            }
        }
    };
    layout("Try", Some(viewer), body)
}

/// One step, numbered.
fn step_view(number: usize, step: &Step) -> Markup {
    html! {
        section.step {
            h2 { "Call " (number) ": " code { (step.name) } @if let Some(written) = step.written { " (" (written) ")" } }
            @match &step.reading {
                Ok(call) => {
                    ol.repairs {
                        @if call.repairs.is_empty() { li { "Right as written: nothing repaired." } }
                        @for repair in &call.repairs { li { "Repaired: " (repair.to_string()) } }
                        li { "Runs " code { (call.tool) } " with these arguments, as bound"
                             pre.arguments { (pretty(&call.bound)) } }
                    }
                }
                Err(error) => {
                    p { "Not run. The model would be told:" }
                    pre.message { (error.to_string()) }
                }
            }
            @if let Some(outcome) = &step.outcome { (outcome_view(outcome)) }
        }
    }
}

/// A call's outcome: the result and its content, or the message.
fn outcome_view(outcome: &CallOutcome) -> Markup {
    html! {
        div.outcome {
            @match &outcome.result {
                Ok(value) => {
                    h3 { "Result" }
                    pre.result { (pretty(value)) }
                    @for content in &outcome.content { (content_view(content)) }
                }
                Err(error) => {
                    h3 { "Failed (" (error.kind()) ")" }
                    pre.message { (error.to_string()) }
                }
            }
        }
    }
}

/// A content block: an image shown (a raster type, inline), anything else named.
fn content_view(content: &Content) -> Markup {
    const SHOWN: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];
    html! {
        @match content {
            Content::Text { text } => { pre.result { (text) } }
            Content::Image(media) if SHOWN.contains(&media.mime_type.as_str()) => {
                img.content alt="an image the tool returned"
                    src={ "data:" (media.mime_type) ";base64," (base64::engine::general_purpose::STANDARD.encode(&media.data)) };
            }
            Content::Image(media) | Content::Audio(media) => {
                p { "Content of type " code { (media.mime_type) } ", " (media.data.len()) " bytes" }
            }
            Content::ResourceLink(link) => { p { "A link to a resource: " code { (link.uri) } } }
            Content::Resource { resource } => { p { "A resource: " code { (resource.uri) } } }
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

fn pretty(value: &Value) -> String {
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

/// The server's state: its tools and components, calls now, and charts.
pub(super) fn health(
    viewer: &Viewer,
    stats: &HostStats,
    report: &LoadReport,
    buckets: Option<&[Bucket]>,
    live: bool,
) -> Page {
    let seconds = BUCKET.as_secs_f64();
    let body = html! {
        p { a href={ "/console/health" @if !live { "?live=1" } } { @if live { "Stop reloading" } @else { "Reload every 3 s" } } }
        ul.facts {
            li { (stats.tools) " tools from " (stats.components) " components and " (stats.mcp_servers) " MCP servers" }
            li { (stats.running_calls) " calls running, " (stats.queued_calls) " waiting for a slot" }
            li { (stats.ready_instances) " instances made ahead, ready" }
            li { (stats.mcp_server_restarts) " restarts of MCP servers since they were first started" }
        }
        @if let Some(buckets) = buckets {
            @let rate: Vec<f64> = buckets.iter().map(|b| f64::from(b.calls) / seconds).collect();
            @let failed: Vec<f64> = buckets.iter().map(|b| f64::from(b.failed) / seconds).collect();
            @let latency: Vec<f64> = buckets.iter().map(mean_ms).collect();
            (super::charts::bars("Calls a second", &rate, "calls/s"))
            (super::charts::bars("Failed calls a second", &failed, "calls/s"))
            (super::charts::bars("Mean latency", &latency, "ms"))
        }
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
        @if !report.warnings.is_empty() {
            h2 { "Load warnings" }
            ul.warnings { @for warning in &report.warnings { li { (warning) } } }
        }
    };
    framed("Health", Some(viewer), body, live)
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
