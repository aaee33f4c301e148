//! The signing key on disk: the file the key-file setting names ([`settings::SIGNING_KEY_FILE`]:
//! a base64 32-byte Ed25519 seed) or, when unset, a key generated on first use under the
//! user's data directory.

use std::fs;
use std::io::Write;
#[cfg(unix)]
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::signing::ReportSigner;

use crate::settings;

/// Environment variable naming the key file.
pub const KEY_FILE_VAR: &str = settings::SIGNING_KEY_FILE.name();

/// Why the signing key could not be loaded or created (closed form).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyError {
    /// The key file could not be read.
    Unreadable,
    /// The key file is not base64 of exactly 32 bytes.
    Malformed,
    /// Neither `XDG_DATA_HOME` nor `HOME` names a data directory.
    NoDataDirectory,
    /// The generated key could not be written.
    Unwritable,
    /// The system random source failed.
    NoRandomness,
}

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Unreadable => "the signing key file cannot be read",
            Self::Malformed => {
                "the signing key file must hold a 32-byte Ed25519 seed: 64 hex digits or its base64"
            }
            Self::NoDataDirectory => {
                return write!(f, "no data directory: set XDG_DATA_HOME, HOME or {KEY_FILE_VAR}");
            }
            Self::Unwritable => "the generated signing key cannot be written",
            Self::NoRandomness => "the system random source failed",
        })
    }
}

impl std::error::Error for KeyError {}

/// Where the key came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// The file the key-file setting names, or the default file, already there.
    Existing(PathBuf),
    /// A key generated now and written to this path.
    Generated(PathBuf),
}

/// Reads a seed file (base64 of 32 bytes, or 64 hex digits).
pub fn read_seed(path: &Path) -> Result<[u8; 32], KeyError> {
    let text = fs::read_to_string(path).map_err(|_| KeyError::Unreadable)?;
    parse_seed(&text).ok_or(KeyError::Malformed)
}

/// Reads a base64 seed file as a signer.
pub fn read_seed_file(path: &Path) -> Result<ReportSigner, KeyError> {
    read_seed(path).map(|seed| ReportSigner::from_seed(&seed))
}

/// The service's data directory: `$XDG_DATA_HOME/payability` or
/// `$HOME/.local/share/payability`.
pub fn data_dir() -> Option<PathBuf> {
    let non_empty = |var: &str| std::env::var_os(var).filter(|v| !v.is_empty()).map(PathBuf::from);
    let data = non_empty("XDG_DATA_HOME")
        .or_else(|| non_empty("HOME").map(|home| home.join(".local/share")))?;
    Some(data.join("payability"))
}

/// The default key path: `signing-key` in [`data_dir`].
pub fn default_key_path() -> Result<PathBuf, KeyError> {
    data_dir().map(|dir| dir.join("signing-key")).ok_or(KeyError::NoDataDirectory)
}

/// The key file the key-file setting names in the environment, if any.
pub fn configured_path() -> Option<PathBuf> {
    settings::SIGNING_KEY_FILE.from_env().ok().flatten()
}

/// The key file the key-file setting names, else the default path.
pub fn configured_or_default_path() -> Result<PathBuf, KeyError> {
    configured_path().map_or_else(default_key_path, Ok)
}

/// The one warning line for a seed file that group or others may read, None when only its
/// owner may (or its mode cannot be read). `setting` names where the path came from.
#[cfg(unix)]
pub fn exposed_seed_warning(path: &Path, setting: &str) -> Option<String> {
    let mode = fs::metadata(path).ok()?.permissions().mode() & 0o777;
    (mode & 0o077 != 0).then(|| {
        format!(
            "payability: warning: {setting} {} is readable by group or others (mode {mode:04o}); \
             anyone who can read it can sign reports as you: chmod 600 it",
            path.display()
        )
    })
}

/// Where file modes do not exist (Windows), no warning: the file's access is its folder's.
#[cfg(not(unix))]
pub fn exposed_seed_warning(_path: &Path, _setting: &str) -> Option<String> {
    None
}

/// Loads the seed named by the environment, or the default one, generating it when missing
/// (see [`load_or_create_seed_from`]).
pub fn load_or_create_seed() -> Result<([u8; 32], KeySource), KeyError> {
    load_or_create_seed_from(configured_path())
}

/// Loads the seed in `file`, else the default one, generating it when missing. An existing
/// seed file that group or others may read is used, with one warning line on stderr.
pub fn load_or_create_seed_from(file: Option<PathBuf>) -> Result<([u8; 32], KeySource), KeyError> {
    if let Some(path) = file {
        let seed = read_seed(&path)?;
        if let Some(warning) = exposed_seed_warning(&path, KEY_FILE_VAR) {
            eprintln!("{warning}");
        }
        return Ok((seed, KeySource::Existing(path)));
    }
    let path = default_key_path()?;
    if path.exists() {
        let seed = read_seed(&path)?;
        if let Some(warning) = exposed_seed_warning(&path, "the default signing key file") {
            eprintln!("{warning}");
        }
        return Ok((seed, KeySource::Existing(path)));
    }
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|_| KeyError::NoRandomness)?;
    write_new_seed(&path, &seed)?;
    Ok((seed, KeySource::Generated(path)))
}

/// Loads (or generates) the signing key as a signer.
pub fn load_or_create() -> Result<(ReportSigner, KeySource), KeyError> {
    load_or_create_seed().map(|(seed, source)| (ReportSigner::from_seed(&seed), source))
}

/// Writes a seed to a new file readable by its owner only (0600), in a directory created
/// for its owner only (0700, as is any missing parent; on Windows, the folder's access);
/// never overwrites.
fn write_new_seed(path: &Path, seed: &[u8; 32]) -> Result<(), KeyError> {
    if let Some(dir) = path.parent() {
        let mut folder = fs::DirBuilder::new();
        folder.recursive(true);
        #[cfg(unix)]
        folder.mode(0o700);
        folder.create(dir).map_err(|_| KeyError::Unwritable)?;
    }
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    options.mode(0o600);
    let mut file = options.open(path).map_err(|_| KeyError::Unwritable)?;
    file.write_all(format!("{}\n", STANDARD.encode(seed)).as_bytes())
        .map_err(|_| KeyError::Unwritable)
}

/// A signing seed as a secret holds it: 64 hex digits (what the SAM template generates) or
/// the base64 of 32 bytes (what the local key file holds); surrounding whitespace ignored.
pub fn parse_seed(text: &str) -> Option<[u8; 32]> {
    let text = text.trim();
    if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        let mut seed = [0u8; 32];
        for (byte, pair) in seed.iter_mut().zip(text.as_bytes().chunks_exact(2)) {
            let pair = std::str::from_utf8(pair).ok()?;
            *byte = u8::from_str_radix(pair, 16).ok()?;
        }
        return Some(seed);
    }
    STANDARD.decode(text).ok().and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_64_hex_digits_or_base64_of_32_bytes() {
        let counting: [u8; 32] = std::array::from_fn(|i| i as u8);
        let hex: String = counting.iter().map(|b| format!("{b:02x}")).collect();
        let vectors: [(String, Option<[u8; 32]>); 9] = [
            (hex.clone(), Some(counting)),
            (hex.to_uppercase(), Some(counting)),
            (format!("  {hex}\n"), Some(counting)),
            (STANDARD.encode(counting), Some(counting)),
            (format!("{}\n", STANDARD.encode(counting)), Some(counting)),
            (hex[..62].to_owned(), None),
            (format!("{}zz", &hex[..62]), None),
            (STANDARD.encode([7u8; 31]), None),
            (String::new(), None),
        ];
        for (text, expected) in vectors {
            assert_eq!(parse_seed(&text), expected, "{text:?}");
        }
    }
}
