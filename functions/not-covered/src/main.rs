//! Lambda function: NOT COVERED for any POST path this service does not offer.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    payability_lambda::run_not_covered().await
}
