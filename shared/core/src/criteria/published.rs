//! The published criteria text of payability/v1 as typed data, read from the embedded copy
//! of the specification (`seed-payability-v1.json`, verbatim).

use serde::{Deserialize, Serialize};

/// The specification's `payability/v1` document, field for field.
#[allow(
    missing_docs,
    reason = "each field is the specification's key of the same name, and says what it is there"
)]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedCriteria {
    pub criteria_id: String,
    pub criteria_revision: String,
    pub family: String,
    pub op: String,
    pub ops_not_offered: Vec<String>,
    pub corpus: CorpusPin,
    pub corpus_pin_definition: String,
    pub price: Price,
    pub free_tier: FreeTier,
    pub input_contract: InputContract,
    pub target_safety: String,
    pub target_fetch: TargetFetch,
    pub field_rule: String,
    pub state_rule: String,
    pub states: Vec<String>,
    pub description_flag: DescriptionFlag,
    pub verdict_grammar: VerdictGrammar,
    pub free_precheck: String,
    pub custody: Custody,
    pub forbidden: String,
    pub boundary_statement: String,
    pub disclosure_sentence: String,
    pub honesty_line: String,
    pub retention: String,
    pub payment_includes: String,
    pub kill_line: String,
    pub never: String,
    pub memo_op: MemoOp,
    pub service: String,
    pub version: String,
    pub endpoints: Endpoints,
}

/// A corpus id and its SHA-256 pin.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusPin {
    pub id: String,
    pub sha256: String,
}

/// The price of one call.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub usdc_units_per_call: u64,
    pub label: String,
    pub basis: String,
}

/// The free pre-check allowance.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FreeTier {
    pub per_day: u32,
    pub min_interval_ms: u64,
    pub on_exhaustion: String,
}

/// The request body contract.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputContract {
    pub body: String,
    pub caps: InputCaps,
    pub over_cap: String,
    pub validation: String,
}

/// Caps on the request.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputCaps {
    pub body_bytes: usize,
}

/// How the target is fetched.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetFetch {
    pub timeout_ms: u64,
    pub body_cap_bytes: usize,
    pub redirects: String,
    pub method: String,
    pub auth: String,
}

/// The description-length risk flag.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DescriptionFlag {
    pub threshold_chars: usize,
    pub rule: String,
}

/// The verdict line grammar.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerdictGrammar {
    pub line: String,
    pub vocabulary: String,
}

/// The custody rules of the check op.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Custody {
    pub construction: String,
    pub ledger_closed_fields: Vec<String>,
    pub ledger_note: String,
    pub errors: String,
}

/// The memo op's published text.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoOp {
    pub op: String,
    pub route: String,
    pub price: Price,
    pub fetches: String,
    pub states: Vec<String>,
    pub state_rule: String,
    pub field_rule: String,
    pub format_rule: String,
    pub factors: Vec<String>,
    pub verdict_grammar: VerdictGrammar,
    pub boundary_statement: String,
    pub payment_includes: String,
    pub ledger: MemoLedger,
    pub custody: String,
    pub free_precheck: String,
}

/// The memo op's ledger.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoLedger {
    pub kv_prefix: String,
    pub closed_fields: Vec<String>,
    pub note: String,
}

/// The service's routes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Endpoints {
    pub criteria: String,
    pub precheck: String,
    pub check: String,
    pub memo: String,
    pub metrics: String,
    pub not_offered: String,
}
