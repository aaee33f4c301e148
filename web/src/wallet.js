// Solana wallets through the Wallet Standard: the ones that can sign a v0 transaction on the
// chain we are paid on, and one of their accounts as the signer @x402/svm builds the payment
// with (a @solana/kit TransactionModifyingSigner: a wallet may add its own guard instructions
// when it signs, which the x402 facilitator accepts).
import { getWallets } from "@wallet-standard/app";
import { address, getTransactionDecoder, getTransactionEncoder } from "@solana/kit";

/** The x402 network (CAIP-2) our challenge names, and the Wallet Standard's name for it. */
export const NETWORK = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
const CHAIN = "solana:mainnet";

/** Whether a wallet can pay here. */
function usable(wallet) {
  const sign = wallet.features["solana:signTransaction"];
  return wallet.chains.includes(CHAIN) && "standard:connect" in wallet.features && !!sign &&
    Array.isArray(sign.supportedTransactionVersions) && sign.supportedTransactionVersions.includes(0);
}

/** The wallets present now, and `changed` called whenever one comes or goes. */
export function watchWallets(changed) {
  const api = getWallets();
  const current = () => api.get().filter(usable);
  api.on("register", () => changed(current()));
  api.on("unregister", () => changed(current()));
  changed(current());
}

/**
 * Connects to `wallet`; its first account on our chain as the page uses it: its address and
 * network, the signer @x402/svm pays with, and `signMessage` (null when the wallet cannot sign
 * messages: no sign-in then).
 */
export async function connect(wallet) {
  const { accounts } = await wallet.features["standard:connect"].connect();
  const account = accounts.find((a) => a.chains.includes(CHAIN) && a.features.includes("solana:signTransaction"));
  if (!account) throw new Error("the wallet has no Solana mainnet account that signs transactions");
  const messages = account.features.includes("solana:signMessage") ? wallet.features["solana:signMessage"] : null;
  return Object.freeze({
    name: wallet.name,
    address: account.address,
    network: NETWORK,
    transactionSigner: transactionSigner(wallet, account),
    signMessage: messages && (async (message) => (await messages.signMessage({ account, message }))[0].signature),
  });
}

/** The account as a @solana/kit TransactionModifyingSigner. */
function transactionSigner(wallet, account) {
  const feature = wallet.features["solana:signTransaction"];
  const encoder = getTransactionEncoder();
  const decoder = getTransactionDecoder();
  return Object.freeze({
    address: address(account.address),
    async modifyAndSignTransactions(transactions) {
      const inputs = transactions.map((tx) => ({ account, chain: CHAIN, transaction: new Uint8Array(encoder.encode(tx)) }));
      const outputs = await feature.signTransaction(...inputs);
      return outputs.map(({ signedTransaction }, i) => {
        const signed = decoder.decode(signedTransaction);
        if (!signed.signatures[account.address]) throw new Error("the wallet did not sign");
        return Object.freeze({ ...transactions[i], ...signed });
      });
    },
  });
}
