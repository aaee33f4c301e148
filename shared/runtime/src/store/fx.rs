//! The USD/CAD rate cache: the published rate and the trait that caches it per date.

use std::future::Future;

use super::common::{StoreError, UtcDay};

/// The per-date cache of published USD/CAD rates.
pub trait RateCache: Send + Sync {
    /// The cached rate for the transaction date, if any.
    fn get(
        &self,
        date: &UtcDay,
    ) -> impl Future<Output = Result<Option<CadRate>, StoreError>> + Send;

    /// Caches the rate that applies to a transaction date (first write wins).
    fn put(
        &self,
        date: &UtcDay,
        rate: &CadRate,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}

/// A USD/CAD rate as published: a decimal string and the date it was published for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CadRate {
    /// CAD per USD, digits with one decimal point (e.g. `1.3971`).
    usd_cad: String,
    /// The publication date the rate is of.
    pub rate_date: UtcDay,
}

impl CadRate {
    /// Accepts a plain positive decimal of at most 16 characters.
    pub fn new(usd_cad: &str, rate_date: UtcDay) -> Option<Self> {
        let mut parts = usd_cad.split('.');
        let digits = |p: Option<&str>| {
            p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        };
        let ok = usd_cad.len() <= 16
            && digits(parts.next())
            && digits(parts.next())
            && parts.next().is_none();
        ok.then(|| Self { usd_cad: usd_cad.to_owned(), rate_date })
    }

    /// The rate as text.
    pub fn usd_cad(&self) -> &str {
        &self.usd_cad
    }
}
