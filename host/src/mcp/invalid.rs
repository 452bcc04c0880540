//! Requests rmcp cannot read, answered with the JSON-RPC error each deserves: a
//! method MCP defines whose params are wrong is invalid params (-32602, saying what is
//! wrong), any other method not found (-32601); over HTTP, a body that is not JSON is
//! a parse error (-32700) and one that is JSON but not one request, notification or
//! response an invalid request (-32600).

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestMethod, CallToolRequestParams, CancelTaskMethod, CompleteRequestMethod, ConstString,
    DiscoverRequestMethod, ErrorCode, GetPromptRequestMethod, GetTaskMethod, InitializeResultMethod,
    ListPromptsRequestMethod, ListResourceTemplatesRequestMethod, ListResourcesRequestMethod, ListToolsRequestMethod,
    PingRequestMethod, ReadResourceRequestMethod, SetLevelRequestMethod, SubscribeRequestMethod,
    UnsubscribeRequestMethod, UpdateTaskMethod,
};
use serde_json::Value;

use crate::tool::json_kind;

/// The requests a client may send that the server answers, by method.
const CLIENT_METHODS: [&str; 17] = [
    CallToolRequestMethod::VALUE,
    CancelTaskMethod::VALUE,
    CompleteRequestMethod::VALUE,
    DiscoverRequestMethod::VALUE,
    GetPromptRequestMethod::VALUE,
    GetTaskMethod::VALUE,
    InitializeResultMethod::VALUE,
    ListPromptsRequestMethod::VALUE,
    ListResourceTemplatesRequestMethod::VALUE,
    ListResourcesRequestMethod::VALUE,
    ListToolsRequestMethod::VALUE,
    PingRequestMethod::VALUE,
    ReadResourceRequestMethod::VALUE,
    SetLevelRequestMethod::VALUE,
    SubscribeRequestMethod::VALUE,
    UnsubscribeRequestMethod::VALUE,
    UpdateTaskMethod::VALUE,
];

/// The error for a request rmcp read as no request it knows (its "custom" request).
pub(crate) fn unreadable_request(method: &str, params: Option<&Value>) -> ErrorData {
    if !CLIENT_METHODS.contains(&method) {
        return ErrorData::new(ErrorCode::METHOD_NOT_FOUND, format!("no such method: {method}"), None);
    }
    let why = match method {
        CallToolRequestMethod::VALUE => call_params_error(params),
        _ => "they do not match the method's schema".to_string(),
    };
    ErrorData::new(ErrorCode::INVALID_PARAMS, format!("invalid params for {method}: {why}"), None)
}

/// What is wrong with a `tools/call`'s params, in serde's words where it has them.
fn call_params_error(params: Option<&Value>) -> String {
    let Some(params) = params else { return "a tool call needs params with the tool's `name`".to_string() };
    match params.get("name") {
        None => return "`name` (the tool's name, a string) is missing".to_string(),
        Some(Value::String(_)) => {}
        Some(other) => return format!("`name` must be a string (the tool's name), not {}", json_kind(other)),
    }
    match params.get("arguments") {
        None | Some(Value::Object(_) | Value::Null) => {}
        Some(other) => {
            return format!("`arguments` must be an object of the tool's arguments, not {}", json_kind(other));
        }
    }
    match serde_json::from_value::<CallToolRequestParams>(params.clone()) {
        Ok(_) => "they do not read as a tool call".to_string(),
        Err(error) => error.to_string(),
    }
}

/// The JSON-RPC error for an HTTP body of JSON's media type that rmcp could not read
/// as one message: its code and message.
#[cfg(feature = "http")]
pub(crate) fn unreadable_body(body: &[u8]) -> (ErrorCode, String) {
    match serde_json::from_slice::<Value>(body) {
        Err(error) => (ErrorCode::PARSE_ERROR, format!("the body is not JSON: {error}")),
        Ok(Value::Array(_)) => {
            (ErrorCode::INVALID_REQUEST, "batches are not taken: send one JSON-RPC message a request".to_string())
        }
        Ok(_) => {
            (ErrorCode::INVALID_REQUEST, "the body is not a JSON-RPC 2.0 request, notification or response".to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_known_methods_wrong_params_are_invalid_params_and_say_what_is_wrong() {
        let error = unreadable_request("tools/call", Some(&json!({"name": 5})));
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert!(error.message.contains("`name` must be a string") && error.message.contains("a number"), "{error:?}");
        let error = unreadable_request("tools/call", Some(&json!({"name": "gcd", "arguments": "a=1"})));
        assert!(error.message.contains("`arguments` must be an object") && error.message.contains("a string"));
        assert_eq!(unreadable_request("tools/list", Some(&json!({"cursor": 5}))).code, ErrorCode::INVALID_PARAMS);
        assert_eq!(unreadable_request("tools/frobnicate", None).code, ErrorCode::METHOD_NOT_FOUND);
    }

    #[cfg(feature = "http")]
    #[test]
    fn a_body_that_is_not_json_is_a_parse_error_and_a_batch_an_invalid_request() {
        assert_eq!(unreadable_body(b"{\"jsonrpc\": ").0, ErrorCode::PARSE_ERROR);
        assert_eq!(
            unreadable_body(b"[{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}]").0,
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(unreadable_body(b"{\"hello\": 1}").0, ErrorCode::INVALID_REQUEST);
    }
}
