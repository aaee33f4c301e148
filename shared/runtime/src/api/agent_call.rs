//! The call an agent makes over a JSON-RPC transport (MCP's `tools/call`, A2A's message), as
//! each transport's reader hands it to the fuzz targets (the `fuzzing` feature): one shape
//! whatever transport, built by the readers (`mcp::read_tool_call`, `a2a::read_message`) and
//! published by [`crate::api::fuzzing`].

use payability_core::payment::siwx::{SignInProof, SignInRefusal};
use payability_core::payment::x402::{DecodedPayment, PaymentRefusal};
use serde_json::{Map, Value};

use crate::routes::Route;

/// A call an agent makes over MCP or A2A, read.
#[derive(Debug)]
pub struct AgentCall {
    /// The route called (one of [`Route::AGENT_CALLS`]).
    pub route: Route,
    /// Its arguments.
    pub arguments: Map<String, Value>,
    /// A2A: the id of the task that answers the call (None over MCP).
    pub task_id: Option<String>,
    /// A2A: the context the message names (None over MCP).
    pub context_id: Option<String>,
    /// The payment carried, decoded; None without one.
    pub payment: Option<Result<DecodedPayment, PaymentRefusal>>,
    /// The sign-in proof carried, decoded; None without one.
    pub proof: Option<Result<SignInProof, SignInRefusal>>,
}
