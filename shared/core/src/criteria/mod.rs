//! The criteria document that `GET /criteria` serves: the specification's published text,
//! this service's revision and changelog, the interpretations it publishes, the URL policy
//! rules, how to verify a report, the corpus pin with the commands that recompute it and
//! rerun its cases, and the signing keys.

mod published;

use std::sync::LazyLock;

use serde::Serialize;

pub use published::PublishedCriteria;

use crate::policy::{MAX_URL_BYTES, PolicyRefusal};
use crate::signing::PublicKeyDescriptor;

/// The criteria id every report carries.
pub const CRITERIA_ID: &str = "payability/v1";

/// This service's criteria revision (the specification's is 1.0.0).
pub const CRITERIA_REVISION: &str = "1.5.0";

/// The corpus this revision is pinned to.
pub const CORPUS_ID: &str = "payability-corpus/v1";

/// SHA-256 of the corpus's RFC 8785 serialisation without its `sha256` field; a test
/// recomputes it from `corpus/payability-corpus-v1.json`.
pub const CORPUS_SHA256: &str = "530ed458ac3e193211c2b5ed692832264b84b0777e3fbeee824caa7886c92109";

/// The specification's text, embedded verbatim.
const SEED_JSON: &str = include_str!("seed-payability-v1.json");

static PUBLISHED: LazyLock<PublishedCriteria> = LazyLock::new(|| {
    serde_json::from_str(SEED_JSON).expect("the embedded criteria text is valid (tested)")
});

/// The specification's published text (disclosure, honesty and retention lines, rules).
pub fn published() -> &'static PublishedCriteria {
    &PUBLISHED
}

/// One rule the specification leaves open, as this service decides it.
#[derive(Debug, Clone, Serialize)]
pub struct Interpretation {
    /// Stable id.
    pub id: &'static str,
    /// The rule, in full.
    pub text: &'static str,
}

/// One URL-policy refusal as published.
#[derive(Debug, Clone, Serialize)]
pub struct PolicyRule {
    /// Stable rule id.
    pub rule: &'static str,
    /// Static text.
    pub message: &'static str,
}

/// The target-URL policy as published.
#[derive(Debug, Clone, Serialize)]
pub struct UrlPolicy {
    /// Longest accepted URL in bytes.
    pub max_url_bytes: usize,
    /// Every refusal a pre-check or a paid route can answer.
    pub refusals: Vec<PolicyRule>,
}

/// A key that signs (or signed) reports, with its validity window.
#[derive(Debug, Clone, Serialize)]
pub struct SigningKeyEntry {
    /// The public descriptor.
    #[serde(flatten)]
    pub descriptor: PublicKeyDescriptor,
    /// First instant the key signs, UTC, when known.
    pub valid_from: Option<String>,
    /// Last instant the key signed (null while current).
    pub valid_until: Option<String>,
}

/// The whole criteria document.
#[derive(Debug, Clone, Serialize)]
pub struct CriteriaDocument {
    /// The specification's text, with this revision's id, corpus and pin definition.
    #[serde(flatten)]
    pub published: PublishedCriteria,
    /// The specification revision this one builds on.
    pub based_on_revision: String,
    /// What this revision adds to the specification.
    pub changelog: Vec<&'static str>,
    /// The interpretations this revision publishes.
    pub interpretations: &'static [Interpretation],
    /// The target-URL policy.
    pub url_policy: UrlPolicy,
    /// How to verify a report, step by step.
    pub verification: Verification,
    /// The corpus: its pin and how to recompute the pin and rerun every case.
    pub corpus_replay: CorpusReplay,
    /// Keys whose signatures are this service's.
    pub signing_keys: Vec<SigningKeyEntry>,
}

/// How a report (or a pre-check answer) is verified, as published.
#[derive(Debug, Clone, Serialize)]
pub struct Verification {
    /// The signature algorithm (`signature.alg`).
    pub algorithm: &'static str,
    /// What is signed.
    pub signed_bytes: &'static str,
    /// How `signature.value` and the key's `jwk.x` are encoded.
    pub encoding: &'static str,
    /// The steps, in order.
    pub steps: &'static [&'static str],
}

/// The published verification of this revision.
pub const VERIFICATION: Verification = Verification {
    algorithm: crate::signing::SIGNATURE_ALG,
    signed_bytes: "the RFC 8785 (JCS) canonical serialization of the report without its signature member",
    encoding: "base64url without padding (RFC 4648 section 5): signature.value is 64 bytes, jwk.x 32 bytes",
    steps: &[
        "1. Parse the report (or pre-check answer) as JSON and take out its `signature` member, {alg, key_id, value}; alg must be \"Ed25519\".",
        "2. Serialise everything else, unchanged, with RFC 8785 (JCS): object members sorted by the UTF-16 code units of their names, no whitespace, JCS string and number forms. Those bytes are what was signed.",
        "3. Take the key: the entry of this document's signing_keys whose keyId equals signature.key_id (jwk {kty: OKP, crv: Ed25519, x}; fingerprint sha256:<hex of the raw 32-byte key>). No such entry: it was not signed by this service.",
        "4. Check the key's window: the report's checked_at must be at or after the key's valid_from (when not null) and at or before its valid_until (null while the key is current). Outside it: refuse (signature_outside_key_window).",
        "5. Decode signature.value and jwk.x from base64url and verify the Ed25519 signature (RFC 8032) over the bytes of step 2. Any change to any member makes it fail.",
    ],
};

/// The corpus this revision is pinned to, and how anyone recomputes the pin and reruns its
/// cases from the source repository.
#[derive(Debug, Clone, Serialize)]
pub struct CorpusReplay {
    /// The corpus id.
    pub id: &'static str,
    /// Its pin (see `corpus_pin_definition`).
    pub sha256: &'static str,
    /// Where the corpus file is committed, in the source repository.
    pub file: &'static str,
    /// The generator that derives every expected output from the criteria text.
    pub generator: &'static str,
    /// Commands, run from the repository root, each with what it shows.
    pub commands: &'static [CorpusCommand],
}

/// One command of the corpus replay.
#[derive(Debug, Clone, Serialize)]
pub struct CorpusCommand {
    /// What the command shows.
    pub purpose: &'static str,
    /// The command line.
    pub command: &'static str,
}

/// The published corpus replay of this revision.
pub const CORPUS_REPLAY: CorpusReplay = CorpusReplay {
    id: CORPUS_ID,
    sha256: CORPUS_SHA256,
    file: "corpus/payability-corpus-v1.json",
    generator: "corpus/gen_corpus.py (Python standard library only, independent of the engine)",
    commands: &[
        CorpusCommand {
            purpose: "recompute the pin in Python: the SHA-256 of the RFC 8785 serialization of the corpus without sha256 (equal to json.dumps(corpus, sort_keys=True, separators=(',', ':'), ensure_ascii=False) for this file)",
            command: "python3 -c \"import hashlib,json; c=json.load(open('corpus/payability-corpus-v1.json')); c.pop('sha256'); print(hashlib.sha256(json.dumps(c,sort_keys=True,separators=(',',':'),ensure_ascii=False).encode()).hexdigest())\"",
        },
        CorpusCommand {
            purpose: "regenerate every case from the criteria text and check the committed file is exactly what the generator makes (exit 1 and the differing case ids otherwise)",
            command: "python3 corpus/gen_corpus.py --check",
        },
        CorpusCommand {
            purpose: "rerun every case through the engine (100% required), recompute the pin and check this document publishes it",
            command: "cargo test -p payability-tests --test corpus -- --nocapture",
        },
    ],
};

/// What revisions 1.1.0 to 1.5.0 add to the specification's 1.0.0.
const CHANGELOG: &[&str] = &[
    "1.1.0: publishes the interpretations below, which the 1.0.0 text leaves open; no 1.0.0 rule is changed.",
    "1.1.0: adds the target-address rule (interpretation target_addresses) and the URL length cap to the target-URL policy.",
    "1.1.0: pins payability-corpus/v1 as generated by corpus/gen_corpus.py (Python, independent of the engine).",
    "1.2.0: publishes the paid-request rules (interpretation paid_request: payment identity, the verified-marker resume); no grading rule is changed, and payability-corpus/v1 still applies.",
    "1.2.0: publishes the free pre-check allowance per source as well as per wallet, Day-0 and the tripwire windows (interpretation free_tier_and_tripwires).",
    "1.3.0: adds the PAYMENT-REQUIRED header cap of 16,384 bytes and the factor header_over_cap (check, and per fetch in memo): a value over the cap is present, not kept and not decodable, so a check grades HEADER-MISSING unless an earlier rule matches (interpretations header_leg and capture).",
    "1.3.0: payability-corpus/v1 regenerated: every case gains header_over_cap, and cases pin the header cap's boundary and its place in both state orders.",
    "1.4.0: every report carries decided_by: the step of the state rule that matched and the factors, by name and printed value, that decided it (interpretation decided_by); no state rule is changed.",
    "1.4.0: adds the factor body_leg_present (check, and per fetch in memo): whether the body leg exists (interpretation body_leg).",
    "1.4.0: the target-URL policy refuses, free and before any payment, a URL with a #fragment (fragment_in_url) and a URL written without http:// or https:// (scheme_missing) (interpretation submitted_url).",
    "1.4.0: our own offers: a GET of a paid route names its own public URL, query included, as resource (so it grades POPULATED and BOUND like the POST offer), and a GET whose URL is over 2,200 bytes is refused free with 414 url_too_long_for_get (its paid retry would not fit API Gateway's 10,240-byte request quota; use POST). No grading rule is changed.",
    "1.4.0: payability-corpus/v1 regenerated: every case gains body_leg_present and decided_by, and policy_cases pin the submitted-URL refusals and their order.",
    "1.4.0: a delivered verdict whose answer was lost is delivered again: the same payment for the same op and called URL gets its verdict again (fetched and graded again), at most 3 times within 24 h of its claim, never settled or counted twice; the claim keeps the payer and an HMAC of the called URL, never the ledger; another URL stays 409 payment_already_used (interpretation paid_request). No grading rule is changed.",
    "1.4.0: honours the x402 payment-identifier extension (declared in every paid 402): a payment re-signed with the first one's id is never verified nor settled and answers for the first purchase; a malformed id is 400 before /verify; the id for the other op or another URL is 409 (interpretation paid_request).",
    "1.4.0: the target is fetched alongside the settlement, after /verify and the claim (one such fetch per payer at a time); the capture is graded and answered only once the payment settled, dropped otherwise (interpretation paid_request). No grading rule is changed.",
    "1.5.0: a settled payment's bytes are public on chain, so they prove nothing: once /settle was called for a payment, its verdict goes again only to its payer, signed in with x402 sign-in-with-x (declared in every paid 402); the payment re-sent unsigned gets 402 sign_in_as_payer, which offers no payment and is the same answer whatever op and URL it names; the payer, signed in, collects its verdict again with or without the payment (interpretations paid_request and sign_in). No grading rule is changed.",
    "1.5.0: payment-identifier as the extension says: the same id with another payment is 409 payment_identifier_conflict, never verified nor settled; payment_identifier_pending is retired (interpretation paid_request).",
    "1.5.0: the specification's free allowance of 100 per day per caller wallet is spent only by a pre-check that wallet signed (sign-in-with-x); naming a wallet unsigned spends nothing (402 sign_in_as_caller); an unsigned pre-check spends its source's allowance; signed pre-checks from one source number at most 1,000 a day (interpretation free_tier_and_tripwires).",
    "1.5.0: a GET of a paid route whose URL is over 2,000 bytes (2,200 before) is refused free with 414 url_too_long_for_get: the sign-in declaration, which the official clients echo into the paid retry, takes the difference of API Gateway's request quota.",
    "1.5.0: payability-corpus/v1 regenerated for this revision; no case changes its expected output.",
];

/// The corpus pin definition of this revision.
const CORPUS_PIN_DEFINITION: &str = "The corpus pin is the lowercase hex SHA-256 of the RFC 8785 canonical serialization of the corpus object without its sha256 field. Expected outputs inside corpus cases are derived from this criteria text by an independent implementation (corpus/gen_corpus.py, Python, never the engine's code path); each case labels its provenance (constructed: modelled on a published x402 example shape; synthetic: built to hit a rule).";

/// The interpretations this revision publishes.
pub const INTERPRETATIONS: &[Interpretation] = &[
    Interpretation {
        id: "called_url",
        text: "Called URL: the submitted string parsed as a WHATWG URL and serialised again. That exact string is fetched and is what a resource must equal (plain string equality, code point by code point, no further normalisation, no trimming, no case folding).",
    },
    Interpretation {
        id: "json",
        text: "JSON: a JSON text per RFC 8259, UTF-8 without a byte-order mark; string escapes may not leave a surrogate unpaired; every number must be finite as an IEEE-754 double (1e400 is not JSON here, 1e-400 is); arrays/objects nest at most 127 deep (128 is not JSON here); with duplicate object keys the last one wins. Any JSON value (object, array, string, number, true, false, null) is \"parseable\".",
    },
    Interpretation {
        id: "body_leg",
        text: "Body leg: exists only when the body is JSON (rule 2), its top level is an object, its `accepts` is a non-empty array, and `accepts[0]` is an object. Otherwise every body field is absent, including the memo (the top-level memo fallback applies only when the body leg exists). Body fields: recipient = accepts[0].payTo; token account = accepts[0].extra.usdc_token_account; memo = accepts[0].extra.memo, falling back to the body's top-level `memo` when accepts[0].extra.memo is absent; amount = accepts[0].amount; maxAmountRequired = accepts[0].maxAmountRequired; resource = accepts[0].resource (a string); description = accepts[0].description. When accepts[0].extra is not an object, its fields are absent. The factor body_leg_present (check; memo, per fetch) is true exactly when the body leg exists.",
    },
    Interpretation {
        id: "header_leg",
        text: "Header leg: the first `PAYMENT-REQUIRED` response header (name case-insensitive). Present when the response carries it (an empty value is present but not decodable). Decoded with WHATWG forgiving-base64: remove ASCII whitespace (TAB, LF, FF, CR, SPACE); if the length is then a multiple of 4, remove one or two trailing `=`; if the length is then 1 more than a multiple of 4, fail; any character outside the standard alphabet `A-Za-z0-9+/` fails (so URL-safe `-` and `_` fail, and so does any non-ASCII byte); leftover bits are discarded. The decoded bytes must be JSON by rule 2 (any JSON value counts as decodable). Header fields: resource = top-level `resource.url` (when `resource` is an object); memo, amount and payTo from top-level `accepts[0]` when `accepts` is a non-empty array whose first item is an object (memo = accepts[0].extra.memo, no fallback). Header cap: a value longer than 16,384 bytes (its bytes as received, after the HTTP parser drops surrounding whitespace) is not kept and not decoded: header_present true, header_over_cap true, header_decodable false, every header field absent. Exactly 16,384 bytes is within the cap.",
    },
    Interpretation {
        id: "presence",
        text: "Present: a JSON string that is not empty. Amount present: a JSON string of one or more ASCII digits only (`\"+5\"`, `\"1.5\"`, `\" 5\"`, `\"\"` and the number 10000 are absent).",
    },
    Interpretation {
        id: "leg_equality",
        text: "Equality (memo, amount, payTo) between header leg and body leg: null when neither leg carries the field, true when both carry it and the strings are equal, false otherwise (exactly one carries it, or both and they differ).",
    },
    Interpretation {
        id: "amounts",
        text: "amounts_present: the body amount is present. amounts_consistent: the body amount is present, and the body maxAmountRequired is absent or equal to it, and the header amount is absent or equal to it.",
    },
    Interpretation {
        id: "resource",
        text: "resource_present: the body resource is present (a core field). resource_equal: null when neither the body resource nor the header resource.url is present; false when any present one is not equal to the called URL; true otherwise. RESOURCE-MISMATCH is resource_equal = false.",
    },
    Interpretation {
        id: "description",
        text: "description_length: the number of Unicode scalar values of accepts[0].description when it is a JSON string (0 for \"\"), else null. description_overlong: description_length > 500.",
    },
    Interpretation {
        id: "capture",
        text: "Capture: factors are computed from whatever was captured, whatever the status. A fetch that failed or timed out captured nothing: status null, header absent, body absent. A body over the 65,536-byte cap (more than 65,536 bytes received, or a Content-Length above it) is not kept: body absent (body_parseable false, every body field absent); the header is still graded. Exactly 65,536 bytes is within the cap. A header over its 16,384-byte cap (rule 4) is likewise not kept, and the body is still graded; header_over_cap is false when no header arrived.",
    },
    Interpretation {
        id: "check_reason",
        text: "Check NOT-A-402 reason, first that applies: `fetch_failed` / `timeout`, `status_not_402`, `body_over_cap`. fetch_ok is false only for `fetch_failed` and `timeout`.",
    },
    Interpretation {
        id: "check_state",
        text: "Check state, first match wins: (1) NOT-A-402; (2) RESOURCE-MISMATCH; (3) HEADER-MISSING: header absent or not decodable; (4) AMOUNTS-ONLY: amounts_consistent and recipient, token account and memo all absent; (5) UNCONFIGURED: not amounts_consistent, or recipient, token account, memo or resource absent, or memo_equal, amount_equal or pay_to_equal is false, or the body is not parseable; (6) POPULATED.",
    },
    Interpretation {
        id: "memo_factors",
        text: "Memo per fetch: is_402 = status is 402 (false when nothing was captured); body memo and header memo as in rules 3 and 4; memo_equality_fetchN by rule 6 on the memo. Uniqueness per leg: null unless both fetches carry a memo on that leg; true when they differ. Freshness per leg: `regenerated` when both fetches carry a memo on that leg and they differ, `static` when both carry one and they are identical, `not_gradable` otherwise (the header leg uses the same rule as the body leg). Format class of one memo: `absent` when no memo, `short` when under 8 Unicode scalar values, `prefixed-opaque` when the whole string matches `^[A-Za-z][A-Za-z0-9]*[-_][A-Za-z0-9_-]+$` (full match; ASCII only) with at least 2 characters before the first `-`/`_` and a length of at least 8, `opaque` otherwise.",
    },
    Interpretation {
        id: "memo_state",
        text: "Memo state, first match wins: (1) NOT-A-402: either fetch has fetch_ok false, is_402 false or body_over_cap true; (2) MEMO-ABSENT: the body memo is absent in both fetches; (3) LEG-MISMATCH: memo_equality_fetch1 or memo_equality_fetch2 is false; (4) MEMO-REUSED: body memos present in both and identical; (5) BOUND: body memos present in both, unique, and memo equality true in both. Completion: body memo present in exactly one fetch → MEMO-ABSENT with reason `memo_absent_one_fetch`; otherwise → LEG-MISMATCH with reason `memo_binding_not_established` (unreachable under rule 6, since a present body memo makes equality true or false; published so the function is total). `reason` appears only when a completion rule decided the state.",
    },
    Interpretation {
        id: "correlation_census",
        text: "Correlation census, per fetch and per leg: the union of the key names of accepts[0] and of accepts[0].extra (when it is an object), deduplicated and sorted by Unicode code point; an empty list when that leg has no accepts[0] object. Names only, never values.",
    },
    Interpretation {
        id: "target_addresses",
        text: "Target addresses: a target must resolve only to public unicast addresses; loopback, private, link-local, CGNAT, unique-local, multicast, unspecified, documentation and the IPv4-mapped/NAT64/6to4 forms of those are refused. IP-literal hosts, and the names `localhost` and `*.localhost` (RFC 6761), are refused free, before payment. A name that resolves to a refused address is a paid NOT-A-402 with reason `fetch_failed` (the fetch never connects). The connection goes only to the vetted addresses.",
    },
    Interpretation {
        id: "paid_request",
        text: "Paid request (POST and GET /check and /memo, the MCP tools check and memo): a payment's identity is the SHA-256 of its Solana transaction message (what every signature signs), so another base64 form, trailing bytes or another value in a signature slot the buyer does not fill is the same payment, and one payment buys one verdict. The target is fetched only after the payment was verified and claimed, alongside its settlement (memo: both fetches, back to back), at most one such fetch per payer at a time (a payer with another payment still settling is fetched for after its own settlement); what was fetched stays in memory and is graded and answered only once the payment settled, and is dropped otherwise. A payment's claim keeps, for 24 h and never in the ledger, its op, the payer the facilitator named and an HMAC-SHA256 of the called URL under a key only the service holds. A payment seen before is answered with no call to the facilitator: provably never settled -> 402 payment_not_settled; claimed less than 30 s ago and not delivered -> 409 payment_in_flight, whatever op and URL the request names; verified (/settle was never called, so its bytes are still only its payer's) -> 409 payment_already_used for the other op or another called URL, else settled then, once. Once /settle was called, the transaction may be public on chain and its bytes prove nothing: its verdict goes only to a request signed in by the payer the claim kept (interpretation sign_in); any other request gets 402 sign_in_as_payer, a challenge that offers no payment, the same answer whatever op and URL it names. Signed in by the payer: the other op or another called URL -> 409 payment_already_used; settling (/settle did not answer a clean success on our network) -> the Solana RPC is asked for a transaction with the payment's message among the buyer's recent signatures: landed -> its verdict, without a second settlement; not on chain and its blockhash no longer valid -> 402 payment_not_settled (nothing was charged; final); otherwise 503 settlement_outcome_unknown (retry the same payment, do not pay again); settled, or delivered (its answer may have been lost) -> its verdict again, the URL fetched and graded again (nothing of an earlier fetch is kept). A request signed in without a payment gets, by the same rules, the latest settled purchase of the op and called URL by the signing wallet (mapped for 24 h by an HMAC of the wallet, the op and the URL's binding), or, when there is none, the offer (402 sign_in_nothing_to_collect). Resumes of a settled claim and deliveries again of a delivered one number at most 3 per payment, within 24 h of the claim; after that -> 409 payment_already_used. A payment is settled at most once. A request that found no claim and whose /verify is refused reads the claim again (a concurrent request may have claimed and settled the payment meanwhile) and is answered as a payment seen before when one appeared. The ledger holds one entry per settled transaction (a conditional write, with the payer the claim kept), and only the request that writes it counts the verdict in /metrics, so a verdict delivered again is neither settled nor counted again. The x402 payment-identifier extension is declared in every paid 402's v2 header (info.required false; v1 has no extensions) and read from the payment payload's extensions[\"payment-identifier\"].info.id: an id not 16 to 128 characters of A-Z, a-z, 0-9, _ and - -> 400 payment_identifier_invalid before /verify. The claim keeps an HMAC-SHA256 of the id under a key only the service holds, written with the claim in one atomic write, for 24 h, never in the ledger. An id names one payment: a new id is processed as above; the same id with the same payment is that payment's answer; the same id with another payment -> 409 payment_identifier_conflict, that payment never verified nor settled.",
    },
    Interpretation {
        id: "free_tier_and_tripwires",
        text: "Free pre-checks and Day-0: an unsigned pre-check spends its source's allowance (API Gateway's sourceIp, or the peer address under serve; an IPv6 source counts as its /64, an IPv4-mapped address as its IPv4): 100 per UTC day, 5,000 ms apart. A pre-check that names a wallet (caller) without that wallet's signature spends nothing and gets 402 sign_in_as_caller, a challenge that offers no payment. A pre-check signed by a wallet (interpretation sign_in; caller, when sent, must name that wallet, else 400 caller_not_the_signer) spends that wallet's allowance, the specification's 100 per UTC day per caller wallet, 5,000 ms apart, which nobody else can spend, and its source's signed pre-checks, 1,000 per UTC day whichever wallets sign them (a new wallet costs nothing to make); both must allow, and a refusal by either spends neither. Day-0 is the UTC instant of the first outside paid ledger entry, recorded once by a conditional write (first write wins); house checks never set it. Until Day-0 both ratio tripwires report armed: false and never fire. Free use over 10x paid use compares free pre-checks answered with paid verdicts delivered, over whole UTC days from Day-0's day through today (at most the last 366 days), and fires when free > 10 x paid. Refunds over 5% evaluates every window of 30 consecutive UTC days ending from Day-0's day through today (within the last 366 days) and fires when any window has refunds x 20 > paid with refunds > 0 (a window with refunds and no paid use counts as over); it reports the worst window.",
    },
    Interpretation {
        id: "decided_by",
        text: "Decided by: every report carries `decided_by`, {step, factors}: the step of the state rule that matched (check: 1 NOT-A-402 to 6 POPULATED, as numbered in the check state rule; memo: 1 NOT-A-402 to 5 BOUND, then 6 for the completion rule memo_absent_one_fetch and 7 for memo_binding_not_established) and the factors whose values met that step's conditions, each {factor, value} with the value as the factors print it (a memo factor of one fetch adds `fetch`: 1 or 2), in the order of the op's factor list (memo: fetch 1's, then fetch 2's, then the pair's). Conditions per step, every one that holds listed. Check: (1) fetch_ok false, status not 402 (null included), body_over_cap true; (2) resource_equal false; (3) header_present false, header_over_cap true, header_decodable false; (4) recipient_present false, token_account_present false, memo_present false, amounts_present true, amounts_consistent true (the step matches only when all five hold); (5) body_parseable false, body_leg_present false, recipient_present, token_account_present, memo_present, amounts_present, amounts_consistent or resource_present false, memo_equal, amount_equal or pay_to_equal false; (6) none: an empty list. Memo: (1) per fetch, fetch_ok false, is_402 false, body_over_cap true; (2) per fetch, body_leg_present false and body_memo_present false; (3) memo_equality_fetch1 false, memo_equality_fetch2 false; (4) body_memos_unique false; (5) memo_equality_fetch1 true, memo_equality_fetch2 true, body_memos_unique true (all three); (6) as (2); (7) memo_equality_fetch1 not true, memo_equality_fetch2 not true. A step matches as the state rule says; body_leg_present is listed where it explains absent body fields and never decides alone. Names and values only.",
    },
    Interpretation {
        id: "submitted_url",
        text: "Submitted URL forms refused free, before any payment, beside the specification's list: `scheme_missing` when the submitted string contains no `://` and is not an http or https URL by the WHATWG parser (`localhost:3000/x`, `127.0.0.1:3000/x`, `seller.example/x`; `http:seller.example/x` is accepted as `http://seller.example/x`); `fragment_in_url` when the parsed URL has a fragment, even an empty `#`: a fragment is never sent in an HTTP request, so no resource could equal a called URL that carried one. The refusals apply in the order url_policy.refusals lists them.",
    },
    Interpretation {
        id: "sign_in",
        text: "Sign-in (x402 sign-in-with-x, Solana wallets): every 402 of a paid route declares extensions[\"sign-in-with-x\"] in its v2 header (v1 has no extensions), as does the 402 of a pre-check that must be signed: info {domain: this service's host, and its port when the URL states one; uri: the route's public URL without its query; version \"1\"; nonce; issuedAt; statement} and supportedChains [{chainId solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp, type ed25519}], no expirationTime (the extension's default applies: 5 minutes after issuedAt). The nonce is 32 lowercase hex digits, 8 random bytes and the first 8 bytes of HMAC-SHA256 over the issue instant and those bytes under a key derived from the signing seed, so it is recognised without a lookup. A proof travels in the SIGN-IN-WITH-X request header (MCP: the same text in params._meta[\"sign-in-with-x\"]): standard base64 (padding optional) of a JSON object whose members domain, address, uri, version, chainId, type, nonce, issuedAt and signature (base58) are strings, and statement, expirationTime, notBefore, requestId and resources optional; over 16,384 bytes -> 400 sign_in_header_too_large; another shape -> 400 sign_in_header_malformed. It is checked in this order, each refusal a 402 naming its rule with a fresh challenge, before any call to the facilitator: version 1, chainId and type as declared (sign_in_chain_unsupported); domain (sign_in_domain_mismatch); uri, its query aside, equal to the URL of the route the proof is sent to (sign_in_uri_mismatch); a nonce this service issued at issuedAt (sign_in_nonce_unknown); issuedAt at most 5 minutes ago and at most 5 s ahead, expirationTime not passed, notBefore reached (sign_in_expired, sign_in_not_yet_valid); the Ed25519 signature (strict) of address over the Sign-In With Solana message of the proof's members, built as the official SDKs build it (sign_in_signature_invalid). A proof that grants something spends its nonce first, one conditional write kept until the proof could no longer be presented (then sign_in_nonce_used), so a captured proof grants nothing twice. What a proven wallet is granted is the paid routes' (interpretation paid_request) and the pre-check's (interpretation free_tier_and_tripwires).",
    },
];

/// Builds the criteria document with the given signing keys.
pub fn criteria_document(signing_keys: Vec<SigningKeyEntry>) -> CriteriaDocument {
    let mut published = published().clone();
    published.criteria_revision = CRITERIA_REVISION.to_owned();
    published.corpus.id = CORPUS_ID.to_owned();
    published.corpus.sha256 = CORPUS_SHA256.to_owned();
    published.corpus_pin_definition = CORPUS_PIN_DEFINITION.to_owned();
    CriteriaDocument {
        based_on_revision: PUBLISHED.criteria_revision.clone(),
        published,
        changelog: CHANGELOG.to_vec(),
        interpretations: INTERPRETATIONS,
        url_policy: UrlPolicy {
            max_url_bytes: MAX_URL_BYTES,
            refusals: PolicyRefusal::ALL
                .iter()
                .map(|r| PolicyRule { rule: r.rule(), message: r.message() })
                .collect(),
        },
        verification: VERIFICATION,
        corpus_replay: CORPUS_REPLAY,
        signing_keys,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::price::{PRICE_USDC_UNITS, price_usd};
    use payability_tests::prices::dollar_amounts;

    #[test]
    fn embedded_text_parses_and_matches_the_shared_specification_when_present() {
        assert_eq!(published().criteria_id, CRITERIA_ID);
        let shared =
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/seeds/000_966b30822183bd0c.txt");
        if let Ok(text) = std::fs::read_to_string(shared) {
            assert_eq!(text, SEED_JSON, "the embedded specification drifted from shared/seeds");
        }
    }

    #[test]
    fn document_publishes_revision_pin_and_every_interpretation() {
        let doc = serde_json::to_value(criteria_document(Vec::new())).unwrap();
        assert_eq!(doc["criteria_revision"], CRITERIA_REVISION);
        assert_eq!(doc["based_on_revision"], "1.0.0");
        assert_eq!(doc["corpus"]["sha256"], CORPUS_SHA256);
        assert_eq!(doc["interpretations"].as_array().unwrap().len(), INTERPRETATIONS.len());
        assert_eq!(
            doc["url_policy"]["refusals"].as_array().unwrap().len(),
            PolicyRefusal::ALL.len()
        );
        assert_eq!(doc["verification"]["algorithm"], "Ed25519");
        assert_eq!(doc["verification"]["steps"].as_array().unwrap().len(), 5);
        assert_eq!(doc["corpus_replay"]["sha256"], CORPUS_SHA256);
        assert_eq!(doc["corpus_replay"]["id"], CORPUS_ID);
    }

    /// The specification's text is not ours to edit (a new price is a new criteria revision),
    /// so it is held to the constant: both ops' price and every dollar amount it states.
    #[test]
    fn the_published_price_is_the_constant() {
        let (texts, price) = (published(), price_usd());
        let mut wrong = Vec::new();
        for (op, stated) in [("check", &texts.price), ("memo", &texts.memo_op.price)] {
            if stated.usdc_units_per_call != PRICE_USDC_UNITS || stated.label != price {
                wrong.push(format!("{op}: {} units, {}", stated.usdc_units_per_call, stated.label));
            }
        }
        let amounts = dollar_amounts(SEED_JSON);
        assert!(amounts.len() > 2, "the text states the price: {amounts:?}");
        wrong.extend(amounts.into_iter().filter(|a| *a != price).map(|a| format!("text: {a}")));
        assert!(
            wrong.is_empty(),
            "the price is {price} ({PRICE_USDC_UNITS} USDC units); the criteria text states \
             {wrong:?} (a new price is a new criteria revision)"
        );
    }
}
