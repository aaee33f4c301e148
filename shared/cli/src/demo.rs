//! `payability demo`: the service's main job on an embedded default. It starts a sample x402
//! seller on loopback (serving this service's own challenge shape, a fresh memo per request),
//! then checks it with both ops and prints the two signed reports.

use std::convert::Infallible;
use std::net::SocketAddr;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use payability_core::challenge::{ChallengeTerms, own_challenge};
use tokio::net::TcpListener;

/// Illustrative seller values of the embedded target (not real accounts).
const DEMO_PAY_TO: &str = "DemoSe11er1111111111111111111111111111111111";
const DEMO_FEE_PAYER: &str = "DemoFeePayer111111111111111111111111111111111";
const DEMO_TOKEN_ACCOUNT: &str = "DemoTokenAccount11111111111111111111111111111";

/// A fresh memo in the prefixed-opaque format: `pvm_` and 32 random hex digits.
fn fresh_memo() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the system random source works");
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("pvm_{hex}")
}

/// Answers every request with a 402 carrying our challenge for `resource_url`.
fn answer(resource_url: &str) -> Response<Full<Bytes>> {
    let memo = fresh_memo();
    let challenge = own_challenge(&ChallengeTerms {
        resource_url,
        description: "Embedded demo seller: one sample resource",
        pay_to: DEMO_PAY_TO,
        fee_payer: DEMO_FEE_PAYER,
        token_account: DEMO_TOKEN_ACCOUNT,
        memo: &memo,
    });
    Response::builder()
        .status(StatusCode::PAYMENT_REQUIRED)
        .header("content-type", "application/json")
        .header("payment-required", challenge.payment_required)
        .body(Full::new(Bytes::from(challenge.body)))
        .expect("static headers are valid")
}

/// Starts the embedded seller on a loopback port and returns its resource URL.
pub(crate) async fn start_demo_seller() -> std::io::Result<String> {
    let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
    let url = format!("http://{}/demo/weather", listener.local_addr()?);
    let resource_url = url.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let resource_url = resource_url.clone();
            let service = service_fn(move |_: Request<Incoming>| {
                let response = answer(&resource_url);
                async move { Ok::<_, Infallible>(response) }
            });
            tokio::spawn(http1::Builder::new().serve_connection(TokioIo::new(stream), service));
        }
    });
    Ok(url)
}
