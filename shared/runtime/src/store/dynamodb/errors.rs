//! Telling a failed condition apart from every other failure, by the typed error of each
//! operation (never by its text). Everything that is not a failed condition is
//! [`StoreError::Unavailable`]: the SDK has already retried what it could within the bounds.

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;

use super::StoreError;

/// What a conditional write came to.
pub(super) enum Conditional<T> {
    /// The condition held and the write was applied.
    Written(T),
    /// The condition did not hold; nothing was written.
    ConditionFailed,
}

/// An operation error that can be a failed condition.
pub(super) trait ConditionCheck {
    /// True for `ConditionalCheckFailedException`.
    fn is_condition_failed(&self) -> bool;
}

impl ConditionCheck for PutItemError {
    fn is_condition_failed(&self) -> bool {
        self.is_conditional_check_failed_exception()
    }
}

impl ConditionCheck for UpdateItemError {
    fn is_condition_failed(&self) -> bool {
        self.is_conditional_check_failed_exception()
    }
}

/// The outcome of a conditional write: written, condition failed, or unavailable.
pub(super) fn conditional<T, E: ConditionCheck, R>(
    result: Result<T, SdkError<E, R>>,
) -> Result<Conditional<T>, StoreError> {
    match result {
        Ok(output) => Ok(Conditional::Written(output)),
        Err(SdkError::ServiceError(failure)) if failure.err().is_condition_failed() => {
            Ok(Conditional::ConditionFailed)
        }
        Err(_) => Err(StoreError::Unavailable),
    }
}

/// Any failure of an unconditional request (the SDK's message is dropped here).
pub(super) fn unavailable<E, R>(_: SdkError<E, R>) -> StoreError {
    StoreError::Unavailable
}
