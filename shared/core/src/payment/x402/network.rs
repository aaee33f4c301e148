//! The networks this service takes payments on, each named once: its CAIP-2 identifier (x402
//! v2, and sign-in-with-x's `chainId`) and its x402 v1 name come from the one table,
//! `Network::names`, and every other spelling of them in the code is derived from it.
//!
//! Typed where it is ours: where a network name decides something (a v1 payment's `network`,
//! a v2 payment's `accepted.network`, a sign-in proof's `chainId`, a facilitator's settlement
//! `network` and its `/supported` kinds and signers), it is parsed into a [`Network`] and
//! compared as one; a name outside the table parses to None and is refused as before. Our own
//! requirements carry a [`Network`] and write its name for their version.
//!
//! Untyped where it is theirs: the 402 challenges of other sellers that we grade
//! (`crate::grade`, `crate::capture`) keep their networks as the text received, because the
//! criteria grade what a seller wrote, names we do not take payments on included.

use super::version::X402Version;

/// A network we take payments on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Network {
    /// Solana mainnet-beta.
    SolanaMainnet,
}

impl Network {
    /// Every network we take payments on.
    const ALL: [Self; 1] = [Self::SolanaMainnet];

    /// The one table: the network's CAIP-2 identifier and its x402 v1 name.
    const fn names(self) -> (&'static str, &'static str) {
        match self {
            Self::SolanaMainnet => ("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "solana"),
        }
    }

    /// Its CAIP-2 identifier: x402 v2's name for it, and sign-in-with-x's `chainId`.
    pub const fn caip2(self) -> &'static str {
        self.names().0
    }

    /// Its x402 v1 name.
    pub const fn v1_name(self) -> &'static str {
        self.names().1
    }

    /// Its name in `version` of x402: the v1 name or the CAIP-2 identifier.
    pub const fn name(self, version: X402Version) -> &'static str {
        match version {
            X402Version::V1 => self.v1_name(),
            X402Version::V2 => self.caip2(),
        }
    }

    /// The network a CAIP-2 identifier names, if it is one of ours (exact spelling).
    pub fn from_caip2(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|network| network.caip2() == text)
    }

    /// The network a v1 name names, if it is one of ours (exact spelling).
    pub fn from_v1_name(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|network| network.v1_name() == text)
    }

    /// The network `version` of x402 names `text`, if it is one of ours: the other version's
    /// name is not accepted.
    pub fn from_name(version: X402Version, text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|network| network.name(version) == text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_names_solana_mainnet_in_both_versions() {
        let mainnet = Network::SolanaMainnet;
        assert_eq!(mainnet.caip2(), "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp");
        assert_eq!(mainnet.v1_name(), "solana");
        assert_eq!(mainnet.name(X402Version::V2), mainnet.caip2());
        assert_eq!(mainnet.name(X402Version::V1), mainnet.v1_name());
    }

    #[test]
    fn names_parse_back_exactly_and_only_in_their_version() {
        for network in Network::ALL {
            assert_eq!(Network::from_caip2(network.caip2()), Some(network));
            assert_eq!(Network::from_v1_name(network.v1_name()), Some(network));
            for version in X402Version::ALL {
                assert_eq!(Network::from_name(version, network.name(version)), Some(network));
            }
            assert_eq!(Network::from_caip2(network.v1_name()), None);
            assert_eq!(Network::from_v1_name(network.caip2()), None);
            assert_eq!(Network::from_name(X402Version::V1, network.caip2()), None);
            assert_eq!(Network::from_name(X402Version::V2, network.v1_name()), None);
        }
        let others = [
            "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
            "solana-devnet",
            "solana:*",
            "Solana",
            "solana ",
            "eip155:8453",
            "",
        ];
        for other in others {
            assert_eq!(Network::from_caip2(other), None, "{other}");
            assert_eq!(Network::from_v1_name(other), None, "{other}");
        }
    }
}
