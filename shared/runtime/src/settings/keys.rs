//! The signing keys `/criteria` publishes: the current key, which a deployment pins by its
//! public key ([`super::SIGNING_PUBLIC_KEY`]) so no function signs with a key nobody
//! published, and the previous keys with their validity windows
//! ([`super::PREVIOUS_SIGNING_KEYS`]), so reports signed before a rotation stay verifiable.
//! Each of the three settings has its parser here; [`KeyPublication::assemble`] checks them
//! together.

use std::ffi::OsStr;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::VerifyingKey;
use payability_core::criteria::SigningKeyEntry;
use payability_core::report::UtcMillis;
use payability_core::signing::PublicKeyDescriptor;
use serde::Deserialize;

use super::{PREVIOUS_SIGNING_KEYS, SIGNING_KEY_VALID_FROM, SIGNING_PUBLIC_KEY, SettingError};

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
    /// Checks and assembles the three settings as text (each None when unset).
    pub fn parse(
        pinned: Option<&str>,
        valid_from: Option<&str>,
        previous: Option<&str>,
    ) -> Result<Self, SettingError> {
        Self::assemble(
            SIGNING_PUBLIC_KEY.parse_text(pinned)?,
            SIGNING_KEY_VALID_FROM.parse_text(valid_from)?,
            PREVIOUS_SIGNING_KEYS.parse_text(previous)?,
        )
    }

    /// Assembles the three parsed settings: no retired key may be the current one.
    pub fn assemble(
        pinned: Option<PublicKeyDescriptor>,
        current_valid_from: Option<String>,
        previous: Option<Vec<SigningKeyEntry>>,
    ) -> Result<Self, SettingError> {
        let previous = previous.unwrap_or_default();
        let current =
            |e: &SigningKeyEntry| pinned.as_ref().is_some_and(|p| p.key_id == e.descriptor.key_id);
        if previous.iter().any(current) {
            return Err(SettingError { variable: PREVIOUS_SIGNING_KEYS.name(), problem: TWICE });
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

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::SigningKey;

    fn x_of(seed: u8) -> String {
        URL_SAFE_NO_PAD.encode(SigningKey::from_bytes(&[seed; 32]).verifying_key().as_bytes())
    }

    fn previous(seed: u8, from: Option<&str>, until: &str) -> String {
        let from = from.map_or(String::new(), |f| format!(r#""validFrom":"{f}","#));
        format!(r#"{{"publicKey":"{}",{from}"validUntil":"{until}"}}"#, x_of(seed))
    }

    #[test]
    fn settings_are_checked_and_assembled() {
        const FROM: &str = "2026-01-01T00:00:00.000Z";
        const UNTIL: &str = "2026-06-01T00:00:00.000Z";
        let one = format!("[{}]", previous(2, Some(FROM), UNTIL));
        let open_start = format!("[{}]", previous(2, None, UNTIL));
        let two = format!("[{},{}]", previous(2, None, FROM), previous(3, Some(FROM), UNTIL));
        let reversed = format!("[{}]", previous(2, Some(UNTIL), FROM));
        let repeated = format!("[{},{}]", previous(2, None, FROM), previous(2, None, UNTIL));
        let current_again = format!("[{}]", previous(1, None, UNTIL));
        let extra_field =
            format!(r#"[{{"publicKey":"{}","validUntil":"{UNTIL}","x":1}}]"#, x_of(2));
        let bad_time = format!("[{}]", previous(2, None, "2026-06-01"));
        let x1 = x_of(1);
        // (pinned, valid from, previous) -> Ok(number of previous keys) or the problem.
        const NOT_A_LIST: &str = "is not a JSON array of {publicKey, validFrom, validUntil}";
        const TWICE: &str = "lists a key twice or the current key";
        type Settings<'a> = (Option<&'a str>, Option<&'a str>, Option<&'a str>);
        let vectors: [(Settings, Result<usize, &str>); 13] = [
            ((None, None, None), Ok(0)),
            ((Some(&x1), Some(FROM), Some("[]")), Ok(0)),
            ((Some(&x1), None, Some(&one)), Ok(1)),
            ((Some(&x1), None, Some(&open_start)), Ok(1)),
            ((Some(&x1), None, Some(&two)), Ok(2)),
            ((Some("not-a-key"), None, None), Err("is not a base64url Ed25519 key")),
            ((Some(&x1), Some("yesterday"), None), Err("is not YYYY-MM-DDTHH:MM:SS.mmmZ")),
            ((Some(&x1), None, Some("{}")), Err(NOT_A_LIST)),
            ((Some(&x1), None, Some(&reversed)), Err("holds a validFrom after its validUntil")),
            ((Some(&x1), None, Some(&repeated)), Err(TWICE)),
            ((Some(&x1), None, Some(&current_again)), Err(TWICE)),
            ((Some(&x1), None, Some(&extra_field)), Err(NOT_A_LIST)),
            ((Some(&x1), None, Some(&bad_time)), Err("holds a validUntil that is not a timestamp")),
        ];
        for ((pinned, from, list), expected) in vectors {
            let got = KeyPublication::parse(pinned, from, list)
                .map(|p| p.previous.len())
                .map_err(|e| e.problem);
            assert_eq!(got, expected, "{pinned:?} {from:?} {list:?}");
        }
    }

    #[test]
    fn the_current_key_comes_first_and_open_ended() {
        let list = format!("[{}]", previous(2, None, "2026-06-01T00:00:00.000Z"));
        let publication =
            KeyPublication::parse(Some(&x_of(1)), Some("2026-06-01T00:00:00.000Z"), Some(&list))
                .unwrap();
        let current = publication.pinned.clone().unwrap();
        let entries = publication.entries(&current);
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].descriptor, current);
        assert_eq!(entries[0].valid_from.as_deref(), Some("2026-06-01T00:00:00.000Z"));
        assert_eq!(entries[0].valid_until, None);
        assert_eq!(entries[1].valid_until.as_deref(), Some("2026-06-01T00:00:00.000Z"));
    }
}
