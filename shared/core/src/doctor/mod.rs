//! The seller's doctor: a closed, published list of checks (`doctor/v1`, [`list`]) over what
//! one stranger's requests to an x402 endpoint saw ([`observed`]), examined by a pure function
//! ([`examine`]). The outcome of each check is pass, fail or not applicable; there is no score.
//! Nothing fetched leaves: the findings are check ids and outcomes.

pub mod address;
pub mod examine;
pub mod list;
pub mod mcp;
pub mod networks;
pub mod observed;
pub mod probes;

pub use examine::{Findings, Outcome, examine, same_url};
pub use list::{Check, CheckId, Kind, LIST_REVISION, Level};
pub use mcp::{McpCall, McpEra, McpObservation, examine_mcp};
pub use observed::{Answer, HttpObservation, PREFLIGHT_ORIGIN, ResponseHeaders};
pub use probes::{
    BAZAAR_METHODS, EvmContract, ProbeAnswers, Questions, SvmPayout, abi_string, declared_method,
    questions,
};

#[cfg(test)]
mod tests;
