//! The web page for people (`GET /` asked for HTML, `GET /page.js`, `GET /page.css`): one
//! self-contained page from this origin, under a Content-Security-Policy that allows scripts,
//! styles and connections from this origin only (no inline script, no `eval`), and the relay of
//! the two Solana RPC calls its payment makes ([`rpc`]). The page is built in `web/` (its script
//! bundled by `scripts/build-web`, committed) and embedded here; the criteria function serves it
//! with the other free documents, the precheck function the relay.

mod rpc;

pub(super) use rpc::{BlockhashCache, relay};

use http::StatusCode;
use http::header::ACCEPT;

use super::request::ApiRequest;
use super::respond::{ApiResponse, bytes_response, error};
use crate::base_url::Base;
use crate::routes::{Route, TOLL_PREFIX};
use crate::rules::ApiError;

// `embedded/` links to the files of web/ (and of corpus/): `cargo package` puts the files
// themselves in the crate, so it builds from crates.io too.

/// The page. Its one placeholder, `{base}` in `<base href>`, is the page's own directory
/// (every URL it names is relative to it), filled in as it is served.
const PAGE_HTML: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/embedded/index.html"));
/// Its script: web/src bundled with the official x402 client packages (`scripts/build-web`).
const PAGE_JS: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/embedded/page.js"));
/// Its style sheet.
const PAGE_CSS: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/embedded/page.css"));

/// What the page may load and where it may connect: this origin only (wallet icons are `data:`
/// images); no inline script or style, no `eval`, no frame, no form posted anywhere.
pub(super) const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    img-src 'self' data:; connect-src 'self'; base-uri 'self'; form-action 'none'; frame-ancestors 'none'";

/// The answer of a page route: the page to a request that accepts HTML (any other `Accept` is
/// answered as before there was a page: 404), the script and the style sheet. The page needs
/// the API's base URL (its `<base>`): without one, 503 `base_url_unknown`.
pub(in crate::api) fn answer(
    route: Route,
    base: Result<Base, ApiResponse>,
    request: &ApiRequest,
) -> ApiResponse {
    let (content_type, bytes) = match route {
        Route::Page if accepts_html(request) => match base {
            Ok(base) => ("text/html; charset=utf-8", page_under(&base, request).into_bytes()),
            Err(refusal) => return refusal,
        },
        Route::PageScript => ("text/javascript; charset=utf-8", PAGE_JS.to_vec()),
        Route::PageStyle => ("text/css; charset=utf-8", PAGE_CSS.to_vec()),
        _ => return error(ApiError::NotFound),
    };
    bytes_response(StatusCode::OK, content_type, bytes)
        .with_header("content-security-policy", CONTENT_SECURITY_POLICY)
        .with_header("x-content-type-options", "nosniff")
        .with_header("referrer-policy", "no-referrer")
}

/// The page with its `<base>`: the directory of the API's routes as this request reached it
/// (under the public prefix when it came that way).
fn page_under(base: &Base, request: &ApiRequest) -> String {
    let directory =
        match request.path.starts_with(TOLL_PREFIX) && !base.prefix.ends_with(TOLL_PREFIX) {
            true => base.url(&format!("{TOLL_PREFIX}/")),
            false => base.url("/"),
        };
    // The base is ours (a parsed origin and path): no character of it needs escaping in an
    // attribute but `&` and `"`, which a parsed URL's path may carry.
    let attribute = directory.replace('&', "&amp;").replace('"', "&quot;");
    PAGE_HTML.replacen("{base}", &attribute, 1)
}

/// Whether the request's `Accept` names HTML (a browser's navigation does).
fn accepts_html(request: &ApiRequest) -> bool {
    request.headers.get_all(ACCEPT).iter().filter_map(|value| value.to_str().ok()).any(|value| {
        value.split(',').any(|range| {
            let media = range.split(';').next().unwrap_or_default().trim();
            media.eq_ignore_ascii_case("text/html")
                || media.eq_ignore_ascii_case("application/xhtml+xml")
        })
    })
}

#[cfg(test)]
mod tests {
    use http::{HeaderMap, HeaderValue, Method};
    use payability_tests::prices::dollar_amounts;

    use super::*;

    fn get(path: &str, accept: Option<&'static str>) -> ApiRequest {
        let mut headers = HeaderMap::new();
        if let Some(accept) = accept {
            headers.insert(ACCEPT, HeaderValue::from_static(accept));
        }
        ApiRequest {
            method: Method::GET,
            path: path.to_owned(),
            query: None,
            headers,
            body: Vec::new(),
            source_ip: None,
            public_base_url: None,
            request_id: "page".to_owned(),
        }
    }

    /// (Accept, the page served) for `GET /`.
    #[test]
    fn the_page_answers_a_request_for_html_and_nothing_else() {
        let vectors = [
            (Some("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"), true),
            (Some("application/xhtml+xml"), true),
            (Some("TEXT/HTML; q=0.5"), true),
            (Some("application/json"), false),
            (Some("*/*"), false),
            (Some("text/htmlx"), false),
            (None, false),
        ];
        let base =
            || Base::parse("https://a.example/v1").ok_or_else(|| error(ApiError::BaseUrlUnknown));
        for (accept, served) in vectors {
            let answer = answer(Route::Page, base(), &get("/", accept));
            assert_eq!(answer.status() == StatusCode::OK, served, "{accept:?}");
            let page = String::from_utf8(answer.body().to_vec()).unwrap();
            assert_eq!(
                page.contains(r#"<base href="https://a.example/v1/">"#),
                served,
                "{accept:?}"
            );
        }
    }

    /// (the path the page was asked at, the base URL) => its `<base>`.
    #[test]
    fn the_page_names_its_own_directory_as_its_base() {
        let vectors = [
            ("/", "https://a.example", "https://a.example/"),
            ("/", "https://a.example/v1", "https://a.example/v1/"),
            ("/toll/payability", "https://a.example/v1", "https://a.example/v1/toll/payability/"),
            (
                "/toll/payability",
                "https://a.example/toll/payability",
                "https://a.example/toll/payability/",
            ),
        ];
        for (path, base, want) in vectors {
            let page = page_under(&Base::parse(base).unwrap(), &get(path, None));
            assert!(page.contains(&format!(r#"<base href="{want}">"#)), "{path} {base}");
            assert!(!page.contains("{base}"), "filled once");
        }
    }

    #[test]
    fn the_page_loads_nothing_inline_and_nothing_from_elsewhere() {
        let page = PAGE_HTML;
        assert!(
            !page.contains("<script>") && !page.contains(" style="),
            "no inline script or style"
        );
        for absolute in [r#"src="http"#, r#"href="http"#, r#"src="//"#, r#"href="//"#] {
            assert!(!page.contains(absolute), "every URL the page loads is relative: {absolute}");
        }
        assert!(page.contains(r#"<script type="module" src="page.js">"#));
        let script = String::from_utf8(PAGE_JS.to_vec()).unwrap();
        assert!(!script.contains("eval(") && !script.contains("new Function"), "no eval");
        for policy in ["script-src 'self'", "connect-src 'self'", "default-src 'none'"] {
            assert!(CONTENT_SECURITY_POLICY.contains(policy), "{policy}");
        }
    }

    /// The page states the price (the buy button, the wallet's spend cap) as static text, so
    /// every dollar amount in it is held to the constant: the committed script is what web/src
    /// builds (`scripts/build-web --check`), so this holds web/src/main.js too.
    #[test]
    fn every_dollar_amount_the_page_states_is_the_price() {
        let price = payability_core::price::price_usd();
        let script = std::str::from_utf8(PAGE_JS).unwrap();
        let mut wrong = Vec::new();
        for (file, text) in [("web/index.html", PAGE_HTML), ("web/dist/page.js", script)] {
            let amounts = dollar_amounts(text);
            assert!(!amounts.is_empty(), "{file} states the price");
            wrong.extend(
                amounts.into_iter().filter(|a| *a != price).map(|a| format!("{file}: {a}")),
            );
        }
        assert!(
            wrong.is_empty(),
            "the price is {price}, but the page states {wrong:?}: change web/ and run scripts/build-web"
        );
    }
}
