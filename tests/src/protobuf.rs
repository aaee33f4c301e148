//! JSON as a protobuf `Struct` carries it (an A2A 1.0 data part, a task's metadata), so that a
//! value read over A2A compares with the same value read over HTTP or MCP.

use serde_json::{Value, json};

/// `value` with every number a double, as a protobuf `Struct` holds it: `413` becomes `413.0`.
pub fn as_struct(value: Value) -> Value {
    match value {
        Value::Number(number) => number.as_f64().map_or(Value::Null, |double| json!(double)),
        Value::Array(items) => Value::Array(items.into_iter().map(as_struct).collect()),
        Value::Object(fields) => {
            Value::Object(fields.into_iter().map(|(k, v)| (k, as_struct(v))).collect())
        }
        other => other,
    }
}
