//! `grade_check` on an arbitrary capture: total (one of the six published states), every
//! factor equal to the independent oracle's, the state equal to the state rule over them, and
//! the report assembles, signs and re-verifies.
//!
//! Frame: called-URL index u8, checked_at i64, capture kind u8, status u16, header (u32
//! length), then the body (over 65,536 bytes is over the cap).

use payability_core::grade::check::CheckFactors;
use payability_core::grade::{CheckState, grade_check};
use payability_core::report::{UnsignedReport, UtcMillis};

use crate::fixtures::{SIGNER, called_url, read_capture};
use crate::frame::Frame;
use crate::oracle;

/// Frame (16 bytes) + a header of up to 65,536 bytes + the body cap (65,536) + 1.
pub const MAX_LEN: usize = 16 + 65_536 + 65_537;

/// The six published check states.
pub const CHECK_STATES: [&str; 6] = [
    "POPULATED",
    "AMOUNTS-ONLY",
    "UNCONFIGURED",
    "HEADER-MISSING",
    "RESOURCE-MISMATCH",
    "NOT-A-402",
];

/// Years 0000 to 9999 in Unix milliseconds: where a report's timestamp can be written.
pub fn timestamp_in_range(millis: i64) -> bool {
    (-62_167_219_200_000..=253_402_300_799_999).contains(&millis)
}

pub fn run(data: &[u8]) {
    let mut frame = Frame::new(data);
    let url = called_url(frame.u8());
    let checked_at = frame.i64();
    let outcome = read_capture(&mut frame, |f| f.rest().to_vec());

    let verdict = grade_check(url.as_str(), &outcome);
    assert!(CHECK_STATES.contains(&verdict.state.as_str()));
    let want = oracle::check_factors(url.as_str(), &outcome);
    assert_eq!(verdict.factors, want, "factors differ from the interpretations");
    assert_eq!(verdict.state, oracle::check_state(&verdict.factors), "state rule");
    let decided = oracle::check_decided_by(verdict.state, &verdict.factors);
    assert_eq!(verdict.decided_by, decided, "decided_by differs from interpretation 19");
    assert_eq!(verdict.factors.reason.is_some(), verdict.state == CheckState::NotA402);

    // The factors survive the report's JSON.
    let json = serde_json::to_value(&verdict.factors).expect("factors serialise");
    let back: CheckFactors = serde_json::from_value(json).expect("factors deserialise");
    assert_eq!(back, verdict.factors);

    let state = verdict.state.as_str();
    match UnsignedReport::of(&url, verdict, UtcMillis(checked_at), false) {
        Ok(report) => {
            assert!(timestamp_in_range(checked_at), "a report outside 0000-9999 assembled");
            crate::targets::assert_signed_report_reverifies(&report.sign(&SIGNER), state);
        }
        Err(_) => assert!(!timestamp_in_range(checked_at), "an in-range report failed"),
    }
}
