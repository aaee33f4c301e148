//! `verify_signed`, as `payability verify` calls it, on arbitrary JSON (mostly mutations of
//! real signed reports): never a panic, and never valid for a mutated report. Valid means
//! the document's canonical bytes without `signature` are exactly those of a report the
//! fixed keys signed, under the same signature; anything else must be refused. The report's
//! `checked_at`, which the CLI reads for the key window, parses and prints back to itself.
//!
//! Input: the report as JSON text; or 0xFF, then edits applied to one of the signed reports
//! (pick u8, edit count u8, then per edit: kind u8, target u16 among the document's JSON
//! pointers, a value as u32-length-prefixed bytes): remove a member, set it to null, flip or
//! extend it, set it to arbitrary JSON, add a member, or respell a number (402 as 402.0, which
//! RFC 8785 writes the same, so the signature must still hold).

use std::sync::LazyLock;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use payability_core::report::UtcMillis;
use payability_core::signing::{VerifyError, canonical_bytes, verify_signed};
use serde_json::Value;

use crate::fixtures::{OTHER_SIGNER, SIGNER};
use crate::targets::trusted;

/// A report file of 64 KiB (reports are a few KiB).
pub const MAX_LEN: usize = 65_536;

/// The reports the fixed keys signed: check and memo, one per key (see `tests/seeds.rs`).
pub static ORIGINALS: LazyLock<Vec<Value>> = LazyLock::new(originals);

/// Signs the fixture check and memo reports with both keys.
pub fn originals() -> Vec<Value> {
    use payability_core::capture::{Capture, CapturedBody, CapturedHeader, FetchOutcome};
    use payability_core::challenge::own_challenge;
    use payability_core::grade::{grade_check, grade_memo};
    use payability_core::report::UnsignedReport;

    let served = |memo: &str| {
        let challenge = own_challenge(&crate::fixtures::terms(memo));
        FetchOutcome::Captured(Capture {
            status: 402,
            payment_required: Some(CapturedHeader::of(challenge.payment_required.as_bytes())),
            body: CapturedBody::Complete(challenge.body),
        })
    };
    let url = crate::fixtures::called_url(0);
    let at = UtcMillis(crate::fixtures::CHECKED_AT);
    let (first, second) = (served("pvm_0123456789abcdef"), served("pvm_fedcba9876543210"));
    let check =
        UnsignedReport::of(&url, grade_check(url.as_str(), &first), at, false).expect("in range");
    let memo = UnsignedReport::of(&url, grade_memo(&first, &second), at, true).expect("in range");
    let mut out = Vec::new();
    for signer in [&*SIGNER, &*OTHER_SIGNER] {
        out.push(serde_json::to_value(check.clone().sign(signer)).expect("serialises"));
        out.push(serde_json::to_value(memo.clone().sign(signer)).expect("serialises"));
    }
    out
}

fn without_signature(document: &Value) -> Option<Vec<u8>> {
    let mut object = document.as_object()?.clone();
    object.remove("signature");
    Some(canonical_bytes(&Value::Object(object)))
}

fn signature_bytes(document: &Value) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(document.get("signature")?.get("value")?.as_str()?).ok()
}

/// Every JSON pointer into `value` (RFC 6901), the root included.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, member) in map {
                let key = key.replace('~', "~0").replace('/', "~1");
                pointers(member, format!("{at}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                pointers(item, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

/// Removes the member or item at `pointer` (not the root).
fn remove(document: &mut Value, pointer: &str) {
    let Some((parent, last)) = pointer.rsplit_once('/') else { return };
    let key = last.replace("~1", "/").replace("~0", "~");
    match document.pointer_mut(parent) {
        Some(Value::Object(map)) => {
            map.remove(&key);
        }
        Some(Value::Array(items)) => {
            if let Ok(i) = key.parse::<usize>()
                && i < items.len()
            {
                items.remove(i);
            }
        }
        _ => {}
    }
}

/// A signed report with the edits the frame describes.
pub fn edited(frame: &mut crate::frame::Frame<'_>) -> Value {
    let mut document = ORIGINALS[usize::from(frame.u8()) % ORIGINALS.len()].clone();
    for _ in 0..=frame.u8() % 4 {
        let kind = frame.u8();
        let mut all = Vec::new();
        pointers(&document, String::new(), &mut all);
        let pointer = all[usize::from(frame.u16()) % all.len()].clone();
        let bytes = frame.bytes();
        let Some(target) = document.pointer_mut(&pointer) else { continue };
        match kind % 6 {
            0 => remove(&mut document, &pointer),
            1 => *target = Value::Null,
            2 => {
                *target = match target.take() {
                    Value::Bool(b) => Value::Bool(!b),
                    Value::String(s) => Value::String(s + &String::from_utf8_lossy(bytes)),
                    Value::Number(n) => serde_json::json!(n.as_f64().unwrap_or(0.0) + 1.0),
                    other => other,
                }
            }
            3 => {
                *target = serde_json::from_slice(bytes)
                    .unwrap_or_else(|_| Value::from(String::from_utf8_lossy(bytes)))
            }
            4 => {
                if let Value::Object(map) = target {
                    map.insert(String::from_utf8_lossy(bytes).into_owned(), Value::Bool(true));
                }
            }
            _ => {
                if let Some(n) = target.as_u64() {
                    *target = serde_json::json!(n as f64);
                }
            }
        }
    }
    document
}

pub fn run(data: &[u8]) {
    let document = match data.split_first() {
        Some((0xff, edits)) => edited(&mut crate::frame::Frame::new(edits)),
        _ => match serde_json::from_slice::<Value>(data) {
            Ok(document) => document,
            Err(_) => return,
        },
    };
    let trusted = trusted();
    let verdict = verify_signed(&document, &trusted);
    if let Some(Value::String(at)) = document.get("checked_at")
        && let Some(parsed) = UtcMillis::parse_rfc3339_millis(at)
    {
        assert_eq!(
            parsed.to_rfc3339_millis().as_deref(),
            Some(at.as_str()),
            "timestamp round trip"
        );
    }
    match verdict {
        Ok(key) => {
            let bytes = without_signature(&document).expect("a verified document is an object");
            let signature = signature_bytes(&document).expect("a verified signature decodes");
            let original = ORIGINALS.iter().find(|o| {
                without_signature(o).as_ref() == Some(&bytes)
                    && signature_bytes(o).as_ref() == Some(&signature)
                    && o["signature"]["key_id"] == key.key_id.as_str()
            });
            assert!(original.is_some(), "a mutated report verified");
        }
        Err(
            VerifyError::MalformedEnvelope | VerifyError::UnknownKey | VerifyError::BadSignature,
        ) => {}
    }
}
