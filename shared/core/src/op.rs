//! The two paid ops, the one list of them: `check` and `memo`. The memo tags, the reports, the
//! ledger, the routes and the command line all name an op with this type.

use serde::Serialize;

/// A paid op.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PaidOp {
    /// Challenge payability (`POST /check`): one fetch, six states.
    Check,
    /// Memo binding (`POST /memo`): two fetches, five states.
    Memo,
}

impl PaidOp {
    /// Both ops, `check` first.
    pub const ALL: [Self; 2] = [Self::Check, Self::Memo];

    /// The op's name: `check` or `memo` (in memo tags, store keys, routes and reports).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Check => "check",
            Self::Memo => "memo",
        }
    }

    /// The op of a name, if it is one.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|op| op.as_str() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_serialize_as_written() {
        for op in PaidOp::ALL {
            assert_eq!(PaidOp::parse(op.as_str()), Some(op));
            assert_eq!(serde_json::to_value(op).unwrap(), op.as_str());
        }
        assert_eq!(PaidOp::parse("Check"), None);
    }
}
