//! Grading: decoding a capture's two legs and applying the published state rules.

pub mod check;
pub mod decided;
pub(crate) mod json;
pub(crate) mod legs;
pub mod memo;

pub use check::{CheckFactors, CheckState, CheckVerdict, grade_check};
pub use decided::{DecidedBy, DecidingFactor, FactorValue};
pub use memo::{MemoFactors, MemoState, MemoVerdict, grade_memo};
