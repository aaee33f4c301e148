//! The seller whose endpoint is checked: every GET answers 402 with a JSON body and a
//! `PAYMENT-REQUIRED` header (a challenge built like ours, a fresh memo each time), and
//! counts its hits. `hold_next()` holds the next request until released.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use payability_core::challenge::{ChallengeTerms, USDC_MINT, own_challenge};
use payability_core::payment::solana::associated_token_account;
use payability_tests::standin::{Handler, Recorded, Reply, StandIn};
use serde_json::json;

use crate::gate::Gate;
use crate::payment::FEE_PAYER;

/// The seller's wallet.
const SELLER: &str = "AAAGuCgkmxYDTiBvzx1QT5XEjqXPRtQaiEXQo4gatD2o";

struct TargetState {
    hits: AtomicUsize,
    gate: Gate,
    /// How long each answer takes.
    delay: std::sync::Mutex<Duration>,
    /// `http://127.0.0.1:PORT`, known once bound.
    origin: OnceLock<String>,
}

/// The seller stand-in.
pub struct Target {
    server: StandIn,
    state: Arc<TargetState>,
}

impl Target {
    /// Starts on loopback.
    pub async fn start() -> Self {
        let state = Arc::new(TargetState {
            hits: AtomicUsize::new(0),
            gate: Gate::default(),
            delay: std::sync::Mutex::new(Duration::ZERO),
            origin: OnceLock::new(),
        });
        let shared = Arc::clone(&state);
        let handler: Handler = Arc::new(move |request| {
            let state = Arc::clone(&shared);
            Box::pin(async move { answer(&state, request).await })
        });
        let server = StandIn::start(handler);
        state.origin.set(server.url("")).expect("set once");
        Self { server, state }
    }

    /// The endpoint a paid check is asked about.
    pub fn url(&self) -> String {
        self.server.url("/api")
    }

    /// Requests received so far (held ones included).
    pub fn hits(&self) -> usize {
        self.state.hits.load(Ordering::SeqCst)
    }

    /// Holds the next request until [`Target::release`] (or the hold limit).
    pub fn hold_next(&self) {
        self.state.gate.arm();
    }

    /// Resolves once a request is being held.
    pub async fn held(&self) {
        self.state.gate.reached().await;
    }

    /// Lets a held request be answered.
    pub fn release(&self) {
        self.state.gate.release();
    }

    /// How long each answer takes from now on.
    pub fn set_delay(&self, delay: Duration) {
        *self.state.delay.lock().unwrap() = delay;
    }
}

async fn answer(state: &TargetState, request: Recorded) -> Reply {
    let hit = state.hits.fetch_add(1, Ordering::SeqCst);
    state.gate.pass().await;
    let delay = *state.delay.lock().unwrap();
    tokio::time::sleep(delay).await;
    if request.method != "GET" {
        return Reply::json(405, &json!({"error": "GET only"}));
    }
    // The challenge names the URL that was fetched as its resource.
    let origin = state.origin.get().map_or("http://127.0.0.1", String::as_str);
    let resource = format!("{origin}{}", request.path);
    let token_account = associated_token_account(SELLER, USDC_MINT).expect("an ATA");
    let memo = format!("seller-memo-{hit:08}");
    let challenge = own_challenge(&ChallengeTerms {
        resource_url: &resource,
        description: "A seller's endpoint",
        pay_to: SELLER,
        fee_payer: FEE_PAYER,
        token_account: &token_account,
        memo: &memo,
    });
    Reply::Respond {
        status: 402,
        headers: vec![
            ("content-type".into(), "application/json".into()),
            ("payment-required".into(), challenge.payment_required),
        ],
        body: challenge.body,
    }
}
