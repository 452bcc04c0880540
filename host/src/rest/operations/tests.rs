use serde_json::{Value, json};

use super::*;

fn tools(root: Value) -> (Vec<Operation>, Vec<String>) {
    let (made, skipped) = operations(&Document::read(root.to_string().as_bytes()).expect("a document"));
    (made, skipped.iter().map(Skipped::warning).collect())
}

#[test]
fn parameters_and_an_object_body_merge_into_one_object_and_collisions_are_renamed() {
    let (made, skipped) = tools(json!({"openapi": "3.1.0", "paths": {"/items/{id}": {
        "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
        "put": {
            "operationId": "update.item",
            "summary": "Update an item",
            "parameters": [
                {"name": "id", "in": "query", "schema": {"type": "string"}, "description": "a second id"},
                {"name": "X-Request-ID", "in": "header", "schema": {"type": "string"}},
                {"name": "Accept", "in": "header", "schema": {"type": "string"}}
            ],
            "requestBody": {"required": true, "content": {"application/json": {"schema": {
                "$ref": "#/components/schemas/Item"}}}}
        }
    }}, "components": {"schemas": {"Item": {"allOf": [
        {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
        {"type": "object", "properties": {"name": {"type": "string"}, "tags": {"type": "array"}}, "required": ["name"]}
    ]}}}}));
    assert!(skipped.is_empty(), "{skipped:?}");
    let op = &made[0];
    assert_eq!(op.route.name, "update_item");
    assert_eq!(op.route.label(), "PUT /items/{id}");
    let names: Vec<(&str, Place, &str)> =
        op.arguments.iter().map(|a| (a.name.as_str(), a.place, a.wire.as_str())).collect();
    assert_eq!(
        names,
        [
            ("id", Place::Path, "id"),
            ("query_id", Place::Query, "id"),
            ("x_request_id", Place::Header, "X-Request-ID"),
            ("body_id", Place::Body, "id"),
            ("name", Place::Body, "name"),
            ("tags", Place::Body, "tags"),
        ]
    );
    assert_eq!(op.input_schema["required"], json!(["id", "body_id", "name"]));
    assert_eq!(op.input_schema["properties"]["query_id"]["description"], "a second id");
    assert_eq!(op.body, Some(BodyKind::Json));
}

#[test]
fn uploads_streams_and_parts_without_a_schema_are_skipped_saying_why() {
    let (made, skipped) = tools(json!({"openapi": "3.0.3", "paths": {
        "/upload": {"post": {"operationId": "upload", "requestBody": {"content": {
            "multipart/form-data": {"schema": {"type": "object", "properties": {
                "photo": {"type": "string", "format": "binary"}}}}}}}},
        "/fields": {"post": {"operationId": "fields", "requestBody": {"content": {
            "multipart/form-data": {"schema": {"type": "object", "properties": {"name": {"type": "string"}}}}}}}},
        "/events": {"get": {"operationId": "events", "responses": {"200": {"content": {
            "text/event-stream": {"schema": {"type": "string"}}}}}}},
        "/bare": {"get": {"operationId": "bare", "parameters": [{"name": "q", "in": "query"}]}},
        "/list": {"get": {"responses": {"200": {"content": {"application/json": {}}}}}},
        "/elsewhere": {"$ref": "paths.yaml#/elsewhere"}
    }}));
    assert_eq!(made.iter().map(|op| op.route.name.as_str()).collect::<Vec<_>>(), ["get_list"]);
    let said = skipped.join("\n");
    assert!(said.contains("POST /upload is not a tool: it takes a file upload (multipart/form-data)"), "{said}");
    assert!(
        said.contains(
            "POST /fields is not a tool: its request body is multipart/form-data, which the host does not send"
        ),
        "{said}"
    );
    assert!(said.contains("GET /events is not a tool: it answers with a stream"), "{said}");
    assert!(said.contains("GET /bare is not a tool: its parameter 'q' has no schema"), "{said}");
    assert!(said.contains("/elsewhere: it refers to another document ('paths.yaml#/elsewhere')"), "{said}");
}

#[test]
fn a_body_that_is_no_object_is_the_one_parameter_body_and_names_are_unique() {
    let (made, _) = tools(json!({"openapi": "3.1.0", "paths": {
        "/tags": {"post": {"requestBody": {"content": {"application/json": {"schema": {
            "type": "array", "items": {"type": "string"}}}}}}},
        "/tags/": {"post": {"requestBody": {"content": {"application/json": {"schema": {"type": "string"}}}}}},
        "/pets/{petId}/photos": {"get": {"parameters": [
            {"name": "petId", "in": "path", "schema": {"type": "string"}}]}}
    }}));
    let names: Vec<&str> = made.iter().map(|op| op.route.name.as_str()).collect();
    assert_eq!(names, ["post_tags", "post_tags_2", "get_pets_by_petId_photos"]);
    assert_eq!(made[0].arguments[0].place, Place::WholeBody);
    assert_eq!(made[0].input_schema["properties"]["body"]["type"], "array");
    assert_eq!(made[2].input_schema["required"], json!(["petId"]));
}

#[test]
fn hostile_documents_end_in_tools_or_reasons_not_in_a_stack_overflow() {
    let (made, _) = tools(json!({"openapi": "3.1.0", "paths": {"/loop": {"post": {"requestBody": {"content": {
        "application/json": {"schema": {"$ref": "#/components/schemas/A"}}}}}}},
        "components": {"schemas": {"A": {"allOf": [{"$ref": "#/components/schemas/A"}]}}}}));
    assert_eq!(made[0].arguments[0].place, Place::WholeBody);
    for deep in ["[".repeat(100_000), "a:\n".to_string() + &" - ".repeat(50_000), "{\"a\":".repeat(10_000)] {
        assert!(Document::read(deep.as_bytes()).is_err());
    }
    let mut nested = json!({"type": "string"});
    for _ in 0..100 {
        nested = json!({"type": "array", "items": nested});
    }
    let (made, skipped) = tools(json!({"openapi": "3.1.0", "paths": {"/deep": {"get": {"parameters": [
        {"name": "q", "in": "query", "schema": nested}]}}}}));
    assert!(made.is_empty() && skipped[0].contains("nest deeper"), "{skipped:?}");
}

#[test]
fn long_names_stay_within_64_characters_when_numbered() {
    let long = "a".repeat(70);
    let (made, _) = tools(json!({"openapi": "3.1.0", "paths": {
        "/one": {"get": {"operationId": long}},
        "/two": {"get": {"operationId": long}}
    }}));
    assert_eq!(made[0].route.name.len(), 64);
    assert_eq!(made[1].route.name.len(), 64);
    assert!(made[1].route.name.ends_with("a_2"), "{}", made[1].route.name);
}
