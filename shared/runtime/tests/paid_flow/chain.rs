//! The money side on loopback: a chain that transactions land on, an x402 facilitator that
//! lands them when it settles (with every way a settlement answer can go wrong), and a Solana
//! JSON-RPC endpoint that reads the chain. Each answer follows the modes a test sets, or, once
//! [`Chain::set_faults`] is called, a [`Faults`] that chooses per call (the soak).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::payment::solana::decode_pubkey;
use payability_core::payment::x402::Network;
use payability_tests::standin::{Handler, Recorded, Reply, StandIn};
use serde_json::{Value, json};

use crate::paid_flow::gate::{Gate, HOLD_LIMIT};
use crate::paid_flow::payment::{BUYER, FEE_PAYER, LENIENT_BASE64, landed_signature, parse_wire};

/// Solana devnet's CAIP-2 id: a network that is not ours.
pub const DEVNET: &str = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";

/// One landed transaction.
#[derive(Debug, Clone)]
struct Landed {
    signature: String,
    wire: Vec<u8>,
    account_keys: Vec<[u8; 32]>,
}

/// A facilitator or RPC call, as a [`Faults`] is asked about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// `POST /verify`.
    Verify,
    /// `POST /settle`.
    Settle,
    /// One Solana JSON-RPC request.
    Rpc,
}

/// How one RPC request is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RpcMode {
    /// From the chain, at once.
    Normal,
    /// From the chain, after this long.
    Slow(Duration),
    /// 500, nothing read.
    Fail,
}

/// Chooses the answer of each call from the payment's message it is about (None for an RPC
/// request) and how many calls of this kind came before for that message.
pub trait Faults: Send + Sync {
    /// How this `/verify` answers, and after how long.
    fn verify(&self, message: &[u8], nth: usize) -> (VerifyMode, Duration);
    /// How this `/settle` answers.
    fn settle(&self, message: &[u8], nth: usize) -> SettleMode;
    /// How this RPC request answers.
    fn rpc(&self, nth: usize) -> RpcMode;
}

/// What has landed, whether blockhashes still count as recent, and the faults in force.
#[derive(Default)]
pub struct Chain {
    landed: Mutex<Vec<Landed>>,
    blockhashes_expired: AtomicBool,
    faults: Mutex<Option<Arc<dyn Faults>>>,
    /// Calls so far, by kind and message (the RPC's under an empty message).
    calls: Mutex<BTreeMap<(&'static str, Vec<u8>), usize>>,
    /// `/settle` calls about a transaction that had already landed.
    settles_after_landing: AtomicUsize,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chain").field("landed", &self.landed.lock().unwrap().len()).finish()
    }
}

impl Chain {
    /// Lands a buyer's wire transaction (once per message): the fee payer's slot gets the
    /// landed signature. Returns the signature, or None when the bytes are not a transaction.
    fn land(&self, buyer_wire: &[u8]) -> Option<String> {
        let parsed = parse_wire(buyer_wire)?;
        let signature = landed_signature(&parsed.message);
        let mut landed = self.landed.lock().unwrap();
        if !landed.iter().any(|l| l.signature == signature) {
            let raw: [u8; 64] = bs58::decode(&signature).into_vec().ok()?.try_into().ok()?;
            let mut wire = Vec::new();
            wire.push(u8::try_from(parsed.signatures.len()).ok()?);
            wire.extend_from_slice(&raw);
            for other in parsed.signatures.iter().skip(1) {
                wire.extend_from_slice(other);
            }
            wire.extend_from_slice(&parsed.message);
            landed.push(Landed {
                signature: signature.clone(),
                wire,
                account_keys: parsed.account_keys,
            });
        }
        Some(signature)
    }

    /// Whether a transaction with this wire's message has landed.
    fn has_landed(&self, wire: &[u8]) -> bool {
        parse_wire(wire).is_some_and(|parsed| self.has_landed_message(&parsed.message))
    }

    /// The signatures of every landed transaction, oldest first.
    pub fn landed(&self) -> Vec<String> {
        self.landed.lock().unwrap().iter().map(|l| l.signature.clone()).collect()
    }

    /// Whether a transaction with this message has landed.
    pub fn has_landed_message(&self, message: &[u8]) -> bool {
        let signature = landed_signature(message);
        self.landed.lock().unwrap().iter().any(|landed| landed.signature == signature)
    }

    /// From now on `isBlockhashValid` answers false.
    pub fn expire_blockhashes(&self) {
        self.blockhashes_expired.store(true, Ordering::SeqCst);
    }

    /// From now on `faults` chooses every facilitator and RPC answer.
    pub fn set_faults(&self, faults: Arc<dyn Faults>) {
        *self.faults.lock().unwrap() = Some(faults);
    }

    /// From now on the modes the tests set choose again.
    pub fn clear_faults(&self) {
        *self.faults.lock().unwrap() = None;
    }

    /// `/settle` calls so far about a transaction that had already landed.
    pub fn settles_after_landing(&self) -> usize {
        self.settles_after_landing.load(Ordering::SeqCst)
    }

    /// The faults in force, and how many calls of `call` about `message` came before.
    fn faults_for(&self, call: Call, message: &[u8]) -> Option<(Arc<dyn Faults>, usize)> {
        let faults = self.faults.lock().unwrap().clone()?;
        let kind = match call {
            Call::Verify => "verify",
            Call::Settle => "settle",
            Call::Rpc => "rpc",
        };
        let mut calls = self.calls.lock().unwrap();
        let count = calls.entry((kind, message.to_vec())).or_default();
        let nth = *count;
        *count += 1;
        Some((faults, nth))
    }
}

/// How `/settle` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettleMode {
    /// Lands, answers success.
    Normal,
    /// Does not land, answers `success: false`.
    Refuse,
    /// Lands, answers success after this long.
    SlowThenSettle(Duration),
    /// Does not land, answers `success: false` after this long.
    SlowThenRefuse(Duration),
    /// Lands, closes the connection without answering.
    LandThenDrop,
    /// Lands, answers 500.
    LandThen500,
    /// Lands, answers success on devnet.
    LandWrongNetwork,
    /// Lands, holds the answer until released (then answers success).
    Hold,
    /// Does not land, answers 500.
    Fail500,
    /// Does not land, closes the connection without answering.
    DropUnlanded,
}

/// How `/verify` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyMode {
    /// `isValid: true`.
    Normal,
    /// `isValid: false`.
    Refuse,
    /// 503.
    Down,
    /// Closes the connection without answering.
    Drop,
}

struct FacilitatorState {
    chain: Arc<Chain>,
    settle_mode: Mutex<SettleMode>,
    verify_mode: Mutex<VerifyMode>,
    verify_delay: Mutex<Duration>,
    verify_calls: AtomicUsize,
    settle_calls: AtomicUsize,
    settle_gate: Gate,
}

/// The x402 facilitator stand-in.
pub struct Facilitator {
    server: StandIn,
    state: Arc<FacilitatorState>,
}

impl Facilitator {
    /// Starts on loopback, landing on `chain`.
    pub async fn start(chain: Arc<Chain>) -> Self {
        let state = Arc::new(FacilitatorState {
            chain,
            settle_mode: Mutex::new(SettleMode::Normal),
            verify_mode: Mutex::new(VerifyMode::Normal),
            verify_delay: Mutex::new(Duration::ZERO),
            verify_calls: AtomicUsize::new(0),
            settle_calls: AtomicUsize::new(0),
            settle_gate: Gate::default(),
        });
        let shared = Arc::clone(&state);
        let handler: Handler = Arc::new(move |request| {
            let state = Arc::clone(&shared);
            Box::pin(async move { facilitate(&state, request).await })
        });
        Self { server: StandIn::start(handler), state }
    }

    /// The base URL (`/supported`, `/verify`, `/settle` below it).
    pub fn url(&self) -> String {
        self.server.url("")
    }

    /// How `/settle` answers from now on (`Hold` arms the gate for the next settle).
    pub fn set_settle_mode(&self, mode: SettleMode) {
        if mode == SettleMode::Hold {
            self.state.settle_gate.arm();
        }
        *self.state.settle_mode.lock().unwrap() = mode;
    }

    /// How `/verify` answers from now on.
    pub fn set_verify_mode(&self, mode: VerifyMode) {
        *self.state.verify_mode.lock().unwrap() = mode;
    }

    /// How long `/verify` takes from now on.
    pub fn set_verify_delay(&self, delay: Duration) {
        *self.state.verify_delay.lock().unwrap() = delay;
    }

    /// `/verify` calls so far.
    pub fn verify_calls(&self) -> usize {
        self.state.verify_calls.load(Ordering::SeqCst)
    }

    /// `/settle` calls so far.
    pub fn settle_calls(&self) -> usize {
        self.state.settle_calls.load(Ordering::SeqCst)
    }

    /// Resolves once a `Hold` settle has landed and is holding its answer.
    pub async fn settle_held(&self) {
        self.state.settle_gate.reached().await;
    }

    /// Lets a held settle answer.
    pub fn release_settle(&self) {
        self.state.settle_gate.release();
    }
}

/// The buyer's wire transaction and the x402 version of a `/verify` or `/settle` body.
fn payment_of(body: &[u8]) -> Option<(Vec<u8>, u64)> {
    let body: Value = serde_json::from_slice(body).ok()?;
    let version = body["x402Version"].as_u64()?;
    let transaction = body["paymentPayload"]["payload"]["transaction"].as_str()?;
    Some((LENIENT_BASE64.decode(transaction).ok()?, version))
}

async fn facilitate(state: &FacilitatorState, request: Recorded) -> Reply {
    match (request.method.as_str(), request.path.as_str()) {
        ("GET", "/supported") => Reply::json(
            200,
            &json!({
                "kinds": [{
                    "x402Version": 2,
                    "scheme": "exact",
                    "network": Network::SolanaMainnet.caip2(),
                    "extra": {"feePayer": FEE_PAYER},
                }],
                "signers": {"solana:*": [FEE_PAYER]},
            }),
        ),
        ("POST", "/verify") => {
            state.verify_calls.fetch_add(1, Ordering::SeqCst);
            let payment = payment_of(&request.body);
            let message = payment.as_ref().and_then(|(wire, _)| parse_wire(wire));
            let message = message.map(|parsed| parsed.message).unwrap_or_default();
            let (mode, delay) = match state.chain.faults_for(Call::Verify, &message) {
                Some((faults, nth)) => faults.verify(&message, nth),
                None => (*state.verify_mode.lock().unwrap(), *state.verify_delay.lock().unwrap()),
            };
            tokio::time::sleep(delay.min(HOLD_LIMIT)).await;
            match (mode, payment) {
                (VerifyMode::Down, _) => Reply::json(503, &json!({"error": "down"})),
                (VerifyMode::Drop, _) => Reply::Close,
                (VerifyMode::Refuse, _) | (_, None) => Reply::json(
                    200,
                    &json!({"isValid": false, "invalidReason": "invalid_exact_svm_payload"}),
                ),
                // As the official facilitator: a transaction that landed does not verify again.
                (VerifyMode::Normal, Some((wire, _))) if state.chain.has_landed(&wire) => {
                    let refused =
                        json!({"isValid": false, "invalidReason": "duplicate_settlement"});
                    Reply::json(200, &refused)
                }
                (VerifyMode::Normal, Some((wire, _))) => {
                    Reply::json(200, &json!({"isValid": true, "payer": payer_of(&wire)}))
                }
            }
        }
        ("POST", "/settle") => {
            state.settle_calls.fetch_add(1, Ordering::SeqCst);
            let Some((wire, version)) = payment_of(&request.body) else {
                return Reply::json(400, &json!({"success": false}));
            };
            if state.chain.has_landed(&wire) {
                state.chain.settles_after_landing.fetch_add(1, Ordering::SeqCst);
            }
            let message = parse_wire(&wire).map(|parsed| parsed.message).unwrap_or_default();
            let mode = match state.chain.faults_for(Call::Settle, &message) {
                Some((faults, nth)) => faults.settle(&message, nth),
                None => *state.settle_mode.lock().unwrap(),
            };
            match mode {
                SettleMode::Fail500 => return Reply::json(500, &json!({"error": "internal"})),
                SettleMode::DropUnlanded => return Reply::Close,
                _ => {}
            }
            let mainnet = Network::SolanaMainnet;
            let network = if version == 1 { mainnet.v1_name() } else { mainnet.caip2() };
            if let SettleMode::SlowThenRefuse(pause) = mode {
                tokio::time::sleep(pause.min(HOLD_LIMIT)).await;
            }
            if matches!(mode, SettleMode::Refuse | SettleMode::SlowThenRefuse(_)) {
                let refusal = json!({
                    "success": false,
                    "errorReason": "transaction_failed",
                    "transaction": "",
                    "network": network,
                });
                return Reply::json(200, &refusal);
            }
            let Some(signature) = state.chain.land(&wire) else {
                return Reply::json(400, &json!({"success": false}));
            };
            let success = |network: &str| {
                json!({
                    "success": true,
                    "transaction": signature,
                    "network": network,
                    "payer": payer_of(&wire),
                })
            };
            match mode {
                SettleMode::Normal
                | SettleMode::Refuse
                | SettleMode::SlowThenRefuse(_)
                | SettleMode::Fail500
                | SettleMode::DropUnlanded => Reply::json(200, &success(network)),
                SettleMode::SlowThenSettle(pause) => {
                    tokio::time::sleep(pause.min(HOLD_LIMIT)).await;
                    Reply::json(200, &success(network))
                }
                SettleMode::LandThenDrop => Reply::Close,
                SettleMode::LandThen500 => Reply::json(500, &json!({"error": "internal"})),
                SettleMode::LandWrongNetwork => Reply::json(200, &success(DEVNET)),
                SettleMode::Hold => {
                    state.settle_gate.pass().await;
                    Reply::json(200, &success(network))
                }
            }
        }
        _ => Reply::json(404, &json!({"error": "not found"})),
    }
}

struct RpcState {
    chain: Arc<Chain>,
    calls: Mutex<BTreeMap<String, usize>>,
}

/// The Solana JSON-RPC stand-in.
pub struct Rpc {
    server: StandIn,
    state: Arc<RpcState>,
}

impl Rpc {
    /// Starts on loopback, reading `chain`.
    pub async fn start(chain: Arc<Chain>) -> Self {
        let state = Arc::new(RpcState { chain, calls: Mutex::new(BTreeMap::new()) });
        let shared = Arc::clone(&state);
        let handler: Handler = Arc::new(move |request| {
            let state = Arc::clone(&shared);
            Box::pin(async move {
                match state.chain.faults_for(Call::Rpc, &[]) {
                    Some((faults, nth)) => match faults.rpc(nth) {
                        RpcMode::Normal => rpc(&state, request),
                        RpcMode::Slow(pause) => {
                            tokio::time::sleep(pause.min(HOLD_LIMIT)).await;
                            rpc(&state, request)
                        }
                        RpcMode::Fail => Reply::json(500, &json!({"error": "internal"})),
                    },
                    None => rpc(&state, request),
                }
            })
        });
        Self { server: StandIn::start(handler), state }
    }

    /// The endpoint URL.
    pub fn url(&self) -> String {
        self.server.url("/")
    }

    /// Calls of one method so far.
    pub fn calls(&self, method: &str) -> usize {
        self.state.calls.lock().unwrap().get(method).copied().unwrap_or(0)
    }

    /// From now on `isBlockhashValid` answers false.
    pub fn expire_blockhashes(&self) {
        self.state.chain.expire_blockhashes();
    }
}

fn rpc(state: &RpcState, request: Recorded) -> Reply {
    if request.method != "POST" {
        return Reply::json(405, &json!({"error": "POST only"}));
    }
    let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
        return Reply::json(
            200,
            &json!({"jsonrpc": "2.0", "id": null,
                    "error": {"code": -32700, "message": "Parse error"}}),
        );
    };
    let answer = match body {
        Value::Array(calls) => Value::Array(calls.iter().map(|c| rpc_call(state, c)).collect()),
        call => rpc_call(state, &call),
    };
    Reply::json(200, &answer)
}

/// The payer the facilitator names: the transaction's signer after the fee payer (the
/// fixture's [`BUYER`] unless a test chose another wallet).
fn payer_of(wire: &[u8]) -> String {
    let buyer = parse_wire(wire).and_then(|parsed| parsed.account_keys.get(1).copied());
    buyer.map_or_else(|| BUYER.to_owned(), |key| bs58::encode(key).into_string())
}

fn rpc_call(state: &RpcState, call: &Value) -> Value {
    let id = call.get("id").cloned().unwrap_or(Value::Null);
    let method = call["method"].as_str().unwrap_or_default().to_owned();
    *state.calls.lock().unwrap().entry(method.clone()).or_default() += 1;
    let first = call["params"][0].as_str().unwrap_or_default();
    // Read under the lock, not copied: the soak's chain holds thousands of transactions.
    let landed = state.chain.landed.lock().unwrap();
    let result = match method.as_str() {
        "getTransaction" => match landed.iter().find(|l| l.signature == first) {
            Some(l) => json!({
                "slot": 1,
                "meta": {"err": null, "fee": 5000},
                "transaction": [STANDARD.encode(&l.wire), "base64"],
            }),
            None => Value::Null,
        },
        "getSignaturesForAddress" => {
            // Newest first, from just `before` that signature when named, at most `limit`;
            // no `blockTime` (the stand-in keeps no block clock: the RPC may answer null).
            let address = decode_pubkey(first);
            let options = &call["params"][1];
            let limit = options["limit"].as_u64().map_or(1_000, |n| n as usize);
            let before = options["before"].as_str();
            let matching = landed
                .iter()
                .rev()
                .filter(|l| address.is_some_and(|a| l.account_keys.contains(&a)))
                .skip_while(|l| before.is_some_and(|b| l.signature != b))
                .skip(usize::from(before.is_some()))
                .take(limit)
                .map(|l| {
                    json!({
                        "signature": l.signature,
                        "slot": 1,
                        "err": null,
                        "blockTime": null,
                        "confirmationStatus": "confirmed",
                    })
                });
            Value::Array(matching.collect())
        }
        "isBlockhashValid" => json!({
            "context": {"slot": 1},
            "value": !state.chain.blockhashes_expired.load(Ordering::SeqCst),
        }),
        _ => {
            return json!({"jsonrpc": "2.0", "id": id,
                          "error": {"code": -32601, "message": "Method not found"}});
        }
    };
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}
