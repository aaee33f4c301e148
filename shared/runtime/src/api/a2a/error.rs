//! The JSON-RPC errors A2A's methods answer ([`A2aError`], a closed list: JSON-RPC's own and
//! A2A's, each a code and a static message, never a received value). A body that is not one
//! request is JSON-RPC's own ([`crate::api::jsonrpc::Malformed`]).

use serde_json::Value;

use crate::api::jsonrpc::{self, code};
use crate::api::respond::ApiResponse;

/// A JSON-RPC error this endpoint answers to a request it read (closed list): JSON-RPC's own
/// and A2A's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum A2aError {
    /// A method A2A does not define.
    MethodNotFound,
    /// `params` of another shape.
    InvalidParams,
    /// A new message that calls none of the skills.
    NoSkill,
    /// A task this endpoint did not issue, or any task asked for by id (none is kept).
    TaskNotFound,
    /// Streaming, task listing, subscriptions or push notifications (none is offered).
    UnsupportedOperation,
    /// A paid skill called without the x402 extension activated.
    ExtensionSupportRequired,
    /// An `A2A-Version` whose major version is neither 0 nor 1.
    VersionNotSupported,
}

impl A2aError {
    /// The JSON-RPC error code (A2A's are its specification's).
    pub(super) fn code(self) -> i64 {
        match self {
            Self::MethodNotFound => code::METHOD_NOT_FOUND,
            Self::InvalidParams | Self::NoSkill => code::INVALID_PARAMS,
            Self::TaskNotFound => -32001,
            Self::UnsupportedOperation => -32004,
            Self::ExtensionSupportRequired => -32008,
            Self::VersionNotSupported => -32009,
        }
    }

    /// A static explanation.
    fn message(self) -> &'static str {
        match self {
            Self::MethodNotFound => {
                "this endpoint answers SendMessage (A2A 1.0) and message/send (A2A 0.3)"
            }
            Self::InvalidParams => "params must be an object with a message whose parts are a list",
            Self::NoSkill => {
                "the message calls no skill: send a data part {\"skill\": \"check\", \"url\": \"<endpoint>\"} (or memo, precheck, criteria), or the text \"check <endpoint>\""
            }
            Self::TaskNotFound => {
                "no such task: tasks are not kept; continue a task in input-required by its id, or send a new message"
            }
            Self::UnsupportedOperation => {
                "not offered: no streaming, task listing, subscription or push notification; use SendMessage"
            }
            Self::ExtensionSupportRequired => {
                "check and memo are paid with the x402 A2A extension: activate it in the A2A-Extensions header"
            }
            Self::VersionNotSupported => "this endpoint speaks A2A 1.0 and 0.3",
        }
    }

    /// The answer carrying this error for the request `id`.
    pub(super) fn answer(self, id: &Value) -> ApiResponse {
        jsonrpc::error(id, self.code(), self.message())
    }
}
