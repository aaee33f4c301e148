//! The header leg decoder (WHATWG forgiving-base64, then JSON) through `grade_check`, the only
//! way the core exposes it: `header_decodable` is exactly what an independent forgiving-base64
//! decoder and the JSON rule say, and every other spelling of the same bytes (canonical padded
//! base64, unpadded with whitespace) grades to the same factors.
//!
//! Input: the raw `PAYMENT-REQUIRED` value.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use payability_core::capture::{Capture, CapturedBody, CapturedHeader, FetchOutcome};
use payability_core::grade::grade_check;

use crate::oracle;

/// Past the 16,384-byte header cap (interpretation 4), so both sides of it are explored.
pub const MAX_LEN: usize = 20_000;

/// The published header cap, restated (interpretation 4).
const HEADER_CAP: usize = 16_384;

const URL: &str = "https://seller.example/api/weather";
const BODY: &str = r#"{"x402Version":1,"accepts":[{"scheme":"exact","amount":"10000","maxAmountRequired":"10000","resource":"https://seller.example/api/weather","description":"d","payTo":"W","extra":{"usdc_token_account":"T","memo":"pvm_abcdef12"}}]}"#;

fn grade(header: &[u8]) -> payability_core::grade::CheckVerdict {
    let outcome = FetchOutcome::Captured(Capture {
        status: 402,
        payment_required: Some(CapturedHeader::of(header)),
        body: CapturedBody::Complete(BODY.as_bytes().to_vec()),
    });
    grade_check(URL, &outcome)
}

pub fn run(data: &[u8]) {
    let verdict = grade(data);
    assert!(verdict.factors.header_present);
    assert_eq!(verdict.factors.header_over_cap, data.len() > HEADER_CAP, "the header cap");
    if data.len() > HEADER_CAP {
        assert!(!verdict.factors.header_decodable, "an over-cap value is never decoded");
        return;
    }
    let decoded = oracle::forgiving_base64(data);
    let document = decoded.as_deref().and_then(oracle::json);
    assert_eq!(verdict.factors.header_decodable, document.is_some(), "forgiving-base64 + JSON");

    if let Some(bytes) = decoded {
        let canonical = STANDARD.encode(&bytes);
        if canonical.len() <= HEADER_CAP {
            assert_eq!(grade(canonical.as_bytes()).factors, verdict.factors, "padded spelling");
        }
        let spaced: String = STANDARD_NO_PAD
            .encode(&bytes)
            .as_bytes()
            .chunks(3)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect::<Vec<_>>()
            .join(" \t\r\n\x0c"[..1 + bytes.len() % 5].as_ref());
        if spaced.len() <= HEADER_CAP {
            let factors = grade(spaced.as_bytes()).factors;
            assert_eq!(factors, verdict.factors, "unpadded, spaced spelling");
        }
    }
}
