//! The signing keys `/criteria` publishes: the current key, which a deployment pins by its
//! public key ([`super::SIGNING_PUBLIC_KEY`]) so no function signs with a key nobody
//! published, and the previous keys with their validity windows
//! ([`super::PREVIOUS_SIGNING_KEYS`]), so reports signed before a rotation stay verifiable.
//! Each of the three settings has its parser here; [`KeyPublication::assemble`] checks them
//! together. The settings themselves are the table's (`settings/mod.rs`), which names these
//! parsers: nothing here reads the table.

use std::ffi::OsStr;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::VerifyingKey;
use payability_core::criteria::SigningKeyEntry;
use payability_core::report::UtcMillis;
use payability_core::signing::PublicKeyDescriptor;
use serde::Deserialize;

/// What a deployment says about its keys.
#[derive(Debug, Clone, Default)]
pub struct KeyPublication {
    /// The public key the current seed must have, when pinned.
    pub pinned: Option<PublicKeyDescriptor>,
    /// When the current key started signing, when known.
    pub current_valid_from: Option<String>,
    /// Retired keys, each with the window in which it signed.
    pub previous: Vec<SigningKeyEntry>,
}

/// One retired key as the operator writes it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PreviousKey {
    public_key: String,
    valid_from: Option<String>,
    valid_until: String,
}

fn descriptor_of(x: &str) -> Option<PublicKeyDescriptor> {
    let raw: [u8; 32] = URL_SAFE_NO_PAD.decode(x.trim()).ok()?.try_into().ok()?;
    VerifyingKey::from_bytes(&raw).ok().map(|key| PublicKeyDescriptor::of(&key))
}

/// The instant in the report timestamp format, or None.
fn instant(text: &str) -> Option<UtcMillis> {
    UtcMillis::parse_rfc3339_millis(text)
}

/// The parser of [`SIGNING_PUBLIC_KEY`]: the JWK `x` (base64url of the 32 raw bytes).
pub(super) fn public_key(value: &OsStr) -> Result<PublicKeyDescriptor, &'static str> {
    value.to_str().and_then(descriptor_of).ok_or("is not a base64url Ed25519 key")
}

/// The parser of [`SIGNING_KEY_VALID_FROM`]: an instant in the report timestamp format.
pub(super) fn valid_from(value: &OsStr) -> Result<String, &'static str> {
    let text = value.to_str().filter(|text| instant(text).is_some());
    text.map(str::to_owned).ok_or("is not YYYY-MM-DDTHH:MM:SS.mmmZ")
}

/// The parser of [`PREVIOUS_SIGNING_KEYS`]: a JSON array of
/// `{"publicKey", "validFrom"?, "validUntil"}`, each window in order, no key twice.
pub(super) fn previous_keys(value: &OsStr) -> Result<Vec<SigningKeyEntry>, &'static str> {
    const NOT_A_LIST: &str = "is not a JSON array of {publicKey, validFrom, validUntil}";
    let listed: Vec<PreviousKey> =
        serde_json::from_str(value.to_str().ok_or(NOT_A_LIST)?).map_err(|_| NOT_A_LIST)?;
    let mut entries: Vec<SigningKeyEntry> = Vec::with_capacity(listed.len());
    for key in listed {
        let descriptor =
            descriptor_of(&key.public_key).ok_or("holds a publicKey that is not an Ed25519 key")?;
        let until =
            instant(&key.valid_until).ok_or("holds a validUntil that is not a timestamp")?;
        match key.valid_from.as_deref().map(instant) {
            Some(None) => return Err("holds a validFrom that is not a timestamp"),
            Some(Some(from)) if from > until => {
                return Err("holds a validFrom after its validUntil");
            }
            _ => {}
        }
        if entries.iter().any(|e| e.descriptor.key_id == descriptor.key_id) {
            return Err(TWICE);
        }
        entries.push(SigningKeyEntry {
            descriptor,
            valid_from: key.valid_from,
            valid_until: Some(key.valid_until),
        });
    }
    Ok(entries)
}

/// The problem of a retired key listed twice, or listed while it is the current key.
const TWICE: &str = "lists a key twice or the current key";

impl KeyPublication {
    /// Assembles the three parsed settings: no retired key may be the current one (else the
    /// problem of the previous keys' setting).
    pub fn assemble(
        pinned: Option<PublicKeyDescriptor>,
        current_valid_from: Option<String>,
        previous: Option<Vec<SigningKeyEntry>>,
    ) -> Result<Self, &'static str> {
        let previous = previous.unwrap_or_default();
        let current =
            |e: &SigningKeyEntry| pinned.as_ref().is_some_and(|p| p.key_id == e.descriptor.key_id);
        if previous.iter().any(current) {
            return Err(TWICE);
        }
        Ok(Self { pinned, current_valid_from, previous })
    }

    /// Every published key, the current one (`current`) first.
    pub fn entries(&self, current: &PublicKeyDescriptor) -> Vec<SigningKeyEntry> {
        let now = SigningKeyEntry {
            descriptor: current.clone(),
            valid_from: self.current_valid_from.clone(),
            valid_until: None,
        };
        std::iter::once(now).chain(self.previous.iter().cloned()).collect()
    }
}
