//! Day-0 and the tripwires: before any outside paid use `/metrics` says the ratio tripwires
//! are not armed (whatever the free use); a house check never sets Day-0; the first paid
//! verdict does, and the tripwires arm, compared since Day-0.

use http::{HeaderValue, Method};
use payability_runtime::api::ApiRequest;
use serde_json::{Value, json};

use crate::paid_flow::world::{Answer, CHECK, HOUSE_TOKEN, World};

/// A request on the world's service from 127.0.0.1.
fn request(world: &World, method: Method, path: &str, body: Option<Value>) -> ApiRequest {
    let mut request = world.request(path, None);
    request.method = method;
    request.body = body.map(|b| b.to_string().into_bytes()).unwrap_or_default();
    request
}

async fn metrics(world: &World) -> Value {
    let answer = world.send(request(world, Method::GET, "/metrics", None)).await;
    assert_eq!(answer.status, 200, "{answer}");
    answer.body
}

async fn precheck(world: &World) -> Answer {
    let body = json!({"url": world.target.url()});
    world.send(request(world, Method::POST, "/precheck", Some(body))).await
}

fn assert_not_armed(metrics: &Value) {
    assert_eq!(metrics["day0"], Value::Null, "{metrics}");
    for name in ["free_use_over_10x_paid_use", "refunds_over_5_percent_in_30_days"] {
        let tripwire = &metrics["tripwires"][name];
        assert_eq!(tripwire["armed"], false, "{name}: {tripwire}");
        assert_eq!(tripwire["fired"], false, "{name} never fires unarmed: {tripwire}");
        assert!(tripwire["status"].as_str().unwrap().starts_with("not armed"), "{tripwire}");
    }
}

#[tokio::test]
async fn tripwires_are_not_armed_before_the_first_paid_verdict_and_arm_after_it() {
    let world = World::start().await;
    assert_not_armed(&metrics(&world).await);

    // Free use with no paid use: 1 > 10 x 0 would have fired; it is not armed.
    assert_eq!(precheck(&world).await.status, 200);
    let before = metrics(&world).await;
    assert_not_armed(&before);
    assert_eq!(before["tripwires"]["free_use_over_10x_paid_use"]["free"], 1, "{before}");

    // A house check is not outside paid use: no Day-0.
    let mut house = world.request(CHECK, None);
    house
        .headers
        .insert("authorization", HeaderValue::from_str(&format!("Bearer {HOUSE_TOKEN}")).unwrap());
    let answer = world.send(house).await;
    assert!(answer.is_verdict(), "{answer}");
    assert_eq!(answer.body["house"], true);
    let after_house = metrics(&world).await;
    assert_not_armed(&after_house);
    assert_eq!(after_house["today"]["house_check"], 1, "{after_house}");

    // The first outside paid verdict sets Day-0 to its ledger entry's instant.
    world.advance(std::time::Duration::from_secs(7));
    let payment = world.fresh_payment().await;
    let paid = world.post_check(&payment).await;
    assert!(paid.is_verdict(), "{paid}");
    let armed = metrics(&world).await;
    let day0 = armed["day0"].as_str().expect("Day-0 is recorded").to_owned();
    let entry_at = world.now().to_rfc3339_millis().unwrap();
    assert_eq!(day0, entry_at, "Day-0 is the paid entry's instant, not the house check's");
    let free = &armed["tripwires"]["free_use_over_10x_paid_use"];
    assert_eq!(free["armed"], true, "{armed}");
    assert_eq!((free["free"].as_u64(), free["paid"].as_u64()), (Some(1), Some(1)), "{free}");
    assert_eq!(free["fired"], false, "1 free <= 10 x 1 paid: {free}");
    assert_eq!(free["window"]["first_day"], &day0[..10], "counted since Day-0's UTC day");
    let refunds = &armed["tripwires"]["refunds_over_5_percent_in_30_days"];
    assert_eq!(refunds["armed"], true, "{armed}");
    assert_eq!(refunds["fired"], false, "{refunds}");
    assert_eq!(refunds["windows_evaluated"], 1, "one window ends on Day-0's day: {refunds}");
    assert_eq!(refunds["worst_window"]["paid"], 1, "{refunds}");

    // A later paid verdict does not move Day-0.
    world.advance(std::time::Duration::from_secs(60));
    let second = world.fresh_payment().await;
    assert!(world.post_check(&second).await.is_verdict());
    assert_eq!(metrics(&world).await["day0"], day0.as_str(), "first write wins");
}

#[tokio::test]
async fn free_use_over_ten_times_paid_use_since_day0_fires() {
    let world = World::start().await;
    let payment = world.fresh_payment().await;
    assert!(world.post_check(&payment).await.is_verdict());
    for _ in 0..11 {
        assert_eq!(precheck(&world).await.status, 200);
        world.advance(std::time::Duration::from_secs(5));
    }
    let metrics = metrics(&world).await;
    let free = &metrics["tripwires"]["free_use_over_10x_paid_use"];
    assert_eq!((free["free"].as_u64(), free["paid"].as_u64()), (Some(11), Some(1)), "{free}");
    assert_eq!(free["fired"], true, "11 > 10 x 1: {free}");
}
