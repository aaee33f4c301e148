//! MCP as both of our MCP servers speak it, whatever carries the messages (`POST /mcp` over
//! Streamable HTTP, `payability mcp` over stdio): the era a request is in ([`era`]: the
//! `initialize` handshake, or 2026-07-28's per-request `_meta`), the revisions it speaks
//! ([`versions`]), the closed list of protocol
//! errors ([`error`]), the four tools and a call's reading ([`tools`]) and the results every
//! method answers with ([`results`]). A transport adds only what is its own: headers and
//! statuses over HTTP, lines over stdio, and who answers a tool.

pub mod era;
pub mod error;
pub mod results;
pub mod tools;
pub mod versions;
