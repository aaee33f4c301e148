//! The x402 `payment-identifier` extension: advertised in every v2 paid 402 (v1 has no
//! `extensions`), read from the payment payload's `extensions["payment-identifier"].info.id`.
//! An id is the buyer's idempotency key for one purchase: the same id with another payment
//! for the same op and URL is answered from the first purchase and never verified or
//! settled (see the module documentation of [`super`]).

use serde_json::Value;

use crate::rules::ApiError;

/// Shortest and longest id accepted.
const ID_LENGTHS: std::ops::RangeInclusive<usize> = 16..=128;

/// The id a payment payload carries: None without the extension or without `info.id` (a
/// client that echoes our declaration and adds nothing); `payment_identifier_invalid`
/// for an id that is not 16 to 128 characters of `[A-Za-z0-9_-]`.
pub(super) fn identifier_of(payload: &Value) -> Result<Option<&str>, ApiError> {
    let Some(id) = payload.pointer("/extensions/payment-identifier/info/id") else {
        return Ok(None);
    };
    match id.as_str() {
        Some(id)
            if ID_LENGTHS.contains(&id.len())
                && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') =>
        {
            Ok(Some(id))
        }
        _ => Err(ApiError::PaymentIdentifierInvalid),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::api::discovery::{
        PAYMENT_IDENTIFIER, payment_identifier_declaration as declaration,
    };

    #[test]
    fn ids_are_16_to_128_characters_of_the_url_safe_alphabet() {
        let with = |id: Value| json!({"extensions": {PAYMENT_IDENTIFIER: {"info": {"id": id}}}});
        let long = "a".repeat(128);
        let vectors: [(Value, Result<Option<&str>, ()>); 11] = [
            (json!({}), Ok(None)),
            (json!({"extensions": {"bazaar": {}}}), Ok(None)),
            (json!({"extensions": {PAYMENT_IDENTIFIER: declaration()}}), Ok(None)),
            (with(json!("pay_7d5d747be160e2")), Ok(Some("pay_7d5d747be160e2"))),
            (with(json!(long)), Ok(Some(&long))),
            (with(json!("A-z_0123456789xy")), Ok(Some("A-z_0123456789xy"))),
            (with(json!("pay_7")), Err(())),
            (with(json!("a".repeat(15))), Err(())),
            (with(json!("a".repeat(129))), Err(())),
            (with(json!("pay_7d5d747be160e2!")), Err(())),
            (with(json!(1234567890123456_u64)), Err(())),
        ];
        for (payload, want) in vectors {
            let got = identifier_of(&payload).map_err(|_| ());
            assert_eq!(got, want, "{payload}");
        }
        let refused = identifier_of(&with(json!("pay_é7d5d747be160e2"))).err().unwrap();
        let response = crate::api::respond::error(refused).into_http();
        assert_eq!(response.status(), 400);
        let body: Value = serde_json::from_slice(response.body()).unwrap();
        assert_eq!(body["error"]["rule"], "payment_identifier_invalid");
        assert!(!String::from_utf8_lossy(response.body()).contains("pay_"), "never echoed");
    }
}
