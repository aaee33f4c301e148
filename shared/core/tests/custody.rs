//! Custody: a canary planted in every value of a challenge never reaches a report; field
//! names reach only the memo report's correlation census, as the criteria publish.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::capture::{Capture, CapturedBody, CapturedHeader, FetchOutcome};
use payability_core::grade::{grade_check, grade_memo};
use payability_core::policy::{AddressRule, vet_target_url};
use payability_core::report::{UnsignedReport, UtcMillis};
use payability_core::signing::ReportSigner;
use serde_json::{Value, json};

const CANARY: &str = "CANARY7q3x";

/// A challenge whose every value carries the canary (the resource optionally equal to the URL).
fn canary_challenge(url: &str, resource_equal: bool) -> FetchOutcome {
    let value = |name: &str| format!("{CANARY}-{name}");
    let resource = if resource_equal { url.to_owned() } else { value("resource") };
    let offer = json!({
        "scheme": value("scheme"), "network": value("network"), "amount": "10000",
        "maxAmountRequired": "10000", "resource": resource, "description": value("description"),
        "payTo": value("payTo"), "asset": value("asset"), "mimeType": value("mime"),
        "extra": {"feePayer": value("feePayer"), "usdc_token_account": value("ata"),
                  "memo": value("memo"), "nested": {"deep": value("deep")}},
    });
    let body = json!({"x402Version": 1, "error": value("error"), "memo": value("top"), "accepts": [offer]});
    let header = json!({
        "x402Version": 2, "error": value("error"),
        "resource": {"url": resource, "description": value("hdesc")},
        "accepts": [{"amount": "10000", "payTo": value("payTo"), "extra": {"memo": value("memo")}}],
    });
    FetchOutcome::Captured(Capture {
        status: 402,
        payment_required: Some(CapturedHeader::of(STANDARD.encode(header.to_string()).as_bytes())),
        body: CapturedBody::Complete(body.to_string().into_bytes()),
    })
}

fn assert_no_canary(report: &Value) {
    let text = report.to_string();
    assert!(!text.contains(CANARY), "a challenge value reached the report: {text}");
}

#[test]
fn no_challenge_value_reaches_a_check_report() {
    let target = vet_target_url("https://seller.example/api", AddressRule::PublicOnly).unwrap();
    let signer = ReportSigner::from_seed(&[3; 32]);
    for (resource_equal, state) in [(true, "POPULATED"), (false, "RESOURCE-MISMATCH")] {
        let verdict =
            grade_check(target.as_str(), &canary_challenge(target.as_str(), resource_equal));
        assert_eq!(verdict.state.as_str(), state);
        let report =
            UnsignedReport::of(&target, verdict, UtcMillis(0), false).unwrap().sign(&signer);
        assert_no_canary(&serde_json::to_value(report).unwrap());
    }
}

#[test]
fn no_challenge_value_reaches_a_memo_report() {
    let target = vet_target_url("https://seller.example/api", AddressRule::PublicOnly).unwrap();
    let challenge = canary_challenge(target.as_str(), true);
    let verdict = grade_memo(&challenge, &challenge);
    assert_eq!(verdict.state.as_str(), "MEMO-REUSED");
    let report = UnsignedReport::of(&target, verdict, UtcMillis(0), false).unwrap();
    let report = serde_json::to_value(report.sign(&ReportSigner::from_seed(&[3; 32]))).unwrap();
    assert_no_canary(&report);
    let census = &report["factors"]["correlation_census"]["fetch1"]["body"];
    assert_eq!(census[0], "amount", "names, and only names, are listed");
}
