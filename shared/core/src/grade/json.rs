//! Strict JSON and forgiving-base64 decoding, as the criteria's interpretations define them.

use base64::Engine;
use base64::alphabet::STANDARD;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde_json::Value;

/// Parses RFC 8259 JSON from UTF-8 bytes (no BOM, finite numbers, paired surrogates,
/// nesting at most 127 deep: serde_json's own limits, which the criteria publish).
pub(crate) fn parse_json(bytes: &[u8]) -> Option<Value> {
    serde_json::from_slice(bytes).ok()
}

/// Standard alphabet, no padding accepted, leftover bits discarded (WHATWG forgiving-base64
/// after its whitespace and padding steps).
const FORGIVING: GeneralPurpose = GeneralPurpose::new(
    &STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::RequireNone)
        .with_decode_allow_trailing_bits(true),
);

/// WHATWG forgiving-base64 decode: ASCII whitespace ignored, padding optional, standard
/// alphabet only.
pub(crate) fn forgiving_base64_decode(input: &[u8]) -> Option<Vec<u8>> {
    let mut data: Vec<u8> = input
        .iter()
        .copied()
        .filter(|b| !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' '))
        .collect();
    if data.len().is_multiple_of(4) {
        let padding = data.iter().rev().take(2).take_while(|&&b| b == b'=').count();
        data.truncate(data.len() - padding);
    }
    if data.len() % 4 == 1 {
        return None;
    }
    FORGIVING.decode(&data).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forgiving_base64_vectors() {
        let vectors: [(&str, Option<&str>); 14] = [
            ("YWJj", Some("abc")),
            ("YWI=", Some("ab")),
            ("YWI", Some("ab")),
            ("YQ==", Some("a")),
            ("YQ", Some("a")),
            ("YQ=", None),
            (" Y W\nI=\t", Some("ab")),
            ("YR==", Some("a")),
            ("Y", None),
            ("YWJj=", None),
            ("YW=j", None),
            ("YW-j", None),
            ("YW_j", None),
            ("", Some("")),
        ];
        for (input, want) in vectors {
            let got = forgiving_base64_decode(input.as_bytes());
            assert_eq!(got.as_deref(), want.map(str::as_bytes), "{input:?}");
        }
    }

    #[test]
    fn json_strictness_vectors() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let vectors: [(Vec<u8>, bool); 12] = [
            (b"{}".to_vec(), true),
            (b" \"x\" \n".to_vec(), true),
            (b"\xef\xbb\xbf{}".to_vec(), false),
            (b"NaN".to_vec(), false),
            (b"1e400".to_vec(), false),
            (b"1e-400".to_vec(), true),
            (br#""\ud800""#.to_vec(), false),
            (br#""\udc00""#.to_vec(), false),
            (br#""\ud83d\ude00""#.to_vec(), true),
            (nested(127).into_bytes(), true),
            (nested(128).into_bytes(), false),
            (b"{\"a\":\xff}".to_vec(), false),
        ];
        for (input, ok) in vectors {
            assert_eq!(parse_json(&input).is_some(), ok, "{:?}", String::from_utf8_lossy(&input));
        }
    }
}
