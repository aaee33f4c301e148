//! The signing keys `/criteria` publishes: the current key, which a deployment pins by its
//! public key (`PAYABILITY_SIGNING_PUBLIC_KEY`) so no function signs with a key nobody
//! published, and the previous keys with their validity windows
//! (`PAYABILITY_PREVIOUS_SIGNING_KEYS`), so reports signed before a rotation stay verifiable.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::VerifyingKey;
use payability_core::criteria::SigningKeyEntry;
use payability_core::report::UtcMillis;
use payability_core::signing::PublicKeyDescriptor;
use serde::Deserialize;

use super::config::ConfigError;

/// The current key's public key (the JWK `x`: base64url of the 32 raw bytes).
pub const PUBLIC_KEY_VAR: &str = "PAYABILITY_SIGNING_PUBLIC_KEY";
/// When the current key started signing (`YYYY-MM-DDTHH:MM:SS.mmmZ`).
pub const VALID_FROM_VAR: &str = "PAYABILITY_SIGNING_KEY_VALID_FROM";
/// The retired keys: a JSON array of `{"publicKey", "validFrom"?, "validUntil"}`.
pub const PREVIOUS_KEYS_VAR: &str = "PAYABILITY_PREVIOUS_SIGNING_KEYS";

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

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn descriptor_of(x: &str) -> Option<PublicKeyDescriptor> {
    let raw: [u8; 32] = URL_SAFE_NO_PAD.decode(x.trim()).ok()?.try_into().ok()?;
    VerifyingKey::from_bytes(&raw).ok().map(|key| PublicKeyDescriptor::of(&key))
}

/// The instant in the report timestamp format, or None.
fn instant(text: &str) -> Option<UtcMillis> {
    UtcMillis::parse_rfc3339_millis(text)
}

impl KeyPublication {
    /// Reads the three variables.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::parse(
            var(PUBLIC_KEY_VAR).as_deref(),
            var(VALID_FROM_VAR).as_deref(),
            var(PREVIOUS_KEYS_VAR).as_deref(),
        )
    }

    /// Checks and assembles the three settings (each None when unset).
    pub fn parse(
        pinned: Option<&str>,
        valid_from: Option<&str>,
        previous: Option<&str>,
    ) -> Result<Self, ConfigError> {
        let bad = |variable, problem| ConfigError { variable, problem };
        let pinned = pinned
            .map(|x| descriptor_of(x).ok_or(bad(PUBLIC_KEY_VAR, "is not a base64url Ed25519 key")))
            .transpose()?;
        let current_valid_from = valid_from
            .map(|text| {
                instant(text)
                    .map(|_| text.to_owned())
                    .ok_or(bad(VALID_FROM_VAR, "is not YYYY-MM-DDTHH:MM:SS.mmmZ"))
            })
            .transpose()?;
        let listed: Vec<PreviousKey> = match previous {
            Some(text) => serde_json::from_str(text).map_err(|_| {
                bad(PREVIOUS_KEYS_VAR, "is not a JSON array of {publicKey, validFrom, validUntil}")
            })?,
            None => Vec::new(),
        };
        let mut entries: Vec<SigningKeyEntry> = Vec::with_capacity(listed.len());
        for key in listed {
            let descriptor = descriptor_of(&key.public_key)
                .ok_or(bad(PREVIOUS_KEYS_VAR, "holds a publicKey that is not an Ed25519 key"))?;
            let until = instant(&key.valid_until)
                .ok_or(bad(PREVIOUS_KEYS_VAR, "holds a validUntil that is not a timestamp"))?;
            let from = key.valid_from.as_deref().map(instant);
            match from {
                Some(None) => {
                    return Err(bad(
                        PREVIOUS_KEYS_VAR,
                        "holds a validFrom that is not a timestamp",
                    ));
                }
                Some(Some(from)) if from > until => {
                    return Err(bad(PREVIOUS_KEYS_VAR, "holds a validFrom after its validUntil"));
                }
                _ => {}
            }
            let seen = entries.iter().map(|e| &e.descriptor).chain(pinned.as_ref());
            if seen.into_iter().any(|d| d.key_id == descriptor.key_id) {
                return Err(bad(PREVIOUS_KEYS_VAR, "lists a key twice or the current key"));
            }
            entries.push(SigningKeyEntry {
                descriptor,
                valid_from: key.valid_from,
                valid_until: Some(key.valid_until),
            });
        }
        Ok(Self { pinned, current_valid_from, previous: entries })
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
