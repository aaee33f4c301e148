//! The `Custom::SigningKey` resource end to end: the seed's secret in moto's Secrets Manager
//! (started by `scripts/test`) and a loopback server standing in for CloudFormation's
//! pre-signed answer URL. The answer carries the public key, never the seed.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;

use aws_config::{BehaviorVersion, Region, SdkConfig};
use aws_sdk_secretsmanager::config::{Credentials, SharedCredentialsProvider};
use payability_core::signing::ReportSigner;
use payability_lambda::signing_key_resource::{ResourceRequest, handle};
use payability_tests::endpoints::moto_endpoint;
use serde_json::{Value, json};

fn sdk() -> SdkConfig {
    let credentials = Credentials::new("local", "local", None, None, "payability-tests");
    SdkConfig::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(SharedCredentialsProvider::new(credentials))
        .endpoint_url(moto_endpoint())
        .build()
}

/// A secret with a unique name holding `value`; returns its ARN.
async fn secret(sdk: &SdkConfig, label: &str, value: &str) -> String {
    let name = format!("payability-resource-{label}-{}", std::process::id());
    let client = aws_sdk_secretsmanager::Client::new(sdk);
    let created = client.create_secret().name(&name).secret_string(value).send().await;
    created.expect("moto creates the secret").arn().expect("an ARN").to_owned()
}

/// A one-request loopback server; yields the request's head (lower-cased) and body.
fn answer_url() -> (String, mpsc::Receiver<(String, Vec<u8>)>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/answer?signature=x", listener.local_addr().unwrap());
    let (sender, received) = mpsc::channel();
    std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream);
        let mut head = String::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap() <= 2 {
                break;
            }
            head.push_str(&line.to_ascii_lowercase());
        }
        let length = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .map_or(0, |v| v.trim().parse().unwrap());
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let mut stream = reader.into_inner();
        stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .unwrap();
        sender.send((head, body)).unwrap();
    });
    (url, received)
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
        let (url, received) = answer_url();
        handle(&request(kind, &url, arn), &sdk).await.expect("the answer is uploaded");
        let (head, body) = received.recv().unwrap();
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
