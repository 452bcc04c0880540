//! A tool call in the shape a provider's API (or a model writing one out) gives it:
//! the one reader of call objects, for the faces and for calls found in reply text.

use serde_json::{Map, Value};

/// The fields a call object's arguments may be under, in the order they are looked
/// for: `arguments` (OpenAI, most chat templates), `parameters` (Llama 3's JSON),
/// `input` (Anthropic's `tool_use`).
const ARGUMENT_FIELDS: [&str; 3] = ["arguments", "parameters", "input"];

/// A tool call as a provider's API carries it: the name the model sent and its
/// arguments as written.
///
/// ```
/// let openai = serde_json::json!({"type": "function", "function": {"name": "gcd", "arguments": "{\"a\": 12}"}});
/// let call = toolhost::ToolCall::from_json(&openai).expect("a call object");
/// assert_eq!((call.name.as_str(), call.arguments), ("gcd", Some(serde_json::json!("{\"a\": 12}"))));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolCall {
    /// The tool's name, as the model sent it.
    pub name: String,
    /// The arguments: a JSON value, or a string holding the argument text the model
    /// wrote (OpenAI's `arguments`); `None` when the object has none.
    pub arguments: Option<Value>,
}

impl ToolCall {
    /// A call of `name` with `arguments`.
    pub fn new(name: &str, arguments: Option<Value>) -> ToolCall {
        ToolCall { name: name.to_string(), arguments }
    }

    /// Reads a call object: `{"name", "arguments"}`, the arguments under
    /// `arguments`, `parameters` or `input` (the first present), or the same inside
    /// `function` (OpenAI's `{"type": "function", "function": {…}}`). `None` when it
    /// has no string `name`.
    pub fn from_json(value: &Value) -> Option<ToolCall> {
        ToolCall::from_object(value.as_object()?)
    }

    /// [`ToolCall::from_json`] of an object.
    pub(crate) fn from_object(object: &Map<String, Value>) -> Option<ToolCall> {
        if let Some(Value::Object(function)) = object.get("function") {
            return ToolCall::from_object(function);
        }
        let name = object.get("name")?.as_str()?;
        let arguments = ARGUMENT_FIELDS.iter().find_map(|field| object.get(*field)).cloned();
        Some(ToolCall::new(name, arguments))
    }

    /// Whether `object` has a field only a call object has (its arguments, or a
    /// `function`), and so is more than any object with a `name`.
    pub(crate) fn looks_like_call(object: &Map<String, Value>) -> bool {
        object.contains_key("function") || ARGUMENT_FIELDS.iter().any(|field| object.contains_key(*field))
    }

    /// Whether `object` is a tool's definition rather than a call of it: a
    /// `description` beside `parameters` that are a JSON Schema (`properties`, or a
    /// `type` of `object` or `dict`), as models echo the tools they were shown.
    pub(crate) fn is_definition(object: &Map<String, Value>) -> bool {
        let schema = |value: &Value| {
            value.get("properties").is_some_and(Value::is_object)
                || value.get("type").and_then(Value::as_str).is_some_and(|ty| ty == "object" || ty == "dict")
        };
        object.get("description").is_some_and(Value::is_string)
            && ["parameters", "input_schema", "inputSchema"].iter().any(|field| object.get(*field).is_some_and(schema))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::ToolCall;

    #[test]
    fn each_providers_call_object_is_read() {
        let read = |value| ToolCall::from_json(&value).map(|call| (call.name, call.arguments));
        let text = json!("{\"a\": 1}");
        assert_eq!(
            read(json!({"type": "function", "function": {"name": "f", "arguments": text}})),
            Some(("f".into(), Some(text.clone())))
        );
        assert_eq!(read(json!({"name": "f", "input": {"a": 1}})), Some(("f".into(), Some(json!({"a": 1})))));
        assert_eq!(read(json!({"name": "f", "parameters": {"a": 1}})), Some(("f".into(), Some(json!({"a": 1})))));
        assert_eq!(read(json!({"name": "f"})), Some(("f".into(), None)));
        // `arguments` is looked for first.
        assert_eq!(read(json!({"name": "f", "input": 1, "arguments": 2})), Some(("f".into(), Some(json!(2)))));
        assert_eq!(read(json!({"name": 3, "arguments": {}})), None);
        assert_eq!(read(json!(["f"])), None);
    }
}
