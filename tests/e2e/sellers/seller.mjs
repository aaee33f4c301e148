// A seller built with an official x402 middleware (@x402/express or @x402/hono), for the
// sellers test (test code). Loopback only.
//
//   node seller.mjs --framework express|hono --variant NAME --facilitator http://127.0.0.1:N
//       --pay-to <base58 wallet> --memo <memo> [--port 0] [--max-seconds 600] [--modules DIR]
//
// Serves one paid route, `GET /weather`: the Solana `exact` scheme on solana mainnet
// (solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp), USDC, $0.01 (10000 base units), paid to
// --pay-to, on 127.0.0.1:--port (0: a free port). The facilitator (only its /supported is
// read, when the middleware starts) is --facilitator. Prints exactly one stdout line,
// `ready <port>`, once it listens; exits when its stdin reaches end-of-file or after
// --max-seconds. The variants are the route configurations docs/sellers.md grades:
//
//   default     the middleware's own example route, nothing added
//   bazaar      + the bazaar discovery extension (declareDiscoveryExtension)
//   memo-fixed  + extra.memo = --memo on every challenge
//   memo-fresh  + a fresh extra.memo per challenge (--memo + "-" + a nonce and its HMAC), set
//               by a dynamic price, which reuses the memo of a payment this seller issued
//   body-only   + extra.usdc_token_account + the unpaidResponseBody hook answering the same
//               challenge as a v1-style JSON body (no memo)
//   populated   memo-fixed + extra.usdc_token_account + that hook
//   bound       memo-fresh + extra.usdc_token_account + that hook (the body carries the memo
//               of the same challenge)
//
// The packages are installed by scripts/test into target/test-deps/sellers (pinned in
// package.json / package-lock.json beside this file); --modules (default: that node_modules,
// or $PAYABILITY_TEST_SELLERS_MODULES) says where they are.

import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

// stdout carries the ready line only.
console.log = console.info = console.debug = console.error;

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SOLANA_MAINNET = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
const USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const VARIANTS = [
  "default",
  "bazaar",
  "memo-fixed",
  "memo-fresh",
  "body-only",
  "populated",
  "bound",
];

const { values: args } = parseArgs({
  options: {
    framework: { type: "string" },
    variant: { type: "string", default: "default" },
    facilitator: { type: "string" },
    "pay-to": { type: "string" },
    memo: { type: "string" },
    port: { type: "string", default: "0" },
    "max-seconds": { type: "string", default: "600" },
    modules: { type: "string" },
  },
  strict: true,
});

function die(message) {
  process.stderr.write(`seller: ${message}\n`);
  process.exit(2);
}

if (!["express", "hono"].includes(args.framework)) die("--framework express|hono is required");
if (!VARIANTS.includes(args.variant)) die(`--variant must be one of ${VARIANTS.join(", ")}`);
if (!args.facilitator || !/^http:\/\/127\.0\.0\.1:\d+\/?$/.test(args.facilitator)) {
  die("--facilitator http://127.0.0.1:PORT is required (loopback only)");
}
if (!args["pay-to"] || !args.memo) die("--pay-to and --memo are required");
const maxSeconds = Number(args["max-seconds"]);
if (!(maxSeconds > 0)) die("--max-seconds must be positive");

const modulesDir = path.resolve(
  args.modules ??
    process.env.PAYABILITY_TEST_SELLERS_MODULES ??
    path.join(HERE, "../../../target/test-deps/sellers/node_modules"),
);
// Resolves bare specifiers from that node_modules folder (it is not above this file).
const requireFrom = createRequire(path.join(modulesDir, "noop.js"));
const load = async (specifier) => import(pathToFileURL(requireFrom.resolve(specifier)).href);

const { HTTPFacilitatorClient } = await load("@x402/core/server");
const { decodePaymentSignatureHeader } = await load("@x402/core/http");
const { ExactSvmScheme } = await load("@x402/svm/exact/server");
const { declareDiscoveryExtension } = await load("@x402/extensions/bazaar");
const { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } = await load("@solana-program/token");
const { address } = await load("@solana/kit");

const payTo = args["pay-to"];
const variant = args.variant;

// -- the route configuration of each variant (what docs/sellers.md quotes) ---------------------

// The seller's USDC token account: the associated token account of payTo and the USDC mint.
const [usdcTokenAccount] = await findAssociatedTokenPda({
  owner: address(payTo),
  mint: address(USDC_MINT),
  tokenProgram: TOKEN_PROGRAM_ADDRESS,
});

// A fresh memo per challenge: `<prefix>-<nonce>.<tag>`, the tag an HMAC of the nonce under a
// key only this seller holds, so that the seller recognises its own memo when the buyer pays
// (the middleware builds the requirements again for the paid request, and a payment matches
// only requirements with its memo) without storing any.
const memoKey = randomBytes(32);
const tagOf = (nonce) => createHmac("sha256", memoKey).update(nonce).digest("base64url").slice(0, 22);
const issueMemo = () => {
  const nonce = randomBytes(12).toString("base64url");
  return `${args.memo}-${nonce}.${tagOf(nonce)}`;
};
const issuedHere = (memo) => {
  const parts = /-([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22})$/.exec(memo);
  return parts !== null && timingSafeEqual(Buffer.from(parts[2]), Buffer.from(tagOf(parts[1])));
};
// The memo of the payment a request carries, when this seller issued it.
const paidMemo = (paymentHeader) => {
  try {
    const memo = decodePaymentSignatureHeader(paymentHeader).accepted?.extra?.memo;
    return typeof memo === "string" && issuedHere(memo) ? memo : undefined;
  } catch {
    return undefined;
  }
};
// One memo per request, remembered so that the body built by the unpaidResponseBody hook
// carries the memo of the same challenge (the price function and the hook get the same
// context object).
const memoOf = new WeakMap();
const freshMemo = (context) => {
  if (!memoOf.has(context)) {
    memoOf.set(context, (context.paymentHeader && paidMemo(context.paymentHeader)) || issueMemo());
  }
  return memoOf.get(context);
};

const fixedMemo = ["memo-fixed", "populated"].includes(variant);
const perChallengeMemo = ["memo-fresh", "bound"].includes(variant);
const withBody = ["body-only", "populated", "bound"].includes(variant);
const extra = {
  ...(fixedMemo && { memo: args.memo }),
  ...(withBody && { usdc_token_account: usdcTokenAccount }),
};

const accepts = {
  scheme: "exact",
  network: SOLANA_MAINNET,
  payTo,
  // "$0.01" is USDC on Solana; a dynamic price can carry extra fields of its own challenge.
  price: perChallengeMemo
    ? (context) => ({ amount: "10000", asset: USDC_MINT, extra: { memo: freshMemo(context) } })
    : "$0.01",
  ...(Object.keys(extra).length > 0 && { extra }),
};

// The v1-style body the grading rule reads: accepts[0] with the same payTo, amount, memo and
// the called URL as resource.
const unpaidResponseBody = (context) => ({
  contentType: "application/json",
  body: {
    x402Version: 1,
    error: "Payment required",
    accepts: [
      {
        scheme: "exact",
        network: SOLANA_MAINNET,
        amount: "10000",
        maxAmountRequired: "10000",
        resource: context.adapter.getUrl(),
        description: "Weather report",
        mimeType: "application/json",
        payTo,
        asset: USDC_MINT,
        maxTimeoutSeconds: 300,
        extra: { ...extra, ...(perChallengeMemo && { memo: freshMemo(context) }) },
      },
    ],
  },
});

const routes = {
  "GET /weather": {
    accepts,
    description: "Weather report",
    mimeType: "application/json",
    ...(variant === "bazaar" && {
      extensions: declareDiscoveryExtension({
        output: { example: { weather: "sunny", temperature: 70 } },
      }),
    }),
    ...(withBody && { unpaidResponseBody }),
  },
};

// -- the server ------------------------------------------------------------------------------

const facilitator = new HTTPFacilitatorClient({ url: args.facilitator.replace(/\/$/, "") });
const weather = { report: { weather: "sunny", temperature: 70 } };
let listen;
if (args.framework === "express") {
  const { default: express } = await load("express");
  const { paymentMiddleware, x402ResourceServer } = await load("@x402/express");
  const server = new x402ResourceServer(facilitator).register(SOLANA_MAINNET, new ExactSvmScheme());
  const app = express();
  app.use(paymentMiddleware(routes, server));
  app.get("/weather", (req, res) => res.json(weather));
  listen = () =>
    new Promise((resolve) => {
      const http = app.listen(Number(args.port), "127.0.0.1", () => resolve(http.address().port));
    });
} else {
  const { Hono } = await load("hono");
  const { serve } = await load("@hono/node-server");
  const { paymentMiddleware, x402ResourceServer } = await load("@x402/hono");
  const server = new x402ResourceServer(facilitator).register(SOLANA_MAINNET, new ExactSvmScheme());
  const app = new Hono();
  app.use(paymentMiddleware(routes, server));
  app.get("/weather", (c) => c.json(weather));
  listen = () =>
    new Promise((resolve) => {
      serve({ fetch: app.fetch, port: Number(args.port), hostname: "127.0.0.1" }, (info) =>
        resolve(info.port),
      );
    });
}

const port = await listen();
process.stdout.write(`ready ${port}\n`);
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
setTimeout(() => process.exit(0), maxSeconds * 1000).unref();
