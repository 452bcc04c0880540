//! An OpenAPI document's operations as tools: each one's name, description and one
//! object of parameters merged from its path, query, header and cookie parameters
//! and its JSON (or form) body; and where each argument is sent. An operation a
//! model cannot use (a file upload, a streamed answer, a part with no schema) is
//! skipped, saying why.
//!
//! Names: a path or query parameter keeps its name; a header's or cookie's is made
//! snake_case (`X-Request-ID` → `x_request_id`); an object body's properties are
//! parameters of their own, any other body is the one parameter `body`. When a name
//! is taken, the later one is prefixed with where it goes: `query_id`, `header_id`,
//! `body_id` (parameters before the body, in the order path, query, header, cookie).

use serde_json::{Map, Value, json};

use super::document::{Defs, Document};

/// The methods an operation may have, as OpenAPI writes them.
const METHODS: [&str; 8] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/// Media types of a body sent as JSON, besides `*/*+json`.
const JSON: &str = "application/json";
const FORM: &str = "application/x-www-form-urlencoded";

/// Media types of answers that stream, which one tool result cannot carry.
const STREAMS: [&str; 4] =
    ["text/event-stream", "application/x-ndjson", "application/stream+json", "application/jsonl"];

/// How deep `allOf`s and `$ref`s are followed to find a body's properties.
const MAX_NESTING: usize = 16;

/// The longest tool name made (OpenAI's limit).
const MAX_NAME: usize = 64;

/// Where an argument is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    Path,
    Query,
    Header,
    Cookie,
    /// A property of the JSON or form body.
    Body,
    /// The whole body.
    WholeBody,
}

/// How the body is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyKind {
    Json,
    Form,
}

/// One argument of a tool and where it goes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Argument {
    /// The parameter's name in the tool's schema.
    pub(crate) name: String,
    pub(crate) place: Place,
    /// Its name in the request (the API's parameter or property name).
    pub(crate) wire: String,
    /// For an array or object in the query: each item its own `name=value`
    /// (OpenAPI's default, `explode`), else one comma-separated value.
    pub(crate) explode: bool,
    /// `style: deepObject`: an object as `name[key]=value`.
    pub(crate) deep: bool,
    /// A parameter described by `content` rather than `schema`: sent as JSON text.
    pub(crate) as_json: bool,
}

/// What an operation is known by: for `include` and `exclude`, and in warnings.
#[derive(Debug, Clone)]
pub(crate) struct Route {
    /// The tool's name as made from the document (before any `[tools.NAME] name`).
    pub(crate) name: String,
    pub(crate) operation_id: Option<String>,
    /// Upper case, e.g. `GET`.
    pub(crate) method: String,
    /// The path template, e.g. `/pet/{petId}`.
    pub(crate) path: String,
    pub(crate) tags: Vec<String>,
}

impl Route {
    /// `GET /pet/{petId}`.
    pub(crate) fn label(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
}

/// An operation as a tool.
#[derive(Debug, Clone)]
pub(crate) struct Operation {
    pub(crate) route: Route,
    pub(crate) summary: Option<String>,
    pub(crate) description: String,
    pub(crate) input_schema: Value,
    pub(crate) arguments: Vec<Argument>,
    pub(crate) body: Option<BodyKind>,
}

/// An operation that is no tool, and why.
#[derive(Debug, Clone)]
pub(crate) struct Skipped {
    pub(crate) route: Route,
    pub(crate) why: String,
}

impl Skipped {
    /// `POST /upload is not a tool: it takes a file upload (multipart/form-data)`;
    /// for a path whose operations cannot be read, `/upload: why`.
    pub(crate) fn warning(&self) -> String {
        match self.route.method.as_str() {
            "" => format!("{}: {}", self.route.path, self.why),
            _ => format!("{} is not a tool: {}", self.route.label(), self.why),
        }
    }
}

/// Every operation of `doc` as a tool, in the document's order, and those that
/// cannot be, each with why.
pub(crate) fn operations(doc: &Document) -> (Vec<Operation>, Vec<Skipped>) {
    let mut made: Vec<Operation> = Vec::new();
    let mut skipped = Vec::new();
    let Some(paths) = doc.root.get("paths").and_then(Value::as_object) else { return (made, skipped) };
    for (path, item) in paths {
        let item = match doc.follow(item) {
            Ok(item) => item,
            // A path whose item cannot be read: its operations cannot be known.
            Err(why) => {
                skipped.push(Skipped { route: route_of(path, "", &Value::Null), why });
                continue;
            }
        };
        for method in METHODS {
            let Some(operation) = item.get(method) else { continue };
            let route = route_of(path, method, operation);
            match operation_tool(doc, route.clone(), item, operation) {
                Ok(mut tool) => {
                    tool.route.name = unique_name(&tool.route.name, &made);
                    made.push(tool);
                }
                Err(why) => skipped.push(Skipped { route, why }),
            }
        }
    }
    (made, skipped)
}

/// What the operation `method` of `path` is known by.
fn route_of(path: &str, method: &str, operation: &Value) -> Route {
    let operation_id = operation.get("operationId").and_then(Value::as_str).map(str::trim).filter(|t| !t.is_empty());
    let tags = operation.get("tags").and_then(Value::as_array).into_iter().flatten();
    Route {
        name: operation_id.map_or_else(|| name_from_route(method, path), tool_name),
        operation_id: operation_id.map(str::to_string),
        method: method.to_ascii_uppercase(),
        path: path.to_string(),
        tags: tags.filter_map(Value::as_str).map(str::to_string).collect(),
    }
}

/// The tool of one operation, or why it cannot be one.
fn operation_tool(doc: &Document, route: Route, item: &Value, operation: &Value) -> Result<Operation, String> {
    let text = |key: &str| operation.get(key).and_then(Value::as_str).map(str::trim).filter(|t| !t.is_empty());
    if streams(doc, operation)? {
        return Err("it answers with a stream, which one tool result cannot carry".into());
    }
    let mut defs = Defs::new();
    let mut shape = Shape::default();
    for parameter in parameters(doc, item, operation)? {
        shape.parameter(doc, parameter, &mut defs)?;
    }
    let body = match operation.get("requestBody") {
        Some(body) => Some(shape.body(doc, doc.follow(body)?, &mut defs)?),
        None => None,
    };
    let mut input_schema = json!({"type": "object", "properties": shape.properties, "required": shape.required});
    if !defs.is_empty() {
        input_schema["$defs"] = Value::Object(defs.into_iter().collect());
    }
    let summary = text("summary").map(str::to_string);
    let description = match (summary.as_deref(), text("description")) {
        (Some(summary), Some(more)) if more != summary => format!("{summary}\n\n{more}"),
        (Some(one), _) | (None, Some(one)) => one.to_string(),
        (None, None) => route.label(),
    };
    Ok(Operation { route, summary, description, input_schema, arguments: shape.arguments, body })
}

/// The operation's parameters, its path's overridden by its own of the same name
/// and place; `Accept`, `Content-Type` and `Authorization` headers left out (OpenAPI
/// says they are ignored).
fn parameters<'a>(doc: &'a Document, item: &'a Value, operation: &'a Value) -> Result<Vec<&'a Value>, String> {
    let listed = |at: &'a Value| at.get("parameters").and_then(Value::as_array).into_iter().flatten();
    let mut found: Vec<&Value> = Vec::new();
    for parameter in listed(item).chain(listed(operation)) {
        let parameter = doc.follow(parameter)?;
        let key = |p: &Value| (p.get("name").cloned(), p.get("in").cloned());
        found.retain(|earlier| key(earlier) != key(parameter));
        found.push(parameter);
    }
    let ignored = |p: &&Value| {
        p.get("in").and_then(Value::as_str) == Some("header")
            && p.get("name").and_then(Value::as_str).is_some_and(|name| {
                ["accept", "content-type", "authorization"].contains(&name.to_ascii_lowercase().as_str())
            })
    };
    Ok(found.into_iter().filter(|p| !ignored(p)).collect())
}

/// Whether every successful answer the operation describes is a stream.
fn streams(doc: &Document, operation: &Value) -> Result<bool, String> {
    let Some(responses) = operation.get("responses").and_then(Value::as_object) else { return Ok(false) };
    let mut types = Vec::new();
    for (status, response) in responses {
        if status.starts_with('2') {
            let response = doc.follow(response)?;
            types.extend(response.get("content").and_then(Value::as_object).into_iter().flat_map(|c| c.keys()));
        }
    }
    Ok(!types.is_empty() && types.iter().all(|ty| STREAMS.iter().any(|stream| ty.starts_with(stream))))
}

/// The tool's parameters as they are made.
#[derive(Default)]
struct Shape {
    properties: Map<String, Value>,
    required: Vec<String>,
    arguments: Vec<Argument>,
}

impl Shape {
    /// Adds one OpenAPI parameter.
    fn parameter(&mut self, doc: &Document, parameter: &Value, defs: &mut Defs) -> Result<(), String> {
        let wire = parameter.get("name").and_then(Value::as_str).ok_or("a parameter has no name")?;
        let place = match parameter.get("in").and_then(Value::as_str) {
            Some("path") => Place::Path,
            Some("query") => Place::Query,
            Some("header") => Place::Header,
            Some("cookie") => Place::Cookie,
            other => return Err(format!("its parameter '{wire}' is in {other:?}, which is no place a request has")),
        };
        let (schema, as_json) = match (parameter.get("schema"), parameter.get("content").and_then(Value::as_object)) {
            (Some(schema), _) => (schema, false),
            (None, Some(content)) => match content.values().next().and_then(|media| media.get("schema")) {
                Some(schema) => (schema, true),
                None => return Err(format!("its parameter '{wire}' has no schema")),
            },
            (None, None) => return Err(format!("its parameter '{wire}' has no schema")),
        };
        let mut schema = doc.schema(schema, defs)?;
        describe(&mut schema, parameter);
        let style = parameter.get("style").and_then(Value::as_str);
        let explode = parameter.get("explode").and_then(Value::as_bool).unwrap_or(style.is_none_or(|s| s == "form"));
        let name = match place {
            Place::Header | Place::Cookie => snake_case(wire),
            _ => wire.to_string(),
        };
        let required = place == Place::Path || parameter.get("required").and_then(Value::as_bool) == Some(true);
        let argument =
            Argument { name, place, wire: wire.to_string(), explode, deep: style == Some("deepObject"), as_json };
        self.add(argument, schema, required);
        Ok(())
    }

    /// Adds the request body: an object's properties each a parameter, anything else
    /// the one parameter `body`.
    fn body(&mut self, doc: &Document, body: &Value, defs: &mut Defs) -> Result<BodyKind, String> {
        let content = body.get("content").and_then(Value::as_object).ok_or("its request body has no content")?;
        let json = content.iter().find(|(ty, _)| is_json(ty)).map(|(_, media)| (BodyKind::Json, media));
        let form = content.get(FORM).map(|media| (BodyKind::Form, media));
        let Some((kind, media)) = json.or(form) else {
            let upload = content.iter().find(|(ty, media)| is_upload(doc, ty, media));
            return Err(match upload {
                Some((ty, _)) => format!("it takes a file upload ({ty})"),
                None => {
                    let types: Vec<&str> = content.keys().map(String::as_str).collect();
                    format!(
                        "its request body is {}, which the host does not send (JSON or a URL-encoded form only)",
                        types.join(", ")
                    )
                }
            });
        };
        let schema = media.get("schema").ok_or("its request body has no schema")?;
        let schema = doc.schema(schema, defs)?;
        let body_required = body.get("required").and_then(Value::as_bool) == Some(true);
        match object_parts(&schema, defs, 0) {
            Some(ObjectParts { properties, required }) => {
                for (wire, property) in properties {
                    let required = body_required && required.contains(&wire);
                    let argument = Argument {
                        name: wire.clone(),
                        place: Place::Body,
                        wire,
                        explode: true,
                        deep: false,
                        as_json: false,
                    };
                    self.add(argument, property, required);
                }
            }
            None => {
                let mut schema = schema;
                describe(&mut schema, body);
                let argument = Argument {
                    name: "body".into(),
                    place: Place::WholeBody,
                    wire: String::new(),
                    explode: true,
                    deep: false,
                    as_json: false,
                };
                self.add(argument, schema, body_required);
            }
        }
        Ok(kind)
    }

    /// Adds `argument` with `schema`, renamed when its name is taken.
    fn add(&mut self, mut argument: Argument, schema: Value, required: bool) {
        if self.properties.contains_key(&argument.name) {
            let prefix = match argument.place {
                Place::Path => "path",
                Place::Query => "query",
                Place::Header => "header",
                Place::Cookie => "cookie",
                Place::Body | Place::WholeBody => "body",
            };
            let mut name = format!("{prefix}_{}", argument.name);
            while self.properties.contains_key(&name) {
                name.push('_');
            }
            argument.name = name;
        }
        if required {
            self.required.push(argument.name.clone());
        }
        self.properties.insert(argument.name.clone(), schema);
        self.arguments.push(argument);
    }
}

/// An object schema's properties, in order, and the names it requires.
struct ObjectParts {
    properties: Vec<(String, Value)>,
    required: Vec<String>,
}

/// The properties and required names of an object schema (its `$ref` followed in
/// `defs`, its `allOf` parts merged); `None` for anything else (an array, a scalar,
/// a choice among schemas, an object with no properties).
fn object_parts(schema: &Value, defs: &Defs, depth: usize) -> Option<ObjectParts> {
    if depth > MAX_NESTING {
        return None;
    }
    let schema = followed(schema, defs, 0)?;
    if schema.get("oneOf").is_some() || schema.get("anyOf").is_some() {
        return None;
    }
    let mut properties: Vec<(String, Value)> = Vec::new();
    let mut required: Vec<String> = Vec::new();
    if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
        for part in parts {
            let part = object_parts(part, defs, depth + 1)?;
            properties.extend(part.properties);
            required.extend(part.required);
        }
    }
    if let Some(own) = schema.get("properties").and_then(Value::as_object) {
        properties.extend(own.iter().map(|(name, schema)| (name.clone(), schema.clone())));
    }
    let needed = schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str);
    required.extend(needed.map(str::to_string));
    (!properties.is_empty()).then_some(ObjectParts { properties, required })
}

/// `schema` with a `$ref` to `#/$defs/NAME` followed.
fn followed<'a>(schema: &'a Value, defs: &'a Defs, depth: usize) -> Option<&'a Value> {
    match schema.get("$ref").and_then(Value::as_str) {
        None => Some(schema),
        Some(_) if depth > MAX_NESTING => None,
        Some(reference) => {
            let name = reference.strip_prefix("#/$defs/")?;
            followed(defs.get(&name.replace("~1", "/").replace("~0", "~"))?, defs, depth + 1)
        }
    }
}

/// Puts the parameter's (or body's) description on its schema, unless it has one.
fn describe(schema: &mut Value, described: &Value) {
    if let (Value::Object(schema), Some(text)) = (schema, described.get("description").and_then(Value::as_str))
        && !schema.contains_key("description")
    {
        schema.insert("description".into(), Value::String(text.trim().to_string()));
    }
}

/// Whether `ty` is sent as JSON (`application/json`, `application/problem+json`, …).
fn is_json(ty: &str) -> bool {
    let ty = ty.split(';').next().unwrap_or_default().trim();
    ty == JSON || ty.ends_with("+json")
}

/// Whether a body of media type `ty` is a file, or a multipart form with one.
fn is_upload(doc: &Document, ty: &str, media: &Value) -> bool {
    if ty.starts_with("multipart/") {
        let mut defs = Defs::new();
        let Some(schema) = media.get("schema").and_then(|schema| doc.schema(schema, &mut defs).ok()) else {
            return false;
        };
        return holds_file(&schema) || defs.values().any(holds_file);
    }
    let media_type = |prefix: &str| ty.starts_with(prefix);
    ty == "application/octet-stream" || ["image/", "audio/", "video/"].into_iter().any(media_type)
}

/// Whether a schema describes file content somewhere (`format: binary` or `base64`,
/// or JSON Schema's `contentMediaType`).
fn holds_file(schema: &Value) -> bool {
    match schema {
        Value::Object(keywords) => {
            let format = keywords.get("format").and_then(Value::as_str);
            matches!(format, Some("binary" | "base64"))
                || keywords.contains_key("contentMediaType")
                || keywords.values().any(holds_file)
        }
        Value::Array(items) => items.iter().any(holds_file),
        _ => false,
    }
}

/// An operation id as a tool name: letters, digits, `_` and `-` (what every model
/// API takes), at most 64 characters.
fn tool_name(operation_id: &str) -> String {
    let name: String =
        operation_id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    name.chars().take(MAX_NAME).collect()
}

/// A name for an operation without an id: `get_pet_by_petId` for `GET /pet/{petId}`.
fn name_from_route(method: &str, path: &str) -> String {
    let mut words = vec![method.to_ascii_lowercase()];
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            Some(parameter) => words.push(format!("by_{parameter}")),
            None => words.push(segment.to_string()),
        }
    }
    let name = tool_name(&words.join("_"));
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if !(c == '_' && out.ends_with('_')) {
            out.push(c);
        }
    }
    out.trim_end_matches('_').to_string()
}

/// `X-Request-ID` → `x_request_id`.
fn snake_case(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect()
}

/// `name`, or `name_2`, `name_3`, … when an earlier operation has it (cut so that
/// it stays within 64 characters).
fn unique_name(name: &str, made: &[Operation]) -> String {
    let taken = |candidate: &str| made.iter().any(|op| op.route.name == candidate);
    if !taken(name) {
        return name.to_string();
    }
    let numbered = |n: usize| {
        let suffix = format!("_{n}");
        let base: String = name.chars().take(MAX_NAME.saturating_sub(suffix.len())).collect();
        base + &suffix
    };
    (2..).map(numbered).find(|candidate| !taken(candidate)).unwrap_or_default()
}

#[cfg(test)]
mod tests;
