"""Shared test code for the x402 end-to-end fixtures: Solana constants, the associated token
account derivation, a builder for x402 `exact` SVM payment transactions (the same
instructions the official clients build) and a decoder that classifies a payment
transaction's instructions.

Test code only. Used by solana_rpc_stub.py, facilitator_fixture.py, buyer.py and
selftest.py; needs `solders` (installed with `x402[svm]`).
"""

from __future__ import annotations

import base64
import json
import os
import sys
import threading
from dataclasses import dataclass, field

from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.message import MessageV0, to_bytes_versioned
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
USDC_DECIMALS = 6
# The real mainnet USDC mint and freeze authorities, for a faithful Mint account.
USDC_MINT_AUTHORITY = "BJE5MMbqXjVwjAF7oxwPYXnTXDyspzZyt4vwenNw5ruG"
USDC_FREEZE_AUTHORITY = "7dGbd2QZcCKcTndnHcTL8q7SMVXAkp688NTQYwrRCrar"
NETWORK_V1 = "solana"
NETWORK_V2 = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
NETWORK_V2_DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"
PRICE_UNITS = 10000

TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"
ASSOCIATED_TOKEN_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL"
COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111"
MEMO_PROGRAM = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"
LIGHTHOUSE_PROGRAM = "L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95"

# The Python SDK's defaults (x402/mechanisms/svm/constants.py).
SDK_COMPUTE_UNIT_LIMIT = 20000
SDK_COMPUTE_UNIT_PRICE_MICROLAMPORTS = 1
MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS = 5_000_000
MAX_MEMO_BYTES = 256

TRANSFER_CHECKED = 12


def derive_ata(owner: str, mint: str = USDC_MINT, token_program: str = TOKEN_PROGRAM) -> str:
    """The associated token account of (owner, mint) under token_program."""
    seeds = [
        bytes(Pubkey.from_string(owner)),
        bytes(Pubkey.from_string(token_program)),
        bytes(Pubkey.from_string(mint)),
    ]
    ata, _bump = Pubkey.find_program_address(seeds, Pubkey.from_string(ASSOCIATED_TOKEN_PROGRAM))
    return str(ata)


def keypair_from_seed_hex(seed_hex: str | None) -> Keypair:
    """A keypair from a 32-byte hex seed, or a fresh random one."""
    if not seed_hex:
        return Keypair()
    seed = bytes.fromhex(seed_hex)
    if len(seed) != 32:
        raise ValueError("seed must be 32 bytes of hex")
    return Keypair.from_seed(seed)


def compute_limit_ix(units: int) -> Instruction:
    """ComputeBudget SetComputeUnitLimit: [2, u32 LE]."""
    return Instruction(
        program_id=Pubkey.from_string(COMPUTE_BUDGET_PROGRAM),
        data=bytes([2]) + units.to_bytes(4, "little"),
        accounts=[],
    )


def compute_price_ix(micro_lamports: int) -> Instruction:
    """ComputeBudget SetComputeUnitPrice: [3, u64 LE]."""
    return Instruction(
        program_id=Pubkey.from_string(COMPUTE_BUDGET_PROGRAM),
        data=bytes([3]) + micro_lamports.to_bytes(8, "little"),
        accounts=[],
    )


def transfer_checked_ix(
    source: str, mint: str, destination: str, authority: str, amount: int, decimals: int,
    token_program: str = TOKEN_PROGRAM,
) -> Instruction:
    """SPL Token TransferChecked: data [12, u64 amount LE, u8 decimals]; accounts
    [source (w), mint, destination (w), authority (signer)]."""
    return Instruction(
        program_id=Pubkey.from_string(token_program),
        data=bytes([TRANSFER_CHECKED]) + amount.to_bytes(8, "little") + bytes([decimals]),
        accounts=[
            AccountMeta(Pubkey.from_string(source), is_signer=False, is_writable=True),
            AccountMeta(Pubkey.from_string(mint), is_signer=False, is_writable=False),
            AccountMeta(Pubkey.from_string(destination), is_signer=False, is_writable=True),
            AccountMeta(Pubkey.from_string(authority), is_signer=True, is_writable=False),
        ],
    )


def memo_ix(data: bytes) -> Instruction:
    """SPL Memo (v2 program id, the one the x402 SDK and facilitators use)."""
    return Instruction(program_id=Pubkey.from_string(MEMO_PROGRAM), data=data, accounts=[])


@dataclass
class TransferSpec:
    """What goes into a payment transaction; every field can be tampered with by tests."""

    buyer: Keypair
    fee_payer: str
    destination: str
    blockhash: str
    amount: int = PRICE_UNITS
    decimals: int = USDC_DECIMALS
    mint: str = USDC_MINT
    memo: bytes | None = None
    compute_unit_limit: int = SDK_COMPUTE_UNIT_LIMIT
    compute_unit_price: int = SDK_COMPUTE_UNIT_PRICE_MICROLAMPORTS
    source: str | None = None
    token_program: str = TOKEN_PROGRAM
    extra_instructions: list[Instruction] = field(default_factory=list)
    # Extra keypairs that also sign (e.g. the fee payer, to build a self-paying abuse case).
    co_signers: list[Keypair] = field(default_factory=list)


def build_message(spec: TransferSpec) -> MessageV0:
    """The v0 message: compute limit, compute price, TransferChecked, [memo], [extras]."""
    buyer = str(spec.buyer.pubkey())
    source = spec.source or derive_ata(buyer, spec.mint, spec.token_program)
    ixs = [
        compute_limit_ix(spec.compute_unit_limit),
        compute_price_ix(spec.compute_unit_price),
        transfer_checked_ix(
            source, spec.mint, spec.destination, buyer, spec.amount, spec.decimals,
            spec.token_program,
        ),
    ]
    if spec.memo is not None:
        ixs.append(memo_ix(spec.memo))
    ixs.extend(spec.extra_instructions)
    return MessageV0.try_compile(
        payer=Pubkey.from_string(spec.fee_payer),
        instructions=ixs,
        address_lookup_table_accounts=[],
        recent_blockhash=Hash.from_string(spec.blockhash),
    )


def sign_partially(message: MessageV0, signers: list[Keypair]) -> VersionedTransaction:
    """A transaction with the given signers' signatures and default (zero) signatures in
    every other required slot, as x402 clients send it (the fee payer's slot 0 empty)."""
    signed_bytes = to_bytes_versioned(message)
    by_key = {str(kp.pubkey()): kp for kp in signers}
    n = message.header.num_required_signatures
    sigs = []
    for key in list(message.account_keys)[:n]:
        kp = by_key.get(str(key))
        sigs.append(kp.sign_message(signed_bytes) if kp else Signature.default())
    return VersionedTransaction.populate(message, sigs)


def build_payment_tx(spec: TransferSpec) -> VersionedTransaction:
    """A partially signed payment transaction for spec."""
    return sign_partially(build_message(spec), [spec.buyer, *spec.co_signers])


def tx_to_b64(tx: VersionedTransaction) -> str:
    return base64.b64encode(bytes(tx)).decode("ascii")


def tx_from_b64(data: str) -> VersionedTransaction:
    """Strict standard base64 of a serialised VersionedTransaction; raises ValueError."""
    if not isinstance(data, str) or not data:
        raise ValueError("transaction is not a non-empty string")
    try:
        raw = base64.b64decode(data, validate=True)
        return VersionedTransaction.from_bytes(raw)
    except Exception as exc:  # noqa: BLE001 - any decode failure is one answer
        raise ValueError("transaction could not be decoded") from exc


def signature_results(tx: VersionedTransaction) -> list[bool]:
    """For each signature slot: is it a valid ed25519 signature by that account over the
    message bytes."""
    msg_bytes = to_bytes_versioned(tx.message)
    keys = list(tx.message.account_keys)
    out = []
    for i, sig in enumerate(tx.signatures):
        out.append(i < len(keys) and sig.verify(keys[i], msg_bytes))
    return out


@dataclass
class DecodedIx:
    """One compiled instruction, resolved against the static account keys."""

    program: str
    accounts: list[str]
    data: bytes


def decode_instructions(tx: VersionedTransaction) -> list[DecodedIx]:
    """Instructions with their program and accounts resolved; raises ValueError on an index
    outside the static keys (address lookup tables are not supported)."""
    msg = tx.message
    keys = [str(k) for k in msg.account_keys]
    out = []
    for ix in msg.instructions:
        idxs = [ix.program_id_index, *list(ix.accounts)]
        if any(i >= len(keys) for i in idxs):
            raise ValueError("instruction account index outside the static keys")
        out.append(DecodedIx(keys[ix.program_id_index], [keys[i] for i in ix.accounts], bytes(ix.data)))
    return out


def describe_tx(tx: VersionedTransaction) -> dict:
    """A JSON-able summary of a payment transaction (for logs and assertions)."""
    ixs = decode_instructions(tx)
    summary: dict = {
        "fee_payer": str(tx.message.account_keys[0]),
        "signatures": [str(s) for s in tx.signatures],
        "signature_valid": signature_results(tx),
        "blockhash": str(tx.message.recent_blockhash),
        "instructions": [],
        "memos": [],
        "transfers": [],
    }
    for ix in ixs:
        entry = {"program": ix.program, "data_len": len(ix.data)}
        if ix.program == COMPUTE_BUDGET_PROGRAM and ix.data[:1] == bytes([2]) and len(ix.data) == 5:
            summary["compute_unit_limit"] = int.from_bytes(ix.data[1:5], "little")
        if ix.program == COMPUTE_BUDGET_PROGRAM and ix.data[:1] == bytes([3]) and len(ix.data) == 9:
            summary["compute_unit_price"] = int.from_bytes(ix.data[1:9], "little")
        if ix.program == MEMO_PROGRAM:
            try:
                summary["memos"].append(ix.data.decode("utf-8"))
            except UnicodeDecodeError:
                summary["memos"].append(None)
        if ix.program in (TOKEN_PROGRAM, TOKEN_2022_PROGRAM) and ix.data[:1] == bytes([TRANSFER_CHECKED]) \
                and len(ix.data) == 10 and len(ix.accounts) >= 4:
            summary["transfers"].append({
                "source": ix.accounts[0], "mint": ix.accounts[1], "destination": ix.accounts[2],
                "authority": ix.accounts[3], "amount": int.from_bytes(ix.data[1:9], "little"),
                "decimals": ix.data[9], "program": ix.program,
            })
        summary["instructions"].append(entry)
    return summary


class Lifetime:
    """Bounds a fixture process: exits after max_seconds, and (optionally) as soon as stdin
    reaches end-of-file, so a fixture whose parent test died does not linger."""

    def __init__(self, max_seconds: float, watch_stdin: bool):
        timer = threading.Timer(max_seconds, self._exit, args=("lifetime reached",))
        timer.daemon = True
        timer.start()
        if watch_stdin:
            threading.Thread(target=self._watch_stdin, daemon=True).start()

    @staticmethod
    def _exit(why: str) -> None:
        print(f"exiting: {why}", file=sys.stderr, flush=True)
        os._exit(0)

    def _watch_stdin(self) -> None:
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except (OSError, ValueError):
            pass
        self._exit("stdin closed")


def json_bytes(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode("utf-8")
