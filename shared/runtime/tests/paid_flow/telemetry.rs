//! The EMF line of each paid answer, driven through `Service::handle`: the 402 challenge's
//! refusal rule, a paid verdict's state, a refused payment's rule and the `/metrics` answer's
//! tripwires are counted from what the answer's builder recorded, the same as the body says.

use http::Method;
use payability_runtime::telemetry::emf;
use serde_json::Value;

use crate::paid_flow::chain::VerifyMode;
use crate::paid_flow::world::{Answer, CHECK, World};

/// The one EMF object of the request just answered.
fn last_line() -> Value {
    let lines = emf::take_captured();
    let line = lines.last().expect("an EMF line per answer");
    serde_json::from_str(line).expect("an EMF line is one JSON object")
}

/// Sends `request` with no EMF line pending and returns its answer and its EMF object.
async fn counted(world: &World, request: payability_runtime::api::ApiRequest) -> (Answer, Value) {
    emf::take_captured();
    let answer = world.send(request).await;
    (answer, last_line())
}

#[tokio::test]
async fn each_paid_answer_is_counted_by_what_its_builder_recorded() {
    emf::capture_on_this_thread();
    let world = World::start().await;

    let (challenge, object) = counted(&world, world.request(CHECK, None)).await;
    assert_eq!(challenge.status, 402, "{challenge}");
    assert_eq!(object[emf::RULE], "payment_required", "{object}");
    assert_eq!(object[emf::REFUSALS], 1, "{object}");

    let payment = world.fresh_payment().await;
    let (verdict, object) = counted(&world, world.request(CHECK, Some(&payment))).await;
    assert!(verdict.is_verdict(), "{verdict}");
    assert_eq!(object[emf::STATE], verdict.body["state"], "{object}");
    assert_eq!(object[emf::PAID_VERDICTS], 1, "{object}");
    assert!(object.get(emf::HOUSE_VERDICTS).is_none(), "{object}");
    assert!(object.get(emf::RULE).is_none(), "{object}");

    let refused = world.fresh_payment().await;
    world.facilitator.set_verify_mode(VerifyMode::Refuse);
    let (answer, object) = counted(&world, world.request(CHECK, Some(&refused))).await;
    assert_eq!(answer.status, 402, "{answer}");
    assert_eq!(object[emf::RULE].as_str(), answer.rule(), "{object}");
    assert_eq!(object[emf::PAYMENT_FAILURES], 1, "{object}");

    let mut read = world.request("/metrics", None);
    read.method = Method::GET;
    let (metrics, object) = counted(&world, read).await;
    assert_eq!(metrics.status, 200, "{metrics}");
    let wires = &metrics.body["tripwires"];
    assert_eq!(wires["free_use_over_10x_paid_use"]["armed"], true, "the paid verdict set Day-0");
    for (name, tripwire, flag) in [
        (emf::TRIPWIRE_FREE_USE, "free_use_over_10x_paid_use", "fired"),
        (emf::TRIPWIRE_REFUNDS, "refunds_over_5_percent_in_30_days", "fired"),
        (emf::TRIPWIRES_ARMED, "free_use_over_10x_paid_use", "armed"),
    ] {
        let said = wires[tripwire][flag].as_bool().expect("a flag");
        assert_eq!(object[name], u64::from(said), "{name}: {object}");
    }
}
