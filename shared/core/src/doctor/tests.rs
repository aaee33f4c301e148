//! The doctor's checks over seeded defects: three healthy sellers (x402 v2 on Solana, v2 on
//! Base, v1 on Solana) fail no check, and each defect fails exactly its own check.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use super::*;
use crate::capture::{Capture, CapturedBody, CapturedHeader, FetchOutcome};
use crate::price::USDC_MINT;

const URL: &str = "https://seller.example/weather";
const SVM_PAY_TO: &str = "3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG";
/// The associated USDC account of SVM_PAY_TO (payment::solana's vectors).
const SVM_TOKEN_ACCOUNT: &str = "3uetDDizgTtadDHZzyy9BqxrjQcozMEkxzbKhfZF4tG3";
const FEE_PAYER: &str = "Cra8woRQhnHsGAmFWcCN1m7A9J44ykNfGpehi6dMBuKR";
const EVM_PAY_TO: &str = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const BASE_USDC: &str = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

/// Where a seller puts its challenge.
#[derive(Clone, Copy)]
enum Seller {
    V2Svm,
    V2Evm,
    V1Svm,
}

fn challenge(seller: Seller) -> Value {
    let bazaar = json!({
        "info": { "input": { "type": "http", "method": "GET", "queryParams": { "city": "x" } },
                  "output": { "type": "json" } },
        "schema": { "type": "object" }
    });
    match seller {
        Seller::V2Svm => json!({
            "x402Version": 2,
            "resource": { "url": URL, "description": "Weather", "mimeType": "application/json" },
            "accepts": [{
                "scheme": "exact", "network": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
                "amount": "10000", "asset": USDC_MINT, "payTo": SVM_PAY_TO, "maxTimeoutSeconds": 60,
                "extra": { "feePayer": FEE_PAYER, "usdc_token_account": SVM_TOKEN_ACCOUNT }
            }],
            "extensions": { "bazaar": bazaar }
        }),
        Seller::V2Evm => json!({
            "x402Version": 2,
            "resource": { "url": URL, "description": "Weather", "mimeType": "application/json" },
            "accepts": [{
                "scheme": "exact", "network": "eip155:8453", "amount": "10000", "asset": BASE_USDC,
                "payTo": EVM_PAY_TO, "maxTimeoutSeconds": 300,
                "extra": { "name": "USD Coin", "version": "2" }
            }]
        }),
        Seller::V1Svm => json!({
            "x402Version": 1,
            "error": "X-PAYMENT header is required",
            "accepts": [{
                "scheme": "exact", "network": "solana", "maxAmountRequired": "10000",
                "resource": URL, "description": "Weather", "mimeType": "application/json",
                "asset": USDC_MINT, "payTo": SVM_PAY_TO, "maxTimeoutSeconds": 60,
                "extra": { "feePayer": FEE_PAYER }
            }]
        }),
    }
}

fn cors() -> ResponseHeaders {
    ResponseHeaders {
        allow_origin: Some("*".into()),
        allow_headers: None,
        expose_headers: Some("PAYMENT-REQUIRED, PAYMENT-RESPONSE".into()),
        cache_control: None,
    }
}

/// What the doctor sees of `seller` serving `document` (v1 in the body; v2 in the header, the
/// body `{}` as the v2 middlewares answer).
fn observation(seller: Seller, document: &Value) -> HttpObservation {
    let bytes = serde_json::to_vec(document).unwrap();
    let (payment_required, body) = match seller {
        Seller::V1Svm => (None, bytes),
        Seller::V2Svm | Seller::V2Evm => {
            (Some(CapturedHeader::of(STANDARD.encode(&bytes).as_bytes())), b"{}".to_vec())
        }
    };
    let preflight_headers = ResponseHeaders {
        allow_origin: Some(PREFLIGHT_ORIGIN.into()),
        allow_headers: Some("content-type, payment-signature".into()),
        ..ResponseHeaders::default()
    };
    HttpObservation {
        url: URL.into(),
        get: FetchOutcome::Captured(Capture {
            status: 402,
            payment_required,
            body: CapturedBody::Complete(body),
        }),
        get_headers: cors(),
        preflight: Some(Answer { status: 204, headers: preflight_headers }),
    }
}

fn failed(findings: &Findings) -> Vec<&'static str> {
    findings
        .iter()
        .filter(|(_, outcome)| *outcome == Outcome::Fail)
        .map(|(id, _)| id.as_str())
        .collect()
}

type Seed = fn(&mut Value, &mut HttpObservation);

fn set(document: &mut Value, pointer: &str, value: Value) {
    *document.pointer_mut(pointer).unwrap_or_else(|| panic!("{pointer}")) = value;
}

fn remove(document: &mut Value, pointer: &str) {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    document.pointer_mut(parent).unwrap().as_object_mut().unwrap().remove(key).unwrap();
}

#[test]
fn healthy_sellers_fail_nothing_and_each_seeded_defect_fails_exactly_its_check() {
    for seller in [Seller::V2Svm, Seller::V2Evm, Seller::V1Svm] {
        let healthy = examine(&observation(seller, &challenge(seller)), &ProbeAnswers::default());
        assert_eq!(failed(&healthy), Vec::<&str>::new());
    }
    let vectors: [(Seller, &str, Seed); 28] = [
        (Seller::V2Svm, "status-402", |_, seen| {
            if let FetchOutcome::Captured(capture) = &mut seen.get {
                capture.status = 400;
            }
        }),
        (Seller::V2Svm, "version-leg", |document, seen| {
            // A v2 challenge in the body only.
            if let FetchOutcome::Captured(capture) = &mut seen.get {
                capture.payment_required = None;
                capture.body = CapturedBody::Complete(serde_json::to_vec(document).unwrap());
            }
            seen.get_headers = ResponseHeaders { expose_headers: Some("*".into()), ..cors() };
        }),
        (Seller::V1Svm, "legs-agree", |document, seen| {
            let mut other = document.clone();
            set(&mut other, "/accepts/0/network", json!("solana"));
            set(&mut other, "/accepts/0/maxAmountRequired", json!("20000"));
            let header = STANDARD.encode(serde_json::to_vec(&other).unwrap());
            if let FetchOutcome::Captured(capture) = &mut seen.get {
                capture.payment_required = Some(CapturedHeader::of(header.as_bytes()));
            }
        }),
        (Seller::V2Svm, "accepts-shape", |d, _| remove(d, "/accepts/0/maxTimeoutSeconds")),
        (Seller::V2Svm, "accepts-shape", |d, _| set(d, "/accepts/0/amount", json!(10000))),
        (Seller::V2Svm, "accepts-shape", |d, _| remove(d, "/resource/url")),
        (Seller::V2Svm, "scheme-known", |d, _| set(d, "/accepts/0/scheme", json!("exactly"))),
        (Seller::V2Evm, "network-known", |d, _| set(d, "/accepts/0/network", json!("base"))),
        (Seller::V2Evm, "network-known", |d, _| {
            set(d, "/accepts/0/network", json!("eip155:0x2105"))
        }),
        (Seller::V2Svm, "networks-not-mixed", |d, _| {
            let mut devnet = d["accepts"][0].clone();
            devnet["network"] = json!("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1");
            devnet["asset"] = json!("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU");
            devnet["extra"].as_object_mut().unwrap().remove("usdc_token_account");
            d["accepts"].as_array_mut().unwrap().push(devnet);
        }),
        (Seller::V2Svm, "asset-known", |d, _| {
            set(d, "/accepts/0/asset", json!("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"));
            remove(d, "/accepts/0/extra/usdc_token_account");
        }),
        (Seller::V2Evm, "asset-known", |d, _| {
            set(d, "/accepts/0/asset", json!("0x036CbD53842c5426634e7929541eC2318f3dCF7e"));
        }),
        (Seller::V2Svm, "amount-valid", |d, _| set(d, "/accepts/0/amount", json!("0"))),
        (Seller::V2Svm, "amount-valid", |d, _| set(d, "/accepts/0/amount", json!("0.01"))),
        (Seller::V1Svm, "amount-valid", |d, _| d["accepts"][0]["amount"] = json!("20000")),
        (Seller::V2Evm, "pay-to-valid", |d, _| {
            set(d, "/accepts/0/payTo", json!("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"));
        }),
        (Seller::V1Svm, "pay-to-valid", |d, _| set(d, "/accepts/0/payTo", json!("0xabc"))),
        (Seller::V2Svm, "svm-fee-payer", |d, _| remove(d, "/accepts/0/extra/feePayer")),
        (Seller::V2Svm, "svm-token-account", |d, _| {
            set(d, "/accepts/0/extra/usdc_token_account", json!(FEE_PAYER));
        }),
        (Seller::V2Evm, "evm-domain", |d, _| remove(d, "/accepts/0/extra/version")),
        (Seller::V2Evm, "evm-domain", |d, _| set(d, "/accepts/0/extra/name", json!("USDC"))),
        (Seller::V1Svm, "timeout-bounded", |d, _| set(d, "/accepts/0/maxTimeoutSeconds", json!(5))),
        (Seller::V2Svm, "resource-matches", |d, _| {
            set(d, "/resource/url", json!("http://localhost:3000/weather"));
        }),
        (Seller::V1Svm, "description-length", |d, _| {
            set(d, "/accepts/0/description", json!("é".repeat(501)));
        }),
        (Seller::V2Evm, "mime-type-present", |d, _| set(d, "/resource/mimeType", json!(""))),
        (Seller::V2Svm, "bazaar-declaration", |d, _| {
            remove(d, "/extensions/bazaar/info/input/method");
        }),
        (Seller::V2Evm, "cors-expose-header", |_, seen| seen.get_headers.expose_headers = None),
        (Seller::V2Evm, "cache-control", |_, seen| {
            seen.get_headers.cache_control = Some("public, max-age=60".into());
        }),
    ];
    for (seller, check, seed) in vectors {
        let mut document = challenge(seller);
        let mut seen = observation(seller, &document);
        seed(&mut document, &mut seen);
        // A seed that changed the document serves it where the seller serves it.
        if document != challenge(seller) {
            let reseen = observation(seller, &document);
            seen.get = reseen.get;
        }
        let findings = examine(&seen, &ProbeAnswers::default());
        assert_eq!(failed(&findings), vec![check], "{check}");
    }
}

#[test]
fn the_preflight_and_the_header_size_are_read_from_what_was_answered() {
    let seller = Seller::V2Svm;
    let document = challenge(seller);
    let vectors: [(Seed, Outcome, Outcome); 5] = [
        (|_, _| {}, Outcome::Pass, Outcome::Pass),
        (|_, seen| seen.preflight = None, Outcome::Fail, Outcome::Pass),
        (|_, seen| seen.preflight.as_mut().unwrap().status = 404, Outcome::Fail, Outcome::Pass),
        (
            |_, seen| {
                seen.preflight.as_mut().unwrap().headers.allow_headers = Some("x-other".into())
            },
            Outcome::Fail,
            Outcome::Pass,
        ),
        (
            |document, seen| {
                // 6,144 bytes of padding: over 8,192 bytes once base64-encoded.
                document["accepts"][0]["extra"]["padding"] = json!("x".repeat(6_144));
                seen.get = observation(Seller::V2Svm, document).get;
            },
            Outcome::Pass,
            Outcome::Fail,
        ),
    ];
    for (seed, preflight, header_size) in vectors {
        let mut seen = observation(seller, &document);
        seed(&mut document.clone(), &mut seen);
        let findings = examine(&seen, &ProbeAnswers::default());
        assert_eq!(findings.outcome(CheckId::CorsPreflight), preflight);
        assert_eq!(findings.outcome(CheckId::HeaderSize), header_size);
    }
}

#[test]
fn cache_control_vectors() {
    let vectors: [(Option<&str>, Outcome); 9] = [
        (None, Outcome::Pass),
        (Some("no-store"), Outcome::Pass),
        (Some("max-age=0"), Outcome::Pass),
        (Some("public, max-age=60, no-store"), Outcome::Pass),
        (Some("private, max-age=600"), Outcome::Pass),
        (Some("public"), Outcome::Fail),
        (Some("s-maxage=10"), Outcome::Fail),
        (Some("Max-Age=\"30\""), Outcome::Fail),
        (Some("max-age=abc"), Outcome::Fail),
    ];
    for (value, outcome) in vectors {
        let mut seen = observation(Seller::V2Evm, &challenge(Seller::V2Evm));
        seen.get_headers.cache_control = value.map(str::to_owned);
        assert_eq!(
            examine(&seen, &ProbeAnswers::default()).outcome(CheckId::CacheControl),
            outcome,
            "{value:?}"
        );
    }
}

#[test]
fn what_cannot_be_read_makes_the_later_checks_not_applicable_never_failed() {
    let failed_fetch = HttpObservation {
        url: URL.into(),
        get: FetchOutcome::TimedOut,
        get_headers: ResponseHeaders::default(),
        preflight: None,
    };
    let vectors: [(HttpObservation, Vec<&str>); 3] = [
        (failed_fetch, vec!["status-402"]),
        (
            HttpObservation {
                get: FetchOutcome::Captured(Capture {
                    status: 402,
                    payment_required: Some(CapturedHeader::of(b"not base64 of json!")),
                    body: CapturedBody::Complete(b"<html>".to_vec()),
                }),
                ..observation(Seller::V2Svm, &challenge(Seller::V2Svm))
            },
            vec!["challenge-decodes"],
        ),
        (
            observation(Seller::V1Svm, &json!({ "x402Version": 3, "accepts": [] })),
            vec!["version-known"],
        ),
    ];
    for (seen, want) in vectors {
        let findings = examine(&seen, &ProbeAnswers::default());
        assert_eq!(failed(&findings), want);
        assert_eq!(
            findings.count(Outcome::Pass)
                + findings.count(Outcome::Fail)
                + findings.count(Outcome::NotApplicable),
            CheckId::ALL.len()
        );
    }
}

#[test]
fn the_list_is_closed_and_each_id_is_its_own() {
    let mut ids: Vec<&str> = CheckId::ALL.into_iter().map(CheckId::as_str).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), CheckId::ALL.len(), "every id once");
    for id in CheckId::ALL {
        let check = id.check();
        assert!(check.sentence.ends_with('.'), "{}", id.as_str());
        assert!(!check.applies.versions.is_empty());
    }
    for level in Level::ALL {
        assert_eq!(Level::parse(level.as_str()), Some(level));
    }
}

/// The answers a healthy probe of `seller` gets.
fn healthy_probes(seller: Seller) -> ProbeAnswers {
    let (network, fee_payer) = match seller {
        Seller::V1Svm => ("solana", FEE_PAYER),
        Seller::V2Svm => ("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", FEE_PAYER),
        Seller::V2Evm => ("eip155:8453", ""),
    };
    let version = if let Seller::V1Svm = seller { 1 } else { 2 };
    let account = json!({
        "owner": "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
        "data": { "parsed": { "info": { "mint": USDC_MINT, "owner": SVM_PAY_TO } } }
    });
    ProbeAnswers {
        method: Some(FetchOutcome::Captured(Capture {
            status: 402,
            payment_required: None,
            body: CapturedBody::Complete(Vec::new()),
        })),
        supported: Some(Some(json!({
            "kinds": [{ "x402Version": version, "scheme": "exact", "network": network }],
            "signers": { "solana:*": [fee_payer] }
        }))),
        svm_accounts: Some(vec![Some(account)]),
        evm_contracts: Some(vec![EvmContract {
            has_code: true,
            name: Some("USD Coin".into()),
            version: Some("2".into()),
        }]),
        origin_lists_url: Some(true),
        facilitator_listing: Some(Some(json!({ "accepts": challenge(seller)["accepts"] }))),
    }
}

#[test]
fn each_probe_answer_decides_its_own_check_and_no_other() {
    for seller in [Seller::V2Svm, Seller::V2Evm, Seller::V1Svm] {
        let seen = observation(seller, &challenge(seller));
        assert_eq!(
            questions(&seen).svm_accounts.len(),
            usize::from(!matches!(seller, Seller::V2Evm))
        );
        let findings = examine(&seen, &healthy_probes(seller));
        assert_eq!(failed(&findings), Vec::<&str>::new());
        for id in [CheckId::Method402, CheckId::FacilitatorSupports, CheckId::DiscoveryListed] {
            assert_eq!(findings.outcome(id), Outcome::Pass, "{}", id.as_str());
        }
    }
    type Break = fn(&mut ProbeAnswers);
    let vectors: [(Seller, &str, Break); 11] = [
        (Seller::V2Svm, "method-402", |p| {
            p.method = Some(FetchOutcome::Captured(Capture {
                status: 400,
                payment_required: None,
                body: CapturedBody::Complete(Vec::new()),
            }));
        }),
        (Seller::V2Svm, "method-402", |p| p.method = Some(FetchOutcome::TimedOut)),
        (Seller::V2Evm, "facilitator-supports", |p| {
            p.supported = Some(Some(
                json!({ "kinds": [{ "x402Version": 2, "scheme": "exact", "network": "eip155:84532" }] }),
            ));
        }),
        (Seller::V1Svm, "facilitator-fee-payer", |p| {
            p.supported.as_mut().unwrap().as_mut().unwrap()["signers"] =
                json!({ "solana:*": [SVM_PAY_TO] });
        }),
        (Seller::V2Svm, "svm-payout-account", |p| p.svm_accounts = Some(vec![None])),
        (Seller::V2Svm, "svm-payout-account", |p| {
            let accounts = p.svm_accounts.as_mut().unwrap();
            accounts[0].as_mut().unwrap()["data"]["parsed"]["info"]["owner"] = json!(FEE_PAYER);
        }),
        (Seller::V2Evm, "evm-asset-contract", |p| {
            p.evm_contracts.as_mut().unwrap()[0].has_code = false
        }),
        (Seller::V2Evm, "evm-asset-contract", |p| {
            p.evm_contracts.as_mut().unwrap()[0].name = Some("USDC".into());
        }),
        (Seller::V2Evm, "discovery-listed", |p| p.origin_lists_url = Some(false)),
        (Seller::V2Svm, "facilitator-listing", |p| p.facilitator_listing = Some(None)),
        (Seller::V2Evm, "facilitator-listing", |p| {
            let item = p.facilitator_listing.as_mut().unwrap().as_mut().unwrap();
            item["accepts"][0]["amount"] = json!("20000");
        }),
    ];
    for (seller, check, break_it) in vectors {
        let mut probes = healthy_probes(seller);
        break_it(&mut probes);
        let findings = examine(&observation(seller, &challenge(seller)), &probes);
        assert_eq!(failed(&findings), vec![check], "{check}");
    }
}

#[test]
fn another_evm_chain_is_known_and_its_terms_are_checked_without_the_table() {
    let mut document = challenge(Seller::V2Evm);
    // Polygon's USDC, whose domain is not in the table: the asset is not checked, the rest is.
    set(&mut document, "/accepts/0/network", json!("eip155:137"));
    set(&mut document, "/accepts/0/asset", json!("0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359"));
    let findings = examine(&observation(Seller::V2Evm, &document), &ProbeAnswers::default());
    assert_eq!(failed(&findings), Vec::<&str>::new());
    assert_eq!(findings.outcome(CheckId::NetworkKnown), Outcome::Pass);
    assert_eq!(findings.outcome(CheckId::AssetKnown), Outcome::NotApplicable);
    assert_eq!(findings.outcome(CheckId::EvmDomain), Outcome::Pass);
    set(&mut document, "/accepts/0/payTo", json!("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"));
    let findings = examine(&observation(Seller::V2Evm, &document), &ProbeAnswers::default());
    assert_eq!(failed(&findings), vec!["pay-to-valid"]);
}

#[test]
fn the_declared_method_is_the_bazaar_declarations_http_method() {
    let with = |input: Value| {
        let mut document = challenge(Seller::V2Svm);
        document["extensions"]["bazaar"]["info"]["input"] = input;
        observation(Seller::V2Svm, &document)
    };
    let vectors: [(Value, Option<&str>); 5] = [
        (json!({ "type": "http", "method": "PUT", "bodyType": "json", "body": {} }), Some("PUT")),
        (json!({ "type": "http", "method": "GET" }), Some("GET")),
        (json!({ "type": "http", "method": "TRACE" }), None),
        (json!({ "type": "mcp", "tool": "weather", "inputSchema": {} }), None),
        (json!({ "type": "http" }), None),
    ];
    for (input, want) in vectors {
        assert_eq!(declared_method(&with(input.clone())), want, "{input}");
    }
    assert_eq!(declared_method(&observation(Seller::V2Evm, &challenge(Seller::V2Evm))), None);
}

#[test]
fn an_offer_past_the_probed_ones_fails_its_chain_check_never_silently_passes() {
    let mut document = challenge(Seller::V2Evm);
    let offer = document["accepts"][0].clone();
    document["accepts"] = json!(vec![offer; probes::MAX_PROBED_OFFERS + 1]);
    let seen = observation(Seller::V2Evm, &document);
    assert_eq!(questions(&seen).evm_assets.len(), probes::MAX_PROBED_OFFERS);
    let contract =
        EvmContract { has_code: true, name: Some("USD Coin".into()), version: Some("2".into()) };
    let mut answers = ProbeAnswers {
        evm_contracts: Some(vec![contract; probes::MAX_PROBED_OFFERS]),
        ..ProbeAnswers::default()
    };
    assert_eq!(examine(&seen, &answers).outcome(CheckId::EvmAssetContract), Outcome::Fail);
    answers.evm_contracts.as_mut().unwrap().truncate(1);
    document["accepts"] = json!([document["accepts"][0]]);
    let seen = observation(Seller::V2Evm, &document);
    assert_eq!(examine(&seen, &answers).outcome(CheckId::EvmAssetContract), Outcome::Pass);
}
