//! How a paid call names the endpoint to check ([`CallStyle`]): each transport calls one way,
//! and our challenge and the route descriptions describe the call that way.

/// How a call names the endpoint to check: our challenge describes the call that way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::api) enum CallStyle {
    /// HTTP `GET` (or `HEAD`) with `?url=<endpoint>`.
    Query,
    /// HTTP `POST` with the JSON body `{"url": "<endpoint>"}`.
    Body,
    /// MCP `tools/call` of the op's tool with the arguments `{"url": "<endpoint>"}`.
    Mcp,
    /// An A2A message naming the op's skill and `{"url": "<endpoint>"}`.
    A2a,
}

impl CallStyle {
    /// Every style, in the order the route descriptions are built.
    pub(in crate::api) const ALL: [Self; 4] = [Self::Query, Self::Body, Self::Mcp, Self::A2a];
}
