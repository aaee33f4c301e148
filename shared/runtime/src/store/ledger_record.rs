//! The ledger's stored form, shared by every backend: exactly the specification's closed
//! field list, attribute by attribute. A backend stores these attributes and nothing else.

use payability_core::grade::{CheckState, MemoState};

use super::ledger::{CAD_BASIS, CHECK_LEDGER_PREFIX, MEMO_LEDGER_PREFIX};
use super::{
    Base58Id, CadBlock, CadRate, CriteriaVersion, HouseId, LedgerEntry, LedgerVerdict, Payer,
    StoreError, UtcDay, UtcMillis,
};

/// One stored attribute value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Field {
    /// Text.
    Str(String),
    /// A non-negative integer.
    Num(u64),
    /// A flag.
    Bool(bool),
    /// Explicitly no value (pending fee or rate).
    Null,
}

/// The attribute names of a ledger item, besides its key `pk`: the closed list.
pub const LEDGER_ATTRIBUTES: [&str; 17] = [
    "payer_wallet",
    "timestamp",
    "day",
    "price_usdc_units",
    "cad_rate",
    "cad_rate_date",
    "cad_basis",
    "cad_pending",
    "refund",
    "payment_tx",
    "solana_fee_lamports",
    "criteria_version",
    "verdict_line",
    "payability_state",
    "memo_binding_state",
    "description_overlong",
    "house",
];

/// The attributes of an entry (the check ledger has `payability_state` and
/// `description_overlong`; the memo ledger has `memo_binding_state`).
pub fn ledger_fields(entry: &LedgerEntry) -> Result<Vec<(&'static str, Field)>, StoreError> {
    let at = entry.at.to_rfc3339_millis().ok_or(StoreError::Corrupt)?;
    let day = UtcDay::of(entry.at).ok_or(StoreError::Corrupt)?;
    let line = entry.verdict_line().ok_or(StoreError::Corrupt)?;
    let text = |s: &str| Field::Str(s.to_owned());
    let (wallet, tx, fee, house) = match &entry.payer {
        Payer::Paid { wallet, tx, fee_lamports } => (
            wallet.as_ref().map_or(Field::Null, |w| text(w.as_str())),
            text(tx.as_str()),
            fee_lamports.map_or(Field::Null, Field::Num),
            false,
        ),
        Payer::House { .. } => (Field::Null, Field::Null, Field::Null, true),
    };
    let (rate, rate_date) = match &entry.cad.rate {
        Some(rate) => (text(rate.usd_cad()), text(rate.rate_date.as_str())),
        None => (Field::Null, Field::Null),
    };
    let mut fields = vec![
        ("payer_wallet", wallet),
        ("timestamp", Field::Str(at)),
        ("day", text(day.as_str())),
        ("price_usdc_units", Field::Num(entry.price_usdc_units)),
        ("cad_rate", rate),
        ("cad_rate_date", rate_date),
        ("cad_basis", text(CAD_BASIS)),
        ("cad_pending", Field::Bool(entry.cad.cad_pending())),
        ("refund", Field::Bool(entry.cad.refund)),
        ("payment_tx", tx),
        ("solana_fee_lamports", fee),
        ("criteria_version", text(entry.criteria_version.as_str())),
        ("verdict_line", Field::Str(line)),
        ("house", Field::Bool(house)),
    ];
    match entry.verdict {
        LedgerVerdict::Check { state, description_overlong } => {
            fields.push(("payability_state", text(state.as_str())));
            fields.push(("description_overlong", Field::Bool(description_overlong)));
        }
        LedgerVerdict::Memo { state } => fields.push(("memo_binding_state", text(state.as_str()))),
    }
    Ok(fields)
}

/// Rebuilds an entry from its key and attributes (`get` answers None for a missing one).
pub fn ledger_entry(
    key: &str,
    get: impl Fn(&str) -> Option<Field>,
) -> Result<LedgerEntry, StoreError> {
    let corrupt = StoreError::Corrupt;
    let text = |name: &str| match get(name) {
        Some(Field::Str(s)) => Ok(Some(s)),
        Some(Field::Null) | None => Ok(None),
        Some(_) => Err(corrupt),
    };
    let flag = |name: &str| match get(name) {
        Some(Field::Bool(b)) => Ok(b),
        _ => Err(corrupt),
    };
    let number = |name: &str| match get(name) {
        Some(Field::Num(n)) => Ok(Some(n)),
        Some(Field::Null) | None => Ok(None),
        Some(_) => Err(corrupt),
    };
    let at = UtcMillis::parse_rfc3339_millis(&text("timestamp")?.ok_or(corrupt)?).ok_or(corrupt)?;
    let id = key
        .strip_prefix(CHECK_LEDGER_PREFIX)
        .or_else(|| key.strip_prefix(MEMO_LEDGER_PREFIX))
        .ok_or(corrupt)?;
    let payer = if flag("house")? {
        Payer::House { id: id.strip_prefix("house-").and_then(HouseId::parse).ok_or(corrupt)? }
    } else {
        let base58 = |name: &str| text(name)?.as_deref().and_then(Base58Id::parse).ok_or(corrupt);
        let tx = base58("payment_tx")?;
        if tx.as_str() != id {
            return Err(corrupt);
        }
        let wallet = match text("payer_wallet")? {
            Some(wallet) => Some(Base58Id::parse(&wallet).ok_or(corrupt)?),
            None => None,
        };
        Payer::Paid { wallet, tx, fee_lamports: number("solana_fee_lamports")? }
    };
    let rate = match (text("cad_rate")?, text("cad_rate_date")?) {
        (Some(rate), Some(date)) => {
            Some(CadRate::new(&rate, UtcDay::parse(&date).ok_or(corrupt)?).ok_or(corrupt)?)
        }
        (None, None) => None,
        _ => return Err(corrupt),
    };
    let verdict = if key.starts_with(CHECK_LEDGER_PREFIX) {
        let state = text("payability_state")?.and_then(|s| check_state(&s)).ok_or(corrupt)?;
        LedgerVerdict::Check { state, description_overlong: flag("description_overlong")? }
    } else {
        let state = text("memo_binding_state")?.and_then(|s| memo_state(&s)).ok_or(corrupt)?;
        LedgerVerdict::Memo { state }
    };
    let criteria_version =
        text("criteria_version")?.as_deref().and_then(CriteriaVersion::parse).ok_or(corrupt)?;
    Ok(LedgerEntry {
        payer,
        at,
        price_usdc_units: number("price_usdc_units")?.ok_or(corrupt)?,
        cad: CadBlock { rate, refund: flag("refund")? },
        criteria_version,
        verdict,
    })
}

fn check_state(text: &str) -> Option<CheckState> {
    use CheckState::*;
    [Populated, AmountsOnly, Unconfigured, HeaderMissing, ResourceMismatch, NotA402]
        .into_iter()
        .find(|s| s.as_str() == text)
}

fn memo_state(text: &str) -> Option<MemoState> {
    use MemoState::*;
    [Bound, MemoReused, LegMismatch, MemoAbsent, NotA402].into_iter().find(|s| s.as_str() == text)
}
