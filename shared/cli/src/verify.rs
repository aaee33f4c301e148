//! `payability verify`: check a report's Ed25519 signature and name the key that signed it,
//! by what the key's bytes compute to (a descriptor whose key id or fingerprint is not its
//! key's is refused, never believed); when the key comes from a criteria document with a
//! validity window, the report's `checked_at` must fall inside it (a retired key signs
//! nothing after its `valid_until`).

use std::process::ExitCode;

use payability_core::report::UtcMillis;
use payability_core::signing::{PublicKeyDescriptor, VerifyError, verify_signed};
use payability_runtime::signing_key::KEY_FILE_VAR;
use serde_json::Value;

use crate::escape;
use crate::exit::{EXIT_FAILED, EXIT_REFUSED, print_answer, print_error};

/// Why the trusted keys could not be read (closed form).
#[derive(Debug, Clone, Copy)]
enum KeyInputError {
    Unreadable,
    NoKeyFound,
    NotItsKey,
    NoLocalKey,
}

impl KeyInputError {
    fn message(self) -> String {
        match self {
            Self::Unreadable => "the --key argument is neither JSON nor a readable file".to_owned(),
            Self::NoKeyFound => {
                "the --key input holds no Ed25519 JWK, key descriptor or criteria document"
                    .to_owned()
            }
            Self::NotItsKey => "the --key input holds a key descriptor whose keyId or fingerprint \
                                is not the one its key computes to"
                .to_owned(),
            Self::NoLocalKey => format!(
                "no local signing key could be read (the file named by {KEY_FILE_VAR}, else the \
                 default key file): pass --key"
            ),
        }
    }
}

/// Runs `payability verify REPORT [--key K]`.
pub(crate) fn run(report_path: &str, key: Option<&str>) -> ExitCode {
    let Some(report) = read_json(report_path) else {
        print_error("report_unreadable", "the report is not a readable JSON file");
        return ExitCode::from(EXIT_REFUSED);
    };
    let trusted = match key.map_or_else(local_keys, keys_from_argument) {
        Ok(keys) => keys,
        Err(e) => {
            print_error("key_unreadable", &e.message());
            return ExitCode::from(EXIT_REFUSED);
        }
    };
    let descriptors: Vec<PublicKeyDescriptor> =
        trusted.iter().map(|key| key.descriptor.clone()).collect();
    let descriptor = match verify_signed(&report, &descriptors) {
        Ok(descriptor) => descriptor,
        Err(e) => {
            print_error(verify_rule(e), e.message());
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let key = trusted.iter().find(|key| key.descriptor == *descriptor);
    let checked_at = report.get("checked_at").and_then(Value::as_str);
    if key.is_some_and(|key| !key.covers(checked_at)) {
        print_error(
            "signature_outside_key_window",
            "the report's checked_at is outside the signing key's published validity window",
        );
        return ExitCode::from(EXIT_FAILED);
    }
    let (key_id, fingerprint) =
        (escape::text(&descriptor.key_id), escape::text(&descriptor.fingerprint));
    print_answer(&format!("valid: signed by {key_id} ({fingerprint})"), ExitCode::SUCCESS)
}

/// A trusted key and the window a criteria document gives it (open ends when absent).
#[derive(Debug, Clone)]
struct TrustedKey {
    descriptor: PublicKeyDescriptor,
    valid_from: Option<UtcMillis>,
    valid_until: Option<UtcMillis>,
}

impl TrustedKey {
    fn open(descriptor: PublicKeyDescriptor) -> Self {
        Self { descriptor, valid_from: None, valid_until: None }
    }

    /// Whether a report checked at `checked_at` can carry this key's signature: always for
    /// a key without a window; otherwise `checked_at` must be a timestamp inside it.
    fn covers(&self, checked_at: Option<&str>) -> bool {
        if self.valid_from.is_none() && self.valid_until.is_none() {
            return true;
        }
        let Some(at) = checked_at.and_then(UtcMillis::parse_rfc3339_millis) else {
            return false;
        };
        self.valid_from.is_none_or(|from| from <= at)
            && self.valid_until.is_none_or(|until| at <= until)
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
fn local_keys() -> Result<Vec<TrustedKey>, KeyInputError> {
    let path = payability_runtime::signing_key::configured_or_default_path()
        .map_err(|_| KeyInputError::NoLocalKey)?;
    let signer = payability_runtime::signing_key::read_seed_file(&path)
        .map_err(|_| KeyInputError::NoLocalKey)?;
    Ok(vec![TrustedKey::open(signer.descriptor().clone())])
}

/// Keys from `--key`: inline JSON or a file holding a JWK, a descriptor, or a criteria
/// document's `signing_keys`; every descriptor must say what its key computes to.
fn keys_from_argument(argument: &str) -> Result<Vec<TrustedKey>, KeyInputError> {
    let value = if argument.trim_start().starts_with('{') {
        serde_json::from_str(argument).map_err(|_| KeyInputError::Unreadable)?
    } else {
        read_json(argument).ok_or(KeyInputError::Unreadable)?
    };
    let keys = keys_in(&value)?;
    if keys.is_empty() { Err(KeyInputError::NoKeyFound) } else { Ok(keys) }
}

/// Every key a JSON value carries, with the window a criteria entry gives it, each
/// descriptor as computed from its key (one whose stated key id or fingerprint differs is
/// [`KeyInputError::NotItsKey`]).
fn keys_in(value: &Value) -> Result<Vec<TrustedKey>, KeyInputError> {
    if let Some(list) = value.get("signing_keys").and_then(Value::as_array) {
        let mut keys = Vec::new();
        for entry in list {
            keys.extend(keys_in(entry)?);
        }
        return Ok(keys);
    }
    // A bound that is present must be a timestamp; null or absent is an open end.
    let instant = |field: &str| match value.get(field) {
        None | Some(Value::Null) => Some(None),
        Some(bound) => bound.as_str().and_then(UtcMillis::parse_rfc3339_millis).map(Some),
    };
    if let Ok(stated) = serde_json::from_value::<PublicKeyDescriptor>(value.clone()) {
        let (Some(valid_from), Some(valid_until)) = (instant("valid_from"), instant("valid_until"))
        else {
            return Ok(Vec::new());
        };
        let Some(key) = stated.verifying_key() else {
            return Ok(Vec::new());
        };
        let descriptor = PublicKeyDescriptor::of(&key);
        if (&descriptor.key_id, &descriptor.fingerprint) != (&stated.key_id, &stated.fingerprint) {
            return Err(KeyInputError::NotItsKey);
        }
        return Ok(vec![TrustedKey { valid_from, valid_until, descriptor }]);
    }
    let jwk_only = serde_json::from_value(value.clone()).ok().map(|jwk| PublicKeyDescriptor {
        jwk,
        key_id: String::new(),
        fingerprint: String::new(),
    });
    let key = jwk_only.and_then(|d| d.verifying_key());
    Ok(key.map(|key| TrustedKey::open(PublicKeyDescriptor::of(&key))).into_iter().collect())
}
