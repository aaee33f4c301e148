#!/usr/bin/env node
// A loopback stand-in that serves the discovery documents and 402 answers in the shapes every
// check in run.mjs accepts, so that run.mjs can be self-tested (`node run.mjs --base` against
// it must print `N passed, 0 failed`) and so that the shapes it expects are written down in
// one runnable place. It is test code, not the service: no payment is ever verified here, the
// report example is illustrative, and nothing is generated from the service's types.
//
//   node reference_server.mjs [--port 0] [--break NAME]   # prints `ready <port>` on stdout
//
// --break NAME serves one thing wrong (for the harness's own tests): no-bazaar, no-openapi,
// no-v1-output-schema, post-no-body-400, wrong-method, no-llms.
// It exits when stdin reaches end-of-file or after 600 s.

import { createServer } from "node:http";

const args = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const PORT = Number(arg("--port", "0"));
const BREAK = arg("--break", "");

const NETWORK = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const PAY_TO = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
const FEE_PAYER = "AXmhKMjW8gDUZT1vZ9FPQf6qxrNie4V6VMtUv1mu5MP1";
const EXAMPLE_URL = "https://seller.example/api";

// The request: one field, the URL to check. Same schema for the POST body and the GET query.
const REQUEST_SCHEMA = {
  type: "object",
  properties: { url: { type: "string", format: "uri", description: "the x402 resource to check" } },
  required: ["url"],
  additionalProperties: false,
};
// An illustrative report schema and example (the service publishes its own).
const REPORT_SCHEMA = {
  type: "object",
  properties: {
    op: { type: "string", enum: ["check", "memo"] },
    url: { type: "string" },
    state: { type: "string" },
    signature: {
      type: "object",
      properties: { alg: { const: "Ed25519" }, key_id: { type: "string" }, value: { type: "string" } },
      required: ["alg", "key_id", "value"],
    },
  },
  required: ["op", "url", "state", "signature"],
};
const exampleReport = (op) => ({
  op,
  url: EXAMPLE_URL,
  state: "payable",
  signature: { alg: "Ed25519", key_id: "payability-0000000000000000", value: "AAAA" },
});
const ERROR_SCHEMA = {
  type: "object",
  properties: {
    error: {
      type: "object",
      properties: { rule: { type: "string" }, message: { type: "string" } },
      required: ["rule", "message"],
    },
  },
  required: ["error"],
};

// extensions.bazaar for one route and method (specs/extensions/bazaar.md, "PaymentRequired").
function bazaar(op, method) {
  const output = {
    type: "object",
    properties: { type: { type: "string" }, example: { type: "object", ...REPORT_SCHEMA } },
    required: ["type"],
  };
  const info = { output: { type: "json", example: exampleReport(op) } };
  if (method === "GET") {
    return {
      info: { input: { type: "http", method: "GET", queryParams: { url: EXAMPLE_URL } }, ...info },
      schema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: {
          input: {
            type: "object",
            properties: {
              type: { type: "string", const: "http" },
              method: { type: "string", enum: ["GET"] },
              queryParams: REQUEST_SCHEMA,
            },
            required: ["type", "method"],
            additionalProperties: false,
          },
          output,
        },
        required: ["input"],
      },
    };
  }
  return {
    info: { input: { type: "http", method: "POST", bodyType: "json", body: { url: EXAMPLE_URL } }, ...info },
    schema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        input: {
          type: "object",
          properties: {
            type: { type: "string", const: "http" },
            method: { type: "string", enum: ["POST"] },
            bodyType: { type: "string", enum: ["json"] },
            body: REQUEST_SCHEMA,
          },
          required: ["type", "method", "bodyType", "body"],
          additionalProperties: false,
        },
        output,
      },
      required: ["input"],
    },
  };
}

// v1 accepts[0].outputSchema (bazaar.md "Backwards Compatibility"; read by extractDiscoveryInfoV1
// and by @agentcash/discovery's v1 schema check: both input and output must be objects).
function v1OutputSchema(op, method) {
  const input =
    method === "GET"
      ? { type: "http", method: "GET", discoverable: true, queryParams: { url: { type: "string", required: true, description: "the x402 resource to check" } } }
      : { type: "http", method: "POST", discoverable: true, bodyType: "json", bodyFields: { url: { type: "string", required: true, description: "the x402 resource to check" } } };
  return { input, output: exampleReport(op) };
}

let memoCounter = 0;
function challenge(base, op, method, error) {
  const url = `${base}/${op}`;
  const description = `One signed payability verdict (payability/v1 ${op})`;
  const extra = { feePayer: FEE_PAYER, memo: `pvm_reference_${++memoCounter}` };
  const v2 = {
    x402Version: 2,
    error,
    resource: { url, description, mimeType: "application/json" },
    accepts: [{ scheme: "exact", network: NETWORK, amount: "10000", asset: USDC, payTo: PAY_TO, maxTimeoutSeconds: 60, extra }],
    ...(BREAK === "no-bazaar" ? {} : { extensions: { bazaar: bazaar(op, BREAK === "wrong-method" ? (method === "GET" ? "POST" : "GET") : method) } }),
  };
  const v1 = {
    x402Version: 1,
    error,
    accepts: [
      {
        scheme: "exact", network: "solana", maxAmountRequired: "10000", resource: url, description,
        mimeType: "application/json", payTo: PAY_TO, maxTimeoutSeconds: 60, asset: USDC, extra,
        ...(BREAK === "no-v1-output-schema" ? {} : { outputSchema: v1OutputSchema(op, method) }),
      },
    ],
  };
  return { v2, v1 };
}

function paidOperation(op, method) {
  const operation = {
    operationId: `${op}${method === "GET" ? "Get" : "Post"}`,
    summary: `Paid ($0.01): one signed ${op} report for the URL`,
    security: [],
    "x-payment-info": { price: { mode: "fixed", currency: "USD", amount: "0.01" }, protocols: [{ x402: {} }] },
    responses: {
      200: { description: "the signed report", content: { "application/json": { schema: REPORT_SCHEMA } } },
      400: { description: "refused before any payment", content: { "application/json": { schema: ERROR_SCHEMA } } },
      402: { description: "Payment Required: PAYMENT-REQUIRED header (v2), JSON body (v1)" },
    },
  };
  if (method === "GET") {
    operation.parameters = [{ in: "query", name: "url", required: true, schema: { type: "string", format: "uri" } }];
  } else {
    operation.requestBody = { required: true, content: { "application/json": { schema: REQUEST_SCHEMA } } };
  }
  return operation;
}

function openapi(base) {
  const free = (summary, extra = {}) => ({
    summary,
    security: [],
    responses: { 200: { description: "OK", content: { "application/json": { schema: { type: "object" } } } } },
    ...extra,
  });
  return {
    openapi: "3.1.0",
    info: {
      title: "payability (reference stand-in)",
      version: "1",
      description: "Signed payability verdicts on x402 402 challenges.",
      contact: { url: `${base}/llms.txt` },
      "x-guidance": "POST /check or /memo with {\"url\": ...} (or GET ?url=), pay the 402, get a signed report.",
    },
    servers: [{ url: base }],
    "x-agentcash-guidance": { llmsTxtUrl: `${base}/llms.txt` },
    paths: {
      "/check": { get: paidOperation("check", "GET"), post: paidOperation("check", "POST") },
      "/memo": { get: paidOperation("memo", "GET"), post: paidOperation("memo", "POST") },
      "/precheck": {
        post: free("Free URL-policy answer (spaced out; refused with the op's 402 when exhausted)", {
          requestBody: { required: true, content: { "application/json": { schema: { type: "object" } } } },
        }),
      },
      "/criteria": { get: free("The criteria document") },
      "/metrics": { get: free("Counts per day and the tripwires") },
    },
  };
}

let lastPrecheck = 0;
const server = createServer((req, res) => {
  const base = `http://${req.headers.host}`;
  const path = new URL(req.url, base).pathname;
  const send = (status, headers, body) => {
    const raw = typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
    res.end(req.method === "HEAD" ? undefined : raw);
  };
  const pay = (op, method, error = "payment required") => {
    const { v2, v1 } = challenge(base, op, method, error);
    send(402, { "payment-required": Buffer.from(JSON.stringify(v2)).toString("base64") }, v1);
  };
  let body = "";
  req.on("data", (d) => (body += d));
  req.on("end", () => {
    if (req.method === "GET" && path === "/openapi.json" && BREAK !== "no-openapi") return send(200, {}, openapi(base));
    if (req.method === "GET" && path === "/.well-known/x402") {
      return send(200, {}, { version: 1, resources: [`${base}/check`, `${base}/memo`], instructions: `${base}/llms.txt` });
    }
    if (req.method === "GET" && path === "/llms.txt" && BREAK !== "no-llms") {
      return send(200, { "content-type": "text/plain; charset=utf-8" }, "# payability (reference stand-in)\n\nPOST /check {\"url\"}: pay $0.01, get a signed report.\n");
    }
    if ((req.method === "GET" || req.method === "HEAD") && path === "/favicon.ico") {
      return send(200, { "content-type": "image/x-icon" }, Buffer.alloc(0));
    }
    if (path === "/check" || path === "/memo") {
      const op = path.slice(1);
      if (req.method === "GET" || req.method === "HEAD") return pay(op, "GET");
      if (req.method === "POST") {
        if (body === "" && BREAK === "post-no-body-400") return send(400, {}, { error: { rule: "body_not_json", message: "x" } });
        return pay(op, "POST");
      }
      return send(405, { allow: "GET, HEAD, POST, OPTIONS" }, { error: { rule: "method_not_allowed", message: "x" } });
    }
    if (path === "/precheck" && req.method === "POST") {
      const now = Date.now();
      const spaced = now - lastPrecheck < 5000;
      lastPrecheck = now;
      let op = "check";
      try {
        op = JSON.parse(body).op === "memo" ? "memo" : "check";
      } catch {
        // default op
      }
      if (spaced) return pay(op, "POST", `free pre-checks are 5,000 ms apart: pay POST /${op}`);
      return send(200, {}, { url: EXAMPLE_URL, allowed: true });
    }
    if (req.method === "GET" && (path === "/criteria" || path === "/metrics")) return send(200, {}, {});
    return send(404, {}, { error: { rule: "not_covered", message: "NOT COVERED" } });
  });
});

server.listen(PORT, "127.0.0.1", () => {
  process.stdout.write(`ready ${server.address().port}\n`);
});
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
setTimeout(() => process.exit(0), 600_000).unref();
