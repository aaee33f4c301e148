//! The end of a soak: the stand-in chain's settlements against the purchases, the ledger, the
//! claims and the paid counts, as a table and a list of violations. Pure: everything it reads
//! was gathered first.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use payability_runtime::store::{ClaimMarker, StoredClaim};

use super::buyers::{Purchase, Standing, wallet};
use super::rig::StoreView;
use crate::paid_flow::sign_in;

/// Verdicts one payment may buy: its delivery and three re-deliveries.
const MOST_VERDICTS: usize = 4;

/// What was gathered at the end of a run.
pub struct Gathered<'a> {
    /// Every purchase, as its buyer knows it.
    pub purchases: &'a [Purchase],
    /// The chain's settled transactions.
    pub landed: &'a [String],
    /// `/settle` calls about a transaction that had already landed.
    pub settles_after_landing: usize,
    /// The store read back.
    pub view: &'a StoreView,
    /// The claim of each settled purchase's payment, by transaction.
    pub claims: &'a BTreeMap<String, Option<StoredClaim>>,
}

/// Every way the end state breaks "one payment, one settlement, one ledger row, one verdict".
pub fn violations(gathered: &Gathered) -> Vec<String> {
    let Gathered { purchases, landed, settles_after_landing, view, claims } = gathered;
    let landed: BTreeSet<&str> = landed.iter().map(String::as_str).collect();
    let ledger: BTreeMap<&str, Option<&str>> =
        view.paid.iter().map(|(tx, wallet)| (tx.as_str(), wallet.as_deref())).collect();
    let mut found = Vec::new();
    let mut bought = BTreeSet::new();
    for purchase in *purchases {
        let job = purchase.job;
        let tx = purchase.payment.landed_signature();
        bought.insert(tx.clone());
        let settled = landed.contains(tx.as_str());
        if settled {
            match ledger.get(tx.as_str()) {
                None => found.push(format!("job {job}: settled, no ledger row")),
                Some(payer) if *payer != Some(&sign_in::address(&wallet(purchase.wallet))) => {
                    found.push(format!("job {job}: its ledger row names another payer"));
                }
                Some(_) => {}
            }
            if purchase.verdicts == 0 {
                found.push(format!(
                    "job {job}: settled, its verdict neither delivered nor collectable"
                ));
            }
            // Delivered, or still collectable by its payer: settled, or settling (found on
            // chain by the next signed retry), never under another transaction.
            let claim = claims.get(&tx).and_then(Option::as_ref);
            let collectable = claim.is_some_and(|c| {
                let marker = matches!(
                    c.marker,
                    ClaimMarker::Delivered | ClaimMarker::Settled | ClaimMarker::Settling
                );
                marker && c.tx.as_ref().is_none_or(|t| t.as_str() == tx)
            });
            if !collectable {
                found.push(format!("job {job}: settled, its claim is {claim:?}"));
            }
        } else {
            if ledger.contains_key(tx.as_str()) {
                found.push(format!("job {job}: a ledger row without a settlement"));
            }
            if purchase.verdicts > 0 {
                found.push(format!("job {job}: a verdict without a settlement"));
            }
            if purchase.standing == Standing::Pending {
                found.push(format!("job {job}: no final answer after the clean rounds"));
            }
        }
        if purchase.verdicts > MOST_VERDICTS {
            found.push(format!("job {job}: {} verdicts for one payment", purchase.verdicts));
        }
        if let Some(conflicting) = &purchase.conflicting {
            let other = conflicting.landed_signature();
            bought.insert(other.clone());
            if landed.contains(other.as_str()) {
                found.push(format!("job {job}: a second payment under one identifier settled"));
            }
        }
    }
    for tx in &landed {
        if !bought.contains(*tx) {
            found.push("a settlement no buyer made".to_owned());
        }
    }
    for tx in ledger.keys() {
        if !landed.contains(tx) {
            found.push("a ledger row whose transaction never landed".to_owned());
        }
    }
    if *settles_after_landing > 0 {
        found.push(format!("{settles_after_landing} /settle calls for a settled transaction"));
    }
    let rows = view.paid.len() as u64;
    if view.paid_counted != rows {
        found.push(format!("{} paid verdicts counted, {rows} ledger rows", view.paid_counted));
    }
    found
}

/// The figures of one run.
pub struct Figures<'a> {
    /// What was gathered.
    pub gathered: Gathered<'a>,
    /// Requests sent, by kind.
    pub requests: &'a BTreeMap<&'static str, usize>,
    /// Requests that carried a payment.
    pub paid: usize,
    /// Answers, by status and rule.
    pub answers: &'a BTreeMap<String, usize>,
    /// Faults chosen, by kind.
    pub faults: &'a BTreeMap<&'static str, usize>,
    /// Every violation, seen during the run or at its end.
    pub violations: &'a [String],
}

/// The table a run prints.
pub fn table(figures: &Figures) -> String {
    let Figures { gathered, requests, paid, answers, faults, violations } = figures;
    let purchases = gathered.purchases;
    let mut out = String::new();
    let row = |out: &mut String, name: &str, value: String| {
        writeln!(out, "  {name:<44} {value:>8}").expect("a string takes writes");
    };
    out.push_str("requests\n");
    for (kind, count) in *requests {
        row(&mut out, kind, count.to_string());
    }
    row(&mut out, "requests carrying a payment", paid.to_string());
    out.push_str("faults\n");
    for (kind, count) in *faults {
        row(&mut out, kind, count.to_string());
    }
    out.push_str("answers\n");
    for (answer, count) in *answers {
        row(&mut out, answer, count.to_string());
    }
    let count = |standing: fn(&Standing) -> bool| {
        purchases.iter().filter(|p| standing(&p.standing)).count().to_string()
    };
    out.push_str("money\n");
    row(&mut out, "purchases", purchases.len().to_string());
    row(&mut out, "settlements on the chain", gathered.landed.len().to_string());
    let after = gathered.settles_after_landing.to_string();
    row(&mut out, "/settle calls for a settled transaction", after);
    row(&mut out, "ledger rows, paid", gathered.view.paid.len().to_string());
    row(&mut out, "ledger rows, house", gathered.view.house.to_string());
    row(&mut out, "paid verdicts counted", gathered.view.paid_counted.to_string());
    row(&mut out, "purchases with their verdict", count(|s| *s == Standing::Verdict));
    let verdicts: usize = purchases.iter().map(|p| p.verdicts).sum();
    row(&mut out, "verdicts received (re-deliveries included)", verdicts.to_string());
    row(
        &mut out,
        "purchases refused, nothing settled",
        count(|s| matches!(s, Standing::Refused(_))),
    );
    row(&mut out, "purchases with no final answer", count(|s| *s == Standing::Pending));
    row(&mut out, "violations", violations.len().to_string());
    for violation in violations.iter().take(20) {
        writeln!(out, "    {violation}").expect("a string takes writes");
    }
    out
}
