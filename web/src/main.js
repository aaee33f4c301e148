// The page: the free pre-check, the paid verdict (the same POST /check or /memo every agent
// pays, through the official x402 client with the connected wallet), the report view, and the
// verifier. Every URL is relative to the page, so the page works under any base path; every
// request goes to this origin (the Solana RPC too: POST rpc relays what the payment needs).
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { renderReport } from "./report.js";
import { signIn, signInDeclared } from "./signin.js";
import { verifySigned, fromBase64Url } from "./verify.js";
import { NETWORK, connect, watchWallets } from "./wallet.js";

const $ = (id) => document.getElementById(id);
const here = (path) => new URL(path, document.baseURI).href;
const say = (text) => { $("status").textContent = text; };

/** The criteria document (its keys verify reports; its layout groups the factors), once. */
let criteria = null;
async function published() {
  if (!criteria) {
    const answer = await fetch(here("criteria"), { headers: { accept: "application/json" } });
    if (!answer.ok) throw new Error("/criteria answered " + answer.status);
    criteria = await answer.json();
  }
  return criteria;
}

/** The form's endpoint and op. */
function asked() {
  const op = document.querySelector('input[name="op"]:checked').value;
  return { url: $("url").value.trim(), op };
}

/** A closed-form error's words, or the status. */
async function errorOf(answer) {
  try {
    const body = await answer.json();
    if (body && body.error && typeof body.error.message === "string") {
      return body.error.rule + ": " + body.error.message;
    }
    if (body && typeof body.error === "string") return body.error;
  } catch { /* not JSON */ }
  return "HTTP " + answer.status;
}

/** Shows a signed report, verified against /criteria's keys. */
async function show(report) {
  const { signing_keys: keys, report_layout: layout } = await published();
  renderReport(report, layout);
  const line = $("verification");
  line.className = "verification";
  line.textContent = "Checking the signature…";
  const result = await verifySigned(report, keys);
  line.className = "verification " + (result.ok ? "ok" : "failed");
  line.textContent = result.ok ? "Verified: " + result.why + "." : "Not verified: " + result.why + ".";
  return result;
}

/** The connected wallet (see wallet.js), or null. */
let wallet = null;

/**
 * `fetch`, and when the answer is a 402 that asks for a sign-in and the connected wallet signs
 * messages, the same request again with the wallet's `SIGN-IN-WITH-X`; the last answer, and
 * whether the wallet signed in.
 */
async function signedFetch(url, init) {
  const first = await fetch(url, init);
  const declared = wallet && wallet.signMessage ? signInDeclared(first) : null;
  if (!declared) return { answer: first, signed: false };
  say("Waiting for the wallet to sign in…");
  const proof = await signIn(declared, wallet);
  if (!proof) return { answer: first, signed: false };
  const headers = { ...init.headers, "SIGN-IN-WITH-X": proof };
  return { answer: await fetch(url, { ...init, headers }), signed: true };
}

async function precheck() {
  const { url, op } = asked();
  say("Pre-checking…");
  // With a wallet that signs, the pre-check names it and spends the wallet's own allowance.
  const caller = wallet && wallet.signMessage ? { caller: wallet.address } : {};
  const { answer, signed } = await signedFetch(here("precheck"), {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url, op, ...caller }),
  });
  const view = $("precheck-view");
  view.hidden = false;
  if (!answer.ok) {
    $("precheck-answer").textContent = "Refused: " + (await errorOf(answer));
    $("precheck-answer").className = "refused";
    $("precheck-fix").textContent = "";
    say("The pre-check was refused.");
    return;
  }
  const body = await answer.json();
  const { signing_keys: keys } = await published();
  const checked = await verifySigned(body, keys);
  const proof = checked.ok ? " (signed answer, verified)" : " (signed answer, not verified: " + checked.why + ")";
  if (body.in_policy) {
    $("precheck-answer").textContent = "In policy: " + body.url + proof;
    $("precheck-answer").className = "";
    $("precheck-fix").textContent = "Nothing was fetched. The " + body.op + " verdict can be bought for this URL.";
  } else {
    const refusal = body.refusal || {};
    $("precheck-answer").textContent = "Not in policy: " + refusal.rule + proof;
    $("precheck-answer").className = "refused";
    $("precheck-fix").textContent = "To fix: " + refusal.message;
  }
  say(signed ? "Pre-checked, signed in by " + wallet.name + " (its own free allowance)." : "Pre-checked.");
}

async function buy() {
  const { url, op } = asked();
  const client = new x402Client()
    .register(NETWORK, new ExactSvmScheme(wallet.transactionSigner, { rpcUrl: here("rpc") }))
    .setSpendControls({ maxAmountPerPayment: "$0.01" });
  const paying = wrapFetchWithPayment(globalThis.fetch.bind(globalThis), client);
  say("Waiting for the wallet to sign the $0.01 payment…");
  $("buy").disabled = true;
  try {
    const answer = await paying(here(op), {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url }),
    });
    if (!answer.ok) {
      say("No verdict: " + (await errorOf(answer)));
      return;
    }
    const header = answer.headers.get("PAYMENT-RESPONSE");
    const settlement = header ? decodePaymentResponseHeader(header) : null;
    const report = await answer.json();
    await show(report);
    say("Paid" + (settlement ? " (transaction " + settlement.transaction + ")" : "") + ": the verdict is below.");
  } finally {
    $("buy").disabled = wallet === null;
  }
}

/** A verdict this wallet paid for and did not get (or lost), collected by signing in. */
async function collect() {
  const { url, op } = asked();
  say("Asking for the verdict this wallet paid for…");
  const { answer, signed } = await signedFetch(here(op), {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url }),
  });
  if (answer.ok) {
    await show(await answer.json());
    say("Collected, signed in by " + wallet.name + ": the verdict is below. Nothing was paid.");
  } else if (signed && answer.status === 402) {
    say("No verdict to collect: this wallet has no paid " + op + " of this URL to deliver again (" + (await errorOf(answer)) + ").");
  } else {
    say("No verdict: " + (await errorOf(answer)));
  }
}

async function verifyPasted(text) {
  let report;
  try {
    report = JSON.parse(text);
  } catch {
    $("report-view").hidden = false;
    $("verification").className = "verification failed";
    $("verification").textContent = "Not verified: the text is not JSON.";
    return;
  }
  await show(report);
  say("Checked the pasted report.");
}

function listWallets(wallets) {
  const list = $("wallets");
  list.replaceChildren();
  $("no-wallet").hidden = wallets.length > 0;
  for (const candidate of wallets) {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    const icon = document.createElement("img");
    icon.src = candidate.icon; icon.alt = ""; icon.width = 20; icon.height = 20;
    button.append(icon, document.createTextNode(" Connect " + candidate.name));
    button.addEventListener("click", () => failSoftly(async () => {
      wallet = await connect(candidate);
      $("account").textContent = wallet.address;
      $("buy").disabled = false;
      $("collect").disabled = !wallet.signMessage;
      say("Connected to " + wallet.name + ".");
    }));
    item.append(button);
    list.append(item);
  }
}

/** Runs `work`, saying what failed instead of throwing. */
async function failSoftly(work) {
  try {
    await work();
  } catch (error) {
    say("Error: " + (error && error.message ? error.message : String(error)));
  }
}

$("ask").addEventListener("submit", (event) => { event.preventDefault(); failSoftly(precheck); });
$("buy").addEventListener("click", () => failSoftly(buy));
$("collect").addEventListener("click", () => failSoftly(collect));
$("verify").addEventListener("click", () => failSoftly(() => verifyPasted($("paste").value)));
watchWallets(listWallets);

// A report in the fragment (#report=<base64url JSON>), on load or when the fragment changes:
// shown and checked; a fragment never leaves the browser.
function showFragment() {
  const fragment = new URLSearchParams(location.hash.slice(1)).get("report");
  if (!fragment) return;
  failSoftly(async () => {
    const text = new TextDecoder().decode(fromBase64Url(fragment));
    $("paste").value = text;
    await verifyPasted(text);
  });
}
window.addEventListener("hashchange", showFragment);
showFragment();
performance.mark("payability-ready");
document.documentElement.dataset.ready = "true";
