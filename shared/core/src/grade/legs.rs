//! Field extraction from the two legs of a captured challenge: the JSON body's `accepts[0]`
//! and the decoded `PAYMENT-REQUIRED` header. Lenient and field by field: one malformed
//! field never hides another. The values stay in memory; only presence and equality leave.

use serde_json::{Map, Value};

use super::json::{forgiving_base64_decode, parse_json};
use crate::capture::{Capture, CapturedHeader};

/// The body leg of one capture: the body's JSON document, when it was kept and parses.
#[derive(Debug, Default)]
pub(crate) struct BodyLeg {
    document: Option<Value>,
}

/// The header leg of one capture.
#[derive(Debug, Default)]
pub(crate) struct HeaderLeg {
    /// The response carries a `PAYMENT-REQUIRED` header.
    pub present: bool,
    /// Its value was longer than the header cap, so it was not kept or decoded.
    pub over_cap: bool,
    /// The header's decoded JSON document (forgiving base64, then JSON).
    document: Option<Value>,
}

/// A string field that is present: a non-empty JSON string.
fn present(value: Option<&Value>) -> Option<&str> {
    match value {
        Some(Value::String(s)) if !s.is_empty() => Some(s),
        _ => None,
    }
}

/// An amount that is present: a JSON string of one or more ASCII digits.
fn present_amount(value: Option<&Value>) -> Option<&str> {
    present(value).filter(|s| s.bytes().all(|b| b.is_ascii_digit()))
}

/// `accepts[0]` of a decoded document, when `accepts` is a non-empty array and its first
/// item an object.
fn first_offer(document: Option<&Value>) -> Option<&Map<String, Value>> {
    document?.get("accepts")?.as_array()?.first()?.as_object()
}

/// `offer.extra.<name>`, when `extra` is an object.
fn extra_field<'a>(offer: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    offer.get("extra")?.as_object()?.get(name)
}

/// Sorted, deduplicated key names of `offer` and of `offer.extra` (when an object).
fn census_names(offer: Option<&Map<String, Value>>) -> Vec<String> {
    let Some(offer) = offer else {
        return Vec::new();
    };
    let extra_keys = offer.get("extra").and_then(Value::as_object).into_iter().flat_map(Map::keys);
    let mut names: Vec<String> = offer.keys().chain(extra_keys).cloned().collect();
    names.sort();
    names.dedup();
    names
}

impl BodyLeg {
    /// Decodes the body leg of a capture (absent when the body was over the cap).
    pub(crate) fn from_capture(capture: Option<&Capture>) -> Self {
        let document = capture.and_then(Capture::body_bytes).and_then(parse_json);
        Self { document }
    }

    /// The body was kept and parses as JSON.
    pub(super) fn parseable(&self) -> bool {
        self.document.is_some()
    }

    /// The body leg exists: the body is JSON with an object `accepts[0]` (interpretation
    /// `body_leg`).
    pub(super) fn exists(&self) -> bool {
        self.offer().is_some()
    }

    /// `accepts[0]`: the body leg exists only when this does.
    fn offer(&self) -> Option<&Map<String, Value>> {
        first_offer(self.document.as_ref())
    }

    fn field(&self, name: &str) -> Option<&Value> {
        self.offer()?.get(name)
    }

    /// Recipient: `accepts[0].payTo`.
    pub(crate) fn recipient(&self) -> Option<&str> {
        present(self.field("payTo"))
    }

    /// Token account: `accepts[0].extra.usdc_token_account`.
    pub(super) fn token_account(&self) -> Option<&str> {
        present(self.offer().and_then(|o| extra_field(o, "usdc_token_account")))
    }

    /// Memo: `accepts[0].extra.memo`, falling back to the body's top-level `memo`.
    pub(super) fn memo(&self) -> Option<&str> {
        let offer = self.offer()?;
        present(extra_field(offer, "memo")).or_else(|| present(self.document.as_ref()?.get("memo")))
    }

    /// Amount: `accepts[0].amount`, digits only.
    pub(crate) fn amount(&self) -> Option<&str> {
        present_amount(self.field("amount"))
    }

    /// `accepts[0].maxAmountRequired`, digits only.
    pub(super) fn max_amount_required(&self) -> Option<&str> {
        present_amount(self.field("maxAmountRequired"))
    }

    /// Resource: `accepts[0].resource`.
    pub(super) fn resource(&self) -> Option<&str> {
        present(self.field("resource"))
    }

    /// Network: `accepts[0].network`, as written (read by the caller's expectations only).
    pub(crate) fn network(&self) -> Option<&str> {
        present(self.field("network"))
    }

    /// Asset: `accepts[0].asset`, as written (read by the caller's expectations only).
    pub(crate) fn asset(&self) -> Option<&str> {
        present(self.field("asset"))
    }

    /// Description length in Unicode scalar values, when `accepts[0].description` is a string.
    pub(super) fn description_length(&self) -> Option<usize> {
        self.field("description")?.as_str().map(|s| s.chars().count())
    }

    /// Correlation census of this leg: field names only.
    pub(super) fn census(&self) -> Vec<String> {
        census_names(self.offer())
    }
}

impl HeaderLeg {
    /// Decodes the header leg of a capture (never decoded when over the cap).
    pub(crate) fn from_capture(capture: Option<&Capture>) -> Self {
        match capture.and_then(|c| c.payment_required.as_ref()) {
            None => Self::default(),
            Some(CapturedHeader::OverCap) => Self { present: true, over_cap: true, document: None },
            Some(CapturedHeader::Complete(raw)) => {
                let document = forgiving_base64_decode(raw).as_deref().and_then(parse_json);
                Self { present: true, over_cap: false, document }
            }
        }
    }

    /// The header value decodes (forgiving base64, then JSON).
    pub(super) fn decodable(&self) -> bool {
        self.document.is_some()
    }

    fn offer(&self) -> Option<&Map<String, Value>> {
        first_offer(self.document.as_ref())
    }

    /// Memo: `accepts[0].extra.memo` (no fallback on this leg).
    pub(super) fn memo(&self) -> Option<&str> {
        present(self.offer().and_then(|o| extra_field(o, "memo")))
    }

    /// Amount: `accepts[0].amount`, digits only.
    pub(crate) fn amount(&self) -> Option<&str> {
        present_amount(self.offer().and_then(|o| o.get("amount")))
    }

    /// Recipient: `accepts[0].payTo`.
    pub(crate) fn pay_to(&self) -> Option<&str> {
        present(self.offer().and_then(|o| o.get("payTo")))
    }

    /// Network: `accepts[0].network`, as written (read by the caller's expectations only).
    pub(crate) fn network(&self) -> Option<&str> {
        present(self.offer().and_then(|o| o.get("network")))
    }

    /// Asset: `accepts[0].asset`, as written (read by the caller's expectations only).
    pub(crate) fn asset(&self) -> Option<&str> {
        present(self.offer().and_then(|o| o.get("asset")))
    }

    /// Resource: top-level `resource.url`.
    pub(super) fn resource_url(&self) -> Option<&str> {
        present(self.document.as_ref()?.get("resource")?.get("url"))
    }

    /// Correlation census of this leg: field names only.
    pub(super) fn census(&self) -> Vec<String> {
        census_names(self.offer())
    }
}

/// A1 equality between the header leg and the body leg: null when neither carries the
/// field, true when both carry it and are equal, false otherwise.
pub(super) fn leg_equality(header: Option<&str>, body: Option<&str>) -> Option<bool> {
    match (header, body) {
        (None, None) => None,
        (Some(h), Some(b)) => Some(h == b),
        _ => Some(false),
    }
}
