//! The served document rendered as OpenAPI 3.0.3, for generators that cannot read 3.1
//! (progenitor#1268, #762): `GET /openapi-3.0.json`. The rewrite follows the differences
//! the OpenAPI Initiative lists for 3.0 → 3.1 ("Migrating from OpenAPI 3.0 to 3.1.0"), in
//! reverse, on the JSON:
//!
//! - `type: [T, "null"]`, and a `{"type": "null"}` branch of `oneOf`/`anyOf`, become
//!   `nullable: true`;
//! - `const` becomes a one-value `enum`; numeric `exclusiveMinimum`/`exclusiveMaximum`
//!   become `minimum`/`maximum` with the boolean form;
//! - a schema's `examples` array becomes its first `example`;
//! - beside a `$ref`, annotations (ignored there in 3.0) are dropped and anything else
//!   (`nullable`) wraps the reference in `allOf`;
//! - a parameter's schema is never `nullable` (its absence says it; generators would wrap
//!   an optional nullable parameter twice);
//! - JSON Schema keywords outside 3.0's subset (`propertyNames`, `patternProperties`,
//!   `prefixItems`, `contains`, `$defs`, `if`/`then`/`else`, …) are dropped;
//! - 3.1-only top-level fields (`webhooks`, `jsonSchemaDialect`, `info.license.identifier`)
//!   are dropped.

use serde_json::{json, Map, Value};

/// `doc` (OpenAPI 3.1) as OpenAPI 3.0.3.
pub fn to_openapi_30(mut doc: Value) -> Value {
    if let Some(top) = doc.as_object_mut() {
        top.insert("openapi".into(), json!("3.0.3"));
        top.remove("webhooks");
        top.remove("jsonSchemaDialect");
        if let Some(license) = top
            .get_mut("info")
            .and_then(|i| i.get_mut("license"))
            .and_then(Value::as_object_mut)
        {
            license.remove("identifier");
        }
    }
    if let Some(schemas) = doc.pointer_mut("/components/schemas").and_then(Value::as_object_mut) {
        for schema in schemas.values_mut() {
            schema_30(schema);
        }
    }
    if let Some(paths) = doc.get_mut("paths") {
        walk_for_schemas(paths);
    }
    doc
}

/// Every `schema` object under `v` (parameters, request bodies, responses), rewritten.
fn walk_for_schemas(v: &mut Value) {
    match v {
        Value::Object(map) => {
            // A parameter's absence already says "none" (`required: false`); its schema
            // being nullable too would make generators wrap it twice.
            let parameter = map.contains_key("in");
            for (key, child) in map.iter_mut() {
                if key == "schema" {
                    schema_30(child);
                    if parameter {
                        if let Some(schema) = child.as_object_mut() {
                            schema.remove("nullable");
                        }
                    }
                } else {
                    walk_for_schemas(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(walk_for_schemas),
        _ => {}
    }
}

/// One schema and everything nested in it.
fn schema_30(v: &mut Value) {
    let Some(map) = v.as_object_mut() else { return };
    for key in ["properties", "patternProperties", "$defs", "definitions"] {
        if let Some(children) = map.get_mut(key).and_then(Value::as_object_mut) {
            children.values_mut().for_each(schema_30);
        }
    }
    for key in ["items", "additionalProperties", "not", "contains", "propertyNames"] {
        if let Some(child) = map.get_mut(key) {
            schema_30(child);
        }
    }
    for key in ["oneOf", "anyOf", "allOf", "prefixItems"] {
        if let Some(items) = map.get_mut(key).and_then(Value::as_array_mut) {
            items.iter_mut().for_each(schema_30);
        }
    }
    nullable_types(map);
    nullable_branches(map);
    keywords(map);
    ref_siblings(map);
}

/// Keywords that only annotate: 3.0 ignores them beside `$ref`.
const ANNOTATIONS: [&str; 7] = [
    "description",
    "title",
    "example",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// A `$ref` with siblings: annotations are dropped (3.0 ignores them there); anything else
/// (`nullable`) keeps its meaning by wrapping the reference in `allOf`.
fn ref_siblings(map: &mut Map<String, Value>) {
    if !map.contains_key("$ref") || map.len() == 1 {
        return;
    }
    let reference = map.remove("$ref").unwrap_or(Value::Null);
    if map.keys().all(|k| ANNOTATIONS.contains(&k.as_str())) {
        map.clear();
        map.insert("$ref".into(), reference);
    } else {
        map.insert("allOf".into(), json!([{"$ref": reference}]));
    }
}

/// `type: [T, "null"]` → `type: T, nullable: true` (several non-null types: left as they are).
fn nullable_types(map: &mut Map<String, Value>) {
    let Some(types) = map.get("type").and_then(Value::as_array).cloned() else {
        return;
    };
    let non_null: Vec<Value> = types.iter().filter(|t| t.as_str() != Some("null")).cloned().collect();
    if non_null.len() < types.len() {
        map.insert("nullable".into(), json!(true));
    }
    match non_null.as_slice() {
        [] => {
            map.remove("type");
        }
        [one] => {
            map.insert("type".into(), one.clone());
        }
        _ => {}
    }
}

/// A `{"type": "null"}` branch of `oneOf`/`anyOf` → `nullable: true`. A lone remaining
/// branch is merged into the schema (a reference as `allOf: [{"$ref"}]`, since 3.0 ignores
/// `nullable` beside `$ref`); the schema's own annotations win.
fn nullable_branches(map: &mut Map<String, Value>) {
    for key in ["oneOf", "anyOf"] {
        let Some(items) = map.get_mut(key).and_then(Value::as_array_mut) else {
            continue;
        };
        let before = items.len();
        items.retain(|b| b.get("type").and_then(Value::as_str) != Some("null"));
        if items.len() == before {
            continue;
        }
        let mut rest = std::mem::take(items);
        map.remove(key);
        map.insert("nullable".into(), json!(true));
        match rest.len() {
            0 => {}
            1 => merge_branch(map, rest.remove(0)),
            _ => {
                map.insert(key.into(), Value::Array(rest));
            }
        }
    }
}

fn merge_branch(map: &mut Map<String, Value>, branch: Value) {
    let Value::Object(mut branch) = branch else { return };
    if let Some(reference) = branch.remove("$ref") {
        match map.get_mut("allOf").and_then(Value::as_array_mut) {
            Some(all) => all.push(json!({"$ref": reference})),
            None => {
                map.insert("allOf".into(), json!([{"$ref": reference}]));
            }
        }
    }
    for (k, v) in branch {
        map.entry(k).or_insert(v);
    }
}

/// `const`, numeric exclusive bounds, `examples`; keywords 3.0 does not know are dropped.
fn keywords(map: &mut Map<String, Value>) {
    enum_keyed_map(map);
    if let Some(c) = map.remove("const") {
        map.insert("enum".into(), json!([c]));
    }
    for (exclusive, bound) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
        let Some(n) = map.get(exclusive).and_then(Value::as_f64) else {
            continue;
        };
        let inclusive = map.get(bound).and_then(Value::as_f64);
        // Both given: the stricter wins (an inclusive bound past the exclusive one).
        let lower = bound == "minimum";
        let keep_inclusive = inclusive.is_some_and(|m| if lower { m > n } else { m < n });
        if keep_inclusive {
            map.remove(exclusive);
        } else {
            let value = map[exclusive].clone();
            map.insert(bound.into(), value);
            map.insert(exclusive.into(), json!(true));
        }
    }
    if let Some(examples) = map.remove("examples") {
        if let Some(first) = examples.as_array().and_then(|a| a.first()) {
            map.insert("example".into(), first.clone());
        }
    }
    for gone in [
        "$schema",
        "$id",
        "$comment",
        "contentEncoding",
        "contentMediaType",
        "unevaluatedProperties",
        "unevaluatedItems",
        "dependentRequired",
        "dependentSchemas",
        // JSON Schema keywords 3.0's schema object does not have (its own subset): what they
        // say cannot be said there, so generators never meet them.
        "propertyNames",
        "patternProperties",
        "contains",
        "minContains",
        "maxContains",
        "prefixItems",
        "$defs",
        "if",
        "then",
        "else",
    ] {
        map.remove(gone);
    }
}

/// A map whose keys are one of an enum's values (`additionalProperties: S` with
/// `propertyNames: {enum: […]}`) → an object with an optional property `S` per value and no
/// others: what 3.0 can say of it, and typed fields for generators.
fn enum_keyed_map(map: &mut Map<String, Value>) {
    let Some(keys) = map
        .get("propertyNames")
        .and_then(|p| p.get("enum"))
        .and_then(Value::as_array)
        .cloned()
    else {
        return;
    };
    let Some(value) = map.get("additionalProperties").filter(|v| v.is_object()).cloned() else {
        return;
    };
    let properties: Map<String, Value> = keys
        .iter()
        .filter_map(Value::as_str)
        .map(|k| (k.to_string(), value.clone()))
        .collect();
    map.remove("propertyNames");
    map.insert("properties".into(), Value::Object(properties));
    map.insert("additionalProperties".into(), json!(false));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_keyed_by_an_enum_become_objects() {
        let doc = json!({"openapi": "3.1.0", "components": {"schemas": {"Totals": {
            "type": "object",
            "additionalProperties": {"type": "integer", "format": "int64"},
            "propertyNames": {"type": "string", "enum": ["available", "running"]},
            "patternProperties": {"^x": {"type": "string"}}
        }}}});
        let out = to_openapi_30(doc);
        assert_eq!(
            out["components"]["schemas"]["Totals"],
            json!({"type": "object", "additionalProperties": false, "properties": {
                "available": {"type": "integer", "format": "int64"},
                "running": {"type": "integer", "format": "int64"}
            }})
        );
    }

    #[test]
    fn three_one_constructs_become_three_zero() {
        let doc = json!({
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1", "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"}},
            "paths": {"/a": {"get": {"parameters": [{"name": "n", "in": "query", "schema": {"type": ["integer", "null"], "exclusiveMinimum": 0}}],
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}}}}}},
            "components": {"schemas": {"A": {"type": "object", "properties": {
                "b": {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/B"}]},
                "c": {"const": "x", "examples": ["x"]},
                "d": {"$ref": "#/components/schemas/B", "description": "a B"},
                "e": {"type": "array", "items": {"type": ["string", "null"]}}
            }}, "B": {"type": "string"}}}
        });
        let out = to_openapi_30(doc);
        assert_eq!(out["openapi"], "3.0.3");
        assert!(out["info"]["license"].get("identifier").is_none());
        let p = &out["paths"]["/a"]["get"]["parameters"][0]["schema"];
        assert_eq!(p, &json!({"type": "integer", "minimum": 0, "exclusiveMinimum": true}));
        let a = &out["components"]["schemas"]["A"]["properties"];
        assert_eq!(
            a["b"],
            json!({"nullable": true, "allOf": [{"$ref": "#/components/schemas/B"}]})
        );
        assert_eq!(a["c"], json!({"enum": ["x"], "example": "x"}));
        assert_eq!(a["d"], json!({"$ref": "#/components/schemas/B"}));
        assert_eq!(a["e"]["items"], json!({"type": "string", "nullable": true}));
    }

    /// Nothing of 3.1 is left in the served document: no type arrays, no `null` types, no
    /// `const`, no `examples` arrays, no `$ref` with siblings.
    #[test]
    fn the_served_document_has_nothing_of_three_one_left() {
        let doc = serde_json::to_value(crate::api::routes::openapi()).unwrap();
        let out = to_openapi_30(doc);
        let mut problems = Vec::new();
        find_31(&out, "", &mut problems);
        assert!(problems.is_empty(), "{problems:#?}");
    }

    fn find_31(v: &Value, at: &str, problems: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                if map.get("type").is_some_and(|t| t.is_array() || t == "null") {
                    problems.push(format!("{at}: type {}", map["type"]));
                }
                if map.contains_key("const") {
                    problems.push(format!("{at}: const"));
                }
                if map.get("examples").is_some_and(Value::is_array) {
                    problems.push(format!("{at}: examples array"));
                }
                if map.contains_key("$ref") && map.len() > 1 {
                    problems.push(format!("{at}: $ref with siblings"));
                }
                for (k, child) in map {
                    find_31(child, &format!("{at}/{k}"), problems);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    find_31(child, &format!("{at}/{i}"), problems);
                }
            }
            _ => {}
        }
    }
}
