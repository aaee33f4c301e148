// The web page in a real browser (test code): Debian's Chromium driven by playwright-core
// through its executablePath, against `payability serve` with the x402 fixtures, a Wallet
// Standard test wallet (test_wallet.js) paying. shared/cli/tests/page.rs starts everything and
// runs this file with its settings in the environment:
//   PAYABILITY_TEST_WEB_MODULES   node_modules with playwright-core and axe-core
//   PAYABILITY_TEST_CHROMIUM      the Chromium binary
//   PAGE_BASE                     serve, the test rules (loopback targets allowed)
//   PAGE_PRODUCTION_BASE          a second serve under the production target-URL policy
//   SELLER_URL, UNCONFIGURED_URL, HOSTILE_URL   the loopback sellers
//   PAGE_OUT                      a folder for the screenshots and page.json (the figures)
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this through shared/cli/tests/page.rs`);
  return value;
};
const modules = env("PAYABILITY_TEST_WEB_MODULES");
const require = createRequire(join(modules, "noop.js"));
const { chromium } = require("playwright-core");
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const WALLET = join(import.meta.dirname, "test_wallet.js");
const BASE = env("PAGE_BASE");
const PRODUCTION_BASE = env("PAGE_PRODUCTION_BASE");
const OUT = env("PAGE_OUT");
const ORIGINS = new Set([new URL(BASE).origin, new URL(PRODUCTION_BASE).origin]);
// A value the hostile seller's challenge carries: it must reach no report and no request.
const CANARY = "CANARY-5f1e";

/** A fresh context with the test wallet, recording every request and every problem. */
async function open(browser, viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ viewport });
  await context.addInitScript({ path: WALLET });
  const page = await context.newPage();
  const seen = { requests: [], problems: [], dialogs: 0, bytes: 0 };
  page.on("request", (request) => seen.requests.push({ url: request.url(), body: request.postData() || "" }));
  page.on("pageerror", (error) => seen.problems.push(error.message));
  page.on("console", (message) => {
    // Chromium logs every 4xx resource as an error: the 402s are the protocol working.
    if (message.type() === "error" && !/status of 402/.test(message.text())) seen.problems.push(message.text());
  });
  page.on("dialog", async (dialog) => { seen.dialogs += 1; await dialog.dismiss(); });
  page.on("response", async (response) => {
    if (response.request().method() === "GET" && response.ok()) {
      seen.bytes += (await response.body().catch(() => Buffer.alloc(0))).length;
    }
  });
  return { context, page, seen };
}

/** Opens the page at `base` and waits until its script is running. */
async function load(page, base, fragment = "") {
  await page.goto(base + "/" + fragment);
  await page.waitForFunction(() => document.documentElement.dataset.ready === "true");
}

/** Buys `op` of `url` with the test wallet; returns the status line. */
async function buy(page, url, op) {
  await page.getByLabel("Endpoint URL").fill(url);
  await page.locator(`input[name="op"][value="${op}"]`).check();
  if (await page.getByRole("button", { name: /Buy the verdict/ }).isDisabled()) {
    await page.getByRole("button", { name: /Connect Test Wallet/ }).click();
    await page.waitForFunction(() => !document.getElementById("buy").disabled);
  }
  await page.getByRole("button", { name: /Buy the verdict/ }).click();
  await page.waitForFunction(() => /^(Paid|No verdict|Error)/.test(document.getElementById("status").textContent), null, { timeout: 60_000 });
  return page.locator("#status").textContent();
}

const text = (page, id) => page.locator("#" + id).textContent();

test("the page: pre-check, buy, read, verify, refuse, all from its own origin", async (t) => {
  const browser = await chromium.launch({ executablePath: env("PAYABILITY_TEST_CHROMIUM"), headless: true });
  const figures = {};
  try {
    const { context, page, seen } = await open(browser);
    const started = Date.now();
    await load(page, BASE);
    figures.interactive_ms = await page.evaluate(() => Math.round(performance.getEntriesByName("payability-ready")[0].startTime));
    figures.load_wall_ms = Date.now() - started;
    figures.weight_bytes = seen.bytes;
    assert.equal(await page.title(), "payability-verdict: is this x402 endpoint payable right now?");

    await t.test("a URL in policy is pre-checked free, its signed answer verified", async () => {
      await page.getByLabel("Endpoint URL").fill(env("SELLER_URL"));
      await page.getByRole("button", { name: "Pre-check (free)" }).click();
      await page.waitForFunction(() => document.getElementById("status").textContent === "Pre-checked.");
      assert.match(await text(page, "precheck-answer"), /^In policy: .*\(signed answer, verified\)$/);
    });

    let report;
    await t.test("a check bought with the wallet is POPULATED and verified", async () => {
      assert.match(await buy(page, env("SELLER_URL"), "check"), /^Paid \(transaction /);
      assert.match(await text(page, "verification"), /^Verified: signed by payability-/);
      assert.match(await text(page, "verdict-line"), /state: POPULATED/);
      assert.equal(await page.locator("#recipe").isHidden(), true, "no recipe for a payable endpoint");
      report = JSON.parse(await text(page, "report-json"));
      await page.screenshot({ path: join(OUT, "page-populated-1280.png"), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: join(OUT, "page-populated-390.png"), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    await t.test("the wallet signs in: its verdict again, at no charge, and its own pre-check", async () => {
      await page.getByRole("button", { name: /Get a verdict I paid for/ }).click();
      await page.waitForFunction(() => /^(Collected|No verdict|Error)/.test(document.getElementById("status").textContent));
      assert.match(await text(page, "status"), /^Collected, signed in by Test Wallet: .* Nothing was paid\.$/);
      assert.match(await text(page, "verification"), /^Verified: /);
      assert.match(await text(page, "verdict-line"), /state: POPULATED/);
      await page.getByRole("button", { name: "Pre-check (free)" }).click();
      await page.waitForFunction(() => /^Pre-checked/.test(document.getElementById("status").textContent));
      assert.equal(await text(page, "status"), "Pre-checked, signed in by Test Wallet (its own free allowance).");
      assert.match(await text(page, "precheck-answer"), /^In policy: .*\(signed answer, verified\)$/);
      const signed = await page.evaluate(() => window.__testWalletLog.filter((entry) => entry.op === "signMessage").length);
      assert.equal(signed, 2, "one sign-in each");
    });

    await t.test("a memo bought with the wallet is BOUND and verified", async () => {
      assert.match(await buy(page, env("SELLER_URL"), "memo"), /^Paid \(transaction /);
      assert.match(await text(page, "verification"), /^Verified: /);
      assert.match(await text(page, "verdict-line"), /^MEMO BINDING VERDICT — state: BOUND/);
    });

    await t.test("a report with one byte changed is not verified", async () => {
      const altered = JSON.stringify(report).replace('"POPULATED"', '"POPULATEE"');
      assert.notEqual(altered, JSON.stringify(report));
      await page.getByLabel("Signed report (JSON)").fill(altered);
      await page.getByRole("button", { name: "Verify" }).click();
      await page.waitForFunction(() => document.getElementById("verification").className.includes("failed"));
      assert.match(await text(page, "verification"), /^Not verified: the signature does not match its content/);
    });

    await t.test("a report in the fragment is verified and never sent", async () => {
      const encoded = Buffer.from(JSON.stringify(report)).toString("base64url");
      await page.goto("about:blank");
      await load(page, BASE, "#report=" + encoded);
      await page.waitForFunction(() => / (ok|failed)$/.test(document.getElementById("verification").className));
      assert.match(await text(page, "verification"), /^Verified: /);
      assert.ok(seen.requests.every((r) => !r.url.includes(encoded.slice(0, 40)) && !r.body.includes(encoded.slice(0, 40))));
    });

    await t.test("an UNCONFIGURED endpoint gets the seller's recipe", async () => {
      assert.match(await buy(page, env("UNCONFIGURED_URL"), "check"), /^Paid/);
      assert.match(await text(page, "verdict-line"), /state: UNCONFIGURED/);
      assert.equal(await page.locator("#recipe").isVisible(), true);
      assert.match(await text(page, "recipe-text"), /unpaidResponseBody/);
      assert.ok(await page.locator("tr.decided").count() > 0, "the deciding factors are marked");
      await page.screenshot({ path: join(OUT, "page-unconfigured-1280.png"), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: join(OUT, "page-unconfigured-390.png"), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    await t.test("a hostile seller's names are shown as text and nothing runs", async () => {
      assert.match(await buy(page, env("HOSTILE_URL"), "memo"), /^Paid/);
      const factors = await text(page, "factors");
      assert.ok(factors.includes("<script>window.__pwned=1</script>"), "the name is shown as text");
      assert.ok(factors.includes("<img src=x onerror=window.__pwned=2>"));
      assert.equal(await page.evaluate(() => window.__pwned), undefined, "nothing executed");
      assert.equal(await page.locator("#factors script, #factors img").count(), 0, "no element made of a name");
      assert.equal(seen.dialogs, 0);
    });

    await t.test("the page is usable from the keyboard alone", async () => {
      await load(page, BASE);
      await page.keyboard.press("Tab");
      assert.equal(await page.evaluate(() => document.activeElement.id), "url");
      await page.keyboard.type(env("SELLER_URL"));
      await page.keyboard.press("Tab");
      assert.equal(await page.evaluate(() => document.activeElement.name), "op");
      await page.keyboard.press("ArrowDown");
      assert.equal(await page.evaluate(() => document.querySelector('input[name="op"]:checked').value), "memo");
      await page.keyboard.press("Tab");
      assert.equal(await page.evaluate(() => document.activeElement.id), "precheck");
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => document.getElementById("status").textContent !== "Pre-checking…" &&
        document.getElementById("status").textContent !== "");
      assert.ok(await page.locator("#precheck-view").isVisible());
    });

    await t.test("axe finds no serious or critical violation", async () => {
      await page.evaluate(AXE);
      const results = await page.evaluate(() => window.axe.run(document, {
        runOnly: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] }));
      const grave = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
      assert.deepEqual(grave.map((v) => v.id), []);
      figures.axe_violations = results.violations.map((v) => `${v.id} (${v.impact})`);
    });

    await t.test("every request went to the page's own origin, and no canary left", async () => {
      const foreign = seen.requests.filter((r) => !r.url.startsWith("data:") && !ORIGINS.has(new URL(r.url).origin));
      assert.deepEqual(foreign, []);
      assert.ok(seen.requests.every((r) => !r.url.includes(CANARY) && !r.body.includes(CANARY)));
      assert.deepEqual(seen.problems, []);
      figures.requests = [...new Set(seen.requests.map((r) => new URL(r.url).pathname))].sort();
    });
    await context.close();

    await t.test("a private address is refused free under the production policy", async () => {
      const production = await open(browser);
      await load(production.page, PRODUCTION_BASE);
      await production.page.getByLabel("Endpoint URL").fill("http://10.0.0.1/x");
      await production.page.getByRole("button", { name: "Pre-check (free)" }).click();
      await production.page.waitForFunction(() => document.getElementById("status").textContent === "Pre-checked.");
      assert.match(await text(production.page, "precheck-answer"), /^Not in policy: address_not_public/);
      assert.match(await text(production.page, "precheck-fix"), /^To fix: /);
      await production.context.close();
    });
  } finally {
    await browser.close();
    writeFileSync(join(OUT, "page.json"), JSON.stringify(figures, null, 2));
  }
});
