//! Bounded reads of the answers of the services this one calls (facilitator, Solana RPC,
//! Valet): a body over its cap stops the read at the first byte past it.

use reqwest::Response;

/// Why a bounded body read stopped (closed form).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyError {
    /// The connection failed or timed out mid-body.
    Broken,
    /// The body is longer than the cap.
    OverCap,
}

/// Reads a response body of at most `cap` bytes, stopping as soon as it goes over.
pub(crate) async fn read_capped(mut response: Response, cap: usize) -> Result<Vec<u8>, BodyError> {
    if response.content_length().is_some_and(|len| len > cap as u64) {
        return Err(BodyError::OverCap);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|_| BodyError::Broken)? {
        if body.len() + chunk.len() > cap {
            return Err(BodyError::OverCap);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
