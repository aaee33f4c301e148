//! The API's public base URL, split into its origin and its path prefix: the one rule for a
//! base URL, shared by the public-base-URL setting and the discovery documents.

/// The API's public base URL, split: its origin (`servers` in OpenAPI) and its path prefix
/// (a stage or `/toll/payability`; every OpenAPI path starts with it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    /// `scheme://host[:port]`.
    pub origin: String,
    /// `""` or `/segment[/segment…]`, without a trailing slash.
    pub prefix: String,
}

impl Base {
    /// Splits an http(s) base URL; None for anything else (or one with a query or fragment).
    pub fn parse(base: &str) -> Option<Self> {
        let url = url::Url::parse(base.trim_end_matches('/')).ok()?;
        let plain = matches!(url.scheme(), "http" | "https")
            && url.host().is_some()
            && url.query().is_none()
            && url.fragment().is_none()
            && url.username().is_empty()
            && url.password().is_none();
        plain.then(|| Self {
            origin: url.origin().ascii_serialization(),
            prefix: url.path().trim_end_matches('/').to_owned(),
        })
    }

    /// The path of a route under this base (`/v1/check`).
    pub fn path(&self, route_path: &str) -> String {
        format!("{}{route_path}", self.prefix)
    }

    /// The absolute URL of a route path.
    pub fn url(&self, route_path: &str) -> String {
        format!("{}{}", self.origin, self.path(route_path))
    }
}
