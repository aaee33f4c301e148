//! `/.well-known/x402`, `/llms.txt`, `/corpus`: their shapes, every document at both of its
//! paths, and the criteria function (no seed, no store) answering the same documents.

use http::Method;
use payability_core::criteria::{CORPUS_ID, CORPUS_SHA256};
use payability_core::signing::canonical_bytes;
use payability_runtime::api::discovery::CORPUS_JSON;
use payability_runtime::api::{Publication, answer_criteria};
use payability_runtime::mcp::tools::Tool;
use payability_runtime::routes::Route;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::paid_flow::world::{Answer, PUBLIC_BASE_URL, World};

#[tokio::test]
async fn well_known_x402_lists_the_paid_routes_and_each_answers_an_unpaid_request_with_402() {
    let world = World::start().await;
    let answer = world.get("/.well-known/x402").await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("content-type"), Some("application/json"));
    let expected: Vec<String> = Route::ALL
        .into_iter()
        .filter(|r| r.paid().is_some())
        .map(|r| format!("{PUBLIC_BASE_URL}{}", r.path()))
        .collect();
    assert_eq!(answer.body["version"], 1);
    assert_eq!(answer.body["resources"], json!(expected));
    for resource in expected {
        let path = resource.strip_prefix(PUBLIC_BASE_URL).unwrap();
        for method in [Method::GET, Method::POST] {
            let probe = world.send(World::bare(method.clone(), path)).await;
            assert_eq!(probe.status, 402, "{method} {resource}");
        }
    }
}

#[tokio::test]
async fn llms_txt_is_short_text_that_names_the_base_and_the_documents() {
    let world = World::start().await;
    let answer = world.get("/llms.txt").await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("content-type"), Some("text/plain; charset=utf-8"));
    let text = String::from_utf8(answer.bytes).unwrap();
    assert!(text.starts_with("# payability-verdict\n"), "{text}");
    assert!(text.len() < 4_000, "short: {} bytes", text.len());
    // Every paid route from the route table (a new op's route is named here without an edit),
    // then the free routes an agent needs.
    let paid = Route::ALL.into_iter().filter(|route| route.paid().is_some());
    for route in paid.chain([
        Route::Precheck,
        Route::Criteria,
        Route::OpenApi,
        Route::Corpus,
        Route::WellKnownX402,
        Route::Mcp,
        Route::A2a,
        Route::AgentCard,
    ]) {
        assert!(text.contains(&format!("{PUBLIC_BASE_URL}{}", route.path())), "{}", route.path());
    }
    assert!(text.contains(&format!("People: open {PUBLIC_BASE_URL}/ in a browser")), "{text}");
    for word in ["PAYMENT-SIGNATURE", "X-PAYMENT", "RFC 8785", "Ed25519", "keyId", "$0.01"] {
        assert!(text.contains(word), "{word}");
    }
}

#[tokio::test]
async fn the_corpus_is_served_as_committed_and_its_pin_recomputes() {
    let world = World::start().await;
    let answer = world.get("/corpus").await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("content-type"), Some("application/json"));
    let committed = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../corpus/payability-corpus-v1.json"
    ))
    .unwrap();
    assert!(answer.bytes == committed, "byte for byte the committed file");
    assert!(CORPUS_JSON == committed.as_slice());
    let mut corpus: Value = serde_json::from_slice(&answer.bytes).unwrap();
    let pin = corpus.as_object_mut().unwrap().remove("sha256").unwrap();
    let digest = Sha256::digest(canonical_bytes(&corpus));
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!((json!(hex.clone()), hex.as_str()), (pin, CORPUS_SHA256));
    assert_eq!(corpus["id"], CORPUS_ID);
}

#[tokio::test]
async fn every_route_answers_at_both_of_its_paths_with_the_same_thing() {
    let world = World::start().await;
    for route in Route::ALL {
        if route.methods() != [Method::GET] || route.paid().is_some() {
            continue;
        }
        let [own, public] = route.paths();
        let (a, b) = (world.browse(&own).await, world.browse(&public).await);
        assert_eq!((a.status, b.status), (200, 200), "{own} / {public}");
        assert_eq!(a.header("content-type"), b.header("content-type"), "{own}");
        // The counts move; the page names its own directory as its base.
        if ![Route::Metrics, Route::Page].contains(&route) {
            assert!(a.bytes == b.bytes, "{own} and {public} answer the same");
        }
        let head = world.send(World::browsing(Method::HEAD, &public)).await;
        assert_eq!((head.status, head.bytes.len()), (200, 0), "HEAD {public}");
        let wrong = world.send(World::bare(Method::PUT, &own)).await;
        assert_eq!(wrong.status, 405, "PUT {own}");
        assert_eq!(wrong.header("allow"), Some("GET, HEAD, OPTIONS"));
    }
}

fn lambda(publication: &Publication, method: Method, path: &str, base: Option<&str>) -> Answer {
    let mut request = World::browsing(method, path);
    request.public_base_url = base.map(str::to_owned);
    answer_criteria(&request, publication).into_http().into()
}

#[tokio::test]
async fn the_criteria_function_answers_every_document_and_nothing_else() {
    let world = World::start().await;
    let publication =
        Publication { keys: Vec::new(), public_base_url: Some(PUBLIC_BASE_URL.to_owned()) };
    for route in Route::ALL {
        for path in route.paths() {
            let method = route.methods()[0].clone();
            let answer = lambda(&publication, method, &path, None);
            if route.is_document() {
                assert_eq!(answer.status, 200, "{path}: {}", answer.body);
                let served = world.browse(&path).await;
                // The documents that list the keys differ: this publication has none.
                if ![Route::Criteria, Route::DidDocument].contains(&route) {
                    assert!(
                        answer.bytes == served.bytes,
                        "{path}: the function and the service agree"
                    );
                }
            } else {
                assert_eq!(answer.status, 404, "{path}: not the criteria function's");
            }
        }
    }
    // Without a configured base it takes the one API Gateway reports; without either,
    // the documents that name URLs answer 503 and the others still answer.
    let bare = Publication::default();
    let answer = lambda(&bare, Method::GET, "/.well-known/x402", Some("https://a.example/v1"));
    assert_eq!(answer.body["resources"][0], "https://a.example/v1/check");
    for (path, status) in [
        ("/openapi.json", 503),
        ("/llms.txt", 503),
        ("/.well-known/x402", 503),
        ("/corpus", 200),
        ("/criteria", 200),
    ] {
        assert_eq!(lambda(&bare, Method::GET, path, None).status, status, "{path}");
    }
    assert_eq!(lambda(&bare, Method::POST, "/openapi.json", None).status, 405);
}

#[tokio::test]
async fn every_free_json_answer_matches_the_schema_openapi_gives_it() {
    let world = World::start().await;
    let document = world.openapi().await;
    for route in Route::ALL {
        if route.methods() != [Method::GET] || route.paid().is_some() {
            continue;
        }
        let ok = &document["paths"][route.path()]["get"]["responses"]["200"]["content"];
        let answer = world.browse(route.path()).await;
        match ok.get("application/json") {
            Some(json_content) => {
                crate::discovery::schema::assert_valid(
                    &document,
                    &json_content["schema"],
                    &answer.body,
                    route.path(),
                );
            }
            None => {
                // A text document: the one media type OpenAPI names is the one served.
                let named: Vec<&String> = ok.as_object().unwrap().keys().collect();
                assert_eq!(named.len(), 1, "{}", route.path());
                let served = answer.header("content-type").unwrap();
                assert!(served.starts_with(named[0].as_str()), "{}: {served}", route.path());
            }
        }
    }
}

/// The one version and the one list of tools every discovery document names: the MCP registry
/// listing's version (server.json, the workspace's) in the agent card, OpenAPI, llms.txt,
/// `/.well-known/x402` and MCP's `serverInfo`; the MCP tools, in `tools/list` order, as the
/// agent card's skills and in llms.txt; the paid tools as the well-known resources.
#[tokio::test]
async fn every_discovery_document_names_the_listings_version_and_the_same_tools() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../server.json");
    let listing: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let version = listing["version"].as_str().unwrap();
    assert_eq!(version, env!("CARGO_PKG_VERSION"), "the listing is the workspace's version");
    let tools: Vec<&str> = Tool::ALL.into_iter().map(|tool| tool.route().name()).collect();
    let world = World::start().await;

    let card = world.get("/.well-known/agent-card.json").await.body;
    assert_eq!(card["version"], version, "the agent card");
    let skills: Vec<&Value> = card["skills"].as_array().unwrap().iter().map(|s| &s["id"]).collect();
    assert_eq!(json!(skills), json!(tools), "the agent card's skills");

    assert_eq!(world.openapi().await["info"]["version"], version, "OpenAPI");

    let llms = String::from_utf8(world.get("/llms.txt").await.bytes).unwrap();
    assert!(llms.contains(&format!("\nVersion: {version}\n")), "llms.txt: {llms}");
    for tool in &tools {
        assert!(llms.contains(&format!("`{tool}`")), "llms.txt names the tool {tool}");
    }

    let well_known = world.get("/.well-known/x402").await.body;
    let instructions = well_known["instructions"].as_str().unwrap();
    assert!(instructions.starts_with(&format!("payability-verdict {version}: ")), "{instructions}");
    let paid: Vec<String> = Tool::ALL
        .into_iter()
        .filter(|tool| matches!(tool, Tool::Paid(_)))
        .map(|tool| format!("{PUBLIC_BASE_URL}{}", tool.route().path()))
        .collect();
    assert_eq!(well_known["resources"], json!(paid), "the well-known resources");

    let mut initialize = World::bare(Method::POST, Route::Mcp.path());
    initialize.headers.insert("content-type", "application/json".parse().unwrap());
    initialize.headers.insert("accept", "application/json, text/event-stream".parse().unwrap());
    initialize.body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "discovery-test", "version": "1"}}})
    .to_string()
    .into_bytes();
    // The JSON-RPC answer as it is (World::send reads /mcp answers as tool results).
    let answer = Answer::from(world.service.handle(initialize).await.into_http());
    assert_eq!(answer.body["result"]["serverInfo"]["version"], version, "MCP: {}", answer.body);
}
