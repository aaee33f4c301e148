//! Independent restatements of the published rules (`corpus/INTERPRETATIONS.md`, the
//! specification's `state_rule`), written from the text and not from the core's code, that the
//! targets compare the core's answers with.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use payability_core::capture::{CapturedBody, CapturedHeader, FetchOutcome};
use payability_core::grade::check::{CheckFactors, NotA402Reason};
use payability_core::grade::memo::{
    CompletionReason, CorrelationCensus, FetchFactors, FormatClass, FreshnessClass, LegCensus,
    MemoFactors, MemoState,
};
use payability_core::grade::{CheckState, DecidedBy, DecidingFactor, FactorValue};
use serde_json::{Map, Value};

/// WHATWG forgiving-base64 decode, step by step as the Infra standard writes it
/// (interpretation 4), with its own bit buffer.
pub fn forgiving_base64(input: &[u8]) -> Option<Vec<u8>> {
    let mut data: Vec<u8> =
        input.iter().copied().filter(|b| ![b'\t', b'\n', 0x0c, b'\r', b' '].contains(b)).collect();
    if data.len().is_multiple_of(4) {
        if data.ends_with(b"==") {
            data.truncate(data.len() - 2);
        } else if data.ends_with(b"=") {
            data.truncate(data.len() - 1);
        }
    }
    if data.len() % 4 == 1 {
        return None;
    }
    let mut output = Vec::with_capacity(data.len() / 4 * 3 + 2);
    let mut buffer: u32 = 0;
    let mut bits = 0;
    for &c in &data {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        buffer = (buffer << 6) | u32::from(value);
        bits += 6;
        if bits == 24 {
            output.extend([(buffer >> 16) as u8, (buffer >> 8) as u8, buffer as u8]);
            buffer = 0;
            bits = 0;
        }
    }
    match bits {
        12 => output.push((buffer >> 4) as u8),
        18 => output.extend([(buffer >> 10) as u8, (buffer >> 2) as u8]),
        _ => {}
    }
    Some(output)
}

/// Interpretation 2: serde_json's own limits are the published ones.
pub fn json(bytes: &[u8]) -> Option<Value> {
    serde_json::from_slice(bytes).ok()
}

/// Interpretation 5: a non-empty JSON string.
fn present(value: Option<&Value>) -> Option<&str> {
    value.and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// Interpretation 5: a JSON string of one or more ASCII digits.
fn amount(value: Option<&Value>) -> Option<&str> {
    present(value).filter(|s| s.chars().all(|c| c.is_ascii_digit()))
}

/// Interpretations 3 and 4: `accepts[0]` when the document is an object, `accepts` a
/// non-empty array and its first item an object.
fn offer(document: Option<&Value>) -> Option<&Map<String, Value>> {
    let Some(Value::Object(top)) = document else { return None };
    let Some(Value::Array(accepts)) = top.get("accepts") else { return None };
    match accepts.first() {
        Some(Value::Object(first)) => Some(first),
        _ => None,
    }
}

fn extra<'a>(offer: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    match offer.get("extra") {
        Some(Value::Object(extra)) => extra.get(name),
        _ => None,
    }
}

/// The fields of both legs of one capture, read from the documents.
#[derive(Debug, Default)]
pub struct Legs {
    pub body_document: Option<Value>,
    pub header_present: bool,
    pub header_over_cap: bool,
    pub header_document: Option<Value>,
}

impl Legs {
    /// Decodes both legs of a fetch outcome (interpretations 2, 4 and 10).
    pub fn of(outcome: &FetchOutcome) -> Self {
        let FetchOutcome::Captured(capture) = outcome else { return Self::default() };
        let body_document = match &capture.body {
            CapturedBody::Complete(bytes) => json(bytes),
            CapturedBody::OverCap => None,
        };
        let (header_over_cap, header_document) = match &capture.payment_required {
            None => (false, None),
            Some(CapturedHeader::OverCap) => (true, None),
            Some(CapturedHeader::Complete(raw)) => {
                (false, forgiving_base64(raw).and_then(|b| json(&b)))
            }
        };
        let header_present = capture.payment_required.is_some();
        Self { body_document, header_present, header_over_cap, header_document }
    }

    fn body_offer(&self) -> Option<&Map<String, Value>> {
        offer(self.body_document.as_ref())
    }

    fn header_offer(&self) -> Option<&Map<String, Value>> {
        offer(self.header_document.as_ref())
    }

    pub fn body_memo(&self) -> Option<&str> {
        let offer = self.body_offer()?;
        present(extra(offer, "memo")).or_else(|| present(self.body_document.as_ref()?.get("memo")))
    }

    pub fn header_memo(&self) -> Option<&str> {
        present(extra(self.header_offer()?, "memo"))
    }

    fn census(offer: Option<&Map<String, Value>>) -> Vec<String> {
        let Some(offer) = offer else { return Vec::new() };
        let mut names: Vec<String> = offer.keys().cloned().collect();
        if let Some(Value::Object(extra)) = offer.get("extra") {
            names.extend(extra.keys().cloned());
        }
        names.sort_by(|a, b| a.chars().cmp(b.chars()));
        names.dedup();
        names
    }
}

/// Interpretation 6.
pub fn equality(header: Option<&str>, body: Option<&str>) -> Option<bool> {
    match (header, body) {
        (None, None) => None,
        (Some(h), Some(b)) => Some(h == b),
        (Some(_), None) | (None, Some(_)) => Some(false),
    }
}

/// Every check factor of one fetch of `called_url`, from interpretations 3 to 11.
pub fn check_factors(called_url: &str, outcome: &FetchOutcome) -> CheckFactors {
    let legs = Legs::of(outcome);
    let capture = match outcome {
        FetchOutcome::Captured(capture) => Some(capture),
        _ => None,
    };
    let over_cap = capture.is_some_and(|c| matches!(c.body, CapturedBody::OverCap));
    let reason = match outcome {
        FetchOutcome::Failed => Some(NotA402Reason::FetchFailed),
        FetchOutcome::TimedOut => Some(NotA402Reason::Timeout),
        FetchOutcome::Captured(c) if c.status != 402 => Some(NotA402Reason::StatusNot402),
        FetchOutcome::Captured(_) if over_cap => Some(NotA402Reason::BodyOverCap),
        FetchOutcome::Captured(_) => None,
    };
    let body = legs.body_offer();
    let header = legs.header_offer();
    let recipient = body.and_then(|o| present(o.get("payTo")));
    let token = body.and_then(|o| present(extra(o, "usdc_token_account")));
    let memo = legs.body_memo();
    let body_amount = body.and_then(|o| amount(o.get("amount")));
    let max_amount = body.and_then(|o| amount(o.get("maxAmountRequired")));
    let body_resource = body.and_then(|o| present(o.get("resource")));
    let header_resource = match legs.header_document.as_ref().and_then(|d| d.get("resource")) {
        Some(Value::Object(resource)) => present(resource.get("url")),
        _ => None,
    };
    let header_amount = header.and_then(|o| amount(o.get("amount")));
    let header_pay_to = header.and_then(|o| present(o.get("payTo")));
    let description_length =
        body.and_then(|o| o.get("description")).and_then(Value::as_str).map(|s| s.chars().count());
    let present_resources: Vec<&str> =
        [body_resource, header_resource].into_iter().flatten().collect();
    CheckFactors {
        fetch_ok: capture.is_some(),
        status: capture.map(|c| c.status),
        body_over_cap: over_cap,
        reason,
        body_parseable: legs.body_document.is_some(),
        body_leg_present: body.is_some(),
        header_present: legs.header_present,
        header_over_cap: legs.header_over_cap,
        header_decodable: legs.header_document.is_some(),
        recipient_present: recipient.is_some(),
        token_account_present: token.is_some(),
        memo_present: memo.is_some(),
        amounts_present: body_amount.is_some(),
        amounts_consistent: body_amount.is_some()
            && (max_amount.is_none() || max_amount == body_amount)
            && (header_amount.is_none() || header_amount == body_amount),
        resource_present: body_resource.is_some(),
        resource_equal: if present_resources.is_empty() {
            None
        } else {
            Some(present_resources.iter().all(|r| *r == called_url))
        },
        memo_equal: equality(legs.header_memo(), memo),
        amount_equal: equality(header_amount, body_amount),
        pay_to_equal: equality(header_pay_to, recipient),
        description_overlong: description_length.is_some_and(|n| n > 500),
        description_length,
    }
}

/// The check state rule (specification `state_rule`, interpretation 12), first match wins.
pub fn check_state(f: &CheckFactors) -> CheckState {
    if !f.fetch_ok || f.status != Some(402) || f.body_over_cap {
        CheckState::NotA402
    } else if f.resource_equal == Some(false) {
        CheckState::ResourceMismatch
    } else if !(f.header_present && f.header_decodable) {
        CheckState::HeaderMissing
    } else if f.amounts_consistent
        && !(f.recipient_present || f.token_account_present || f.memo_present)
    {
        CheckState::AmountsOnly
    } else if !f.amounts_consistent
        || !f.recipient_present
        || !f.token_account_present
        || !f.memo_present
        || !f.resource_present
        || [f.memo_equal, f.amount_equal, f.pay_to_equal].contains(&Some(false))
        || !f.body_parseable
    {
        CheckState::Unconfigured
    } else {
        CheckState::Populated
    }
}

/// The deciding factors of interpretation 19, gathered as each step's conditions are read.
#[derive(Default)]
struct Listed(Vec<DecidingFactor>);

impl Listed {
    /// Lists `factor` (of `fetch`, for memo) with its printed value when `holds`.
    fn when(&mut self, holds: bool, factor: &'static str, fetch: Option<u8>, value: FactorValue) {
        if holds {
            self.0.push(DecidingFactor { factor, fetch, value });
        }
    }
}

fn flag(value: bool) -> FactorValue {
    FactorValue::Flag(value)
}

fn tri(value: Option<bool>) -> FactorValue {
    value.map_or(FactorValue::Null, FactorValue::Flag)
}

/// Interpretation 19 for a check: the step that gives `state`, and the factors meeting that
/// step's conditions in factor order.
pub fn check_decided_by(state: CheckState, f: &CheckFactors) -> DecidedBy {
    let mut l = Listed::default();
    let step = match state {
        CheckState::NotA402 => {
            l.when(!f.fetch_ok, "fetch_ok", None, flag(false));
            let status = f.status.map_or(FactorValue::Null, FactorValue::Status);
            l.when(f.status != Some(402), "status", None, status);
            l.when(f.body_over_cap, "body_over_cap", None, flag(true));
            1
        }
        CheckState::ResourceMismatch => {
            l.when(true, "resource_equal", None, flag(false));
            2
        }
        CheckState::HeaderMissing => {
            l.when(!f.header_present, "header_present", None, flag(false));
            l.when(f.header_over_cap, "header_over_cap", None, flag(true));
            l.when(!f.header_decodable, "header_decodable", None, flag(false));
            3
        }
        CheckState::AmountsOnly => {
            for name in ["recipient_present", "token_account_present", "memo_present"] {
                l.when(true, name, None, flag(false));
            }
            l.when(true, "amounts_present", None, flag(true));
            l.when(true, "amounts_consistent", None, flag(true));
            4
        }
        CheckState::Unconfigured => {
            let absent = [
                ("body_parseable", f.body_parseable),
                ("body_leg_present", f.body_leg_present),
                ("recipient_present", f.recipient_present),
                ("token_account_present", f.token_account_present),
                ("memo_present", f.memo_present),
                ("amounts_present", f.amounts_present),
                ("amounts_consistent", f.amounts_consistent),
                ("resource_present", f.resource_present),
            ];
            for (name, value) in absent {
                l.when(!value, name, None, flag(false));
            }
            let equal = [
                ("memo_equal", f.memo_equal),
                ("amount_equal", f.amount_equal),
                ("pay_to_equal", f.pay_to_equal),
            ];
            for (name, value) in equal {
                l.when(value == Some(false), name, None, flag(false));
            }
            5
        }
        CheckState::Populated => 6,
    };
    DecidedBy { step, factors: l.0 }
}

/// Interpretation 19 for a memo pair: the step that gives `state` (6 and 7 for the completion
/// rules), and the factors meeting that step's conditions, fetch 1 before fetch 2.
pub fn memo_decided_by(state: MemoState, f: &MemoFactors) -> DecidedBy {
    let mut l = Listed::default();
    let numbered = [(Some(1u8), &f.fetches[0]), (Some(2u8), &f.fetches[1])];
    let eqs = [
        ("memo_equality_fetch1", f.memo_equality_fetch1),
        ("memo_equality_fetch2", f.memo_equality_fetch2),
    ];
    let body_memo_gone = |l: &mut Listed| {
        for (n, x) in numbered {
            l.when(!x.body_leg_present, "body_leg_present", n, flag(false));
            l.when(!x.body_memo_present, "body_memo_present", n, flag(false));
        }
    };
    let step = match (state, f.reason) {
        (MemoState::NotA402, _) => {
            for (n, x) in numbered {
                l.when(!x.fetch_ok, "fetch_ok", n, flag(false));
                l.when(!x.is_402, "is_402", n, flag(false));
                l.when(x.body_over_cap, "body_over_cap", n, flag(true));
            }
            1
        }
        (MemoState::MemoAbsent, None) => {
            body_memo_gone(&mut l);
            2
        }
        (MemoState::LegMismatch, None) => {
            for (name, eq) in eqs {
                l.when(eq == Some(false), name, None, flag(false));
            }
            3
        }
        (MemoState::MemoReused, _) => {
            l.when(true, "body_memos_unique", None, flag(false));
            4
        }
        (MemoState::Bound, _) => {
            for (name, _) in eqs {
                l.when(true, name, None, flag(true));
            }
            l.when(true, "body_memos_unique", None, flag(true));
            5
        }
        (MemoState::MemoAbsent, Some(_)) => {
            body_memo_gone(&mut l);
            6
        }
        (MemoState::LegMismatch, Some(_)) => {
            for (name, eq) in eqs {
                l.when(eq != Some(true), name, None, tri(eq));
            }
            7
        }
    };
    DecidedBy { step, factors: l.0 }
}

/// Interpretation 13's format class, by hand: `short` under 8 scalar values, else
/// `prefixed-opaque` for a full match of `^[A-Za-z][A-Za-z0-9]*[-_][A-Za-z0-9_-]+$` with at
/// least 2 characters before the first separator, else `opaque`.
pub fn format_class(memo: Option<&str>) -> FormatClass {
    let Some(memo) = memo else { return FormatClass::Absent };
    let chars: Vec<char> = memo.chars().collect();
    if chars.len() < 8 {
        return FormatClass::Short;
    }
    let Some(separator) = chars.iter().position(|c| *c == '-' || *c == '_') else {
        return FormatClass::Opaque;
    };
    let head_ok = chars[0].is_ascii_alphabetic()
        && chars[..separator].iter().all(char::is_ascii_alphanumeric)
        && separator >= 2;
    let tail = &chars[separator + 1..];
    let tail_ok = !tail.is_empty()
        && tail.iter().all(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_');
    if head_ok && tail_ok { FormatClass::PrefixedOpaque } else { FormatClass::Opaque }
}

fn freshness(first: Option<&str>, second: Option<&str>) -> FreshnessClass {
    match (first, second) {
        (Some(a), Some(b)) if a != b => FreshnessClass::Regenerated,
        (Some(_), Some(_)) => FreshnessClass::Static,
        _ => FreshnessClass::NotGradable,
    }
}

fn unique(first: Option<&str>, second: Option<&str>) -> Option<bool> {
    match (first, second) {
        (Some(a), Some(b)) => Some(a != b),
        _ => None,
    }
}

/// Every memo factor and the state of a pair of fetches (interpretations 13 to 15 and the
/// memo `state_rule` with its completion rules).
pub fn memo_verdict(first: &FetchOutcome, second: &FetchOutcome) -> (MemoState, MemoFactors) {
    let legs = [Legs::of(first), Legs::of(second)];
    let fetch = |outcome: &FetchOutcome, legs: &Legs| {
        let capture = match outcome {
            FetchOutcome::Captured(capture) => Some(capture),
            _ => None,
        };
        FetchFactors {
            fetch_ok: capture.is_some(),
            status: capture.map(|c| c.status),
            is_402: capture.is_some_and(|c| c.status == 402),
            body_over_cap: capture.is_some_and(|c| matches!(c.body, CapturedBody::OverCap)),
            body_parseable: legs.body_document.is_some(),
            body_leg_present: legs.body_offer().is_some(),
            header_present: legs.header_present,
            header_over_cap: legs.header_over_cap,
            header_decodable: legs.header_document.is_some(),
            body_memo_present: legs.body_memo().is_some(),
            header_memo_present: legs.header_memo().is_some(),
        }
    };
    let fetches = [fetch(first, &legs[0]), fetch(second, &legs[1])];
    let body = [legs[0].body_memo(), legs[1].body_memo()];
    let header = [legs[0].header_memo(), legs[1].header_memo()];
    let eq = [equality(header[0], body[0]), equality(header[1], body[1])];

    let (state, reason) = if fetches.iter().any(|f| !f.fetch_ok || !f.is_402 || f.body_over_cap) {
        (MemoState::NotA402, None)
    } else if body[0].is_none() && body[1].is_none() {
        (MemoState::MemoAbsent, None)
    } else if eq.contains(&Some(false)) {
        (MemoState::LegMismatch, None)
    } else if body[0].is_some() && body[0] == body[1] {
        (MemoState::MemoReused, None)
    } else if body[0].is_some() && body[1].is_some() && eq == [Some(true), Some(true)] {
        (MemoState::Bound, None)
    } else if body[0].is_some() != body[1].is_some() {
        (MemoState::MemoAbsent, Some(CompletionReason::MemoAbsentOneFetch))
    } else {
        (MemoState::LegMismatch, Some(CompletionReason::MemoBindingNotEstablished))
    };
    let census = |legs: &Legs| LegCensus {
        body: Legs::census(legs.body_offer()),
        header: Legs::census(legs.header_offer()),
    };
    let factors = MemoFactors {
        fetches,
        memo_equality_fetch1: eq[0],
        memo_equality_fetch2: eq[1],
        body_memos_unique: unique(body[0], body[1]),
        header_memos_unique: unique(header[0], header[1]),
        body_freshness_class: freshness(body[0], body[1]),
        header_freshness_class: freshness(header[0], header[1]),
        body_memo_format_fetch1: format_class(body[0]),
        body_memo_format_fetch2: format_class(body[1]),
        header_memo_format_fetch1: format_class(header[0]),
        header_memo_format_fetch2: format_class(header[1]),
        correlation_census: CorrelationCensus {
            fetch1: census(&legs[0]),
            fetch2: census(&legs[1]),
        },
        reason,
    };
    (state, factors)
}

/// True when the standard library itself calls an address loopback, private, link-local,
/// unspecified, broadcast, documentation, shared (CGNAT), multicast or unique-local, or it is
/// an IPv4-mapped / NAT64 / 6to4 form of such an address: a target must never be one.
pub fn std_says_not_public(ip: IpAddr) -> bool {
    fn v4(ip: Ipv4Addr) -> bool {
        let [a, b, ..] = ip.octets();
        ip.is_loopback()
            || ip.is_private()
            || ip.is_link_local()
            || ip.is_unspecified()
            || ip.is_broadcast()
            || ip.is_documentation()
            || ip.is_multicast()
            || (a == 100 && (64..128).contains(&b))
            || a == 0
            || a >= 240
    }
    fn v6(ip: Ipv6Addr) -> bool {
        let segments = ip.segments();
        if let Some(mapped) = ip.to_ipv4_mapped() {
            return v4(mapped);
        }
        let embedded = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
        if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] && v4(embedded(segments[6], segments[7])) {
            return true;
        }
        if segments[0] == 0x2002 && v4(embedded(segments[1], segments[2])) {
            return true;
        }
        ip.is_loopback()
            || ip.is_unspecified()
            || ip.is_multicast()
            || (segments[0] & 0xfe00) == 0xfc00
            || (segments[0] & 0xffc0) == 0xfe80
            || ip.to_ipv4().is_some()
    }
    match ip {
        IpAddr::V4(ip) => v4(ip),
        IpAddr::V6(ip) => v6(ip),
    }
}
