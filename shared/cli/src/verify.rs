//! `payability verify`: check a report's Ed25519 signature and name the key that signed it.

use std::process::ExitCode;

use payability_core::signing::{PublicKeyDescriptor, VerifyError, verify_signed};
use serde_json::Value;

use crate::{EXIT_FAILED, EXIT_REFUSED, print_error};

/// Why the trusted keys could not be read (closed form).
#[derive(Debug, Clone, Copy)]
enum KeyInputError {
    Unreadable,
    NoKeyFound,
    NoLocalKey,
}

impl KeyInputError {
    fn message(self) -> &'static str {
        match self {
            Self::Unreadable => "the --key argument is neither JSON nor a readable file",
            Self::NoKeyFound => {
                "the --key input holds no Ed25519 JWK, key descriptor or criteria document"
            }
            Self::NoLocalKey => "no local signing key exists: pass --key",
        }
    }
}

/// Runs `payability verify REPORT [--key K]`.
pub fn run(report_path: &str, key: Option<&str>) -> ExitCode {
    let Some(report) = read_json(report_path) else {
        print_error("report_unreadable", "the report is not a readable JSON file");
        return ExitCode::from(EXIT_REFUSED);
    };
    let trusted = match key.map_or_else(local_keys, keys_from_argument) {
        Ok(keys) => keys,
        Err(e) => {
            print_error("key_unreadable", e.message());
            return ExitCode::from(EXIT_REFUSED);
        }
    };
    match verify_signed(&report, &trusted) {
        Ok(descriptor) => {
            println!("valid: signed by {} ({})", descriptor.key_id, descriptor.fingerprint);
            ExitCode::SUCCESS
        }
        Err(e) => {
            print_error(verify_rule(e), e.message());
            ExitCode::from(EXIT_FAILED)
        }
    }
}

fn verify_rule(error: VerifyError) -> &'static str {
    match error {
        VerifyError::MalformedEnvelope => "signature_malformed",
        VerifyError::UnknownKey => "signature_unknown_key",
        VerifyError::BadSignature => "signature_mismatch",
    }
}

fn read_json(path: &str) -> Option<Value> {
    let bytes = if path == "-" {
        let mut buffer = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buffer).ok()?;
        buffer
    } else {
        std::fs::read(path).ok()?
    };
    serde_json::from_slice(&bytes).ok()
}

/// The local signing key's descriptor (never creates a key).
fn local_keys() -> Result<Vec<PublicKeyDescriptor>, KeyInputError> {
    let path = payability_runtime::signing_key::configured_or_default_path()
        .map_err(|_| KeyInputError::NoLocalKey)?;
    let signer = payability_runtime::signing_key::read_seed_file(&path)
        .map_err(|_| KeyInputError::NoLocalKey)?;
    Ok(vec![signer.descriptor().clone()])
}

/// Keys from `--key`: inline JSON or a file holding a JWK, a descriptor, or a criteria
/// document's `signing_keys`.
fn keys_from_argument(argument: &str) -> Result<Vec<PublicKeyDescriptor>, KeyInputError> {
    let value = if argument.trim_start().starts_with('{') {
        serde_json::from_str(argument).map_err(|_| KeyInputError::Unreadable)?
    } else {
        read_json(argument).ok_or(KeyInputError::Unreadable)?
    };
    let keys = keys_in(&value);
    if keys.is_empty() { Err(KeyInputError::NoKeyFound) } else { Ok(keys) }
}

/// Every key descriptor a JSON value carries.
fn keys_in(value: &Value) -> Vec<PublicKeyDescriptor> {
    if let Some(list) = value.get("signing_keys").and_then(Value::as_array) {
        return list.iter().flat_map(keys_in).collect();
    }
    if let Ok(descriptor) = serde_json::from_value::<PublicKeyDescriptor>(value.clone()) {
        return descriptor.verifying_key().map(|_| descriptor).into_iter().collect();
    }
    let jwk_only = serde_json::from_value(value.clone()).ok().map(|jwk| PublicKeyDescriptor {
        jwk,
        key_id: String::new(),
        fingerprint: String::new(),
    });
    jwk_only
        .and_then(|d| d.verifying_key())
        .map(|key| PublicKeyDescriptor::of(&key))
        .into_iter()
        .collect()
}
