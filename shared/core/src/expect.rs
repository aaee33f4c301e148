//! A seller's own terms (`payability check --expect KEY=VALUE`): the payee, the amount, the
//! network and the asset they mean to charge, compared with what each leg of a captured
//! challenge carries. The caller's, never the rule's: the result sits beside a signed report,
//! never inside it, and says per leg only met, unmet or absent, never the value the challenge
//! carried. [`Expectations::evaluate`] is a pure function of the expectations and the
//! captures: no clock, no network.
//!
//! Each leg is read as the rule reads it (`crate::grade::legs`): `accepts[0]` of the JSON
//! body and of the decoded `PAYMENT-REQUIRED` header, the entry the rule grades. `pay-to` is
//! `payTo`; `amount` and `max-amount` are `amount` (ASCII digits only, compared as whole
//! numbers of base units); `network` and `asset` are `network` and `asset`. A network the
//! x402 network table knows ([`Network`]) is the same network under its CAIP-2 identifier and
//! its v1 name; any other name compares as written.

use serde::Serialize;

use crate::capture::FetchOutcome;
use crate::grade::legs::{BodyLeg, HeaderLeg};
use crate::payment::x402::Network;

/// Longest `--expect` value, in bytes (an address, a CAIP-2 identifier or an amount is far
/// shorter).
pub const MAX_EXPECT_VALUE_BYTES: usize = 256;

/// What an expectation compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExpectKey {
    /// `payTo` equals the value.
    PayTo,
    /// `amount` equals the value, in base units.
    Amount,
    /// `amount` is at most the value, in base units.
    MaxAmount,
    /// `network` is the same network as the value.
    Network,
    /// `asset` equals the value.
    Asset,
}

impl ExpectKey {
    /// Every key, in the order the help lists them.
    pub const ALL: [Self; 5] =
        [Self::PayTo, Self::Amount, Self::MaxAmount, Self::Network, Self::Asset];

    /// The key as written on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PayTo => "pay-to",
            Self::Amount => "amount",
            Self::MaxAmount => "max-amount",
            Self::Network => "network",
            Self::Asset => "asset",
        }
    }

    /// The key of a name, if it is one.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|key| key.as_str() == name)
    }
}

/// Why an `--expect` was refused (closed form).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpectRefusal {
    /// Not `KEY=VALUE`.
    Malformed,
    /// The key is not one of [`ExpectKey::ALL`].
    KeyUnknown,
    /// The value is empty.
    ValueEmpty,
    /// The value is longer than [`MAX_EXPECT_VALUE_BYTES`].
    ValueTooLong,
    /// An amount that is not ASCII digits.
    AmountNotDigits,
    /// The same key given twice.
    Repeated,
}

impl ExpectRefusal {
    /// The stable rule id.
    pub fn rule(self) -> &'static str {
        match self {
            Self::Malformed => "expect_malformed",
            Self::KeyUnknown => "expect_key_unknown",
            Self::ValueEmpty => "expect_value_empty",
            Self::ValueTooLong => "expect_value_too_long",
            Self::AmountNotDigits => "expect_amount_not_digits",
            Self::Repeated => "expect_repeated",
        }
    }

    /// Static text for the refusal; never carries the value given.
    pub fn message(self) -> &'static str {
        match self {
            Self::Malformed => "an --expect is not written KEY=VALUE",
            Self::KeyUnknown => {
                "an --expect key is not one of pay-to, amount, max-amount, network, asset"
            }
            Self::ValueEmpty => "an --expect value is empty",
            Self::ValueTooLong => "an --expect value is longer than 256 bytes",
            Self::AmountNotDigits => {
                "an --expect amount or max-amount is not base units: ASCII digits only"
            }
            Self::Repeated => "an --expect key is given more than once",
        }
    }
}

/// The value an expectation holds, in the form it is compared in.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Expected {
    /// Compared as written.
    Text(String),
    /// Base units: ASCII digits, leading zeros removed.
    Units(String),
    /// A network of the table, whatever name it was given by.
    Known(Network),
}

/// One expectation: a key and the value the caller expects.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Expectation {
    key: ExpectKey,
    value: Expected,
}

/// The caller's expectations, each key at most once, in the order given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expectations(Vec<Expectation>);

/// What one leg carries against one expectation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LegOutcome {
    /// The leg carries the field and it holds the expectation.
    Met,
    /// The leg carries the field and it does not.
    Unmet,
    /// The leg does not carry the field (or the leg itself is absent).
    Absent,
}

impl LegOutcome {
    /// The outcome as written in every output.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Met => "met",
            Self::Unmet => "unmet",
            Self::Absent => "absent",
        }
    }
}

/// One expectation against one fetch: each leg's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ExpectationResult {
    /// The expectation's key.
    pub key: ExpectKey,
    /// The fetch it was evaluated on: 1, or 1 and 2 for memo.
    pub fetch: usize,
    /// The body leg's outcome.
    pub body: LegOutcome,
    /// The `PAYMENT-REQUIRED` header leg's outcome.
    pub header: LegOutcome,
}

impl ExpectationResult {
    /// Both legs meet it.
    pub fn met(&self) -> bool {
        self.body == LegOutcome::Met && self.header == LegOutcome::Met
    }
}

/// Every expectation against every fetch: `met` when each result is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExpectationReport {
    /// Every result met.
    pub met: bool,
    /// Per expectation, per fetch, in the order given.
    pub results: Vec<ExpectationResult>,
}

/// Base units without leading zeros (`"0"` for zero).
fn units(digits: &str) -> String {
    let trimmed = digits.trim_start_matches('0');
    if trimmed.is_empty() { "0".to_owned() } else { trimmed.to_owned() }
}

/// A network name of the table, by its CAIP-2 identifier or its v1 name.
fn known_network(name: &str) -> Option<Network> {
    Network::from_caip2(name).or_else(|| Network::from_v1_name(name))
}

impl Expectation {
    /// One `KEY=VALUE`.
    fn parse(item: &str) -> Result<Self, ExpectRefusal> {
        let (name, value) = item.split_once('=').ok_or(ExpectRefusal::Malformed)?;
        let key = ExpectKey::parse(name).ok_or(ExpectRefusal::KeyUnknown)?;
        if value.is_empty() {
            return Err(ExpectRefusal::ValueEmpty);
        }
        if value.len() > MAX_EXPECT_VALUE_BYTES {
            return Err(ExpectRefusal::ValueTooLong);
        }
        let value = match key {
            ExpectKey::Amount | ExpectKey::MaxAmount => {
                if !value.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(ExpectRefusal::AmountNotDigits);
                }
                Expected::Units(units(value))
            }
            ExpectKey::Network => match known_network(value) {
                Some(network) => Expected::Known(network),
                None => Expected::Text(value.to_owned()),
            },
            ExpectKey::PayTo | ExpectKey::Asset => Expected::Text(value.to_owned()),
        };
        Ok(Self { key, value })
    }

    /// Whether a leg's field (present, as the rule reads it) holds this expectation.
    fn holds(&self, carried: &str) -> bool {
        match (&self.value, self.key) {
            (Expected::Units(expected), ExpectKey::MaxAmount) => {
                let carried = units(carried);
                (carried.len(), carried.as_str()) <= (expected.len(), expected.as_str())
            }
            (Expected::Units(expected), _) => units(carried) == *expected,
            (Expected::Known(network), _) => known_network(carried) == Some(*network),
            (Expected::Text(expected), _) => carried == expected,
        }
    }

    /// The outcome of one leg's field.
    fn outcome(&self, carried: Option<&str>) -> LegOutcome {
        match carried {
            None => LegOutcome::Absent,
            Some(carried) if self.holds(carried) => LegOutcome::Met,
            Some(_) => LegOutcome::Unmet,
        }
    }

    /// This expectation against one fetch's two legs.
    fn evaluate(&self, fetch: usize, outcome: &FetchOutcome) -> ExpectationResult {
        let body = BodyLeg::from_capture(outcome.capture());
        let header = HeaderLeg::from_capture(outcome.capture());
        let (in_body, in_header) = match self.key {
            ExpectKey::PayTo => (body.recipient(), header.pay_to()),
            ExpectKey::Amount | ExpectKey::MaxAmount => (body.amount(), header.amount()),
            ExpectKey::Network => (body.network(), header.network()),
            ExpectKey::Asset => (body.asset(), header.asset()),
        };
        ExpectationResult {
            key: self.key,
            fetch,
            body: self.outcome(in_body),
            header: self.outcome(in_header),
        }
    }
}

impl Expectations {
    /// Parses every `KEY=VALUE` given; a key given twice is refused.
    pub fn parse<S: AsRef<str>>(items: &[S]) -> Result<Self, ExpectRefusal> {
        let mut parsed: Vec<Expectation> = Vec::with_capacity(items.len());
        for item in items {
            let expectation = Expectation::parse(item.as_ref())?;
            if parsed.iter().any(|e| e.key == expectation.key) {
                return Err(ExpectRefusal::Repeated);
            }
            parsed.push(expectation);
        }
        Ok(Self(parsed))
    }

    /// No expectation was given.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every expectation against every fetch (one for check, two for memo), in that order.
    pub fn evaluate(&self, fetches: &[FetchOutcome]) -> ExpectationReport {
        let results: Vec<ExpectationResult> = self
            .0
            .iter()
            .flat_map(|e| fetches.iter().zip(1..).map(move |(outcome, n)| e.evaluate(n, outcome)))
            .collect();
        ExpectationReport { met: results.iter().all(ExpectationResult::met), results }
    }
}

#[cfg(test)]
mod tests {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;
    use serde_json::{Value, json};

    use super::*;
    use crate::capture::{Capture, CapturedBody, CapturedHeader};

    #[test]
    fn each_key_serialises_as_the_command_line_writes_it() {
        for key in ExpectKey::ALL {
            assert_eq!(serde_json::to_value(key).unwrap(), json!(key.as_str()));
        }
    }

    #[test]
    fn every_refusal_of_an_expectation_has_its_rule() {
        let long = format!("pay-to={}", "a".repeat(MAX_EXPECT_VALUE_BYTES + 1));
        let at_cap = format!("asset={}", "a".repeat(MAX_EXPECT_VALUE_BYTES));
        let vectors: [(&[&str], Option<ExpectRefusal>); 14] = [
            (&["pay-to"], Some(ExpectRefusal::Malformed)),
            (&["payTo=W"], Some(ExpectRefusal::KeyUnknown)),
            (&["PAY-TO=W"], Some(ExpectRefusal::KeyUnknown)),
            (&["=W"], Some(ExpectRefusal::KeyUnknown)),
            (&["pay-to="], Some(ExpectRefusal::ValueEmpty)),
            (&[long.as_str()], Some(ExpectRefusal::ValueTooLong)),
            (&[at_cap.as_str()], None),
            (&["amount=1.5"], Some(ExpectRefusal::AmountNotDigits)),
            (&["max-amount=+5"], Some(ExpectRefusal::AmountNotDigits)),
            (&["amount= 5"], Some(ExpectRefusal::AmountNotDigits)),
            (&["amount=5", "amount=5"], Some(ExpectRefusal::Repeated)),
            (&["pay-to=a=b", "network=eip155:8453"], None),
            (&["pay-to=W", "amount=10000", "max-amount=1", "network=solana", "asset=M"], None),
            (&[], None),
        ];
        for (items, refusal) in vectors {
            assert_eq!(Expectations::parse(items).err(), refusal, "{items:?}");
        }
        let keys = ExpectKey::ALL.map(ExpectKey::as_str).join(", ");
        assert!(ExpectRefusal::KeyUnknown.message().ends_with(&keys));
        for key in ExpectKey::ALL {
            assert_eq!(ExpectKey::parse(key.as_str()), Some(key));
            assert_eq!(serde_json::to_value(key).unwrap(), key.as_str());
        }
    }

    /// A capture whose body offer is `body` and whose header decodes to `header` (None: no
    /// header).
    fn captured(body: Value, header: Option<Value>) -> FetchOutcome {
        let header = header.map(|h| CapturedHeader::of(STANDARD.encode(h.to_string()).as_bytes()));
        let body = json!({"x402Version": 1, "accepts": [body]}).to_string().into_bytes();
        let capture =
            Capture { status: 402, payment_required: header, body: CapturedBody::Complete(body) };
        FetchOutcome::Captured(capture)
    }

    /// The v1 body offer and the v2 header of a Solana challenge.
    fn both_legs() -> (Value, Value) {
        let body = json!({"scheme": "exact", "network": "solana", "amount": "10000",
                          "payTo": "Wallet1", "asset": "Mint1"});
        let header = json!({"x402Version": 2, "accepts": [{"scheme": "exact",
            "network": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "amount": "010000",
            "payTo": "Wallet1", "asset": "Mint1"}]});
        (body, header)
    }

    /// An expectation, how the legs are edited, and each leg's outcome.
    type Vector = (&'static str, fn(&mut Value, &mut Value), LegOutcome, LegOutcome);

    #[test]
    fn each_key_is_met_unmet_or_absent_in_each_leg() {
        use LegOutcome::{Absent, Met, Unmet};
        let vectors: [Vector; 20] = [
            ("pay-to=Wallet1", |_, _| {}, Met, Met),
            ("pay-to=Wallet2", |_, _| {}, Unmet, Unmet),
            ("pay-to=Wallet1", |b, _| b["payTo"] = json!("Other"), Unmet, Met),
            ("pay-to=Wallet1", |_, h| h["accepts"][0]["payTo"] = json!(""), Met, Absent),
            ("pay-to=wallet1", |_, _| {}, Unmet, Unmet),
            ("amount=10000", |_, _| {}, Met, Met),
            ("amount=0010000", |_, _| {}, Met, Met),
            ("amount=9999", |_, _| {}, Unmet, Unmet),
            ("amount=10000", |b, _| b["amount"] = json!(10000), Absent, Met),
            ("max-amount=10000", |_, _| {}, Met, Met),
            ("max-amount=9999", |_, h| h["accepts"][0]["amount"] = json!("9999"), Unmet, Met),
            ("max-amount=100000", |b, _| b["amount"] = json!("99999"), Met, Met),
            ("max-amount=0", |_, _| {}, Unmet, Unmet),
            ("network=solana", |_, _| {}, Met, Met),
            ("network=solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", |_, _| {}, Met, Met),
            ("network=solana-devnet", |b, _| b["network"] = json!("solana-devnet"), Met, Unmet),
            ("network=eip155:8453", |_, h| h["accepts"][0]["network"] = json!(null), Unmet, Absent),
            ("asset=Mint1", |_, _| {}, Met, Met),
            ("asset=Mint1", |b, _| b["asset"] = json!("Mint2"), Unmet, Met),
            ("asset=Mint1", |_, h| h["accepts"] = json!([]), Met, Absent),
        ];
        for (item, edit, body, header) in vectors {
            let expectations = Expectations::parse(&[item]).unwrap();
            let (mut body_offer, mut header_doc) = both_legs();
            edit(&mut body_offer, &mut header_doc);
            let report = expectations.evaluate(&[captured(body_offer, Some(header_doc))]);
            let result = ExpectationResult { key: expectations.0[0].key, fetch: 1, body, header };
            assert_eq!(report.results, vec![result], "{item}");
            assert_eq!(report.met, body == Met && header == Met, "{item}");
        }
    }

    #[test]
    fn a_missing_leg_or_fetch_is_absent_and_memo_is_evaluated_per_fetch() {
        use LegOutcome::{Absent, Met};
        let expectations = Expectations::parse(&["pay-to=Wallet1", "asset=Mint1"]).unwrap();
        let (body, header) = both_legs();
        let fetches = [captured(body.clone(), Some(header)), captured(body, None)];
        let report = expectations.evaluate(&fetches);
        let got: Vec<(ExpectKey, usize, LegOutcome, LegOutcome)> =
            report.results.iter().map(|r| (r.key, r.fetch, r.body, r.header)).collect();
        assert_eq!(
            got,
            [
                (ExpectKey::PayTo, 1, Met, Met),
                (ExpectKey::PayTo, 2, Met, Absent),
                (ExpectKey::Asset, 1, Met, Met),
                (ExpectKey::Asset, 2, Met, Absent),
            ]
        );
        assert!(!report.met);
        for failed in [FetchOutcome::Failed, FetchOutcome::TimedOut] {
            let report = expectations.evaluate(&[failed]);
            assert!(report.results.iter().all(|r| r.body == Absent && r.header == Absent));
        }
        let none = Expectations::default().evaluate(&fetches);
        assert!(none.met && none.results.is_empty());
    }

    #[test]
    fn results_name_keys_and_outcomes_only() {
        let expectations = Expectations::parse(&["pay-to=Canary"]).unwrap();
        let (body, header) = both_legs();
        let report = expectations.evaluate(&[captured(body, Some(header))]);
        let shown = serde_json::to_string(&report).unwrap();
        assert_eq!(
            shown,
            r#"{"met":false,"results":[{"key":"pay-to","fetch":1,"body":"unmet","header":"unmet"}]}"#
        );
    }
}
