//! The paid check's wall time over loopback stand-ins with set delays (`/verify` 50 ms,
//! `/settle` 400 ms, the target 150 ms): its median against verify + max(settle, fetch)
//! (the fetch alongside the settlement) and verify + settle + fetch (in series). A
//! measurement, not a check: `scripts/bench-paid-latency` runs it (not in CI).

use std::time::{Duration, Instant};

use crate::paid_flow::chain::SettleMode;
use crate::paid_flow::world::World;

/// Paid checks measured.
const RUNS: usize = 15;

#[tokio::test]
#[ignore = "a measurement, not a check: scripts/bench-paid-latency runs it"]
async fn paid_check_wall_time_against_verify_plus_max_settle_fetch() {
    let (verify, settle, fetch) =
        (Duration::from_millis(50), Duration::from_millis(400), Duration::from_millis(150));
    let world = World::start().await;
    world.facilitator.set_verify_delay(verify);
    world.facilitator.set_settle_mode(SettleMode::SlowThenSettle(settle));
    world.target.set_delay(fetch);
    let mut times = Vec::new();
    for _ in 0..RUNS {
        let payment = world.fresh_payment().await;
        let started = Instant::now();
        let answer = world.post_check(&payment).await;
        times.push(started.elapsed());
        assert!(answer.is_verdict(), "{answer}");
    }
    times.sort();
    let p50 = times[RUNS / 2];
    let parallel = verify + settle.max(fetch);
    let serial = verify + settle + fetch;
    let ms = |d: Duration| d.as_secs_f64() * 1_000.0;
    println!(
        "paid check p50 {:.1} ms over {RUNS} runs (min {:.1}, max {:.1}); verify + max(settle, fetch) {:.0} ms (goal <= {:.1} ms: x1.05 + 15 ms); verify + settle + fetch {:.0} ms; p50 / (verify + max) = {:.3}",
        ms(p50),
        ms(times[0]),
        ms(times[RUNS - 1]),
        ms(parallel),
        ms(parallel) * 1.05 + 15.0,
        ms(serial),
        p50.as_secs_f64() / parallel.as_secs_f64(),
    );
}
