//! Lambda function: the MCP endpoint (the tools criteria, precheck, check and memo).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    payability_lambda::run_mcp().await
}
