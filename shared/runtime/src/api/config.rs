//! The service's settings, read once at start-up from environment variables through one
//! typed loader that fails with one line naming the missing or bad setting.

use payability_core::payment::solana::decode_pubkey;
use payability_core::policy::AddressRule;

use super::published_keys::KeyPublication;
use crate::store::choice::{StoreChoice, StoreChoiceError};

/// Everything the HTTP service needs to know from its environment.
#[derive(Debug, Clone)]
pub struct ServiceConfig {
    /// Base58 Solana wallet that is paid (`payTo`).
    pub operator_wallet: String,
    /// x402 facilitator base URL; without it (and a fee payer) paid routes answer 503.
    pub facilitator_url: Option<String>,
    /// Fee payer to advertise when the facilitator's `/supported` cannot be read.
    pub fee_payer: Option<String>,
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

/// A setting that is missing or malformed: the variable's name and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The variable.
    pub variable: &'static str,
    /// What is wrong, in static words.
    pub problem: &'static str,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "configuration: {} {}", self.variable, self.problem)
    }
}

impl std::error::Error for ConfigError {}

fn var(name: &'static str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn wallet(name: &'static str, value: String) -> Result<String, ConfigError> {
    decode_pubkey(&value)
        .map(|_| value)
        .ok_or(ConfigError { variable: name, problem: "is not a base58 Solana public key" })
}

fn http_url(name: &'static str, value: String) -> Result<String, ConfigError> {
    let ok = url::Url::parse(&value).is_ok_and(|u| matches!(u.scheme(), "http" | "https"));
    let bad = ConfigError { variable: name, problem: "is not an http(s) URL" };
    ok.then(|| value.trim_end_matches('/').to_owned()).ok_or(bad)
}

impl ServiceConfig {
    /// Reads every setting; `default_base_url` stands in for an unset
    /// `PAYABILITY_PUBLIC_BASE_URL` (the local server's own address).
    pub fn from_env(default_base_url: Option<&str>) -> Result<Self, ConfigError> {
        let operator_wallet = var("PAYABILITY_OPERATOR_WALLET")
            .ok_or(ConfigError { variable: "PAYABILITY_OPERATOR_WALLET", problem: "is not set" })
            .and_then(|v| wallet("PAYABILITY_OPERATOR_WALLET", v))?;
        let optional_url = |name| var(name).map(|v| http_url(name, v)).transpose();
        let public_base_url = match var("PAYABILITY_PUBLIC_BASE_URL") {
            Some(v) => Some(http_url("PAYABILITY_PUBLIC_BASE_URL", v)?),
            None => default_base_url.map(|d| d.trim_end_matches('/').to_owned()),
        };
        let address_rule = match var("PAYABILITY_ALLOW_PRIVATE_TARGETS").as_deref() {
            None | Some("0") => AddressRule::PublicOnly,
            Some("1") => AddressRule::AllowPrivate,
            Some(_) => {
                return Err(ConfigError {
                    variable: "PAYABILITY_ALLOW_PRIVATE_TARGETS",
                    problem: "must be 0 or 1",
                });
            }
        };
        let store = StoreChoice::from_env().map_err(|e| match e {
            StoreChoiceError::MissingTable(variable) => {
                ConfigError { variable, problem: "is not set" }
            }
            StoreChoiceError::NoDataDirectory => ConfigError {
                variable: "PAYABILITY_STORE",
                problem: "is not set and there is no data directory",
            },
        })?;
        Ok(Self {
            operator_wallet,
            facilitator_url: optional_url("PAYABILITY_FACILITATOR_URL")?,
            fee_payer: var("PAYABILITY_FEE_PAYER")
                .map(|v| wallet("PAYABILITY_FEE_PAYER", v))
                .transpose()?,
            solana_rpc_url: optional_url("PAYABILITY_SOLANA_RPC_URL")?,
            public_base_url,
            house_token: var("PAYABILITY_HOUSE_TOKEN"),
            store,
            address_rule,
            valet_origin: optional_url("PAYABILITY_BOC_VALET_ORIGIN")?
                .unwrap_or_else(|| crate::fx::VALET_ORIGIN.to_owned()),
            keys: KeyPublication::from_env()?,
        })
    }
}
