//! What decided a verdict (interpretation `decided_by`): the step of the state rule that
//! matched and the factors, by name and printed value, that met that step's conditions.
//! Names and values only: never a score, a judgement word or anything fetched.

use serde::Serialize;

/// The step of the state rule that matched, and the factors that decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecidedBy {
    /// The step, numbered as published (check 1 to 6; memo 1 to 5, then 6 and 7 for the
    /// two completion rules).
    pub step: u8,
    /// The factors whose values met the step's conditions, in the report's factor order.
    pub factors: Vec<DecidingFactor>,
}

/// One factor that decided a step, with its value as the report prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecidingFactor {
    /// The factor's name, from the op's factor list.
    pub factor: &'static str,
    /// For a memo factor of one fetch: which (1 or 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fetch: Option<u8>,
    /// The factor's value.
    pub value: FactorValue,
}

/// A factor's value as printed: a boolean, a status code, or null.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum FactorValue {
    /// true or false.
    Flag(bool),
    /// An HTTP status.
    Status(u16),
    /// null (no status, or an equality neither leg carries).
    Null,
}

impl From<bool> for FactorValue {
    fn from(value: bool) -> Self {
        Self::Flag(value)
    }
}

impl From<Option<bool>> for FactorValue {
    fn from(value: Option<bool>) -> Self {
        value.map_or(Self::Null, Self::Flag)
    }
}

impl From<Option<u16>> for FactorValue {
    fn from(value: Option<u16>) -> Self {
        value.map_or(Self::Null, Self::Status)
    }
}

/// One condition of a step: the factor it reads, its value, and whether it holds.
pub(super) struct Condition {
    factor: &'static str,
    fetch: Option<u8>,
    value: FactorValue,
    holds: bool,
}

impl Condition {
    /// A condition on a factor of the whole report.
    pub(super) fn of(factor: &'static str, value: impl Into<FactorValue>, holds: bool) -> Self {
        Self { factor, fetch: None, value: value.into(), holds }
    }

    /// A condition on a factor of fetch 1 or 2 (memo).
    pub(super) fn of_fetch(
        fetch: u8,
        factor: &'static str,
        value: impl Into<FactorValue>,
        holds: bool,
    ) -> Self {
        Self { factor, fetch: Some(fetch), value: value.into(), holds }
    }

    /// Whether the condition holds.
    pub(super) fn holds(&self) -> bool {
        self.holds
    }
}

/// The factors of the conditions that hold, in the order given.
pub(super) fn holding(conditions: impl IntoIterator<Item = Condition>) -> Vec<DecidingFactor> {
    conditions
        .into_iter()
        .filter(|c| c.holds)
        .map(|c| DecidingFactor { factor: c.factor, fetch: c.fetch, value: c.value })
        .collect()
}
