//! The Bank of Canada Valet answer, `payability_runtime::fx::parse_observations`, and the rule
//! that picks a date's rate from it (`applicable_rate`): never a panic; the observations are
//! read in order, exactly as published; the applicable rate is the date's own, or the latest
//! before it once a later date proves the date had none, and never a rate after the date.
//!
//! Frame: the transaction date (10 bytes, UTF-8 lossily), then the JSON answer.

use payability_runtime::fx::{
    FxError, MAX_VALET_ANSWER_BYTES, applicable_rate, parse_observations,
};
use payability_runtime::store::{CadRate, UtcDay};
use serde_json::Value;

use crate::frame::Frame;

/// The date and an answer up to the Valet read's cap.
pub const MAX_LEN: usize = 10 + MAX_VALET_ANSWER_BYTES;

pub fn run(data: &[u8]) {
    let mut frame = Frame::new(data);
    let date = String::from_utf8_lossy(&data[..data.len().min(10)]).into_owned();
    let _ = (0..10).map(|_| frame.u8()).count();
    let Ok(body) = serde_json::from_slice::<Value>(frame.rest()) else { return };

    let published = match parse_observations(&body) {
        Ok(published) => published,
        Err(FxError::Malformed) => return,
        Err(FxError::Unavailable) => panic!("parsing never says unavailable"),
    };
    let observations = body["observations"].as_array().expect("read from an array");
    assert_eq!(published.len(), observations.len());
    for ((day, rate), observation) in published.iter().zip(observations) {
        assert_eq!(observation["d"].as_str(), Some(day.as_str()));
        assert_eq!(observation["FXUSDCAD"]["v"].as_str(), Some(rate.as_str()));
        assert_eq!(UtcDay::parse(day.as_str()).as_ref(), Some(day));
    }

    let Some(date) = UtcDay::parse(&date) else { return };
    let _ = date.shifted(-10);
    let _ = date.shifted(10);
    let rate = applicable_rate(&date, &published);
    let own = published.iter().find(|(day, _)| *day == date);
    match (own, &rate) {
        (Some((day, text)), _) => assert_eq!(rate, CadRate::new(text, day.clone())),
        (None, Some(rate)) => {
            assert!(rate.rate_date < date, "a rate from after the date");
            assert!(published.iter().any(|(day, _)| *day > date), "guessed before a later date");
            let latest = published.iter().filter(|(day, _)| *day < date).map(|(d, _)| d).max();
            assert_eq!(latest, Some(&rate.rate_date));
        }
        (None, None) => {}
    }
    if let Some(rate) = &rate {
        let text = rate.usd_cad();
        assert!(text.len() <= 16 && text.split('.').count() == 2);
    }
}
