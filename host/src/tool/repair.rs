//! What the host changed in a model's call so that it could run: one [`Repair`] per
//! change, in the order made, each with the words a log or a developer reads.

use std::fmt;

use serde::Serialize;

/// One change the host made to a model's call to run it: the name, the argument text
/// or a value, never a guess (see README "What the host repairs").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Repair {
    /// The tool's name was not the registered one: another case or separator, a
    /// provider's spelling of it (`uber_ride` for `uber.ride`), or a wrapper stripped.
    ToolName {
        /// The name as sent.
        from: String,
        /// The registered name that ran.
        to: String,
    },
    /// The argument text was not strict JSON; `how` says what made it readable.
    ArgumentText {
        /// What was done, e.g. `missing closing brackets added`.
        how: String,
    },
    /// A parameter's or a field's name was spelt differently (`Query` for `query`).
    Key {
        /// Where the key is (`Query`, or `filter.MaxResults` inside an object).
        path: String,
        /// The name as sent.
        from: String,
        /// The name it was read as.
        to: String,
    },
    /// A value was read as its declared type (`"7"` as 7, `"Celsius"` as `"celsius"`).
    Value {
        /// Where the value is.
        path: String,
        /// The value as sent, as JSON.
        from: String,
        /// The value it was read as, as JSON.
        to: String,
    },
    /// `null` was sent for an optional parameter (or field) that does not take null:
    /// taken as not given.
    NullOmitted {
        /// Where the `null` was.
        path: String,
    },
    /// A lone value was sent where an array was expected, and became its one item.
    Wrapped {
        /// Where the value is.
        path: String,
    },
    /// A parameter with an empty name and an empty value (`"": ""`), which the tool
    /// does not have, was dropped.
    EmptyKeyDropped {
        /// Its value, as JSON.
        value: String,
    },
    /// A written call's closing tag was missing (a call recovered from reply text).
    ClosingTag {
        /// The tag, e.g. `</tool_call>`.
        tag: String,
    },
    /// How a call written into a reply was read where it was not written as its
    /// dialect writes it: prose around it, a fence around the reply, a quoted name.
    CallText {
        /// What was done, e.g. `prose around the call left out`.
        how: String,
    },
}

impl fmt::Display for Repair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Repair::ToolName { from, to } => write!(f, "name '{from}' → '{to}'"),
            Repair::ArgumentText { how } => write!(f, "argument text: {how}"),
            Repair::Key { path, from, to } => match path.rsplit_once(['.', ']']) {
                Some((parent, _)) => write!(f, "'{parent}': key '{from}' read as '{to}'"),
                None => write!(f, "parameter '{from}' read as '{to}'"),
            },
            Repair::Value { path, from, to } => write!(f, "'{path}': {from} read as {to}"),
            Repair::NullOmitted { path } => write!(f, "'{path}': null taken as not given"),
            Repair::Wrapped { path } => write!(f, "'{path}' wrapped in a list"),
            Repair::EmptyKeyDropped { value } => write!(f, "an empty-named parameter (\"\": {value}) dropped"),
            Repair::ClosingTag { tag } => write!(f, "the closing {tag} was missing"),
            Repair::CallText { how } => write!(f, "call text: {how}"),
        }
    }
}

impl Repair {
    /// The repair as JSON: its kind and facts, and `message`, its words.
    pub fn to_json(&self) -> serde_json::Value {
        let mut json = serde_json::to_value(self).unwrap_or_default();
        json["message"] = serde_json::Value::String(self.to_string());
        json
    }
}

#[cfg(test)]
mod tests {
    use super::Repair;

    #[test]
    fn each_repair_reads_as_one_short_line() {
        let cases = [
            (Repair::ToolName { from: "uber_ride".into(), to: "uber.ride".into() }, "name 'uber_ride' → 'uber.ride'"),
            (Repair::NullOmitted { path: "show_date".into() }, "'show_date': null taken as not given"),
            (Repair::Wrapped { path: "cuisine".into() }, "'cuisine' wrapped in a list"),
            (
                Repair::Key { path: "Query".into(), from: "Query".into(), to: "query".into() },
                "parameter 'Query' read as 'query'",
            ),
            (
                Repair::Key { path: "filter.MaxResults".into(), from: "MaxResults".into(), to: "max_results".into() },
                "'filter': key 'MaxResults' read as 'max_results'",
            ),
            (Repair::Value { path: "limit".into(), from: "\"7\"".into(), to: "7".into() }, "'limit': \"7\" read as 7"),
            (Repair::EmptyKeyDropped { value: "\"\"".into() }, "an empty-named parameter (\"\": \"\") dropped"),
        ];
        for (repair, words) in cases {
            assert_eq!(repair.to_string(), words);
        }
    }
}
