//! What `check` and `memo` are asked to check, in order: the URLs on the command line, then
//! those of `--urls-from FILE`, then every resource `--catalogue ORIGIN` lists at
//! `ORIGIN/.well-known/x402`. Every input is bounded (URLs per run, file size, line length,
//! catalogue bytes and resources), each bound with its own closed-form error, never a silent
//! cap. A catalogue is fetched by the same bounded fetcher, under the same target policy, as
//! the URLs it lists.

use std::io::Read;
use std::path::Path;

use payability_core::capture::{BODY_CAP_BYTES, CapturedBody, FetchOutcome};
use payability_core::policy::{AddressRule, MAX_URL_BYTES, TargetUrl, vet_target_url};
use payability_runtime::fetch::Fetcher;
use serde_json::Value;

use crate::exit::{EXIT_FAILED, EXIT_REFUSED};

/// Most URLs one run checks: the command line's, the file's and a catalogue's together.
pub(crate) const MAX_URLS: usize = 256;
/// Largest `--urls-from` file, in bytes.
pub(crate) const MAX_URLS_FILE_BYTES: usize = 262_144;
/// The x402 discovery document's path under an origin.
const WELL_KNOWN_X402: &str = "/.well-known/x402";
/// The methods a catalogue may write before a resource's path (`"POST /weather"`).
const METHODS: [&str; 7] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/// A closed-form problem: a rule id, a message of static words and numbers, an exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// The rule id.
    pub(crate) rule: &'static str,
    /// Static words (and numbers against caps); never a value read from a file or a fetch.
    pub(crate) message: String,
    /// [`EXIT_REFUSED`] or [`EXIT_FAILED`].
    pub(crate) exit: u8,
}

impl Problem {
    /// A refusal of the input (exit 2).
    pub(crate) fn refused(rule: &'static str, message: impl Into<String>) -> Self {
        Self { rule, message: message.into(), exit: EXIT_REFUSED }
    }

    /// An operational failure (exit 1).
    pub(crate) fn failed(rule: &'static str, message: impl Into<String>) -> Self {
        Self { rule, message: message.into(), exit: EXIT_FAILED }
    }
}

/// One thing to check, in the run's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A URL, as given or as a catalogue resolved it; `listed` is the method a catalogue wrote
    /// before it when that is not GET (the rule fetches with GET whatever it says).
    Url {
        /// The URL, vetted by the target policy when its turn comes.
        url: String,
        /// The catalogue's method, when it is not GET.
        listed: Option<&'static str>,
    },
    /// A catalogue entry, or the catalogue itself, that names nothing to check.
    Unusable(Problem),
}

/// The refusal of a run with more than [`MAX_URLS`] URLs.
fn too_many_urls() -> Problem {
    Problem::refused(
        "too_many_urls",
        format!(
            "one run checks at most {MAX_URLS} URLs (the command line's, the file's and the catalogue's together)"
        ),
    )
}

/// The URLs of the command line and the `--urls-from` file, in order, within [`MAX_URLS`].
pub(crate) fn given(urls: &[String], file: Option<&Path>) -> Result<Vec<Target>, Problem> {
    let mut all: Vec<String> = urls.to_vec();
    if let Some(path) = file {
        all.extend(read_urls_file(path)?);
    }
    if all.len() > MAX_URLS {
        return Err(too_many_urls());
    }
    Ok(all.into_iter().map(|url| Target::Url { url, listed: None }).collect())
}

/// The URLs of a `--urls-from` file: one a line, ASCII blanks around it ignored, blank lines
/// and lines starting with `#` skipped.
fn read_urls_file(path: &Path) -> Result<Vec<String>, Problem> {
    let unreadable = || {
        Problem::refused(
            "urls_file_unreadable",
            "the --urls-from file cannot be read as UTF-8 text",
        )
    };
    let file = std::fs::File::open(path).map_err(|_| unreadable())?;
    let mut bytes = Vec::new();
    file.take(MAX_URLS_FILE_BYTES as u64 + 1).read_to_end(&mut bytes).map_err(|_| unreadable())?;
    if bytes.len() > MAX_URLS_FILE_BYTES {
        return Err(Problem::refused(
            "urls_file_too_large",
            format!("the --urls-from file is larger than {MAX_URLS_FILE_BYTES} bytes"),
        ));
    }
    let text = String::from_utf8(bytes).map_err(|_| unreadable())?;
    urls_of_text(&text)
}

/// The URLs of a file's text (see [`read_urls_file`]).
fn urls_of_text(text: &str) -> Result<Vec<String>, Problem> {
    let mut urls = Vec::new();
    for (line, n) in text.lines().zip(1usize..) {
        if line.len() > MAX_URL_BYTES {
            return Err(Problem::refused(
                "urls_file_line_too_long",
                format!("line {n} of the --urls-from file is longer than {MAX_URL_BYTES} bytes"),
            ));
        }
        let line = line.trim_ascii();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if urls.len() == MAX_URLS {
            return Err(too_many_urls());
        }
        urls.push(line.to_owned());
    }
    Ok(urls)
}

/// The catalogue's URL, `ORIGIN/.well-known/x402`, when `origin` is an origin the target
/// policy allows (a scheme, a host and a port; no path, query or fragment).
pub(crate) fn catalogue_url(origin: &str, rule: AddressRule) -> Result<TargetUrl, Problem> {
    let origin = vet_target_url(origin, rule)
        .map_err(|refusal| Problem::refused(refusal.rule(), refusal.message()))?;
    let url = origin.url();
    if url.path() != "/" || url.query().is_some() {
        return Err(Problem::refused(
            "catalogue_not_an_origin",
            "--catalogue takes an origin: http:// or https://, a host and a port, no path or query",
        ));
    }
    let well_known = url.join(WELL_KNOWN_X402).expect("an origin joins an absolute path");
    vet_target_url(well_known.as_str(), rule)
        .map_err(|refusal| Problem::refused(refusal.rule(), refusal.message()))
}

/// `targets` with the catalogue's resources after them (fetched now), or the catalogue's
/// problem in their place: what a run of `check`, `memo` or `doctor` goes through.
pub(crate) async fn with_catalogue(
    fetcher: &Fetcher,
    mut targets: Vec<Target>,
    catalogue: Option<Result<TargetUrl, Problem>>,
) -> Vec<Target> {
    match catalogue {
        None => {}
        Some(Err(problem)) => targets.push(Target::Unusable(problem)),
        Some(Ok(url)) => {
            let room = MAX_URLS - targets.len();
            match listed(fetcher, &url, room).await {
                Ok(listed) => targets.extend(listed),
                Err(problem) => targets.push(Target::Unusable(problem)),
            }
        }
    }
    targets
}

/// Fetches the catalogue and resolves every resource it lists against its origin; an entry
/// that names nothing to check is an [`Target::Unusable`] in its place. `room` is how many
/// URLs the run can still take.
pub(crate) async fn listed(
    fetcher: &Fetcher,
    catalogue: &TargetUrl,
    room: usize,
) -> Result<Vec<Target>, Problem> {
    let capture = match fetcher.fetch(catalogue).await {
        FetchOutcome::Captured(capture) if capture.status == 200 => capture,
        _ => {
            return Err(Problem::failed(
                "catalogue_unavailable",
                "the catalogue (ORIGIN/.well-known/x402) did not answer 200 within 5,000 ms",
            ));
        }
    };
    let body = match &capture.body {
        CapturedBody::Complete(body) => body,
        CapturedBody::OverCap => {
            return Err(Problem::refused(
                "catalogue_over_cap",
                format!("the catalogue is larger than {BODY_CAP_BYTES} bytes"),
            ));
        }
    };
    let resources = resources_of(body, room)?;
    Ok(resources.iter().map(|resource| resolve(catalogue, resource)).collect())
}

/// The resources of an x402 discovery document (`{"version": 1, "resources": [strings]}`),
/// at most `room` of them.
fn resources_of(body: &[u8], room: usize) -> Result<Vec<String>, Problem> {
    let malformed = || {
        Problem::refused(
            "catalogue_malformed",
            "the catalogue is not an x402 discovery document: {\"version\": 1, \"resources\": [strings]}",
        )
    };
    let document: Value = serde_json::from_slice(body).map_err(|_| malformed())?;
    if document.get("version").and_then(Value::as_u64) != Some(1) {
        return Err(malformed());
    }
    let list = document.get("resources").and_then(Value::as_array).ok_or_else(malformed)?;
    if list.len() > room {
        return Err(too_many_urls());
    }
    list.iter().map(|item| item.as_str().map(str::to_owned).ok_or_else(malformed)).collect()
}

/// One resource of the catalogue: `METHOD /path`, a path, or an absolute URL, resolved
/// against the catalogue's origin; a resource on another origin is refused.
fn resolve(catalogue: &TargetUrl, resource: &str) -> Target {
    let (method, reference) = match resource.split_once(' ') {
        Some((method, path)) if method.bytes().all(|b| b.is_ascii_alphabetic()) => {
            match METHODS.into_iter().find(|m| *m == method) {
                Some(method) => (Some(method), path.trim_ascii_start()),
                None => return Target::Unusable(resource_malformed()),
            }
        }
        _ => (None, resource),
    };
    let base = catalogue.url();
    let Ok(url) = base.join(reference) else {
        return Target::Unusable(resource_malformed());
    };
    if url.origin() != base.origin() {
        return Target::Unusable(Problem::refused(
            "catalogue_other_origin",
            "the catalogue lists a resource on another origin; only the catalogue's own origin is checked",
        ));
    }
    Target::Url { url: url.into(), listed: method.filter(|m| *m != "GET") }
}

/// The refusal of a catalogue entry that is not a URL, a path or `METHOD /path`.
fn resource_malformed() -> Problem {
    Problem::refused(
        "catalogue_resource_malformed",
        "a catalogue resource is not a URL, a path, or a method (GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS) and a path",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_urls_file_skips_blanks_and_comments_and_bounds_its_lines() {
        let long = format!("https://a.example/{}", "x".repeat(MAX_URL_BYTES));
        let many = "https://a.example/\n".repeat(MAX_URLS + 1);
        let vectors: [(&str, Result<&[&str], &str>); 6] = [
            (
                "https://a.example/1\n\n# a comment\n  https://a.example/2  \r\n",
                Ok(&["https://a.example/1", "https://a.example/2"]),
            ),
            ("", Ok(&[])),
            ("  # indented comment\n\t\n", Ok(&[])),
            ("not a url\n", Ok(&["not a url"])),
            (&long, Err("urls_file_line_too_long")),
            (&many, Err("too_many_urls")),
        ];
        for (text, wanted) in vectors {
            let got = urls_of_text(text).map_err(|p| p.rule);
            let wanted = wanted.map(|urls| urls.iter().map(|u| u.to_string()).collect::<Vec<_>>());
            assert_eq!(got, wanted, "{text:?}");
        }
        let error = urls_of_text(&format!("https://a.example/\n{long}")).unwrap_err();
        assert_eq!(error.message, "line 2 of the --urls-from file is longer than 2048 bytes");
    }

    #[test]
    fn a_catalogue_resolves_against_its_origin_and_refuses_another() {
        let catalogue =
            vet_target_url("http://127.0.0.1:8/.well-known/x402", AddressRule::AllowPrivate)
                .unwrap();
        let url = |url: &str, listed| Target::Url { url: url.to_owned(), listed };
        let vectors: [(&str, Result<Target, &str>); 10] = [
            ("POST /v1/check", Ok(url("http://127.0.0.1:8/v1/check", Some("POST")))),
            ("GET /w?city=x", Ok(url("http://127.0.0.1:8/w?city=x", None))),
            ("/weather", Ok(url("http://127.0.0.1:8/weather", None))),
            ("http://127.0.0.1:8/a", Ok(url("http://127.0.0.1:8/a", None))),
            ("https://127.0.0.1:8/a", Err("catalogue_other_origin")),
            ("http://127.0.0.1:9/a", Err("catalogue_other_origin")),
            ("//evil.example/a", Err("catalogue_other_origin")),
            ("FETCH /a", Err("catalogue_resource_malformed")),
            ("post /a", Err("catalogue_resource_malformed")),
            ("http://[::1/", Err("catalogue_resource_malformed")),
        ];
        for (resource, wanted) in vectors {
            let got = match resolve(&catalogue, resource) {
                Target::Unusable(problem) => Err(problem.rule),
                target => Ok(target),
            };
            assert_eq!(got, wanted, "{resource}");
        }
    }

    #[test]
    fn a_catalogue_is_a_discovery_document_within_the_run_s_room() {
        let vectors: [(&str, usize, Result<usize, &str>); 8] = [
            (r#"{"version": 1, "resources": ["/a", "POST /b"]}"#, 2, Ok(2)),
            (r#"{"version": 1, "resources": []}"#, 0, Ok(0)),
            (r#"{"version": 1, "resources": ["/a", "/b"]}"#, 1, Err("too_many_urls")),
            (r#"{"version": 2, "resources": []}"#, 9, Err("catalogue_malformed")),
            (r#"{"resources": []}"#, 9, Err("catalogue_malformed")),
            (r#"{"version": 1, "resources": [{"url": "/a"}]}"#, 9, Err("catalogue_malformed")),
            (r#"{"version": 1}"#, 9, Err("catalogue_malformed")),
            ("<html>", 9, Err("catalogue_malformed")),
        ];
        for (body, room, wanted) in vectors {
            let got = resources_of(body.as_bytes(), room).map(|r| r.len()).map_err(|p| p.rule);
            assert_eq!(got, wanted, "{body}");
        }
    }

    #[test]
    fn a_catalogue_origin_is_an_origin() {
        let rule = AddressRule::AllowPrivate;
        let well_known = catalogue_url("http://127.0.0.1:8", rule).unwrap();
        assert_eq!(well_known.as_str(), "http://127.0.0.1:8/.well-known/x402");
        let vectors = [
            ("http://127.0.0.1:8/shop", "catalogue_not_an_origin"),
            ("http://127.0.0.1:8/?a=1", "catalogue_not_an_origin"),
            ("ftp://127.0.0.1/", "scheme_not_http"),
        ];
        for (origin, rule_id) in vectors {
            assert_eq!(catalogue_url(origin, rule).unwrap_err().rule, rule_id, "{origin}");
        }
        let public = catalogue_url("http://127.0.0.1:8", AddressRule::PublicOnly);
        assert_eq!(public.unwrap_err().rule, "address_not_public");
    }
}
