//! The money soak: concurrent buyers over every route (HTTP v2 POST and GET, v1, MCP, A2A) against
//! one service on a real store, with faults chosen at random from a printed seed at the
//! facilitator (500, reset, slow, timeout, an answer lost after the settlement landed), the
//! RPC (slow, 500), the store (a call failed before or after it ran, or slow), the clients
//! (leaving mid-request, a concurrent duplicate, byte variants, retries, a second payment
//! under one payment-identifier) and the targets (slow, hanging, over the cap). The clock
//! stands still during the run; then collection rounds, each 31 s later, let every buyer
//! retry its payment signed in (two rounds with the faults, then at least four without, and
//! more while each clean round still brings a purchase to its final answer: a slow store
//! answers a clean round 503 too, truly, and the next round collects; a round that ends no
//! purchase ends the rounds), and the chain's settlements are reconciled against the
//! purchases, the ledger, the claims and the paid counts.
//!
//! The CI form runs about 1,000 paid requests per store with a fixed seed. The long form
//! (`scripts/soak`) is `soak_from_the_environment`, run with `--ignored` and `SOAK_SEED`,
//! `SOAK_PAID`, `SOAK_CLIENTS`, `SOAK_STORE` (`sqlite` or `moto`).

mod buyers;
mod dice;
mod faults;
mod reconcile;
mod rig;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::task::JoinSet;

use crate::paid_flow::pausing_store::StoreFaults;
use buyers::{Books, Buyers};
use faults::FaultPlan;
use reconcile::{Figures, Gathered};
use rig::{Backend, Rig};

/// Collection rounds with the faults still on.
const FAULTY_ROUNDS: usize = 2;
/// Clean collection rounds: at least this many, then more while each one brings a purchase to
/// its final answer, up to the most.
const CLEAN_ROUNDS: usize = 4;
const MOST_CLEAN_ROUNDS: usize = 24;
/// How far the clock moves before each collection round: past the in-flight window.
const ROUND_STEP: Duration = Duration::from_secs(31);

/// One run's settings.
#[derive(Debug, Clone, Copy)]
struct Settings {
    seed: u64,
    /// Requests carrying a payment, at least.
    paid: usize,
    clients: usize,
    backend: Backend,
}

/// Runs one soak and prints its table; returns its violations.
async fn soak(settings: Settings) -> Vec<String> {
    let Settings { seed, paid, clients, backend } = settings;
    let started = Instant::now();
    let rig = Arc::new(Rig::start(backend).await);
    let plan = Arc::new(FaultPlan::new(seed));
    rig.chain.set_faults(plan.clone());
    rig.store.set_faults(Some(plan.clone() as Arc<dyn StoreFaults>));
    let books = Arc::new(Books::default());
    let buyers = Buyers { rig: Arc::clone(&rig), seed, books: Arc::clone(&books) };

    let next = Arc::new(AtomicUsize::new(0));
    let mut clients_set = JoinSet::new();
    for _ in 0..clients {
        let (buyers, next) = (buyers.clone(), Arc::clone(&next));
        clients_set.spawn(async move {
            while buyers.books.paid.load(Ordering::SeqCst) < paid {
                buyers.run(next.fetch_add(1, Ordering::SeqCst)).await;
            }
        });
    }
    clients_set.join_all().await;

    let mut before = usize::MAX;
    let mut rounds = 0;
    for round in 0..FAULTY_ROUNDS + MOST_CLEAN_ROUNDS {
        let pending = books.pending();
        if round >= FAULTY_ROUNDS + CLEAN_ROUNDS && (pending == 0 || pending >= before) {
            break;
        }
        before = pending;
        rounds += 1;
        if round == FAULTY_ROUNDS {
            rig.chain.clear_faults();
            rig.store.set_faults(None);
            // Minutes have passed on a real chain: what has not landed never will.
            rig.chain.expire_blockhashes();
        }
        rig.clock.advance(ROUND_STEP);
        let purchases = std::mem::take(&mut *books.purchases.lock().unwrap());
        let mut queue = purchases.into_iter();
        let mut running = JoinSet::new();
        let mut collected = Vec::new();
        loop {
            while running.len() < clients {
                let Some(purchase) = queue.next() else { break };
                let buyers = buyers.clone();
                running.spawn(async move { buyers.collect(purchase, round).await });
            }
            match running.join_next().await {
                Some(done) => collected.push(done.expect("a collection ran")),
                None => break,
            }
        }
        collected.sort_by_key(|purchase| purchase.job);
        *books.purchases.lock().unwrap() = collected;
    }

    let purchases = books.purchases.lock().unwrap().clone();
    let landed = rig.chain.landed();
    let mut claims = BTreeMap::new();
    for purchase in &purchases {
        let tx = purchase.payment.landed_signature();
        if landed.contains(&tx) {
            claims.insert(tx, rig.claim(&purchase.payment.message()).await);
        }
    }
    let view = rig.view().await;
    let gathered = Gathered {
        purchases: &purchases,
        landed: &landed,
        settles_after_landing: rig.chain.settles_after_landing(),
        view: &view,
        claims: &claims,
    };
    let mut violations = books.violations.lock().unwrap().clone();
    violations.extend(reconcile::violations(&gathered));
    let figures = Figures {
        gathered,
        requests: &books.requests.lock().unwrap().clone(),
        paid: books.paid.load(Ordering::SeqCst),
        answers: &books.answers.lock().unwrap().clone(),
        faults: &plan.tally.counts(),
        violations: &violations,
    };
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "soak: seed={seed:#018x} store={} clients={clients} paid>={paid} collection rounds={rounds} elapsed={elapsed:.1}s\n{}",
        backend.name(),
        reconcile::table(&figures)
    );
    violations
}

/// The CI form's seed.
const CI_SEED: u64 = 0x5eed_0000_0000_0001;

/// Stack for each worker: the service's request future on the DynamoDB SDK, polled in a debug
/// build, is deeper than tokio's 2 MiB default.
const WORKER_STACK_BYTES: usize = 16 << 20;

/// Runs `soak` on a two-worker runtime with [`WORKER_STACK_BYTES`] stacks.
fn run(settings: Settings) -> Vec<String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_stack_size(WORKER_STACK_BYTES)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async { tokio::spawn(soak(settings)).await }).expect("the soak ran")
}

#[test]
fn a_thousand_paid_requests_under_faults_reconcile_to_the_cent_on_each_store() {
    for backend in Backend::ALL {
        let settings = Settings { seed: CI_SEED, paid: 1_000, clients: 32, backend };
        let violations = run(settings);
        assert!(violations.is_empty(), "{}: {violations:#?}", backend.name());
    }
}

/// A setting from the environment, or its default.
fn setting<T: std::str::FromStr>(name: &str, default: T) -> T {
    match std::env::var(name) {
        Ok(text) => text.parse().unwrap_or_else(|_| panic!("{name}={text} does not parse")),
        Err(_) => default,
    }
}

#[test]
#[ignore = "the long form: scripts/soak"]
fn soak_from_the_environment() {
    let seed = match std::env::var("SOAK_SEED") {
        Ok(text) => u64::from_str_radix(text.trim_start_matches("0x"), 16)
            .unwrap_or_else(|_| panic!("SOAK_SEED={text} is not hex")),
        Err(_) => {
            let mut bytes = [0u8; 8];
            getrandom::fill(&mut bytes).expect("the system random source works");
            u64::from_le_bytes(bytes)
        }
    };
    let backend = match setting("SOAK_STORE", "sqlite".to_owned()).as_str() {
        "sqlite" => Backend::Sqlite,
        "moto" => Backend::Moto,
        other => panic!("SOAK_STORE={other}: sqlite or moto"),
    };
    let settings = Settings {
        seed,
        paid: setting("SOAK_PAID", 20_000),
        clients: setting("SOAK_CLIENTS", 32),
        backend,
    };
    let violations = run(settings);
    assert!(violations.is_empty(), "{violations:#?}");
}
