//! Approval: a person says yes before a tool that changes things runs. Which tools
//! ask ([`Approval`]: those whose hints say they may destroy something, those named),
//! the question put to the call's observer (MCP elicitation through the faces), and
//! what the model is told when nobody said yes.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::error::{ToolError, Unapproved};
use crate::load::shaping::Choice;
use crate::sandbox::{CallObserver, Elicitation, ElicitationAnswer};
use crate::tool::ToolAnnotations;

/// The longest argument text shown to the person (more is cut, saying so).
const MAX_SHOWN: usize = 2_000;

/// Which tools a person must approve before each call (see
/// `HostBuilder::approval`): none unless set. A call that needs approval asks through
/// the request's observer (`CallObserver::elicit`: an MCP client's elicitation), and
/// runs only when the person accepts.
///
/// ```no_run
/// use toolhost::{Approval, Host};
///
/// let host = Host::builder()
///     .plugin_dir("plugins")
///     .approval(Approval::destructive_tools().tools(["send_*"]))
///     .build()?;
/// # Ok::<(), toolhost::LoadError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Approval {
    destructive: bool,
    tools: Vec<String>,
    wait: Duration,
}

impl Default for Approval {
    /// No tool asks.
    fn default() -> Approval {
        Approval { destructive: false, tools: Vec::new(), wait: Duration::from_secs(120) }
    }
}

impl Approval {
    /// Every tool whose hints say it may destroy something: not read-only and
    /// `destructive` (MCP's `destructiveHint`; a component's hints follow its grants
    /// and its manifest's `destructive`, a server's tool says its own).
    pub fn destructive_tools() -> Approval {
        Approval { destructive: true, ..Approval::default() }
    }

    /// Also the tools whose registered names match `patterns` (`write_file`, `send_*`).
    pub fn tools<S: Into<String>>(mut self, patterns: impl IntoIterator<Item = S>) -> Approval {
        self.tools.extend(patterns.into_iter().map(Into::into));
        self
    }

    /// How long a call waits for the person (two minutes unless set); past it the
    /// call is not run.
    pub fn wait(mut self, wait: Duration) -> Approval {
        self.wait = wait;
        self
    }
}

/// An [`Approval`] with its patterns read.
pub(crate) struct Asking {
    destructive: bool,
    tools: Option<Choice>,
    wait: Duration,
}

impl Asking {
    /// `approval` with its patterns read; else the pattern that does not read.
    pub(crate) fn new(approval: &Approval) -> Result<Asking, String> {
        let tools = match approval.tools.is_empty() {
            true => None,
            false => Some(Choice::new(&approval.tools, &[])?),
        };
        Ok(Asking { destructive: approval.destructive, tools, wait: approval.wait })
    }

    /// Whether any tool may need approval (nothing to look up per call when not).
    pub(crate) fn is_set(&self) -> bool {
        self.destructive || self.tools.is_some()
    }

    /// Whether a call of `tool`, with these hints, needs a person's approval.
    pub(crate) fn needed(&self, tool: &str, hints: &ToolAnnotations) -> bool {
        (self.destructive && !hints.read_only && hints.destructive)
            || self.tools.as_ref().is_some_and(|tools| tools.serves(tool))
    }

    /// Asks the person, through `observer`, whether `tool` may run with `arguments`;
    /// `Ok` when they said yes.
    pub(crate) async fn ask(
        &self,
        observer: Option<&Arc<dyn CallObserver>>,
        tool: &str,
        arguments: &Value,
    ) -> Result<(), ToolError> {
        let refused = |reason| ToolError::NotApproved { tool: tool.to_string(), reason };
        let Some(observer) = observer else { return Err(refused(Unapproved::NoOneToAsk)) };
        let answer = observer.approve(tool, arguments, question(tool, arguments));
        match tokio::time::timeout(self.wait, answer).await {
            Ok(ElicitationAnswer::Accept(values)) if values["approve"] == json!(true) => Ok(()),
            Ok(ElicitationAnswer::Accept(_) | ElicitationAnswer::Decline) => Err(refused(Unapproved::Declined)),
            Ok(ElicitationAnswer::Cancel) => Err(refused(Unapproved::Dismissed)),
            Err(_) => Err(refused(Unapproved::Unanswered(self.wait))),
        }
    }
}

/// The question for the person: the tool, its arguments, and one yes-or-no field.
fn question(tool: &str, arguments: &Value) -> Elicitation {
    let mut shown = serde_json::to_string_pretty(arguments).unwrap_or_default();
    if shown.len() > MAX_SHOWN {
        let end = shown.floor_char_boundary(MAX_SHOWN);
        shown = format!("{}\n… ({} more bytes)", &shown[..end], shown.len() - end);
    }
    let message = format!("The agent wants to run '{tool}' with these arguments:\n{shown}\nAllow it?");
    let schema = json!({
        "type": "object",
        "properties": {
            "approve": {"type": "boolean", "title": "Allow this call", "default": false}
        },
        "required": ["approve"]
    });
    Elicitation::new(message, schema)
}
