//! What the HTTP service needs to know, built from the settings ([`crate::settings`]).

use payability_core::payment::solana::Base58Id;
use payability_core::policy::AddressRule;

use crate::settings::{KeyPublication, OPERATOR_WALLET, SettingError, Settings};
use crate::store::choice::StoreChoice;

/// Everything the HTTP service needs to know from its environment.
#[derive(Debug, Clone)]
pub struct ServiceConfig {
    /// Base58 Solana wallet that is paid (`payTo`).
    pub operator_wallet: Base58Id,
    /// x402 facilitator base URL; without it (and a fee payer) paid routes answer 503.
    pub facilitator_url: Option<String>,
    /// Fee payer to advertise when the facilitator's `/supported` cannot be read.
    pub fee_payer: Option<Base58Id>,
    /// JSON-RPC endpoint for `getTransaction` (the ledger's Solana fee).
    pub solana_rpc_url: Option<String>,
    /// Public origin (and path prefix) of the API, used for `resource`; when None, each
    /// request's own base URL as the platform reports it (API Gateway's domain and stage).
    pub public_base_url: Option<String>,
    /// The house bearer token, when house checks are enabled.
    pub house_token: Option<String>,
    /// Where the store lives.
    pub store: StoreChoice,
    /// Whether targets may be loopback or private (local tests only).
    pub address_rule: AddressRule,
    /// Bank of Canada Valet origin for CAD rates.
    pub valet_origin: String,
    /// The pinned public key and the retired keys `/criteria` publishes.
    pub keys: KeyPublication,
}

impl ServiceConfig {
    /// The service's configuration from its settings; `default_base_url` stands in for an
    /// unset public base URL (the local server's own address).
    pub fn from_settings(
        settings: &Settings,
        default_base_url: Option<&str>,
    ) -> Result<Self, SettingError> {
        let default_base = default_base_url.map(|d| d.trim_end_matches('/').to_owned());
        Ok(Self {
            operator_wallet: settings.operator_wallet.clone().ok_or(OPERATOR_WALLET.unset())?,
            facilitator_url: settings.facilitator_url.clone(),
            fee_payer: settings.fee_payer.clone(),
            solana_rpc_url: settings.solana_rpc_url.clone(),
            public_base_url: settings.public_base_url.clone().or(default_base),
            house_token: settings.house_token.clone(),
            store: StoreChoice::from_settings(settings)?,
            address_rule: settings.address_rule,
            valet_origin: settings.valet_origin.clone(),
            keys: settings.keys.clone(),
        })
    }
}
