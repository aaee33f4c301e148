// recipe.mjs: an x402 route that grades POPULATED and BOUND, for @x402/express and
// @x402/hono 2.27.0 (docs/sellers.md): GET /weather, USDC on Solana mainnet, $0.01.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { address } from "@solana/kit";

export const SOLANA = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

// Fresh memos, `<prefix>-<nonce>.<tag>`: the tag is an HMAC of the nonce under a key only this
// server holds, so a memo coming back in a payment is recognised without storing any. The
// middleware builds the requirements again for the paid request and a payment matches only
// requirements with its memo: the paid request must get the memo it paid, not a new one.
export function freshMemos(prefix) {
  const key = randomBytes(32); // one per process, or a secret your instances share
  const tagOf = (nonce) => createHmac("sha256", key).update(nonce).digest("base64url").slice(0, 22);
  const issuedHere = (memo) => {
    const parts = /-([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22})$/.exec(memo);
    return parts !== null && timingSafeEqual(Buffer.from(parts[2]), Buffer.from(tagOf(parts[1])));
  };
  const paidMemo = (paymentHeader) => {
    try {
      const memo = decodePaymentSignatureHeader(paymentHeader).accepted?.extra?.memo;
      return typeof memo === "string" && issuedHere(memo) ? memo : undefined;
    } catch {
      return undefined;
    }
  };
  // One memo per request: the price function and the body hook get the same context.
  const memoOf = new WeakMap();
  return (context) => {
    if (!memoOf.has(context)) {
      const nonce = randomBytes(12).toString("base64url");
      const paid = context.paymentHeader && paidMemo(context.paymentHeader);
      memoOf.set(context, paid || `${prefix}-${nonce}.${tagOf(nonce)}`);
    }
    return memoOf.get(context);
  };
}

// The routes, paid to `payTo`. `memo`: a fixed string (POPULATED, MEMO-REUSED) or
// freshMemos(prefix) (POPULATED, BOUND); without one the route grades UNCONFIGURED.
export async function weatherRoutes(payTo, memo) {
  const [usdcTokenAccount] = await findAssociatedTokenPda({
    owner: address(payTo),
    mint: address(USDC),
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const memoFor = typeof memo === "function" ? memo : () => memo;
  const extraFor = (context) => ({
    usdc_token_account: usdcTokenAccount,
    ...(memo !== undefined && { memo: memoFor(context) }),
  });
  return {
    "GET /weather": {
      accepts: {
        scheme: "exact",
        network: SOLANA,
        payTo,
        // A dynamic price gives each challenge its own extra fields (merged into extra).
        price: (context) => ({ amount: "10000", asset: USDC, extra: extraFor(context) }),
      },
      description: "Weather report",
      mimeType: "application/json",
      // The v1-style body the grading rule reads: the same payTo, amount and memo, and the
      // URL of this request (the header's resource.url) as resource.
      unpaidResponseBody: (context) => ({
        contentType: "application/json",
        body: {
          x402Version: 1,
          error: "Payment required",
          accepts: [
            {
              scheme: "exact",
              network: SOLANA,
              amount: "10000",
              maxAmountRequired: "10000",
              resource: context.adapter.getUrl(),
              description: "Weather report",
              mimeType: "application/json",
              payTo,
              asset: USDC,
              maxTimeoutSeconds: 300,
              extra: extraFor(context),
            },
          ],
        },
      }),
    },
  };
}
