//! What `/criteria` adds for a stranger: how to verify a report (and the steps work on a
//! real one), every refusal rule with its status, every route, the corpus with its pin and
//! the commands that recompute it; and the specification's text still verbatim.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::{Signature, Verifier, VerifyingKey};
use payability_core::criteria::CORPUS_SHA256;
use payability_core::signing::canonical_bytes;
use payability_runtime::routes::Route;
use payability_runtime::rules::{ApiError, Refusal};
use serde_json::{Value, json};

use crate::discovery::requests::Seller;
use crate::paid_flow::world::World;

const SEED: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../core/src/criteria/seed-payability-v1.json"
));

#[tokio::test]
async fn the_verification_steps_verify_a_real_report() {
    let world = World::start().await;
    let criteria = world.get("/criteria").await.body;
    let steps = criteria["verification"]["steps"].as_array().expect("steps");
    let text = steps.iter().map(|s| s.as_str().unwrap()).collect::<Vec<_>>().join(" ");
    for word in [
        "RFC 8785",
        "keyId",
        "signature.key_id",
        "valid_from",
        "valid_until",
        "base64url",
        "Ed25519",
        "checked_at",
    ] {
        assert!(
            text.contains(word) || criteria["verification"].to_string().contains(word),
            "{word}"
        );
    }

    // The steps, followed literally, on a report the service signed.
    let seller = Seller::start().await;
    let mut report = world.house("/check", &seller.url()).await.body;
    let signature = report.as_object_mut().unwrap().remove("signature").expect("step 1");
    assert_eq!(signature["alg"], "Ed25519");
    let signed = canonical_bytes(&report); // step 2
    let key = criteria["signing_keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["keyId"] == signature["key_id"])
        .expect("step 3: the key is published");
    assert!(key["valid_until"].is_null(), "step 4: the current key's window is open");
    let x: [u8; 32] =
        URL_SAFE_NO_PAD.decode(key["jwk"]["x"].as_str().unwrap()).unwrap().try_into().unwrap();
    let value: [u8; 64] =
        URL_SAFE_NO_PAD.decode(signature["value"].as_str().unwrap()).unwrap().try_into().unwrap();
    let key = VerifyingKey::from_bytes(&x).unwrap();
    key.verify(&signed, &Signature::from_bytes(&value)).expect("step 5");
    report["house"] = json!(false);
    assert!(key.verify(&canonical_bytes(&report), &Signature::from_bytes(&value)).is_err());
}

#[tokio::test]
async fn every_refusal_rule_and_every_route_is_published() {
    let criteria = World::start().await.get("/criteria").await.body;
    let rules = &criteria["api_rules"];
    let errors: Vec<Value> = ApiError::all()
        .into_iter()
        .map(|e| json!({"status": e.status().as_u16(), "rule": e.rule(), "message": e.message()}))
        .collect();
    assert_eq!(rules["errors"], json!(errors));
    let refusals: Vec<Value> = Refusal::all()
        .into_iter()
        .map(|r| json!({"status": 402, "rule": r.rule(), "message": r.message()}))
        .collect();
    assert_eq!(rules["payment_refusals"], json!(refusals));
    let routes: Vec<(String, String)> = criteria["routes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["path"].as_str().unwrap().into(), r["public_path"].as_str().unwrap().into()))
        .collect();
    let expected: Vec<(String, String)> =
        Route::ALL.into_iter().map(|r| r.paths().into()).collect();
    assert_eq!(routes, expected);
}

#[tokio::test]
async fn the_corpus_its_pin_and_the_commands_that_replay_it_are_published() {
    let criteria = World::start().await.get("/criteria").await.body;
    let replay = &criteria["corpus_replay"];
    assert_eq!(replay["path"], Route::Corpus.path());
    assert_eq!(replay["public_path"], Route::Corpus.paths()[1].as_str());
    assert_eq!(replay["sha256"], CORPUS_SHA256);
    assert_eq!(criteria["corpus"]["sha256"], CORPUS_SHA256);
    let commands: Vec<&str> = replay["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["command"].as_str().unwrap())
        .collect();
    assert!(commands.contains(&"python3 corpus/gen_corpus.py --check"), "{commands:?}");
    assert!(commands.iter().any(|c| c.starts_with("cargo test -p payability-tests --test corpus")));
    // The Python one-liner prints the pin (run it when Python is here).
    let recompute =
        commands.iter().find(|c| c.starts_with("python3 -c ")).expect("a recompute command");
    let repository = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    match std::process::Command::new("sh").arg("-c").arg(recompute).current_dir(repository).output()
    {
        Ok(output) if output.status.success() => {
            assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), CORPUS_SHA256);
        }
        other => println!(
            "python3 not run ({other:?}); the pin is recomputed in Rust by the corpus test"
        ),
    }
}

#[tokio::test]
async fn the_specifications_text_is_still_verbatim() {
    let criteria = World::start().await.get("/criteria").await.body;
    let seed: Value = serde_json::from_str(SEED).unwrap();
    // This revision's own values replace exactly these three; every other key of the
    // specification is served as written.
    for (key, value) in seed.as_object().unwrap() {
        if ["criteria_revision", "corpus", "corpus_pin_definition"].contains(&key.as_str()) {
            continue;
        }
        assert_eq!(&criteria[key], value, "{key}");
    }
}
