//! The routes this service answers: the one table every other list derives from, and the
//! public prefix they answer under as well.

use http::Method;
use payability_core::op::PaidOp;

/// The prefix of the public paths the specification names (`POST /memo (public:
/// /toll/payability/memo)`): every route answers under it as well.
pub const TOLL_PREFIX: &str = "/toll/payability";

/// The routes this service answers: the one table every other list derives from (dispatch,
/// 405 and `Allow`, OpenAPI, `/.well-known/x402`, the template's events and the watch router,
/// checked by `tests/tests/deploy_parity.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// `GET /criteria`.
    Criteria,
    /// `POST /precheck`.
    Precheck,
    /// `POST /check` and `GET /check?url=` (paid; without a URL, the 402 challenge).
    Check,
    /// `POST /memo` and `GET /memo?url=` (paid; without a URL, the 402 challenge).
    Memo,
    /// `GET /metrics`.
    Metrics,
    /// `GET /openapi.json`: the OpenAPI 3.1 description of every route.
    OpenApi,
    /// `GET /.well-known/x402`: the paid resources, as x402 indexers read them.
    WellKnownX402,
    /// `GET /llms.txt`: a short text for agents.
    LlmsTxt,
    /// `GET /corpus`: the pinned test corpus, as committed.
    Corpus,
    /// `GET /.well-known/did.json`: the `did:web` DID document of the signing keys (the
    /// receipts' `kid`).
    DidDocument,
    /// `POST /mcp`: the MCP endpoint (Streamable HTTP, stateless JSON): the free and the paid
    /// routes as tools.
    Mcp,
    /// `GET /.well-known/agent-card.json`: the A2A agent card (the skills, the x402 extension,
    /// the JSON-RPC endpoint).
    AgentCard,
    /// `POST /a2a`: the A2A endpoint (JSON-RPC, stateless): the free and the paid routes as
    /// skills, paid with the x402 A2A extension.
    A2a,
    /// `GET /` asked for HTML (`Accept: text/html`): the web page for people.
    Page,
    /// `GET /page.js`: the web page's one script.
    PageScript,
    /// `GET /page.css`: the web page's style sheet.
    PageStyle,
    /// `POST /rpc`: the two Solana RPC calls a browser payment makes (the USDC mint's account,
    /// a recent blockhash), so that the page talks to its own origin only.
    Rpc,
}

impl Route {
    /// Every route (`docs/api.md` lists them; `tests/tests/docs.rs` holds it to this list).
    pub const ALL: [Route; 17] = [
        Self::Criteria,
        Self::Precheck,
        Self::Check,
        Self::Memo,
        Self::Metrics,
        Self::OpenApi,
        Self::WellKnownX402,
        Self::LlmsTxt,
        Self::Corpus,
        Self::DidDocument,
        Self::Mcp,
        Self::AgentCard,
        Self::A2a,
        Self::Page,
        Self::PageScript,
        Self::PageStyle,
        Self::Rpc,
    ];

    /// The routes an agent calls by name: MCP's tools and A2A's skills, the free ones first.
    pub const AGENT_CALLS: [Route; 4] = [Self::Criteria, Self::Precheck, Self::Check, Self::Memo];

    /// The route of a path, if it is one of ours: its own path, or the same under
    /// [`TOLL_PREFIX`] (the public paths the specification names).
    pub fn of_path(path: &str) -> Option<Self> {
        let path = match path.strip_prefix(TOLL_PREFIX) {
            // The public prefix itself is the page's (a route path cannot end with `/`).
            Some("") => Self::Page.path(),
            Some(rest) => rest,
            None => path,
        };
        Self::ALL.into_iter().find(|route| route.path() == path)
    }

    /// The paths the route answers at: its own and the specification's public one (the page's
    /// is the public prefix itself: API Gateway's route paths do not end with `/`).
    pub fn paths(self) -> [String; 2] {
        match self {
            Self::Page => [self.path().to_owned(), TOLL_PREFIX.to_owned()],
            _ => [self.path().to_owned(), format!("{TOLL_PREFIX}{}", self.path())],
        }
    }

    /// The `Allow` header of the route: its methods, `HEAD` where it answers `GET`, and
    /// `OPTIONS`.
    pub fn allow(self) -> String {
        let mut allowed: Vec<&str> = self.methods().iter().map(Method::as_str).collect();
        if self.methods().contains(&Method::GET) {
            allowed.push("HEAD");
        }
        allowed.push("OPTIONS");
        allowed.join(", ")
    }

    /// The route's path.
    pub fn path(self) -> &'static str {
        match self {
            Self::Criteria => "/criteria",
            Self::Precheck => "/precheck",
            Self::Check => "/check",
            Self::Memo => "/memo",
            Self::Metrics => "/metrics",
            Self::OpenApi => "/openapi.json",
            Self::WellKnownX402 => "/.well-known/x402",
            Self::LlmsTxt => "/llms.txt",
            Self::Corpus => "/corpus",
            Self::DidDocument => "/.well-known/did.json",
            Self::Mcp => "/mcp",
            Self::AgentCard => "/.well-known/agent-card.json",
            Self::A2a => "/a2a",
            Self::Page => "/",
            Self::PageScript => "/page.js",
            Self::PageStyle => "/page.css",
            Self::Rpc => "/rpc",
        }
    }

    /// The methods the route answers (any other gets 405 `method_not_allowed`).
    pub fn methods(self) -> &'static [Method] {
        match self {
            Self::Precheck | Self::Mcp | Self::A2a | Self::Rpc => &[Method::POST],
            Self::Check | Self::Memo => &[Method::GET, Method::POST],
            Self::Criteria
            | Self::Metrics
            | Self::OpenApi
            | Self::WellKnownX402
            | Self::LlmsTxt
            | Self::Corpus
            | Self::DidDocument
            | Self::AgentCard
            | Self::Page
            | Self::PageScript
            | Self::PageStyle => &[Method::GET],
        }
    }

    /// The route's name in logs.
    pub fn name(self) -> &'static str {
        match self {
            Self::Criteria => "criteria",
            Self::Precheck => "precheck",
            Self::Check => "check",
            Self::Memo => "memo",
            Self::Metrics => "metrics",
            Self::OpenApi => "openapi",
            Self::WellKnownX402 => "well_known_x402",
            Self::LlmsTxt => "llms_txt",
            Self::Corpus => "corpus",
            Self::DidDocument => "did_document",
            Self::Mcp => "mcp",
            Self::AgentCard => "agent_card",
            Self::A2a => "a2a",
            Self::Page => "page",
            Self::PageScript => "page_js",
            Self::PageStyle => "page_css",
            Self::Rpc => "rpc",
        }
    }

    /// The Lambda function binary answering the route: the free documents, which need no
    /// seed and no store, are the criteria function's.
    pub fn function(self) -> &'static str {
        match self {
            Self::Criteria
            | Self::OpenApi
            | Self::WellKnownX402
            | Self::LlmsTxt
            | Self::Corpus
            | Self::DidDocument
            | Self::AgentCard
            | Self::Page
            | Self::PageScript
            | Self::PageStyle => "criteria",
            Self::Precheck | Self::Rpc => "precheck",
            Self::Check => "check",
            Self::Memo => "memo",
            Self::Metrics => "metrics",
            Self::Mcp => "mcp",
            Self::A2a => "a2a",
        }
    }

    /// The op a paid route sells (each paid op has a function of its own, named as the op);
    /// None for the free routes. Derived from [`Self::function`], which names every route, so a
    /// new route is a decision there, not a free route by default.
    pub fn paid(self) -> Option<PaidOp> {
        PaidOp::parse(self.function())
    }

    /// A free document answered from the published keys and the base URL alone (no seed,
    /// no store): the criteria document and the discovery documents.
    pub fn is_document(self) -> bool {
        self.function() == Self::Criteria.function()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_paid_op_is_sold_by_one_route_and_called_by_agents() {
        for op in PaidOp::ALL {
            let selling: Vec<Route> =
                Route::ALL.into_iter().filter(|route| route.paid() == Some(op)).collect();
            assert_eq!(selling.len(), 1, "{op:?}: {selling:?}");
            assert_eq!(selling[0].name(), op.as_str(), "the route is named as its op");
            assert!(
                Route::AGENT_CALLS.contains(&selling[0]),
                "{op:?} is an MCP tool and A2A skill"
            );
        }
    }
}
