//! Property tests of the grading rules and the URL policy against small independent oracles.
//!
//! - Check and memo states: challenges are generated from a model (which fields each leg
//!   carries, and how: absent, empty, not a string, one of a few values), encoded as JSON and
//!   base64 the way sellers do, and graded. The oracle derives the factors from the model alone
//!   (never from the bytes) and the state from the specification's `state_rule` as written
//!   (`/work/shared/seeds/000_966b30822183bd0c.txt`, `corpus/INTERPRETATIONS.md` 3 to 15).
//! - A1 equality: null when neither leg carries the field, true when both carry it equal,
//!   false otherwise, for memo, amount and payTo (check) and the memo (memo op).
//! - The URL policy against the `url` crate's own parse: the refusal (or acceptance) follows
//!   from the parsed scheme, credentials and host, with the address classes restated from the
//!   standard library's classifiers.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use payability_core::capture::{
    Capture, CapturedBody, CapturedHeader, FetchOutcome, HEADER_CAP_BYTES,
};
use payability_core::grade::memo::{CompletionReason, FormatClass, FreshnessClass};
use payability_core::grade::{CheckState, MemoState, grade_check, grade_memo};
use payability_core::policy::{AddressRule, MAX_URL_BYTES, PolicyRefusal, vet_target_url};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

const URL: &str = "https://seller.example/api/weather";

// ---- The challenge model --------------------------------------------------------------------

/// How a string field is carried.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Field {
    Absent,
    Empty,
    /// A JSON number where a string belongs.
    Number,
    /// One of the pool's values.
    Value(usize),
}

impl Field {
    fn json(self, pool: &[&str]) -> Option<Value> {
        match self {
            Self::Absent => None,
            Self::Empty => Some(json!("")),
            Self::Number => Some(json!(10_000)),
            Self::Value(i) => Some(json!(pool[i % pool.len()])),
        }
    }

    /// The present value (interpretation 5), from the model.
    fn present<'a>(self, pool: &[&'a str]) -> Option<&'a str> {
        match self {
            Self::Value(i) => Some(pool[i % pool.len()]),
            _ => None,
        }
    }
}

fn field() -> impl Strategy<Value = Field> {
    prop_oneof![
        3 => Just(Field::Absent),
        1 => Just(Field::Empty),
        1 => Just(Field::Number),
        6 => (0usize..6).prop_map(Field::Value),
    ]
}

/// Amounts: digits only are present; "1.5", "+5", " 5" are not.
const AMOUNTS: [&str; 6] = ["10000", "10000", "9999", "1.5", "+5", " 5"];
const AMOUNTS_DIGITS: usize = 3;
const WALLETS: [&str; 3] = ["SeLLerWa11et9xQeWvG816bUx9EPjHmaT23yvVM2ZWb", "W2", "W3"];
const TOKENS: [&str; 2] = ["ATAaccount4Yh7DkqWq6bCpUSDCtoken8rTnGf2mXzK", "T2"];
/// Memos of every format class: prefixed-opaque, short, opaque.
const MEMOS: [&str; 6] = [
    "pvm_3f9a2b7c1d4e5f60",
    "pvm_0000aaaa",
    "abc",
    "pvmabcdefgh",
    "x-ab_日本語テキスト",
    "a_bcdefgh",
];
const RESOURCES: [&str; 3] =
    [URL, "https://seller.example/api/other", "https://SELLER.example/api/weather"];

fn amount_present(f: Field) -> Option<&'static str> {
    match f {
        Field::Value(i) if i % AMOUNTS.len() < AMOUNTS_DIGITS => Some(AMOUNTS[i % AMOUNTS.len()]),
        _ => None,
    }
}

fn amount_field() -> impl Strategy<Value = Field> {
    prop_oneof![2 => Just(Field::Absent), 1 => Just(Field::Empty), 1 => Just(Field::Number), 8 => (0usize..6).prop_map(Field::Value)]
}

/// `accepts[0].extra` of a leg.
#[derive(Debug, Clone)]
enum Extra {
    Absent,
    NotAnObject,
    Object { token: Field, memo: Field, fee_payer: bool },
}

fn extra() -> impl Strategy<Value = Extra> {
    prop_oneof![
        1 => Just(Extra::Absent),
        1 => Just(Extra::NotAnObject),
        6 => (field(), field(), any::<bool>())
            .prop_map(|(token, memo, fee_payer)| Extra::Object { token, memo, fee_payer }),
    ]
}

/// The body leg's `accepts[0]`.
#[derive(Debug, Clone)]
struct BodyOffer {
    pay_to: Field,
    amount: Field,
    max_amount: Field,
    resource: Field,
    description: Option<usize>,
    extra: Extra,
}

/// The JSON body.
#[derive(Debug, Clone)]
enum Body {
    NotJson,
    /// JSON, but no `accepts[0]` object (an array, `accepts` missing, empty or of strings).
    NoOffer(u8),
    Offer {
        offer: BodyOffer,
        top_memo: Field,
    },
}

fn body() -> impl Strategy<Value = Body> {
    let offer =
        (
            field(),
            amount_field(),
            amount_field(),
            field(),
            prop::option::of(0usize..1_200),
            extra(),
        )
            .prop_map(|(pay_to, amount, max_amount, resource, description, extra)| {
                BodyOffer { pay_to, amount, max_amount, resource, description, extra }
            });
    prop_oneof![
        1 => Just(Body::NotJson),
        1 => (0u8..4).prop_map(Body::NoOffer),
        8 => (offer, field()).prop_map(|(offer, top_memo)| Body::Offer { offer, top_memo }),
    ]
}

/// The decoded header's document.
#[derive(Debug, Clone)]
struct HeaderDoc {
    /// `resource`: None absent, Some(None) not an object, Some(Some(url field)).
    resource: Option<Option<Field>>,
    /// `accepts[0]` (None: no offer object).
    offer: Option<(Field, Field, Extra)>,
}

#[derive(Debug, Clone)]
enum Header {
    Absent,
    /// Present but not decodable (empty, bad base64, base64 of non-JSON, or a decodable
    /// document over the 16,384-byte header cap).
    Undecodable(u8),
    Doc {
        doc: HeaderDoc,
        spelling: u8,
    },
}

fn header() -> impl Strategy<Value = Header> {
    let doc = (
        prop::option::of(prop::option::of(field())),
        prop::option::of((field(), amount_field(), extra())),
    )
        .prop_map(|(resource, offer)| HeaderDoc { resource, offer });
    prop_oneof![
        1 => Just(Header::Absent),
        1 => (0u8..5).prop_map(Header::Undecodable),
        8 => (doc, 0u8..3).prop_map(|(doc, spelling)| Header::Doc { doc, spelling }),
    ]
}

/// A challenge whose legs agree (the shape of a payable seller's), then at most one field
/// changed, so the deeper rules (AMOUNTS-ONLY, UNCONFIGURED, POPULATED) are reached often;
/// or two legs drawn independently.
fn challenge() -> impl Strategy<Value = (Body, Header)> {
    let aligned = (0usize..3, 0usize..3, 0usize..5, any::<bool>(), 0u8..14).prop_map(
        |(wallet, amount, memo, max_too, change)| {
            let mut offer = BodyOffer {
                pay_to: Field::Value(wallet),
                amount: Field::Value(amount),
                max_amount: if max_too { Field::Value(amount) } else { Field::Absent },
                resource: Field::Value(0),
                description: Some(12),
                extra: Extra::Object {
                    token: Field::Value(0),
                    memo: Field::Value(memo),
                    fee_payer: true,
                },
            };
            let mut top_memo = Field::Absent;
            let mut header_offer = (
                Field::Value(wallet),
                Field::Value(amount),
                Extra::Object { token: Field::Absent, memo: Field::Value(memo), fee_payer: true },
            );
            let mut resource = Some(Some(Field::Value(0)));
            match change {
                0 => {}
                1 => offer.pay_to = Field::Absent,
                2 => {
                    offer.extra = Extra::Object {
                        token: Field::Empty,
                        memo: Field::Value(memo),
                        fee_payer: true,
                    }
                }
                3 => {
                    offer.extra = Extra::Object {
                        token: Field::Value(0),
                        memo: Field::Absent,
                        fee_payer: true,
                    };
                    top_memo = Field::Value(memo);
                }
                4 => {
                    // Amounts only: no recipient, token account or memo on the body leg.
                    offer.pay_to = Field::Absent;
                    offer.extra = Extra::Absent;
                    header_offer.0 = Field::Absent;
                    header_offer.2 = Extra::Absent;
                }
                5 => header_offer.1 = Field::Value(amount + 1),
                6 => header_offer.2 = Extra::Absent,
                7 => header_offer.0 = Field::Value(wallet + 1),
                8 => offer.max_amount = Field::Value(amount + 1),
                9 => offer.resource = Field::Absent,
                10 => resource = Some(Some(Field::Value(1))),
                11 => offer.amount = Field::Value(3),
                12 => resource = None,
                _ => offer.description = Some(501),
            }
            let header = Header::Doc {
                doc: HeaderDoc { resource, offer: Some(header_offer) },
                spelling: change % 3,
            };
            (Body::Offer { offer, top_memo }, header)
        },
    );
    prop_oneof![1 => (body(), header()), 1 => aligned]
}

/// How the fetch went.
#[derive(Debug, Clone, Copy)]
enum Fetch {
    Failed,
    TimedOut,
    Response { status: u16, over_cap: bool },
}

fn fetch() -> impl Strategy<Value = Fetch> {
    prop_oneof![
        1 => Just(Fetch::Failed),
        1 => Just(Fetch::TimedOut),
        12 => (prop_oneof![8 => Just(402u16), 1 => Just(200u16), 1 => Just(302u16), 1 => 100u16..600], prop::bool::weighted(0.1))
            .prop_map(|(status, over_cap)| Fetch::Response { status, over_cap }),
    ]
}

fn set(object: &mut Map<String, Value>, name: &str, value: Option<Value>) {
    if let Some(value) = value {
        object.insert(name.to_owned(), value);
    }
}

fn extra_json(extra: &Extra) -> Option<Value> {
    match extra {
        Extra::Absent => None,
        Extra::NotAnObject => Some(json!(["memo"])),
        Extra::Object { token, memo, fee_payer } => {
            let mut object = Map::new();
            set(&mut object, "usdc_token_account", token.json(&TOKENS));
            set(&mut object, "memo", memo.json(&MEMOS));
            if *fee_payer {
                object.insert(
                    "feePayer".into(),
                    json!("FeePayer2wJb8sVnq7TzGf5KcXhR3mDy9AuPpLtE6QaS"),
                );
            }
            Some(Value::Object(object))
        }
    }
}

impl Body {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Self::NotJson => b"{\"accepts\": [".to_vec(),
            Self::NoOffer(kind) => match kind {
                0 => b"[{\"payTo\": \"W2\"}]".to_vec(),
                1 => b"{\"x402Version\": 1, \"memo\": \"pvm_3f9a2b7c1d4e5f60\"}".to_vec(),
                2 => b"{\"accepts\": [], \"memo\": \"pvm_3f9a2b7c1d4e5f60\"}".to_vec(),
                _ => b"{\"accepts\": [\"exact\"], \"memo\": \"pvm_0000aaaa\"}".to_vec(),
            },
            Self::Offer { offer, top_memo } => {
                let mut o = Map::new();
                o.insert("scheme".into(), json!("exact"));
                set(&mut o, "payTo", offer.pay_to.json(&WALLETS));
                set(&mut o, "amount", offer.amount.json(&AMOUNTS));
                set(&mut o, "maxAmountRequired", offer.max_amount.json(&AMOUNTS));
                set(&mut o, "resource", offer.resource.json(&RESOURCES));
                if let Some(n) = offer.description {
                    o.insert("description".into(), json!("é".repeat(n)));
                }
                set(&mut o, "extra", extra_json(&offer.extra));
                let mut top = Map::new();
                top.insert("x402Version".into(), json!(1));
                top.insert("accepts".into(), json!([Value::Object(o)]));
                set(&mut top, "memo", top_memo.json(&MEMOS));
                serde_json::to_vec(&Value::Object(top)).unwrap()
            }
        }
    }

    fn offer(&self) -> Option<&BodyOffer> {
        match self {
            Self::Offer { offer, .. } => Some(offer),
            _ => None,
        }
    }

    /// Interpretation 3: extra.memo, falling back to the top-level memo, only with an offer.
    fn memo(&self) -> Option<&'static str> {
        let Self::Offer { offer, top_memo } = self else { return None };
        let own = match offer.extra {
            Extra::Object { memo, .. } => memo.present(&MEMOS),
            _ => None,
        };
        own.or_else(|| top_memo.present(&MEMOS))
    }
}

fn extra_memo(extra: &Extra) -> Option<Field> {
    match extra {
        Extra::Object { memo, .. } => Some(*memo),
        _ => None,
    }
}

fn extra_token(extra: &Extra) -> Option<Field> {
    match extra {
        Extra::Object { token, .. } => Some(*token),
        _ => None,
    }
}

impl Header {
    fn bytes(&self) -> Option<Vec<u8>> {
        match self {
            Self::Absent => None,
            Self::Undecodable(kind) => Some(match kind {
                0 => Vec::new(),
                1 => b"eyJ4NDAyVmVyc2lvbiI6Mn0-".to_vec(),
                2 => STANDARD.encode("{\"accepts\": [").into_bytes(),
                3 => b"Y".to_vec(),
                _ => {
                    let pad = "x".repeat(HEADER_CAP_BYTES);
                    STANDARD
                        .encode(json!({"accepts": [{"payTo": "W1", "pad": pad}]}).to_string())
                        .into_bytes()
                }
            }),
            Self::Doc { doc, spelling } => {
                let mut top = Map::new();
                top.insert("x402Version".into(), json!(2));
                match doc.resource {
                    None => {}
                    Some(None) => {
                        top.insert("resource".into(), json!(URL));
                    }
                    Some(Some(url)) => {
                        let mut resource = Map::new();
                        set(&mut resource, "url", url.json(&RESOURCES));
                        top.insert("resource".into(), Value::Object(resource));
                    }
                }
                if let Some((pay_to, amount, extra)) = &doc.offer {
                    let mut o = Map::new();
                    set(&mut o, "payTo", pay_to.json(&WALLETS));
                    set(&mut o, "amount", amount.json(&AMOUNTS));
                    set(&mut o, "extra", extra_json(extra));
                    top.insert("accepts".into(), json!([Value::Object(o)]));
                }
                let text = serde_json::to_vec(&Value::Object(top)).unwrap();
                Some(match spelling {
                    0 => STANDARD.encode(&text).into_bytes(),
                    1 => STANDARD_NO_PAD.encode(&text).into_bytes(),
                    _ => {
                        let encoded = STANDARD.encode(&text);
                        let chunks: Vec<&str> = encoded
                            .as_bytes()
                            .chunks(16)
                            .map(|c| std::str::from_utf8(c).unwrap())
                            .collect();
                        format!(" {}\r\n", chunks.join("\n\t")).into_bytes()
                    }
                })
            }
        }
    }

    fn doc(&self) -> Option<&HeaderDoc> {
        match self {
            Self::Doc { doc, .. } => Some(doc),
            _ => None,
        }
    }

    fn memo(&self) -> Option<&'static str> {
        self.doc()?.offer.as_ref().and_then(|(_, _, extra)| extra_memo(extra)?.present(&MEMOS))
    }

    fn amount(&self) -> Option<&'static str> {
        self.doc()?.offer.as_ref().and_then(|(_, amount, _)| amount_present(*amount))
    }

    fn pay_to(&self) -> Option<&'static str> {
        self.doc()?.offer.as_ref().and_then(|(pay_to, _, _)| pay_to.present(&WALLETS))
    }

    fn resource(&self) -> Option<&'static str> {
        match self.doc()?.resource {
            Some(Some(url)) => url.present(&RESOURCES),
            _ => None,
        }
    }
}

fn outcome(fetch: Fetch, body: &Body, header: &Header) -> FetchOutcome {
    match fetch {
        Fetch::Failed => FetchOutcome::Failed,
        Fetch::TimedOut => FetchOutcome::TimedOut,
        Fetch::Response { status, over_cap } => FetchOutcome::Captured(Capture {
            status,
            payment_required: header.bytes().map(|bytes| CapturedHeader::of(&bytes)),
            body: if over_cap {
                CapturedBody::OverCap
            } else {
                CapturedBody::Complete(body.bytes())
            },
        }),
    }
}

/// A1 equality.
fn a1(header: Option<&str>, body: Option<&str>) -> Option<bool> {
    match (header, body) {
        (None, None) => None,
        (Some(h), Some(b)) => Some(h == b),
        _ => Some(false),
    }
}

/// The check factors the oracle needs, from the model.
#[derive(Debug, PartialEq)]
struct Expected {
    state: CheckState,
    header_decodable: bool,
    recipient: bool,
    token: bool,
    memo: bool,
    amounts_present: bool,
    amounts_consistent: bool,
    resource_equal: Option<bool>,
    memo_equal: Option<bool>,
    amount_equal: Option<bool>,
    pay_to_equal: Option<bool>,
    description_length: Option<usize>,
}

fn expected_check(fetch: Fetch, body: &Body, header: &Header) -> Expected {
    let (captured, status, over_cap) = match fetch {
        Fetch::Response { status, over_cap } => (true, Some(status), over_cap),
        _ => (false, None, false),
    };
    let header_present = captured && !matches!(header, Header::Absent);
    let header_decodable = captured && matches!(header, Header::Doc { .. });
    // Over the cap, the body is absent: every body field is absent (interpretation 10).
    let kept = captured && !over_cap;
    let offer = body.offer().filter(|_| kept);
    let header = if captured { header.clone() } else { Header::Absent };
    let recipient = offer.and_then(|o| o.pay_to.present(&WALLETS));
    let token = offer.and_then(|o| extra_token(&o.extra)?.present(&TOKENS));
    let memo = if kept { body.memo() } else { None };
    let amount = offer.and_then(|o| amount_present(o.amount));
    let max = offer.and_then(|o| amount_present(o.max_amount));
    let resource = offer.and_then(|o| o.resource.present(&RESOURCES));
    let resources: Vec<&str> = [resource, header.resource()].into_iter().flatten().collect();
    let amounts_consistent = amount.is_some()
        && (max.is_none() || max == amount)
        && (header.amount().is_none() || header.amount() == amount);
    let resource_equal =
        if resources.is_empty() { None } else { Some(resources.iter().all(|r| *r == URL)) };
    let memo_equal = a1(header.memo(), memo);
    let amount_equal = a1(header.amount(), amount);
    let pay_to_equal = a1(header.pay_to(), recipient);
    let body_parseable = kept && !matches!(body, Body::NotJson);

    // The state rule as the specification writes it, first match wins.
    let state = if !captured || status != Some(402) || over_cap {
        CheckState::NotA402
    } else if resource_equal == Some(false) {
        CheckState::ResourceMismatch
    } else if !header_present || !header_decodable {
        CheckState::HeaderMissing
    } else if amounts_consistent && recipient.is_none() && token.is_none() && memo.is_none() {
        CheckState::AmountsOnly
    } else if !amounts_consistent
        || recipient.is_none()
        || token.is_none()
        || memo.is_none()
        || resource.is_none()
        || [memo_equal, amount_equal, pay_to_equal].contains(&Some(false))
        || !body_parseable
    {
        CheckState::Unconfigured
    } else {
        CheckState::Populated
    };
    Expected {
        state,
        header_decodable,
        recipient: recipient.is_some(),
        token: token.is_some(),
        memo: memo.is_some(),
        amounts_present: amount.is_some(),
        amounts_consistent,
        resource_equal,
        memo_equal,
        amount_equal,
        pay_to_equal,
        description_length: offer.and_then(|o| o.description),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4_000))]

    /// Check states (and the factors they are decided from) against the model's oracle.
    #[test]
    fn check_states_follow_the_state_rule(fetch in fetch(), (body, header) in challenge()) {
        let graded = grade_check(URL, &outcome(fetch, &body, &header));
        let f = &graded.factors;
        let got = Expected {
            state: graded.state,
            header_decodable: f.header_decodable,
            recipient: f.recipient_present,
            token: f.token_account_present,
            memo: f.memo_present,
            amounts_present: f.amounts_present,
            amounts_consistent: f.amounts_consistent,
            resource_equal: f.resource_equal,
            memo_equal: f.memo_equal,
            amount_equal: f.amount_equal,
            pay_to_equal: f.pay_to_equal,
            description_length: f.description_length,
        };
        prop_assert_eq!(got, expected_check(fetch, &body, &header));
        prop_assert_eq!(f.description_overlong, f.description_length.is_some_and(|n| n > 500));
    }

    /// A1 equality for memo, amount and payTo: the legs carry each field or not, equal or not.
    #[test]
    fn a1_equality_is_null_true_or_false(
        legs in prop::collection::vec((prop::option::of(0usize..2), prop::option::of(0usize..2)), 3),
    ) {
        let pick = |pool: &[&'static str], i: Option<usize>| i.map(|i| pool[i]);
        let (memo, amount, pay_to) = (legs[0], legs[1], legs[2]);
        let memos = ["pvm_3f9a2b7c1d4e5f60", "pvm_0000aaaa"];
        let amounts = ["10000", "9999"];
        let wallets = ["W1", "W2"];
        let mut extra = Map::new();
        set(&mut extra, "memo", pick(&memos, memo.1).map(|m| json!(m)));
        extra.insert("usdc_token_account".into(), json!("T"));
        let mut offer = Map::new();
        offer.insert("extra".into(), Value::Object(extra));
        set(&mut offer, "amount", pick(&amounts, amount.1).map(|a| json!(a)));
        set(&mut offer, "payTo", pick(&wallets, pay_to.1).map(|p| json!(p)));
        offer.insert("resource".into(), json!(URL));
        let body = json!({"accepts": [offer]}).to_string();
        let mut header_offer = Map::new();
        set(&mut header_offer, "amount", pick(&amounts, amount.0).map(|a| json!(a)));
        set(&mut header_offer, "payTo", pick(&wallets, pay_to.0).map(|p| json!(p)));
        header_offer.insert("extra".into(), json!(pick(&memos, memo.0).map_or(json!({}), |m| json!({"memo": m}))));
        let header = STANDARD.encode(json!({"accepts": [header_offer]}).to_string());
        let capture = |memo_header: bool| FetchOutcome::Captured(Capture {
            status: 402,
            payment_required: memo_header.then(|| CapturedHeader::of(header.as_bytes())),
            body: CapturedBody::Complete(body.clone().into_bytes()),
        });
        let graded = grade_check(URL, &capture(true));
        let want = |(h, b): (Option<usize>, Option<usize>)| match (h, b) {
            (None, None) => None,
            (Some(h), Some(b)) => Some(h == b),
            _ => Some(false),
        };
        prop_assert_eq!(graded.factors.memo_equal, want(memo));
        prop_assert_eq!(graded.factors.amount_equal, want(amount));
        prop_assert_eq!(graded.factors.pay_to_equal, want(pay_to));
        // The memo op uses the same semantics per fetch; without a header, only the body leg
        // can carry the memo.
        let memo_graded = grade_memo(&capture(true), &capture(false));
        prop_assert_eq!(memo_graded.factors.memo_equality_fetch1, want(memo));
        prop_assert_eq!(memo_graded.factors.memo_equality_fetch2, want((None, memo.1)));
    }
}

// ---- Memo states ----------------------------------------------------------------------------

/// One fetch of a memo check: how it went, the body memo (in extra, or top level) and the
/// header memo.
#[derive(Debug, Clone)]
struct MemoFetch {
    fetch: Fetch,
    offer: bool,
    extra_memo: Field,
    top_memo: Field,
    header: Option<Field>,
}

fn memo_fetch() -> impl Strategy<Value = MemoFetch> {
    (fetch(), prop::bool::weighted(0.9), field(), field(), prop::option::weighted(0.8, field()))
        .prop_map(|(fetch, offer, extra_memo, top_memo, header)| MemoFetch {
            fetch,
            offer,
            extra_memo,
            top_memo,
            header,
        })
}

/// Two fetches: drawn independently, or a seller's pair (memos from two values, so reuse is
/// common; each header leg echoing the body memo, carrying none, or another).
fn memo_pair() -> impl Strategy<Value = (MemoFetch, MemoFetch)> {
    let one = |memo: usize, header: u8, at_402: bool| MemoFetch {
        fetch: Fetch::Response { status: if at_402 { 402 } else { 200 }, over_cap: false },
        offer: true,
        extra_memo: Field::Value(memo),
        top_memo: Field::Absent,
        header: Some(match header {
            0 | 1 => Field::Value(memo),
            2 => Field::Absent,
            _ => Field::Value(memo + 1),
        }),
    };
    let seller = (0usize..2, 0usize..2, 0u8..4, 0u8..4, prop::bool::weighted(0.95))
        .prop_map(move |(m1, m2, h1, h2, at_402)| (one(m1, h1, at_402), one(m2, h2, true)));
    prop_oneof![(memo_fetch(), memo_fetch()), seller]
}

impl MemoFetch {
    fn outcome(&self) -> FetchOutcome {
        let body = if self.offer {
            Body::Offer {
                offer: BodyOffer {
                    pay_to: Field::Value(0),
                    amount: Field::Value(0),
                    max_amount: Field::Absent,
                    resource: Field::Value(0),
                    description: None,
                    extra: Extra::Object {
                        token: Field::Value(0),
                        memo: self.extra_memo,
                        fee_payer: true,
                    },
                },
                top_memo: self.top_memo,
            }
        } else {
            Body::NoOffer(1)
        };
        let header = match self.header {
            None => Header::Absent,
            Some(memo) => Header::Doc {
                doc: HeaderDoc {
                    resource: None,
                    offer: Some((
                        Field::Value(0),
                        Field::Value(0),
                        Extra::Object { token: Field::Absent, memo, fee_payer: false },
                    )),
                },
                spelling: 0,
            },
        };
        outcome(self.fetch, &body, &header)
    }

    fn graded_ok(&self) -> bool {
        matches!(self.fetch, Fetch::Response { status: 402, over_cap: false })
    }

    fn body_memo(&self) -> Option<&'static str> {
        let kept = matches!(self.fetch, Fetch::Response { over_cap: false, .. });
        if !kept || !self.offer {
            return None;
        }
        self.extra_memo.present(&MEMOS).or_else(|| self.top_memo.present(&MEMOS))
    }

    fn header_memo(&self) -> Option<&'static str> {
        matches!(self.fetch, Fetch::Response { .. }).then_some(())?;
        self.header?.present(&MEMOS)
    }
}

/// The memo format class of the pool's values, as interpretation 13 classes them.
fn memo_class(memo: Option<&str>) -> FormatClass {
    match memo {
        None => FormatClass::Absent,
        Some("pvm_3f9a2b7c1d4e5f60" | "pvm_0000aaaa") => FormatClass::PrefixedOpaque,
        Some("abc") => FormatClass::Short,
        Some(_) => FormatClass::Opaque,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4_000))]

    /// Memo states, completion reasons, uniqueness, freshness and format classes against the
    /// memo `state_rule` as written.
    #[test]
    fn memo_states_follow_the_state_rule((first, second) in memo_pair()) {
        let graded = grade_memo(&first.outcome(), &second.outcome());
        let body = [first.body_memo(), second.body_memo()];
        let header = [first.header_memo(), second.header_memo()];
        let eq = [a1(header[0], body[0]), a1(header[1], body[1])];
        let (state, reason) = if !(first.graded_ok() && second.graded_ok()) {
            (MemoState::NotA402, None)
        } else if body == [None, None] {
            (MemoState::MemoAbsent, None)
        } else if eq[0] == Some(false) || eq[1] == Some(false) {
            (MemoState::LegMismatch, None)
        } else if body[0].is_some() && body[0] == body[1] {
            (MemoState::MemoReused, None)
        } else if body[0].is_some() && body[1].is_some() && eq == [Some(true); 2] {
            (MemoState::Bound, None)
        } else if body[0].is_some() != body[1].is_some() {
            (MemoState::MemoAbsent, Some(CompletionReason::MemoAbsentOneFetch))
        } else {
            (MemoState::LegMismatch, Some(CompletionReason::MemoBindingNotEstablished))
        };
        prop_assert_eq!(graded.state, state);
        prop_assert_eq!(graded.factors.reason, reason);
        prop_assert_eq!(graded.factors.memo_equality_fetch1, eq[0]);
        prop_assert_eq!(graded.factors.memo_equality_fetch2, eq[1]);
        let unique = |pair: [Option<&str>; 2]| Some(pair[0]? != pair[1]?);
        let fresh = |pair: [Option<&str>; 2]| match unique(pair) {
            Some(true) => FreshnessClass::Regenerated,
            Some(false) => FreshnessClass::Static,
            None => FreshnessClass::NotGradable,
        };
        prop_assert_eq!(graded.factors.body_memos_unique, unique(body));
        prop_assert_eq!(graded.factors.header_memos_unique, unique(header));
        prop_assert_eq!(graded.factors.body_freshness_class, fresh(body));
        prop_assert_eq!(graded.factors.header_freshness_class, fresh(header));
        prop_assert_eq!(graded.factors.body_memo_format_fetch1, memo_class(body[0]));
        prop_assert_eq!(graded.factors.body_memo_format_fetch2, memo_class(body[1]));
        prop_assert_eq!(graded.factors.header_memo_format_fetch1, memo_class(header[0]));
        prop_assert_eq!(graded.factors.header_memo_format_fetch2, memo_class(header[1]));
        // The completion rule `memo_binding_not_established` is unreachable under A1
        // (interpretation 14): a present body memo makes equality true or false.
        prop_assert_ne!(graded.factors.reason, Some(CompletionReason::MemoBindingNotEstablished));
    }
}

// ---- URL policy against the url crate's parse ----------------------------------------------

/// Public unicast, restated from the standard library's classifiers and the IANA registries
/// (the ranges `std` has no stable method for are spelled out).
fn public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_documentation()
        || ip.is_multicast()
        || a == 0
        || (a == 100 && (b & 0xc0) == 64)
        || (a, b, c) == (192, 0, 0)
        || (a, b, c) == (192, 88, 99)
        || (a == 198 && (b & 0xfe) == 18)
        || a >= 240)
}

fn public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    let embedded =
        |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    if let Some(v4) = ip.to_ipv4_mapped() {
        return public_v4(v4);
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return public_v4(embedded(s[6], s[7]));
    }
    if s[0] == 0x2002 {
        return public_v4(embedded(s[1], s[2]));
    }
    (s[0] & 0xe000) == 0x2000
        && !(s[0] == 0x2001 && s[1] < 0x0200)
        && !(s[0] == 0x2001 && s[1] == 0x0db8)
        && !(s[0] == 0x3fff && s[1] < 0x1000)
}

/// The policy's answer, derived from the url crate's parse of the same text.
fn expected_policy(text: &str) -> Result<String, PolicyRefusal> {
    if text.len() > MAX_URL_BYTES {
        return Err(PolicyRefusal::UrlTooLong);
    }
    let parsed = url::Url::parse(text);
    let http = parsed.as_ref().is_ok_and(|u| ["http", "https"].contains(&u.scheme()));
    if !text.contains("://") && !http {
        return Err(PolicyRefusal::SchemeMissing);
    }
    let url = parsed.map_err(|_| PolicyRefusal::UrlUnparseable)?;
    if url.as_str().len() > MAX_URL_BYTES {
        return Err(PolicyRefusal::UrlTooLong);
    }
    if !http {
        return Err(PolicyRefusal::SchemeNotHttp);
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(PolicyRefusal::CredentialsInUrl);
    }
    if url.fragment().is_some() {
        return Err(PolicyRefusal::FragmentInUrl);
    }
    let public = match url.host() {
        Some(url::Host::Ipv4(ip)) => public_v4(ip),
        Some(url::Host::Ipv6(ip)) => public_v6(ip),
        Some(url::Host::Domain(name)) => {
            let labels: Vec<&str> = name.split('.').filter(|l| !l.is_empty()).collect();
            labels.last() != Some(&"localhost")
        }
        None => return Err(PolicyRefusal::UrlUnparseable),
    };
    if public { Ok(url.as_str().to_owned()) } else { Err(PolicyRefusal::AddressNotPublic) }
}

fn submitted_url() -> impl Strategy<Value = String> {
    let scheme = prop::sample::select(vec![
        "http",
        "https",
        "HTTPS",
        "ftp",
        "file",
        "ws",
        "javascript",
        "data",
        "h ttp",
    ]);
    let userinfo = prop::sample::select(vec!["", "", "", "u@", ":p@", "u:p@", "@", ":@", "%75@"]);
    let v4 = (any::<[u8; 4]>(), 0u8..5).prop_map(|(o, form)| {
        let n = u32::from_be_bytes(o);
        match form {
            0 => format!("{}.{}.{}.{}", o[0], o[1], o[2], o[3]),
            1 => n.to_string(),
            2 => format!("0x{n:x}"),
            3 => format!("0{:o}.{}.{}", o[0], o[1], u16::from_be_bytes([o[2], o[3]])),
            _ => format!("{}.{}.", o[0], (n & 0x00ff_ffff)),
        }
    });
    let special_v4 = prop::sample::select(vec![
        [127u8, 0, 0, 1],
        [10, 1, 2, 3],
        [100, 64, 0, 1],
        [100, 127, 255, 255],
        [100, 128, 0, 0],
        [169, 254, 169, 254],
        [172, 16, 0, 1],
        [172, 32, 0, 1],
        [192, 0, 0, 8],
        [192, 0, 2, 1],
        [192, 88, 99, 1],
        [192, 168, 0, 1],
        [198, 18, 0, 1],
        [198, 20, 0, 1],
        [198, 51, 100, 1],
        [203, 0, 113, 1],
        [224, 0, 0, 1],
        [240, 0, 0, 1],
        [255, 255, 255, 255],
        [0, 1, 2, 3],
        [8, 8, 8, 8],
        [1, 1, 1, 1],
    ])
    .prop_map(|o| format!("{}.{}.{}.{}", o[0], o[1], o[2], o[3]));
    let v6 = (any::<[u16; 8]>(), 0u8..6).prop_map(|(s, form)| {
        let ip = match form {
            0 => Ipv6Addr::from(s),
            1 => Ipv4Addr::from((u32::from(s[0]) << 16) | u32::from(s[1])).to_ipv6_mapped(),
            2 => Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, s[6], s[7]),
            3 => Ipv6Addr::new(0x2002, s[1], s[2], s[3], 0, 0, 0, 1),
            4 => Ipv6Addr::new(0x2000 | (s[0] & 0x1fff), s[1], s[2], 0, 0, 0, 0, s[7]),
            _ => Ipv6Addr::new(0xfe80 | (s[0] & 0x003f), 0, 0, 0, 0, 0, 0, s[7]),
        };
        format!("[{ip}]")
    });
    let special_v6 = prop::sample::select(vec![
        "[::1]",
        "[::]",
        "[::ffff:127.0.0.1]",
        "[::127.0.0.1]",
        "[fd00::1]",
        "[fe80::1]",
        "[ff02::1]",
        "[2001::1]",
        "[2001:1ff::1]",
        "[2001:200::1]",
        "[2001:db8::1]",
        "[3fff::1]",
        "[3fff:1000::1]",
        "[2606:4700::1111]",
        "[64:ff9b::808:808]",
        "[64:ff9b::a00:1]",
        "[2002:808:808::1]",
        "[2002:7f00:1::]",
    ])
    .prop_map(str::to_owned);
    let name = prop::sample::select(vec![
        "seller.example",
        "Seller.Example.",
        "localhost",
        "LOCALHOST.",
        "api.localhost",
        "localhost.example",
        "xn--bcher-kva.example",
        "bücher.example",
        "exa mple.com",
        "a..b",
        "1.2.3.4.5",
        "0x7f.1",
        "example.0x1",
        "%6c%6f%63%61%6c%68%6f%73%74",
        "a.localhost..",
        "",
    ])
    .prop_map(str::to_owned);
    let host = prop_oneof![2 => v4, 2 => special_v4, 2 => v6, 1 => special_v6, 3 => name];
    let port = prop::sample::select(vec!["", "", ":80", ":443", ":0", ":65535", ":65536", ":x"]);
    let path = prop::sample::select(vec![
        "",
        "/",
        "/api?q=1#f",
        "/a/../b",
        "/%2e%2e/x",
        "\\x",
        "/api?q=1",
        "/x#",
        "#",
    ]);
    // Mostly `://`; sometimes `:` alone or nothing (`host:port/path`, a bare host).
    let separator = prop::sample::select(vec!["://", "://", "://", "://", ":", ""]);
    (scheme, separator, userinfo, host, port, path, 0usize..3).prop_map(
        |(scheme, separator, userinfo, host, port, path, pad)| {
            let long = "/p".repeat(1_100);
            let padding = ["", "/a", long.as_str()][pad];
            format!("{scheme}{separator}{userinfo}{host}{port}{path}{padding}")
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6_000))]

    /// The policy's answer follows from the url crate's parse: scheme, credentials and host
    /// classes agree, and an accepted URL is the parser's serialisation.
    #[test]
    fn url_policy_agrees_with_the_url_crate(text in submitted_url()) {
        let got = vet_target_url(&text, AddressRule::PublicOnly).map(|t| t.as_str().to_owned());
        prop_assert_eq!(got, expected_policy(&text), "{}", text);
        // The override lifts the address rule and nothing else.
        let private = vet_target_url(&text, AddressRule::AllowPrivate).map(|t| t.as_str().to_owned());
        match expected_policy(&text) {
            Err(PolicyRefusal::AddressNotPublic) => prop_assert!(private.is_ok()),
            want => prop_assert_eq!(private, want),
        }
    }

    /// Every IP literal, in every form, is classified as the standard library restatement says.
    #[test]
    fn ip_literals_are_classified_like_the_restatement(ip in any::<u128>(), v4 in any::<u32>()) {
        let v6 = Ipv6Addr::from(ip);
        prop_assert_eq!(payability_core::policy::is_public_ip(IpAddr::V6(v6)), public_v6(v6));
        let v4 = Ipv4Addr::from(v4);
        prop_assert_eq!(payability_core::policy::is_public_ip(IpAddr::V4(v4)), public_v4(v4));
        let text = format!("http://{v4}/");
        prop_assert_eq!(vet_target_url(&text, AddressRule::PublicOnly).is_ok(), public_v4(v4));
    }
}

/// The generators are strong enough: sampled, they reach every check state, every memo state
/// (both completion rules' precondition included), and every policy refusal.
#[test]
fn generators_reach_every_state_and_refusal() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use std::collections::BTreeSet;

    let mut runner = TestRunner::deterministic();
    let mut check = BTreeSet::new();
    let mut memo = BTreeSet::new();
    let mut refusals = BTreeSet::new();
    for _ in 0..4_000 {
        let (fetch, (body, header)) =
            (fetch(), challenge()).new_tree(&mut runner).unwrap().current();
        check.insert(grade_check(URL, &outcome(fetch, &body, &header)).state.as_str());
        let pair = memo_pair().new_tree(&mut runner).unwrap().current();
        let graded = grade_memo(&pair.0.outcome(), &pair.1.outcome());
        memo.insert(format!("{}{:?}", graded.state.as_str(), graded.factors.reason));
        let text = submitted_url().new_tree(&mut runner).unwrap().current();
        refusals.insert(match vet_target_url(&text, AddressRule::PublicOnly) {
            Ok(_) => "accepted",
            Err(refusal) => refusal.rule(),
        });
    }
    assert_eq!(check.len(), 6, "{check:?}");
    for state in ["BOUND", "MEMO-REUSED", "LEG-MISMATCH", "MEMO-ABSENT", "NOT-A-402"] {
        assert!(memo.contains(&format!("{state}None")), "{state}: {memo:?}");
    }
    assert!(memo.contains("MEMO-ABSENTSome(MemoAbsentOneFetch)"), "{memo:?}");
    assert_eq!(refusals.len(), PolicyRefusal::ALL.len() + 1, "{refusals:?}");
}
