//! The payments table: one claim per payment id (its message's SHA-256), with its op, marker
//! (see [`ClaimMarker`]), resume count, claim time, called-URL binding (an HMAC, see
//! [`UrlBinding`]), payer wallet, TTL (`expires_at`, epoch seconds) and a random claim token. The SDK retries a
//! write whose answer was lost; the token lets a retried claim recognise its own first
//! attempt instead of answering "already claimed" to the payer who made the claim.
//!
//! A `payment-identifier` id is an item of the same table, keyed by its binding
//! ([`IdentifierBinding::key`]), naming the claim key of the payment first claimed with it,
//! with its claim time and TTL; claim and mapping are one `TransactWriteItems`. So is a
//! payer's purchase ([`PurchaseBinding::key`]), naming its latest settled payment, written
//! with the move to `settled` in one `TransactWriteItems`.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{AttributeValue, Put, ReturnValue, TransactWriteItem, Update};

use super::attributes::{
    Item, KEY, TTL_ATTRIBUTE, epoch_seconds, key_of, number, random_token, read_number, read_text,
    text,
};
use super::errors::{Conditional, Transacted, conditional, unavailable};
use super::handle::DynamoStore;
use crate::store::{
    AdvanceOutcome, Base58Id, CLAIM_TTL_MS, ClaimMarker, ClaimOutcome, EarlyFetchLease,
    IN_FLIGHT_MS, IdentifierBinding, MAX_RESUMES, NewClaim, PaymentClaims, PaymentId,
    PurchaseBinding, ResumeOutcome, Retry, StoreError, StoredAttributes, StoredClaim, Transition,
    UtcMillis,
};

impl PaymentClaims for DynamoStore {
    async fn claim(&self, claim: &NewClaim, now: UtcMillis) -> Result<ClaimOutcome, StoreError> {
        let token = random_token()?;
        let expires_at = number(epoch_seconds(now.0.saturating_add(CLAIM_TTL_MS)));
        let mut item: Item = [
            (KEY, text(claim.id.key())),
            ("op", text(claim.op.as_str())),
            ("url_binding", text(claim.url.hex())),
            ("marker", text(ClaimMarker::Verified.as_str())),
            ("resumes", number(0)),
            ("claimed_at_ms", number(now.0)),
            ("claim_token", text(token.as_str())),
            (TTL_ATTRIBUTE, expires_at.clone()),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
        .collect();
        if let Some(payer) = &claim.payer {
            item.insert("payer_wallet".to_owned(), text(payer.as_str()));
        }
        let Some(identifier) = &claim.identifier else {
            let put = self
                .client
                .put_item()
                .table_name(&self.tables.payments)
                .set_item(Some(item))
                .condition_expression("attribute_not_exists(#pk)")
                .expression_attribute_names("#pk", KEY);
            return match conditional(put.send().await)? {
                Conditional::Written(_) => Ok(ClaimOutcome::Claimed),
                Conditional::ConditionFailed => self.claimed_by(&claim.id, &token).await,
            };
        };
        let put = Put::builder()
            .table_name(&self.tables.payments)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(#pk)")
            .expression_attribute_names("#pk", KEY)
            .build()
            .map_err(|_| StoreError::Corrupt)?;
        let mapping = Put::builder()
            .table_name(&self.tables.payments)
            .item(KEY, text(identifier.key()))
            .item("payment", text(claim.id.key()))
            .item("claimed_at_ms", number(now.0))
            .item(TTL_ATTRIBUTE, expires_at)
            .condition_expression("attribute_not_exists(#pk) OR #claimed_at <= :expired_before")
            .expression_attribute_names("#pk", KEY)
            .expression_attribute_names("#claimed_at", "claimed_at_ms")
            .expression_attribute_values(
                ":expired_before",
                number(now.0.saturating_sub(CLAIM_TTL_MS)),
            )
            .build()
            .map_err(|_| StoreError::Corrupt)?;
        let put = TransactWriteItem::builder().put(put).build();
        let mapping = TransactWriteItem::builder().put(mapping).build();
        match self.transact_two(put, mapping).await? {
            Transacted::Written => Ok(ClaimOutcome::Claimed),
            Transacted::Cancelled([true, _]) => self.claimed_by(&claim.id, &token).await,
            Transacted::Cancelled([false, true]) => Ok(ClaimOutcome::IdentifierTaken),
            Transacted::Cancelled([false, false]) => Err(StoreError::Unavailable),
        }
    }

    /// One conditional `UpdateItem` of `early-fetch:wallet:<payer>`: free, expired or ours.
    async fn lease_early_fetch(
        &self,
        lease: &EarlyFetchLease,
        now: UtcMillis,
    ) -> Result<bool, StoreError> {
        let update = self
            .client
            .update_item()
            .table_name(&self.tables.payments)
            .set_key(Some(key_of(lease.key())))
            .update_expression("SET #holder = :holder, #until = :until, #ttl = :ttl")
            .condition_expression(
                "attribute_not_exists(#pk) OR #until <= :now OR #holder = :holder",
            )
            .expression_attribute_names("#pk", KEY)
            .expression_attribute_names("#holder", "holder")
            .expression_attribute_names("#until", "held_until_ms")
            .expression_attribute_names("#ttl", TTL_ATTRIBUTE)
            .expression_attribute_values(":holder", text(lease.holder.key()))
            .expression_attribute_values(":until", number(lease.until.0))
            .expression_attribute_values(":ttl", number(epoch_seconds(lease.until.0)))
            .expression_attribute_values(":now", number(now.0))
            .send()
            .await;
        Ok(matches!(conditional(update)?, Conditional::Written(_)))
    }

    /// One conditional `UpdateItem`: `held_until_ms = 0` if `holder` holds it.
    async fn release_early_fetch(&self, lease: &EarlyFetchLease) -> Result<(), StoreError> {
        let update = self
            .client
            .update_item()
            .table_name(&self.tables.payments)
            .set_key(Some(key_of(lease.key())))
            .update_expression("SET #until = :zero")
            .condition_expression("#holder = :holder")
            .expression_attribute_names("#holder", "holder")
            .expression_attribute_names("#until", "held_until_ms")
            .expression_attribute_values(":holder", text(lease.holder.key()))
            .expression_attribute_values(":zero", number(0))
            .send()
            .await;
        conditional(update).map(drop)
    }

    async fn identified(
        &self,
        identifier: &IdentifierBinding,
        now: UtcMillis,
    ) -> Result<Option<PaymentId>, StoreError> {
        self.bound_payment(identifier.key(), "claimed_at_ms", now).await
    }

    async fn purchase_of(
        &self,
        purchase: &PurchaseBinding,
        now: UtcMillis,
    ) -> Result<Option<PaymentId>, StoreError> {
        self.bound_payment(purchase.key(), "settled_at_ms", now).await
    }

    async fn claim_of(&self, id: &PaymentId) -> Result<Option<StoredClaim>, StoreError> {
        let Some(item) = self.stored_claim(id).await? else {
            return Ok(None);
        };
        StoredClaim::from_stored(StoredAttributes {
            op: read_text(&item, "op")?,
            marker: read_text(&item, "marker")?,
            claimed_at_ms: read_number(&item, "claimed_at_ms")?,
            resumes: read_number(&item, "resumes")?,
            tx: optional_text(&item, "payment_tx")?,
            url: optional_text(&item, "url_binding")?,
            payer: optional_text(&item, "payer_wallet")?,
        })
        .map(Some)
    }

    /// One conditional `UpdateItem`: `SET marker` (and `payment_tx`) if `marker = from`; with
    /// a purchase mapping, that update and the mapping's `Put` in one `TransactWriteItems`.
    async fn advance(
        &self,
        id: &PaymentId,
        transition: &Transition,
    ) -> Result<AdvanceOutcome, StoreError> {
        let Moved { expression, names, values } = Moved::of(transition);
        let condition = "#marker = :from";
        let Some(purchase) = transition.purchase() else {
            let update = self
                .client
                .update_item()
                .table_name(&self.tables.payments)
                .set_key(Some(key_of(id.key())))
                .update_expression(expression)
                .condition_expression(condition)
                .set_expression_attribute_names(Some(names))
                .set_expression_attribute_values(Some(values));
            return Ok(match conditional(update.send().await)? {
                Conditional::Written(_) => AdvanceOutcome::Advanced,
                Conditional::ConditionFailed => AdvanceOutcome::NotAtMarker,
            });
        };
        let update = Update::builder()
            .table_name(&self.tables.payments)
            .set_key(Some(key_of(id.key())))
            .update_expression(expression)
            .condition_expression(condition)
            .set_expression_attribute_names(Some(names))
            .set_expression_attribute_values(Some(values))
            .build()
            .map_err(|_| StoreError::Corrupt)?;
        let mapping = Put::builder()
            .table_name(&self.tables.payments)
            .item(KEY, text(purchase.binding.key()))
            .item("payment", text(id.key()))
            .item("settled_at_ms", number(purchase.at.0))
            .item(TTL_ATTRIBUTE, number(epoch_seconds(purchase.at.0.saturating_add(CLAIM_TTL_MS))))
            .build()
            .map_err(|_| StoreError::Corrupt)?;
        let update = TransactWriteItem::builder().update(update).build();
        let mapping = TransactWriteItem::builder().put(mapping).build();
        match self.transact_two(update, mapping).await? {
            Transacted::Written => Ok(AdvanceOutcome::Advanced),
            Transacted::Cancelled([true, _]) => Ok(AdvanceOutcome::NotAtMarker),
            Transacted::Cancelled(_) => Err(StoreError::Unavailable),
        }
    }

    /// One conditional `ADD resumes 1`: same op and URL binding, settled (out of flight) or
    /// delivered, not expired (claimed less than [`CLAIM_TTL_MS`] ago, whether or not TTL has
    /// removed it yet), and resumed fewer than [`MAX_RESUMES`] times (a claim starts at 0).
    async fn resume(&self, retry: &Retry, now: UtcMillis) -> Result<ResumeOutcome, StoreError> {
        let update = self
            .client
            .update_item()
            .table_name(&self.tables.payments)
            .set_key(Some(key_of(retry.id.key())))
            .update_expression("ADD #resumes :one")
            .condition_expression(
                "#op = :op AND #claimed_at > :expired_before AND #resumes < :max \
                 AND ((#marker = :settled AND #claimed_at <= :ended_before) OR #marker = :delivered) \
                 AND (#url = :url OR (attribute_not_exists(#url) AND #marker = :settled))",
            )
            .expression_attribute_names("#url", "url_binding")
            .expression_attribute_values(":url", text(retry.url.hex()))
            .expression_attribute_values(":delivered", text(ClaimMarker::Delivered.as_str()))
            .expression_attribute_names("#resumes", "resumes")
            .expression_attribute_names("#op", "op")
            .expression_attribute_names("#marker", "marker")
            .expression_attribute_names("#claimed_at", "claimed_at_ms")
            .expression_attribute_values(":one", number(1))
            .expression_attribute_values(":op", text(retry.op.as_str()))
            .expression_attribute_values(":settled", text(ClaimMarker::Settled.as_str()))
            .expression_attribute_values(":expired_before", number(now.0.saturating_sub(CLAIM_TTL_MS)))
            .expression_attribute_values(":ended_before", number(now.0.saturating_sub(IN_FLIGHT_MS)))
            .expression_attribute_values(":max", number(MAX_RESUMES))
            .return_values(ReturnValue::AllNew)
            .send()
            .await;
        match conditional(update)? {
            Conditional::Written(output) => {
                let item = output.attributes().ok_or(StoreError::Corrupt)?;
                let tx =
                    Base58Id::parse(read_text(item, "payment_tx")?).ok_or(StoreError::Corrupt)?;
                let payer = optional_text(item, "payer_wallet")?
                    .map(|payer| Base58Id::parse(payer).ok_or(StoreError::Corrupt))
                    .transpose()?;
                Ok(ResumeOutcome::Resumed { tx, payer })
            }
            Conditional::ConditionFailed => Ok(ResumeOutcome::Refused),
        }
    }
}

/// The update of a marker move: its expression and attributes (`payment_tx` too when the move
/// records a transaction), the same in an `UpdateItem` and in a transaction's `Update`.
struct Moved {
    expression: &'static str,
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
}

impl Moved {
    fn of(transition: &Transition) -> Self {
        let mut names = HashMap::from([("#marker".to_owned(), "marker".to_owned())]);
        let mut values = HashMap::from([
            (":to".to_owned(), text(transition.to().as_str())),
            (":from".to_owned(), text(transition.from().as_str())),
        ]);
        let expression = match transition.tx() {
            Some(tx) => {
                names.insert("#tx".to_owned(), "payment_tx".to_owned());
                values.insert(":tx".to_owned(), text(tx.as_str()));
                "SET #marker = :to, #tx = :tx"
            }
            None => "SET #marker = :to",
        };
        Self { expression, names, values }
    }
}

impl DynamoStore {
    /// After a failed condition: Claimed if the stored claim carries our token (our own
    /// first attempt, retried by the SDK), else AlreadyClaimed. Read only to tell them apart.
    async fn claimed_by(&self, id: &PaymentId, token: &str) -> Result<ClaimOutcome, StoreError> {
        let stored = self.stored_claim(id).await?;
        let ours = stored.is_some_and(|item| read_text(&item, "claim_token") == Ok(token));
        Ok(if ours { ClaimOutcome::Claimed } else { ClaimOutcome::AlreadyClaimed })
    }

    /// The stored claim of a payment.
    async fn stored_claim(&self, id: &PaymentId) -> Result<Option<Item>, StoreError> {
        self.stored_item(id.key()).await
    }

    /// The payment a binding item (a payment-identifier's, a purchase's) names, while the
    /// time it was written (its `written` attribute) is within the claim TTL; None when there
    /// is no item or it has expired.
    async fn bound_payment(
        &self,
        key: String,
        written: &str,
        now: UtcMillis,
    ) -> Result<Option<PaymentId>, StoreError> {
        let Some(item) = self.stored_item(key).await? else {
            return Ok(None);
        };
        let written_at: i64 = read_number(&item, written)?;
        if written_at <= now.0.saturating_sub(CLAIM_TTL_MS) {
            return Ok(None);
        }
        PaymentId::parse_key(read_text(&item, "payment")?).map(Some).ok_or(StoreError::Corrupt)
    }

    /// One item of the payments table (a strongly consistent read).
    async fn stored_item(&self, key: String) -> Result<Option<Item>, StoreError> {
        let stored = self
            .client
            .get_item()
            .table_name(&self.tables.payments)
            .set_key(Some(key_of(key)))
            .consistent_read(true)
            .send()
            .await
            .map_err(unavailable)?;
        Ok(stored.item)
    }
}

/// A string attribute that may be absent.
fn optional_text<'a>(item: &'a Item, name: &str) -> Result<Option<&'a str>, StoreError> {
    item.get(name).map(|_| read_text(item, name)).transpose()
}
