//! Secrets on AWS: the signing key seed and the house token live in Secrets Manager and are
//! read once per cold start (`PAYABILITY_SIGNING_KEY_SECRET_ARN`,
//! `PAYABILITY_HOUSE_TOKEN_SECRET_ARN`); locally the file and plain variables stand in.
//! No secret value is ever logged or formatted into an error.

use aws_config::SdkConfig;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use crate::signing_key::{KeyError, load_or_create_seed};

/// Environment variable naming the signing seed's secret (base64 of 32 bytes).
pub const SIGNING_KEY_SECRET_VAR: &str = "PAYABILITY_SIGNING_KEY_SECRET_ARN";
/// Environment variable naming the house token's secret.
pub const HOUSE_TOKEN_SECRET_VAR: &str = "PAYABILITY_HOUSE_TOKEN_SECRET_ARN";

/// Why a secret could not be had (closed form; names the variable, never the value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretError {
    /// Secrets Manager did not answer or refused (missing secret, no permission).
    Unavailable(&'static str),
    /// The secret is not a string of the expected shape.
    Malformed(&'static str),
    /// The local key file or generated key failed.
    LocalKey(KeyError),
}

impl std::fmt::Display for SecretError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unavailable(var) => {
                write!(f, "secrets: the secret named by {var} cannot be read")
            }
            Self::Malformed(var) => {
                write!(f, "secrets: the secret named by {var} has the wrong shape")
            }
            Self::LocalKey(e) => write!(f, "secrets: {e}"),
        }
    }
}

impl std::error::Error for SecretError {}

/// The secrets a service process needs.
pub struct ServiceSecrets {
    /// The Ed25519 signing seed (also keys the memo tags).
    pub signing_seed: [u8; 32],
    /// The house token from Secrets Manager, when its variable is set.
    pub house_token: Option<String>,
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// One secret's string value.
pub async fn secret_string(
    sdk: &SdkConfig,
    arn: &str,
    var: &'static str,
) -> Result<String, SecretError> {
    let client = aws_sdk_secretsmanager::Client::new(sdk);
    let answer = client
        .get_secret_value()
        .secret_id(arn)
        .send()
        .await
        .map_err(|_| SecretError::Unavailable(var))?;
    answer.secret_string().map(str::to_owned).ok_or(SecretError::Malformed(var))
}

/// Reads the secrets named by the environment (see [`load`]).
pub async fn load_from_env(sdk: Option<&SdkConfig>) -> Result<ServiceSecrets, SecretError> {
    load(sdk, var(SIGNING_KEY_SECRET_VAR).as_deref(), var(HOUSE_TOKEN_SECRET_VAR).as_deref()).await
}

/// Reads the secrets: from Secrets Manager for each ARN given, else the local key file (or
/// a generated key) and no house token from here.
pub async fn load(
    sdk: Option<&SdkConfig>,
    signing_key_arn: Option<&str>,
    house_token_arn: Option<&str>,
) -> Result<ServiceSecrets, SecretError> {
    let signing_seed = match (signing_key_arn, sdk) {
        (Some(arn), Some(sdk)) => {
            let text = secret_string(sdk, arn, SIGNING_KEY_SECRET_VAR).await?;
            STANDARD
                .decode(text.trim())
                .ok()
                .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
                .ok_or(SecretError::Malformed(SIGNING_KEY_SECRET_VAR))?
        }
        (Some(_), None) => return Err(SecretError::Unavailable(SIGNING_KEY_SECRET_VAR)),
        (None, _) => load_or_create_seed().map_err(SecretError::LocalKey)?.0,
    };
    let house_token = match (house_token_arn, sdk) {
        (Some(arn), Some(sdk)) => {
            let token = secret_string(sdk, arn, HOUSE_TOKEN_SECRET_VAR).await?.trim().to_owned();
            if token.is_empty() {
                return Err(SecretError::Malformed(HOUSE_TOKEN_SECRET_VAR));
            }
            Some(token)
        }
        (Some(_), None) => return Err(SecretError::Unavailable(HOUSE_TOKEN_SECRET_VAR)),
        (None, _) => None,
    };
    Ok(ServiceSecrets { signing_seed, house_token })
}

/// True when a secret is to be read from Secrets Manager (the process then needs AWS config).
pub fn wanted_from_aws() -> bool {
    var(SIGNING_KEY_SECRET_VAR).is_some() || var(HOUSE_TOKEN_SECRET_VAR).is_some()
}
