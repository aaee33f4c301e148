//! The MCP revisions both of our servers speak, newest first: the stateless one (2026-07-28,
//! every request names it) and the handshake ones (`initialize` agrees one). The era a request
//! is in ([`super::era`]) and the unsupported-version error ([`super::error`]) both read them.

/// The stateless revisions spoken (every request carries its version), newest first.
pub const STATELESS_VERSIONS: [&str; 1] = ["2026-07-28"];

/// The handshake revisions spoken (`initialize` agrees one), newest first.
pub const HANDSHAKE_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Every revision spoken, newest first: `server/discover`'s `supportedVersions` and an
/// unsupported version's `data.supported`.
pub fn supported_versions() -> Vec<&'static str> {
    STATELESS_VERSIONS.into_iter().chain(HANDSHAKE_VERSIONS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stateless_revision_is_the_newest_spoken() {
        assert_eq!(supported_versions()[0], STATELESS_VERSIONS[0]);
        assert_eq!(supported_versions().len(), STATELESS_VERSIONS.len() + HANDSHAKE_VERSIONS.len());
    }
}
