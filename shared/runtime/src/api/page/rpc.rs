//! `POST /rpc`: the two Solana JSON-RPC calls the official x402 Solana client makes while a
//! browser builds its payment, so that the page connects to its own origin only and the
//! operator's RPC (whose URL may carry a key) is never exposed. `getAccountInfo` of the USDC
//! mint is answered from what the client reads of it (decimals 6, the Token program), with no
//! call; `getLatestBlockhash` is asked of the configured RPC and answered as read (typed, never
//! the RPC's bytes). Nothing else is relayed: no user input reaches the RPC.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::challenge::USDC_MINT;
use payability_core::payment::solana::TOKEN_PROGRAM;
use serde_json::{Value, json};

use crate::api::jsonrpc::{self, Envelope, code};
use crate::api::request::ApiRequest;
use crate::api::respond::ApiResponse;
use crate::api::service::{Service, Stores};
use crate::budget::FEE_LOOKUP_BOUND;
use crate::payment::solana_rpc::latest_blockhash;

/// USDC's decimals.
const USDC_DECIMALS: u8 = 6;
/// The size of an SPL token mint account.
const MINT_ACCOUNT_BYTES: usize = 82;
/// JSON-RPC's code for a server that could not answer (JSON-RPC 2.0's implementation range, as
/// Solana's RPC uses it for "try again").
const UNAVAILABLE: i64 = -32005;

/// The USDC mint's account as `getAccountInfo` (base64) answers it: an initialized SPL mint of
/// 6 decimals owned by the Token program, without authorities or supply (the client reads only
/// the decimals and the owner).
fn usdc_mint_account() -> Value {
    let mut data = [0u8; MINT_ACCOUNT_BYTES];
    data[44] = USDC_DECIMALS;
    data[45] = 1;
    json!({
        "context": {"slot": 0},
        "value": {
            "data": [STANDARD.encode(data), "base64"],
            "executable": false,
            "lamports": 1_461_600,
            "owner": TOKEN_PROGRAM,
            "rentEpoch": 0,
            "space": MINT_ACCOUNT_BYTES,
        },
    })
}

impl<S: Stores> Service<S> {
    /// `POST /rpc`: one JSON-RPC request of the two a payment needs, answered (HTTP 200, as
    /// JSON-RPC answers; closed-form errors).
    pub(in crate::api) async fn rpc_relay(&self, request: &ApiRequest) -> ApiResponse {
        let call = match jsonrpc::read(&request.body) {
            Ok(Envelope::Call(call)) => call,
            Ok(Envelope::Notification) => return ApiResponse::empty(http::StatusCode::ACCEPTED),
            Err(malformed) => {
                let message = "not one JSON-RPC 2.0 request";
                return jsonrpc::error(&malformed.id, malformed.kind.code(), message);
            }
        };
        match call.method.as_str() {
            "getAccountInfo" if call.first_param_is(USDC_MINT) => {
                jsonrpc::result(&call.id, usdc_mint_account())
            }
            "getAccountInfo" => jsonrpc::error(
                &call.id,
                code::INVALID_PARAMS,
                "this relay answers getAccountInfo of the USDC mint only",
            ),
            "getLatestBlockhash" => {
                let Some(rpc_url) = &self.config.solana_rpc_url else {
                    return jsonrpc::error(&call.id, UNAVAILABLE, "no Solana RPC is configured");
                };
                match latest_blockhash(&self.rpc_client, rpc_url, FEE_LOOKUP_BOUND).await {
                    Ok(latest) => jsonrpc::result(
                        &call.id,
                        json!({
                            "context": {"slot": latest.slot},
                            "value": {
                                "blockhash": latest.blockhash,
                                "lastValidBlockHeight": latest.last_valid_block_height,
                            },
                        }),
                    ),
                    Err(_) => jsonrpc::error(
                        &call.id,
                        UNAVAILABLE,
                        "the Solana RPC did not answer with a blockhash: try again",
                    ),
                }
            }
            _ => jsonrpc::error(
                &call.id,
                code::METHOD_NOT_FOUND,
                "this relay answers getAccountInfo of the USDC mint and getLatestBlockhash, what a payment needs",
            ),
        }
    }
}
