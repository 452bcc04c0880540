//! How binding errors are worded for the model: types and values in JSON's words,
//! and the sentence for missing and unexpected parameters.

use serde_json::Value;

use crate::tool::names::{python_list, snake_case, snake_names};
use crate::tool::{WitType, json_kind};

/// What a type looks like in JSON, for error messages.
pub(crate) fn expected_words(ty: &WitType) -> String {
    match ty {
        WitType::Bool => "a boolean (true or false)".into(),
        WitType::F32 => "a number of magnitude at most 3.4e38".into(),
        WitType::F64 => "a number".into(),
        WitType::Char => "a single character (a string of length 1)".into(),
        WitType::String => "a string".into(),
        WitType::List(item) => format!("an array whose items are each {}", expected_words(item)),
        WitType::Option(inner) => format!("{} or null", expected_words(inner)),
        WitType::Result { .. } => "an object with one key, \"ok\" or \"err\"".into(),
        WitType::Record(fields) => {
            let names: Vec<String> = fields.iter().map(|f| snake_case(&f.name)).collect();
            format!("an object with the fields {}", python_list(&names))
        }
        WitType::Tuple(types) => format!("an array of exactly {} items", types.len()),
        WitType::Enum(names) => format!("one of {}", snake_list(names)),
        WitType::Flags(names) => format!("an array of flags from {}", snake_list(names)),
        WitType::Variant(cases) => {
            let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
            format!("an object {{\"tag\": …, \"value\": …}} whose tag is one of {}", snake_list(&names))
        }
        WitType::Unsupported(what) => format!("a {what}, which cannot be sent as JSON"),
        integer => {
            let (lo, hi) = integer.integer_range().expect("the remaining types are integers");
            format!("an integer between {lo} and {hi}")
        }
    }
}

/// WIT names as the model spells them, in a Python-style list: `['a_b', 'c']`.
pub(crate) fn snake_list<S: AsRef<str>>(wit_names: &[S]) -> String {
    python_list(&snake_names(wit_names))
}

/// The sentence for arguments that are not an object: the model must send one key
/// per parameter.
pub(crate) fn not_an_object(tool: &str, arguments: &Value) -> String {
    format!("Tool '{tool}' takes its arguments as a JSON object (one key per parameter), got {}.", json_kind(arguments))
}

/// A value's JSON text, cut to a readable length.
pub(crate) fn shorten(value: &Value) -> String {
    shorten_text(&value.to_string())
}

/// A text cut to a readable length (80 characters, then `…`).
pub(crate) fn shorten_text(text: &str) -> String {
    const LIMIT: usize = 80;
    match text.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// `Tool 'x' was called with missing required parameter 'a' and unexpected parameters 'b', 'c'.`
pub(crate) fn misfit(tool: &str, missing: &[&str], unexpected: &[&str]) -> String {
    let parameters = |n: usize| if n == 1 { "parameter" } else { "parameters" };
    let quoted = |names: &[&str]| names.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ");
    let mut parts = Vec::new();
    if !missing.is_empty() {
        parts.push(format!("missing required {} {}", parameters(missing.len()), quoted(missing)));
    }
    if !unexpected.is_empty() {
        parts.push(format!("unexpected {} {}", parameters(unexpected.len()), quoted(unexpected)));
    }
    format!("Tool '{tool}' was called with {}.", parts.join(" and "))
}
