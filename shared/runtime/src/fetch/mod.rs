//! The bounded fetcher: one plain, unauthenticated GET of a vetted target, no redirects, no
//! proxy, no decompression, a 5,000 ms deadline over everything and a streaming body cap.

mod observe;

pub use observe::McpAnswer;
pub mod resolver;

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use payability_core::capture::{
    BODY_CAP_BYTES, Capture, CapturedBody, CapturedHeader, FetchOutcome,
};
use payability_core::policy::{AddressRule, TargetUrl, address_allowed};
use reqwest::{Client, Response, redirect};
use url::Host;

use resolver::VettingResolver;

/// The whole-fetch deadline: DNS, connect, TLS, headers and body.
pub const FETCH_DEADLINE: Duration = Duration::from_millis(5_000);

/// Why the fetcher could not be built (closed form).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetcherBuildError;

impl std::fmt::Display for FetcherBuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the HTTP client for target fetches could not be built")
    }
}

impl std::error::Error for FetcherBuildError {}

/// The target fetcher; build it once and reuse it.
#[derive(Debug, Clone)]
pub struct Fetcher {
    client: Client,
    rule: AddressRule,
    deadline: Duration,
}

impl Fetcher {
    /// Builds a fetcher under an address rule, with the published 5,000 ms deadline.
    pub fn new(rule: AddressRule) -> Result<Self, FetcherBuildError> {
        Self::with_deadline(rule, FETCH_DEADLINE)
    }

    /// Builds a fetcher with another deadline (tests of the deadline itself only).
    pub fn with_deadline(rule: AddressRule, deadline: Duration) -> Result<Self, FetcherBuildError> {
        let client = crate::http_client::builder()
            .redirect(redirect::Policy::none())
            .no_proxy()
            .dns_resolver(Arc::new(VettingResolver { rule }))
            .pool_max_idle_per_host(0)
            .build()
            .map_err(|_| FetcherBuildError)?;
        Ok(Self { client, rule, deadline })
    }

    /// Fetches the target once. Never errors: a failure is a graded outcome.
    pub async fn fetch(&self, target: &TargetUrl) -> FetchOutcome {
        if !self.literal_host_allowed(target) {
            return FetchOutcome::Failed;
        }
        match tokio::time::timeout(self.deadline, self.get(target)).await {
            Ok(outcome) => outcome,
            Err(_) => FetchOutcome::TimedOut,
        }
    }

    /// Fetches the target twice, back to back (the memo op).
    pub async fn fetch_twice(&self, target: &TargetUrl) -> [FetchOutcome; 2] {
        let first = self.fetch(target).await;
        let second = self.fetch(target).await;
        [first, second]
    }

    /// IP-literal hosts never reach the resolver, so they are vetted here as well.
    fn literal_host_allowed(&self, target: &TargetUrl) -> bool {
        let ip = match target.url().host() {
            Some(Host::Ipv4(ip)) => IpAddr::V4(ip),
            Some(Host::Ipv6(ip)) => IpAddr::V6(ip),
            Some(Host::Domain(_)) => return true,
            None => return false,
        };
        address_allowed(ip, self.rule)
    }

    async fn get(&self, target: &TargetUrl) -> FetchOutcome {
        match self.client.get(target.as_str()).send().await {
            Ok(response) => capture(response).await,
            Err(_) => FetchOutcome::Failed,
        }
    }
}

/// Reads status, the first `PAYMENT-REQUIRED` value (copied only within its cap) and the
/// body, stopping as soon as the body exceeds its cap. A body that breaks off is a failed
/// fetch, never a partial capture. The head itself is bounded by the HTTP client's read
/// buffer (hyper's default, about 400 KiB, beyond which the fetch fails).
async fn capture(mut response: Response) -> FetchOutcome {
    let status = response.status().as_u16();
    let payment_required = response
        .headers()
        .get("payment-required")
        .map(|value| CapturedHeader::of(value.as_bytes()));
    let announced_over_cap =
        response.content_length().is_some_and(|len| len > BODY_CAP_BYTES as u64);
    let body = if announced_over_cap {
        CapturedBody::OverCap
    } else {
        match read_capped(&mut response).await {
            Some(body) => body,
            None => return FetchOutcome::Failed,
        }
    };
    FetchOutcome::Captured(Capture { status, payment_required, body })
}

/// The body within the cap, `OverCap` at the first byte past it, None if it broke off.
async fn read_capped(response: &mut Response) -> Option<CapturedBody> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.ok()? {
        if body.len() + chunk.len() > BODY_CAP_BYTES {
            return Some(CapturedBody::OverCap);
        }
        body.extend_from_slice(&chunk);
    }
    Some(CapturedBody::Complete(body))
}
