#!/usr/bin/env node
// Self-test of run.mjs against reference_server.mjs: the reference passes with `N passed, 0
// failed`, and each deliberately broken variant is caught by the check meant for it. Takes the
// same --modules / --x402conf-venv arguments (or environment) as run.mjs. Prints one line per
// case and `N passed, M failed`; exit 1 when a case fails.

import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const passThrough = process.argv.slice(2);

// variant -> ids that must fail (error level) in run.mjs's output
const CASES = [
  ["", []],
  ["no-bazaar", ["SCHEMA_INPUT_MISSING", "SCHEMA_OUTPUT_MISSING", "BAZAAR_PRESENT"]],
  ["no-openapi", ["OPENAPI_SELECTED"]],
  ["no-v1-output-schema", ["extractDiscoveryInfoV1", "SCHEMA_INPUT_MISSING"]],
  ["post-no-body-400", ["P1"]],
  ["wrong-method", ["BAZAAR_METHOD_MATCHES"]],
  ["no-llms", ["LLMS_TXT"]],
];

function startReference(variant) {
  return new Promise((resolve, reject) => {
    const args = [path.join(HERE, "reference_server.mjs"), "--port", "0", ...(variant ? ["--break", variant] : [])];
    const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    const timer = setTimeout(() => reject(new Error("reference server did not start")), 10_000);
    child.stdout.on("data", (d) => {
      out += d;
      const m = /ready (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]) });
      }
    });
    child.on("error", reject);
  });
}

function runHarness(port) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(HERE, "run.mjs"), "--base", `http://127.0.0.1:${port}`, ...passThrough], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 240_000);
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

let passed = 0;
let failed = 0;
for (const [variant, mustFail] of CASES) {
  const { child, port } = await startReference(variant);
  const r = await runHarness(port);
  child.stdin.end();
  const findings = r.stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
  const failing = new Set(findings.filter((f) => !f.observation && !f.pass && f.severity === "error").map((f) => f.id));
  const summary = r.stdout.split("\n").find((l) => /^\d+ passed, \d+ failed$/.test(l)) ?? "(no summary line)";
  let ok;
  let why;
  if (mustFail.length === 0) {
    ok = r.code === 0 && failing.size === 0 && / 0 failed$/.test(summary);
    why = ok ? summary : `expected 0 failed and exit 0; got exit ${r.code}, ${summary}, failing: ${[...failing].join(", ")}`;
  } else {
    const missing = mustFail.filter((id) => !failing.has(id));
    ok = r.code === 1 && missing.length === 0;
    why = ok ? `caught by ${mustFail.join(", ")} (${summary})` : `exit ${r.code}; not caught by ${missing.join(", ")}`;
  }
  if (!ok && r.stderr) process.stdout.write(r.stderr.slice(0, 4000) + "\n");
  process.stdout.write(`${ok ? "ok  " : "FAIL"} reference${variant ? ` --break ${variant}` : ""}: ${why}\n`);
  ok ? passed++ : failed++;
}
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(failed ? 1 : 0);
