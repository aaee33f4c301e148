//! Grading: decoding a capture's two legs and applying the published state rules.

pub mod check;
mod json;
mod legs;
pub mod memo;

pub use check::{CheckFactors, CheckState, CheckVerdict, grade_check};
pub use memo::{MemoFactors, MemoState, MemoVerdict, grade_memo};
