//! What lets an agent that only has the base URL find, understand, pay and check this
//! service, all generated from the route table ([`crate::routes::Route`]), the closed error list
//! ([`crate::rules`]) and the core's types: `GET /openapi.json` (OpenAPI 3.1),
//! `GET /.well-known/x402`, `GET /llms.txt`, `GET /corpus` (the committed corpus, as is) and
//! the discovery description every 402 carries ([`bazaar`]). The documents are free and need
//! no seed and no store: the criteria function answers them with `/criteria`.

mod agent_card;
mod bazaar;
mod criteria;
mod llms;
mod openapi;
mod payment_identifier;

use http::StatusCode;
use payability_core::criteria::SigningKeyEntry;
use payability_core::payment::receipt::{did_document, did_web};
use serde_json::{Value, json};

pub use agent_card::{X402_EXTENSION_URI, X402_EXTENSION_URI_V01};
pub(in crate::api) use bazaar::description;
pub use bazaar::{EXAMPLE_URL, RouteDescription, example_report};
pub(in crate::api) use criteria::criteria_response;
pub use openapi::openapi_document;
pub use payment_identifier::{PAYMENT_IDENTIFIER, declaration as payment_identifier_declaration};

pub use crate::base_url::Base;

use super::request::ApiRequest;
use super::respond::{ApiResponse, bytes_response, error, json_response};
use crate::routes::Route;
use crate::rules::ApiError;

/// The committed corpus, served byte for byte at `GET /corpus` (`embedded/` links to it, so
/// the packaged crate carries it).
pub const CORPUS_JSON: &[u8] =
    include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/embedded/payability-corpus-v1.json"));

/// What the free documents are built from: the published signing keys and, when
/// configured, the API's public base URL (else each request's own, as the platform reports it).
#[derive(Debug, Clone, Default)]
pub struct Publication {
    /// The keys `/criteria` publishes.
    pub keys: Vec<SigningKeyEntry>,
    /// The configured public base URL (origin and path prefix, no trailing slash).
    pub public_base_url: Option<String>,
}

/// `GET /.well-known/x402`: the paid resources, as x402scan's discovery reads them, and its
/// optional `instructions`: this service's version and where to read how to pay and verify.
pub fn well_known_x402(base: &Base) -> Value {
    let resources: Vec<String> =
        Route::ALL.into_iter().filter(|r| r.paid().is_some()).map(|r| base.url(r.path())).collect();
    let instructions = format!(
        "payability-verdict {version}: signed verdicts on x402 402 challenges; how to pay, call \
         and verify: {llms}",
        version = env!("CARGO_PKG_VERSION"),
        llms = base.url(Route::LlmsTxt.path()),
    );
    json!({"version": 1, "resources": resources, "instructions": instructions})
}

/// The answer of a free document route (`None` for any other route). The documents that name
/// URLs need the base URL: without one they answer 503 `base_url_unknown`.
pub(super) fn answer_document(
    route: Route,
    publication: &Publication,
    request: &ApiRequest,
) -> Option<ApiResponse> {
    let base = publication
        .public_base_url
        .as_deref()
        .or(request.public_base_url.as_deref())
        .and_then(Base::parse)
        .ok_or_else(|| error(ApiError::BaseUrlUnknown));
    let answer = match route {
        Route::Criteria => criteria::criteria_response(publication.keys.clone()),
        Route::Corpus => bytes_response(StatusCode::OK, "application/json", CORPUS_JSON.to_vec()),
        Route::OpenApi => match base {
            Ok(base) => json_response(StatusCode::OK, &openapi_document(&base)),
            Err(refusal) => refusal,
        },
        Route::WellKnownX402 => match base {
            Ok(base) => json_response(StatusCode::OK, &well_known_x402(&base)),
            Err(refusal) => refusal,
        },
        Route::DidDocument => {
            let did = base.and_then(|base| {
                did_web(&base.url("")).ok_or_else(|| error(ApiError::BaseUrlUnknown))
            });
            match did {
                Ok(did) => json_response(StatusCode::OK, &did_document(&did, &publication.keys)),
                Err(refusal) => refusal,
            }
        }
        Route::LlmsTxt => match base {
            Ok(base) => bytes_response(
                StatusCode::OK,
                "text/plain; charset=utf-8",
                llms::llms_txt(&base).into_bytes(),
            ),
            Err(refusal) => refusal,
        },
        Route::AgentCard => match base {
            Ok(base) => json_response(StatusCode::OK, &agent_card::agent_card(&base)),
            Err(refusal) => refusal,
        },
        Route::Page | Route::PageScript | Route::PageStyle => {
            super::page::answer(route, base, request)
        }
        Route::Precheck
        | Route::Check
        | Route::Memo
        | Route::Metrics
        | Route::Mcp
        | Route::A2a
        | Route::Rpc => return None,
    };
    Some(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_splits_into_origin_and_prefix() {
        let vectors = [
            ("http://127.0.0.1:8402", Some(("http://127.0.0.1:8402", ""))),
            ("https://a.example/v1/", Some(("https://a.example", "/v1"))),
            (
                "https://A.example:443/toll/payability",
                Some(("https://a.example", "/toll/payability")),
            ),
            ("https://a.example/v1?x=1", None),
            ("ftp://a.example", None),
            ("not a url", None),
        ];
        for (text, want) in vectors {
            let got = Base::parse(text);
            assert_eq!(
                got.as_ref().map(|b| (b.origin.as_str(), b.prefix.as_str())),
                want,
                "{text}"
            );
        }
        let base = Base::parse("https://a.example/v1").unwrap();
        assert_eq!(base.url("/check"), "https://a.example/v1/check");
        assert_eq!(well_known_x402(&base)["resources"][1], "https://a.example/v1/memo");
    }

    #[test]
    fn the_served_corpus_is_the_committed_file() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/embedded/payability-corpus-v1.json");
        assert_eq!(std::fs::read(path).unwrap(), CORPUS_JSON);
    }
}
