// The browser tests' wallet (test code), added as an init script before any page script: a
// Wallet Standard wallet, "Test Wallet", that connects one Solana account and signs v0
// transactions with an Ed25519 key (WebCrypto) from a fixed 32-byte seed. The facilitator
// fixture names a transaction's signer as its payer, so this key pays.
(() => {
  if (!window.isSecureContext || !globalThis.crypto?.subtle) return; // e.g. initial about:blank
  const SEED = new Uint8Array(32).map((_, i) => i + 1);           // 0x01..0x20 — TEST ONLY
  const PKCS8_PREFIX = [0x30,0x2e,0x02,0x01,0x00,0x30,0x05,0x06,0x03,0x2b,0x65,0x70,0x04,0x22,0x04,0x20];
  const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  const b58 = (bytes) => {
    let n = 0n; for (const b of bytes) n = n * 256n + BigInt(b);
    let s = ""; while (n > 0n) { s = B58[Number(n % 58n)] + s; n /= 58n; }
    for (const b of bytes) { if (b !== 0) break; s = "1" + s; }
    return s;
  };
  const b64url = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  const readCU16 = (buf, off) => { // Solana compact-u16 (shortvec)
    let v = 0, size = 0;
    for (;;) { const b = buf[off + size]; v |= (b & 0x7f) << (7 * size); size++; if (!(b & 0x80)) break; }
    return [v, size];
  };
  const keyP = (async () => {
    const pkcs8 = new Uint8Array([...PKCS8_PREFIX, ...SEED]);
    const priv = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, true, ["sign"]);
    const pub = b64url((await crypto.subtle.exportKey("jwk", priv)).x);
    return { priv, pub, address: b58(pub) };
  })();
  const CHAINS = ["solana:mainnet", "solana:devnet"];
  const log = (window.__testWalletLog = []);
  let account = null;
  const ICON = "data:image/svg+xml;base64," + btoa('<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><rect width="24" height="24" fill="#6a5acd"/></svg>');

  const wallet = {
    version: "1.0.0",
    name: "Test Wallet",
    icon: ICON,
    chains: CHAINS,
    get accounts() { return account ? [account] : []; },
    features: {
      "standard:connect": {
        version: "1.0.0",
        connect: async () => {
          const k = await keyP;
          account = Object.freeze({ address: k.address, publicKey: k.pub, chains: CHAINS,
            features: ["solana:signTransaction", "solana:signMessage"], label: "test" });
          log.push({ op: "connect", address: k.address });
          return { accounts: [account] };
        },
      },
      "standard:events": { version: "1.0.0", on: () => () => {} },
      "solana:signMessage": {
        version: "1.0.0",
        signMessage: async (...inputs) => {
          const k = await keyP;
          return Promise.all(inputs.map(async ({ account: acc, message }) => {
            if (acc.address !== k.address) throw new Error("unknown account");
            const signature = new Uint8Array(await crypto.subtle.sign("Ed25519", k.priv, message));
            log.push({ op: "signMessage", bytes: message.length });
            return { signedMessage: message, signature };
          }));
        },
      },
      "solana:signTransaction": {
        version: "1.0.0",
        supportedTransactionVersions: ["legacy", 0],
        signTransaction: async (...inputs) => {
          const k = await keyP;
          return Promise.all(inputs.map(async ({ account: acc, transaction, chain }) => {
            if (acc.address !== k.address) throw new Error("unknown account");
            const tx = new Uint8Array(transaction);
            const [nSig, p] = readCU16(tx, 0);
            const msgOff = p + 64 * nSig;
            const msg = tx.subarray(msgOff);
            let o = (msg[0] & 0x80) ? 1 : 0;                 // v0 prefix
            const numRequired = msg[o]; o += 3;              // header
            const [nKeys, q] = readCU16(msg, o); o += q;
            let idx = -1;
            for (let i = 0; i < Math.min(nKeys, numRequired); i++) {
              const key = msg.subarray(o + 32 * i, o + 32 * i + 32);
              if (key.every((b, j) => b === k.pub[j])) { idx = i; break; }
            }
            if (idx < 0) throw new Error("wallet is not a required signer");
            const sig = new Uint8Array(await crypto.subtle.sign("Ed25519", k.priv, msg));
            const out = tx.slice();
            out.set(sig, p + 64 * idx);
            log.push({ op: "signTransaction", chain, signerIndex: idx, bytes: tx.length });
            return { signedTransaction: out };
          }));
        },
      },
    },
  };

  // Wallet Standard registration protocol (same as @wallet-standard/wallet registerWallet)
  const callback = ({ register }) => register(wallet);
  try {
    window.dispatchEvent(new CustomEvent("wallet-standard:register-wallet", { detail: callback }));
  } catch (e) { console.error("register-wallet dispatch failed", e); }
  try {
    window.addEventListener("wallet-standard:app-ready", ({ detail: api }) => callback(api));
  } catch (e) { console.error("app-ready listener failed", e); }
})();
