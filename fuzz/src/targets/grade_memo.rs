//! `grade_memo` on two arbitrary captures: total (one of the five published states), every
//! factor and the state equal to the independent oracle's, the state symmetric in the two
//! fetches, and the report assembles, signs and re-verifies.
//!
//! Frame: called-URL index u8, checked_at i64; the first capture (kind u8, status u16, header
//! and body each u32-length-prefixed); the second (kind, status, header), then its body.

use payability_core::grade::grade_memo;
use payability_core::grade::memo::MemoFactors;
use payability_core::report::{UnsignedReport, UtcMillis};

use crate::fixtures::{SIGNER, called_url, read_capture};
use crate::frame::Frame;
use crate::oracle;

/// Frame (27 bytes) + two captures' bodies at the cap + 1 and a header of up to 32 KiB each.
pub const MAX_LEN: usize = 27 + 2 * (65_537 + 32_768);

/// The five published memo states.
pub const MEMO_STATES: [&str; 5] =
    ["BOUND", "MEMO-REUSED", "LEG-MISMATCH", "MEMO-ABSENT", "NOT-A-402"];

pub fn run(data: &[u8]) {
    let mut frame = Frame::new(data);
    let url = called_url(frame.u8());
    let checked_at = frame.i64();
    let first = read_capture(&mut frame, |f| f.bytes().to_vec());
    let second = read_capture(&mut frame, |f| f.rest().to_vec());

    let verdict = grade_memo(&first, &second);
    assert!(MEMO_STATES.contains(&verdict.state.as_str()));
    let (state, factors) = oracle::memo_verdict(&first, &second);
    assert_eq!(verdict.factors, factors, "factors differ from the interpretations");
    assert_eq!(verdict.state, state, "state rule");
    let decided = oracle::memo_decided_by(state, &factors);
    assert_eq!(verdict.decided_by, decided, "decided_by differs from interpretation 19");
    assert_eq!(grade_memo(&second, &first).state, verdict.state, "the state depends on order");

    let json = serde_json::to_value(&verdict.factors).expect("factors serialise");
    let back: MemoFactors = serde_json::from_value(json).expect("factors deserialise");
    assert_eq!(back, verdict.factors);

    let state = verdict.state.as_str();
    match UnsignedReport::of(&url, verdict, UtcMillis(checked_at), false) {
        Ok(report) => {
            assert!(crate::targets::grade_check::timestamp_in_range(checked_at));
            crate::targets::assert_signed_report_reverifies(&report.sign(&SIGNER), state);
        }
        Err(_) => assert!(!crate::targets::grade_check::timestamp_in_range(checked_at)),
    }
}
