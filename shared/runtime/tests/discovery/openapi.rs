//! `GET /openapi.json` against the route table and the closed error list.

use std::collections::{BTreeMap, BTreeSet};

use payability_runtime::routes::Route;
use payability_runtime::rules::{ApiError, Refusal};
use serde_json::{Value, json};

use crate::paid_flow::world::World;

const HTTP_METHODS: [&str; 8] =
    ["get", "post", "put", "delete", "patch", "head", "options", "trace"];

/// `(path, method)` of every operation of a document.
fn operations(document: &Value) -> BTreeSet<(String, String)> {
    let mut found = BTreeSet::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (key, _) in item.as_object().expect("a path item") {
            assert!(HTTP_METHODS.contains(&key.as_str()), "{path}: {key} is not a method");
            found.insert((path.clone(), key.clone()));
        }
    }
    found
}

/// `(path, method)` of every route of the table, under a base path prefix.
fn route_table(prefix: &str) -> BTreeSet<(String, String)> {
    Route::ALL
        .into_iter()
        .flat_map(|route| {
            route.methods().iter().map(move |m| {
                (format!("{prefix}{}", route.path()), m.as_str().to_ascii_lowercase())
            })
        })
        .collect()
}

#[tokio::test]
async fn the_paths_and_methods_are_the_route_table_under_an_origin_only_server() {
    for (base, origin, prefix) in [
        (Some("http://127.0.0.1:8402"), "http://127.0.0.1:8402", ""),
        (Some("https://api.example/v1"), "https://api.example", "/v1"),
        (Some("https://api.example/toll/payability/"), "https://api.example", "/toll/payability"),
    ] {
        let world = World::with_base(base).await;
        let document = world.openapi().await;
        assert_eq!(document["openapi"], "3.1.0");
        assert_eq!(operations(&document), route_table(prefix), "{base:?}");
        let servers = document["servers"].as_array().expect("servers");
        assert_eq!((servers.len(), &servers[0]["url"]), (1, &json!(origin)), "origin only");
        let llms = format!("{origin}{prefix}/llms.txt");
        assert_eq!(document["x-agentcash-guidance"]["llmsTxtUrl"], llms.as_str());
        assert_eq!(document["info"]["contact"]["url"], llms.as_str());
        let guidance = document["info"]["x-guidance"].as_str().expect("info.x-guidance");
        assert!(
            !guidance.is_empty() && guidance.len() < 1_000,
            "short guidance: {}",
            guidance.len()
        );
    }
    // Without a configured base, the request's own (API Gateway's) is used; without either, 503.
    let world = World::with_base(None).await;
    let mut request = World::bare(http::Method::GET, "/openapi.json");
    request.public_base_url = Some("https://abc.execute-api.example/v1".into());
    let answer = world.send(request).await;
    assert_eq!(answer.body["servers"][0]["url"], "https://abc.execute-api.example");
    assert!(answer.body["paths"]["/v1/check"].is_object());
    let answer = world.get("/openapi.json").await;
    assert_eq!(
        (answer.status, answer.body["error"]["rule"].clone()),
        (503, json!("base_url_unknown"))
    );
}

#[tokio::test]
async fn every_operation_declares_its_auth_its_price_and_its_input() {
    let document = World::start().await.openapi().await;
    for route in Route::ALL {
        for method in route.methods() {
            let verb = method.as_str().to_ascii_lowercase();
            let operation = &document["paths"][route.path()][&verb];
            let at = format!("{verb} {}", route.path());
            assert!(operation["summary"].as_str().is_some_and(|s| !s.is_empty()), "{at}");
            assert_eq!(operation["security"], json!([]), "{at}: operation-level security: []");
            assert!(operation["responses"]["200"].is_object(), "{at}: a 200");
            match route.paid() {
                Some(_) => {
                    assert_eq!(
                        operation["x-payment-info"],
                        json!({"price": {"mode": "fixed", "currency": "USD", "amount": "0.01"}, "protocols": [{"x402": {}}]}),
                        "{at}"
                    );
                    assert!(operation["responses"]["402"].is_object(), "{at}: a 402");
                    if verb == "get" {
                        assert_eq!(operation["parameters"][0]["in"], "query", "{at}");
                        assert_eq!(operation["parameters"][0]["name"], "url", "{at}");
                        assert_eq!(operation["parameters"][0]["required"], true, "{at}");
                        assert!(operation.get("requestBody").is_none(), "{at}");
                    } else {
                        let schema =
                            &operation["requestBody"]["content"]["application/json"]["schema"];
                        assert_eq!(schema["$ref"], "#/components/schemas/PaidRequest", "{at}");
                        assert_eq!(operation["requestBody"]["required"], true, "{at}");
                    }
                }
                None => assert!(operation.get("x-payment-info").is_none(), "{at}: free"),
            }
        }
    }
    // Every `$ref` resolves.
    fn refs(value: &Value, found: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(r)) = map.get("$ref") {
                    found.push(r.clone());
                }
                map.values().for_each(|v| refs(v, found));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    refs(&document, &mut found);
    assert!(!found.is_empty());
    for reference in found {
        crate::discovery::schema::resolve(&document, &reference);
    }
}

#[tokio::test]
async fn every_rule_id_is_listed_with_its_status() {
    let document = World::start().await.openapi().await;
    let errors: Vec<(u64, String, String)> = ApiError::all()
        .into_iter()
        .map(|e| (u64::from(e.status().as_u16()), e.rule().to_owned(), e.message().to_owned()))
        .collect();
    let listed: Vec<(u64, String, String)> = document["x-error-rules"]
        .as_array()
        .expect("x-error-rules")
        .iter()
        .map(|r| {
            (
                r["status"].as_u64().unwrap(),
                r["rule"].as_str().unwrap().into(),
                r["message"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(listed, errors);
    let refusals: Vec<(u64, String, String)> = Refusal::all()
        .into_iter()
        .map(|r| (402, r.rule().to_owned(), r.message().to_owned()))
        .collect();
    let listed: Vec<(u64, String, String)> = document["x-payment-refusals"]
        .as_array()
        .expect("x-payment-refusals")
        .iter()
        .map(|r| {
            (
                r["status"].as_u64().unwrap(),
                r["rule"].as_str().unwrap().into(),
                r["message"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(listed, refusals);

    // Each paid operation lists every rule under the response of its status.
    for path in ["/check", "/memo"] {
        for verb in ["get", "post"] {
            let responses = &document["paths"][path][verb]["responses"];
            let mut by_status: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            for (status, response) in responses.as_object().unwrap() {
                for rule in response["x-rules"].as_array().into_iter().flatten() {
                    by_status
                        .entry(status.clone())
                        .or_default()
                        .insert(rule["rule"].as_str().unwrap().into());
                }
            }
            for error in ApiError::all() {
                let status = error.status().as_u16().to_string();
                assert!(
                    by_status.get(&status).is_some_and(|r| r.contains(error.rule())),
                    "{verb} {path}: {}",
                    error.rule()
                );
            }
            for refusal in Refusal::all() {
                assert!(
                    by_status["402"].contains(refusal.rule()),
                    "{verb} {path}: {}",
                    refusal.rule()
                );
            }
        }
    }
}
