//! CAD fair-market value: the Bank of Canada's daily USD/CAD rate (Valet API, series
//! FXUSDCAD), the rule for which published rate applies to a transaction date, the per-date
//! cache, and the backfill of ledger entries written while the rate was pending.

use std::future::Future;
use std::time::Duration;

use serde_json::Value;

use crate::capped_body::{BodyError, read_capped};
use crate::store::{CadRate, FillOutcome, Ledger, RateCache, StoreError, UtcDay};

/// How long one rate lookup may take before the rate counts as pending.
pub const LOOKUP_TIMEOUT: Duration = Duration::from_secs(3);
/// Days looked at on each side of a transaction date.
const WINDOW_DAYS: i64 = 10;
/// Largest Valet answer read, in bytes (a 21-day window is about 2 KB); past it, `Malformed`.
pub const MAX_VALET_ANSWER_BYTES: usize = 65_536;

/// Published (date, rate) pairs, as the source lists them.
pub type Published = Vec<(UtcDay, String)>;

/// Why published rates could not be read (closed form).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FxError {
    /// The source did not answer, timed out or answered an error status.
    Unavailable,
    /// The answer does not have the Valet shape, or is over [`MAX_VALET_ANSWER_BYTES`].
    Malformed,
}

/// A source of published daily USD/CAD rates.
pub trait RateSource: Send + Sync {
    /// Every published (date, rate) from `first` to `last` inclusive.
    fn published(
        &self,
        first: &UtcDay,
        last: &UtcDay,
    ) -> impl Future<Output = Result<Published, FxError>> + Send;
}

/// The Bank of Canada Valet API.
#[derive(Debug, Clone)]
pub struct BankOfCanadaValet {
    client: reqwest::Client,
    origin: String,
}

impl BankOfCanadaValet {
    /// A client of the Valet API at `origin` (normally the public one, the default of [`crate::settings::BOC_VALET_ORIGIN`]).
    pub fn new(origin: &str) -> Result<Self, FxError> {
        let client = crate::http_client::builder()
            .timeout(LOOKUP_TIMEOUT)
            .build()
            .map_err(|_| FxError::Unavailable)?;
        Ok(Self { client, origin: origin.trim_end_matches('/').to_owned() })
    }
}

impl RateSource for BankOfCanadaValet {
    async fn published(&self, first: &UtcDay, last: &UtcDay) -> Result<Published, FxError> {
        let url = format!(
            "{}/valet/observations/FXUSDCAD/json?start_date={}&end_date={}",
            self.origin,
            first.as_str(),
            last.as_str()
        );
        let response = self.client.get(url).send().await.map_err(|_| FxError::Unavailable)?;
        if !response.status().is_success() {
            return Err(FxError::Unavailable);
        }
        let bytes = read_capped(response, MAX_VALET_ANSWER_BYTES).await.map_err(|e| match e {
            BodyError::Broken => FxError::Unavailable,
            BodyError::OverCap => FxError::Malformed,
        })?;
        let body: Value = serde_json::from_slice(&bytes).map_err(|_| FxError::Malformed)?;
        parse_observations(&body)
    }
}

/// Reads `{"observations": [{"d": "YYYY-MM-DD", "FXUSDCAD": {"v": "1.3971"}}, ...]}`.
pub fn parse_observations(body: &Value) -> Result<Published, FxError> {
    let observations =
        body.get("observations").and_then(Value::as_array).ok_or(FxError::Malformed)?;
    observations
        .iter()
        .map(|o| {
            let day = o.get("d").and_then(Value::as_str).and_then(UtcDay::parse);
            let rate = o.get("FXUSDCAD").and_then(|s| s.get("v")).and_then(Value::as_str);
            match (day, rate) {
                (Some(day), Some(rate)) => Ok((day, rate.to_owned())),
                _ => Err(FxError::Malformed),
            }
        })
        .collect()
}

/// The rate that applies to a transaction date, never guessed: the date's own rate; or, when
/// a later publication proves the date had none (a weekend or holiday), the latest rate
/// before it; otherwise None (pending: the date's rate may still be published).
pub fn applicable_rate(date: &UtcDay, published: &[(UtcDay, String)]) -> Option<CadRate> {
    if let Some((day, rate)) = published.iter().find(|(day, _)| day == date) {
        return CadRate::new(rate, day.clone());
    }
    if !published.iter().any(|(day, _)| day > date) {
        return None;
    }
    let (day, rate) =
        published.iter().filter(|(day, _)| day < date).max_by(|a, b| a.0.cmp(&b.0))?;
    CadRate::new(rate, day.clone())
}

/// The applicable rate for a transaction date, from the cache or the source (then cached).
/// None when it is not (yet) established or the source is unavailable: the ledger entry is
/// then written with `cad_pending: true`.
pub async fn rate_for(
    date: &UtcDay,
    cache: &impl RateCache,
    source: &impl RateSource,
) -> Result<Option<CadRate>, StoreError> {
    if let Some(rate) = cache.get(date).await? {
        return Ok(Some(rate));
    }
    let (Some(first), Some(last)) = (date.shifted(-WINDOW_DAYS), date.shifted(WINDOW_DAYS)) else {
        return Ok(None);
    };
    let Ok(published) = source.published(&first, &last).await else {
        return Ok(None);
    };
    let rate = applicable_rate(date, &published);
    if let Some(rate) = &rate {
        cache.put(date, rate).await?;
    }
    Ok(rate)
}

/// How long a date whose rate could not be established waits before it is looked up again.
pub const RETRY_PENDING_AFTER: Duration = Duration::from_secs(60);
/// Most dates the per-process memory holds (a process lives a few days at most).
const REMEMBERED_DATES: usize = 8;

/// What this process knows of one date's rate.
#[derive(Debug, Clone)]
enum Known {
    /// A lookup is running; its answer arrives here.
    InFlight(tokio::sync::watch::Receiver<Option<Option<CadRate>>>),
    /// The applicable rate (kept for good), or none as of `at` (looked up again later).
    Answered { rate: Option<CadRate>, at: std::time::Instant },
}

/// The per-process memory of rate lookups: at most one lookup in flight per date, run in
/// the background so that a slow or dead source never holds a response; a rate once known
/// is kept; a date without one is looked up again after [`RETRY_PENDING_AFTER`].
#[derive(Debug, Clone)]
pub struct RateLookups {
    source: BankOfCanadaValet,
    dates: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<UtcDay, Known>>>,
}

impl RateLookups {
    /// Lookups against a source.
    pub fn new(source: BankOfCanadaValet) -> Self {
        Self { source, dates: Default::default() }
    }

    /// The applicable rate of `date`: from memory, else the cache, else the source (one
    /// lookup in the background; the caller that starts it waits for it and may be dropped
    /// at any time without cancelling it; callers meanwhile do not wait). None while it is
    /// not established.
    pub async fn rate(&self, date: &UtcDay, cache: &impl RateCache) -> Option<CadRate> {
        let known = self.dates.lock().unwrap_or_else(|e| e.into_inner()).get(date).cloned();
        let mut answer = match known {
            Some(Known::Answered { rate: Some(rate), .. }) => return Some(rate),
            Some(Known::Answered { rate: None, at }) if at.elapsed() < RETRY_PENDING_AFTER => {
                return None;
            }
            Some(Known::InFlight(_)) => return None,
            Some(Known::Answered { .. }) | None => {
                if let Ok(Some(rate)) = cache.get(date).await {
                    self.remember(
                        date,
                        Known::Answered { rate: Some(rate.clone()), at: std::time::Instant::now() },
                    );
                    return Some(rate);
                }
                self.start(date)
            }
        };
        let rate = answer.wait_for(Option::is_some).await.ok()?.clone().flatten();
        if let Some(rate) = &rate {
            let _ = cache.put(date, rate).await;
        }
        rate
    }

    /// Starts the one background lookup of a date (unless another caller just did).
    fn start(&self, date: &UtcDay) -> tokio::sync::watch::Receiver<Option<Option<CadRate>>> {
        let mut dates = self.dates.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(Known::InFlight(answer)) = dates.get(date) {
            return answer.clone();
        }
        let (sender, answer) = tokio::sync::watch::channel(None);
        if dates.len() >= REMEMBERED_DATES {
            dates.retain(|_, known| matches!(known, Known::InFlight(_)));
        }
        dates.insert(date.clone(), Known::InFlight(answer.clone()));
        drop(dates);
        let (source, memory, date) = (self.source.clone(), self.clone(), date.clone());
        tokio::spawn(async move {
            let rate = match (date.shifted(-WINDOW_DAYS), date.shifted(WINDOW_DAYS)) {
                (Some(first), Some(last)) => match source.published(&first, &last).await {
                    Ok(published) => applicable_rate(&date, &published),
                    Err(_) => None,
                },
                _ => None,
            };
            memory.remember(
                &date,
                Known::Answered { rate: rate.clone(), at: std::time::Instant::now() },
            );
            let _ = sender.send(Some(rate));
        });
        answer
    }

    fn remember(&self, date: &UtcDay, known: Known) {
        self.dates.lock().unwrap_or_else(|e| e.into_inner()).insert(date.clone(), known);
    }
}

/// What a backfill did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BackfillSummary {
    /// Pending entries examined.
    pub examined: usize,
    /// Entries whose rate was filled.
    pub filled: usize,
    /// Entries still pending (their rate is not established yet).
    pub still_pending: usize,
}

/// Fills the CAD block of up to `limit` pending ledger entries from published rates.
pub async fn backfill_cad(
    store: &(impl Ledger + RateCache),
    source: &impl RateSource,
    limit: usize,
) -> Result<BackfillSummary, StoreError> {
    let mut summary = BackfillSummary::default();
    for entry in store.cad_pending(limit).await? {
        summary.examined += 1;
        let date = UtcDay::of(entry.at).ok_or(StoreError::Corrupt)?;
        match rate_for(&date, store, source).await? {
            Some(rate) if store.fill_cad(&entry.key(), &rate).await? == FillOutcome::Filled => {
                summary.filled += 1
            }
            _ => summary.still_pending += 1,
        }
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> UtcDay {
        UtcDay::parse(text).unwrap()
    }

    /// The expected (rate, rate date), or None for pending.
    type Expected = Option<(&'static str, &'static str)>;

    #[test]
    fn the_applicable_rate_is_never_guessed() {
        let published =
            [(day("2026-11-26"), "1.3990".to_owned()), (day("2026-11-27"), "1.4012".to_owned())];
        let up_to_friday = published.to_vec();
        let monday = vec![published[1].clone(), (day("2026-11-30"), "1.4050".to_owned())];
        let vectors: [(&str, &Published, Expected); 6] = [
            ("2026-11-27", &up_to_friday, Some(("1.4012", "2026-11-27"))),
            ("2026-11-28", &up_to_friday, None),
            ("2026-11-28", &monday, Some(("1.4012", "2026-11-27"))),
            ("2026-11-29", &monday, Some(("1.4012", "2026-11-27"))),
            ("2026-11-30", &monday, Some(("1.4050", "2026-11-30"))),
            ("2026-12-01", &monday, None),
        ];
        for (date, published, want) in vectors {
            let got = applicable_rate(&day(date), published);
            let got = got.as_ref().map(|r| (r.usd_cad(), r.rate_date.as_str()));
            assert_eq!(got, want, "{date}");
        }
    }

    #[test]
    fn valet_observations_parse_and_malformed_answers_are_refused() {
        let good =
            serde_json::json!({"observations": [{"d": "2026-11-27", "FXUSDCAD": {"v": "1.4012"}}]});
        assert_eq!(parse_observations(&good), Ok(vec![(day("2026-11-27"), "1.4012".to_owned())]));
        for bad in
            [serde_json::json!({}), serde_json::json!({"observations": [{"d": "27/11/2026"}]})]
        {
            assert_eq!(parse_observations(&bad), Err(FxError::Malformed));
        }
    }

    #[test]
    fn days_shift_across_month_and_year_ends() {
        assert_eq!(day("2026-12-25").shifted(10), Some(day("2027-01-04")));
        assert_eq!(day("2026-03-05").shifted(-10), Some(day("2026-02-23")));
    }
}
