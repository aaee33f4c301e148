//! The doctor's closed check list, `doctor/v1`, stated once: each check's id, level, what it
//! applies to, its one sentence and the anchor of its fix in `docs/doctor.md`. Every view
//! (`payability doctor --list`, the outcomes, the docs page) is derived from [`CheckId::ALL`].

use serde::Serialize;

/// The list's revision; adding, removing or changing a check makes a new one, with a line in
/// `docs/doctor.md`'s changelog.
pub const LIST_REVISION: &str = "doctor/v1";

/// How much a failed check matters: `--fail-on` compares against it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Worth knowing; nothing breaks.
    Info,
    /// Some buyers, browsers, caches or indexers will not work with it.
    Warning,
    /// Buyers cannot pay it, or a facilitator refuses the payment.
    Error,
}

impl Level {
    /// Every level, lowest first.
    pub const ALL: [Self; 3] = [Self::Info, Self::Warning, Self::Error];

    /// The level's name, as `--fail-on` and the output write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Error => "error",
        }
    }

    /// The level of a name, if it is one.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|level| level.as_str() == name)
    }
}

/// The payment terms a check reads, when it reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Terms {
    /// Not the terms: the response around them.
    None,
    /// Any offer, whatever its scheme and network.
    Any,
    /// An `exact` offer on a Solana (SVM) network.
    ExactSvm,
    /// An `exact` offer on an EVM network.
    ExactEvm,
}

/// The kind of target a check applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// HTTP endpoints only: it reads an HTTP response's status or headers.
    Http,
    /// MCP servers only: it reads the MCP exchange around a paid tool's result.
    Mcp,
    /// Both: it reads the challenge, wherever it came from.
    Both,
}

/// What a check applies to: the x402 versions, the terms it reads and the target kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Applies {
    /// The x402 versions (1, 2) of the challenges it reads.
    pub versions: &'static [u8],
    /// The terms it reads.
    pub terms: Terms,
    /// The kind of target it applies to.
    pub target: Kind,
    /// The opt-in probe whose answer it reads (its flag), when it reads one: without the flag
    /// it is not applicable.
    pub probe: Option<&'static str>,
}

impl Applies {
    /// What a check applies to, in words: `v1, v2 · any offer · HTTP only`.
    pub fn describe(&self) -> String {
        let versions: Vec<String> = self.versions.iter().map(|v| format!("v{v}")).collect();
        let terms = match self.terms {
            Terms::None => "the challenge",
            Terms::Any => "every offer",
            Terms::ExactSvm => "exact on Solana",
            Terms::ExactEvm => "exact on EVM",
        };
        let kind = match self.target {
            Kind::Http => "HTTP only",
            Kind::Mcp => "MCP only",
            Kind::Both => "HTTP and MCP",
        };
        let probe = self.probe.map(|flag| format!(" · with {flag}")).unwrap_or_default();
        format!("{} · {terms} · {kind}{probe}", versions.join(", "))
    }
}

/// A check of the list (serialised as its id, [`CheckId::as_str`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CheckId {
    /// The GET answers 402.
    Status402,
    /// The challenge decodes from at least one leg.
    ChallengeDecodes,
    /// The challenge is where its version puts it.
    VersionLeg,
    /// The body and the header carry the same challenge.
    LegsAgree,
    /// `x402Version` is 1 or 2.
    VersionKnown,
    /// `accepts` has the version's shape.
    AcceptsShape,
    /// Every offer's scheme is one x402 defines.
    SchemeKnown,
    /// Every offer's network is one the table knows.
    NetworkKnown,
    /// Mainnets and testnets are not mixed.
    NetworksNotMixed,
    /// Every offer's asset is its network's USDC.
    AssetKnown,
    /// Every amount is a positive integer string.
    AmountValid,
    /// Every `payTo` is an address of its network.
    PayToValid,
    /// Every SVM offer names a valid fee payer.
    SvmFeePayer,
    /// A named token account is the associated token account of (payTo, asset).
    SvmTokenAccount,
    /// Every EVM offer carries the asset's EIP-712 domain.
    EvmDomain,
    /// Every `maxTimeoutSeconds` is within bounds.
    TimeoutBounded,
    /// The resource is the URL fetched.
    ResourceMatches,
    /// The description fits 500 characters.
    DescriptionLength,
    /// The challenge says the resource's MIME type.
    MimeTypePresent,
    /// A Bazaar discovery declaration has the extension's shape.
    BazaarDeclaration,
    /// The `PAYMENT-REQUIRED` header fits a proxy's header buffer.
    HeaderSize,
    /// A browser on another origin can read `PAYMENT-REQUIRED`.
    CorsExposeHeader,
    /// A CORS preflight for a paid request is answered.
    CorsPreflight,
    /// No shared cache may keep the 402.
    CacheControl,
    /// `--method`: an empty-body request of that method answers 402 too.
    Method402,
    /// `--facilitator`: its `/supported` covers every offer.
    FacilitatorSupports,
    /// `--facilitator`: every Solana fee payer is one of its signers.
    FacilitatorFeePayer,
    /// `--solana-rpc`: the payout token account exists, holds the mint, is payTo's.
    SvmPayoutAccount,
    /// `--evm-rpc`: the asset is a contract whose EIP-712 name and version are extra's.
    EvmAssetContract,
    /// `--discovery`: the origin's `/.well-known/x402` lists the URL.
    DiscoveryListed,
    /// `--discovery` with `--facilitator`: its discovery listing agrees with the live challenge.
    FacilitatorListing,
    /// An MCP server answers in an era and lists the tools named.
    McpAnswers,
    /// A named tool's unpaid call is x402's tool-result binding.
    McpToolResult,
    /// On 2026-07-28, that result says its `resultType`.
    McpResultType,
    /// On 2026-07-28, the advertised extension binding answers `payment_required`.
    McpPaymentExtension,
}

impl Serialize for CheckId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

const BOTH: &[u8] = &[1, 2];
const V2: &[u8] = &[2];

/// What one check is: the list's one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Check {
    /// The check.
    pub id: CheckId,
    /// Its level.
    pub level: Level,
    /// What it applies to.
    pub applies: Applies,
    /// What must be true, in one sentence.
    pub sentence: &'static str,
}

impl CheckId {
    /// The whole list, in the order the output gives it.
    pub const ALL: [Self; 35] = [
        Self::Status402,
        Self::ChallengeDecodes,
        Self::VersionLeg,
        Self::LegsAgree,
        Self::VersionKnown,
        Self::AcceptsShape,
        Self::SchemeKnown,
        Self::NetworkKnown,
        Self::NetworksNotMixed,
        Self::AssetKnown,
        Self::AmountValid,
        Self::PayToValid,
        Self::SvmFeePayer,
        Self::SvmTokenAccount,
        Self::EvmDomain,
        Self::TimeoutBounded,
        Self::ResourceMatches,
        Self::DescriptionLength,
        Self::MimeTypePresent,
        Self::BazaarDeclaration,
        Self::HeaderSize,
        Self::CorsExposeHeader,
        Self::CorsPreflight,
        Self::CacheControl,
        Self::Method402,
        Self::FacilitatorSupports,
        Self::FacilitatorFeePayer,
        Self::SvmPayoutAccount,
        Self::EvmAssetContract,
        Self::DiscoveryListed,
        Self::FacilitatorListing,
        Self::McpAnswers,
        Self::McpToolResult,
        Self::McpResultType,
        Self::McpPaymentExtension,
    ];

    /// The check's id as the output and the docs write it (also its docs anchor).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Status402 => "status-402",
            Self::ChallengeDecodes => "challenge-decodes",
            Self::VersionLeg => "version-leg",
            Self::LegsAgree => "legs-agree",
            Self::VersionKnown => "version-known",
            Self::AcceptsShape => "accepts-shape",
            Self::SchemeKnown => "scheme-known",
            Self::NetworkKnown => "network-known",
            Self::NetworksNotMixed => "networks-not-mixed",
            Self::AssetKnown => "asset-known",
            Self::AmountValid => "amount-valid",
            Self::PayToValid => "pay-to-valid",
            Self::SvmFeePayer => "svm-fee-payer",
            Self::SvmTokenAccount => "svm-token-account",
            Self::EvmDomain => "evm-domain",
            Self::TimeoutBounded => "timeout-bounded",
            Self::ResourceMatches => "resource-matches",
            Self::DescriptionLength => "description-length",
            Self::MimeTypePresent => "mime-type-present",
            Self::BazaarDeclaration => "bazaar-declaration",
            Self::HeaderSize => "header-size",
            Self::CorsExposeHeader => "cors-expose-header",
            Self::CorsPreflight => "cors-preflight",
            Self::CacheControl => "cache-control",
            Self::Method402 => "method-402",
            Self::FacilitatorSupports => "facilitator-supports",
            Self::FacilitatorFeePayer => "facilitator-fee-payer",
            Self::SvmPayoutAccount => "svm-payout-account",
            Self::EvmAssetContract => "evm-asset-contract",
            Self::DiscoveryListed => "discovery-listed",
            Self::FacilitatorListing => "facilitator-listing",
            Self::McpAnswers => "mcp-answers",
            Self::McpToolResult => "mcp-tool-result",
            Self::McpResultType => "mcp-result-type",
            Self::McpPaymentExtension => "mcp-payment-extension",
        }
    }

    /// The check's row of the list.
    pub fn check(self) -> Check {
        let (level, versions, terms, target, sentence) = self.row();
        let applies = Applies { versions, terms, target, probe: self.probe() };
        Check { id: self, level, applies, sentence }
    }

    /// The flag of the opt-in probe the check reads, if it reads one.
    pub fn probe(self) -> Option<&'static str> {
        match self {
            Self::Method402 => Some("--method"),
            Self::FacilitatorSupports | Self::FacilitatorFeePayer => Some("--facilitator"),
            Self::SvmPayoutAccount => Some("--solana-rpc"),
            Self::EvmAssetContract => Some("--evm-rpc"),
            Self::DiscoveryListed => Some("--discovery"),
            Self::FacilitatorListing => Some("--discovery and --facilitator"),
            _ => None,
        }
    }

    /// The check's level.
    pub fn level(self) -> Level {
        self.row().0
    }

    /// The one table: level, versions, terms, HTTP only, sentence.
    fn row(self) -> (Level, &'static [u8], Terms, Kind, &'static str) {
        use Kind::{Both, Http, Mcp};
        use Level::{Error, Warning};
        match self {
            Self::Status402 => (Error, BOTH, Terms::None, Http, "An unpaid GET answers HTTP 402."),
            Self::ChallengeDecodes => (
                Error,
                BOTH,
                Terms::None,
                Both,
                "The body is a JSON challenge, or PAYMENT-REQUIRED is base64 of one: an object with x402Version.",
            ),
            Self::VersionLeg => (
                Error,
                BOTH,
                Terms::None,
                Http,
                "The challenge is where its version puts it: v1 in the JSON body, v2 in the PAYMENT-REQUIRED header.",
            ),
            Self::LegsAgree => (
                Warning,
                BOTH,
                Terms::None,
                Http,
                "When the body and PAYMENT-REQUIRED carry challenges of the same x402Version, they have the same accepts (legs of two versions are a dual-version challenge: not compared).",
            ),
            Self::VersionKnown => (Error, BOTH, Terms::None, Both, "x402Version is 1 or 2."),
            Self::AcceptsShape => (
                Error,
                BOTH,
                Terms::Any,
                Both,
                "accepts is a non-empty array of offers, each with every field its version requires, of the right JSON type (v2: and a resource object with a url).",
            ),
            Self::SchemeKnown => (
                Error,
                BOTH,
                Terms::Any,
                Both,
                "Every offer's scheme is one x402 defines: exact or upto.",
            ),
            Self::NetworkKnown => (
                Error,
                BOTH,
                Terms::Any,
                Both,
                "Every offer's network is a network of the doctor's table, spelt as its version spells it (v1: its name; v2: its CAIP-2 id), or in v2 another EVM chain's CAIP-2 id (eip155:<chain id>).",
            ),
            Self::NetworksNotMixed => (
                Warning,
                BOTH,
                Terms::Any,
                Both,
                "The offers are all on mainnets or all on testnets.",
            ),
            Self::AssetKnown => (
                Error,
                BOTH,
                Terms::Any,
                Both,
                "Every offer on a network of the table asks for that network's USDC.",
            ),
            Self::AmountValid => (
                Error,
                BOTH,
                Terms::Any,
                Both,
                "Every amount (v2 amount, v1 maxAmountRequired) is a positive integer string of base units, and an offer carrying both has them equal.",
            ),
            Self::PayToValid => (
                Error,
                BOTH,
                Terms::Any,
                Both,
                "Every payTo on a network of the table is an address of it: base58 of 32 bytes (Solana), or 0x and 40 hex digits with a valid EIP-55 checksum when mixed-case (EVM).",
            ),
            Self::SvmFeePayer => (
                Error,
                BOTH,
                Terms::ExactSvm,
                Both,
                "Every exact offer on Solana names extra.feePayer, base58 of 32 bytes: the facilitator's key that pays the fee.",
            ),
            Self::SvmTokenAccount => (
                Error,
                BOTH,
                Terms::ExactSvm,
                Both,
                "A token account an offer names (extra.usdc_token_account) is the associated token account of its payTo and asset.",
            ),
            Self::EvmDomain => (
                Error,
                BOTH,
                Terms::ExactEvm,
                Both,
                "Every exact offer on an EVM network carries the asset's EIP-712 domain in extra.name and extra.version, equal to the table's for the network's USDC.",
            ),
            Self::TimeoutBounded => (
                Warning,
                BOTH,
                Terms::Any,
                Both,
                "Every maxTimeoutSeconds is an integer from 10 to 3,600.",
            ),
            Self::ResourceMatches => (
                Warning,
                BOTH,
                Terms::None,
                Http,
                "The resource the challenge names (v1: each offer's resource; v2: resource.url) is the URL fetched.",
            ),
            Self::DescriptionLength => (
                Warning,
                BOTH,
                Terms::None,
                Both,
                "The description (v1: each offer's; v2: resource.description) is at most 500 characters.",
            ),
            Self::MimeTypePresent => (
                Warning,
                BOTH,
                Terms::None,
                Both,
                "The challenge says the resource's MIME type (v1: each offer's mimeType; v2: resource.mimeType).",
            ),
            Self::BazaarDeclaration => (
                Warning,
                V2,
                Terms::None,
                Both,
                "A Bazaar declaration (extensions.bazaar) has the extension's shape: info.input of type http (with a method and, for a body method, bodyType and body) or mcp (with tool and inputSchema), and a schema object.",
            ),
            Self::HeaderSize => (
                Warning,
                V2,
                Terms::None,
                Http,
                "PAYMENT-REQUIRED is at most 8,192 bytes, so a reverse proxy's default header buffer passes it.",
            ),
            Self::CorsExposeHeader => (
                Warning,
                V2,
                Terms::None,
                Http,
                "A browser on another origin can read the 402's PAYMENT-REQUIRED: Access-Control-Allow-Origin is present and Access-Control-Expose-Headers names PAYMENT-REQUIRED (or *).",
            ),
            Self::CorsPreflight => (
                Warning,
                V2,
                Terms::None,
                Http,
                "An OPTIONS preflight for a paid request (Origin, Access-Control-Request-Method GET, Access-Control-Request-Headers PAYMENT-SIGNATURE) answers 2xx, allows the origin and allows the header.",
            ),
            Self::CacheControl => (
                Warning,
                BOTH,
                Terms::None,
                Http,
                "The 402's Cache-Control does not let a shared cache keep it (no public, s-maxage or max-age above 0 without no-store or private).",
            ),
            Self::Method402 => (
                Error,
                BOTH,
                Terms::None,
                Http,
                "An empty-body request of the method --method names (declared: the Bazaar declaration's method, else POST) answers 402 too, not 400 or 405.",
            ),
            Self::FacilitatorSupports => (
                Error,
                BOTH,
                Terms::Any,
                Both,
                "The facilitator's /supported lists a kind with every offer's x402Version, scheme and network.",
            ),
            Self::FacilitatorFeePayer => (
                Error,
                BOTH,
                Terms::ExactSvm,
                Both,
                "Every exact Solana offer of a kind the facilitator supports names in extra.feePayer one of its signers for that network.",
            ),
            Self::SvmPayoutAccount => (
                Error,
                BOTH,
                Terms::ExactSvm,
                Both,
                "The payout token account (the one an offer names, else the associated token account of payTo and asset) exists, holds the asset's mint and is owned by payTo.",
            ),
            Self::EvmAssetContract => (
                Error,
                BOTH,
                Terms::ExactEvm,
                Both,
                "Every EVM offer's asset has code, and its name() and version() are extra.name and extra.version.",
            ),
            Self::DiscoveryListed => {
                (Warning, BOTH, Terms::None, Http, "The origin's /.well-known/x402 lists the URL.")
            }
            Self::FacilitatorListing => (
                Warning,
                V2,
                Terms::Any,
                Both,
                "The facilitator's discovery listing of the URL has the live challenge's offers, field by field.",
            ),
            Self::McpAnswers => (
                Error,
                V2,
                Terms::None,
                Mcp,
                "The server answers server/discover (2026-07-28) or initialize (the handshake era), and its tools/list lists every tool --tool names (without --tool: declares a price on at most 32 tools).",
            ),
            Self::McpToolResult => (
                Error,
                V2,
                Terms::None,
                Mcp,
                "Every named tool's unpaid call is a tool result with isError, a PaymentRequired in structuredContent, and the same in content[0].text (or in its x402/error wrapper's data).",
            ),
            Self::McpResultType => (
                Error,
                V2,
                Terms::None,
                Mcp,
                "On 2026-07-28, that tool result carries resultType complete.",
            ),
            Self::McpPaymentExtension => (
                Warning,
                V2,
                Terms::None,
                Mcp,
                "On 2026-07-28, when server/discover advertises org.x402/payment, an unpaid call whose client advertises it too answers resultType payment_required with a paymentRequired offering the same terms.",
            ),
        }
    }
}
