//! The x402 `payment-identifier` extension as every v2 paid 402 declares it, beside bazaar
//! (v1 has no `extensions`); the paid flow reads a payment's id (`api/purchase/identifier.rs`).

use serde_json::{Value, json};

/// The extension's name in `extensions`.
pub const PAYMENT_IDENTIFIER: &str = "payment-identifier";

/// The declaration a 402 carries (optional: a payment without an id is processed as ever),
/// in the shape of the official SDKs' `declarePaymentIdentifierExtension(false)`.
pub fn declaration() -> Value {
    json!({
        "info": {"required": false},
        "schema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "required": {"type": "boolean"},
                "id": {"type": "string", "minLength": 16, "maxLength": 128, "pattern": "^[a-zA-Z0-9_-]+$"},
            },
            "required": ["required"],
        },
    })
}
