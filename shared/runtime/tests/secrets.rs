//! Secrets from Secrets Manager, against moto's implementation on loopback (started by
//! `scripts/test`): the signing seed and the house token are read by ARN; a missing or
//! malformed secret is a closed-form error that names the variable, never the value.

use aws_config::SdkConfig;
use payability_runtime::secrets::{
    HOUSE_TOKEN_SECRET_VAR, SIGNING_KEY_SECRET_VAR, SecretError, load,
};
use payability_tests::endpoints::moto_sdk as sdk;

/// Creates a secret with a unique name and returns its ARN.
async fn secret(sdk: &SdkConfig, value: &str) -> String {
    let name = format!("payability-test-{}-{}", std::process::id(), value.len());
    let client = aws_sdk_secretsmanager::Client::new(sdk);
    let created = client.create_secret().name(&name).secret_string(value).send().await;
    let created = created.expect("moto creates the secret");
    created.arn().expect("an ARN").to_owned()
}

#[tokio::test]
async fn secrets_are_read_by_arn_and_refused_in_closed_form() {
    let sdk = sdk();
    let seed_arn = secret(&sdk, "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=").await;
    let token_arn = secret(&sdk, " house-token \n").await;
    let secrets = load(Some(&sdk), Some(&seed_arn), Some(&token_arn), None).await.unwrap();
    assert_eq!(secrets.signing_seed, [7u8; 32]);
    assert_eq!(secrets.house_token.as_deref(), Some("house-token"));

    let short_seed = secret(&sdk, "c2hvcnQ=").await;
    let missing = "arn:aws:secretsmanager:us-east-1:123456789012:secret:absent-AbCdEf";
    let cases = [
        (Some(short_seed.as_str()), None, SecretError::Malformed(SIGNING_KEY_SECRET_VAR)),
        (Some(missing), None, SecretError::Unavailable(SIGNING_KEY_SECRET_VAR)),
        (Some(seed_arn.as_str()), Some(missing), SecretError::Unavailable(HOUSE_TOKEN_SECRET_VAR)),
    ];
    for (seed, token, want) in cases {
        let got = load(Some(&sdk), seed, token, None).await.err();
        assert_eq!(got, Some(want));
        assert!(!want.to_string().contains("c2hvcnQ"), "a secret never reaches an error");
    }
}
