//! What an MCP server's answer to a call becomes: its structured content, else its
//! one text, else its content blocks as JSON; its own error result (`isError`)
//! passed on unchanged, as a component's own `err` is; a result over the size limit
//! refused as a component's would be.

use rmcp::model::CallToolResult;
use serde_json::Value;

use crate::error::ToolError;

/// The value of a server's answer to a call of `tool`, or the tool's own error.
pub(super) fn value(tool: &str, answer: CallToolResult, limit_bytes: usize) -> Result<Value, ToolError> {
    let blocks: Vec<Value> = answer.content.iter().filter_map(|block| serde_json::to_value(block).ok()).collect();
    let texts: Vec<&str> = blocks.iter().filter_map(|block| block.get("text").and_then(Value::as_str)).collect();
    if answer.is_error == Some(true) {
        let message = if texts.is_empty() { Value::Array(blocks.clone()).to_string() } else { texts.join("\n") };
        return Err(ToolError::ToolFailed { tool: tool.to_string(), message });
    }
    let value = match (answer.structured_content, texts.as_slice()) {
        (Some(structured), _) => structured,
        (None, [one]) if blocks.len() == 1 => Value::String((*one).to_string()),
        (None, _) => Value::Array(blocks),
    };
    let size = serde_json::to_vec(&value).map_or(usize::MAX, |text| text.len());
    if size > limit_bytes {
        return Err(ToolError::ResultTooLarge { tool: tool.to_string(), limit_bytes: limit_bytes as u64 });
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use rmcp::model::{CallToolResult, ContentBlock};
    use serde_json::json;

    use super::value;
    use crate::error::ToolError;

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
}
