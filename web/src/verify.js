// A signed report (or pre-check answer) checked in the browser, as docs/verification.md says:
// the key /criteria publishes under the signature's key_id, checked_at inside the key's window,
// then Ed25519 (WebCrypto) over the RFC 8785 bytes of everything but `signature`.

/** RFC 8785 (JCS): keys sorted by UTF-16 code units, ECMAScript number and string forms. */
export function canonicalize(value) {
  if (value === null || typeof value === "boolean") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error("not JCS: a non-finite number");
    return JSON.stringify(value);
  }
  if (typeof value === "string") {
    if (!value.isWellFormed()) throw new Error("not JCS: a lone surrogate");
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return "[" + value.map(canonicalize).join(",") + "]";
  if (typeof value === "object") {
    const keys = Object.keys(value).sort();
    return "{" + keys.map((key) => canonicalize(key) + ":" + canonicalize(value[key])).join(",") + "}";
  }
  throw new Error("not JCS: a " + typeof value);
}

/** The bytes of base64url text. */
export function fromBase64Url(text) {
  const standard = text.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(standard + "=".repeat((4 - (standard.length % 4)) % 4)), (c) => c.charCodeAt(0));
}

/**
 * Whether `signed` verifies against `keys` (/criteria's `signing_keys`): {ok, why, keyId}.
 * `why` says what failed, in words a person reads; never throws.
 */
export async function verifySigned(signed, keys) {
  if (signed === null || typeof signed !== "object" || Array.isArray(signed)) {
    return { ok: false, why: "not a JSON object" };
  }
  const signature = signed.signature;
  if (!signature || typeof signature.value !== "string" || typeof signature.key_id !== "string") {
    return { ok: false, why: "it carries no signature" };
  }
  if (signature.alg !== "Ed25519") return { ok: false, why: "its signature is not Ed25519" };
  const key = keys.find((k) => k.keyId === signature.key_id);
  if (!key) return { ok: false, why: "it is signed by a key /criteria does not publish" };
  const at = Date.parse(signed.checked_at);
  // A bound that is null (not known, or the key is current) does not limit the window.
  const from = key.valid_from == null ? -Infinity : Date.parse(key.valid_from);
  const until = key.valid_until == null ? Infinity : Date.parse(key.valid_until);
  if (!(at >= from && at <= until)) {
    return { ok: false, why: "it was signed outside its key's published window", keyId: key.keyId };
  }
  const { signature: _, ...unsigned } = signed;
  try {
    const raw = fromBase64Url(key.jwk.x);
    const publicKey = await crypto.subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);
    const bytes = new TextEncoder().encode(canonicalize(unsigned));
    const valid = await crypto.subtle.verify({ name: "Ed25519" }, publicKey, fromBase64Url(signature.value), bytes);
    return valid
      ? { ok: true, why: "signed by " + key.keyId, keyId: key.keyId }
      : { ok: false, why: "the signature does not match its content: it was altered", keyId: key.keyId };
  } catch (error) {
    return { ok: false, why: "it cannot be checked (" + error.name + ")", keyId: key.keyId };
  }
}
