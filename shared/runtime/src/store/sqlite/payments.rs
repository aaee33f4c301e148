//! Payment claims: a payment claimed once, its marker advanced, resumed, settled; the
//! `payment-identifier` bindings, the payers' settled purchases and early-fetch leases.

use rusqlite::{OptionalExtension, params};

use super::{SqliteStore, epoch_seconds};
use crate::store::*;

impl PaymentClaims for SqliteStore {
    async fn claim(&self, claim: &NewClaim, now: UtcMillis) -> Result<ClaimOutcome, StoreError> {
        let key = claim.id.key();
        let expires_at = epoch_seconds(now.0.saturating_add(CLAIM_TTL_MS));
        let (op, url) = (claim.op, claim.url.hex());
        let payer = claim.payer.as_ref().map(|payer| payer.as_str().to_owned());
        let identifier = claim.identifier.map(|identifier| identifier.key());
        let expired_before = now.0.saturating_sub(CLAIM_TTL_MS);
        self.in_sweeping_transaction(now, move |transaction| {
            // The write lock is held from the first statement: checks, claim and map are one.
            // A claimed payment is already claimed whatever its id (as on DynamoDB).
            let claimed = transaction
                .prepare_cached("SELECT 1 FROM payments WHERE pk = ?1")?
                .exists(params![key])?;
            if claimed {
                return Ok(ClaimOutcome::AlreadyClaimed);
            }
            if let Some(identifier) = &identifier {
                let taken = transaction
                    .prepare_cached(
                        "SELECT 1 FROM payment_identifiers WHERE pk = ?1 AND claimed_at_ms > ?2",
                    )?
                    .exists(params![identifier, expired_before])?;
                if taken {
                    return Ok(ClaimOutcome::IdentifierTaken);
                }
            }
            let inserted = transaction
                .prepare_cached(
                    "INSERT INTO payments (pk, op, marker, resumes, claimed_at_ms, expires_at,
                         url_binding, payer_wallet)
                     VALUES (?1, ?2, ?3, 0, ?4, ?5, ?6, ?7) ON CONFLICT (pk) DO NOTHING",
                )?
                .execute(params![
                    key,
                    op.as_str(),
                    ClaimMarker::Verified.as_str(),
                    now.0,
                    expires_at,
                    url,
                    payer
                ])?;
            if inserted != 1 {
                return Ok(ClaimOutcome::AlreadyClaimed);
            }
            if let Some(identifier) = &identifier {
                transaction
                    .prepare_cached(
                        "INSERT INTO payment_identifiers (pk, payment_pk, claimed_at_ms, expires_at)
                         VALUES (?1, ?2, ?3, ?4) ON CONFLICT (pk) DO UPDATE SET
                         payment_pk = excluded.payment_pk, claimed_at_ms = excluded.claimed_at_ms,
                         expires_at = excluded.expires_at",
                    )?
                    .execute(params![identifier, key, now.0, expires_at])?;
            }
            Ok(ClaimOutcome::Claimed)
        })
        .await
    }

    async fn lease_early_fetch(
        &self,
        lease: &EarlyFetchLease,
        now: UtcMillis,
    ) -> Result<bool, StoreError> {
        let (key, holder, until) = (lease.key(), lease.holder.key(), lease.until);
        let expires_at = epoch_seconds(until.0);
        self.in_sweeping_transaction(now, move |transaction| {
            let taken = transaction
                .prepare_cached(
                    "INSERT INTO early_fetch (pk, holder, held_until_ms, expires_at)
                     VALUES (?1, ?2, ?3, ?4) ON CONFLICT (pk) DO UPDATE SET
                     holder = excluded.holder, held_until_ms = excluded.held_until_ms,
                     expires_at = excluded.expires_at
                     WHERE early_fetch.held_until_ms <= ?5 OR early_fetch.holder = excluded.holder",
                )?
                .execute(params![key, holder, until.0, expires_at, now.0])?;
            Ok(taken == 1)
        })
        .await
    }

    async fn release_early_fetch(&self, lease: &EarlyFetchLease) -> Result<(), StoreError> {
        let (key, holder) = (lease.key(), lease.holder.key());
        self.in_write_transaction(move |transaction| {
            transaction
                .prepare_cached(
                    "UPDATE early_fetch SET held_until_ms = 0 WHERE pk = ?1 AND holder = ?2",
                )?
                .execute(params![key, holder])?;
            Ok(())
        })
        .await
    }

    async fn identified(
        &self,
        identifier: &IdentifierBinding,
        now: UtcMillis,
    ) -> Result<Option<PaymentId>, StoreError> {
        let key = identifier.key();
        let expired_before = now.0.saturating_sub(CLAIM_TTL_MS);
        let payment: Option<String> = self
            .with_connection(move |connection| {
                Ok(connection
                    .prepare_cached(
                        "SELECT payment_pk FROM payment_identifiers
                         WHERE pk = ?1 AND claimed_at_ms > ?2",
                    )?
                    .query_row(params![key, expired_before], |row| row.get(0))
                    .optional()?)
            })
            .await?;
        payment.map(|key| PaymentId::parse_key(&key).ok_or(StoreError::Corrupt)).transpose()
    }

    async fn purchase_of(
        &self,
        purchase: &PurchaseBinding,
        now: UtcMillis,
    ) -> Result<Option<PaymentId>, StoreError> {
        let key = purchase.key();
        let expired_before = now.0.saturating_sub(CLAIM_TTL_MS);
        let payment: Option<String> = self
            .with_connection(move |connection| {
                Ok(connection
                    .prepare_cached(
                        "SELECT payment_pk FROM purchases WHERE pk = ?1 AND settled_at_ms > ?2",
                    )?
                    .query_row(params![key, expired_before], |row| row.get(0))
                    .optional()?)
            })
            .await?;
        payment.map(|key| PaymentId::parse_key(&key).ok_or(StoreError::Corrupt)).transpose()
    }

    async fn claim_of(&self, id: &PaymentId) -> Result<Option<StoredClaim>, StoreError> {
        type Row = (String, String, i64, i64, Option<String>, Option<String>, Option<String>);
        let key = id.key();
        self.with_connection(move |connection| {
            let row: Option<Row> = connection
                .prepare_cached(
                    "SELECT op, marker, claimed_at_ms, resumes, payment_tx, url_binding,
                         payer_wallet FROM payments WHERE pk = ?1",
                )?
                .query_row(params![key], |row| {
                    Ok((
                        row.get(0)?,
                        row.get(1)?,
                        row.get(2)?,
                        row.get(3)?,
                        row.get(4)?,
                        row.get(5)?,
                        row.get(6)?,
                    ))
                })
                .optional()?;
            Ok(row)
        })
        .await?
        .map(|(op, marker, claimed_at_ms, resumes, tx, url, payer)| {
            StoredClaim::from_stored(StoredAttributes {
                op: &op,
                marker: &marker,
                claimed_at_ms,
                resumes,
                tx: tx.as_deref(),
                url: url.as_deref(),
                payer: payer.as_deref(),
            })
        })
        .transpose()
    }

    async fn advance(
        &self,
        id: &PaymentId,
        transition: &Transition,
    ) -> Result<AdvanceOutcome, StoreError> {
        let key = id.key();
        let (from, to) = (transition.from().as_str(), transition.to().as_str());
        let tx = transition.tx().map(|tx| tx.as_str().to_owned());
        let purchase = transition.purchase().map(|purchase| (purchase.binding.key(), purchase.at));
        self.in_write_transaction(move |transaction| {
            let moved = transaction
                .prepare_cached(
                    "UPDATE payments SET marker = ?3, payment_tx = COALESCE(?4, payment_tx)
                     WHERE pk = ?1 AND marker = ?2",
                )?
                .execute(params![key, from, to, tx])?;
            if moved != 1 {
                return Ok(AdvanceOutcome::NotAtMarker);
            }
            if let Some((purchase, at)) = &purchase {
                let expires_at = epoch_seconds(at.0.saturating_add(CLAIM_TTL_MS));
                transaction
                    .prepare_cached(
                        "INSERT INTO purchases (pk, payment_pk, settled_at_ms, expires_at)
                         VALUES (?1, ?2, ?3, ?4) ON CONFLICT (pk) DO UPDATE SET
                         payment_pk = excluded.payment_pk, settled_at_ms = excluded.settled_at_ms,
                         expires_at = excluded.expires_at",
                    )?
                    .execute(params![purchase, key, at.0, expires_at])?;
            }
            Ok(AdvanceOutcome::Advanced)
        })
        .await
    }

    async fn resume(&self, retry: &Retry, now: UtcMillis) -> Result<ResumeOutcome, StoreError> {
        let key = retry.id.key();
        let url = retry.url.hex();
        let op = retry.op;
        // Unexpired: now < claimed_at + CLAIM_TTL_MS, i.e. claimed_at > now - CLAIM_TTL_MS.
        let claimed_after = now.0.saturating_sub(CLAIM_TTL_MS);
        self.in_write_transaction(move |transaction| {
            let row: Option<(Option<String>, Option<String>)> = transaction
                .prepare_cached(
                    "UPDATE payments SET resumes = resumes + 1
                     WHERE pk = ?1 AND op = ?2 AND resumes < ?4 AND claimed_at_ms > ?5
                       AND ((marker = ?3 AND claimed_at_ms <= ?6) OR marker = ?7)
                       AND (url_binding = ?8 OR (url_binding IS NULL AND marker = ?3))
                     RETURNING payment_tx, payer_wallet",
                )?
                .query_row(
                    params![
                        key,
                        op.as_str(),
                        ClaimMarker::Settled.as_str(),
                        MAX_RESUMES,
                        claimed_after,
                        now.0.saturating_sub(IN_FLIGHT_MS),
                        ClaimMarker::Delivered.as_str(),
                        url
                    ],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )
                .optional()?;
            let Some((tx, payer)) = row else {
                return Ok(ResumeOutcome::Refused);
            };
            let tx = tx.as_deref().and_then(Base58Id::parse).ok_or(StoreError::Corrupt)?;
            let payer = payer
                .map(|payer| Base58Id::parse(&payer).ok_or(StoreError::Corrupt))
                .transpose()?;
            Ok(ResumeOutcome::Resumed { tx, payer })
        })
        .await
    }
}
