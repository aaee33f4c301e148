//! The faults the soak injects: one [`FaultPlan`] chooses every facilitator, RPC and store
//! answer from the run's seed and counts what it chose, by kind.
//!
//! A facilitator call's fault is keyed by its payment's message and how many calls of its
//! kind came before for it; a store call's by the dice of the request it runs in (a task-local
//! set by [`in_request`]); an RPC call's by its rank. So one seed gives each payment the same
//! faults in every run; only the interleaving of the clients varies.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

use payability_runtime::payment::facilitator::{REQUEST_TIMEOUT, SETTLE_TIMEOUT};

use super::dice::Dice;
use crate::paid_flow::chain::{Faults, RpcMode, SettleMode, VerifyMode};
use crate::paid_flow::pausing_store::{StoreFault, StoreFaults};

tokio::task_local! {
    /// The dice of the request this task is serving.
    static REQUEST_DICE: RefCell<Dice>;
}

/// Runs `request` with `dice` choosing its store faults.
pub async fn in_request<F: Future>(dice: Dice, request: F) -> F::Output {
    REQUEST_DICE.scope(RefCell::new(dice), request).await
}

/// Each fault of a facilitator, RPC or store call, and how often it was chosen.
#[derive(Debug, Default)]
pub struct Tally(Mutex<BTreeMap<&'static str, usize>>);

impl Tally {
    /// Counts one `kind`.
    pub fn count(&self, kind: &'static str) {
        *self.0.lock().unwrap().entry(kind).or_default() += 1;
    }

    /// Every kind counted, and its count.
    pub fn counts(&self) -> BTreeMap<&'static str, usize> {
        self.0.lock().unwrap().clone()
    }
}

/// Chooses the faults of one run.
#[derive(Debug)]
pub struct FaultPlan {
    seed: u64,
    /// What was chosen, by kind.
    pub tally: Tally,
}

impl FaultPlan {
    /// The plan of `seed`.
    pub fn new(seed: u64) -> Self {
        Self { seed, tally: Tally::default() }
    }

    /// A pause from `low` to `high` milliseconds.
    fn pause(dice: &mut Dice, low: u64, high: u64) -> Duration {
        Duration::from_millis(low + dice.below(high - low + 1))
    }
}

/// Just past a bound: the caller gives up first.
fn past(bound: Duration) -> Duration {
    bound + Duration::from_millis(500)
}

impl Faults for FaultPlan {
    fn verify(&self, message: &[u8], nth: usize) -> (VerifyMode, Duration) {
        let mut dice = Dice::keyed(self.seed, &[b"verify", message, &nth.to_le_bytes()]);
        let slow = Self::pause(&mut dice, 200, 1_500);
        let (kind, answer) = dice.pick(&[
            (900, ("verify: answered", (VerifyMode::Normal, Duration::ZERO))),
            (15, ("verify: refused", (VerifyMode::Refuse, Duration::ZERO))),
            (30, ("verify: 503", (VerifyMode::Down, Duration::ZERO))),
            (20, ("verify: connection reset", (VerifyMode::Drop, Duration::ZERO))),
            (30, ("verify: slow", (VerifyMode::Normal, slow))),
            (5, ("verify: timeout", (VerifyMode::Normal, past(REQUEST_TIMEOUT)))),
        ]);
        self.tally.count(kind);
        answer
    }

    fn settle(&self, message: &[u8], nth: usize) -> SettleMode {
        let mut dice = Dice::keyed(self.seed, &[b"settle", message, &nth.to_le_bytes()]);
        let slow = SettleMode::SlowThenSettle(Self::pause(&mut dice, 200, 2_000));
        let (kind, mode) = dice.pick(&[
            (880, ("settle: settled", SettleMode::Normal)),
            (20, ("settle: refused", SettleMode::Refuse)),
            (30, ("settle: slow", slow)),
            (5, ("settle: timeout, landed", SettleMode::SlowThenSettle(past(SETTLE_TIMEOUT)))),
            (5, ("settle: slow refusal", SettleMode::SlowThenRefuse(Duration::from_secs(1)))),
            (20, ("settle: landed, connection reset", SettleMode::LandThenDrop)),
            (15, ("settle: landed, 500", SettleMode::LandThen500)),
            (15, ("settle: 500, not landed", SettleMode::Fail500)),
            (10, ("settle: connection reset, not landed", SettleMode::DropUnlanded)),
        ]);
        self.tally.count(kind);
        mode
    }

    fn rpc(&self, nth: usize) -> RpcMode {
        let mut dice = Dice::keyed(self.seed, &[b"rpc", &nth.to_le_bytes()]);
        let slow = RpcMode::Slow(Self::pause(&mut dice, 200, 1_500));
        let (kind, mode) = dice.pick(&[
            (920, ("rpc: answered", RpcMode::Normal)),
            (40, ("rpc: slow", slow)),
            (40, ("rpc: 500", RpcMode::Fail)),
        ]);
        self.tally.count(kind);
        mode
    }
}

impl StoreFaults for FaultPlan {
    fn choose(&self, _operation: &'static str) -> StoreFault {
        let chosen = REQUEST_DICE.try_with(|dice| {
            let mut dice = dice.borrow_mut();
            let delay = StoreFault::Delay(Self::pause(&mut dice, 20, 400));
            dice.pick(&[
                (960, ("store: answered", StoreFault::None)),
                (10, ("store: failed before the call", StoreFault::FailBefore)),
                (10, ("store: failed after the call", StoreFault::FailAfter)),
                (20, ("store: slow", delay)),
            ])
        });
        let Ok((kind, fault)) = chosen else {
            return StoreFault::None;
        };
        self.tally.count(kind);
        fault
    }
}
