//! The local DynamoDB-API servers (dynalite, moto) that `scripts/test` starts on loopback and
//! names in [`DYNAMODB_ENDPOINTS_VARIABLE`]. Every lookup fails, never skips, without them.

/// `name=url,name=url`: the local servers, set by `scripts/test`.
pub const DYNAMODB_ENDPOINTS_VARIABLE: &str = "PAYABILITY_TEST_DYNAMODB_ENDPOINTS";

/// Every local server `scripts/test` names, as (name, url), each on loopback.
pub fn dynamodb_endpoints() -> Vec<(String, String)> {
    let listed = std::env::var(DYNAMODB_ENDPOINTS_VARIABLE).unwrap_or_default();
    assert!(
        !listed.is_empty(),
        "{DYNAMODB_ENDPOINTS_VARIABLE} is not set: run `scripts/test` (it installs and starts dynalite and moto_server on loopback)"
    );
    listed
        .split(',')
        .map(|pair| {
            let (name, url) = pair.split_once('=').expect("each endpoint is name=url");
            assert!(url.starts_with("http://127.0.0.1:"), "tests talk to loopback only: {name}");
            (name.to_owned(), url.to_owned())
        })
        .collect()
}

/// moto's endpoint: the one that also serves Secrets Manager and `TransactWriteItems`
/// (which dynalite 4.0 lacks and the ledger write uses).
pub fn moto_endpoint() -> String {
    let listed = std::env::var(DYNAMODB_ENDPOINTS_VARIABLE).unwrap_or_default();
    let moto = listed.split(',').find_map(|pair| pair.strip_prefix("moto="));
    let url = moto.unwrap_or_else(|| {
        panic!("{DYNAMODB_ENDPOINTS_VARIABLE} names no moto server: run scripts/test")
    });
    assert!(url.starts_with("http://127.0.0.1:"), "tests talk to loopback only: {url}");
    url.to_owned()
}

/// The region of every local AWS client (moto keeps each region's tables and secrets apart,
/// so a server started on these endpoints names it too).
pub const LOCAL_REGION: &str = "us-east-1";

/// SDK settings for a local endpoint: dummy static credentials, region [`LOCAL_REGION`].
#[cfg(feature = "aws")]
pub fn local_sdk_config(endpoint: &str) -> aws_config::SdkConfig {
    use aws_sdk_dynamodb::config::{Credentials, SharedCredentialsProvider};
    let credentials = Credentials::new("local", "local", None, None, "payability-tests");
    aws_config::SdkConfig::builder()
        .behavior_version(aws_config::BehaviorVersion::latest())
        .region(aws_config::Region::new(LOCAL_REGION))
        .credentials_provider(SharedCredentialsProvider::new(credentials))
        .endpoint_url(endpoint)
        .build()
}

/// SDK settings for moto ([`moto_endpoint`]).
#[cfg(feature = "aws")]
pub fn moto_sdk() -> aws_config::SdkConfig {
    local_sdk_config(&moto_endpoint())
}
