#!/usr/bin/env node
// Agent quickstart with the official npm x402 client (@x402/fetch + @x402/svm): from the
// service's base URL alone to a paid, verified verdict. What the README's "Agent quickstart"
// shows; shared/cli/tests/agents.rs runs it against the loopback fixtures.
//
//   node quickstart.mjs --base URL --target URL --rpc URL --buyer-seed-hex HEX
//       [--op memo|check] [--discovery auto|well-known|openapi] [--refuse amount|other-route-memo]
//       [--method POST|GET] [--tamper-report] [--sign-in-again] [--modules DIR] [--timeout S]
//
// 1. Discover what to call, knowing only --base: `GET <base>/.well-known/x402` (the paid
//    resources) names the op's route; else `GET <base>/openapi.json` (the path whose POST
//    operation has `x-payment-info`). A route on another origin than --base is not paid.
//    --discovery well-known or openapi reads only that document (default auto: both, in order).
// 2. Pay `POST <route> {"url": <target>}` through wrapFetchWithPayment: it reads the 402's v2
//    PAYMENT-REQUIRED header, signs a USDC transfer (with the challenge's extra.memo) and
//    repeats the same request with PAYMENT-SIGNATURE. --method GET pays `GET <route>?url=<target>`
//    instead (the target encoded with encodeURIComponent, as a JS agent builds a query).
// 3. Verify the signed report with none of the service's code: `GET <base>/criteria`, the key
//    whose keyId is signature.key_id, RFC 8785 bytes of the report without `signature`
//    (`canonicalize`, by an RFC 8785 author), Ed25519 (node:crypto), checked_at in the key's
//    window.
//
// Prints one JSON line: {client, discovered_via, route, status, op, state, valid, key_id,
// settled, transaction, error}. Exit 0 when the answer is 200 and the report verifies, 1
// otherwise, 2 on bad arguments. --tamper-report (for tests) changes the paid report's `state`
// before verifying it, which must then fail.
//
// --sign-in-again (a client whose answer was lost): once the verdict is verified, asks the same
// route again through @x402/extensions' wrapFetchWithSIWx (sign-in-with-x) with the same
// wallet and no payment wrapper: the 402 declares sign-in-with-x, the client signs in, and the
// verdict comes back without a second payment. The line then also has `signed_in_again`:
// {status, valid, sent_payment, sent_sign_in}.
//
// --refuse presents a payment on wrong terms through the same client (a payment policy edits
// the offer before it is signed): `amount` pays one atomic unit less than asked,
// `other-route-memo` echoes the memo of the op's sibling route's 402 (check's memo on memo, and
// the reverse). The line then also has `refusal`: the reason as @x402/core's client reads it
// from the v2 PAYMENT-REQUIRED header of the 402 that answered the payment (the
// `paymentRequired.error` its onPaymentResponse hooks get, and x402HTTPClient.processResponse's
// `header.error`), its rule id, and the v1 body's `error`. Exit 0 when a 402 came back.

import { createPublicKey, verify as verifySignature } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const HERE = path.dirname(fileURLToPath(import.meta.url));

const { values: args } = parseArgs({
  options: {
    base: { type: "string" },
    target: { type: "string" },
    rpc: { type: "string" },
    "buyer-seed-hex": { type: "string" },
    op: { type: "string", default: "memo" },
    method: { type: "string", default: "POST" },
    discovery: { type: "string", default: "auto" },
    refuse: { type: "string" },
    "tamper-report": { type: "boolean", default: false },
    "sign-in-again": { type: "boolean", default: false },
    modules: { type: "string" },
    timeout: { type: "string", default: "30" },
  },
  strict: true,
});

function usage(message) {
  process.stderr.write(
    `quickstart.mjs: ${message}\nusage: node quickstart.mjs --base URL --target URL --rpc URL ` +
      "--buyer-seed-hex HEX [--op memo|check] [--discovery auto|well-known|openapi] " +
      "[--refuse amount|other-route-memo] [--modules DIR]\n",
  );
  process.exit(2);
}
for (const name of ["base", "target", "rpc", "buyer-seed-hex"]) {
  if (!args[name]) usage(`--${name} is required`);
}
if (!/^[0-9a-fA-F]{64}$/.test(args["buyer-seed-hex"])) usage("--buyer-seed-hex must be 64 hex digits");
if (!["check", "memo"].includes(args.op)) usage("--op is check or memo");
if (!["POST", "GET"].includes(args.method)) usage("--method is POST or GET");
if (!["auto", "well-known", "openapi"].includes(args.discovery)) usage("--discovery is auto, well-known or openapi");
if (args.refuse && !["amount", "other-route-memo"].includes(args.refuse)) {
  usage("--refuse is amount or other-route-memo");
}
const BASE = args.base.replace(/\/+$/, "");
const TIMEOUT_MS = Number(args.timeout) * 1000;

// ------------------------------------------------------------------ the packages
// In an agent's own project these are plain imports (`npm install @x402/fetch @x402/svm
// @x402/extensions @solana/kit canonicalize`):
//   import { wrapFetchWithPayment, x402Client, x402HTTPClient } from "@x402/fetch";
//   import { ExactSvmScheme } from "@x402/svm/exact/client";
//   import { wrapFetchWithSIWx } from "@x402/extensions/sign-in-with-x";
//   import { createKeyPairSignerFromPrivateKeyBytes } from "@solana/kit";
//   import canonicalize from "canonicalize";
// Here they are installed by scripts/test into target/test-deps/agents (pinned by
// package-lock.json beside this file), a node_modules that is not above this file, so each
// is imported by the file its package.json exports for `import`.
const MODULES = path.resolve(
  args.modules ??
    process.env.PAYABILITY_TEST_AGENTS_MODULES ??
    path.join(HERE, "../../../target/test-deps/agents/node_modules"),
);

function exportFor(target) {
  if (typeof target === "string") return target;
  if (target && typeof target === "object") {
    for (const [key, value] of Object.entries(target)) {
      if (key === "node" || key === "import" || key === "default") {
        const found = exportFor(value);
        if (found) return found;
      }
    }
  }
  return null;
}

function packageJson(name) {
  try {
    return JSON.parse(readFileSync(path.join(MODULES, name, "package.json"), "utf8"));
  } catch {
    usage(`${name} is not installed in ${MODULES} (npm ci the lock beside this file; scripts/test does)`);
  }
}

async function load(name, subpath = ".") {
  const pkg = packageJson(name);
  const exp = pkg.exports;
  let file;
  if (exp === undefined) file = subpath === "." ? pkg.module ?? pkg.main : null;
  else if (typeof exp === "string") file = subpath === "." ? exp : null;
  else if (Object.keys(exp).every((k) => k.startsWith("."))) file = exportFor(exp[subpath]);
  else file = subpath === "." ? exportFor(exp) : null;
  if (!file) usage(`${name} exports no ${subpath} for import`);
  return import(pathToFileURL(path.join(MODULES, name, file)).href);
}

const { wrapFetchWithPayment, x402Client, x402HTTPClient } = await load("@x402/fetch");
const { ExactSvmScheme } = await load("@x402/svm", "./exact/client");
const { wrapFetchWithSIWx } = await load("@x402/extensions", "./sign-in-with-x");
const { createKeyPairSignerFromPrivateKeyBytes } = await load("@solana/kit");
const { default: canonicalize } = await load("canonicalize");
const CLIENT = `@x402/fetch ${packageJson("@x402/fetch").version} + @x402/svm ${packageJson("@x402/svm").version} (npm)`;

// ------------------------------------------------------------------ 1. discovery
class Refused extends Error {}

const lastSegment = (urlOrPath) => new URL(urlOrPath, BASE).pathname.replace(/\/+$/, "").split("/").pop();

async function getJson(url) {
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    return answer.status === 200 ? await answer.json() : null;
  } catch {
    return null;
  }
}

// {route, via} of the op's paid POST route.
async function discover(op) {
  const known = args.discovery === "openapi" ? null : await getJson(`${BASE}/.well-known/x402`);
  if (Array.isArray(known?.resources)) {
    const resource = known.resources.find((r) => typeof r === "string" && lastSegment(r) === op);
    if (resource) return checked({ route: resource.split("?")[0], via: "/.well-known/x402" });
  }
  const spec = args.discovery === "well-known" ? null : await getJson(`${BASE}/openapi.json`);
  if (spec && typeof spec.paths === "object") {
    const server = (spec.servers?.[0]?.url ?? BASE).replace(/\/+$/, "");
    for (const [p, item] of Object.entries(spec.paths)) {
      if (lastSegment(p) === op && item?.post?.["x-payment-info"] !== undefined) {
        return checked({ route: new URL(`${server}/${p.replace(/^\/+/, "")}`, BASE).href, via: "/openapi.json" });
      }
    }
  }
  throw new Refused(`neither ${BASE}/.well-known/x402 nor ${BASE}/openapi.json names a paid POST /${op} route`);
}

function checked(found) {
  if (new URL(found.route).origin !== new URL(BASE).origin) {
    throw new Refused(`the discovered route ${found.route} is not on ${BASE}; not paying it`);
  }
  return found;
}

// ------------------------------------------------------------------ 3. verification
const b64url = (text) => Buffer.from(text, "base64url");

function verifyReport(report, criteria) {
  const { signature, ...unsigned } = report;
  const keyId = signature?.key_id ?? null;
  if (signature?.alg !== "Ed25519") return { valid: false, keyId, why: "not an Ed25519 signature" };
  const key = (criteria.signing_keys ?? []).find((k) => k.keyId === keyId);
  if (!key) return { valid: false, keyId, why: "no key in /criteria has this key id" };
  const at = unsigned.checked_at ?? "";
  if ((key.valid_from && at < key.valid_from) || (key.valid_until && at >= key.valid_until)) {
    return { valid: false, keyId, why: "checked_at is outside the key's published window" };
  }
  const publicKey = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: key.jwk.x }, format: "jwk" });
  const valid = verifySignature(null, Buffer.from(canonicalize(unsigned), "utf8"), publicKey, b64url(signature.value));
  return { valid, keyId, why: valid ? null : "the signature does not match" };
}

// ------------------------------------------------------------------ 2. payment
function decodeHeader(value) {
  try {
    return JSON.parse(Buffer.from(value, "base64").toString("utf8"));
  } catch {
    return null;
  }
}

async function main(out) {
  const found = await discover(args.op);
  out.discovered_via = found.via;
  out.route = args.method === "GET" ? `GET ${found.route}?url=<target>` : `POST ${found.route} {"url": <target>}`;
  const criteria = await getJson(`${BASE}/criteria`);
  if (!criteria || typeof criteria !== "object") throw new Refused(`${BASE}/criteria is not a JSON document`);

  const signer = await createKeyPairSignerFromPrivateKeyBytes(Buffer.from(args["buyer-seed-hex"], "hex"));
  const client = new x402Client();
  // registerExactSvmScheme(client, {signer}) would read mainnet's public RPC: the scheme is
  // registered by hand to give it an RPC URL.
  client.register("solana:*", new ExactSvmScheme(signer, { rpcUrl: args.rpc }));

  let sibling = null;
  if (args.refuse === "other-route-memo") {
    const other = await discover(args.op === "memo" ? "check" : "memo");
    const unpaid = await fetch(other.route, { method: "POST", signal: AbortSignal.timeout(TIMEOUT_MS) });
    sibling = decodeHeader(unpaid.headers.get("payment-required") ?? "")?.accepts?.[0]?.extra?.memo;
    if (!sibling) throw new Refused(`no memo in the 402 of ${other.route}`);
  }
  if (args.refuse) {
    // A payment policy sees the offer before the scheme signs it: the wrong terms are signed
    // into the transaction and echoed in `accepted`, as a buyer with stale terms would send.
    client.registerPolicy((_version, offers) =>
      offers.map((offer) =>
        args.refuse === "amount"
          ? { ...offer, amount: (BigInt(offer.amount) - 1n).toString() }
          : { ...offer, extra: { ...offer.extra, memo: sibling } },
      ),
    );
  }
  // The terms the client signed, and what @x402/core's client hands its hooks after the paid
  // request: the settlement (PAYMENT-RESPONSE), or on a 402 the decoded PAYMENT-REQUIRED header.
  const signed = [];
  client.onAfterPaymentCreation(async (ctx) => {
    signed.push(ctx.paymentPayload.accepted);
  });
  const afterPayment = [];
  client.onPaymentResponse(async (ctx) => {
    afterPayment.push({ settleResponse: ctx.settleResponse, paymentRequired: ctx.paymentRequired });
  });

  // The op's request, through `fetcher` (GET with the query, or POST with the JSON body).
  const ask = (fetcher) => {
    const signal = AbortSignal.timeout(TIMEOUT_MS);
    return args.method === "GET"
      ? fetcher(`${found.route}?url=${encodeURIComponent(args.target)}`, { method: "GET", signal })
      : fetcher(found.route, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ url: args.target }),
          signal,
        });
  };
  const answer = await ask(wrapFetchWithPayment(fetch, client));
  out.status = answer.status;
  const text = await answer.text();
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Refused(`the answer (${answer.status}) is not JSON`);
  }
  const result = new x402HTTPClient(client).parsePaymentResult({
    status: answer.status,
    getHeader: (name) => answer.headers.get(name),
    body,
  });
  if (result.paymentStatus === "settled" || result.paymentStatus === "settle_failed") {
    out.settled = result.header.success;
    out.transaction = result.header.transaction || null;
  }

  if (args.refuse) {
    const fromHook = afterPayment.at(-1)?.paymentRequired?.error ?? null;
    const fromHeader = result.paymentStatus === "payment_required" ? result.header?.error ?? null : null;
    out.error = fromHook;
    out.refusal = {
      tampered: args.refuse,
      payment_sent: signed.length > 0,
      signed_terms: signed.length > 0 ? { amount: signed.at(-1).amount, memo: signed.at(-1).extra?.memo ?? null } : null,
      reason_in_onPaymentResponse: fromHook,
      reason_in_processResponse: { paymentStatus: result.paymentStatus, error: fromHeader },
      rule: typeof fromHook === "string" ? fromHook.split(":")[0] : null,
      v1_body_error: typeof body?.error === "string" ? body.error : null,
    };
    return out.status === 402;
  }
  if (answer.status !== 200) {
    out.error = typeof body?.error === "object" ? body.error?.rule ?? null : body?.error ?? null;
    return false;
  }
  if (args["tamper-report"]) body.state = body.state === "NOT-A-402" ? "BOUND" : "NOT-A-402";
  out.op = body.op ?? null;
  out.state = body.state ?? null;
  const verdict = verifyReport(body, criteria);
  out.valid = verdict.valid;
  out.key_id = verdict.keyId;
  out.error = verdict.why;
  if (!out.valid || !args["sign-in-again"]) return out.valid;

  // The same request again, signed in by the same wallet, no payment wrapper.
  const sent = { payment: false, signIn: false };
  const recording = (input, init) => {
    const headers = new Headers(input instanceof Request ? input.headers : init?.headers);
    sent.payment ||= headers.has("payment-signature") || headers.has("x-payment");
    sent.signIn ||= headers.has("sign-in-with-x");
    return fetch(input, init);
  };
  const again = await ask(wrapFetchWithSIWx(recording, signer));
  const againBody = await again.json().catch(() => null);
  const againVerdict = again.status === 200 && againBody ? verifyReport(againBody, criteria) : { valid: false };
  out.signed_in_again = {
    status: again.status, valid: againVerdict.valid, sent_payment: sent.payment, sent_sign_in: sent.signIn,
  };
  return againVerdict.valid && !sent.payment && sent.signIn;
}

const out = {
  client: CLIENT, discovered_via: null, route: null, status: null, op: null, state: null, valid: false,
  key_id: null, settled: null, transaction: null, error: null,
};
let ok = false;
try {
  ok = await main(out);
} catch (err) {
  out.error = `${err instanceof Refused ? "Refused" : err?.name ?? "Error"}: ${err?.message ?? err}`;
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(ok ? 0 : 1);
