//! Solana JSON-RPC at the configured RPC: the fee of a settled payment (`getTransaction`; best
//! effort, the ledger records `null`, fee pending, when this yields nothing) and where a
//! payment whose settlement is unknown landed (`getSignaturesForAddress`, `getTransaction`,
//! `isBlockhashValid`), and a recent blockhash for the web page's payment
//! (`getLatestBlockhash`).

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::payment::solana::{Base58Id, decode_pubkey, decode_signature, encode_pubkey};
use payability_core::payment::transaction::PaymentTransaction;
use payability_core::report::UtcMillis;
use reqwest::Client;
use serde_json::{Value, json};

use crate::capped_body::{BodyError, read_capped};

/// Largest RPC answer read, in bytes (a `getTransaction` answer with logs is a few KiB).
pub const MAX_RPC_ANSWER_BYTES: usize = 256 * 1024;

/// The fee in lamports (`result.meta.fee`) of a confirmed transaction, or None when the
/// signature is not base58 of 64 bytes, the RPC fails, errors, does not know the transaction
/// yet, answers something else, or takes longer than `bound` (everything included).
pub async fn transaction_fee(
    client: &Client,
    rpc_url: &str,
    signature: &str,
    bound: Duration,
) -> Option<u64> {
    decode_signature(signature)?;
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "getTransaction",
        "params": [signature, {
            "encoding": "json",
            "maxSupportedTransactionVersion": 0,
            "commitment": "confirmed",
        }],
    });
    let call = async {
        let response = client.post(rpc_url).json(&body).timeout(bound).send().await.ok()?;
        let status = response.status();
        if !status.is_success() {
            return None;
        }
        let bytes = read_capped(response, MAX_RPC_ANSWER_BYTES).await.ok()?;
        read_fee_answer(status.as_u16(), &bytes)
    };
    tokio::time::timeout(bound, call).await.ok().flatten()
}

/// Decodes a `getTransaction` answer (status and body bytes) into the fee in lamports
/// (`result.meta.fee`): None for a non-2xx status, a body over [`MAX_RPC_ANSWER_BYTES`], or
/// anything but a JSON-RPC 2.0 answer whose `result.meta.fee` is an unsigned integer. Pure:
/// what [`transaction_fee`] does with the bytes it read.
pub fn read_fee_answer(status: u16, body: &[u8]) -> Option<u64> {
    if !(200..300).contains(&status) || body.len() > MAX_RPC_ANSWER_BYTES {
        return None;
    }
    let answer: Value = serde_json::from_slice(body).ok()?;
    if answer.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return None;
    }
    answer.get("result")?.get("meta")?.get("fee")?.as_u64()
}

/// The buyer's signatures asked for in one `getSignaturesForAddress` page.
pub const LANDING_PAGE: usize = 100;

/// The most of the buyer's signatures one search lists: past them, a search that has not
/// reached the claim cannot say the payment never landed (the outcome stays unknown).
pub const LANDING_SEARCH_CAP: usize = 1_000;

/// How much earlier than the claim a listed signature's `blockTime` must be before the search
/// stops there: the RPC's block times are estimates, and clocks differ.
pub const BLOCK_TIME_SLACK_MS: i64 = 5 * 60 * 1_000;

/// One entry of a `getSignaturesForAddress` listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedSignature {
    /// The transaction's signature.
    pub signature: Base58Id,
    /// Its `blockTime` (Unix seconds), when the RPC knows it.
    pub block_time: Option<i64>,
}

/// How far one search through the buyer's signatures got.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Searched {
    /// The payment's transaction.
    Found(Landing),
    /// Every signature since the claim was looked at (the listing ended, or reached a
    /// signature older than the claim): the payment is not among them.
    Covered,
    /// [`LANDING_SEARCH_CAP`] signatures were listed before the claim was reached.
    Truncated,
}

/// Where a payment's transaction stands on chain, as far as the RPC can tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Landing {
    /// A transaction with this message is on chain (confirmed).
    Landed {
        /// Its signature (base58).
        signature: Base58Id,
        /// Whether it failed (`meta.err` not null).
        failed: bool,
    },
    /// No transaction with this message is among the buyer's signatures since the claim, and
    /// the blockhash is no longer valid (finalized): it can never land.
    NeverLands,
    /// Not found, but its blockhash is still valid: it may still land.
    NotYet,
}

/// Why the RPC could not tell (closed form).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RpcError {
    /// The RPC could not be reached, answered a non-2xx status or a JSON-RPC error, broke off,
    /// or did not answer everything within the bound.
    Unavailable,
    /// The RPC answered something that is not the expected JSON-RPC result (or the answer
    /// went over [`MAX_RPC_ANSWER_BYTES`]), or the payment has no buyer key to search under.
    Malformed,
}

/// Looks for the transaction whose message equals `payment.message()`, among the buyer's
/// signatures since `since` (the claim: nothing earlier can be the payment), newest first:
/// `getSignaturesForAddress(buyer, {limit: 100, commitment: "confirmed"})`, each next page
/// `before` the last signature listed, until a page is short, a signature's `blockTime` is
/// more than [`BLOCK_TIME_SLACK_MS`] before `since`, or [`LANDING_SEARCH_CAP`] signatures were
/// listed. Each signature since the claim is looked at with `getTransaction(sig, {encoding:
/// "base64", commitment: "confirmed", maxSupportedTransactionVersion: 0})` (stop at the first
/// match; `result.transaction[0]` is parsed with [`PaymentTransaction::parse`] and the
/// messages compared; a `null` result is not a match). When none matches,
/// `isBlockhashValid(base58 blockhash, {commitment: "finalized"})`: true → `NotYet`.
///
/// `NeverLands` is only answered when it is sure, so three more guards:
/// - a blockhash newer than the finalized slot is not in the finalized bank yet, so a false
///   at "finalized" is asked again at "confirmed": true there → `NotYet`;
/// - the transaction may have been confirmed between the signature listing and the blockhash
///   check, so once the blockhash is invalid at both (nothing carrying it can land any more)
///   the buyer's signatures are listed once again and the new ones looked at;
/// - only a search that reached the claim says `NeverLands`; one stopped by the cap is
///   `NotYet` (a busy wallet's payment may be further back).
///
/// Everything within `bound` (one deadline over all calls), answers capped at
/// [`MAX_RPC_ANSWER_BYTES`]; the proxy setting is the client's (build it with `no_proxy`).
/// A payment without a buyer key → `Err(Malformed)`, without any call.
pub async fn find_landing(
    client: &Client,
    rpc_url: &str,
    payment: &PaymentTransaction,
    since: UtcMillis,
    bound: Duration,
) -> Result<Landing, RpcError> {
    let buyer = encode_pubkey(&payment.buyer().ok_or(RpcError::Malformed)?);
    let deadline = tokio::time::Instant::now() + bound;
    let rpc = Rpc { client, url: rpc_url, deadline };
    let search = async {
        let mut seen = Vec::new();
        if let Searched::Found(landed) = rpc.search(&buyer, payment, since, &mut seen).await? {
            return Ok(landed);
        }
        let blockhash = encode_pubkey(&payment.recent_blockhash);
        if rpc.blockhash_valid(&blockhash, "finalized").await?
            || rpc.blockhash_valid(&blockhash, "confirmed").await?
        {
            return Ok(Landing::NotYet);
        }
        Ok(match rpc.search(&buyer, payment, since, &mut seen).await? {
            Searched::Found(landed) => landed,
            Searched::Covered => Landing::NeverLands,
            Searched::Truncated => Landing::NotYet,
        })
    };
    tokio::time::timeout_at(deadline, search).await.unwrap_or(Err(RpcError::Unavailable))
}

/// One RPC endpoint and the deadline every call shares.
struct Rpc<'a> {
    client: &'a Client,
    url: &'a str,
    deadline: tokio::time::Instant,
}

impl Rpc<'_> {
    /// One JSON-RPC call; its `result` member.
    async fn call(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let remaining = self.deadline.saturating_duration_since(tokio::time::Instant::now());
        let response = self
            .client
            .post(self.url)
            .json(&body)
            .timeout(remaining)
            .send()
            .await
            .map_err(|_| RpcError::Unavailable)?;
        let status = response.status();
        if !status.is_success() {
            return Err(RpcError::Unavailable);
        }
        let bytes = read_capped(response, MAX_RPC_ANSWER_BYTES).await.map_err(|e| match e {
            BodyError::Broken => RpcError::Unavailable,
            BodyError::OverCap => RpcError::Malformed,
        })?;
        read_rpc_answer(status.as_u16(), &bytes)
    }

    /// Pages through the buyer's signatures back to `since` (see [`find_landing`]) for a
    /// transaction with the payment's message, looking at those not in `seen` and adding each
    /// one looked at to `seen`.
    async fn search(
        &self,
        buyer: &str,
        payment: &PaymentTransaction,
        since: UtcMillis,
        seen: &mut Vec<Base58Id>,
    ) -> Result<Searched, RpcError> {
        let oldest_ms = since.0.saturating_sub(BLOCK_TIME_SLACK_MS);
        let mut before: Option<Base58Id> = None;
        let mut listed = 0;
        while listed < LANDING_SEARCH_CAP {
            let mut options = json!({"limit": LANDING_PAGE, "commitment": "confirmed"});
            if let Some(before) = &before {
                options["before"] = before.as_str().into();
            }
            let page = read_signature_listing(
                &self.call("getSignaturesForAddress", json!([buyer, options])).await?,
            )?;
            listed += page.len();
            for entry in &page {
                if entry.block_time.is_some_and(|t| t.saturating_mul(1_000) < oldest_ms) {
                    return Ok(Searched::Covered);
                }
                if seen.contains(&entry.signature) {
                    continue;
                }
                let landed = self.landed_as(&entry.signature, payment).await?;
                seen.push(entry.signature.clone());
                if let Some(landed) = landed {
                    return Ok(Searched::Found(landed));
                }
            }
            match page.last() {
                Some(last) if page.len() == LANDING_PAGE => before = Some(last.signature.clone()),
                _ => return Ok(Searched::Covered),
            }
        }
        Ok(Searched::Truncated)
    }

    /// The landing of `signature` when its transaction carries the payment's message.
    async fn landed_as(
        &self,
        signature: &Base58Id,
        payment: &PaymentTransaction,
    ) -> Result<Option<Landing>, RpcError> {
        let result = self
            .call(
                "getTransaction",
                json!([signature.as_str(), {
                    "encoding": "base64",
                    "commitment": "confirmed",
                    "maxSupportedTransactionVersion": 0,
                }]),
            )
            .await?;
        read_landed_transaction(&result, signature, payment)
    }

    /// `isBlockhashValid(blockhash, {commitment})`: its `value`.
    async fn blockhash_valid(&self, blockhash: &str, commitment: &str) -> Result<bool, RpcError> {
        let result =
            self.call("isBlockhashValid", json!([blockhash, {"commitment": commitment}])).await?;
        read_blockhash_valid(&result)
    }
}

/// A recent blockhash, as `getLatestBlockhash` answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatestBlockhash {
    /// The slot the answer is of (`context.slot`).
    pub slot: u64,
    /// The blockhash: base58 of 32 bytes.
    pub blockhash: String,
    /// The last block height at which a transaction carrying it is valid.
    pub last_valid_block_height: u64,
}

/// `getLatestBlockhash({commitment: "confirmed"})` at the configured RPC, within `bound`.
pub async fn latest_blockhash(
    client: &Client,
    rpc_url: &str,
    bound: Duration,
) -> Result<LatestBlockhash, RpcError> {
    let deadline = tokio::time::Instant::now() + bound;
    let rpc = Rpc { client, url: rpc_url, deadline };
    let call = rpc.call("getLatestBlockhash", json!([{"commitment": "confirmed"}]));
    let result =
        tokio::time::timeout_at(deadline, call).await.unwrap_or(Err(RpcError::Unavailable))?;
    read_latest_blockhash(&result)
}

/// Decodes a `getLatestBlockhash` result: `context.slot` and `value.lastValidBlockHeight`
/// unsigned integers, `value.blockhash` base58 of 32 bytes; anything else is `Malformed`.
pub fn read_latest_blockhash(result: &Value) -> Result<LatestBlockhash, RpcError> {
    let slot = result.pointer("/context/slot").and_then(Value::as_u64);
    let blockhash = result.pointer("/value/blockhash").and_then(Value::as_str);
    let height = result.pointer("/value/lastValidBlockHeight").and_then(Value::as_u64);
    match (slot, blockhash.and_then(decode_pubkey), height) {
        (Some(slot), Some(bytes), Some(last_valid_block_height)) => {
            Ok(LatestBlockhash { slot, blockhash: encode_pubkey(&bytes), last_valid_block_height })
        }
        _ => Err(RpcError::Malformed),
    }
}

/// Decodes one JSON-RPC answer (status and body bytes) into its `result` member: a non-2xx
/// status or a JSON-RPC `error` is `Unavailable`; a body over [`MAX_RPC_ANSWER_BYTES`], not
/// JSON, not `jsonrpc: "2.0"` or without `result` is `Malformed`. Pure: what each call of
/// [`find_landing`] does with the bytes it read.
pub fn read_rpc_answer(status: u16, body: &[u8]) -> Result<Value, RpcError> {
    if !(200..300).contains(&status) {
        return Err(RpcError::Unavailable);
    }
    if body.len() > MAX_RPC_ANSWER_BYTES {
        return Err(RpcError::Malformed);
    }
    let mut answer: Value = serde_json::from_slice(body).map_err(|_| RpcError::Malformed)?;
    if answer.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(RpcError::Malformed);
    }
    if answer.get("error").is_some() {
        return Err(RpcError::Unavailable);
    }
    answer.get_mut("result").map(Value::take).ok_or(RpcError::Malformed)
}

/// Decodes a `getSignaturesForAddress` result into its first [`LANDING_PAGE`] entries (newest
/// first): it must be an array whose entries (those looked at) each carry a `signature` that
/// is base58 of 64 bytes, and a `blockTime` that is an integer or null (or absent), else
/// `Malformed`.
pub fn read_signature_listing(result: &Value) -> Result<Vec<ListedSignature>, RpcError> {
    let listed = result.as_array().ok_or(RpcError::Malformed)?;
    let mut entries = Vec::with_capacity(listed.len().min(LANDING_PAGE));
    for entry in listed.iter().take(LANDING_PAGE) {
        let signature = entry.get("signature").and_then(Value::as_str);
        let signature = signature.and_then(Base58Id::signature).ok_or(RpcError::Malformed)?;
        let block_time = match entry.get("blockTime") {
            None | Some(Value::Null) => None,
            Some(time) => Some(time.as_i64().ok_or(RpcError::Malformed)?),
        };
        entries.push(ListedSignature { signature, block_time });
    }
    Ok(entries)
}

/// Decodes a `getTransaction` (base64 encoding) result for `signature`: `null` is no match;
/// `transaction: [<base64>, "base64"]` must be a Solana wire transaction
/// ([`PaymentTransaction::parse`]); when its message is `payment`'s, the landing, failed when
/// `meta.err` is not null (`meta.err` absent is `Malformed`); another message is no match.
pub fn read_landed_transaction(
    result: &Value,
    signature: &Base58Id,
    payment: &PaymentTransaction,
) -> Result<Option<Landing>, RpcError> {
    if result.is_null() {
        return Ok(None);
    }
    let encoded = result.pointer("/transaction/0").and_then(Value::as_str);
    if result.pointer("/transaction/1").and_then(Value::as_str) != Some("base64") {
        return Err(RpcError::Malformed);
    }
    let bytes = STANDARD.decode(encoded.ok_or(RpcError::Malformed)?);
    let bytes = bytes.map_err(|_| RpcError::Malformed)?;
    let transaction = PaymentTransaction::parse(bytes).map_err(|_| RpcError::Malformed)?;
    if transaction.message() != payment.message() {
        return Ok(None);
    }
    let failed = match result.get("meta").and_then(|meta| meta.get("err")) {
        Some(Value::Null) => false,
        Some(_) => true,
        None => return Err(RpcError::Malformed),
    };
    Ok(Some(Landing::Landed { signature: signature.clone(), failed }))
}

/// Decodes an `isBlockhashValid` result: its boolean `value`, else `Malformed`.
pub fn read_blockhash_valid(result: &Value) -> Result<bool, RpcError> {
    result.get("value").and_then(Value::as_bool).ok_or(RpcError::Malformed)
}
