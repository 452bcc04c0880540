//! Try: what the host reads in what a model wrote — the calls found, each name
//! resolved and repaired, the arguments as bound, or the message the model would
//! get — and what running them gave, as a page.

use base64::Engine as _;
use maud::{Markup, html};
use serde_json::Value;

use super::Viewer;
use super::pages::{Page, layout, pretty};
use crate::error::ToolError;
use crate::host::{CallOutcome, Host, RepairedCall};
use crate::tool::Content;

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
    /// The tool to run and its arguments as read (the call binds them again, as a
    /// model's call), when there is a call to run.
    pub(super) fn call(&self) -> Option<(&str, &Value)> {
        self.reading.as_ref().ok().map(|call| (call.tool.as_str(), &call.arguments))
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
