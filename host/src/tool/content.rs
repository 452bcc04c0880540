//! What a call returns besides its value, or instead of it: text, images, audio,
//! links to resources and resources given whole (a component's `toolhost:tool/content`
//! import, an MCP server's content blocks). Serialised, each is an MCP content block,
//! binary data as base64.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a call that succeeded returned: its value (`null` for none) and the content
/// blocks it added, in order.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Returned {
    /// The value, as JSON.
    pub(crate) value: Value,
    /// The content blocks.
    pub(crate) content: Vec<Content>,
}

/// One piece of a call's result besides its value, as MCP's content blocks have them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
    /// Text, shown as it is.
    Text {
        /// The text.
        text: String,
    },
    /// An image.
    Image(Media),
    /// A sound.
    Audio(Media),
    /// A pointer to a resource the client may read itself.
    ResourceLink(ResourceLink),
    /// A resource given whole.
    Resource {
        /// The resource.
        resource: EmbeddedResource,
    },
}

/// Bytes of the kind a MIME type names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Media {
    /// The bytes (base64 text when serialised).
    #[serde(with = "base64_text")]
    pub data: Vec<u8>,
    /// What they are: `image/png`, `audio/wav`, ...
    pub mime_type: String,
}

/// A pointer to a resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceLink {
    /// Where the resource lives.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// What it is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// What it is, as a MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

/// A resource given whole, under the URI it is known by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EmbeddedResource {
    /// Where the resource lives.
    pub uri: String,
    /// What it is, as a MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// What it holds.
    #[serde(flatten)]
    pub contents: ResourceContents,
}

/// A resource's contents: text, or bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// Bytes (base64 text, `blob`, when serialised).
    Blob {
        /// The bytes.
        #[serde(with = "base64_text")]
        blob: Vec<u8>,
    },
}

impl ResourceLink {
    /// A pointer to the resource at `uri`, called `name`.
    pub fn new(uri: String, name: String, description: Option<String>, mime_type: Option<String>) -> ResourceLink {
        ResourceLink { uri, name, description, mime_type }
    }
}

impl Content {
    /// Text content.
    pub fn text(text: impl Into<String>) -> Content {
        Content::Text { text: text.into() }
    }

    /// An image of `mime_type` (`image/png`, ...).
    pub fn image(data: Vec<u8>, mime_type: impl Into<String>) -> Content {
        Content::Image(Media { data, mime_type: mime_type.into() })
    }

    /// A sound of `mime_type` (`audio/wav`, ...).
    pub fn audio(data: Vec<u8>, mime_type: impl Into<String>) -> Content {
        Content::Audio(Media { data, mime_type: mime_type.into() })
    }

    /// A pointer to the resource at `uri`, called `name`.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Content {
        Content::ResourceLink(ResourceLink::new(uri.into(), name.into(), None, None))
    }

    /// The resource at `uri` given whole.
    pub fn resource(uri: impl Into<String>, mime_type: Option<String>, contents: ResourceContents) -> Content {
        Content::Resource { resource: EmbeddedResource { uri: uri.into(), mime_type, contents } }
    }

    /// The text it is, when it is text.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text { text } => Some(text),
            _ => None,
        }
    }

    /// A line of text saying what it is, for a caller that can take text only: the
    /// text itself, else its kind, MIME type, size and URI.
    pub fn describe(&self) -> String {
        match self {
            Content::Text { text } => text.clone(),
            Content::Image(media) => format!("[image: {}, {} bytes]", media.mime_type, media.data.len()),
            Content::Audio(media) => format!("[audio: {}, {} bytes]", media.mime_type, media.data.len()),
            Content::ResourceLink(link) => format!("[resource link: {} ({})]", link.name, link.uri),
            Content::Resource { resource } => match &resource.contents {
                ResourceContents::Text { text } => format!("[resource {}]\n{text}", resource.uri),
                ResourceContents::Blob { blob } => format!("[resource {}: {} bytes]", resource.uri, blob.len()),
            },
        }
    }
}

/// The length of `value`'s JSON text (binary data as base64), counted as serde writes
/// it, without keeping it: what a value or a content block takes of a call's result limit.
pub(crate) fn json_len<T: Serialize + ?Sized>(value: &T) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    serde_json::to_writer(&mut counter, value).map_or(usize::MAX, |()| counter.0)
}

/// The base64 form serde writes and reads binary data in (MCP's `data` and `blob`).
mod base64_text {
    use base64::Engine as _;
    use base64::display::Base64Display;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Written as it is encoded: counting an image's size takes no copy of it.
    pub(super) fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&Base64Display::new(bytes, &STANDARD))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(deserializer)?;
        STANDARD.decode(text.trim()).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_kind_is_an_mcp_content_block_and_reads_back() {
        let blocks = [
            (Content::text("hi"), json!({"type": "text", "text": "hi"})),
            (
                Content::image(vec![1, 2, 3], "image/png"),
                json!({"type": "image", "data": "AQID", "mimeType": "image/png"}),
            ),
            (
                Content::audio(vec![0xff], "audio/wav"),
                json!({"type": "audio", "data": "/w==", "mimeType": "audio/wav"}),
            ),
            (
                Content::resource_link("file:///a.txt", "a"),
                json!({"type": "resource_link", "uri": "file:///a.txt", "name": "a"}),
            ),
            (
                Content::resource("test://doc", Some("text/plain".into()), ResourceContents::Text { text: "x".into() }),
                json!({"type": "resource", "resource": {"uri": "test://doc", "mimeType": "text/plain", "text": "x"}}),
            ),
            (
                Content::resource("test://bin", None, ResourceContents::Blob { blob: vec![0, 1] }),
                json!({"type": "resource", "resource": {"uri": "test://bin", "blob": "AAE="}}),
            ),
        ];
        for (content, expected) in blocks {
            let json = serde_json::to_value(&content).expect("serialises");
            assert_eq!(json, expected);
            assert_eq!(serde_json::from_value::<Content>(json).expect("reads back"), content);
            assert_eq!(json_len(&content), expected.to_string().len(), "{content:?}");
        }
    }

    #[test]
    fn a_block_of_a_kind_not_known_or_bad_base64_is_not_read() {
        assert!(serde_json::from_value::<Content>(json!({"type": "video", "data": ""})).is_err());
        assert!(serde_json::from_value::<Content>(json!({"type": "image", "data": "%%", "mimeType": "x"})).is_err());
    }
}
