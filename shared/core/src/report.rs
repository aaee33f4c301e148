//! Report assembly: the JSON object agents parse, its verdict line, and its signature.

use serde::Serialize;
use serde_json::Value;
use time::OffsetDateTime;
use time::macros::format_description;

use crate::criteria::{CRITERIA_ID, CRITERIA_REVISION, published};
use crate::grade::check::{CheckFactors, CheckVerdict};
use crate::grade::decided::DecidedBy;
use crate::grade::memo::{MemoFactors, MemoVerdict};
use crate::op::PaidOp;
use crate::policy::TargetUrl;
use crate::signing::{ReportSigner, SignatureEnvelope};

/// A UTC instant in milliseconds since the Unix epoch; the core never reads a clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct UtcMillis(pub i64);

/// The report timestamp format, `YYYY-MM-DDTHH:MM:SS.mmmZ`.
const TIMESTAMP_FORMAT: &[time::format_description::BorrowedFormatItem<'static>] =
    format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");

impl UtcMillis {
    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`; None outside the years 0000 to 9999 (the `time` crate
    /// would write a year before 0000 with a sign, `-0001-…`, which is not this format).
    pub fn to_rfc3339_millis(self) -> Option<String> {
        let nanos = i128::from(self.0) * 1_000_000;
        let at = OffsetDateTime::from_unix_timestamp_nanos(nanos).ok()?;
        if !(0..=9999).contains(&at.year()) {
            return None;
        }
        at.format(TIMESTAMP_FORMAT).ok()
    }

    /// Parses the report timestamp format back (the inverse of `to_rfc3339_millis`): exactly
    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, so never a signed year.
    pub fn parse_rfc3339_millis(text: &str) -> Option<Self> {
        if !text.as_bytes().first().is_some_and(u8::is_ascii_digit) {
            return None;
        }
        let at = time::PrimitiveDateTime::parse(text, TIMESTAMP_FORMAT).ok()?.assume_utc();
        i64::try_from(at.unix_timestamp_nanos() / 1_000_000).ok().map(Self)
    }
}

/// The factors of either op.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Factors {
    /// Factors of a check.
    Check(CheckFactors),
    /// Factors of a memo check.
    Memo(MemoFactors),
}

/// A report before signing; every field is covered by the signature.
#[derive(Debug, Clone, Serialize)]
pub struct UnsignedReport {
    /// Always "payability/v1".
    pub criteria: &'static str,
    /// The criteria revision the verdict was graded under.
    pub criteria_revision: &'static str,
    /// "check" or "memo".
    pub op: PaidOp,
    /// The called URL (WHATWG serialisation of the submitted URL).
    pub url: String,
    /// The state, one of the op's published states.
    pub state: &'static str,
    /// The published verdict line.
    pub verdict_line: String,
    /// The check end, UTC with milliseconds.
    pub checked_at: String,
    /// Every factor of the op.
    pub factors: Factors,
    /// The step of the state rule that matched and the factors that decided it.
    pub decided_by: DecidedBy,
    /// True for house checks (operator's own, unpaid).
    pub house: bool,
    /// The published disclosure sentence.
    pub disclosure: &'static str,
    /// The published honesty line of the op.
    pub honesty: &'static str,
    /// The published retention line of the op.
    pub retention: &'static str,
}

/// Why a report could not be assembled (closed form).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportError {
    /// The check-end instant is outside the years 0000 to 9999.
    TimestampOutOfRange,
}

/// A verdict of either op, as a report carries it.
pub struct Graded {
    state: &'static str,
    factors: Factors,
    decided_by: DecidedBy,
}

impl From<CheckVerdict> for Graded {
    fn from(v: CheckVerdict) -> Self {
        Self {
            state: v.state.as_str(),
            factors: Factors::Check(v.factors),
            decided_by: v.decided_by,
        }
    }
}

impl From<MemoVerdict> for Graded {
    fn from(v: MemoVerdict) -> Self {
        Self {
            state: v.state.as_str(),
            factors: Factors::Memo(v.factors),
            decided_by: v.decided_by,
        }
    }
}

/// The published verdict line of an op's state at a check end (UTC, milliseconds): one
/// builder for the report and the ledger.
pub fn verdict_line(op: PaidOp, state: &str, checked_at: &str) -> String {
    let title = match op {
        PaidOp::Check => "CHALLENGE PAYABILITY VERDICT",
        PaidOp::Memo => "MEMO BINDING VERDICT",
    };
    format!("{title} \u{2014} state: {state} \u{2014} {checked_at}")
}

impl UnsignedReport {
    /// Assembles the report of a verdict of `url` at its check end; the op follows from the
    /// verdict's factors.
    pub fn of(
        url: &TargetUrl,
        verdict: impl Into<Graded>,
        checked_at: UtcMillis,
        house: bool,
    ) -> Result<Self, ReportError> {
        let Graded { state, factors, decided_by } = verdict.into();
        let texts = published();
        let at = checked_at.to_rfc3339_millis().ok_or(ReportError::TimestampOutOfRange)?;
        let (op, honesty, retention) = match factors {
            Factors::Check(_) => (PaidOp::Check, &texts.honesty_line, &texts.retention),
            Factors::Memo(_) => {
                (PaidOp::Memo, &texts.memo_op.boundary_statement, &texts.memo_op.custody)
            }
        };
        Ok(Self {
            criteria: CRITERIA_ID,
            criteria_revision: CRITERIA_REVISION,
            op,
            url: url.as_str().to_owned(),
            state,
            verdict_line: verdict_line(op, state, &at),
            checked_at: at,
            factors,
            decided_by,
            house,
            disclosure: &texts.disclosure_sentence,
            honesty,
            retention,
        })
    }

    /// Signs the report over its canonical bytes.
    pub fn sign(self, signer: &ReportSigner) -> SignedReport {
        let value: Value = serde_json::to_value(&self).expect("a report always serialises");
        SignedReport { signature: signer.sign(&value), report: self }
    }
}

/// A signed report: the report's fields in contract order, then `signature`.
#[derive(Debug, Clone, Serialize)]
pub struct SignedReport {
    /// Every signed field.
    #[serde(flatten)]
    pub report: UnsignedReport,
    /// Ed25519 over the RFC 8785 bytes of `report`.
    pub signature: SignatureEnvelope,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_utc_with_milliseconds() {
        let vectors: [(i64, Option<&str>); 9] = [
            (0, Some("1970-01-01T00:00:00.000Z")),
            (1_795_910_400_123, Some("2026-11-29T00:00:00.123Z")),
            (-1, Some("1969-12-31T23:59:59.999Z")),
            (i64::MAX, None),
            (i64::MIN, None),
            // The edges of the years 0000 to 9999 (found by fuzzing: the year before 0000 was
            // written `-0001-12-31T23:59:59.999Z`).
            (-62_167_219_200_000, Some("0000-01-01T00:00:00.000Z")),
            (-62_167_219_200_001, None),
            (253_402_300_799_999, Some("9999-12-31T23:59:59.999Z")),
            (253_402_300_800_000, None),
        ];
        for (millis, want) in vectors {
            let text = UtcMillis(millis).to_rfc3339_millis();
            assert_eq!(text.as_deref(), want);
            if let Some(text) = text {
                assert_eq!(UtcMillis::parse_rfc3339_millis(&text), Some(UtcMillis(millis)));
            }
        }
        for signed in
            ["-0001-12-31T23:59:59.999Z", "+2026-11-29T00:00:00.123Z", "-9999-01-01T00:00:00.000Z"]
        {
            assert_eq!(UtcMillis::parse_rfc3339_millis(signed), None, "{signed}");
        }
    }
}
