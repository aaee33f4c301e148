//! The `Custom::SigningKey` CloudFormation resource: at deploy time it reads the signing
//! seed from Secrets Manager and hands the template its public key, key id, fingerprint and
//! the seed version's creation time, so the criteria function can publish the key without
//! ever holding the seed. Every request is answered (a stack waits an hour for a resource
//! that never answers); no answer or log line carries the secret.

use std::time::Duration;

use aws_config::SdkConfig;
use payability_core::report::UtcMillis;
use payability_core::signing::{PublicKeyDescriptor, ReportSigner};
use payability_runtime::secrets::{self, SecretError};
use serde::Deserialize;
use serde_json::{Value, json};

/// How long the answer's upload to CloudFormation may take.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);
/// How many times the answer is offered before the function gives up.
const ANSWER_ATTEMPTS: u32 = 3;

/// The fields of a CloudFormation custom resource request this resource reads.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ResourceRequest {
    /// `Create`, `Update` or `Delete`.
    pub request_type: String,
    /// The pre-signed URL the answer is uploaded to.
    #[serde(rename = "ResponseURL")]
    pub response_url: String,
    /// Echoed in the answer.
    pub stack_id: String,
    /// Echoed in the answer.
    pub request_id: String,
    /// Echoed in the answer.
    pub logical_resource_id: String,
    /// Present on `Update` and `Delete`.
    pub physical_resource_id: Option<String>,
    /// The template's properties; `SecretArn` names the signing seed's secret.
    #[serde(default)]
    pub resource_properties: Value,
}

/// Why the resource failed (closed form; the text CloudFormation shows as the reason).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceFailure {
    /// The properties have no `SecretArn` string.
    NoSecretArn,
    /// The secret could not be read or is not a seed.
    Secret(SecretError),
    /// The request type is not Create, Update or Delete.
    UnknownRequestType,
}

impl ResourceFailure {
    fn reason(self) -> String {
        match self {
            Self::NoSecretArn => "the SecretArn property is missing".to_owned(),
            Self::Secret(SecretError::Malformed(_)) => {
                "the secret is not a seed (64 hex digits or base64 of 32 bytes)".to_owned()
            }
            Self::Secret(_) => "the secret cannot be read".to_owned(),
            Self::UnknownRequestType => {
                "the request type is not Create, Update or Delete".to_owned()
            }
        }
    }
}

/// What a successful Create or Update tells the template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyFacts {
    /// The public key's descriptor.
    pub descriptor: PublicKeyDescriptor,
    /// When the seed's secret version was created, when Secrets Manager says.
    pub valid_from: Option<UtcMillis>,
}

/// The answer document for `request` (the body uploaded to its `ResponseURL`).
pub fn answer(
    request: &ResourceRequest,
    outcome: Result<Option<KeyFacts>, ResourceFailure>,
) -> Value {
    let echo = |status: &str, physical: String| {
        json!({
            "Status": status,
            "PhysicalResourceId": physical,
            "StackId": request.stack_id,
            "RequestId": request.request_id,
            "LogicalResourceId": request.logical_resource_id,
        })
    };
    let previous = request.physical_resource_id.clone();
    match outcome {
        Ok(Some(facts)) => {
            let mut body = echo("SUCCESS", facts.descriptor.key_id.clone());
            body["Data"] = json!({
                "PublicKey": facts.descriptor.jwk.x,
                "KeyId": facts.descriptor.key_id,
                "Fingerprint": facts.descriptor.fingerprint,
                "ValidFrom": facts.valid_from.and_then(UtcMillis::to_rfc3339_millis).unwrap_or_default(),
            });
            body
        }
        Ok(None) => {
            echo("SUCCESS", previous.unwrap_or_else(|| request.logical_resource_id.clone()))
        }
        Err(failure) => {
            // A failed Create has no physical id yet; CloudFormation then sends a Delete for
            // this placeholder, which succeeds.
            let mut body = echo("FAILED", previous.unwrap_or_else(|| "no-key".to_owned()));
            body["Reason"] = json!(failure.reason());
            body
        }
    }
}

/// The key facts for a Create or Update; None for a Delete (nothing to remove: the secret
/// belongs to the template, not to this resource).
pub async fn outcome(
    request: &ResourceRequest,
    sdk: &SdkConfig,
) -> Result<Option<KeyFacts>, ResourceFailure> {
    match request.request_type.as_str() {
        "Delete" => Ok(None),
        "Create" | "Update" => {
            let arn = request
                .resource_properties
                .get("SecretArn")
                .and_then(Value::as_str)
                .filter(|arn| !arn.is_empty())
                .ok_or(ResourceFailure::NoSecretArn)?;
            let (seed, created) =
                secrets::signing_seed(sdk, arn).await.map_err(ResourceFailure::Secret)?;
            let descriptor = ReportSigner::from_seed(&seed).descriptor().clone();
            Ok(Some(KeyFacts { descriptor, valid_from: created }))
        }
        _ => Err(ResourceFailure::UnknownRequestType),
    }
}

/// Uploads `body` to the request's pre-signed URL (PUT, no content type, as CloudFormation
/// signs it), trying up to [`ANSWER_ATTEMPTS`] times.
pub async fn upload(request: &ResourceRequest, body: &Value) -> Result<(), UploadFailed> {
    let client = payability_runtime::http_client::builder()
        .no_proxy()
        .timeout(ANSWER_TIMEOUT)
        .build()
        .map_err(|_| UploadFailed)?;
    let bytes = body.to_string().into_bytes();
    for _ in 0..ANSWER_ATTEMPTS {
        let sent = client.put(&request.response_url).body(bytes.clone()).send().await;
        if sent.is_ok_and(|answer| answer.status().is_success()) {
            return Ok(());
        }
    }
    Err(UploadFailed)
}

/// The answer could not be uploaded to CloudFormation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UploadFailed;

impl std::fmt::Display for UploadFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the custom resource answer could not be uploaded to CloudFormation")
    }
}

impl std::error::Error for UploadFailed {}

/// Handles one request end to end: work out the outcome, upload the answer, log a line.
pub async fn handle(request: &ResourceRequest, sdk: &SdkConfig) -> Result<(), UploadFailed> {
    let outcome = outcome(request, sdk).await;
    let status = if outcome.is_ok() { "SUCCESS" } else { "FAILED" };
    let body = answer(request, outcome);
    let uploaded = upload(request, &body).await;
    tracing::info!(
        request_type = %request.request_type,
        status,
        uploaded = uploaded.is_ok(),
        "signing key resource"
    );
    uploaded
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(kind: &str, physical: Option<&str>) -> ResourceRequest {
        serde_json::from_value(json!({
            "RequestType": kind,
            "ResponseURL": "http://127.0.0.1:9/answer",
            "StackId": "stack",
            "RequestId": "request",
            "LogicalResourceId": "SigningKey",
            "PhysicalResourceId": physical,
            "ResourceType": "Custom::SigningKey",
            "ResourceProperties": {"ServiceToken": "arn", "SecretArn": "arn:secret"},
        }))
        .unwrap()
    }

    #[test]
    fn answers_echo_the_request_and_carry_the_key_or_a_closed_reason() {
        let signer = ReportSigner::from_seed(&[9; 32]);
        let facts = KeyFacts {
            descriptor: signer.descriptor().clone(),
            valid_from: Some(UtcMillis(1_790_000_000_000)),
        };
        let key_id = facts.descriptor.key_id.clone();
        let no_secret = Err(ResourceFailure::Secret(SecretError::Unavailable("X")));
        // (request type, previous physical id, outcome) -> (status, physical id, reason)
        let vectors = [
            ("Create", None, Ok(Some(facts.clone())), "SUCCESS", key_id.as_str(), None),
            ("Update", Some("old"), Ok(Some(facts)), "SUCCESS", key_id.as_str(), None),
            ("Delete", Some("old"), Ok(None), "SUCCESS", "old", None),
            ("Create", None, no_secret, "FAILED", "no-key", Some("the secret cannot be read")),
            (
                "Update",
                Some("old"),
                Err(ResourceFailure::NoSecretArn),
                "FAILED",
                "old",
                Some("the SecretArn property is missing"),
            ),
        ];
        for (kind, physical, outcome, status, id, reason) in vectors {
            let body = answer(&request(kind, physical), outcome);
            assert_eq!(body["Status"], status, "{kind}");
            assert_eq!(body["PhysicalResourceId"], id, "{kind}");
            assert_eq!(body["StackId"], "stack");
            assert_eq!(body["RequestId"], "request");
            assert_eq!(body["LogicalResourceId"], "SigningKey");
            assert_eq!(body.get("Reason").and_then(Value::as_str), reason, "{kind}");
        }
        let created = answer(
            &request("Create", None),
            Ok(Some(KeyFacts {
                descriptor: signer.descriptor().clone(),
                valid_from: Some(UtcMillis(1_790_000_000_000)),
            })),
        );
        assert_eq!(created["Data"]["PublicKey"], signer.descriptor().jwk.x);
        assert_eq!(created["Data"]["Fingerprint"], signer.descriptor().fingerprint);
        assert_eq!(created["Data"]["ValidFrom"], "2026-09-21T14:13:20.000Z");
    }
}
