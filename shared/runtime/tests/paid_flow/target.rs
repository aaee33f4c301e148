//! The seller whose endpoint is checked: every GET answers 402 with a JSON body and a
//! `PAYMENT-REQUIRED` header (a challenge built like ours, a fresh memo each time), and
//! counts its hits. `hold_next()` holds the next request until released. Below `/api` are
//! the misbehaving paths of [`Behaviour`] (the soak's faulty targets).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use payability_core::capture::BODY_CAP_BYTES;
use payability_core::challenge::{ChallengeTerms, own_challenge};
use payability_core::payment::solana::associated_token_account;
use payability_core::price::USDC_MINT;
use payability_runtime::fetch::FETCH_DEADLINE;
use payability_tests::standin::{Handler, Recorded, Reply, StandIn};
use serde_json::json;

use crate::paid_flow::gate::Gate;
use crate::paid_flow::payment::FEE_PAYER;

/// The seller's wallet.
const SELLER: &str = "AAAGuCgkmxYDTiBvzx1QT5XEjqXPRtQaiEXQo4gatD2o";

/// How the seller answers one of its paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// `/api`: at once (after the delay set).
    Prompt,
    /// `/api/slow`: after 1.5 s.
    Slow,
    /// `/api/hang`: not before the fetch deadline has passed.
    Hanging,
    /// `/api/big`: a body over the capture's cap.
    OverTheCap,
}

impl Behaviour {
    /// Every behaviour.
    pub const ALL: [Behaviour; 4] = [Self::Prompt, Self::Slow, Self::Hanging, Self::OverTheCap];

    /// Its path.
    pub fn path(self) -> &'static str {
        match self {
            Self::Prompt => "/api",
            Self::Slow => "/api/slow",
            Self::Hanging => "/api/hang",
            Self::OverTheCap => "/api/big",
        }
    }

    /// The behaviour of a requested path (query included).
    fn of(path: &str) -> Self {
        let path = path.split('?').next().unwrap_or_default();
        Self::ALL.into_iter().find(|b| b.path() == path).unwrap_or(Self::Prompt)
    }
}

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
        self.url_of(Behaviour::Prompt)
    }

    /// The path that answers as `behaviour`.
    pub fn url_of(&self, behaviour: Behaviour) -> String {
        self.server.url(behaviour.path())
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
    let behaviour = Behaviour::of(&request.path);
    match behaviour {
        Behaviour::Slow => tokio::time::sleep(Duration::from_millis(1_500)).await,
        Behaviour::Hanging => tokio::time::sleep(FETCH_DEADLINE + Duration::from_secs(1)).await,
        Behaviour::Prompt | Behaviour::OverTheCap => {}
    }
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
    let mut body = challenge.body;
    if behaviour == Behaviour::OverTheCap {
        body.resize(BODY_CAP_BYTES + 1, b' ');
    }
    Reply::Respond {
        status: 402,
        headers: vec![
            ("content-type".into(), "application/json".into()),
            ("payment-required".into(), challenge.payment_required),
        ],
        body,
    }
}
