//! Start-up, once per process (per Lambda cold start), the same for `payability serve` and
//! every Lambda function: the settings, then the secrets, then the store and the service
//! ([`start`]). Which store a process opens is decided here and nowhere else
//! ([`LinkedStores::open`]), among the stores its binary links: DynamoDB's alone for every
//! Lambda function ([`DynamoDbOnly`]), DynamoDB's and the embedded SQLite file for `payability`
//! ([`DynamoDbOrEmbedded`]).

use std::future::Future;
use std::path::PathBuf;

use aws_config::SdkConfig;

use crate::api::config::ServiceConfig;
use crate::api::{Service, ServiceError, Stores};
use crate::clock;
use crate::http_client;
use crate::secrets::{self, SecretError};
use crate::settings::{STORE, SettingError, Settings};
use crate::store::StoreError;
use crate::store::choice::StoreChoice;
use crate::store::dynamodb::{DynamoStore, TableNames};
use crate::store::sqlite::SqliteStore;

/// What is done with the opened store, whichever it is.
pub trait WithStore {
    /// What doing it gives.
    type Output;
    /// Does it with `store`.
    fn with<S: Stores + Send + Sync + 'static>(
        self,
        store: S,
    ) -> impl Future<Output = Self::Output>;
}

/// What is done with the built service (a server's loop), whichever store it holds.
pub trait WithService {
    /// What doing it gives.
    type Output;
    /// Does it with `service`.
    fn with<S: Stores + Send + Sync + 'static>(
        self,
        service: Service<S>,
    ) -> impl Future<Output = Self::Output>;
}

/// Why a process could not start (closed form: setting names and static words).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartError {
    /// A setting is missing or malformed.
    Setting(SettingError),
    /// A secret could not be had.
    Secret(SecretError),
    /// The store could not be opened.
    Store(StoreError),
    /// The service could not be built.
    Service(ServiceError),
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Setting(e) => e.fmt(f),
            Self::Secret(e) => e.fmt(f),
            Self::Store(e) => write!(f, "store: {e}"),
            Self::Service(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for StartError {}

impl From<SettingError> for StartError {
    fn from(e: SettingError) -> Self {
        Self::Setting(e)
    }
}

/// The AWS SDK's configuration from the environment (region and credentials; on Lambda, the
/// variables Lambda sets), its HTTPS client on the runtime's shared root certificates
/// (`http_client::aws_sdk_loader`). Every SDK client of a process is built from it.
pub async fn aws_sdk_config() -> SdkConfig {
    http_client::aws_sdk_loader().load().await
}

/// The stores a binary can open. A store a binary cannot open is never instantiated: no
/// `Service` over it and none of its code (for SQLite, its C library) is in that binary, so
/// each Lambda function links the store it runs on and no other. Every binary links
/// DynamoDB's; what differs is only the embedded store ([`Self::open_embedded`]).
pub trait LinkedStores: Sized {
    /// Opens the embedded SQLite file at `path` and hands it to `then`, or says why this
    /// binary does not.
    fn open_embedded<W: WithStore>(
        self,
        path: PathBuf,
        then: W,
    ) -> impl Future<Output = Result<W::Output, StartError>>;

    /// Opens the chosen store and hands it to `then`; DynamoDB uses `sdk`, else a
    /// configuration loaded now.
    fn open<W: WithStore>(
        self,
        choice: StoreChoice,
        sdk: Option<&SdkConfig>,
        then: W,
    ) -> impl Future<Output = Result<W::Output, StartError>> {
        async move {
            match choice {
                StoreChoice::DynamoDb(tables) => Ok(then.with(dynamodb(tables, sdk).await).await),
                StoreChoice::Embedded(path) => self.open_embedded(path, then).await,
            }
        }
    }
}

/// DynamoDB's store alone: every Lambda function (the embedded store is a setting error).
#[derive(Debug, Clone, Copy)]
pub struct DynamoDbOnly;

/// DynamoDB's store or the embedded SQLite file: `payability`.
#[derive(Debug, Clone, Copy)]
pub struct DynamoDbOrEmbedded;

/// Why a Lambda function does not start on the embedded store.
pub const EMBEDDED_NOT_LINKED: SettingError = SettingError {
    variable: STORE.name(),
    problem: "names the embedded store (or is unset, which means it), which a Lambda function \
              does not link: set it to dynamodb",
};

impl LinkedStores for DynamoDbOnly {
    async fn open_embedded<W: WithStore>(self, _: PathBuf, _: W) -> Result<W::Output, StartError> {
        Err(StartError::Setting(EMBEDDED_NOT_LINKED))
    }
}

impl LinkedStores for DynamoDbOrEmbedded {
    async fn open_embedded<W: WithStore>(
        self,
        path: PathBuf,
        then: W,
    ) -> Result<W::Output, StartError> {
        let store = SqliteStore::open(&path).map_err(StartError::Store)?;
        Ok(then.with(store).await)
    }
}

/// The DynamoDB store on `tables`, its client from `sdk`, else a configuration loaded now.
async fn dynamodb(tables: TableNames, sdk: Option<&SdkConfig>) -> DynamoStore {
    match sdk {
        Some(sdk) => DynamoStore::new(sdk, tables),
        None => DynamoStore::new(&aws_sdk_config().await, tables),
    }
}

/// Builds the service from `settings` and hands it to `then`: the configuration
/// (`default_base_url` stands in for an unset public base URL), the AWS configuration when
/// a secret or the store needs it, the seed (`local_seed` when the caller has loaded it,
/// else from Secrets Manager or the key file) and the house token, the store (among those
/// `linked`), the service.
pub async fn start<W: WithService>(
    linked: impl LinkedStores,
    settings: &Settings,
    default_base_url: Option<&str>,
    local_seed: Option<[u8; 32]>,
    then: W,
) -> Result<W::Output, StartError> {
    let mut config = ServiceConfig::from_settings(settings, default_base_url)?;
    let secrets_from_aws = local_seed.is_none() && settings.wants_secrets_from_aws();
    let sdk = match secrets_from_aws || matches!(config.store, StoreChoice::DynamoDb(_)) {
        true => Some(aws_sdk_config().await),
        false => None,
    };
    let seed = match local_seed {
        Some(seed) => seed,
        None => {
            let secrets = secrets::load(
                sdk.as_ref(),
                settings.signing_key_secret_arn.as_deref(),
                settings.house_token_secret_arn.as_deref(),
                settings.signing_key_file.clone(),
            )
            .await
            .map_err(StartError::Secret)?;
            config.house_token = secrets.house_token.or(config.house_token);
            secrets.signing_seed
        }
    };
    let choice = config.store.clone();
    let built = linked.open(choice, sdk.as_ref(), Build { config, seed, then });
    built.await?.map_err(StartError::Service)
}

/// The service built on the opened store, then handed on.
struct Build<W> {
    config: ServiceConfig,
    seed: [u8; 32],
    then: W,
}

impl<W: WithService> WithStore for Build<W> {
    type Output = Result<W::Output, ServiceError>;

    async fn with<S: Stores + Send + Sync + 'static>(self, store: S) -> Self::Output {
        let service = Service::new(self.config, &self.seed, store, clock::now)?;
        Ok(self.then.with(service).await)
    }
}
