//! Lambda function: the check route.

use payability_runtime::routes::Route;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    payability_lambda::run(&[Route::Check]).await
}
