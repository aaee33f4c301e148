//! A small JSON Schema (2020-12) evaluator for the keywords our schemas use: `$ref` to
//! `#/components/schemas/<name>` (or any `#/` pointer into the root), `type` (one or a list),
//! `const`, `enum`, `properties`, `required`, `additionalProperties: false`, `items`,
//! `minItems`, `maxItems`, `minimum`, `maximum`, `pattern` (only the report timestamp's).
//! Any other keyword fails loudly, so a schema cannot use one this evaluator ignores.

use serde_json::Value;

/// Keywords that carry no constraint here.
const ANNOTATIONS: [&str; 6] = ["description", "format", "default", "$schema", "title", "examples"];

/// The one pattern our schemas use: the report timestamp.
const TIMESTAMP_PATTERN: &str =
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$";

fn is_timestamp(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| range.into_iter().all(|i| b[i].is_ascii_digit());
    b.len() == 24
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && b[19] == b'.'
        && digits(20..23)
        && b[23] == b'Z'
}

fn type_matches(name: &str, value: &Value) -> bool {
    match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "integer" => value.is_u64() || value.is_i64(),
        "number" => value.is_number(),
        other => panic!("unknown type {other}"),
    }
}

/// The errors of `value` against `schema` (`root` resolves `$ref`), each with its path.
pub fn errors(root: &Value, schema: &Value, value: &Value) -> Vec<String> {
    let mut found = Vec::new();
    check(root, schema, value, "$", &mut found);
    found
}

/// Panics with every error.
pub fn assert_valid(root: &Value, schema: &Value, value: &Value, what: &str) {
    let found = errors(root, schema, value);
    assert!(found.is_empty(), "{what}: {found:#?}\nvalue: {value}");
}

/// The schema a `$ref` names.
pub fn resolve<'r>(root: &'r Value, reference: &str) -> &'r Value {
    let pointer = reference.strip_prefix('#').expect("a local reference");
    root.pointer(pointer).unwrap_or_else(|| panic!("{reference} resolves to nothing"))
}

fn check(root: &Value, schema: &Value, value: &Value, at: &str, found: &mut Vec<String>) {
    let Some(schema) = schema.as_object() else {
        panic!("{at}: a schema is an object, not {schema}");
    };
    for (keyword, argument) in schema {
        match keyword.as_str() {
            "$ref" => check(root, resolve(root, argument.as_str().unwrap()), value, at, found),
            "type" => {
                let ok = match argument {
                    Value::String(name) => type_matches(name, value),
                    Value::Array(names) => {
                        names.iter().any(|n| type_matches(n.as_str().unwrap(), value))
                    }
                    other => panic!("{at}: type {other}"),
                };
                if !ok {
                    found.push(format!("{at}: {value} is not of type {argument}"));
                }
            }
            "const" => {
                if value != argument {
                    found.push(format!("{at}: {value} is not the const {argument}"));
                }
            }
            "enum" => {
                if !argument.as_array().unwrap().contains(value) {
                    found.push(format!("{at}: {value} is not one of {argument}"));
                }
            }
            "properties" => {
                if let Some(object) = value.as_object() {
                    for (name, property) in argument.as_object().unwrap() {
                        if let Some(member) = object.get(name) {
                            check(root, property, member, &format!("{at}.{name}"), found);
                        }
                    }
                }
            }
            "required" => {
                if let Some(object) = value.as_object() {
                    for name in argument.as_array().unwrap() {
                        if !object.contains_key(name.as_str().unwrap()) {
                            found.push(format!("{at}: required {name} is missing"));
                        }
                    }
                }
            }
            "additionalProperties" => {
                assert_eq!(argument, &Value::Bool(false), "{at}: only `false` is used");
                if let Some(object) = value.as_object() {
                    let declared = schema.get("properties").and_then(Value::as_object);
                    for name in object.keys() {
                        if !declared.is_some_and(|d| d.contains_key(name)) {
                            found.push(format!("{at}: {name} is not in the schema"));
                        }
                    }
                }
            }
            "items" => {
                if let Some(items) = value.as_array() {
                    for (i, item) in items.iter().enumerate() {
                        check(root, argument, item, &format!("{at}[{i}]"), found);
                    }
                }
            }
            "minItems" | "maxItems" => {
                if let Some(items) = value.as_array() {
                    let bound = argument.as_u64().unwrap() as usize;
                    let ok = if keyword == "minItems" {
                        items.len() >= bound
                    } else {
                        items.len() <= bound
                    };
                    if !ok {
                        found.push(format!("{at}: {} items breaks {keyword} {bound}", items.len()));
                    }
                }
            }
            "minimum" | "maximum" => {
                if let Some(number) = value.as_f64() {
                    let bound = argument.as_f64().unwrap();
                    let ok = if keyword == "minimum" { number >= bound } else { number <= bound };
                    if !ok {
                        found.push(format!("{at}: {number} breaks {keyword} {bound}"));
                    }
                }
            }
            "pattern" => {
                assert_eq!(argument, TIMESTAMP_PATTERN, "{at}: only the timestamp pattern is used");
                if value.as_str().is_some_and(|text| !is_timestamp(text)) {
                    found.push(format!("{at}: {value} is not a report timestamp"));
                }
            }
            annotation if ANNOTATIONS.contains(&annotation) => {}
            other => panic!("{at}: the evaluator does not know the keyword {other}"),
        }
    }
}

/// Every property name a schema declares, through `$ref` (top level only).
pub fn declared(root: &Value, schema: &Value) -> Vec<String> {
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => resolve(root, reference),
        None => schema,
    };
    schema["properties"].as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default()
}

#[test]
fn the_evaluator_catches_what_it_should() {
    let root = serde_json::json!({"components": {"schemas": {"A": {
        "type": "object",
        "properties": {"x": {"type": ["integer", "null"], "minimum": 0}, "t": {"type": "string", "pattern": TIMESTAMP_PATTERN}},
        "required": ["x"],
        "additionalProperties": false,
    }}}});
    let a = serde_json::json!({"$ref": "#/components/schemas/A"});
    assert!(
        errors(&root, &a, &serde_json::json!({"x": 1, "t": "2026-01-01T00:00:00.000Z"})).is_empty()
    );
    assert!(errors(&root, &a, &serde_json::json!({"x": null})).is_empty());
    assert_eq!(errors(&root, &a, &serde_json::json!({})).len(), 1);
    assert_eq!(errors(&root, &a, &serde_json::json!({"x": -1})).len(), 1);
    assert_eq!(errors(&root, &a, &serde_json::json!({"x": 1, "y": 2})).len(), 1);
    assert_eq!(errors(&root, &a, &serde_json::json!({"x": "1"})).len(), 1);
    assert_eq!(errors(&root, &a, &serde_json::json!({"x": 1, "t": "2026-01-01"})).len(), 1);
}
