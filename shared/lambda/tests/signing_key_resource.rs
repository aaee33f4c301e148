//! The `Custom::SigningKey` resource end to end: the seed's secret in moto's Secrets Manager
//! (started by `scripts/test`) and a loopback server standing in for CloudFormation's
//! pre-signed answer URL. The answer carries the public key, never the seed.
#![allow(
    unreachable_pub,
    reason = "a test binary: its modules share items with `pub`, and nothing outside it can reach them"
)]

use aws_config::SdkConfig;
use payability_core::signing::ReportSigner;
use payability_lambda::signing_key_resource::{ResourceRequest, handle};
use payability_tests::endpoints::moto_sdk as sdk;
use payability_tests::standin::{Reply, StandIn};
use serde_json::{Value, json};

/// A secret with a unique name holding `value`; returns its ARN.
async fn secret(sdk: &SdkConfig, label: &str, value: &str) -> String {
    let name = format!("payability-resource-{label}-{}", std::process::id());
    let client = aws_sdk_secretsmanager::Client::new(sdk);
    let created = client.create_secret().name(&name).secret_string(value).send().await;
    created.expect("moto creates the secret").arn().expect("an ARN").to_owned()
}

/// A loopback stand-in for the pre-signed answer URL (it answers `200` with no body).
fn answer_url() -> (String, StandIn) {
    let stand_in = StandIn::canned(vec![Reply::status(200)]);
    (stand_in.url("/answer?signature=x"), stand_in)
}

/// The one request the answer URL got: its head (lower-cased) and body.
fn received(stand_in: &StandIn) -> (String, Vec<u8>) {
    let requests = stand_in.requests();
    let [request] = requests.as_slice() else { panic!("one answer: {}", requests.len()) };
    let fields = request.headers.iter().map(|(name, value)| format!("{name}: {value}\r\n"));
    let head = format!("{}\r\n{}", request.line(), fields.collect::<String>());
    (head.to_ascii_lowercase(), request.body.clone())
}

fn request(kind: &str, url: &str, secret_arn: Option<&str>) -> ResourceRequest {
    serde_json::from_value(json!({
        "RequestType": kind,
        "ResponseURL": url,
        "StackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/payability/1",
        "RequestId": "request-1",
        "LogicalResourceId": "SigningKey",
        "PhysicalResourceId": if kind == "Create" { Value::Null } else { json!("payability-old") },
        "ResourceType": "Custom::SigningKey",
        "ResourceProperties": {"ServiceToken": "arn:aws:lambda:x", "SecretArn": secret_arn},
    }))
    .unwrap()
}

#[tokio::test]
async fn the_resource_answers_the_public_key_and_never_the_seed() {
    let sdk = sdk();
    let seed = [0x5au8; 32];
    let seed_hex: String = seed.iter().map(|b| format!("{b:02x}")).collect();
    let good = secret(&sdk, "good", &seed_hex).await;
    let malformed = secret(&sdk, "malformed", "CANARY-not-a-seed-9f3k").await;
    let expected = ReportSigner::from_seed(&seed).descriptor().clone();

    // (request type, secret) -> (status, physical id, reason)
    let vectors = [
        ("Create", Some(good.as_str()), "SUCCESS", expected.key_id.as_str(), None),
        ("Update", Some(good.as_str()), "SUCCESS", expected.key_id.as_str(), None),
        (
            "Create",
            Some(malformed.as_str()),
            "FAILED",
            "no-key",
            Some("the secret is not a seed (64 hex digits or base64 of 32 bytes)"),
        ),
        ("Update", None, "FAILED", "payability-old", Some("the SecretArn property is missing")),
        ("Delete", None, "SUCCESS", "payability-old", None),
    ];
    for (kind, arn, status, physical, reason) in vectors {
        let (url, upload) = answer_url();
        handle(&request(kind, &url, arn), &sdk).await.expect("the answer is uploaded");
        let (head, body) = received(&upload);
        assert!(head.starts_with("put /answer?signature=x "), "{head}");
        assert!(!head.contains("content-type"), "CloudFormation signs no content type: {head}");
        let text = String::from_utf8(body).unwrap();
        assert!(!text.contains(&seed_hex) && !text.contains("CANARY"), "{text}");
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(answer["Status"], status, "{kind} {text}");
        assert_eq!(answer["PhysicalResourceId"], physical, "{kind}");
        assert_eq!(answer["RequestId"], "request-1");
        assert_eq!(answer.get("Reason").and_then(Value::as_str), reason, "{kind}");
        if status == "SUCCESS" && kind != "Delete" {
            assert_eq!(answer["Data"]["PublicKey"], expected.jwk.x.as_str());
            assert_eq!(answer["Data"]["KeyId"], expected.key_id.as_str());
            assert_eq!(answer["Data"]["Fingerprint"], expected.fingerprint.as_str());
            let valid_from = answer["Data"]["ValidFrom"].as_str().unwrap_or_default();
            assert_eq!(valid_from.len(), "2026-01-01T00:00:00.000Z".len(), "{valid_from}");
        }
    }
}
