//! Decode-and-grade throughput of the pure core (`grade_check`, `grade_memo`) for a typical
//! ~1 KB x402 challenge and for one whose body is close to the 65,536-byte cap, plus report
//! assembly and signing.
#![allow(missing_docs, reason = "criterion_group! writes the undocumented entry point")]

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use payability_core::capture::{
    BODY_CAP_BYTES, Capture, CapturedBody, CapturedHeader, FetchOutcome,
};
use payability_core::challenge::{ChallengeTerms, own_challenge};
use payability_core::grade::{CheckState, MemoState, grade_check, grade_memo};
use payability_core::policy::{AddressRule, vet_target_url};
use payability_core::report::{UnsignedReport, UtcMillis};
use payability_core::signing::ReportSigner;

const CALLED_URL: &str = "https://seller.example/api/v1/reports/market-depth?pair=SOL-USDC";
const PAY_TO: &str = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const TOKEN_ACCOUNT: &str = "7UX2i7SucgLMQcfZ75s3VXmZZY4YRUyJN9X1RgfMoDUi";
const FEE_PAYER: &str = "2wmVCSfPxGPjrnMMn7rchp4uaeoTqN39mXFC2zhPdri9";

/// A v1 JSON body and a base64 v2 `PAYMENT-REQUIRED` value: the service's own challenge shape.
fn challenge(memo: &str, description: &str) -> (Vec<u8>, Vec<u8>) {
    let served = own_challenge(&ChallengeTerms {
        resource_url: CALLED_URL,
        description,
        pay_to: PAY_TO,
        fee_payer: FEE_PAYER,
        token_account: TOKEN_ACCOUNT,
        memo,
    });
    (served.body, served.payment_required.into_bytes())
}

/// The typical challenge (a ~1 KB body plus header) and the near-cap one (body exactly at
/// the cap, the padding in a long description with some non-ASCII text).
fn challenges(memo: &str) -> [(&'static str, Vec<u8>, Vec<u8>); 2] {
    let typical = challenge(memo, "Order-book depth for SOL/USDC, 20 levels, refreshed each slot.");
    let unpadded = challenge(memo, "").0.len();
    let filler = "Depth levels \u{2014} d\u{e9}tail. ".repeat(4_000);
    let mut description = String::new();
    for c in filler.chars() {
        if unpadded + description.len() + c.len_utf8() > BODY_CAP_BYTES {
            break;
        }
        description.push(c);
    }
    while unpadded + description.len() < BODY_CAP_BYTES {
        description.push('.');
    }
    let near_cap = challenge(memo, &description);
    assert_eq!(near_cap.0.len(), BODY_CAP_BYTES);
    [("typical_1k", typical.0, typical.1), ("near_cap_64k", near_cap.0, near_cap.1)]
}

fn outcome(body: &[u8], header: &[u8]) -> FetchOutcome {
    FetchOutcome::Captured(Capture {
        status: 402,
        payment_required: Some(CapturedHeader::of(header)),
        body: CapturedBody::Complete(body.to_vec()),
    })
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

fn grade_benches(c: &mut Criterion) {
    let first = challenges("pv-7f3a9c21e4b84d0f");
    let second = challenges("pv-0c55e1d29a7b4f63");

    let mut group = c.benchmark_group("grade_check");
    for (name, body, header) in &first {
        let fetched = outcome(body, header);
        let verdict = grade_check(CALLED_URL, &fetched);
        assert_eq!(verdict.state, CheckState::Populated, "{name}");
        println!("{name}: body {} bytes, header {} bytes", body.len(), header.len());
        group.throughput(Throughput::Bytes((body.len() + header.len()) as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), &fetched, |b, fetched| {
            b.iter(|| grade_check(black_box(CALLED_URL), black_box(fetched)));
        });
    }
    group.finish();

    let mut group = c.benchmark_group("grade_memo");
    for ((name, body1, header1), (_, body2, header2)) in first.iter().zip(&second) {
        let pair = (outcome(body1, header1), outcome(body2, header2));
        assert_eq!(grade_memo(&pair.0, &pair.1).state, MemoState::Bound, "{name}");
        let bytes = body1.len() + header1.len() + body2.len() + header2.len();
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), &pair, |b, (one, two)| {
            b.iter(|| grade_memo(black_box(one), black_box(two)));
        });
    }
    group.finish();
}

fn report_benches(c: &mut Criterion) {
    let signer = ReportSigner::from_seed(&[7; 32]);
    let target = vet_target_url(CALLED_URL, AddressRule::PublicOnly).unwrap();
    let [(_, body, header), _] = challenges("pv-7f3a9c21e4b84d0f");
    let verdict = grade_check(target.as_str(), &outcome(&body, &header));
    let at = UtcMillis(1_795_910_400_123);

    let mut group = c.benchmark_group("report");
    group.bench_function("check_report_and_sign", |b| {
        b.iter(|| {
            let report =
                UnsignedReport::of(&target, black_box(verdict.clone()), at, false).unwrap();
            report.sign(&signer)
        });
    });
    group.bench_function("grade_check_report_and_sign", |b| {
        let fetched = outcome(&body, &header);
        b.iter(|| {
            let verdict = grade_check(target.as_str(), black_box(&fetched));
            UnsignedReport::of(&target, verdict, at, false).unwrap().sign(&signer)
        });
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = grade_benches, report_benches
}
criterion_main!(benches);
