//! The two tripwires' arithmetic over the daily counters, pure: free use against paid use
//! since Day-0, and refunds against paid use in every window of [`WINDOW_DAYS`] UTC days.
//! `GET /metrics` publishes what it comes to (`api/reads.rs`, with the rules' text).

use std::collections::BTreeMap;
use std::ops::Add;

use payability_core::op::PaidOp;

use crate::store::{DayCounts, UtcDay, UtcMillis};

/// The window of the tripwires, in days.
pub const WINDOW_DAYS: i64 = 30;

/// Free pre-checks, paid verdicts and refunds, counted over some days.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Uses {
    /// Free pre-checks answered.
    pub free: u64,
    /// Paid checks and memo checks delivered.
    pub paid: u64,
    /// Refunds recorded.
    pub refunds: u64,
}

impl Uses {
    /// The uses of one day's counters.
    fn of(counts: &BTreeMap<String, u64>) -> Self {
        let sum = |prefix: &str| {
            counts.iter().filter(|(n, _)| n.starts_with(prefix)).map(|(_, c)| c).sum::<u64>()
        };
        let paid = PaidOp::ALL.into_iter().map(|op| sum(&format!("paid_{}_", op.as_str()))).sum();
        Self { free: sum("precheck"), paid, refunds: sum("refund") }
    }

    /// The uses of the days read from `first` on.
    pub fn from_day(days: &[DayCounts], first: &UtcDay) -> Self {
        days.iter()
            .filter(|d| d.day >= *first)
            .map(|d| Self::of(&d.counts))
            .fold(Self::default(), Add::add)
    }
}

impl Add for Uses {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        Self {
            free: self.free + other.free,
            paid: self.paid + other.paid,
            refunds: self.refunds + other.refunds,
        }
    }
}

/// Whether refunds are over 5% of paid uses (any refund without paid use is).
pub fn refunds_over(refunds: u64, paid: u64) -> bool {
    refunds > 0 && refunds.saturating_mul(20) > paid
}

/// One window of [`WINDOW_DAYS`] UTC days, named by its last day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Its last day.
    pub last_day: UtcDay,
    /// Paid uses in it.
    pub paid: u64,
    /// Refunds in it.
    pub refunds: u64,
}

impl Window {
    /// Its first day (None out of range).
    pub fn first_day(&self) -> Option<UtcDay> {
        self.last_day.shifted(1 - WINDOW_DAYS)
    }

    /// Whether its refunds are over 5% of its paid uses.
    pub fn over(&self) -> bool {
        refunds_over(self.refunds, self.paid)
    }
}

/// The armed tripwires: the counts from Day-0's UTC day through today.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Armed {
    /// The uses from Day-0's UTC day (`since`) through today.
    pub uses: Uses,
    /// How many windows were evaluated: one per day from `since` through today, less those
    /// that would start before the read (unless the read starts at Day-0's own day).
    pub windows_evaluated: u64,
    /// The worst window: the highest refunds/paid ratio, the latest on a tie.
    pub worst: Option<Window>,
}

impl Armed {
    /// Evaluates the counts `days` (ascending) from `since` (Day-0's UTC day, clipped to the
    /// read) through `today`; None when a day is out of range.
    pub fn evaluate(
        days: &[DayCounts],
        day0: Option<UtcMillis>,
        since: &UtcDay,
        today: &UtcDay,
    ) -> Option<Self> {
        // One entry per day from `since` through today: (day, uses).
        let mut daily: Vec<(UtcDay, Uses)> = Vec::new();
        let mut day = since.clone();
        while day <= *today {
            let uses =
                days.iter().find(|d| d.day == day).map_or(Uses::default(), |d| Uses::of(&d.counts));
            daily.push((day.clone(), uses));
            day = day.shifted(1)?;
        }
        let span = usize::try_from(WINDOW_DAYS).ok()?;
        // A window that would start before the read is evaluated only when the read starts at
        // Day-0 (nothing was paid before it); otherwise it would be partial.
        let from_day0 = day0.and_then(UtcDay::of).as_ref() == Some(since);
        let mut worst: Option<Window> = None;
        let mut windows_evaluated = 0u64;
        for end in 0..daily.len() {
            if end + 1 < span && !from_day0 {
                continue;
            }
            let start = (end + 1).saturating_sub(span);
            let (paid, refunds) =
                daily[start..=end].iter().fold((0, 0), |a, (_, u)| (a.0 + u.paid, a.1 + u.refunds));
            windows_evaluated += 1;
            let key = |refunds: u64, paid: u64| match (refunds, paid) {
                (0, _) => 0.0,
                (_, 0) => f64::INFINITY,
                _ => refunds as f64 / paid as f64,
            };
            if worst.as_ref().is_none_or(|w| key(refunds, paid) >= key(w.refunds, w.paid)) {
                worst = Some(Window { last_day: daily[end].0.clone(), paid, refunds });
            }
        }
        let uses = daily.iter().map(|(_, uses)| *uses).fold(Uses::default(), Add::add);
        Some(Self { uses, windows_evaluated, worst })
    }

    /// The free-use tripwire: free pre-checks over ten times the paid uses.
    pub fn free_use_fired(&self) -> bool {
        self.uses.free > self.uses.paid.saturating_mul(10)
    }

    /// The refund tripwire: some window over 5%.
    pub fn refunds_fired(&self) -> bool {
        self.worst.as_ref().is_some_and(Window::over)
    }
}
