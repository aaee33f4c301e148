//! The web page in a real browser: `payability serve` with the x402 fixtures and the page's
//! sellers, and tests/e2e/web/page.test.mjs driving Debian's Chromium (playwright-core) with a
//! Wallet Standard test wallet: it pre-checks, buys a check (POPULATED) and a memo (BOUND) and
//! sees both verified in the browser, sees a report with one byte changed not verified and a
//! report in the fragment verified, gets its check again by signing in with the wallet (no
//! payment) and pre-checks on the wallet's own allowance, buys the UNCONFIGURED seller's check
//! and gets its recipe,
//! buys the hostile seller's memo and sees its names as text with nothing run, works from the
//! keyboard, passes axe, sends every request to its own origin, and under the production
//! policy shows the refusal of a private address. The screenshots it takes are written into
//! docs/ (`docs/page.md` shows them), its figures into `target/`.
//!
//! Needs `scripts/test` (it installs Chromium from Debian and the test's npm packages).

use crate::support;

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use support::Server;
use support::world::{FacilitatorKind, StoreKind, Target, World, run_bounded};

/// The longest the browser test may take.
const BROWSER_WITHIN: std::time::Duration = std::time::Duration::from_secs(300);

/// The workspace root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_page_pays_reads_and_verifies_in_a_real_browser() {
    let missing = "the browser test needs Chromium and its npm packages: run scripts/test";
    let chromium = std::env::var("PAYABILITY_TEST_CHROMIUM").expect(missing);
    let modules = std::env::var("PAYABILITY_TEST_WEB_MODULES").expect(missing);
    let world = World::with_target(
        FacilitatorKind::Fixture,
        StoreKind::Embedded,
        Target::sellers_for_the_page(),
    );
    let production = Server::start(&[("PAYABILITY_ALLOW_PRIVATE_TARGETS", "0")]);
    let out = root().join("target/page-test");
    std::fs::create_dir_all(&out).unwrap();
    let mut command = Command::new("node");
    command
        .args(["--test", "--test-reporter=spec"])
        .arg(root().join("tests/e2e/web/page.test.mjs"))
        .env("PAYABILITY_TEST_CHROMIUM", chromium)
        .env("PAYABILITY_TEST_WEB_MODULES", modules)
        .env("PAGE_BASE", &world.server.base)
        .env("PAGE_PRODUCTION_BASE", &production.base)
        .env("SELLER_URL", &world.target.url)
        .env("UNCONFIGURED_URL", world.target.url_of("/unconfigured"))
        .env("HOSTILE_URL", world.target.url_of("/hostile"))
        .env("PAGE_OUT", &out);
    let ran = run_bounded(command, BROWSER_WITHIN);
    assert!(ran.status.is_some_and(|s| s.success()), "the browser test: {ran}");
    eprintln!("{}", ran.stdout);

    // Four purchases, each one settlement: check, memo, the UNCONFIGURED check, the hostile memo.
    assert_eq!(world.fixture_calls()["settled"], 4, "{}", world.fixture_calls());
    assert_eq!(world.landed().len(), 4);
    let figures: Value =
        serde_json::from_slice(&std::fs::read(out.join("page.json")).unwrap()).unwrap();
    eprintln!("the page: {figures}");
    for shot in ["populated-1280", "populated-390", "unconfigured-1280", "unconfigured-390"] {
        let taken = out.join(format!("page-{shot}.png"));
        let published = root().join(format!("docs/page-{shot}.png"));
        std::fs::copy(&taken, &published)
            .unwrap_or_else(|e| panic!("{}: {e}", published.display()));
    }
}
