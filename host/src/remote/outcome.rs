//! What an MCP server's answer to a call becomes: its structured content, else its
//! one text, else its content blocks as JSON; images, audio and resources passed on
//! as content blocks beside the structured content; its own error result (`isError`)
//! passed on unchanged, as a component's own `err` is; a result over the size limit
//! refused as a component's would be.

use rmcp::model::CallToolResult;
use serde_json::Value;

use crate::error::ToolError;
use crate::tool::{Content, Returned, json_len};

/// What a server's answer to a call of `tool` returned, or the tool's own error.
pub(super) fn returned(tool: &str, answer: CallToolResult, limit_bytes: usize) -> Result<Returned, ToolError> {
    let blocks: Vec<Value> = answer.content.iter().filter_map(|block| serde_json::to_value(block).ok()).collect();
    let texts: Vec<&str> = blocks.iter().filter_map(|block| block.get("text").and_then(Value::as_str)).collect();
    if answer.is_error == Some(true) {
        let message = if texts.is_empty() { Value::Array(blocks.clone()).to_string() } else { texts.join("\n") };
        return Err(ToolError::ToolFailed { tool: tool.to_string(), message });
    }
    let returned = match (rich_content(&blocks), answer.structured_content, texts.as_slice()) {
        (Some(content), structured, _) => Returned { value: structured.unwrap_or(Value::Null), content },
        (None, Some(value), _) => Returned { value, content: Vec::new() },
        (None, None, [one]) if blocks.len() == 1 => {
            Returned { value: Value::String((*one).to_string()), content: Vec::new() }
        }
        (None, None, _) => Returned { value: Value::Array(blocks), content: Vec::new() },
    };
    let size = returned.content.iter().map(json_len).fold(json_len(&returned.value), usize::saturating_add);
    if size > limit_bytes {
        return Err(ToolError::ResultTooLarge { tool: tool.to_string(), limit_bytes: limit_bytes as u64 });
    }
    Ok(returned)
}

/// The blocks as content, when some are more than text and every one is of a kind
/// the host knows (a kind it does not know leaves all of them JSON in the value).
fn rich_content(blocks: &[Value]) -> Option<Vec<Content>> {
    if blocks.iter().all(|block| block.get("type").and_then(Value::as_str) == Some("text")) {
        return None;
    }
    blocks.iter().map(|block| serde_json::from_value(block.clone()).ok()).collect()
}

#[cfg(test)]
mod tests {
    use rmcp::model::{CallToolResult, ContentBlock};
    use serde_json::json;

    use super::returned;
    use crate::error::ToolError;
    use crate::tool::{Content, Returned};

    fn value(tool: &str, answer: CallToolResult, limit: usize) -> Result<serde_json::Value, ToolError> {
        returned(tool, answer, limit).map(|returned| returned.value)
    }

    #[test]
    fn answers_become_values_and_the_servers_own_errors_pass_unchanged() {
        let text = CallToolResult::success(vec![ContentBlock::text("Echo: hi")]);
        assert_eq!(value("echo", text, 1 << 20), Ok(json!("Echo: hi")));
        let structured = CallToolResult::structured(json!({"temperature": 22.5}));
        assert_eq!(value("weather", structured, 1 << 20), Ok(json!({"temperature": 22.5})));
        let own_error =
            CallToolResult::error(vec![ContentBlock::text("Access denied - path outside allowed directories")]);
        let error = value("read_file", own_error, 1 << 20).unwrap_err();
        assert_eq!(error.to_string(), "Access denied - path outside allowed directories");
        let huge = CallToolResult::success(vec![ContentBlock::text("x".repeat(2000))]);
        assert!(matches!(value("big", huge, 1000), Err(ToolError::ResultTooLarge { limit_bytes: 1000, .. })));
    }

    #[test]
    fn images_pass_on_as_content_in_their_place_among_the_texts() {
        let answer =
            CallToolResult::success(vec![ContentBlock::text("a chart:"), ContentBlock::image("AQID", "image/png")]);
        let expected = Returned {
            value: serde_json::Value::Null,
            content: vec![Content::text("a chart:"), Content::image(vec![1, 2, 3], "image/png")],
        };
        assert_eq!(returned("chart", answer.clone(), 1 << 20), Ok(expected));
        assert!(matches!(returned("chart", answer, 60), Err(ToolError::ResultTooLarge { .. })));
    }
}
