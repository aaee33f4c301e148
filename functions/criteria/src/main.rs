//! Lambda function: the criteria route (published keys only; no seed, no store).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    payability_lambda::run_criteria().await
}
