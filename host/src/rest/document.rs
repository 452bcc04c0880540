//! An OpenAPI document as read: JSON or YAML, OpenAPI 3.0 or 3.1 (Swagger 2.0 is
//! refused with what to do), its local `$ref`s followed, its schemas made into the
//! JSON Schema a tool's parameters are checked against.
//!
//! The document is read as JSON values rather than through a typed OpenAPI crate:
//! what a tool needs of it is JSON Schema, which those crates hold as their own
//! structs (and each reads one of 3.0 and 3.1); the JSON is what the binder takes.

use std::collections::BTreeMap;

use percent_encoding::percent_decode_str;
use serde_json::{Map, Value};

/// How many `$ref`s in a row are followed, and how deep a schema is converted.
const MAX_DEPTH: usize = 64;

/// Keywords whose values are data, never schemas: left as written.
const DATA_KEYWORDS: [&str; 5] = ["enum", "const", "default", "example", "examples"];

/// Keywords whose values are maps of names to schemas.
const SCHEMA_MAPS: [&str; 5] = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/// Why a document cannot be used.
#[derive(Debug, thiserror::Error, PartialEq)]
pub(crate) enum DocumentError {
    #[error("it is neither JSON nor YAML: {0}")]
    Syntax(String),
    #[error(
        "it is a Swagger 2.0 document; the host reads OpenAPI 3.0 and 3.1 (convert it first, e.g. `npx swagger2openapi swagger.json -o openapi.json`)"
    )]
    Swagger2,
    #[error("it is not an OpenAPI document: it has no `openapi` version")]
    NotOpenApi,
    #[error("it is OpenAPI {0}; the host reads 3.0 and 3.1")]
    Version(String),
}

/// Which OpenAPI the document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// 3.0: its schemas are a variant of JSON Schema (`nullable`, boolean exclusive bounds).
    V30,
    /// 3.1: its schemas are JSON Schema 2020-12.
    V31,
}

/// A read OpenAPI document.
pub(crate) struct Document {
    pub(crate) root: Value,
    pub(crate) dialect: Dialect,
}

/// The component schemas a tool's schema refers to, converted, by name.
pub(crate) type Defs = BTreeMap<String, Value>;

impl Document {
    /// Reads `bytes`: JSON when it parses as JSON, else YAML.
    pub(crate) fn read(bytes: &[u8]) -> Result<Document, DocumentError> {
        let root: Value = match serde_json::from_slice(bytes) {
            Ok(root) => root,
            Err(json) => {
                let text = std::str::from_utf8(bytes).map_err(|_| DocumentError::Syntax(json.to_string()))?;
                serde_saphyr::from_str(text).map_err(|yaml| DocumentError::Syntax(first_line(&yaml.to_string())))?
            }
        };
        if root.get("swagger").is_some() {
            return Err(DocumentError::Swagger2);
        }
        let version = root.get("openapi").and_then(Value::as_str).ok_or(DocumentError::NotOpenApi)?;
        let dialect = match version.split('.').take(2).collect::<Vec<_>>()[..] {
            ["3", "0"] => Dialect::V30,
            ["3", "1" | "2"] => Dialect::V31,
            _ => return Err(DocumentError::Version(version.to_string())),
        };
        Ok(Document { root, dialect })
    }

    /// The first server's URL with its variables' defaults, if the document has one.
    pub(crate) fn server_url(&self) -> Option<String> {
        let server = self.root.get("servers")?.as_array()?.first()?;
        let mut url = server.get("url")?.as_str()?.to_string();
        if let Some(variables) = server.get("variables").and_then(Value::as_object) {
            for (name, variable) in variables {
                if let Some(default) = variable.get("default").and_then(Value::as_str) {
                    url = url.replace(&format!("{{{name}}}"), default);
                }
            }
        }
        Some(url)
    }

    /// `value` with its `$ref`s followed (a parameter, a request body, a response):
    /// itself when it is no reference.
    pub(crate) fn follow<'a>(&'a self, mut value: &'a Value) -> Result<&'a Value, String> {
        for _ in 0..MAX_DEPTH {
            let Some(reference) = value.get("$ref").and_then(Value::as_str) else { return Ok(value) };
            value = self.pointed(reference)?;
        }
        Err("its `$ref`s go round in a circle".into())
    }

    /// What the local reference `reference` (`#/…`) points to.
    fn pointed(&self, reference: &str) -> Result<&Value, String> {
        let pointer = local_pointer(reference)?;
        self.root.pointer(&pointer).ok_or_else(|| format!("its `$ref` '{reference}' points to nothing in the document"))
    }

    /// `schema` as JSON Schema: a reference to a component schema becomes one to
    /// `#/$defs/NAME`, with the component (converted too) put in `defs`; any other
    /// local reference is put in its place; OpenAPI 3.0's `nullable` and boolean
    /// `exclusiveMinimum`/`exclusiveMaximum` become JSON Schema's.
    pub(crate) fn schema(&self, schema: &Value, defs: &mut Defs) -> Result<Value, String> {
        self.convert(schema, defs, 0)
    }

    fn convert(&self, value: &Value, defs: &mut Defs, depth: usize) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err(format!("its schemas nest deeper than {MAX_DEPTH}"));
        }
        let Value::Object(keywords) = value else {
            return match value {
                Value::Array(items) => items.iter().map(|item| self.convert(item, defs, depth + 1)).collect(),
                other => Ok(other.clone()),
            };
        };
        if let Some(reference) = keywords.get("$ref").and_then(Value::as_str) {
            return self.reference(reference, keywords, defs, depth);
        }
        let mut out = Map::new();
        for (key, value) in keywords {
            let converted = if DATA_KEYWORDS.contains(&key.as_str()) || key.starts_with("x-") {
                value.clone()
            } else if SCHEMA_MAPS.contains(&key.as_str())
                && let Value::Object(named) = value
            {
                let each =
                    named.iter().map(|(name, schema)| Ok((name.clone(), self.convert(schema, defs, depth + 1)?)));
                Value::Object(each.collect::<Result<_, String>>()?)
            } else {
                self.convert(value, defs, depth + 1)?
            };
            out.insert(key.clone(), converted);
        }
        // A boolean bound has only 3.0's meaning (3.1 documents written in 3.0's way have it too).
        json_schema_bounds(&mut out);
        if self.dialect == Dialect::V30 {
            return Ok(json_schema_nullable(out));
        }
        Ok(Value::Object(out))
    }

    /// The schema `{"$ref": reference, …}` as JSON Schema.
    fn reference(
        &self,
        reference: &str,
        keywords: &Map<String, Value>,
        defs: &mut Defs,
        depth: usize,
    ) -> Result<Value, String> {
        let pointer = local_pointer(reference)?;
        let Some(rest) = pointer.strip_prefix("/components/schemas/") else {
            // Elsewhere in the document (a parameter's schema, a path's): put in place.
            let target = self.pointed(reference)?;
            return self.convert(target, defs, depth + 1);
        };
        let (name, within) = rest.split_once('/').map_or((rest, ""), |(name, within)| (name, within));
        let name = name.replace("~1", "/").replace("~0", "~");
        if !defs.contains_key(&name) {
            let target = self.pointed(&format!("#/components/schemas/{}", escape(&name)))?.clone();
            // Marked first, so that a schema that refers to itself is converted once.
            defs.insert(name.clone(), Value::Bool(true));
            let converted = self.convert(&target, defs, depth + 1)?;
            defs.insert(name.clone(), converted);
        }
        let mut out = keywords.clone();
        let within = if within.is_empty() { String::new() } else { format!("/{within}") };
        out.insert("$ref".into(), Value::String(format!("#/$defs/{}{within}", escape(&name))));
        Ok(Value::Object(out))
    }
}

/// The JSON pointer of a local reference (`#/a/b%20c` → `/a/b c`); another
/// document's is refused, saying to bundle it.
fn local_pointer(reference: &str) -> Result<String, String> {
    let Some(fragment) = reference.strip_prefix('#') else {
        return Err(format!(
            "it refers to another document ('{reference}'): bundle the document into one file first (e.g. `npx @redocly/cli bundle`)"
        ));
    };
    Ok(percent_decode_str(fragment).decode_utf8_lossy().into_owned())
}

/// `name` as one JSON pointer token.
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// OpenAPI 3.0's boolean `exclusiveMinimum: true` (with `minimum`) as JSON Schema's
/// number; `false` dropped. The same for the maximum.
fn json_schema_bounds(schema: &mut Map<String, Value>) {
    for (exclusive, bound) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
        match schema.get(exclusive) {
            Some(Value::Bool(true)) => {
                let value = schema.remove(bound);
                schema.remove(exclusive);
                if let Some(value) = value {
                    schema.insert(exclusive.into(), value);
                }
            }
            Some(Value::Bool(false)) => {
                schema.remove(exclusive);
            }
            _ => {}
        }
    }
}

/// OpenAPI 3.0's `nullable: true` as JSON Schema: `null` added to the type (and to
/// an `enum`), or the schema made one of itself and null when it names no type.
fn json_schema_nullable(mut schema: Map<String, Value>) -> Value {
    if schema.remove("nullable") != Some(Value::Bool(true)) {
        return Value::Object(schema);
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    match schema.get("type").cloned() {
        Some(Value::String(ty)) => {
            schema.insert("type".into(), Value::Array(vec![Value::String(ty), Value::String("null".into())]));
            Value::Object(schema)
        }
        Some(Value::Array(mut types)) => {
            types.push(Value::String("null".into()));
            schema.insert("type".into(), Value::Array(types));
            Value::Object(schema)
        }
        _ => serde_json::json!({"anyOf": [Value::Object(schema), {"type": "null"}]}),
    }
}

/// The first line of a parser's message (YAML's quote the document at length).
fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or_default().to_string()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn document(root: Value) -> Document {
        Document::read(root.to_string().as_bytes()).expect("a document")
    }

    #[test]
    fn yaml_and_json_are_read_and_other_documents_refused_with_what_to_do() {
        let yaml = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n";
        assert_eq!(Document::read(yaml.as_bytes()).expect("yaml").dialect, Dialect::V31);
        let swagger = Document::read(br#"{"swagger": "2.0"}"#).err().expect("refused");
        assert!(swagger.to_string().contains("swagger2openapi"), "{swagger}");
        assert_eq!(Document::read(b"{}").err(), Some(DocumentError::NotOpenApi));
        assert!(matches!(Document::read(br#"{"openapi": "4.0.0"}"#), Err(DocumentError::Version(_))));
        assert!(matches!(Document::read(b"a: [unclosed"), Err(DocumentError::Syntax(_))));
    }

    #[test]
    fn component_schemas_become_defs_even_when_they_refer_to_themselves() {
        let doc = document(json!({"openapi": "3.0.3", "components": {"schemas": {
            "Node": {"type": "object", "properties": {
                "name": {"type": "string", "nullable": true},
                "next": {"$ref": "#/components/schemas/Node"},
                "size": {"type": "integer", "minimum": 0, "exclusiveMinimum": true},
                "colour": {"type": "string", "enum": ["red"], "nullable": true, "example": {"$ref": "kept"}}
            }}
        }}}));
        let mut defs = Defs::new();
        let schema = doc.schema(&json!({"$ref": "#/components/schemas/Node"}), &mut defs).expect("converted");
        assert_eq!(schema, json!({"$ref": "#/$defs/Node"}));
        let node = &defs["Node"]["properties"];
        assert_eq!(node["name"], json!({"type": ["string", "null"]}));
        assert_eq!(node["next"], json!({"$ref": "#/$defs/Node"}));
        assert_eq!(node["size"], json!({"type": "integer", "exclusiveMinimum": 0}));
        assert_eq!(node["colour"]["enum"], json!(["red", null]));
        assert_eq!(node["colour"]["example"], json!({"$ref": "kept"}));
    }

    #[test]
    fn references_to_other_documents_or_nothing_say_so() {
        let doc = document(json!({"openapi": "3.1.0", "paths": {}}));
        let mut defs = Defs::new();
        let other = doc.schema(&json!({"$ref": "common.yaml#/Pet"}), &mut defs).expect_err("refused");
        assert!(other.contains("bundle the document"), "{other}");
        let nothing = doc.schema(&json!({"$ref": "#/components/schemas/Gone"}), &mut defs).expect_err("refused");
        assert!(nothing.contains("points to nothing"), "{nothing}");
        let circle =
            json!({"openapi": "3.1.0", "components": {"parameters": {"a": {"$ref": "#/components/parameters/a"}}}});
        let doc = document(circle);
        let error = doc.follow(&json!({"$ref": "#/components/parameters/a"})).expect_err("refused");
        assert!(error.contains("circle"), "{error}");
    }
}
