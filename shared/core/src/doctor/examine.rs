//! The checks of `doctor/v1` over one observation: a pure function from what was seen to one
//! outcome per check of the list, in the list's order. Lenient and offer by offer, as the
//! grader is: one malformed field never hides another check.

use serde::Serialize;
use serde_json::{Map, Value};

use super::address::{evm_address_valid, svm_address_valid};
use super::list::{CheckId, Level};
use super::networks::{Family, KnownNetwork, known_network};
use super::observed::{HttpObservation, PREFLIGHT_ORIGIN, ResponseHeaders};
use super::probes::{ProbeAnswers, svm_payout};
use crate::capture::{Capture, CapturedHeader};
use crate::grade::json::{forgiving_base64_decode, parse_json};
use crate::payment::solana::{TOKEN_PROGRAM, associated_token_account};

/// The outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// What the check requires is true.
    Pass,
    /// What the check requires is false.
    Fail,
    /// The check does not apply: what it reads is not there (another version, no such
    /// offer, or an earlier check failed so there is nothing to read).
    NotApplicable,
}

impl Outcome {
    /// The outcome's name, as the output writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Fail => "fail",
            Self::NotApplicable => "not_applicable",
        }
    }

    /// Pass when `ok`, else fail.
    pub(crate) fn of(ok: bool) -> Self {
        if ok { Self::Pass } else { Self::Fail }
    }

    /// Over some items: not applicable when there are none, else pass when `ok` holds for
    /// every one.
    pub(crate) fn over<T>(items: impl IntoIterator<Item = T>, ok: impl Fn(T) -> bool) -> Self {
        let mut seen = false;
        for item in items {
            seen = true;
            if !ok(item) {
                return Self::Fail;
            }
        }
        if seen { Self::Pass } else { Self::NotApplicable }
    }
}

/// One outcome for every check of the list, in the list's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Findings {
    outcomes: [Outcome; CheckId::ALL.len()],
}

impl Findings {
    /// Every check with its outcome, in the list's order.
    pub fn iter(&self) -> impl Iterator<Item = (CheckId, Outcome)> + '_ {
        CheckId::ALL.into_iter().zip(self.outcomes.iter().copied())
    }

    /// The outcome of one check.
    pub fn outcome(&self, id: CheckId) -> Outcome {
        self.outcomes[position(id)]
    }

    /// How many checks had `outcome`.
    pub fn count(&self, outcome: Outcome) -> usize {
        self.outcomes.iter().filter(|&&o| o == outcome).count()
    }

    /// True when a check of `level` or above failed.
    pub fn failed_at_or_above(&self, level: Level) -> bool {
        self.iter().any(|(id, outcome)| outcome == Outcome::Fail && id.level() >= level)
    }

    /// No check applies yet.
    pub(crate) fn none() -> Self {
        Self { outcomes: [Outcome::NotApplicable; CheckId::ALL.len()] }
    }

    pub(crate) fn set(&mut self, id: CheckId, outcome: Outcome) {
        self.outcomes[position(id)] = outcome;
    }

    /// Adds what another examination of the same target found: a failure anywhere fails the
    /// check, else a pass anywhere passes it.
    pub(crate) fn merge(&mut self, other: &Self) {
        for (mine, theirs) in self.outcomes.iter_mut().zip(other.outcomes) {
            *mine = match (*mine, theirs) {
                (Outcome::Fail, _) | (_, Outcome::Fail) => Outcome::Fail,
                (Outcome::Pass, _) | (_, Outcome::Pass) => Outcome::Pass,
                _ => Outcome::NotApplicable,
            };
        }
    }
}

fn position(id: CheckId) -> usize {
    CheckId::ALL.iter().position(|&c| c == id).expect("every check is in the list")
}

/// The schemes x402 defines (coinbase/x402 `specs/schemes/`).
const KNOWN_SCHEMES: [&str; 2] = ["exact", "upto"];
/// `maxTimeoutSeconds`'s bounds (docs/doctor.md#timeout-bounded says why).
const TIMEOUT_SECONDS: std::ops::RangeInclusive<u64> = 10..=3_600;
/// Longest description, in characters.
const DESCRIPTION_CHARS: usize = 500;
/// Longest `PAYMENT-REQUIRED` value a reverse proxy's default buffer passes, in bytes.
const HEADER_BYTES: usize = 8_192;
/// Longest amount: the digits of the largest uint256.
const AMOUNT_DIGITS: usize = 78;

/// One leg of the challenge: the JSON body, or the decoded `PAYMENT-REQUIRED`; present only
/// when it is a JSON object with `x402Version`.
fn leg(document: Option<Value>) -> Option<Map<String, Value>> {
    match document? {
        Value::Object(object) if object.contains_key("x402Version") => Some(object),
        _ => None,
    }
}

fn body_leg(capture: &Capture) -> Option<Map<String, Value>> {
    leg(capture.body_bytes().and_then(parse_json))
}

fn header_leg(capture: &Capture) -> Option<Map<String, Value>> {
    let bytes = capture.payment_required.as_ref()?.bytes()?;
    leg(forgiving_base64_decode(bytes).as_deref().and_then(parse_json))
}

/// A non-empty string field.
fn text<'a>(object: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    object.get(name).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// `offer.extra.<name>` as a non-empty string.
fn extra<'a>(offer: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    offer.get("extra")?.as_object().and_then(|extra| text(extra, name))
}

/// An offer read with its version: the fields the checks compare.
pub(crate) struct Offer<'a> {
    fields: &'a Map<String, Value>,
    network: Option<&'static KnownNetwork>,
}

impl Offer<'_> {
    pub(crate) fn scheme_is_exact(&self) -> bool {
        self.text("scheme") == Some("exact")
    }

    pub(crate) fn on(&self, family: Family) -> bool {
        self.network.is_some_and(|network| network.family == family)
    }

    /// A non-empty string field of the offer.
    pub(crate) fn text(&self, name: &str) -> Option<&str> {
        text(self.fields, name)
    }

    /// A non-empty string field of the offer's `extra`.
    pub(crate) fn extra(&self, name: &str) -> Option<&str> {
        extra(self.fields, name)
    }
}

/// The challenge's two legs as decoded from the GET.
pub(crate) struct Challenge {
    body: Option<Map<String, Value>>,
    header: Option<Map<String, Value>>,
}

impl Challenge {
    /// The challenge a client reads: the header's, else the body's.
    pub(crate) fn document(&self) -> Option<&Map<String, Value>> {
        self.header.as_ref().or(self.body.as_ref())
    }

    /// Its `x402Version`, when it is 1 or 2.
    pub(crate) fn version(&self) -> Option<u64> {
        self.document()?.get("x402Version")?.as_u64().filter(|v| matches!(v, 1 | 2))
    }

    /// Its offers (the object items of `accepts`), each with its known network.
    pub(crate) fn offers(&self) -> Vec<Offer<'_>> {
        let (Some(document), Some(version)) = (self.document(), self.version()) else {
            return Vec::new();
        };
        let items = document.get("accepts").and_then(Value::as_array);
        items
            .into_iter()
            .flatten()
            .filter_map(Value::as_object)
            .map(|fields| Offer {
                fields,
                network: text(fields, "network").and_then(|name| known_network(version, name)),
            })
            .collect()
    }
}

impl Challenge {
    /// A challenge carried whole in one place (an MCP tool result), read as a header leg.
    pub(crate) fn of(document: &Value) -> Option<Self> {
        let header = leg(Some(document.clone()))?;
        Some(Self { body: None, header: Some(header) })
    }
}

/// The challenge's legs, when the GET was answered.
pub(crate) fn read_challenge(seen: &HttpObservation) -> Option<Challenge> {
    let capture = seen.get.capture()?;
    Some(Challenge { body: body_leg(capture), header: header_leg(capture) })
}

/// Examines one HTTP endpoint with what its probes were answered: one outcome per check.
pub fn examine(seen: &HttpObservation, probes: &ProbeAnswers) -> Findings {
    let mut findings = Findings::none();
    if let Some(method) = &probes.method {
        let answered_402 = method.capture().is_some_and(|answer| answer.status == 402);
        findings.set(CheckId::Method402, Outcome::of(answered_402));
    }
    if let Some(listed) = probes.origin_lists_url {
        findings.set(CheckId::DiscoveryListed, Outcome::of(listed));
    }
    let (Some(capture), Some(read)) = (seen.get.capture(), read_challenge(seen)) else {
        findings.set(CheckId::Status402, Outcome::Fail);
        return findings;
    };
    findings.set(CheckId::Status402, Outcome::of(capture.status == 402));
    findings.set(CheckId::CacheControl, Outcome::of(shared_cache_may_not_keep(&seen.get_headers)));
    let Some(challenge) = read.document() else {
        findings.set(CheckId::ChallengeDecodes, Outcome::Fail);
        return findings;
    };
    findings.set(CheckId::ChallengeDecodes, Outcome::Pass);
    // Legs of two versions are a dual-version challenge (v1 clients read the body, v2 clients
    // the header): each is its version's, and nothing is compared.
    if let (Some(body), Some(header)) = (&read.body, &read.header)
        && body.get("x402Version") == header.get("x402Version")
    {
        findings.set(CheckId::LegsAgree, Outcome::of(body.get("accepts") == header.get("accepts")));
    }
    let Some(version) = read.version() else {
        findings.set(CheckId::VersionKnown, Outcome::Fail);
        return findings;
    };
    findings.set(CheckId::VersionKnown, Outcome::Pass);
    let in_its_leg = if version == 1 { read.body.is_some() } else { read.header.is_some() };
    findings.set(CheckId::VersionLeg, Outcome::of(in_its_leg));

    let offers = read.offers();
    examine_terms(&mut findings, version, challenge, &offers, Some(&seen.url));
    examine_probes(&mut findings, version, &offers, probes);

    if version == 2 {
        if let Some(value) = &capture.payment_required {
            let fits =
                matches!(value, CapturedHeader::Complete(bytes) if bytes.len() <= HEADER_BYTES);
            findings.set(CheckId::HeaderSize, Outcome::of(fits));
        }
        let readable = seen.get_headers.allow_origin.is_some()
            && names(seen.get_headers.expose_headers.as_deref(), "payment-required");
        findings.set(CheckId::CorsExposeHeader, Outcome::of(readable));
        let preflight =
            seen.preflight.as_ref().is_some_and(|answer| {
                (200..300).contains(&answer.status)
                    && answer.headers.allow_origin.as_deref().is_some_and(|origin| {
                        origin.trim() == "*" || origin.trim() == PREFLIGHT_ORIGIN
                    })
                    && names(answer.headers.allow_headers.as_deref(), "payment-signature")
            });
        findings.set(CheckId::CorsPreflight, Outcome::of(preflight));
    }
    findings
}

/// The checks of a decoded challenge of a known version, wherever it came from (an HTTP
/// endpoint's 402, an MCP tool's result): its shape, its offers' terms, what it says of the
/// resource (whether that is `url`: HTTP only) and its Bazaar declaration.
pub(crate) fn examine_terms(
    findings: &mut Findings,
    version: u64,
    challenge: &Map<String, Value>,
    offers: &[Offer<'_>],
    url: Option<&str>,
) {
    let items = challenge.get("accepts").and_then(Value::as_array);
    let shape = items.is_some_and(|items| {
        !items.is_empty()
            && items.iter().all(|item| item.as_object().is_some_and(|o| shaped(version, o)))
    }) && (version == 1
        || resource_object(challenge).is_some_and(|r| text(r, "url").is_some()));
    findings.set(CheckId::AcceptsShape, Outcome::of(shape));
    examine_offers(findings, version, offers);
    examine_resource(findings, version, challenge, offers, url);
    let declared = challenge.get("extensions").and_then(|e| e.get("bazaar"));
    if let (2, Some(declaration)) = (version, declared) {
        findings.set(CheckId::BazaarDeclaration, Outcome::of(bazaar_shaped(declaration)));
    }
}

/// The checks of the offers' terms. Each reads its field where an offer has it with its JSON
/// type; a field missing or of another type is `accepts-shape`'s failure, not theirs.
fn examine_offers(findings: &mut Findings, version: u64, offers: &[Offer<'_>]) {
    let with = |name: &'static str| {
        offers.iter().filter_map(move |offer| Some((offer, offer.fields.get(name)?.as_str()?)))
    };
    let known = || offers.iter().filter(|offer| offer.network.is_some());
    let tabled = || known().filter(|offer| offer.network.is_some_and(|n| n.in_table));
    findings.set(
        CheckId::SchemeKnown,
        Outcome::over(with("scheme"), |(_, scheme)| KNOWN_SCHEMES.contains(&scheme)),
    );
    findings.set(
        CheckId::NetworkKnown,
        Outcome::over(with("network"), |(offer, _)| offer.network.is_some()),
    );
    if tabled().count() >= 2 {
        let testnets = tabled().filter(|offer| offer.network.is_some_and(|n| n.testnet)).count();
        findings.set(
            CheckId::NetworksNotMixed,
            Outcome::of(testnets == 0 || testnets == tabled().count()),
        );
    }
    let on_known = |name| with(name).filter_map(|(offer, value)| Some((offer.network?, value)));
    let on_tabled = on_known("asset").filter(|(network, _)| network.in_table);
    findings.set(
        CheckId::AssetKnown,
        Outcome::over(on_tabled, |(network, asset)| network.is_usdc(asset)),
    );
    let amount = if version == 1 { "maxAmountRequired" } else { "amount" };
    findings.set(
        CheckId::AmountValid,
        Outcome::over(with(amount), |(offer, value)| amount_valid(offer.fields, value)),
    );
    findings.set(
        CheckId::PayToValid,
        Outcome::over(on_known("payTo"), |(network, pay_to)| match network.family {
            Family::Evm => evm_address_valid(pay_to),
            Family::Svm => svm_address_valid(pay_to),
        }),
    );
    let exact_on = |family| offers.iter().filter(move |o| o.scheme_is_exact() && o.on(family));
    findings.set(
        CheckId::SvmFeePayer,
        Outcome::over(exact_on(Family::Svm), |offer| {
            extra(offer.fields, "feePayer").is_some_and(svm_address_valid)
        }),
    );
    let naming_an_account = offers.iter().filter_map(|offer| {
        let account = extra(offer.fields, "usdc_token_account")?;
        offer.on(Family::Svm).then_some((offer, account))
    });
    findings.set(
        CheckId::SvmTokenAccount,
        Outcome::over(naming_an_account, |(offer, account)| {
            let derived = associated_token_account(
                text(offer.fields, "payTo").unwrap_or_default(),
                text(offer.fields, "asset").unwrap_or_default(),
            );
            derived.as_deref() == Some(account)
        }),
    );
    findings.set(
        CheckId::EvmDomain,
        Outcome::over(exact_on(Family::Evm), |offer| {
            let (Some(name), Some(domain_version)) =
                (extra(offer.fields, "name"), extra(offer.fields, "version"))
            else {
                return false;
            };
            let network = offer.network.expect("an offer on a family has a network");
            match (text(offer.fields, "asset"), network.eip712) {
                (Some(asset), Some(table)) if network.is_usdc(asset) => {
                    (name, domain_version) == table
                }
                _ => true,
            }
        }),
    );
    let timeouts = offers.iter().filter_map(|offer| offer.fields.get("maxTimeoutSeconds"));
    findings.set(
        CheckId::TimeoutBounded,
        Outcome::over(timeouts.filter(|t| t.is_number()), |seconds| {
            seconds.as_u64().is_some_and(|s| TIMEOUT_SECONDS.contains(&s))
        }),
    );
}

/// The checks of the opt-in probes' answers; each not applicable without its flag.
fn examine_probes(
    findings: &mut Findings,
    version: u64,
    offers: &[Offer<'_>],
    probes: &ProbeAnswers,
) {
    if let Some(supported) = &probes.supported {
        let kinds = supported.as_ref().and_then(|s| s.get("kinds")).and_then(Value::as_array);
        let kinds = kinds.map(Vec::as_slice).unwrap_or_default();
        let kind_of = |offer: &Offer<'_>| {
            kinds.iter().find(|kind| {
                kind.get("x402Version").and_then(Value::as_u64) == Some(version)
                    && kind.get("scheme").and_then(Value::as_str) == offer.text("scheme")
                    && kind.get("network").and_then(Value::as_str) == offer.text("network")
            })
        };
        let named = offers.iter().filter(|offer| offer.text("scheme").is_some());
        findings.set(
            CheckId::FacilitatorSupports,
            Outcome::over(named, |offer| supported.is_some() && kind_of(offer).is_some()),
        );
        let signers = |network: &str| -> Vec<&str> {
            let map = supported.as_ref().and_then(|s| s.get("signers")).and_then(Value::as_object);
            let namespace = network.split(':').next().unwrap_or_default();
            [network.to_owned(), format!("{namespace}:*")]
                .iter()
                .filter_map(|key| map?.get(key)?.as_array())
                .flatten()
                .filter_map(Value::as_str)
                .collect()
        };
        // An offer the facilitator does not support is facilitator-supports' failure alone.
        let paying = offers.iter().filter_map(|offer| {
            let fee_payer = offer.extra("feePayer")?;
            let solana = offer.scheme_is_exact() && offer.on(Family::Svm);
            (solana && kind_of(offer).is_some()).then_some((offer, fee_payer))
        });
        findings.set(
            CheckId::FacilitatorFeePayer,
            Outcome::over(paying, |(offer, fee_payer)| {
                let network = offer.network.map(|n| n.caip2).unwrap_or_default();
                let in_kind = kind_of(offer)
                    .and_then(|kind| kind.pointer("/extra/feePayer"))
                    .and_then(Value::as_str)
                    == Some(fee_payer);
                in_kind || signers(network).contains(&fee_payer)
            }),
        );
    }
    if let Some(accounts) = &probes.svm_accounts {
        let payouts = offers.iter().filter_map(svm_payout);
        findings.set(
            CheckId::SvmPayoutAccount,
            // An offer past the answers (past MAX_PROBED_OFFERS) was not asked about: it fails.
            Outcome::over(payouts.enumerate(), |(i, payout)| {
                let Some(Some(account)) = accounts.get(i) else { return false };
                let info = account.pointer("/data/parsed/info");
                let field = |name: &str| info.and_then(|i| i.get(name)).and_then(Value::as_str);
                account.get("owner").and_then(Value::as_str) == Some(TOKEN_PROGRAM)
                    && field("mint") == Some(payout.mint.as_str())
                    && field("owner") == Some(payout.owner.as_str())
            }),
        );
    }
    if let Some(contracts) = &probes.evm_contracts {
        let assets = offers
            .iter()
            .filter(|o| o.scheme_is_exact() && o.on(Family::Evm) && o.text("asset").is_some());
        findings.set(
            CheckId::EvmAssetContract,
            Outcome::over(assets.enumerate(), |(i, offer)| {
                let Some(contract) = contracts.get(i) else { return false };
                contract.has_code
                    && contract.name.as_deref() == offer.extra("name")
                    && contract.version.as_deref() == offer.extra("version")
            }),
        );
    }
    if let (Some(listing), 2) = (&probes.facilitator_listing, version) {
        let listed =
            listing.as_ref().and_then(|item| item.get("accepts")).and_then(Value::as_array);
        let agrees = listed.is_some_and(|listed| {
            listed.len() == offers.len()
                && offers.iter().zip(listed).all(|(offer, item)| {
                    offer.fields.iter().all(|(name, value)| item.get(name) == Some(value))
                })
        });
        findings.set(CheckId::FacilitatorListing, Outcome::of(agrees));
    }
}

/// The checks of what the challenge says about the resource: v1 per offer, v2 once.
fn examine_resource(
    findings: &mut Findings,
    version: u64,
    challenge: &Map<String, Value>,
    offers: &[Offer<'_>],
    url: Option<&str>,
) {
    let places: Vec<&Map<String, Value>> = match version {
        1 => offers.iter().map(|offer| offer.fields).collect(),
        _ => resource_object(challenge).into_iter().collect(),
    };
    let url_key = if version == 1 { "resource" } else { "url" };
    let with = |name: &'static str| places.iter().filter_map(move |place| place.get(name));
    if let Some(url) = url {
        findings.set(
            CheckId::ResourceMatches,
            Outcome::over(with(url_key), |resource| {
                resource.as_str().is_some_and(|resource| same_url(resource, url))
            }),
        );
    }
    findings.set(
        CheckId::DescriptionLength,
        Outcome::over(with("description"), |description| {
            description.as_str().is_some_and(|d| d.chars().count() <= DESCRIPTION_CHARS)
        }),
    );
    findings.set(
        CheckId::MimeTypePresent,
        Outcome::over(&places, |place| text(place, "mimeType").is_some()),
    );
}

/// v2's top-level `resource` object.
fn resource_object(challenge: &Map<String, Value>) -> Option<&Map<String, Value>> {
    challenge.get("resource")?.as_object()
}

/// Every field the version requires, of its JSON type; `extra`, when present, an object.
fn shaped(version: u64, offer: &Map<String, Value>) -> bool {
    let strings: &[&str] = match version {
        1 => &[
            "scheme",
            "network",
            "maxAmountRequired",
            "resource",
            "description",
            "mimeType",
            "payTo",
            "asset",
        ],
        _ => &["scheme", "network", "amount", "payTo", "asset"],
    };
    strings.iter().all(|name| offer.get(*name).is_some_and(Value::is_string))
        && offer.get("maxTimeoutSeconds").is_some_and(Value::is_u64)
        && offer.get("extra").is_none_or(|extra| extra.is_object() || extra.is_null())
}

/// An amount is a positive integer string of at most 78 digits, and an offer carrying both
/// `amount` and `maxAmountRequired` has them equal.
fn amount_valid(offer: &Map<String, Value>, value: &str) -> bool {
    let positive = !value.is_empty()
        && value.len() <= AMOUNT_DIGITS
        && value.bytes().all(|b| b.is_ascii_digit())
        && value.bytes().any(|b| b != b'0');
    positive
        && match (offer.get("amount"), offer.get("maxAmountRequired")) {
            (Some(amount), Some(max_amount)) => amount == max_amount,
            _ => true,
        }
}

/// Two URLs are the same once parsed (so `HTTP://Host:80/` and `http://host/` agree).
pub fn same_url(resource: &str, fetched: &str) -> bool {
    match (url::Url::parse(resource), url::Url::parse(fetched)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// A comma-separated header value names `name` (case-insensitive) or `*`.
fn names(value: Option<&str>, name: &str) -> bool {
    value.is_some_and(|value| {
        value.split(',').map(str::trim).any(|item| item == "*" || item.eq_ignore_ascii_case(name))
    })
}

/// A 402 is not heuristically cacheable (RFC 9111 §4.2.2, RFC 9110 §15.1), so only explicit
/// freshness lets a shared cache keep it: `public`, `s-maxage` or `max-age` above 0, unless
/// `no-store` or `private` forbids it.
fn shared_cache_may_not_keep(headers: &ResponseHeaders) -> bool {
    let Some(value) = headers.cache_control.as_deref() else {
        return true;
    };
    let directives: Vec<(String, Option<&str>)> = value
        .split(',')
        .map(|directive| {
            let (name, argument) = match directive.split_once('=') {
                Some((name, argument)) => (name, Some(argument.trim().trim_matches('"'))),
                None => (directive, None),
            };
            (name.trim().to_ascii_lowercase(), argument)
        })
        .collect();
    let has = |wanted: &str| directives.iter().any(|(name, _)| name == wanted);
    let fresh = |wanted: &str| {
        directives.iter().any(|(name, argument)| {
            name == wanted && argument.is_some_and(|a| a.parse::<u64>().map_or(true, |s| s > 0))
        })
    };
    has("no-store") || has("private") || !(has("public") || fresh("s-maxage") || fresh("max-age"))
}

/// The Bazaar declaration's shape (coinbase/x402 `specs/extensions/bazaar.md`, "Discovery Info
/// Structure"): `info.input` of type `http` with a method (a body method with `bodyType` and
/// `body`) or of type `mcp` with `tool` and `inputSchema`; `info.output`, when present, with a
/// `type`; and `schema`, the JSON Schema of `info`, an object.
fn bazaar_shaped(declaration: &Value) -> bool {
    let Some(info) = declaration.get("info").and_then(Value::as_object) else {
        return false;
    };
    let schema_ok = declaration.get("schema").is_some_and(Value::is_object);
    let output_ok = info
        .get("output")
        .is_none_or(|output| output.get("type").and_then(Value::as_str).is_some());
    let Some(input) = info.get("input").and_then(Value::as_object) else {
        return false;
    };
    let object_or_absent = |name: &str| input.get(name).is_none_or(Value::is_object);
    let input_ok = match (text(input, "type"), text(input, "method")) {
        (Some("http"), Some("GET" | "HEAD" | "DELETE")) => {
            object_or_absent("queryParams") && object_or_absent("headers")
        }
        (Some("http"), Some("POST" | "PUT" | "PATCH")) => {
            matches!(text(input, "bodyType"), Some("json" | "form-data" | "text"))
                && input.get("body").is_some_and(|b| b.is_object() || b.is_string())
                && object_or_absent("queryParams")
                && object_or_absent("headers")
        }
        (Some("mcp"), _) => {
            text(input, "tool").is_some()
                && input.get("inputSchema").is_some_and(Value::is_object)
                && input
                    .get("transport")
                    .is_none_or(|t| matches!(t.as_str(), Some("streamable-http" | "sse")))
        }
        _ => false,
    };
    schema_ok && output_ok && input_ok
}
