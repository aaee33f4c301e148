//! Free-tier farming through `POST /precheck`: every pre-check spends its source's allowance
//! (100 a day, 5,000 ms apart) and the named wallet's; one source rotating wallet strings
//! gets the source's allowance, then the 402 free-tier refusal.

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use http::Method;
use payability_runtime::store::{FREE_PER_SOURCE_PER_DAY, FREE_SOURCE_MIN_INTERVAL_MS};
use serde_json::json;

use crate::world::{Answer, World};

/// A random-looking base58 wallet string per n.
fn rotating_wallet(n: u64) -> String {
    const ALPHABET: &[u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    let mut state = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..44)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            char::from(ALPHABET[usize::try_from(state % 58).unwrap()])
        })
        .collect()
}

async fn precheck(world: &World, source: IpAddr, caller: &str) -> Answer {
    let mut request = world.request("/precheck", None);
    request.method = Method::POST;
    request.source_ip = Some(source);
    request.body = json!({"url": world.target.url(), "caller": caller}).to_string().into_bytes();
    world.send(request).await
}

#[tokio::test]
async fn one_source_rotating_300_wallets_gets_the_source_allowance() {
    let world = World::start().await;
    let farm = IpAddr::V4(Ipv4Addr::new(203, 0, 113, 9));
    let mut ok = 0;
    for n in 0..300 {
        let answer = precheck(&world, farm, &rotating_wallet(n)).await;
        match answer.status {
            200 => ok += 1,
            402 => assert_eq!(answer.rule(), Some("free_precheck_daily_cap"), "{answer}"),
            _ => panic!("{answer}"),
        }
        world.advance(Duration::from_millis(u64::try_from(FREE_SOURCE_MIN_INTERVAL_MS).unwrap()));
    }
    assert_eq!(ok, FREE_PER_SOURCE_PER_DAY, "300 wallets from one source");
    // A burst from another source, no time passing: one.
    let burst = IpAddr::V4(Ipv4Addr::new(203, 0, 113, 10));
    let mut ok = 0;
    for n in 300..340 {
        if precheck(&world, burst, &rotating_wallet(n)).await.status == 200 {
            ok += 1;
        }
    }
    assert_eq!(ok, 1, "40 wallets at once from one source");
    // Naming a wallet from an exhausted source burns nothing of it: its owner still has it.
    let victim = rotating_wallet(1_000);
    assert_eq!(precheck(&world, farm, &victim).await.status, 402);
    let owner = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 44));
    assert_eq!(precheck(&world, owner, &victim).await.status, 200);
}
