//! The repairs tried on arguments a schema refuses, each as lossless as the WIT
//! binder's: object keys matched to property names as parameter names are (exact,
//! the other separator, the one normalised match); a string holding an integer, a
//! number or a boolean read as one where the schema wants that, and a number as its
//! text where it wants a plain string; an enum or `const`
//! value in another case or separator style. When the arguments as sent are refused,
//! also: `null` for an optional property that does not take null dropped, and a
//! lone value where an array is wanted made its one item, when it is one. Nothing
//! else is changed, each change is logged, and whether the result fits is for the
//! validator to say.

use std::fmt::Write;

use serde_json::{Map, Number, Value};

use crate::bind::wording::shorten;
use crate::tool::Repair;
use crate::tool::names::match_name;

/// How deep `$ref`s and nesting are followed; deeper values are left as they are.
const MAX_DEPTH: usize = 64;

/// A repair of values against the subschemas of one root schema, and what it changed.
pub(super) struct Mend<'s> {
    root: &'s Value,
    /// Whether the arguments as sent were refused: only then is a `null` dropped or
    /// a lone value wrapped (neither may change what the schema accepts).
    refused: bool,
    /// Where the value at hand is (`filter.tags[0]`).
    path: String,
    /// What was changed, in order.
    pub(super) log: Vec<Repair>,
}

impl<'s> Mend<'s> {
    pub(super) fn new(root: &'s Value, refused: bool) -> Mend<'s> {
        Mend { root, refused, path: String::new(), log: Vec::new() }
    }

    /// `value` repaired towards `schema`.
    pub(super) fn value(&mut self, value: Value, schema: &'s Value) -> Value {
        self.at_depth(value, schema, 0)
    }

    fn at_depth(&mut self, mut value: Value, schema: &'s Value, depth: usize) -> Value {
        let Some(keywords) = schema.as_object().filter(|_| depth < MAX_DEPTH) else { return value };
        if let Some(target) = self.target(keywords) {
            value = self.at_depth(value, target, depth + 1);
        }
        for branch in keywords.get("allOf").and_then(Value::as_array).into_iter().flatten() {
            value = self.at_depth(value, branch, depth + 1);
        }
        let branches = keywords.get("anyOf").or_else(|| keywords.get("oneOf")).and_then(Value::as_array);
        if let Some(branches) = branches {
            value = self.one_of(value, branches, depth + 1);
        }
        value = self.logged(value, |value| respell(coerce(value, keywords), keywords));
        if let Value::Number(number) = &value
            && let Some(text) = self.number_as_text(number, keywords)
        {
            value = text;
        }
        if self.refused {
            value = self.wrapped(value, keywords, depth);
        }
        match value {
            Value::Object(map) => Value::Object(self.object(map, keywords, depth)),
            Value::Array(items) => Value::Array(self.array(items, keywords, depth)),
            other => other,
        }
    }

    /// `change(value)`, logged when it changed the value.
    fn logged(&mut self, value: Value, change: impl FnOnce(Value) -> Value) -> Value {
        if !matches!(value, Value::String(_)) {
            return value;
        }
        let before = value.clone();
        let after = change(value);
        if after != before {
            self.log.push(Repair::Value { path: self.path.clone(), from: shorten(&before), to: shorten(&after) });
        }
        after
    }

    /// A number where the schema wants a plain string (no `format`; an `enum` or
    /// `const` only if it holds that text, a `pattern` only if it matches it): the
    /// number's text as JSON writes it (`5` → `"5"`), logged. Never the other way: a
    /// string is not read as a number here.
    fn number_as_text(&mut self, number: &Number, keywords: &Map<String, Value>) -> Option<Value> {
        // Read off `type` in place: this runs for every number of every call.
        let named = |ty: &str| match keywords.get("type") {
            Some(Value::String(one)) => one == ty,
            Some(Value::Array(several)) => several.iter().any(|t| t == ty),
            _ => false,
        };
        let admitted = named("number") || (named("integer") && is_integer(number));
        if !named("string") || admitted || keywords.contains_key("format") {
            return None;
        }
        let text = Value::String(number.to_string());
        if options(keywords).is_some_and(|options| !options.contains(&text)) || !matches_pattern(keywords, &text) {
            return None;
        }
        let from = shorten(&Value::Number(number.clone()));
        self.log.push(Repair::Value { path: self.path.clone(), from, to: shorten(&text) });
        Some(text)
    }

    /// A lone string, number or boolean where the schema wants an array whose items
    /// it is (after the same repairs): that one-item array.
    fn wrapped(&mut self, value: Value, keywords: &'s Map<String, Value>, depth: usize) -> Value {
        let lone = matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_));
        let wants_array = types(keywords).is_some_and(|types| types.contains(&"array") && !admits(&types, &value));
        let Some(items) = keywords.get("items").filter(|items| items.is_object() && lone && wants_array) else {
            return value;
        };
        let logged = self.log.len();
        let before = self.path.len();
        self.path.push_str("[0]");
        let item = self.at_depth(value.clone(), items, depth + 1);
        self.path.truncate(before);
        if !self.takes_as_is(&item, items, depth + 1) {
            self.log.truncate(logged);
            return value;
        }
        self.log.insert(logged, Repair::Wrapped { path: self.path.clone() });
        Value::Array(vec![item])
    }

    /// The schema a local `$ref` (`#`, `#/$defs/name`, any JSON pointer) points to.
    fn target(&self, keywords: &Map<String, Value>) -> Option<&'s Value> {
        local_ref(self.root, keywords)
    }

    /// Repaired towards the branch of `anyOf`/`oneOf` that takes the value's kind as
    /// it is, else towards the first branch a repair changes it for.
    fn one_of(&mut self, value: Value, branches: &'s [Value], depth: usize) -> Value {
        if let Some(branch) = branches.iter().find(|branch| self.takes_as_is(&value, branch, depth)) {
            return self.at_depth(value, branch, depth);
        }
        for branch in branches {
            let logged = self.log.len();
            let repaired = self.at_depth(value.clone(), branch, depth);
            if repaired != value {
                return repaired;
            }
            self.log.truncate(logged);
        }
        value
    }

    /// Whether `branch` (its `$ref`s followed, and any of its `anyOf`/`oneOf`
    /// branches) takes values of `value`'s kind.
    fn takes_as_is(&self, value: &Value, branch: &'s Value, depth: usize) -> bool {
        let Some(keywords) = branch.as_object() else { return branch.as_bool().unwrap_or(false) };
        if depth >= MAX_DEPTH {
            return true;
        }
        if let Some(target) = self.target(keywords) {
            return self.takes_as_is(value, target, depth + 1);
        }
        let branches = keywords.get("anyOf").or_else(|| keywords.get("oneOf")).and_then(Value::as_array);
        if let Some(branches) = branches
            && !branches.iter().any(|branch| self.takes_as_is(value, branch, depth + 1))
        {
            return false;
        }
        match (types(keywords), options(keywords)) {
            (_, Some(options)) => options.contains(value),
            (Some(types), None) => admits(&types, value),
            (None, None) => true,
        }
    }

    /// Keys matched to the properties (unless that would give one twice), each value
    /// repaired towards its property's schema, or `additionalProperties'`; when the
    /// arguments were refused, a `null` for an optional property that does not take
    /// null left out.
    fn object(
        &mut self,
        given: Map<String, Value>,
        keywords: &'s Map<String, Value>,
        depth: usize,
    ) -> Map<String, Value> {
        let properties = keywords.get("properties").and_then(Value::as_object);
        let additional = keywords.get("additionalProperties").filter(|schema| schema.is_object());
        let names: Vec<&str> = properties.into_iter().flat_map(|p| p.keys().map(String::as_str)).collect();
        let mut out = Map::with_capacity(given.len());
        for (key, value) in &given {
            let name = match match_name(names.iter().copied(), key).one() {
                Some(i) if names[i] != key && (given.contains_key(names[i]) || out.contains_key(names[i])) => {
                    key.as_str()
                }
                Some(i) => names[i],
                None => key.as_str(),
            };
            let property = properties.and_then(|p| p.get(name));
            let before = self.path.len();
            if before > 0 {
                self.path.push('.');
            }
            self.path.push_str(key);
            if name != key {
                self.log.push(Repair::Key { path: self.path.clone(), from: key.clone(), to: name.to_string() });
            }
            let omitted = value.is_null()
                && self.refused
                && !is_required(keywords, name)
                && property.is_some_and(|schema| !self.takes_as_is(value, schema, depth + 1));
            if omitted {
                self.log.push(Repair::NullOmitted { path: self.path.clone() });
            } else {
                let value = match property.or(additional) {
                    Some(schema) => self.at_depth(value.clone(), schema, depth + 1),
                    None => value.clone(),
                };
                out.insert(name.to_string(), value);
            }
            self.path.truncate(before);
        }
        out
    }

    /// Each item repaired towards its schema: `prefixItems` (or the older array form
    /// of `items`) by position, then `items` for the rest.
    fn array(&mut self, items: Vec<Value>, keywords: &'s Map<String, Value>, depth: usize) -> Vec<Value> {
        let positional = keywords.get("prefixItems").or_else(|| keywords.get("items").filter(|i| i.is_array()));
        let positional = positional.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let rest = keywords.get("items").filter(|items| !items.is_array());
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            let Some(schema) = positional.get(i).or(rest) else {
                out.push(item);
                continue;
            };
            let before = self.path.len();
            let _ = write!(self.path, "[{i}]");
            out.push(self.at_depth(item, schema, depth + 1));
            self.path.truncate(before);
        }
        out
    }
}

/// Whether `text` matches the schema's `pattern`, if it has one (one that cannot be
/// compiled matches nothing). Compiled here, on the rare path of a number sent for
/// a string, rather than kept: the validator checks the pattern on every call.
fn matches_pattern(keywords: &Map<String, Value>, text: &Value) -> bool {
    let Some(pattern) = keywords.get("pattern") else { return true };
    let schema = serde_json::json!({ "pattern": pattern });
    jsonschema::validator_for(&schema).is_ok_and(|validator| validator.is_valid(text))
}

/// Whether the object schema `keywords` lists `name` as required.
fn is_required(keywords: &Map<String, Value>, name: &str) -> bool {
    keywords.get("required").and_then(Value::as_array).is_some_and(|required| required.iter().any(|r| r == name))
}

/// Where the local `$ref` of `keywords` points in `root` (`#`, `#/$defs/name`, any
/// JSON pointer, percent-encoded or not).
pub(super) fn local_ref<'s>(root: &'s Value, keywords: &Map<String, Value>) -> Option<&'s Value> {
    let reference = keywords.get("$ref")?.as_str()?.strip_prefix('#')?;
    root.pointer(&percent_encoding::percent_decode_str(reference).decode_utf8_lossy())
}

/// The types a schema names (`type`, a string or a list; `nullable: true` adds
/// `null`, as OpenAPI writes it), or `None` when it names none.
pub(super) fn types(keywords: &Map<String, Value>) -> Option<Vec<&str>> {
    let mut types: Vec<&str> = match keywords.get("type")? {
        Value::String(one) => vec![one.as_str()],
        Value::Array(several) => several.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    if keywords.get("nullable") == Some(&Value::Bool(true)) {
        types.push("null");
    }
    Some(types)
}

/// The values an `enum` or a `const` allows.
fn options(keywords: &Map<String, Value>) -> Option<Vec<Value>> {
    match (keywords.get("enum"), keywords.get("const")) {
        (Some(Value::Array(values)), _) => Some(values.clone()),
        (_, Some(value)) => Some(vec![value.clone()]),
        _ => None,
    }
}

/// Whether a value of `value`'s JSON kind is one of `types`.
fn admits(types: &[&str], value: &Value) -> bool {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if is_integer(n) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    types.contains(&kind) || (kind == "integer" && types.contains(&"number"))
}

/// A number without a fraction is an integer, in JSON Schema (`7.0` is).
fn is_integer(number: &Number) -> bool {
    number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// A string read as the integer, number or boolean the schema wants instead, in the
/// order its `type` lists them, when the text says exactly that.
fn coerce(value: Value, keywords: &Map<String, Value>) -> Value {
    let Some(types) = types(keywords) else { return value };
    let Value::String(text) = &value else { return value };
    if admits(&types, &value) {
        return value;
    }
    types.iter().find_map(|ty| read_as(text, ty)).unwrap_or(value)
}

/// `text` as a value of JSON type `ty`, when it spells one.
fn read_as(text: &str, ty: &str) -> Option<Value> {
    let text = text.trim();
    match ty {
        "integer" => integer(text),
        "number" => integer(text).or_else(|| {
            let float: f64 = text.parse().ok().filter(|f: &f64| f.is_finite())?;
            Number::from_f64(float).map(Value::Number)
        }),
        "boolean" if text.eq_ignore_ascii_case("true") => Some(Value::Bool(true)),
        "boolean" if text.eq_ignore_ascii_case("false") => Some(Value::Bool(false)),
        _ => None,
    }
}

fn integer(text: &str) -> Option<Value> {
    let signed = text.parse::<i64>().ok().map(Number::from);
    signed.or_else(|| text.parse::<u64>().ok().map(Number::from)).map(Value::Number)
}

/// An `enum` or `const` value in another spelling (`"Celsius"` for `"celsius"`), or
/// a string holding one of its numbers, replaced by the value it stands for.
fn respell(value: Value, keywords: &Map<String, Value>) -> Value {
    let Some(options) = options(keywords) else { return value };
    let Value::String(text) = &value else { return value };
    if options.contains(&value) {
        return value;
    }
    let names: Vec<&str> = options.iter().filter_map(Value::as_str).collect();
    if let Some(i) = match_name(names.iter().copied(), text).one() {
        return Value::String(names[i].to_string());
    }
    let number = integer(text.trim()).or_else(|| read_as(text, "number"));
    number.filter(|number| options.contains(number)).unwrap_or(value)
}
