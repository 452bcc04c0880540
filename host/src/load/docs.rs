//! Tool descriptions from a component's embedded WIT docs, split into a description
//! and per-parameter notes.
//!
//! Two sources are read: the `toolhost-docs` custom section that `toolhost-guest`
//! embeds in the core module (wit-bindgen itself drops docs), and the standard
//! `package-docs` section of the component, for toolchains that keep it. Where both
//! describe a function, `toolhost-docs` wins.

use std::collections::HashMap;

use serde_json::Value;
use wit_parser::decoding::{DecodedWasm, decode};
use wit_parser::{WorldItem, WorldKey};

/// Doc comments of a component's exported functions, keyed by
/// (exported interface name, function name); top-level functions have no interface.
#[derive(Debug, Default)]
pub(crate) struct ComponentDocs {
    functions: HashMap<(Option<String>, String), String>,
}

impl ComponentDocs {
    /// Reads the docs of every exported function. A component without docs, or
    /// whose WIT cannot be decoded, has none: docs are never a reason to reject it.
    pub(crate) fn read(bytes: &[u8]) -> ComponentDocs {
        let mut docs = ComponentDocs::from_package_docs(bytes);
        docs.functions.extend(toolhost_docs(bytes));
        docs
    }

    fn from_package_docs(bytes: &[u8]) -> ComponentDocs {
        match decode(bytes) {
            Ok(DecodedWasm::Component(resolve, world)) => {
                let mut functions = HashMap::new();
                for (key, item) in &resolve.worlds[world].exports {
                    match (key, item) {
                        (WorldKey::Name(name), WorldItem::Function(f)) => {
                            if let Some(doc) = &f.docs.contents {
                                functions.insert((None, name.clone()), doc.clone());
                            }
                        }
                        (key, WorldItem::Interface { id, .. }) => {
                            let interface = resolve.name_world_key(key);
                            for (name, f) in &resolve.interfaces[*id].functions {
                                if let Some(doc) = &f.docs.contents {
                                    functions.insert((Some(interface.clone()), name.clone()), doc.clone());
                                }
                            }
                        }
                        _ => {}
                    }
                }
                ComponentDocs { functions }
            }
            Ok(DecodedWasm::WitPackage(..)) => ComponentDocs::default(),
            Err(error) => {
                tracing::debug!("no WIT docs could be read: {error:#}");
                ComponentDocs::default()
            }
        }
    }

    /// The doc comment of a function, if it has one.
    pub(crate) fn function(&self, interface: Option<&str>, name: &str) -> Option<&str> {
        self.functions.get(&(interface.map(str::to_string), name.to_string())).map(String::as_str)
    }
}

/// The `toolhost-docs` sections anywhere in the component (nested modules included).
fn toolhost_docs(bytes: &[u8]) -> HashMap<(Option<String>, String), String> {
    let mut functions = HashMap::new();
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        let Ok(wasmparser::Payload::CustomSection(section)) = payload else { continue };
        if section.name() != "toolhost-docs" {
            continue;
        }
        let Ok(Value::Object(section)) = serde_json::from_slice::<Value>(section.data()) else {
            tracing::debug!("ignoring a toolhost-docs section that is not a JSON object");
            continue;
        };
        let strings = |value: Option<&Value>| -> Vec<(String, String)> {
            let Some(Value::Object(map)) = value else { return Vec::new() };
            map.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect()
        };
        for (name, doc) in strings(section.get("functions")) {
            functions.insert((None, name), doc);
        }
        if let Some(Value::Object(interfaces)) = section.get("interfaces") {
            for (interface, funcs) in interfaces {
                for (name, doc) in strings(Some(funcs)) {
                    functions.insert((Some(interface.clone()), name), doc);
                }
            }
        }
    }
    functions
}

/// A function's doc comment, split into the tool description and parameter notes.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct FunctionDoc {
    /// The text before the parameter list, paragraphs kept.
    pub(crate) description: String,
    /// Notes for parameters, by WIT name: lines of the form `- name: text`
    /// (continuation lines indented).
    pub(crate) params: HashMap<String, String>,
}

impl FunctionDoc {
    /// Splits a doc comment; `param_names` are the WIT names to look for.
    pub(crate) fn parse(doc: &str, param_names: &[&str]) -> FunctionDoc {
        let mut description = Vec::new();
        let mut params: HashMap<String, String> = HashMap::new();
        let mut current: Option<String> = None;
        for line in doc.lines() {
            if let Some((name, text)) = param_line(line, param_names) {
                params.insert(name.to_string(), text.trim().to_string());
                current = Some(name.to_string());
            } else if let (Some(name), true) = (&current, line.starts_with("  ")) {
                let note = params.get_mut(name).expect("current names an inserted note");
                note.push(' ');
                note.push_str(line.trim());
            } else {
                current = None;
                description.push(line.trim_end());
            }
        }
        FunctionDoc { description: description.join("\n").trim().to_string(), params }
    }
}

/// Recognises `- name: text` (the name optionally in backticks) for a known parameter.
fn param_line<'a>(line: &'a str, param_names: &[&str]) -> Option<(&'a str, &'a str)> {
    let rest = line.trim_start().strip_prefix("- ")?;
    let (name, text) = rest.split_once(':')?;
    let name = name.trim().trim_matches('`');
    param_names.contains(&name).then_some((name, text))
}

#[cfg(test)]
mod tests {
    use super::FunctionDoc;

    #[test]
    fn parameter_lines_are_split_from_the_description() {
        let doc = "Converts a value.\nFails on mixed dimensions.\n\n- value: the amount.\n- to: the unit\n  to convert to.\n- other: not a parameter";
        let parsed = FunctionDoc::parse(doc, &["value", "to"]);
        assert_eq!(parsed.description, "Converts a value.\nFails on mixed dimensions.\n\n- other: not a parameter");
        assert_eq!(parsed.params["value"], "the amount.");
        assert_eq!(parsed.params["to"], "the unit to convert to.");
    }
}
