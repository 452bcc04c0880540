//! What a running call asks its caller: a question for the person using the agent
//! (MCP elicitation) and a request to the caller's model (MCP sampling). Each goes to
//! the call's [`CallObserver`](super::CallObserver), at most ten of each kind per
//! call; a caller that cannot ask declines.

use serde_json::Value;

/// A question for the person using the agent (`toolhost:tool/elicit`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Elicitation {
    /// What the values are for, in words.
    pub message: String,
    /// The values asked for: a JSON Schema object of flat, primitive properties.
    pub schema: Value,
}

/// What the person did with a [`Elicitation`].
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitationAnswer {
    /// They answered: the values, as a JSON object.
    Accept(Value),
    /// They refused to answer (also the answer of a caller that cannot ask).
    Decline,
    /// They dismissed the question without choosing.
    Cancel,
}

/// Who wrote a message of a [`Sampling`] conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SamplingRole {
    /// The user (the tool, asking).
    User,
    /// The model.
    Assistant,
}

/// A request for the caller's model to continue a conversation (`toolhost:tool/sample`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Sampling {
    /// The conversation so far, as (who wrote it, what it says).
    pub messages: Vec<(SamplingRole, String)>,
    /// The system prompt, when the tool gave one.
    pub system_prompt: Option<String>,
    /// The most tokens the model may write.
    pub max_tokens: u32,
}

impl Elicitation {
    /// A question with `message` for the values `schema` describes.
    pub fn new(message: impl Into<String>, schema: Value) -> Elicitation {
        Elicitation { message: message.into(), schema }
    }
}

impl Sampling {
    /// A request to continue `messages`, writing at most `max_tokens`.
    pub fn new(messages: Vec<(SamplingRole, String)>, system_prompt: Option<String>, max_tokens: u32) -> Sampling {
        Sampling { messages, system_prompt, max_tokens }
    }
}
