//! What the doctor saw of one HTTP endpoint, the only input of [`super::examine`]: the stranger's
//! GET as the grader captures it, the few response headers the checks read, and the answer to
//! a CORS preflight. Header values stay in memory; only outcomes leave.

use crate::capture::FetchOutcome;

/// The response headers the checks read, each the field's values joined with `, ` as HTTP
/// combines repeated fields; None when the response has no such field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResponseHeaders {
    /// `Access-Control-Allow-Origin`.
    pub allow_origin: Option<String>,
    /// `Access-Control-Allow-Headers`.
    pub allow_headers: Option<String>,
    /// `Access-Control-Expose-Headers`.
    pub expose_headers: Option<String>,
    /// `Cache-Control`.
    pub cache_control: Option<String>,
}

/// An answered request: its status and the headers the checks read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// HTTP status code.
    pub status: u16,
    /// The headers the checks read.
    pub headers: ResponseHeaders,
}

/// One HTTP endpoint as the doctor saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpObservation {
    /// The URL fetched, as the target policy wrote it.
    pub url: String,
    /// The unpaid GET, captured as `check` captures it.
    pub get: FetchOutcome,
    /// The GET's headers the checks read (empty when it got no answer).
    pub get_headers: ResponseHeaders,
    /// The answer to the CORS preflight (`OPTIONS` with [`PREFLIGHT_ORIGIN`]); None when it
    /// failed or timed out.
    pub preflight: Option<Answer>,
}

/// The `Origin` the preflight and the GET send: a browser page on another site.
pub const PREFLIGHT_ORIGIN: &str = "https://buyer.example";
