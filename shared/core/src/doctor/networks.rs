//! The networks the doctor knows, each named once with its USDC: the x402 v1 name, the CAIP-2
//! id, mainnet or testnet, and for EVM the token's EIP-712 domain.
//!
//! Sources: coinbase/x402 `typescript/packages/mechanisms/svm/src/constants.ts` (the Solana
//! CAIP-2 ids, the v1 names and the USDC mints) and
//! `typescript/packages/mechanisms/evm/src/shared/defaultAssets.ts` (`DEFAULT_STABLECOINS`:
//! Base and Base Sepolia USDC, their EIP-712 name and version, 6 decimals), as `@x402/svm` and
//! `@x402/evm` 2.27.0 ship them. The v1 EVM names are x402 v1's (`base`, `base-sepolia`).

/// The kind of chain a network is: what an address, a fee payer and a domain look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Solana: base58 addresses, SPL tokens, a facilitator fee payer.
    Svm,
    /// EVM: 20-byte hex addresses, ERC-20 tokens with an EIP-712 domain.
    Evm,
}

/// A network of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownNetwork {
    /// Its x402 v1 name.
    pub v1_name: &'static str,
    /// Its CAIP-2 id (x402 v2's name).
    pub caip2: &'static str,
    /// Its chain family.
    pub family: Family,
    /// A test network.
    pub testnet: bool,
    /// Its USDC: the mint (Solana) or the contract address (EVM, EIP-55 spelling).
    pub usdc: &'static str,
    /// USDC's EIP-712 domain `(name, version)` on an EVM network.
    pub eip712: Option<(&'static str, &'static str)>,
    /// A network of the table; false for [`OTHER_EVM`], whose asset and testnet-ness the
    /// doctor does not know.
    pub in_table: bool,
}

/// Solana devnet's and testnet's USDC mint.
const SOLANA_DEVNET_USDC: &str = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";

/// The table.
pub const NETWORKS: [KnownNetwork; 5] = [
    KnownNetwork {
        v1_name: "solana",
        caip2: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
        family: Family::Svm,
        testnet: false,
        usdc: crate::price::USDC_MINT,
        eip712: None,
        in_table: true,
    },
    KnownNetwork {
        v1_name: "solana-devnet",
        caip2: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
        family: Family::Svm,
        testnet: true,
        usdc: SOLANA_DEVNET_USDC,
        eip712: None,
        in_table: true,
    },
    KnownNetwork {
        v1_name: "solana-testnet",
        caip2: "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z",
        family: Family::Svm,
        testnet: true,
        usdc: SOLANA_DEVNET_USDC,
        eip712: None,
        in_table: true,
    },
    KnownNetwork {
        v1_name: "base",
        caip2: "eip155:8453",
        family: Family::Evm,
        testnet: false,
        usdc: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        eip712: Some(("USD Coin", "2")),
        in_table: true,
    },
    KnownNetwork {
        v1_name: "base-sepolia",
        caip2: "eip155:84532",
        family: Family::Evm,
        testnet: true,
        usdc: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
        eip712: Some(("USDC", "2")),
        in_table: true,
    },
];

/// Any other EVM chain, named by its CAIP-2 id `eip155:<chain id>` in x402 v2 (x402's EVM
/// schemes are the same on every chain): its addresses and EIP-712 domain are checked, its
/// asset is not (the doctor has no table for it).
pub const OTHER_EVM: KnownNetwork = KnownNetwork {
    v1_name: "",
    caip2: "",
    family: Family::Evm,
    testnet: false,
    usdc: "",
    eip712: None,
    in_table: false,
};

/// The network a challenge of `version` names, spelt as that version spells it (v1: its name;
/// v2: its CAIP-2 id), if it is in the table; in v2, [`OTHER_EVM`] for any other
/// `eip155:<chain id>` (decimal digits, no leading zero, at most 32 of them, as CAIP-2 allows).
pub fn known_network(version: u64, name: &str) -> Option<&'static KnownNetwork> {
    let tabled = NETWORKS.iter().find(|network| match version {
        1 => network.v1_name == name,
        _ => network.caip2 == name,
    });
    let chain_id = |id: &str| {
        (1..=32).contains(&id.len())
            && id.bytes().all(|b| b.is_ascii_digit())
            && !id.starts_with('0')
    };
    let other_evm = version == 2 && name.strip_prefix("eip155:").is_some_and(chain_id);
    tabled.or(other_evm.then_some(&OTHER_EVM))
}

impl KnownNetwork {
    /// True when `asset` is this network's USDC (EVM addresses compared without case).
    pub fn is_usdc(&self, asset: &str) -> bool {
        match self.family {
            Family::Svm => asset == self.usdc,
            Family::Evm => asset.eq_ignore_ascii_case(self.usdc),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::address::{evm_address_valid, svm_address_valid};

    #[test]
    fn every_network_is_found_by_its_versions_name_only_and_its_usdc_is_an_address_of_it() {
        for network in NETWORKS {
            assert_eq!(known_network(1, network.v1_name), Some(&network));
            assert_eq!(known_network(2, network.caip2), Some(&network));
            assert_eq!(known_network(1, network.caip2), None);
            assert_eq!(known_network(2, network.v1_name), None);
            assert!(network.in_table);
            let valid = match network.family {
                Family::Svm => svm_address_valid(network.usdc),
                Family::Evm => evm_address_valid(network.usdc),
            };
            assert!(valid, "{}", network.caip2);
            assert_eq!(network.eip712.is_some(), network.family == Family::Evm);
        }
        let vectors: [(u64, &str, Option<bool>); 7] = [
            (2, "eip155:137", Some(false)),
            (2, "eip155:8453", Some(true)),
            (2, "eip155:0137", None),
            (2, "eip155:", None),
            (2, "eip155:base", None),
            (1, "eip155:137", None),
            (2, "solana:mainnet", None),
        ];
        for (version, name, in_table) in vectors {
            assert_eq!(known_network(version, name).map(|n| n.in_table), in_table, "{name}");
        }
    }
}
