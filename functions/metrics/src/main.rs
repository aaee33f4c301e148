//! Lambda function: the metrics route (the counters in the store only).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    payability_lambda::run_metrics().await
}
