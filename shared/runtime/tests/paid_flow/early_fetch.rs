//! The fetch alongside the settlement: the target is fetched while `/settle` runs, graded
//! and answered only once the payment settled; one early fetch per payer at a time, so
//! failed settlements never buy fetches in bulk.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::paid_flow::chain::SettleMode;
use crate::paid_flow::expect;
use crate::paid_flow::world::{Answer, CHECK, World};

#[tokio::test]
async fn the_target_is_fetched_while_settle_runs_and_answered_once_settled() {
    let world = World::start().await;
    let payment = world.fresh_payment().await;
    world.facilitator.set_settle_mode(SettleMode::Hold);
    let service = Arc::clone(&world.service);
    let request = world.request(CHECK, Some(&payment));
    let carried = tokio::spawn(async move { service.handle(request).await });
    tokio::time::timeout(Duration::from_secs(20), world.facilitator.settle_held())
        .await
        .expect("the payment reaches /settle");
    let deadline = Instant::now() + Duration::from_secs(10);
    while world.target.hits() == 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(world.target.hits(), 1, "fetched while /settle is held");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!carried.is_finished(), "nothing is answered before the settlement");
    assert!(world.ledger().is_empty(), "nothing recorded before the settlement");
    world.facilitator.release_settle();
    let answer = tokio::time::timeout(Duration::from_secs(20), carried)
        .await
        .expect("answers once settled")
        .expect("the request ran");
    let answer = Answer::from(answer.into_http());
    assert!(answer.is_verdict(), "{answer}");
    assert_eq!(world.target.hits(), 1, "the early capture is the verdict's: no second fetch");
    expect::paid_once(&world, &payment, &[answer]);
}

#[tokio::test]
async fn concurrent_payments_of_one_payer_whose_settlements_fail_fetch_once() {
    let world = World::start().await;
    world.target.set_delay(Duration::from_millis(100));
    world.facilitator.set_settle_mode(SettleMode::SlowThenRefuse(Duration::from_millis(600)));
    let mut payments = Vec::new();
    for _ in 0..4 {
        payments.push(world.fresh_payment().await);
    }
    let tasks: Vec<_> = payments
        .iter()
        .map(|payment| {
            let service = Arc::clone(&world.service);
            let request = world.request(CHECK, Some(payment));
            tokio::spawn(async move { service.handle(request).await })
        })
        .collect();
    let mut answers = Vec::new();
    for task in tasks {
        let answer = Answer::from(task.await.expect("the request ran").into_http());
        expect::outcome_unknown(&answer);
        expect::nothing_of_the_capture(&answer);
        answers.push(answer);
    }
    assert_eq!(world.facilitator.settle_calls(), 4, "each settlement was tried");
    assert_eq!(world.target.hits(), 1, "one early fetch for the payer, none after a failure");
    expect::nothing_taken(&world, &answers);

    // The lease was given back: the payer's next payment fetches alongside its settlement.
    world.facilitator.set_settle_mode(SettleMode::Hold);
    let next = world.fresh_payment().await;
    let service = Arc::clone(&world.service);
    let request = world.request(CHECK, Some(&next));
    let carried = tokio::spawn(async move { service.handle(request).await });
    tokio::time::timeout(Duration::from_secs(20), world.facilitator.settle_held())
        .await
        .expect("the payment reaches /settle");
    let deadline = Instant::now() + Duration::from_secs(10);
    while world.target.hits() == 1 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(world.target.hits(), 2, "fetched while its /settle is held");
    world.facilitator.release_settle();
    let bought = Answer::from(carried.await.expect("the request ran").into_http());
    assert!(bought.is_verdict(), "{bought}");
    assert_eq!(world.target.hits(), 2, "no second fetch");
}
