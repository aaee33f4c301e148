// x402 sign-in-with-x for the page: the wallet proves it is the one that paid (a lost verdict
// comes back) or the one whose free allowance a pre-check spends. The proof is the
// `SIGN-IN-WITH-X` header the service reads: base64 JSON of the challenge's `info`, the
// wallet's address and chain, and its Ed25519 signature (base58) over the Sign-In With Solana
// message, line for line as the x402 SDK writes it (shared/core/src/payment/siwx/message.rs).
import { getBase58Decoder } from "@solana/kit";

/** The sign-in declaration of a 402's `PAYMENT-REQUIRED` header, if it carries one. */
export function signInDeclared(answer) {
  const header = answer.status === 402 ? answer.headers.get("PAYMENT-REQUIRED") : null;
  if (!header) return null;
  try {
    const required = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(header), (c) => c.charCodeAt(0))));
    const declared = required.extensions && required.extensions["sign-in-with-x"];
    return declared && declared.info ? declared : null;
  } catch {
    return null;
  }
}

/** The Sign-In With Solana message of a proof. */
export function siwsMessage(proof) {
  const present = (value) => typeof value === "string" && value !== "";
  const lines = [`${proof.domain} wants you to sign in with your Solana account:`, proof.address, ""];
  if (present(proof.statement)) lines.push(proof.statement, "");
  lines.push(`URI: ${proof.uri}`, `Version: ${proof.version}`,
    `Chain ID: ${proof.chainId.split(":")[1] || ""}`, `Nonce: ${proof.nonce}`, `Issued At: ${proof.issuedAt}`);
  for (const [label, key] of [["Expiration Time", "expirationTime"], ["Not Before", "notBefore"], ["Request ID", "requestId"]]) {
    if (present(proof[key])) lines.push(`${label}: ${proof[key]}`);
  }
  if (Array.isArray(proof.resources) && proof.resources.length) {
    lines.push("Resources:", ...proof.resources.map((resource) => `- ${resource}`));
  }
  return lines.join("\n");
}

/**
 * The `SIGN-IN-WITH-X` value answering `declared` (a 402's declaration) signed by `wallet`
 * (the connected wallet: its address, chain and signMessage), or null when the declaration
 * offers no chain the wallet signs on.
 */
export async function signIn(declared, wallet) {
  const chain = (declared.supportedChains || []).find((c) => c.chainId === wallet.network && c.type === "ed25519");
  if (!chain) return null;
  const info = declared.info;
  const proof = {
    domain: info.domain, address: wallet.address, uri: info.uri, version: info.version,
    chainId: chain.chainId, type: chain.type, nonce: info.nonce, issuedAt: info.issuedAt,
  };
  for (const key of ["statement", "expirationTime", "notBefore", "requestId", "resources"]) {
    if (info[key] !== undefined) proof[key] = info[key];
  }
  const signature = await wallet.signMessage(new TextEncoder().encode(siwsMessage(proof)));
  proof.signature = getBase58Decoder().decode(signature);
  return btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(proof))));
}
