//! What an answer tells the operator, typed: its [`Telemetry`] (rule, state, house flag,
//! tripwires, the route an MCP tool result or an A2A task stands for), set where the answer is built and
//! never read back from its body; the EMF line ([`emf`]) and the log line read it.

pub mod emf;

use http::StatusCode;

use crate::routes::Route;
use crate::rules;

/// What the log line and the EMF line of an answer read: closed values only (a rule id of
/// [`crate::rules::ApiError`] or [`crate::rules::Refusal`], a verdict state of the published
/// criteria), set by the builder of the answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Telemetry {
    /// The rule id of an error answer or a 402 refusal.
    pub rule: Option<&'static str>,
    /// The verdict state of a delivered report.
    pub state: Option<&'static str>,
    /// Whether the delivered report is a house check's (`house: true`).
    pub house: bool,
    /// The tripwires of a `/metrics` answer.
    pub tripwires: Option<Tripwires>,
    /// The route and status an MCP tool result or an A2A task stands for: its EMF line counts
    /// it as that route's answer (a paid verdict as the paid route's, a pre-check as the
    /// pre-check's).
    pub stands_for: Option<(Route, StatusCode)>,
    /// Where a `POST /rpc` blockhash answer came from.
    pub relay: Option<Relay>,
}

/// Where `POST /rpc` took the blockhash it answered with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relay {
    /// Asked of the configured Solana RPC for this request.
    Upstream,
    /// Reused from a read of the last 2 s (no call).
    Cache,
}

impl Relay {
    /// The source's name, as the log line writes it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Upstream => "upstream",
            Self::Cache => "cache",
        }
    }
}

impl Telemetry {
    /// The rule id the answer recorded, as the closed list's own string; None when it recorded
    /// none or one outside the list.
    pub fn closed_rule(&self) -> Option<&'static str> {
        let named = self.rule?;
        rules::closed().iter().copied().find(|rule| *rule == named)
    }
}

/// The tripwire flags a `/metrics` answer publishes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tripwires {
    /// The tripwires are armed (Day-0 is recorded).
    pub armed: bool,
    /// The free-use tripwire fired.
    pub free_use_fired: bool,
    /// The refund tripwire fired.
    pub refunds_fired: bool,
}
