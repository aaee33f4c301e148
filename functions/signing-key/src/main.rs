//! Lambda function: the `Custom::SigningKey` CloudFormation resource (deploy time only).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    payability_lambda::run_signing_key_resource().await
}
