// Verifies a settlement answer's signed receipt (x402's offer-receipt extension, JWS) with none
// of our code: the `kid` resolved in the DID document the service published, the JWS checked
// by `jose` (an independent JWS library) and by @x402/extensions' own
// verifyReceiptSignatureJWS, given the key the DID document names (the did:web resolver of
// @x402/extensions fetches over https, which a loopback test cannot serve).
//
//   node verify_receipt.mjs --modules DIR SETTLEMENT.json DID_DOCUMENT.json
//
// Prints one JSON line {"kid", "payload" (as jose verified it), "same" (both libraries
// returned the same payload)} and exits 0; exits 1 with {"error"} when anything fails.

import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const at = args.indexOf("--modules");
if (at < 0 || args.length !== 4) {
  console.error("usage: node verify_receipt.mjs --modules DIR SETTLEMENT.json DID_DOCUMENT.json");
  process.exit(2);
}
const modules = path.resolve(args[at + 1]);
const [settlementFile, didFile] = args.filter((_, i) => i !== at && i !== at + 1);
const requireFromModules = createRequire(path.join(modules, "__verify_receipt__.cjs"));
const load = (name) => import(pathToFileURL(requireFromModules.resolve(name)).href);

function fail(error) {
  console.log(JSON.stringify({ error: String(error) }));
  process.exit(1);
}

try {
  const jose = await load("jose");
  const { verifyReceiptSignatureJWS } = await load("@x402/extensions/offer-receipt");
  const settlement = JSON.parse(readFileSync(settlementFile, "utf8"));
  const did = JSON.parse(readFileSync(didFile, "utf8"));
  const receipt = settlement?.extensions?.["offer-receipt"]?.info?.receipt;
  if (!receipt || receipt.format !== "jws") fail("no JWS receipt in the settlement answer");
  const header = jose.decodeProtectedHeader(receipt.signature);
  if (header.alg !== "EdDSA") fail(`alg ${header.alg}`);
  const [kidDid] = String(header.kid).split("#");
  if (kidDid !== did.id) fail(`the kid ${header.kid} is not under the document's DID ${did.id}`);
  const method = (did.verificationMethod || []).find((m) => m.id === header.kid);
  if (!method) fail(`the DID document has no verification method ${header.kid}`);
  if (!(did.assertionMethod || []).includes(header.kid)) fail("the key is not an assertion method");
  const key = await jose.importJWK(method.publicKeyJwk, "EdDSA");
  const { payload } = await jose.compactVerify(receipt.signature, key);
  const verified = JSON.parse(new TextDecoder().decode(payload));
  const official = await verifyReceiptSignatureJWS(receipt, method.publicKeyJwk);
  const same = JSON.stringify(official) === JSON.stringify(verified);
  console.log(JSON.stringify({ kid: header.kid, payload: verified, same }));
} catch (error) {
  fail(error);
}
