//! What several capabilities share: the closed-form error, the UTC day, base58 ids, paid ops.

pub use payability_core::op::PaidOp;
pub use payability_core::payment::solana::Base58Id;
pub use payability_core::report::UtcMillis;

/// One day in milliseconds.
pub const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// Why the store could not answer (closed form; never carries an SDK message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreError {
    /// The store could not be reached, timed out, or kept throttling: answer 503.
    Unavailable,
    /// A stored item does not have the shape this code writes.
    Corrupt,
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Unavailable => "the store is unavailable",
            Self::Corrupt => "a stored item has an unexpected shape",
        })
    }
}

impl std::error::Error for StoreError {}

/// A UTC calendar day, `YYYY-MM-DD`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UtcDay(String);

impl UtcDay {
    /// The UTC day of an instant (None outside the years 0000 to 9999).
    pub fn of(at: UtcMillis) -> Option<Self> {
        at.to_rfc3339_millis().map(|s| Self(s[..10].to_owned()))
    }

    /// Parses `YYYY-MM-DD` (digits and dashes in that shape only).
    pub fn parse(text: &str) -> Option<Self> {
        let b = text.as_bytes();
        let shape_ok = b.len() == 10
            && b.iter()
                .enumerate()
                .all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() });
        shape_ok.then(|| Self(text.to_owned()))
    }

    /// The day as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The day's first instant.
    pub fn midnight(&self) -> Option<UtcMillis> {
        UtcMillis::parse_rfc3339_millis(&format!("{}T00:00:00.000Z", self.0))
    }

    /// The day `days` later (earlier when negative).
    pub fn shifted(&self, days: i64) -> Option<Self> {
        Self::of(UtcMillis(self.midnight()?.0.checked_add(days.checked_mul(DAY_MS)?)?))
    }
}
