//! Lambda function: the memo route.

use payability_runtime::api::Route;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    payability_lambda::run(&[Route::Memo]).await
}
