//! The Sign-In With Solana message (CAIP-122) a proof's signature covers, built from the
//! proof's own members exactly as the official SDKs build it (`format_siws_message` of the
//! Python SDK 2.25.0, `formatSIWSMessage` of `@x402/extensions`): lines joined by `\n`, the
//! optional lines only when their member is present and not empty.

use super::proof::SignInProof;

/// The message the wallet signed, as UTF-8 text.
pub fn siws_message(proof: &SignInProof) -> String {
    let chain_reference = proof.chain_id.split_once(':').map_or("", |(_, reference)| reference);
    let mut lines = vec![
        format!("{} wants you to sign in with your Solana account:", proof.domain),
        proof.address.clone(),
        String::new(),
    ];
    if let Some(statement) = present(&proof.statement) {
        lines.push(statement.to_owned());
        lines.push(String::new());
    }
    lines.push(format!("URI: {}", proof.uri));
    lines.push(format!("Version: {}", proof.version));
    lines.push(format!("Chain ID: {chain_reference}"));
    lines.push(format!("Nonce: {}", proof.nonce));
    lines.push(format!("Issued At: {}", proof.issued_at));
    let optional = [
        ("Expiration Time", &proof.expiration_time),
        ("Not Before", &proof.not_before),
        ("Request ID", &proof.request_id),
    ];
    for (label, value) in optional {
        if let Some(value) = present(value) {
            lines.push(format!("{label}: {value}"));
        }
    }
    if let Some(resources) = proof.resources.as_ref().filter(|resources| !resources.is_empty()) {
        lines.push("Resources:".to_owned());
        lines.extend(resources.iter().map(|resource| format!("- {resource}")));
    }
    lines.join("\n")
}

/// The member's text when it is present and not empty (the SDKs' truthiness test).
fn present(member: &Option<String>) -> Option<&str> {
    member.as_deref().filter(|text| !text.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SIWS example of coinbase/x402 `specs/extensions/sign-in-with-x.md`.
    #[test]
    fn the_message_is_the_specification_example_line_for_line() {
        let proof = SignInProof {
            domain: "api.example.com".into(),
            address: "BSmWDgE9ex6dZYbiTsJGcwMEgFp8q4aWh92hdErQPeVW".into(),
            uri: "https://api.example.com/premium-data".into(),
            version: "1".into(),
            chain_id: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp".into(),
            kind: "ed25519".into(),
            nonce: "a1b2c3d4e5f67890a1b2c3d4e5f67890".into(),
            issued_at: "2024-01-15T10:30:00.000Z".into(),
            statement: Some("Sign in to access premium data".into()),
            expiration_time: Some("2024-01-15T10:35:00.000Z".into()),
            not_before: None,
            request_id: Some(String::new()),
            resources: Some(vec!["https://api.example.com/premium-data".into()]),
            signature: String::new(),
        };
        let expected = "api.example.com wants you to sign in with your Solana account:
BSmWDgE9ex6dZYbiTsJGcwMEgFp8q4aWh92hdErQPeVW

Sign in to access premium data

URI: https://api.example.com/premium-data
Version: 1
Chain ID: 5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp
Nonce: a1b2c3d4e5f67890a1b2c3d4e5f67890
Issued At: 2024-01-15T10:30:00.000Z
Expiration Time: 2024-01-15T10:35:00.000Z
Resources:
- https://api.example.com/premium-data";
        assert_eq!(siws_message(&proof), expected);
        let bare = SignInProof { statement: None, expiration_time: None, resources: None, ..proof };
        assert!(
            siws_message(&bare).starts_with(
                "api.example.com wants you to sign in with your Solana account:\nBSmW"
            )
        );
        assert!(siws_message(&bare).contains("PeVW\n\nURI: "), "no statement: one blank line");
        assert!(siws_message(&bare).ends_with("Issued At: 2024-01-15T10:30:00.000Z"));
    }
}
