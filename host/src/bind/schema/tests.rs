//! The JSON-Schema binder: the cases real servers' schemas raise, with the exact
//! words, and properties over generated schemas and values.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::SchemaBinder;
use crate::error::ToolError;
use crate::tool::arbitrary::any_json;

fn search() -> SchemaBinder {
    SchemaBinder::new(json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1},
            "max_results": {"type": "integer", "minimum": 1, "maximum": 100},
            "exact": {"type": "boolean", "default": false},
            "unit": {"enum": ["celsius", "fahrenheit"]},
            "filters": {"type": "array", "items": {"$ref": "#/$defs/filter"}},
            "since": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "email": {"type": "string", "format": "email"},
        },
        "required": ["query"],
        "additionalProperties": false,
        "$defs": {"filter": {
            "type": "object",
            "properties": {"field_name": {"type": "string", "pattern": "^[a-z]+$"}, "weight": {"type": "number"}},
            "required": ["field_name"],
        }},
    }))
}

fn refusal(binder: &SchemaBinder, arguments: Value) -> String {
    binder.bind("search", &arguments).expect_err("refused").to_string()
}

const EXPECTED: &str = "Expected parameters for 'search' — required: ['query'], optional: ['max_results', \
                        'exact', 'unit', 'filters', 'since', 'email'].";

#[test]
fn arguments_the_schema_accepts_pass_unchanged() {
    let arguments = json!({"query": "orbits", "max_results": 5, "since": null, "email": "not an address"});
    assert_eq!(search().bind("search", &arguments).unwrap(), arguments);
}

#[test]
fn names_values_and_enum_spellings_are_repaired_losslessly() {
    let given = json!({
        "Query": "orbits", "max-results": "5", "EXACT": "True", "unit": "Celsius",
        "filters": [{"FieldName": "title", "weight": "0.5"}], "since": "1999",
    });
    let expected = json!({
        "query": "orbits", "max_results": 5, "exact": true, "unit": "celsius",
        "filters": [{"field_name": "title", "weight": 0.5}], "since": 1999,
    });
    assert_eq!(search().bind("search", &given).unwrap(), expected);
    let text = search().bind_text("search", "{query: 'orbits', MaxResults: 7,}").unwrap();
    assert_eq!(text, json!({"query": "orbits", "max_results": 7}));
}

#[test]
fn missing_and_unexpected_parameters_are_listed_with_what_the_tool_takes() {
    assert_eq!(
        refusal(&search(), json!({"limit": 3})),
        format!(
            "Tool 'search' was called with missing required parameter 'query' and unexpected parameter 'limit'. {EXPECTED}"
        )
    );
    assert_eq!(
        refusal(&search(), Value::Null),
        format!("Tool 'search' was called with missing required parameter 'query'. {EXPECTED}")
    );
    assert_eq!(
        refusal(&search(), json!({"query": "a", "Query": "b"})),
        format!("Tool 'search' was called with parameter 'query' twice (as 'query' and 'Query'). {EXPECTED}")
    );
    assert_eq!(
        refusal(&search(), json!(["orbits"])),
        format!("Tool 'search' takes its arguments as a JSON object (one key per parameter), got an array. {EXPECTED}")
    );
}

#[test]
fn wrong_values_name_their_path_and_what_was_expected() {
    let cases = [
        (
            json!({"query": "a", "max_results": "many"}),
            "'max_results' must be an integer between 1 and 100, got \"many\"",
        ),
        (json!({"query": "a", "max_results": 0}), "'max_results' must be an integer between 1 and 100, got 0"),
        (json!({"query": ""}), "'query' must be a string of at least 1 characters, got \"\""),
        (json!({"query": "a", "unit": "kelvin"}), "'unit' must be one of ['celsius', 'fahrenheit'], got \"kelvin\""),
        (json!({"query": "a", "since": "soon"}), "'since' must be an integer or null, got \"soon\""),
        (
            json!({"query": "a", "filters": [{"field_name": "ok"}, {"field_name": "Not OK"}]}),
            "'filters[1].field_name' must be a string matching the pattern ^[a-z]+$, got \"Not OK\"",
        ),
        (
            json!({"query": "a", "filters": [{"weight": 1}]}),
            "'filters[0].field_name' must be a string matching the pattern ^[a-z]+$, got nothing (the field is required)",
        ),
        (
            json!({"query": "a", "filters": "title"}),
            "'filters' must be an array whose items are each an object with the fields ['field_name', 'weight'], got \"title\"",
        ),
    ];
    for (arguments, words) in cases {
        assert_eq!(refusal(&search(), arguments), format!("Invalid arguments for 'search': {words}."));
    }
}

#[test]
fn open_objects_keep_keys_they_do_not_name_and_closed_ones_say_which_fields_they_have() {
    let open = SchemaBinder::new(json!({"type": "object", "properties": {"path": {"type": "string"}}}));
    assert_eq!(open.bind("read", &json!({"path": "a", "Mode": "r"})).unwrap(), json!({"path": "a", "Mode": "r"}));
    // A key that stands for a property is renamed even where the object would take it.
    assert_eq!(open.bind("read", &json!({"Path": "a"})).unwrap(), json!({"path": "a"}));
    let closed = SchemaBinder::new(json!({
        "type": "object",
        "properties": {"options": {"type": "object", "properties": {"depth": {"type": "integer"}}, "additionalProperties": false}},
    }));
    assert_eq!(
        closed.bind("tree", &json!({"options": {"depth": 2, "colour": true}})).unwrap_err().to_string(),
        "Invalid arguments for 'tree': 'options.colour' must be not present: the fields are ['depth'], got true."
    );
}

#[test]
fn drafts_and_type_lists_and_nullable_fields_are_read() {
    let draft7 = SchemaBinder::new(json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "n": {"$ref": "#/definitions/count"},
            "tag": {"type": ["string", "null"]},
            "ratio": {"type": "number", "exclusiveMinimum": 0},
            "note": {"type": "string", "nullable": true},
        },
        "definitions": {"count": {"type": "integer", "maximum": 9}},
    }));
    assert_eq!(draft7.unreadable(), None);
    assert_eq!(draft7.bind("t", &json!({"N": "3", "tag": null})).unwrap(), json!({"n": 3, "tag": null}));
    assert_eq!(
        draft7.bind("t", &json!({"n": 10})).unwrap_err().to_string(),
        "Invalid arguments for 't': 'n' must be an integer of at most 9, got 10."
    );
    assert_eq!(
        draft7.bind("t", &json!({"ratio": 0})).unwrap_err().to_string(),
        "Invalid arguments for 't': 'ratio' must be a number greater than 0, got 0."
    );
}

#[test]
fn a_schema_that_cannot_be_read_lets_arguments_through_and_says_why() {
    for schema in [json!({"$ref": "https://example.com/elsewhere.json"}), json!({"type": 7}), json!("not a schema")] {
        let binder = SchemaBinder::new(schema.clone());
        let why = binder.unreadable().unwrap_or_else(|| panic!("{schema} was read"));
        assert!(why.contains("cannot be read"), "{why}");
        assert_eq!(binder.bind("t", &json!({"any": ["thing"]})).unwrap(), json!({"any": ["thing"]}));
    }
    assert!(SchemaBinder::new(json!({"type": "object", "x-vendor": {"anything": true}})).unreadable().is_none());
}

/// Property names whose normalisation keys differ, so that respelling one can only
/// mean that one.
const NAMES: [&str; 6] = ["alpha", "beta_two", "gamma", "delta_four", "epsilon", "zeta_six"];

/// A schema and a value it accepts, built together.
fn schema_and_value() -> impl Strategy<Value = (Value, Value)> {
    let leaf = prop_oneof![
        (-50i64..50, 0i64..50).prop_flat_map(|(lo, span)| {
            (
                Just(json!({"type": "integer", "minimum": lo, "maximum": lo + span})),
                (lo..=lo + span).prop_map(|n| json!(n)),
            )
        }),
        any::<bool>().prop_map(|b| (json!({"type": "boolean"}), json!(b))),
        (-1e6f64..1e6).prop_map(|f| (json!({"type": "number"}), json!(f))),
        "[a-z ]{0,3}".prop_map(|s| (json!({"type": "string", "maxLength": 3}), json!(s))),
        prop::sample::subsequence(NAMES.to_vec(), 1..4)
            .prop_flat_map(|names| (Just(names.clone()), prop::sample::select(names)))
            .prop_map(|(names, pick)| (json!({"enum": names}), json!(pick))),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            (inner.clone(), any::<bool>()).prop_map(|((schema, value), null)| {
                (json!({"anyOf": [schema, {"type": "null"}]}), if null { Value::Null } else { value })
            }),
            prop::collection::vec(inner.clone(), 0..3).prop_map(|items| {
                let schema = items.first().map_or(json!({}), |(schema, _)| schema.clone());
                let values = items.into_iter().filter(|(s, _)| *s == schema).map(|(_, v)| v).collect();
                (json!({"type": "array", "items": schema}), Value::Array(values))
            }),
            (prop::collection::vec((inner, any::<bool>(), any::<bool>()), 1..4), any::<bool>())
                .prop_map(|(fields, closed)| object(fields, closed)),
        ]
    })
}

/// An object schema over `fields` (schema and value, required?, given?), and a value.
fn object(fields: Vec<((Value, Value), bool, bool)>, closed: bool) -> (Value, Value) {
    let (mut properties, mut required, mut value) = (Map::new(), Vec::new(), Map::new());
    for (name, ((schema, field), is_required, given)) in NAMES.iter().zip(fields) {
        properties.insert(name.to_string(), schema);
        if is_required {
            required.push(json!(name));
        }
        if is_required || given {
            value.insert(name.to_string(), field);
        }
    }
    (
        json!({"type": "object", "properties": properties, "required": required, "additionalProperties": !closed}),
        Value::Object(value),
    )
}

/// The same value as a model might misspell it: keys in CamelCase, integers and
/// booleans as strings, enum names in capitals.
fn respelt(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (camel(k), respelt(v))).collect()),
        Value::Array(items) => Value::Array(items.iter().map(respelt).collect()),
        Value::Number(n) if n.is_i64() => Value::String(n.to_string()),
        Value::Bool(b) => Value::String(b.to_string().to_uppercase()),
        Value::String(s) if NAMES.contains(&s.as_str()) => Value::String(s.to_uppercase()),
        other => other.clone(),
    }
}

fn camel(name: &str) -> String {
    name.split('_').map(|word| word[..1].to_uppercase() + &word[1..]).collect()
}

/// The words of each repair `bind_repaired` made.
fn repairs(binder: &SchemaBinder, arguments: Value) -> (Value, Vec<String>) {
    let (bound, repairs) = binder.bind_repaired("search", &arguments).expect("bound");
    (bound, repairs.iter().map(ToString::to_string).collect())
}

#[test]
fn null_for_an_optional_parameter_that_takes_no_null_is_not_given() {
    let (bound, said) = repairs(&search(), json!({"query": "orbits", "max_results": null, "unit": null}));
    assert_eq!(bound, json!({"query": "orbits"}));
    assert_eq!(said, ["'max_results': null taken as not given", "'unit': null taken as not given"]);
    // A parameter that takes null keeps it; a required one given null is missing.
    assert_eq!(
        repairs(&search(), json!({"query": "a", "since": null})),
        (json!({"query": "a", "since": null}), vec![])
    );
    assert_eq!(
        refusal(&search(), json!({"query": null})),
        "Invalid arguments for 'search': 'query' must be a string of at least 1 characters, got null."
    );
    // Nested optional fields too.
    let (bound, said) = repairs(&search(), json!({"query": "a", "filters": [{"field_name": "x", "weight": null}]}));
    assert_eq!(bound, json!({"query": "a", "filters": [{"field_name": "x"}]}));
    assert_eq!(said, ["'filters[0].weight': null taken as not given"]);
}

#[test]
fn a_lone_value_where_an_array_is_wanted_becomes_its_one_item() {
    let binder = SchemaBinder::new(json!({
        "type": "object",
        "properties": {
            "cuisine": {"type": "array", "items": {"type": "string", "enum": ["Seafood", "Italian"]}},
            "ids": {"type": "array", "items": {"type": "integer"}},
            "pairs": {"type": "array", "items": {"type": "array"}},
            "either": {"type": ["string", "array"], "items": {"type": "integer"}},
        },
        "additionalProperties": false,
    }));
    let (bound, said) = repairs(&binder, json!({"cuisine": "seafood", "ids": "7"}));
    assert_eq!(bound, json!({"cuisine": ["Seafood"], "ids": [7]}));
    assert_eq!(
        said,
        [
            "'cuisine' wrapped in a list",
            "'cuisine[0]': \"seafood\" read as \"Seafood\"",
            "'ids' wrapped in a list",
            "'ids[0]': \"7\" read as 7"
        ]
    );
    // Not an item: not wrapped, and the refusal is about the value as sent.
    assert_eq!(
        refusal(&binder, json!({"cuisine": "Thai"})),
        "Invalid arguments for 'search': 'cuisine' must be an array whose items are each one of ['Seafood', \
         'Italian'], got \"Thai\"."
    );
    assert!(binder.bind("search", &json!({"pairs": 1})).is_err(), "an array of arrays takes no lone value");
    // Taken as it is: never wrapped.
    assert_eq!(repairs(&binder, json!({"either": "x"})), (json!({"either": "x"}), vec![]));
}

#[test]
fn an_empty_named_empty_parameter_is_dropped() {
    let none = SchemaBinder::new(json!({"type": "object", "properties": {}, "additionalProperties": false}));
    for (given, value) in [(json!({"": ""}), "\"\""), (json!({"": null}), "null"), (json!({"": {}}), "{}")] {
        let (bound, said) = repairs(&none, given);
        assert_eq!(bound, json!({}));
        assert_eq!(said, [format!("an empty-named parameter (\"\": {value}) dropped")]);
    }
    assert!(none.bind("t", &json!({"": "x"})).is_err(), "a value is not dropped");
    let named = SchemaBinder::new(json!({"type": "object", "properties": {"": {"type": "string"}}}));
    assert_eq!(named.bind("t", &json!({"": ""})).unwrap(), json!({"": ""}));
}

/// The argument object a generated pair stands for.
fn as_arguments((schema, value): (Value, Value)) -> (Value, Value) {
    match value {
        Value::Object(_) if schema["type"] == "object" => (schema, value),
        value => {
            let schema = json!({"type": "object", "properties": {"alpha": schema}, "required": ["alpha"], "additionalProperties": false});
            (schema, json!({"alpha": value}))
        }
    }
}

/// A schema's refusal must say where; anything it lets through the schema accepts.
fn check_outcome(binder: &SchemaBinder, arguments: &Value) -> Result<(), TestCaseError> {
    match binder.bind("t", arguments) {
        Ok(bound) => {
            let valid =
                jsonschema::options().should_validate_formats(false).build(binder.schema()).map(|v| v.is_valid(&bound));
            prop_assert!(valid.unwrap_or(true), "{bound} was let through {}", binder.schema());
        }
        Err(ToolError::InvalidValue { path, .. }) => prop_assert!(!path.is_empty()),
        Err(error @ ToolError::InvalidArguments { .. }) => {
            prop_assert!(error.to_string().contains("Expected parameters for 't'"), "{error}");
        }
        Err(other) => prop_assert!(false, "unexpected {other:?}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_value_the_schema_accepts_is_never_refused(pair in schema_and_value()) {
        let (schema, arguments) = as_arguments(pair);
        prop_assert!(jsonschema::is_valid(&schema, &arguments), "the generator made {arguments} for {schema}");
        prop_assert_eq!(SchemaBinder::new(schema).bind("t", &arguments).unwrap(), arguments);
    }

    #[test]
    fn a_respelt_value_is_repaired_to_the_one_it_stands_for(pair in schema_and_value()) {
        let (schema, arguments) = as_arguments(pair);
        let bound = SchemaBinder::new(schema.clone()).bind("t", &respelt(&arguments));
        prop_assert_eq!(bound.ok(), Some(arguments), "schema {}", schema);
    }

    #[test]
    fn any_value_gets_a_fitting_value_or_an_error_saying_where(pair in schema_and_value(), junk in any_json()) {
        let (schema, _) = as_arguments(pair);
        let binder = SchemaBinder::new(schema);
        check_outcome(&binder, &junk)?;
        check_outcome(&binder, &json!({"alpha": junk.clone(), "BetaTwo": junk}))?;
    }

    #[test]
    fn any_json_as_a_schema_never_panics(schema in any_json(), arguments in any_json()) {
        let binder = SchemaBinder::new(schema);
        let _ = binder.bind("t", &arguments);
        let _ = binder.expected_parameters();
    }
}

#[test]
fn a_number_for_a_plain_string_is_its_text_and_nothing_else_is_read_so() {
    let binder = SchemaBinder::new(json!({
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "code": {"type": "string", "enum": ["5", "7"]},
            "level": {"type": "string", "enum": ["low", "high"]},
            "day": {"type": "string", "format": "date"},
            "zip": {"type": "string", "pattern": "^[0-9]{5}$"},
            "either": {"type": ["string", "integer"]},
            "maybe": {"type": ["string", "null"]},
        },
    }));
    let (bound, repairs) = binder.bind_repaired("t", &json!({"id": 5, "code": 7, "maybe": 1.5, "either": 3})).unwrap();
    assert_eq!(bound, json!({"id": "5", "code": "7", "maybe": "1.5", "either": 3}));
    let words: Vec<String> = repairs.iter().map(ToString::to_string).collect();
    assert_eq!(words, ["'id': 5 read as \"5\"", "'code': 7 read as \"7\"", "'maybe': 1.5 read as \"1.5\""]);
    assert_eq!(binder.bind("t", &json!({"zip": 12345})).unwrap(), json!({"zip": "12345"}));
    assert_eq!(
        refusal_of(&binder, json!({"zip": 123})),
        "Invalid arguments for 't': 'zip' must be a string matching the pattern ^[0-9]{5}$, got 123."
    );
    for refused in [json!({"level": 5}), json!({"day": 20240101}), json!({"id": true})] {
        assert!(binder.bind("t", &refused).is_err(), "{refused}");
    }
}

fn refusal_of(binder: &SchemaBinder, arguments: Value) -> String {
    binder.bind("t", &arguments).expect_err("refused").to_string()
}
