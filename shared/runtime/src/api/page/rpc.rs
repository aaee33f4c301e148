//! `POST /rpc`: the two Solana JSON-RPC calls the official x402 Solana client makes while a
//! browser builds its payment, so that the page connects to its own origin only and the
//! operator's RPC (whose URL may carry a key) is never exposed. `getAccountInfo` of the USDC
//! mint is answered from what the client reads of it (decimals 6, the Token program), with no
//! call; `getLatestBlockhash` is asked of the configured RPC and answered as read (typed, never
//! the RPC's bytes), one read answering every request of the next [`BLOCKHASH_REUSE_MS`]
//! (per process, by the service's clock; concurrent misses wait for one call and share its
//! answer, a failure included). Nothing else is relayed: no user input reaches the RPC.

use std::sync::atomic::{AtomicU64, Ordering};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::payment::solana::TOKEN_PROGRAM;
use payability_core::price::USDC_MINT;
use payability_core::report::UtcMillis;
use serde_json::{Value, json};
use tokio::sync::Mutex;

use crate::api::jsonrpc::{self, Envelope, code};
use crate::api::request::ApiRequest;
use crate::api::respond::ApiResponse;
use crate::budget::FEE_LOOKUP_BOUND;
use crate::payment::solana_rpc::{LatestBlockhash, latest_blockhash};
use crate::telemetry::Relay;

/// USDC's decimals.
const USDC_DECIMALS: u8 = 6;
/// The size of an SPL token mint account.
const MINT_ACCOUNT_BYTES: usize = 82;
/// JSON-RPC's code for a server that could not answer (JSON-RPC 2.0's implementation range, as
/// Solana's RPC uses it for "try again").
const UNAVAILABLE: i64 = -32005;
/// How long one blockhash read answers `getLatestBlockhash`, in milliseconds: a blockhash
/// stays valid for about 60 s, and the client only needs a recent one.
const BLOCKHASH_REUSE_MS: i64 = 2_000;

/// The last blockhash read and when it was read, shared by every request the process answers;
/// the lock is held across a read, so concurrent misses make one call, and every request that
/// waited for that read is answered as it was: a failed read is not asked again by each
/// waiter in turn (30 waiters behind a hanging RPC would otherwise wait 30 bounds).
#[derive(Debug, Default)]
pub(in crate::api) struct BlockhashCache {
    last: Mutex<Option<(UtcMillis, LatestBlockhash)>>,
    /// How many reads have failed.
    failed_reads: AtomicU64,
}

/// Whether a read at `read_at` may still answer at `now` (a clock that went back: no).
fn reusable(read_at: UtcMillis, now: UtcMillis) -> bool {
    (0..BLOCKHASH_REUSE_MS).contains(&now.0.saturating_sub(read_at.0))
}

impl BlockhashCache {
    /// The blockhash to answer with and where it came from: the last read while reusable at
    /// `clock`'s time (read once the lock is held); else None when a read failed while this
    /// request waited for the lock; else `read`'s answer (kept when there is one; a failure is
    /// not kept, so a request that comes after it asks again).
    async fn latest(
        &self,
        clock: fn() -> UtcMillis,
        read: impl AsyncFnOnce() -> Option<LatestBlockhash>,
    ) -> Option<(LatestBlockhash, Relay)> {
        let failed_before = self.failed_reads.load(Ordering::SeqCst);
        let mut last = self.last.lock().await;
        let now = clock();
        if let Some((_, latest)) = last.as_ref().filter(|(at, _)| reusable(*at, now)) {
            return Some((latest.clone(), Relay::Cache));
        }
        if self.failed_reads.load(Ordering::SeqCst) != failed_before {
            return None;
        }
        let Some(latest) = read().await else {
            self.failed_reads.fetch_add(1, Ordering::SeqCst);
            return None;
        };
        *last = Some((now, latest.clone()));
        Some((latest, Relay::Upstream))
    }
}

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

/// `POST /rpc`: one JSON-RPC request of the two a payment needs, answered (HTTP 200, as
/// JSON-RPC answers; closed-form errors), with what it uses: the configured Solana RPC (None:
/// `getLatestBlockhash` answers unavailable), the client that asks it, the process's blockhash
/// cache and the clock.
pub(in crate::api) async fn relay(
    request: &ApiRequest,
    rpc_url: Option<&str>,
    rpc_client: &reqwest::Client,
    blockhashes: &BlockhashCache,
    clock: fn() -> UtcMillis,
) -> ApiResponse {
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
            let Some(rpc_url) = rpc_url else {
                return jsonrpc::error(&call.id, UNAVAILABLE, "no Solana RPC is configured");
            };
            let read = async || latest_blockhash(rpc_client, rpc_url, FEE_LOOKUP_BOUND).await.ok();
            match blockhashes.latest(clock, read).await {
                Some((latest, relay)) => jsonrpc::result(
                    &call.id,
                    json!({
                        "context": {"slot": latest.slot},
                        "value": {
                            "blockhash": latest.blockhash,
                            "lastValidBlockHeight": latest.last_valid_block_height,
                        },
                    }),
                )
                .with_relay(relay),
                None => jsonrpc::error(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_is_reused_for_two_seconds_and_never_from_the_future() {
        let at = UtcMillis(10_000);
        for (now, reused) in
            [(10_000, true), (11_999, true), (12_000, false), (9_999, false), (i64::MIN, false)]
        {
            assert_eq!(reusable(at, UtcMillis(now)), reused, "{now}");
        }
    }
}
