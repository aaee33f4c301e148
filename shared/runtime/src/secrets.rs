//! Secrets on AWS: the signing key seed and the house token live in Secrets Manager and are
//! read once per cold start (their ARNs: [`settings::SIGNING_KEY_SECRET_ARN`],
//! [`settings::HOUSE_TOKEN_SECRET_ARN`]); locally the file and plain variables stand in.
//! No secret value is ever logged or formatted into an error.

use aws_config::SdkConfig;
use payability_core::report::UtcMillis;

use crate::settings;
use crate::signing_key::{KeyError, load_or_create_seed_from, parse_seed};

/// Environment variable naming the signing seed's secret (see [`parse_seed`]).
pub const SIGNING_KEY_SECRET_VAR: &str = settings::SIGNING_KEY_SECRET_ARN.name();
/// Environment variable naming the house token's secret.
pub const HOUSE_TOKEN_SECRET_VAR: &str = settings::HOUSE_TOKEN_SECRET_ARN.name();

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

/// One secret's current string value and when that version was created.
async fn secret_version(
    sdk: &SdkConfig,
    arn: &str,
    var: &'static str,
) -> Result<(String, Option<UtcMillis>), SecretError> {
    let client = aws_sdk_secretsmanager::Client::new(sdk);
    let answer = client
        .get_secret_value()
        .secret_id(arn)
        .send()
        .await
        .map_err(|_| SecretError::Unavailable(var))?;
    let created = answer.created_date().and_then(|at| {
        let millis = i128::from(at.secs()) * 1_000 + i128::from(at.subsec_nanos() / 1_000_000);
        i64::try_from(millis).ok().map(UtcMillis)
    });
    let text = answer.secret_string().map(str::to_owned).ok_or(SecretError::Malformed(var))?;
    Ok((text, created))
}

/// The signing seed in the secret `arn`, and when its version was created (the earliest
/// instant it can have signed).
pub async fn signing_seed(
    sdk: &SdkConfig,
    arn: &str,
) -> Result<([u8; 32], Option<UtcMillis>), SecretError> {
    let (text, created) = secret_version(sdk, arn, SIGNING_KEY_SECRET_VAR).await?;
    let seed = parse_seed(&text).ok_or(SecretError::Malformed(SIGNING_KEY_SECRET_VAR))?;
    Ok((seed, created))
}

/// Reads the secrets: from Secrets Manager for each ARN given, else the local seed from
/// `key_file` (or the default file, or a generated key) and no house token from here.
pub async fn load(
    sdk: Option<&SdkConfig>,
    signing_key_arn: Option<&str>,
    house_token_arn: Option<&str>,
    key_file: Option<std::path::PathBuf>,
) -> Result<ServiceSecrets, SecretError> {
    let signing_seed = match (signing_key_arn, sdk) {
        (Some(arn), Some(sdk)) => signing_seed(sdk, arn).await?.0,
        (Some(_), None) => return Err(SecretError::Unavailable(SIGNING_KEY_SECRET_VAR)),
        (None, _) => load_or_create_seed_from(key_file).map_err(SecretError::LocalKey)?.0,
    };
    let house_token = match (house_token_arn, sdk) {
        (Some(arn), Some(sdk)) => {
            let (token, _) = secret_version(sdk, arn, HOUSE_TOKEN_SECRET_VAR).await?;
            let token = token.trim().to_owned();
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

/// True when the environment names a secret to read from Secrets Manager (the process then
/// needs AWS config), or names one badly (start-up then reports it).
pub fn wanted_from_aws() -> bool {
    [settings::SIGNING_KEY_SECRET_ARN, settings::HOUSE_TOKEN_SECRET_ARN]
        .iter()
        .any(|var| var.from_env().map_or(true, |arn| arn.is_some()))
}
