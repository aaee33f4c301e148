//! Lambda function: the MCP endpoint (the tools criteria, precheck, check and memo).

use payability_runtime::api::Route;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    payability_lambda::run(&[Route::Mcp]).await
}
