//! Fixed keys, URLs and transactions the targets and the seed writer share.

use std::sync::LazyLock;

use payability_core::capture::{
    BODY_CAP_BYTES, Capture, CapturedBody, CapturedHeader, FetchOutcome, HEADER_CAP_BYTES,
};
use payability_core::payment::memo::MemoKey;
use payability_core::policy::{AddressRule, TargetUrl, vet_target_url};
use payability_core::report::UtcMillis;
use payability_core::signing::ReportSigner;

use crate::frame::{Frame, FrameWriter};

/// The seed of the key every fuzzed report is signed with.
pub const SEED: [u8; 32] = [0x5e; 32];
/// A second trusted key (reports signed by it verify too, under its own id).
pub const OTHER_SEED: [u8; 32] = [0x7a; 32];

/// The report signer of the targets.
pub static SIGNER: LazyLock<ReportSigner> = LazyLock::new(|| ReportSigner::from_seed(&SEED));
/// The second signer.
pub static OTHER_SIGNER: LazyLock<ReportSigner> =
    LazyLock::new(|| ReportSigner::from_seed(&OTHER_SEED));

/// A check end inside the years 0000 to 9999 (the seeds' `checked_at`).
pub const CHECKED_AT: i64 = 1_795_910_400_123;
/// "Now" of the payment checks (memos issued for it are valid for ten minutes).
pub const NOW: UtcMillis = UtcMillis(1_760_000_000_000);

/// The memo key of the payment checks.
pub fn memo_key() -> MemoKey {
    MemoKey::derive(&SEED)
}

/// The called URLs a grading input picks from (the corpus's, then a loopback one).
pub const CALLED_URLS: [&str; 7] = [
    "https://seller.example/api/weather",
    "https://api.example/premium-data",
    "https://xn--caf-dma.example/menu",
    "https://seller.example/caf%C3%A9",
    "http://plain.example/quote",
    "https://seller.example/api/weather?city=paris&units=metric",
    "http://127.0.0.1:8402/check",
];

/// The vetted called URL at `index` (modulo the list).
pub fn called_url(index: u8) -> TargetUrl {
    let url = CALLED_URLS[usize::from(index) % CALLED_URLS.len()];
    vet_target_url(url, AddressRule::AllowPrivate).expect("the fixture URLs are in policy")
}

/// Capture kind bits: outcome in bits 0-1 (1 failed, 2 timed out, else captured); bit 2 the
/// header is present; bit 3 the body is over the cap.
pub const KIND_FAILED: u8 = 1;
/// See [`KIND_FAILED`].
pub const KIND_TIMED_OUT: u8 = 2;
/// See [`KIND_FAILED`].
pub const KIND_HEADER: u8 = 4;
/// See [`KIND_FAILED`].
pub const KIND_OVER_CAP: u8 = 8;

/// Reads one capture's kind, status and header from `frame`; `body` is its body. A body over
/// the cap is over the cap, as the fetcher would have captured it.
pub fn read_capture(
    frame: &mut Frame<'_>,
    body_of: impl FnOnce(&mut Frame<'_>) -> Vec<u8>,
) -> FetchOutcome {
    let kind = frame.u8();
    let status = frame.u16();
    let header = frame.bytes().to_vec();
    let body = body_of(frame);
    match kind & 3 {
        KIND_FAILED => FetchOutcome::Failed,
        KIND_TIMED_OUT => FetchOutcome::TimedOut,
        _ => FetchOutcome::Captured(Capture {
            status,
            payment_required: (kind & KIND_HEADER != 0).then(|| CapturedHeader::of(&header)),
            body: if kind & KIND_OVER_CAP != 0 || body.len() > BODY_CAP_BYTES {
                CapturedBody::OverCap
            } else {
                CapturedBody::Complete(body)
            },
        }),
    }
}

/// Writes one capture's kind, status and header (the inverse of [`read_capture`] up to the
/// body).
pub fn write_capture(writer: FrameWriter, outcome: &FetchOutcome) -> (FrameWriter, Vec<u8>) {
    match outcome {
        FetchOutcome::Failed => (writer.u8(KIND_FAILED).u16(0).bytes(b""), Vec::new()),
        FetchOutcome::TimedOut => (writer.u8(KIND_TIMED_OUT).u16(0).bytes(b""), Vec::new()),
        FetchOutcome::Captured(capture) => {
            let mut kind = 0;
            if capture.payment_required.is_some() {
                kind |= KIND_HEADER;
            }
            // An over-cap header is written as one byte past the cap, which reads back as such.
            let over_cap_header = vec![b'A'; HEADER_CAP_BYTES + 1];
            let body = match &capture.body {
                CapturedBody::Complete(body) => body.clone(),
                CapturedBody::OverCap => {
                    kind |= KIND_OVER_CAP;
                    Vec::new()
                }
            };
            let header = match &capture.payment_required {
                None => &[][..],
                Some(CapturedHeader::Complete(bytes)) => bytes,
                Some(CapturedHeader::OverCap) => &over_cap_header,
            };
            (writer.u8(kind).u16(capture.status).bytes(header), body)
        }
    }
}

/// Compact-u16 (short_vec) encoding of `value`.
pub fn compact(value: u16) -> Vec<u8> {
    let mut value = value;
    let mut out = Vec::new();
    loop {
        let group = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(group);
            return out;
        }
        out.push(group | 0x80);
    }
}

/// The legacy payment message of the core's transaction tests: 2 required signers, keys
/// [fee payer, buyer, source ATA, destination ATA, mint, token program], a blockhash, one
/// `TransferChecked` of 10000 units.
pub fn legacy_message() -> Vec<u8> {
    let keys: [[u8; 32]; 6] =
        [[0xfe; 32], [0xb0; 32], [0x51; 32], [0xd5; 32], [0x3c; 32], [0x70; 32]];
    let mut message = vec![2, 0, 2];
    message.extend(compact(keys.len() as u16));
    keys.iter().for_each(|key| message.extend(key));
    message.extend([0x42; 32]);
    message.extend(compact(1));
    message.push(5);
    message.extend(compact(4));
    message.extend([2, 4, 3, 1]);
    let mut data = vec![12];
    data.extend(10_000u64.to_le_bytes());
    data.push(6);
    message.extend(compact(data.len() as u16));
    message.extend(data);
    message
}

/// The same message as v0, with one address-table lookup.
pub fn v0_message() -> Vec<u8> {
    let mut message = vec![0x80];
    message.extend(legacy_message());
    message.extend(compact(1));
    message.extend([0x7a; 32]);
    message.extend(compact(2));
    message.extend([0, 1]);
    message.extend(compact(1));
    message.extend([2]);
    message
}

/// A wire transaction: the signature count, the signatures, then `message`.
pub fn wire(signatures: &[[u8; 64]], message: &[u8]) -> Vec<u8> {
    let mut bytes = compact(signatures.len() as u16);
    signatures.iter().for_each(|s| bytes.extend(s));
    bytes.extend(message);
    bytes
}

/// The valid legacy payment: an empty fee-payer slot, a buyer signature.
pub fn legacy() -> Vec<u8> {
    wire(&[[0; 64], [0xab; 64]], &legacy_message())
}

/// The payment the Solana RPC target looks for (the runtime tests' `payment_tx`).
pub fn rpc_payment_tx(fee_payer_slot: [u8; 64], amount: u64) -> Vec<u8> {
    let mut bytes = vec![2];
    bytes.extend(fee_payer_slot);
    bytes.extend([0xab; 64]);
    bytes.extend([2, 0, 1, 3]);
    bytes.extend([0xfe; 32]);
    bytes.extend([0xb0; 32]);
    bytes.extend([0x70; 32]);
    bytes.extend([0x42; 32]);
    bytes.extend([1, 2, 2, 1, 0, 9, 3]);
    bytes.extend(amount.to_le_bytes());
    bytes
}

/// A base58 transaction signature.
pub fn signature(n: u8) -> String {
    bs58::encode([n; 64]).into_string()
}

/// The wallet our fixture challenges ask to be paid to.
pub const PAY_TO: &str = "3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG";

/// Our challenge terms with a given memo (as the x402 decoding tests build them).
pub fn terms(memo: &str) -> payability_core::challenge::ChallengeTerms<'_> {
    payability_core::challenge::ChallengeTerms {
        resource_url: "https://api.example/check",
        description: "One signed payability verdict",
        pay_to: PAY_TO,
        fee_payer: "FeePayer111111111111111111111111111111111",
        token_account: "3uetDDizgTtadDHZzyy9BqxrjQcozMEkxzbKhfZF4tG3",
        memo,
    }
}
