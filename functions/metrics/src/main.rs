//! Lambda function: the metrics route.

use payability_runtime::api::Route;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    payability_lambda::run(&[Route::Metrics]).await
}
