//! Lambda function: the A2A endpoint (the skills criteria, precheck, check and memo).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    payability_lambda::run_a2a().await
}
