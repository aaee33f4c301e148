#!/usr/bin/env node
// Runs the x402 discovery and conformance tools a stranger's agent or an indexer would run
// against a running `payability serve` (loopback only) and prints every finding as one JSON
// line, then `N passed, M failed`. Exit 1 when an error-level finding failed (with --strict, a
// warn-level one too), 2 on a usage or setup error. See README.md beside this file.
//
//   node tests/e2e/discovery/run.mjs --base http://127.0.0.1:PORT [--target-url URL]
//        [--modules DIR] [--x402conf-venv DIR] [--strict] [--skip-precheck] [--out FILE]
//
// The tools (pinned in package.json / package-lock.json and README.md):
//   - @agentcash/discovery (npm): its CLI `discover <base> --json` and `check <url> --json`, and
//     the x402scan validator it exports, validatePaymentRequiredDetailed, on every 402 (v2
//     PAYMENT-REQUIRED header and v1 body);
//   - x402-conformance (PyPI, CLI `x402conf`): `x402conf resource --fail-on-error` on the GET
//     routes, and its P1-P7 rules (x402conf.harness.check_402, through x402conf_grade.py) on
//     the answers the CLI cannot fetch (POST, the /precheck refusal) and on each v1 body alone;
//   - @x402/extensions (npm, the official bazaar extension): what a facilitator does before
//     cataloging a resource (validateDiscoveryExtensionSpec, validateDiscoveryExtension,
//     extractDiscoveryInfo for v2, extractDiscoveryInfoV1 for the v1 body).
// Checks marked tool "harness" are this script's own: the documents issue 10 asks for that no
// tool above reads (/.well-known/x402 in x402scan's shape, /llms.txt), and that each 402's
// bazaar description names the method the request used.

import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "..", "..", "..");
const TOOL_TIMEOUT_MS = 90_000;
const FETCH_TIMEOUT_MS = 20_000;

function usage(message) {
  if (message) process.stderr.write(`run.mjs: ${message}\n`);
  process.stderr.write(
    "usage: node run.mjs --base http://127.0.0.1:PORT [--target-url URL] [--modules DIR] " +
      "[--x402conf-venv DIR] [--strict] [--skip-precheck] [--out FILE]\n",
  );
  process.exit(2);
}

function parseArgs(argv) {
  const opts = {
    base: process.env.PAYABILITY_DISCOVERY_BASE,
    targetUrl: "https://seller.example/api",
    modules:
      process.env.PAYABILITY_TEST_DISCOVERY_MODULES ??
      path.join(REPO, "target", "test-deps", "discovery", "node_modules"),
    x402confVenv:
      process.env.PAYABILITY_TEST_X402CONF_VENV ??
      path.join(REPO, "target", "test-deps", "x402-conformance-venv"),
    strict: false,
    skipPrecheck: false,
    out: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--base") opts.base = value();
    else if (a === "--target-url") opts.targetUrl = value();
    else if (a === "--modules") opts.modules = path.resolve(value());
    else if (a === "--x402conf-venv") opts.x402confVenv = path.resolve(value());
    else if (a === "--strict") opts.strict = true;
    else if (a === "--skip-precheck") opts.skipPrecheck = true;
    else if (a === "--out") opts.out = value();
    else if (a === "-h" || a === "--help") usage();
    else usage(`unknown argument ${a}`);
  }
  if (!opts.base) usage("--base is required");
  let base;
  try {
    base = new URL(opts.base);
  } catch {
    usage(`--base is not a URL: ${opts.base}`);
  }
  // Loopback only: this harness never sends traffic anywhere else.
  if (!["127.0.0.1", "localhost", "[::1]"].includes(base.hostname)) {
    usage(`--base must be a loopback URL (127.0.0.1, localhost or [::1]), not ${base.hostname}`);
  }
  opts.base = base.toString().replace(/\/$/, "");
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
const lines = [];
const counts = { passed: 0, failed: 0, warnings: 0, notes: 0 };

function emit(obj) {
  const text = JSON.stringify(obj);
  lines.push(text);
  process.stdout.write(text + "\n");
}

// One graded result. severity: error | warn | info (x402conf says "warning"; kept as it says).
function result({ tool, step, target, leg, id, severity, pass, message, detail }) {
  const sev = severity === "warning" ? "warn" : severity;
  emit({
    tool,
    step,
    target,
    ...(leg ? { leg } : {}),
    id,
    severity: severity ?? "error",
    pass: Boolean(pass),
    ...(message ? { message } : {}),
    ...(detail !== undefined ? { detail } : {}),
  });
  if (pass) counts.passed++;
  else if (sev === "error" || (opts.strict && sev === "warn")) counts.failed++;
  else if (sev === "warn") counts.warnings++;
  else counts.notes++;
}

function observe(obj) {
  emit({ observation: true, ...obj });
}

// ---------------------------------------------------------------- setup
if (!existsSync(path.join(opts.modules, "@agentcash", "discovery", "package.json"))) {
  usage(`no @agentcash/discovery under ${opts.modules} (npm ci the lock in ${HERE}, see README.md)`);
}
const X402CONF = path.join(opts.x402confVenv, "bin", "x402conf");
const X402CONF_PYTHON = path.join(opts.x402confVenv, "bin", "python");
if (!existsSync(X402CONF)) {
  usage(`no x402conf at ${X402CONF} (pip install -r ${path.join(HERE, "requirements.txt")}, see README.md)`);
}
const requireFromModules = createRequire(path.join(opts.modules, "__run_mjs__.cjs"));
const version = (name) => JSON.parse(readFileSync(path.join(opts.modules, name, "package.json"), "utf8")).version;
const agentcash = requireFromModules("@agentcash/discovery");
const bazaar = requireFromModules("@x402/extensions/bazaar");
const AGENTCASH = `@agentcash/discovery@${version("@agentcash/discovery")}`;
const EXTENSIONS = `@x402/extensions@${version("@x402/extensions")}`;
const DISCOVERY_BIN = path.join(opts.modules, "@agentcash", "discovery", "bin", "discovery.js");

function run(cmd, args, { input } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), TOOL_TIMEOUT_MS);
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", (err) => {
      clearTimeout(timer);
      resolve({ code: -1, stdout, stderr: stderr + String(err) });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: signal ? -1 : code, signal, stdout, stderr });
    });
    child.stdin.end(input ?? "");
  });
}

const x402confVersion = (await run(X402CONF, ["--version"])).stdout.trim().replace(/^x402conf /, "");
const X402CONF_TOOL = `x402-conformance@${x402confVersion}`;
observe({ kind: "tools", agentcash: AGENTCASH, extensions: EXTENSIONS, x402conf: X402CONF_TOOL, base: opts.base });

// Calls fn with console.warn captured: the bazaar library logs its refusals there, and ajv logs
// "unknown format ... ignored" for every `format` keyword (it validates no formats: strict false).
function quiet(fn) {
  const said = [];
  const warn = console.warn;
  console.warn = (...a) => said.push(a.join(" "));
  try {
    return [fn(), said];
  } catch (e) {
    return [null, [...said, String(e)]];
  } finally {
    console.warn = warn;
  }
}

// ---------------------------------------------------------------- HTTP (loopback only)
async function http(method, url, { json, rawBody } = {}) {
  const init = { method, headers: { accept: "application/json" }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) };
  if (json !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(json);
  } else if (rawBody !== undefined) {
    init.body = rawBody;
  }
  try {
    const r = await fetch(url, init);
    const body = Buffer.from(await r.arrayBuffer());
    return { status: r.status, headers: Object.fromEntries(r.headers.entries()), body };
  } catch (err) {
    return { status: 0, headers: {}, body: Buffer.alloc(0), error: String(err) };
  }
}

function decodeHeader(value) {
  try {
    const parsed = JSON.parse(Buffer.from(value.trim(), "base64").toString("utf8"));
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

function jsonBody(buf) {
  try {
    return JSON.parse(buf.toString("utf8"));
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------- 1. @agentcash/discovery CLI
async function agentcashCli(step, args, target) {
  const r = await run(process.execPath, [DISCOVERY_BIN, ...args, "--json"]);
  let doc = null;
  try {
    doc = JSON.parse(r.stdout);
  } catch {
    // handled below
  }
  if (!doc) {
    result({
      tool: AGENTCASH, step, target, id: "TOOL_RAN", severity: "error", pass: false,
      message: `discovery ${args.join(" ")} printed no JSON (exit ${r.code})`,
      detail: { stdout: r.stdout.slice(0, 2000), stderr: r.stderr.slice(0, 2000) },
    });
    return null;
  }
  const warnings = Array.isArray(doc.warnings) ? doc.warnings : [];
  for (const w of warnings) {
    result({
      tool: AGENTCASH, step, target, id: w.code, severity: w.severity, pass: false,
      message: w.message, detail: { ...(w.path ? { path: w.path } : {}), ...(w.hint ? { hint: w.hint } : {}) },
    });
  }
  const errors = warnings.filter((w) => w.severity === "error").length;
  if (errors === 0) {
    result({ tool: AGENTCASH, step, target, id: "NO_ERROR_WARNINGS", severity: "error", pass: true,
      message: `${warnings.length} warning(s), none at error level` });
  }
  return { doc, exit: r.code };
}

{
  const d = await agentcashCli("discover", ["discover", opts.base], opts.base);
  if (d) {
    observe({
      kind: "discover", tool: AGENTCASH, ok: d.doc.ok, selectedStage: d.doc.selectedStage,
      specUrl: d.doc.meta?.specUrl ?? null,
      resources: (d.doc.resources ?? []).map((r) => ({ method: r.method, path: r.path, authHint: r.authHint ?? null,
        priceHint: r.priceHint ?? null, protocols: r.protocols ?? [] })),
    });
    result({
      tool: AGENTCASH, step: "discover", target: opts.base, id: "OPENAPI_SELECTED", severity: "error",
      pass: d.doc.ok === true && d.doc.selectedStage === "openapi",
      message: "discover finds an OpenAPI document with routes (ok: true, selectedStage: openapi)",
    });
  }
}
for (const route of ["/check", "/memo"]) {
  const target = `${opts.base}${route}`;
  const c = await agentcashCli(`check ${route}`, ["check", target], target);
  if (!c) continue;
  observe({
    kind: "check", tool: AGENTCASH, target, found: c.doc.found, exit: c.exit,
    advisories: (c.doc.advisories ?? []).map((a) => ({
      method: a.method, source: a.source, authMode: a.authMode ?? null, estimatedPrice: a.estimatedPrice ?? null,
      protocols: a.protocols ?? [], inputSchema: a.inputSchema !== undefined, outputSchema: a.outputSchema !== undefined,
      paymentRequiredBody: a.paymentRequiredBody !== undefined,
    })),
  });
  result({
    tool: AGENTCASH, step: `check ${route}`, target, id: "FOUND", severity: "error", pass: c.doc.found === true,
    message: "check finds the route (found: true; exit 1 and L3_NOT_FOUND otherwise)",
  });
  const methods = new Set((c.doc.advisories ?? []).map((a) => a.method));
  for (const m of ["GET", "POST"]) {
    result({
      tool: AGENTCASH, step: `check ${route}`, target, id: `ADVISORY_${m}`, severity: "error", pass: methods.has(m),
      message: `check lists ${m} ${route} (listed: ${[...methods].join(", ") || "none"})`,
    });
  }
}

// ---------------------------------------------------------------- 2. the 402 answers
const T = opts.targetUrl;
const q = `?url=${encodeURIComponent(T)}`;
const cases = [
  { label: "GET /check", method: "GET", path: "/check" },
  { label: "GET /memo", method: "GET", path: "/memo" },
  { label: "GET /check?url=", method: "GET", path: `/check${q}` },
  { label: "GET /memo?url=", method: "GET", path: `/memo${q}` },
  { label: "POST /check {url}", method: "POST", path: "/check", json: { url: T } },
  { label: "POST /memo {url}", method: "POST", path: "/memo", json: { url: T } },
  { label: "POST /check (no body)", method: "POST", path: "/check" },
  { label: "POST /memo (no body)", method: "POST", path: "/memo" },
];
for (const c of cases) c.answer = await http(c.method, `${opts.base}${c.path}`, { json: c.json });
if (!opts.skipPrecheck) {
  // The first pre-check is free (200); the next ones within 5,000 ms are refused with the op's 402.
  const first = await http("POST", `${opts.base}/precheck`, { json: { url: T, op: "check" } });
  observe({ kind: "precheck-first", status: first.status });
  for (const op of ["check", "memo"]) {
    const c = { label: `POST /precheck {op:${op}} (spaced out)`, method: "POST", path: "/precheck", json: { url: T, op } };
    c.answer = await http(c.method, `${opts.base}${c.path}`, { json: c.json });
    cases.push(c);
  }
}
for (const c of cases) {
  observe({ kind: "answer", case: c.label, status: c.answer.status,
    paymentRequiredHeader: Boolean(c.answer.headers["payment-required"]), error: c.answer.error ?? undefined });
}

// ---------------------------------------------------------------- 3. x402-conformance
{
  const getTargets = cases.filter((c) => c.method === "GET").map((c) => `${opts.base}${c.path}`);
  const r = await run(X402CONF, ["resource", "--fail-on-error", ...getTargets]);
  let doc = null;
  try {
    doc = JSON.parse(r.stdout);
  } catch {
    // handled below
  }
  if (!doc) {
    result({ tool: X402CONF_TOOL, step: "x402conf resource", target: getTargets.join(" "), id: "TOOL_RAN",
      severity: "error", pass: false, message: `x402conf resource printed no JSON (exit ${r.code})`,
      detail: { stderr: r.stderr.slice(0, 2000) } });
  } else {
    for (const run1 of doc.results ?? []) {
      for (const ch of run1.checks ?? []) {
        result({ tool: X402CONF_TOOL, step: "x402conf resource --fail-on-error", target: `GET ${run1.target}`,
          leg: "as served (v2 header when present)", id: ch.check.split(" ")[0], severity: ch.severity, pass: ch.pass,
          message: ch.check, detail: ch.detail });
      }
    }
    observe({ kind: "x402conf-exit", exit: r.code, meaning: r.code === 1 ? "an error-severity check failed" : "none failed" });
  }
}
{
  // The same rules on what the CLI cannot fetch (POST, the pre-check refusal) and on each v1 body
  // alone (the answer without its PAYMENT-REQUIRED header, which the CLI would otherwise grade).
  const inputs = [];
  for (const c of cases) {
    const { status, headers, body } = c.answer;
    const b64 = body.toString("base64");
    if (c.method !== "GET") inputs.push({ label: `${c.label}|as served (v2 header when present)`, status, headers, body_b64: b64 });
    const noHeader = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== "payment-required"));
    inputs.push({ label: `${c.label}|v1 body`, status, headers: noHeader, body_b64: b64 });
  }
  const r = await run(X402CONF_PYTHON, [path.join(HERE, "x402conf_grade.py")], {
    input: inputs.map((i) => JSON.stringify(i)).join("\n") + "\n",
  });
  const graded = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  if (graded.length !== inputs.length) {
    result({ tool: X402CONF_TOOL, step: "x402conf.harness.check_402", target: "all answers", id: "TOOL_RAN",
      severity: "error", pass: false, message: `graded ${graded.length} of ${inputs.length} answers (exit ${r.code})`,
      detail: { stderr: r.stderr.slice(0, 2000) } });
  }
  for (const g of graded) {
    const [label, leg] = g.label.split("|");
    for (const ch of g.checks) {
      result({ tool: X402CONF_TOOL, step: "x402conf.harness.check_402", target: label, leg,
        id: ch.check.split(" ")[0], severity: ch.severity, pass: ch.pass, message: ch.check, detail: ch.detail });
    }
  }
}

// ---------------------------------------------------------------- 4. x402scan's validator and the bazaar extension
const VALIDATOR = `${AGENTCASH} validatePaymentRequiredDetailed`;
function sameRoute(resourceUrl, c) {
  try {
    return new URL(resourceUrl).pathname === new URL(`${opts.base}${c.path}`).pathname;
  } catch {
    return false;
  }
}

for (const c of cases) {
  if (c.answer.status !== 402) continue; // x402conf P1 already says so
  const header = c.answer.headers["payment-required"];
  const legs = [];
  if (header) legs.push({ leg: "v2 header", payload: decodeHeader(header) });
  const body = jsonBody(c.answer.body);
  legs.push({ leg: "v1 body", payload: body && body.x402Version === 1 ? body : null });
  for (const { leg, payload } of legs) {
    if (!payload) continue; // x402conf P2 already says so
    const v = agentcash.validatePaymentRequiredDetailed(payload);
    for (const issue of v.issues) {
      if (leg === "v1 body" && header && issue.code === "X402_VERSION_V1_NOT_SUPPORTED") {
        // The v1 body is graded on its own here; the same answer also carries the v2 header.
        observe({ kind: "expected", case: c.label, leg, id: issue.code, note: "v1 body served beside a v2 PAYMENT-REQUIRED header" });
        continue;
      }
      result({ tool: VALIDATOR, step: "validatePaymentRequiredDetailed", target: c.label, leg, id: issue.code,
        severity: issue.severity, pass: false, message: issue.message, detail: issue.path ? { path: issue.path } : undefined });
    }
    if (v.valid) {
      result({ tool: VALIDATOR, step: "validatePaymentRequiredDetailed", target: c.label, leg, id: "VALID",
        severity: "error", pass: true, message: `valid (${v.issues.length} non-error issue(s))` });
    }
  }

  // v2: what a facilitator validates and extracts before cataloging (bazaar.md "Facilitator Behavior").
  const v2 = header ? decodeHeader(header) : null;
  if (v2) {
    const ext = v2.extensions?.bazaar;
    const tool = `${EXTENSIONS} bazaar`;
    const base = { tool, step: "bazaar (v2 extensions.bazaar)", target: c.label, leg: "v2 header" };
    result({ ...base, id: "BAZAAR_PRESENT", severity: "error", pass: ext && typeof ext === "object",
      message: "the PAYMENT-REQUIRED object carries extensions.bazaar {info, schema}" });
    if (ext && typeof ext === "object") {
      const [spec] = quiet(() => bazaar.validateDiscoveryExtensionSpec(ext));
      result({ ...base, id: "validateDiscoveryExtensionSpec", severity: "error", pass: spec?.valid === true,
        message: "info.input.type/method/bodyType are the spec's values", detail: spec?.errors });
      const [schema, logged] = quiet(() => bazaar.validateDiscoveryExtension(ext));
      result({ ...base, id: "validateDiscoveryExtension", severity: "error", pass: schema?.valid === true,
        message: "info validates against schema (JSON Schema 2020-12, no external $ref)",
        detail: schema?.valid ? undefined : { errors: schema?.errors, logged } });
      const method = ext.info?.input?.method;
      if (sameRoute(v2.resource?.url, c)) {
        result({ ...base, id: "BAZAAR_METHOD_MATCHES", severity: "error", pass: method === c.method,
          message: `info.input.method is the method this request used (${c.method}); got ${JSON.stringify(method)}` });
      } else {
        observe({ kind: "bazaar-method", case: c.label, resource: v2.resource?.url ?? null, method: method ?? null,
          note: "the offer is for another route; method not compared" });
      }
      result({ ...base, id: "BAZAAR_OUTPUT_EXAMPLE", severity: "error",
        pass: ext.info?.output && typeof ext.info.output.type === "string" && ext.info.output.example !== undefined,
        message: "info.output has a type and an example (the example report)" });
      // What the facilitator catalogs when a client echoes the 402's resource and extensions.
      const payload = { x402Version: 2, resource: v2.resource, accepted: v2.accepts?.[0], payload: {}, extensions: v2.extensions };
      const [discovered, said] = quiet(() => bazaar.extractDiscoveryInfo(payload, v2.accepts?.[0] ?? {}, true));
      result({ ...base, id: "extractDiscoveryInfo", severity: "error", pass: Boolean(discovered),
        message: "a facilitator would catalog it (extractDiscoveryInfo, validate=true)",
        detail: discovered ? { resourceUrl: discovered.resourceUrl, method: discovered.method ?? null }
          : { logged: said.filter((l) => !l.startsWith("unknown format")) } });
    }
  }
  // v1: accepts[0].outputSchema, bazaar.md "Backwards Compatibility".
  if (body && body.x402Version === 1) {
    const tool = `${EXTENSIONS} bazaar`;
    const base = { tool, step: "bazaar (v1 accepts[0].outputSchema)", target: c.label, leg: "v1 body" };
    const req = Array.isArray(body.accepts) ? body.accepts[0] : undefined;
    const [info] = req ? quiet(() => bazaar.extractDiscoveryInfoV1(req)) : [null];
    result({ ...base, id: "extractDiscoveryInfoV1", severity: "error", pass: info !== null,
      message: "accepts[0].outputSchema.input is {type: \"http\", method, ...} (extractDiscoveryInfoV1 is not null)" });
    if (info && sameRoute(req.resource, c)) {
      result({ ...base, id: "BAZAAR_METHOD_MATCHES", severity: "error", pass: info.input.method === c.method,
        message: `outputSchema.input.method is ${c.method}; got ${JSON.stringify(info.input.method)}` });
    }
    if (info) {
      result({ ...base, id: "V1_OUTPUT_EXAMPLE", severity: "error", pass: info.output !== undefined,
        message: "accepts[0].outputSchema.output is present (the example report)" });
    }
  }
}

// ---------------------------------------------------------------- 5. documents no tool above reads
{
  const tool = "harness";
  const wk = await http("GET", `${opts.base}/.well-known/x402`);
  const doc = wk.status === 200 ? jsonBody(wk.body) : null;
  const resources = Array.isArray(doc?.resources) ? doc.resources : [];
  result({ tool, step: "GET /.well-known/x402", target: `${opts.base}/.well-known/x402`, id: "WELL_KNOWN_X402",
    severity: "error",
    pass: doc !== null && doc.version === 1 && resources.length > 0 && resources.every((r) => typeof r === "string"),
    message: "200 with JSON {\"version\": 1, \"resources\": [absolute URLs, ...]} (x402scan DISCOVERY.md, section B)",
    detail: { status: wk.status, contentType: wk.headers["content-type"] ?? null } });
  for (const url of resources) {
    let ok = false;
    let same = false;
    try {
      const u = new URL(url);
      same = u.origin === new URL(opts.base).origin;
    } catch {
      // not a URL
    }
    if (same) {
      // Unpaid, no body: what an indexer sends. A listed resource answers 402 to GET or POST.
      const g = await http("GET", url);
      const p = g.status === 402 ? g : await http("POST", url);
      ok = p.status === 402;
    }
    result({ tool, step: "GET /.well-known/x402", target: url, id: "WELL_KNOWN_RESOURCE_402", severity: "error",
      pass: ok, message: "each listed resource is on this origin and answers an unpaid GET or POST with 402" });
  }
  const llms = await http("GET", `${opts.base}/llms.txt`);
  const ctype = llms.headers["content-type"] ?? "";
  result({ tool, step: "GET /llms.txt", target: `${opts.base}/llms.txt`, id: "LLMS_TXT", severity: "error",
    pass: llms.status === 200 && /^text\/(plain|markdown)/.test(ctype) && llms.body.length > 0,
    message: "200, text/plain or text/markdown, not empty",
    detail: { status: llms.status, contentType: ctype || null, bytes: llms.body.length } });
}

// ---------------------------------------------------------------- summary
process.stdout.write(`warnings: ${counts.warnings} warn-level, ${counts.notes} info-level (not counted below${opts.strict ? "" : "; --strict counts warn-level as failed"})\n`);
const summary = `${counts.passed} passed, ${counts.failed} failed`;
process.stdout.write(summary + "\n");
if (opts.out) writeFileSync(opts.out, lines.join("\n") + "\n" + summary + "\n");
process.exit(counts.failed > 0 ? 1 : 0);
