//! A call's result as each provider's tool-result message carries it: MCP content
//! blocks; Anthropic's `tool_result` content (text and images); OpenAI responses'
//! `function_call_output` (text and images); OpenAI chat's tool message (text only).
//! What a format cannot carry is described in a line of text instead (kind, MIME
//! type, size, URI), so that the model learns it was there.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use super::content::{Content, Media};
use super::formats::ToolFormat;

/// The image types Anthropic's messages take.
const ANTHROPIC_IMAGES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

impl ToolFormat {
    /// A successful call's result (its `value`, `null` for none, and the `content`
    /// it added) as this format's tool result carries it: an array of MCP content
    /// blocks; Anthropic's `tool_result` content and OpenAI responses'
    /// `function_call_output` output (text, or an array with images when there are
    /// images); OpenAI chat's tool message content (text). The value comes first, as
    /// JSON text, unless it is `null` and there is content.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolhost::{Content, ToolFormat};
    ///
    /// let chart = [Content::image(vec![1, 2, 3], "image/png")];
    /// let anthropic = ToolFormat::Anthropic.tool_result(&json!(null), &chart);
    /// assert_eq!(anthropic[0]["source"]["data"], "AQID");
    /// let chat = ToolFormat::OpenAiChat.tool_result(&json!(null), &chart);
    /// assert_eq!(chat, "[image: image/png, 3 bytes]");
    /// ```
    pub fn tool_result(self, value: &Value, content: &[Content]) -> Value {
        let value_text = (!value.is_null() || content.is_empty()).then(|| Content::text(value.to_string()));
        let blocks: Vec<&Content> = value_text.iter().chain(content).collect();
        match self {
            ToolFormat::Mcp => blocks.iter().filter_map(|block| serde_json::to_value(block).ok()).collect(),
            ToolFormat::Anthropic => {
                with_images(&blocks, anthropic_image, |text| json!({"type": "text", "text": text}))
            }
            ToolFormat::OpenAiResponses => {
                with_images(&blocks, openai_image, |text| json!({"type": "input_text", "text": text}))
            }
            ToolFormat::OpenAiChat => Value::String(as_text(&blocks)),
        }
    }
}

/// Text alone when no block is an image the format takes (`image` says which it
/// takes, and how), else the blocks in order: images as the format has them, the
/// text between them as `text` makes it.
fn with_images(blocks: &[&Content], image: fn(&Media) -> Option<Value>, text: fn(String) -> Value) -> Value {
    let images: Vec<Option<Value>> = blocks.iter().map(|block| as_image(block).and_then(image)).collect();
    if images.iter().all(Option::is_none) {
        return Value::String(as_text(blocks));
    }
    let mut parts = Vec::new();
    let mut pending: Vec<&Content> = Vec::new();
    for (block, image) in blocks.iter().zip(images) {
        match image {
            Some(image) => {
                if !pending.is_empty() {
                    parts.push(text(as_text(&pending)));
                    pending.clear();
                }
                parts.push(image);
            }
            None => pending.push(block),
        }
    }
    if !pending.is_empty() {
        parts.push(text(as_text(&pending)));
    }
    Value::Array(parts)
}

fn as_image(block: &Content) -> Option<&Media> {
    match block {
        Content::Image(media) => Some(media),
        _ => None,
    }
}

fn anthropic_image(media: &Media) -> Option<Value> {
    ANTHROPIC_IMAGES.contains(&media.mime_type.as_str()).then(|| {
        let source = json!({"type": "base64", "media_type": media.mime_type, "data": STANDARD.encode(&media.data)});
        json!({"type": "image", "source": source})
    })
}

fn openai_image(media: &Media) -> Option<Value> {
    let url = format!("data:{};base64,{}", media.mime_type, STANDARD.encode(&media.data));
    Some(json!({"type": "input_image", "image_url": url}))
}

/// The blocks as one text, a line or more each: text as it is, anything else described.
fn as_text(blocks: &[&Content]) -> String {
    let lines: Vec<String> = blocks.iter().map(|block| block.describe()).collect();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tool::ResourceContents;

    fn mixed() -> Vec<Content> {
        vec![
            Content::text("a chart:"),
            Content::image(vec![1, 2, 3], "image/png"),
            Content::resource("test://data", None, ResourceContents::Text { text: "1,2,3".into() }),
        ]
    }

    #[test]
    fn mcp_gets_every_block_after_the_value() {
        let result = ToolFormat::Mcp.tool_result(&json!({"points": 3}), &mixed());
        assert_eq!(result[0], json!({"type": "text", "text": "{\"points\":3}"}));
        assert_eq!(result[2]["type"], "image");
        assert_eq!(result.as_array().map(Vec::len), Some(4));
        assert_eq!(ToolFormat::Mcp.tool_result(&json!(null), &[]), json!([{"type": "text", "text": "null"}]));
    }

    #[test]
    fn anthropic_and_openai_responses_get_images_between_texts() {
        let anthropic = ToolFormat::Anthropic.tool_result(&json!(null), &mixed());
        assert_eq!(anthropic[0], json!({"type": "text", "text": "a chart:"}));
        assert_eq!(anthropic[1]["source"], json!({"type": "base64", "media_type": "image/png", "data": "AQID"}));
        assert_eq!(anthropic[2], json!({"type": "text", "text": "[resource test://data]\n1,2,3"}));
        let responses = ToolFormat::OpenAiResponses.tool_result(&json!(null), &mixed());
        assert_eq!(responses[1], json!({"type": "input_image", "image_url": "data:image/png;base64,AQID"}));
        assert_eq!(responses[2]["type"], "input_text");
    }

    #[test]
    fn what_a_format_cannot_carry_is_described_in_text() {
        let chat = ToolFormat::OpenAiChat.tool_result(&json!("done"), &mixed());
        assert_eq!(chat, json!("\"done\"\na chart:\n[image: image/png, 3 bytes]\n[resource test://data]\n1,2,3"));
        let sound = [Content::audio(vec![0; 10], "audio/wav"), Content::image(vec![0], "image/tiff")];
        assert_eq!(
            ToolFormat::Anthropic.tool_result(&json!(null), &sound),
            json!("[audio: audio/wav, 10 bytes]\n[image: image/tiff, 1 bytes]")
        );
        assert_eq!(ToolFormat::OpenAiResponses.tool_result(&json!(7), &[]), json!("7"));
    }
}
