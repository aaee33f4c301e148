//! The soak's buyers: each job is a purchase (a fresh payment over one route, with the
//! client's own faults: leaving mid-request, a concurrent duplicate, byte variants, retries,
//! signing in when asked, re-signing another payment under its payment-identifier), a free
//! pre-check or a house check. Every answer is read at once against the chain; what a
//! purchase ended with is kept in its [`Purchase`] for the reconciliation.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ed25519_dalek::SigningKey;
use payability_runtime::rules::ApiError;

use super::dice::Dice;
use super::rig::{Rig, Route};
use crate::paid_flow::payment::Payment;
use crate::paid_flow::target::Behaviour;
use crate::paid_flow::world::{Answer, CHECK, MEMO};

/// Attempts one purchase makes during the run before it waits for the collection rounds.
const ATTEMPTS: usize = 4;

/// The wallets buyers pay from, each with its own signature history on the chain (one
/// wallet's hundreds of settlements would be a search of hundreds of transactions per lookup).
const WALLETS: u64 = 250;

/// Buyer wallet `n`.
pub fn wallet(n: u8) -> SigningKey {
    let mut seed = [0x57; 32];
    seed[0] = n;
    SigningKey::from_bytes(&seed)
}

/// What the buyer makes of one answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// A signed report.
    Verdict,
    /// Asked to retry the same payment (in flight, outcome unknown, not started, a store or
    /// facilitator outage, a sign-in proof refused).
    Retry,
    /// Asked to sign in as the payer.
    SignIn,
    /// Refused, and told nothing was charged.
    NotCharged,
    /// Refused: the payment was used up.
    Used,
    /// Refused as a conflicting payment under a payment-identifier already bound.
    Conflict,
    /// Anything else: a violation.
    Unexpected,
}

/// Reads one answer to a paid request.
pub fn read(answer: &Answer) -> Reading {
    if answer.is_verdict() {
        return Reading::Verdict;
    }
    let rule = answer.rule().unwrap_or_default();
    let retryable = ApiError::all().into_iter().any(|error| {
        error.rule() == rule
            && (error.retry_after().is_some() || rule == ApiError::FacilitatorUnavailable.rule())
    });
    match answer.status {
        _ if retryable => Reading::Retry,
        402 if rule == "sign_in_as_payer" => Reading::SignIn,
        402 if rule.starts_with("sign_in_") => Reading::Retry,
        402 if says_nothing_charged(answer) => Reading::NotCharged,
        409 if rule == "payment_identifier_conflict" => Reading::Conflict,
        409 if rule == "payment_already_used" => Reading::Used,
        409 if rule == ApiError::SettlementAlreadyRecorded.rule() => Reading::Used,
        _ => Reading::Unexpected,
    }
}

/// A blockhash from the dice (so a seed gives each purchase the same payment).
fn blockhash(dice: &mut Dice) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    for chunk in bytes.chunks_mut(8) {
        chunk.copy_from_slice(&dice.next().to_le_bytes());
    }
    bytes
}

/// Whether the answer tells the buyer that nothing was charged or settled.
fn says_nothing_charged(answer: &Answer) -> bool {
    let said = match answer.body["error"].as_str() {
        Some(text) => text,
        None => answer.message(),
    };
    ["nothing was charged", "did not settle", "did not verify or settle"]
        .iter()
        .any(|words| said.contains(words))
}

/// Where a purchase stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// No final answer yet.
    Pending,
    /// Its verdict was received.
    Verdict,
    /// Refused for good (how it was read).
    Refused(String),
}

/// One purchase, as its buyer knows it.
#[derive(Debug, Clone)]
pub struct Purchase {
    /// The job it is.
    pub job: usize,
    /// How it travels.
    pub route: Route,
    /// `/check` or `/memo`.
    pub path: &'static str,
    /// The URL checked.
    pub url: String,
    /// The wallet that pays ([`wallet`]).
    pub wallet: u8,
    /// The payment.
    pub payment: Payment,
    /// Another payment sent under the same payment-identifier after the verdict.
    pub conflicting: Option<Payment>,
    /// Whether the buyer asks for its verdict again, signed in, in the collection rounds.
    pub redeliver: bool,
    /// Verdicts received.
    pub verdicts: usize,
    /// Where it stands.
    pub standing: Standing,
}

/// Everything the buyers saw.
#[derive(Debug, Default)]
pub struct Books {
    /// Every purchase.
    pub purchases: Mutex<Vec<Purchase>>,
    /// What broke an invariant while it was seen.
    pub violations: Mutex<Vec<String>>,
    /// Requests sent, by kind.
    pub requests: Mutex<BTreeMap<&'static str, usize>>,
    /// Requests that carried a payment.
    pub paid: AtomicUsize,
    /// Answers by status and rule.
    pub answers: Mutex<BTreeMap<String, usize>>,
}

impl Books {
    /// Purchases without their final answer yet.
    pub fn pending(&self) -> usize {
        let purchases = self.purchases.lock().unwrap();
        purchases.iter().filter(|purchase| purchase.standing == Standing::Pending).count()
    }
}

impl Books {
    fn count(&self, kind: &'static str) {
        *self.requests.lock().unwrap().entry(kind).or_default() += 1;
    }

    fn violation(&self, text: String) {
        self.violations.lock().unwrap().push(text);
    }

    fn answered(&self, answer: &Answer) {
        let key = format!("{} {}", answer.status, answer.rule().unwrap_or("verdict"));
        *self.answers.lock().unwrap().entry(key).or_default() += 1;
    }
}

/// The buyers of one run.
#[derive(Clone)]
pub struct Buyers {
    /// The service and its stand-ins.
    pub rig: Arc<Rig>,
    /// The run's seed.
    pub seed: u64,
    /// What they saw.
    pub books: Arc<Books>,
}

impl Buyers {
    fn dice(&self, job: usize, what: &[u8]) -> Dice {
        Dice::keyed(self.seed, &[b"job", &job.to_le_bytes(), what])
    }

    /// Runs job `job`: a purchase, a free pre-check or a house check.
    pub async fn run(&self, job: usize) {
        let mut dice = self.dice(job, b"plan");
        let behaviour = dice.pick(&[
            (850, Behaviour::Prompt),
            (70, Behaviour::Slow),
            (30, Behaviour::Hanging),
            (50, Behaviour::OverTheCap),
        ]);
        let url = self.rig.target.url_of(behaviour);
        match dice.pick(&[(82, "purchase"), (12, "precheck"), (6, "house")]) {
            "precheck" => self.precheck(job, &url, &mut dice).await,
            "house" => self.house(job, &url).await,
            _ => self.purchase(job, url, dice).await,
        }
    }

    async fn precheck(&self, job: usize, url: &str, dice: &mut Dice) {
        self.books.count("free pre-check");
        let source = u8::try_from(dice.below(200)).expect("below 200");
        let request = self.rig.precheck(url, source);
        if let Some(answer) = self.rig.send(request, self.dice(job, b"store"), None).await {
            self.books.answered(&answer);
            if !matches!(answer.status, 200 | 402 | 503) {
                self.books.violation(format!("job {job}: a pre-check answered {answer}"));
            }
        }
    }

    async fn house(&self, job: usize, url: &str) {
        self.books.count("house check");
        let request = self.rig.house(url);
        if let Some(answer) = self.rig.send(request, self.dice(job, b"store"), None).await {
            self.books.answered(&answer);
            let house = answer.is_verdict() && answer.body["house"] == true;
            if !(house || answer.status == 503) {
                self.books.violation(format!("job {job}: a house check answered {answer}"));
            }
        }
    }

    async fn purchase(&self, job: usize, url: String, mut dice: Dice) {
        let route = dice.pick(&[
            (35, Route::HttpPost),
            (15, Route::HttpGet),
            (15, Route::HttpV1),
            (20, Route::Mcp),
            (15, Route::A2a),
        ]);
        let path =
            if route == Route::HttpV1 { CHECK } else { dice.pick(&[(70, CHECK), (30, MEMO)]) };
        let store_dice = self.dice(job, b"store");
        let payment = match route {
            Route::HttpV1 => Payment::v1(),
            _ => {
                let mut challenge = None;
                for _ in 0..3 {
                    challenge = self.rig.challenge(route, path, &url, &store_dice).await;
                    if challenge.is_some() {
                        break;
                    }
                }
                let Some(challenge) = challenge else {
                    self.books.count("purchase without a challenge");
                    return;
                };
                Payment::v2(&challenge)
            }
        };
        let identifier = (route != Route::HttpV1 && dice.chance(200))
            .then(|| format!("soak-{:016x}-{job:08}", self.seed));
        let payer = u8::try_from(dice.below(WALLETS)).expect("fewer than 256 wallets");
        let buyer = wallet(payer).verifying_key().to_bytes();
        let payment = payment.of(buyer, blockhash(&mut dice));
        let payment = match &identifier {
            Some(id) => payment.with_identifier(id),
            None => payment,
        };
        let conflicting = match &identifier {
            Some(id) if dice.chance(300) => {
                Some(payment.of(buyer, blockhash(&mut dice)).with_identifier(id))
            }
            _ => None,
        };
        let mut purchase = Purchase {
            job,
            route,
            path,
            url,
            wallet: payer,
            payment,
            conflicting,
            redeliver: dice.chance(50),
            verdicts: 0,
            standing: Standing::Pending,
        };
        self.books.count("purchase");
        let mut signed = false;
        for attempt in 0..ATTEMPTS {
            let leave =
                (attempt == 0 && dice.chance(100)).then(|| Duration::from_millis(dice.below(400)));
            let duplicate = attempt == 0 && dice.chance(120);
            let mut twin = duplicate.then(|| Dice::keyed(dice.next(), &[b"duplicate"]));
            let first = self.attempt(&purchase, &mut dice, signed, leave);
            let readings = match &mut twin {
                Some(twin) => {
                    let second = self.attempt(&purchase, twin, signed, None);
                    let (first, second) = tokio::join!(first, second);
                    vec![first, second]
                }
                None => vec![first.await],
            };
            let mut again = false;
            for reading in readings.into_iter().flatten() {
                match reading {
                    Reading::Verdict => {
                        purchase.verdicts += 1;
                        purchase.standing = Standing::Verdict;
                    }
                    Reading::SignIn => (signed, again) = (true, true),
                    Reading::Retry => again = true,
                    Reading::NotCharged | Reading::Used | Reading::Conflict => {
                        if purchase.standing == Standing::Pending {
                            purchase.standing = Standing::Refused(format!("{reading:?}"));
                        }
                    }
                    Reading::Unexpected => {}
                }
            }
            if purchase.standing != Standing::Pending || (!again && leave.is_none()) {
                break;
            }
        }
        if purchase.standing == Standing::Verdict {
            self.send_conflicting(&purchase).await;
        }
        self.books.purchases.lock().unwrap().push(purchase);
    }

    /// One paid request of `purchase`: the payment or one of its byte variants, signed in or
    /// not; None when the client left or no sign-in challenge came.
    pub async fn attempt(
        &self,
        purchase: &Purchase,
        dice: &mut Dice,
        signed: bool,
        leave: Option<Duration>,
    ) -> Option<Reading> {
        let payment = &purchase.payment;
        let variant = match dice.pick(&[(70, 0), (10, 1), (10, 2), (10, 3)]) {
            1 => payment.unpadded(),
            2 => payment.with_trailing_byte(),
            3 => payment.with_fee_payer_slot([dice.below(256) as u8; 64]),
            _ => payment.clone(),
        };
        let store_dice = Dice::keyed(dice.next(), &[b"store"]);
        let (route, path, url) = (purchase.route, purchase.path, purchase.url.as_str());
        let mut request = self.rig.paid(route, path, Some(&variant), url);
        if signed {
            let wallet = wallet(purchase.wallet);
            request = self.rig.signed(route, path, url, request, &store_dice, &wallet).await?;
        }
        let message = payment.message();
        let landed_before = self.rig.chain.has_landed_message(&message);
        self.books.count(if signed { "paid, signed in" } else { "paid" });
        self.books.paid.fetch_add(1, Ordering::SeqCst);
        let Some(answer) = self.rig.send(request, store_dice, leave).await else {
            self.books.count("paid, the client left");
            return None;
        };
        self.books.answered(&answer);
        let reading = read(&answer);
        let job = purchase.job;
        match reading {
            Reading::Verdict => {
                let settled = answer.settlement();
                let tx = settled.as_ref().and_then(|s| s["transaction"].as_str());
                if tx != Some(payment.landed_signature().as_str()) {
                    self.books.violation(format!("job {job}: a verdict names another settlement"));
                }
                if !self.rig.chain.has_landed_message(&message) {
                    self.books.violation(format!("job {job}: a verdict without a settlement"));
                }
            }
            Reading::NotCharged if landed_before => {
                let said = answer.rule().unwrap_or_default();
                self.books.violation(format!("job {job}: {said} after the payment settled"));
            }
            Reading::Unexpected => {
                self.books.violation(format!("job {job}: unexpected answer {answer}"));
            }
            _ => {}
        }
        Some(reading)
    }

    /// One collection round of `purchase`: a pending one retries its payment signed in, and
    /// one whose buyer asks again gets its verdict again (in the first round only).
    pub async fn collect(&self, mut purchase: Purchase, round: usize) -> Purchase {
        let pending = purchase.standing == Standing::Pending;
        let again = round == 0 && purchase.redeliver && purchase.standing == Standing::Verdict;
        if !(pending || again) {
            return purchase;
        }
        let mut dice = self.dice(purchase.job, &[b'c', u8::try_from(round).expect("a few")]);
        match self.attempt(&purchase, &mut dice, true, None).await {
            Some(Reading::Verdict) => {
                purchase.verdicts += 1;
                purchase.standing = Standing::Verdict;
            }
            Some(reading @ (Reading::NotCharged | Reading::Used | Reading::Conflict))
                if pending =>
            {
                purchase.standing = Standing::Refused(format!("{reading:?}"));
            }
            _ => {}
        }
        purchase
    }

    /// Sends the payment re-signed under the purchase's identifier: refused, never settled.
    async fn send_conflicting(&self, purchase: &Purchase) {
        let Some(conflicting) = &purchase.conflicting else {
            return;
        };
        let (route, path, url) = (purchase.route, purchase.path, purchase.url.as_str());
        let request = self.rig.paid(route, path, Some(conflicting), url);
        self.books.count("paid, another payment under the identifier");
        self.books.paid.fetch_add(1, Ordering::SeqCst);
        let dice = self.dice(purchase.job, b"conflicting");
        if let Some(answer) = self.rig.send(request, dice, None).await {
            self.books.answered(&answer);
            if !matches!(read(&answer), Reading::Conflict | Reading::Retry) {
                let job = purchase.job;
                self.books.violation(format!("job {job}: a re-signed payment answered {answer}"));
            }
        }
    }
}
