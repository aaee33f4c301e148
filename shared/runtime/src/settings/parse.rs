//! The parsers of the table's variables: each takes the value as the environment holds it
//! (never empty) and answers the setting or the problem in static words.

use std::ffi::OsStr;
use std::path::PathBuf;

use payability_core::payment::solana::Base58Id;
use payability_core::policy::AddressRule;

use crate::base_url::Base;

/// Where the store lives, as `PAYABILITY_STORE` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreSetting {
    /// `dynamodb`: the tables the table variables name.
    DynamoDb,
    /// Any other value: the embedded SQLite file at this path.
    Embedded(PathBuf),
}

/// Any UTF-8 text.
pub(super) fn text(value: &OsStr) -> Result<String, &'static str> {
    value.to_str().map(str::to_owned).ok_or("is not UTF-8 text")
}

/// A base58 Solana public key.
pub(super) fn wallet(value: &OsStr) -> Result<Base58Id, &'static str> {
    value.to_str().and_then(Base58Id::pubkey).ok_or("is not a base58 Solana public key")
}

/// An http or https URL, without its trailing slashes.
pub(super) fn http_url(value: &OsStr) -> Result<String, &'static str> {
    let text = value.to_str().filter(|text| {
        url::Url::parse(text).is_ok_and(|url| matches!(url.scheme(), "http" | "https"))
    });
    text.map(|text| text.trim_end_matches('/').to_owned()).ok_or("is not an http(s) URL")
}

/// A base URL ([`Base::parse`]: http(s), a host, no query, fragment or user), without its
/// trailing slashes.
pub(super) fn base_url(value: &OsStr) -> Result<String, &'static str> {
    let text = value.to_str().filter(|text| Base::parse(text).is_some());
    text.map(|text| text.trim_end_matches('/').to_owned())
        .ok_or("is not an http(s) URL with a host and no query, fragment or user")
}

/// A path, as the environment holds it (any bytes).
pub(super) fn path(value: &OsStr) -> Result<PathBuf, &'static str> {
    Ok(PathBuf::from(value))
}

/// `dynamodb`, else the path of the embedded file.
pub(super) fn store(value: &OsStr) -> Result<StoreSetting, &'static str> {
    Ok(match value == "dynamodb" {
        true => StoreSetting::DynamoDb,
        false => StoreSetting::Embedded(PathBuf::from(value)),
    })
}

/// `0` (public targets only) or `1` (any target).
pub(super) fn address_rule(value: &OsStr) -> Result<AddressRule, &'static str> {
    match value.to_str() {
        Some("0") => Ok(AddressRule::PublicOnly),
        Some("1") => Ok(AddressRule::AllowPrivate),
        _ => Err("must be 0 or 1"),
    }
}
