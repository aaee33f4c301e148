// The official x402 facilitator (@x402/core's x402Facilitator + @x402/svm's exact scheme, v2
// and v1) behind the facilitator HTTP API, for the end-to-end tests (test code). Loopback only.
//
//   node server.mjs --port 0 --rpc http://127.0.0.1:N [--fee-payer-seed-hex <64 hex>]
//       [--max-seconds 600] [--modules DIR] [--verbose] [--ignore-stdin]
//
// Prints exactly one stdout line, `ready <port>`, once it listens on 127.0.0.1; everything else
// (the library's own console output included) goes to stderr. Exits when its stdin reaches
// end-of-file (give it a pipe; with stdin at /dev/null it exits at once, unless
// --ignore-stdin) or after --max-seconds. Without --fee-payer-seed-hex the fee payer is fresh
// per start (GET /supported names it).
//
//   GET  /supported  -> facilitator.getSupported()
//   POST /verify     {x402Version, paymentPayload, paymentRequirements} -> facilitator.verify(...)
//   POST /settle     {x402Version, paymentPayload, paymentRequirements} -> facilitator.settle(...)
//
// Each answer is the library's result as JSON, 200. As in the official example facilitator
// (coinbase/x402 examples/typescript/facilitator): 400 {error} without paymentPayload or
// paymentRequirements, 500 {error: message} when the library throws.
//
// Test-only, not part of the facilitator API:
//   GET  /__official/info   {versions, feePayer, rpc, settlementTtlMs, clockOffsetSeconds}
//   POST /__official/clock  {"advance_seconds": s}: moves this process's Date.now() forward,
//                           e.g. past the SettlementCache TTL (SETTLEMENT_TTL_MS, 120 s).
//
// The packages are installed by scripts/test into target/test-deps/official-facilitator
// (pinned in package.json / package-lock.json beside this file); --modules (default: that
// node_modules, or $PAYABILITY_TEST_OFFICIAL_FACILITATOR_MODULES) says where they are.

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

// stdout carries the ready line only.
console.log = console.info = console.debug = console.error;

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MAX_BODY = 1 << 20;
const SOLANA_MAINNET = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";

const { values: args } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    rpc: { type: "string" },
    "fee-payer-seed-hex": { type: "string" },
    "max-seconds": { type: "string", default: "600" },
    modules: { type: "string" },
    verbose: { type: "boolean", default: false },
    "ignore-stdin": { type: "boolean", default: false },
  },
  strict: true,
});

function die(message) {
  process.stderr.write(`official_facilitator: ${message}\n`);
  process.exit(2);
}

if (!args.rpc || !/^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+\/?$/.test(args.rpc)) {
  die("--rpc http://127.0.0.1:PORT is required (loopback only)");
}
const seedHex = args["fee-payer-seed-hex"] ?? randomBytes(32).toString("hex");
if (!/^[0-9a-fA-F]{64}$/.test(seedHex)) die("--fee-payer-seed-hex must be 64 hex digits");
const maxSeconds = Number(args["max-seconds"]);
if (!(maxSeconds > 0)) die("--max-seconds must be positive");

const modulesDir = path.resolve(
  args.modules ??
    process.env.PAYABILITY_TEST_OFFICIAL_FACILITATOR_MODULES ??
    path.join(HERE, "../../../target/test-deps/official-facilitator/node_modules"),
);

// Node's ESM resolution of `pkg/subpath` through package.json "exports" (conditions node,
// import, default, first match in key order), from a node_modules folder that is not above
// this file.
function resolveExport(target) {
  if (typeof target === "string") return target;
  if (target && typeof target === "object") {
    for (const [key, value] of Object.entries(target)) {
      if (key === "node" || key === "import" || key === "default") {
        const found = resolveExport(value);
        if (found) return found;
      }
    }
  }
  return null;
}

function packageJson(name) {
  return JSON.parse(readFileSync(path.join(modulesDir, name, "package.json"), "utf8"));
}

function exportTarget(pkg, subpath) {
  const exp = pkg.exports;
  if (exp === undefined) return subpath === "." ? pkg.module ?? pkg.main : null;
  if (typeof exp === "string") return subpath === "." ? exp : null;
  const keys = Object.keys(exp);
  if (keys.length > 0 && keys.every((k) => k.startsWith("."))) return resolveExport(exp[subpath]);
  return subpath === "." ? resolveExport(exp) : null;
}

async function load(name, subpath = ".") {
  let pkg;
  try {
    pkg = packageJson(name);
  } catch {
    die(`${name} is not installed in ${modulesDir} (scripts/test installs it)`);
  }
  const file = exportTarget(pkg, subpath);
  if (!file) die(`${name} exports no ${subpath} for node/import`);
  return import(pathToFileURL(path.join(modulesDir, name, file)).href);
}

const { createKeyPairSignerFromPrivateKeyBytes } = await load("@solana/kit");
const { x402Facilitator } = await load("@x402/core", "./facilitator");
const { toFacilitatorSvmSigner, SETTLEMENT_TTL_MS } = await load("@x402/svm");
const { registerExactSvmScheme } = await load("@x402/svm", "./exact/facilitator");

const versions = Object.fromEntries(
  ["@x402/core", "@x402/svm", "@solana/kit"].map((n) => [n, packageJson(n).version]),
);

// Test-only clock: Date.now() + offset (the SettlementCache and pending store read Date.now()).
let clockOffsetMs = 0;
const realNow = Date.now;
Date.now = () => realNow() + clockOffsetMs;

const keypair = await createKeyPairSignerFromPrivateKeyBytes(Buffer.from(seedHex, "hex"));
const facilitator = new x402Facilitator();
registerExactSvmScheme(facilitator, {
  signer: toFacilitatorSvmSigner(keypair, { defaultRpcUrl: args.rpc }),
  networks: SOLANA_MAINNET,
});

function toJson(value) {
  return JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
}

function send(res, status, body) {
  const data = Buffer.from(toJson(body));
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": data.length });
  res.end(data);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(Object.assign(new Error("body too large"), { status: 413 }));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

async function handle(req, res) {
  const url = req.url.split("?", 1)[0];
  if (req.method === "GET" && url === "/supported") {
    return send(res, 200, facilitator.getSupported());
  }
  if (req.method === "GET" && url === "/__official/info") {
    return send(res, 200, {
      versions,
      feePayer: keypair.address,
      rpc: args.rpc,
      settlementTtlMs: SETTLEMENT_TTL_MS,
      clockOffsetSeconds: clockOffsetMs / 1000,
    });
  }
  if (req.method !== "POST" || !["/verify", "/settle", "/__official/clock"].includes(url)) {
    return send(res, 404, { error: `no route ${req.method} ${url}` });
  }
  let body;
  try {
    body = JSON.parse((await readBody(req)).toString("utf8") || "null");
  } catch (error) {
    return send(res, error.status ?? 400, { error: error.status ? error.message : "body is not JSON" });
  }
  if (url === "/__official/clock") {
    const s = body?.advance_seconds;
    if (typeof s !== "number" || !(s >= 0)) return send(res, 400, { error: "advance_seconds >= 0" });
    clockOffsetMs += s * 1000;
    return send(res, 200, { clockOffsetSeconds: clockOffsetMs / 1000 });
  }
  const { paymentPayload, paymentRequirements } = body ?? {};
  if (!paymentPayload || !paymentRequirements) {
    return send(res, 400, { error: "Missing paymentPayload or paymentRequirements" });
  }
  try {
    const result =
      url === "/verify"
        ? await facilitator.verify(paymentPayload, paymentRequirements)
        : await facilitator.settle(paymentPayload, paymentRequirements);
    return send(res, 200, result);
  } catch (error) {
    process.stderr.write(`official_facilitator: ${url} threw: ${error?.stack ?? error}\n`);
    return send(res, 500, { error: error instanceof Error ? error.message : "Unknown error" });
  }
}

const server = http.createServer((req, res) => {
  const started = realNow();
  res.on("finish", () => {
    if (args.verbose) {
      process.stderr.write(`official_facilitator: ${req.method} ${req.url} ${res.statusCode} ${realNow() - started}ms\n`);
    }
  });
  handle(req, res).catch((error) => {
    process.stderr.write(`official_facilitator: ${error?.stack ?? error}\n`);
    if (!res.headersSent) send(res, 500, { error: "internal error" });
  });
});

server.listen(Number(args.port), "127.0.0.1", () => {
  process.stdout.write(`ready ${server.address().port}\n`);
});

const stop = () => process.exit(0);
setTimeout(stop, maxSeconds * 1000).unref();
if (!args["ignore-stdin"]) process.stdin.on("end", stop).on("close", stop).on("error", stop).resume();
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
