//! What one fetch of a target produced: the only input the grading rules see.

/// Largest response body kept, in bytes; one byte more makes the body over the cap.
pub const BODY_CAP_BYTES: usize = 65_536;

/// Largest `PAYMENT-REQUIRED` value kept, in bytes; one byte more makes the header over the
/// cap. 16 KiB is the whole response head Node.js reads by default (`--max-http-header-size`),
/// so the official TypeScript x402 clients cannot read a larger challenge header at all.
pub const HEADER_CAP_BYTES: usize = 16_384;

/// The outcome of one fetch of the target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchOutcome {
    /// The connection failed, was refused, reset, or the name did not resolve to an allowed
    /// address.
    Failed,
    /// The 5,000 ms deadline passed before the response was complete.
    TimedOut,
    /// A response arrived within the deadline.
    Captured(Capture),
}

/// A response as captured: status, the first `PAYMENT-REQUIRED` value, and the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    /// HTTP status code.
    pub status: u16,
    /// The first `PAYMENT-REQUIRED` value, when the response carries one.
    pub payment_required: Option<CapturedHeader>,
    /// The body, or the fact that it exceeded [`BODY_CAP_BYTES`].
    pub body: CapturedBody,
}

/// A captured `PAYMENT-REQUIRED` value: within the cap, or over it (and then not kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CapturedHeader {
    /// The raw value bytes; at most [`HEADER_CAP_BYTES`] (build it with [`CapturedHeader::of`]).
    Complete(Vec<u8>),
    /// The value was longer than [`HEADER_CAP_BYTES`].
    OverCap,
}

impl CapturedHeader {
    /// Captures one raw value: kept when it fits the cap, otherwise only the fact is kept.
    pub fn of(value: &[u8]) -> Self {
        if value.len() > HEADER_CAP_BYTES { Self::OverCap } else { Self::Complete(value.to_vec()) }
    }

    /// The value bytes, when they were kept.
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            Self::Complete(bytes) => Some(bytes),
            Self::OverCap => None,
        }
    }
}

/// A captured body: complete within the cap, or over it (and then not kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CapturedBody {
    /// All body bytes; at most [`BODY_CAP_BYTES`].
    Complete(Vec<u8>),
    /// More than [`BODY_CAP_BYTES`] arrived, or Content-Length announced more.
    OverCap,
}

impl FetchOutcome {
    /// The capture, when a response arrived.
    pub fn capture(&self) -> Option<&Capture> {
        match self {
            Self::Captured(capture) => Some(capture),
            Self::Failed | Self::TimedOut => None,
        }
    }
}

impl Capture {
    /// The body bytes, when they were kept.
    pub fn body_bytes(&self) -> Option<&[u8]> {
        match &self.body {
            CapturedBody::Complete(bytes) => Some(bytes),
            CapturedBody::OverCap => None,
        }
    }
}
