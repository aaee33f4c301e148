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
//   memo-fresh  + a fresh extra.memo per challenge (recipe.mjs's freshMemos(--memo)), set by a
//               dynamic price
//   body-only   recipe.mjs's weatherRoutes(payTo): extra.usdc_token_account and the
//               unpaidResponseBody hook answering the challenge as a v1-style body, no memo
//   populated   weatherRoutes(payTo, --memo): the same with a fixed memo
//   bound       weatherRoutes(payTo, freshMemos(--memo)): with a fresh memo per challenge
//
// and the doctor's sellers (shared/cli/tests/doctor_sellers.rs): `doctor-cors` is the
// middleware's example route behind a CORS layer that exposes PAYMENT-REQUIRED and answers
// preflights (no doctor check fails); each other doctor variant is that seller with one
// seeded defect:
//
//   doctor-cors-no-expose      the CORS layer without Access-Control-Expose-Headers
//   doctor-devnet-mint         the price in Solana devnet's USDC mint (on mainnet)
//   doctor-long-description    a description of 501 characters
//   doctor-wrong-token-account extra.usdc_token_account that is not payTo's USDC account
//   doctor-bad-bazaar          a Bazaar declaration whose info.input.queryParams is a string
//   doctor-post-400            POST /weather paid too, behind a body check answering 400 to
//                              an empty body
//   doctor-base                the route on Base (eip155:8453, @x402/evm), USDC by price,
//                              paid to a fixed EVM address; no check fails (its facilitator
//                              must list Base)
//   doctor-base-wrong-domain   the same with extra.name "USDC" (Base Sepolia's EIP-712 name)
//
// The packages are installed by scripts/test into target/test-deps/sellers (pinned in
// package.json / package-lock.json beside this file); --modules (default: that node_modules,
// or $PAYABILITY_TEST_SELLERS_MODULES) says where they are.

import { copyFileSync, rmSync } from "node:fs";
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
  "doctor-cors",
  "doctor-cors-no-expose",
  "doctor-devnet-mint",
  "doctor-long-description",
  "doctor-wrong-token-account",
  "doctor-bad-bazaar",
  "doctor-post-400",
  "doctor-base",
  "doctor-base-wrong-domain",
];
const BASE = "eip155:8453";
const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
// The Base variants' payTo: EIP-55's own example address.
const EVM_PAY_TO = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const SOLANA_DEVNET_USDC = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";
// A Solana address that is not the payTo's USDC account (the fee payer's of the fixture's
// tests): the seeded wrong token account.
const WRONG_TOKEN_ACCOUNT = "Cra8woRQhnHsGAmFWcCN1m7A9J44ykNfGpehi6dMBuKR";

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
const { ExactSvmScheme } = await load("@x402/svm/exact/server");
const { ExactEvmScheme } = await load("@x402/evm/exact/server");
const { declareDiscoveryExtension } = await load("@x402/extensions/bazaar");
// recipe.mjs (the code docs/sellers.md shows) imports its packages by name: it runs from a
// copy beside the node_modules folder.
const recipeCopy = path.join(modulesDir, "..", `recipe-${process.pid}.mjs`);
copyFileSync(path.join(HERE, "recipe.mjs"), recipeCopy);
const { freshMemos, weatherRoutes } = await import(pathToFileURL(recipeCopy).href);
rmSync(recipeCopy);

const payTo = args["pay-to"];
const variant = args.variant;

// -- the route configuration of each variant ---------------------------------------------------

// The middleware's own example route, and what the first variants add to it.
function exampleRoutes() {
  if (variant.startsWith("doctor-base")) return baseRoutes();
  const memoFor = freshMemos(args.memo);
  const accepts = {
    scheme: "exact",
    network: SOLANA_MAINNET,
    payTo,
    price: "$0.01",
    ...(variant === "memo-fixed" && { extra: { memo: args.memo } }),
    ...(variant === "doctor-wrong-token-account" && {
      extra: { usdc_token_account: WRONG_TOKEN_ACCOUNT },
    }),
    ...(variant === "doctor-devnet-mint" && {
      price: { amount: "10000", asset: SOLANA_DEVNET_USDC },
    }),
    ...(variant === "memo-fresh" && {
      price: (context) => ({ amount: "10000", asset: USDC_MINT, extra: { memo: memoFor(context) } }),
    }),
  };
  const bazaar =
    variant === "bazaar" &&
    declareDiscoveryExtension({ output: { example: { weather: "sunny", temperature: 70 } } });
  const badBazaar = variant === "doctor-bad-bazaar" && {
    bazaar: { info: { input: { type: "http", queryParams: "city=Paris" } }, schema: { type: "object" } },
  };
  const description =
    variant === "doctor-long-description" ? "x".repeat(501) : "Weather report";
  const route = { accepts, description, mimeType: "application/json" };
  const extensions = bazaar || badBazaar;
  const paid = { ...route, ...(extensions && { extensions }) };
  return {
    "GET /weather": paid,
    ...(variant === "doctor-post-400" && { "POST /weather": paid }),
  };
}

const recipeMemo = { "body-only": undefined, populated: args.memo, bound: freshMemos(args.memo) };
// The Base variants' route: the example route on Base, priced in dollars (the scheme picks
// Base's USDC and its EIP-712 domain), or with a seeded wrong domain name.
function baseRoutes() {
  const price =
    variant === "doctor-base-wrong-domain"
      ? { amount: "10000", asset: BASE_USDC, extra: { name: "USDC", version: "2" } }
      : "$0.01";
  const accepts = { scheme: "exact", network: BASE, payTo: EVM_PAY_TO, price };
  const route = { accepts, description: "Weather report", mimeType: "application/json" };
  return { "GET /weather": route };
}

// The resource server: Solana's exact scheme, and Base's for the Base variants.
const resourceServer = (ResourceServer) => {
  const server = new ResourceServer(facilitator);
  if (variant.startsWith("doctor-base")) return server.register(BASE, new ExactEvmScheme());
  return server.register(SOLANA_MAINNET, new ExactSvmScheme());
};

const routes =
  variant in recipeMemo ? await weatherRoutes(payTo, recipeMemo[variant]) : exampleRoutes();

// -- the server ------------------------------------------------------------------------------

// The doctor variants' CORS layer, before the payment middleware: every answer allows any
// origin and (but for doctor-cors-no-expose) exposes the x402 headers; a preflight is
// answered 204 allowing the payment header. doctor-post-400's body check answers 400 to a
// POST without a body, as a JSON body validator placed before the payment middleware does.
const doctorVariant = variant.startsWith("doctor-");
const corsHeaders = (method) => ({
  "access-control-allow-origin": "*",
  ...(variant !== "doctor-cors-no-expose" && {
    "access-control-expose-headers": "PAYMENT-REQUIRED, PAYMENT-RESPONSE",
  }),
  ...(method === "OPTIONS" && {
    "access-control-allow-methods": "GET, POST",
    "access-control-allow-headers": "PAYMENT-SIGNATURE, content-type",
  }),
});
const bodyMissing = (method, length) =>
  variant === "doctor-post-400" && method === "POST" && !(Number(length) > 0);

const facilitator = new HTTPFacilitatorClient({ url: args.facilitator.replace(/\/$/, "") });
const weather = { report: { weather: "sunny", temperature: 70 } };
let listen;
if (args.framework === "express") {
  const { default: express } = await load("express");
  const { paymentMiddleware, x402ResourceServer } = await load("@x402/express");
  const server = resourceServer(x402ResourceServer);
  const app = express();
  if (doctorVariant) {
    app.use((req, res, next) => {
      res.set(corsHeaders(req.method));
      if (req.method === "OPTIONS") return res.status(204).end();
      if (bodyMissing(req.method, req.get("content-length"))) {
        return res.status(400).json({ error: "a JSON body is required" });
      }
      next();
    });
  }
  app.use(paymentMiddleware(routes, server));
  app.get("/weather", (req, res) => res.json(weather));
  if (variant === "doctor-post-400") app.post("/weather", (req, res) => res.json(weather));
  listen = () =>
    new Promise((resolve) => {
      const http = app.listen(Number(args.port), "127.0.0.1", () => resolve(http.address().port));
    });
} else {
  const { Hono } = await load("hono");
  const { serve } = await load("@hono/node-server");
  const { paymentMiddleware, x402ResourceServer } = await load("@x402/hono");
  const server = resourceServer(x402ResourceServer);
  const app = new Hono();
  if (doctorVariant) {
    app.use(async (c, next) => {
      const headers = corsHeaders(c.req.method);
      if (c.req.method === "OPTIONS") return c.body(null, 204, headers);
      if (bodyMissing(c.req.method, c.req.header("content-length"))) {
        return c.json({ error: "a JSON body is required" }, 400, headers);
      }
      await next();
      for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
    });
  }
  app.use(paymentMiddleware(routes, server));
  app.get("/weather", (c) => c.json(weather));
  if (variant === "doctor-post-400") app.post("/weather", (c) => c.json(weather));
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
