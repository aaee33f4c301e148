//! Telling a failed condition apart from every other failure, by the typed error of each
//! operation (never by its text). Everything that is not a failed condition is
//! [`StoreError::Unavailable`]: the SDK has already retried what it could within the bounds.

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;

use crate::store::StoreError;

/// What a conditional write came to.
pub(super) enum Conditional<T> {
    /// The condition held and the write was applied.
    Written(T),
    /// The condition did not hold; nothing was written.
    ConditionFailed,
}

/// What a two-item `TransactWriteItems` came to.
pub(super) enum Transacted {
    /// Both conditions held and both writes were applied.
    Written,
    /// The transaction was cancelled, nothing written: whether each item failed its
    /// condition (neither, when it was cancelled for another reason, a conflict say).
    Cancelled([bool; 2]),
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

/// The outcome of a two-item transaction: written, cancelled (with each item's condition),
/// or unavailable.
pub(super) fn transacted<T, R>(
    result: Result<T, SdkError<TransactWriteItemsError, R>>,
) -> Result<Transacted, StoreError> {
    match result {
        Ok(_) => Ok(Transacted::Written),
        Err(SdkError::ServiceError(failure)) => match failure.err() {
            TransactWriteItemsError::TransactionCanceledException(cancelled) => {
                let failed = |n: usize| {
                    cancelled
                        .cancellation_reasons()
                        .get(n)
                        .is_some_and(|reason| reason.code() == Some("ConditionalCheckFailed"))
                };
                Ok(Transacted::Cancelled([failed(0), failed(1)]))
            }
            _ => Err(StoreError::Unavailable),
        },
        Err(_) => Err(StoreError::Unavailable),
    }
}

/// Any failure of an unconditional request (the SDK's message is dropped here).
pub(super) fn unavailable<E, R>(_: SdkError<E, R>) -> StoreError {
    StoreError::Unavailable
}
