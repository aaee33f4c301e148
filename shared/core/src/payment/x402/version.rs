//! The two x402 versions we take payments in, and what each one names differently: the
//! request and response headers (and the network: [`super::network::Network::name`]).

/// The v1 request header carrying a payment.
pub const V1_PAYMENT_HEADER: &str = "x-payment";
/// The v2 request header carrying a payment.
pub const V2_PAYMENT_HEADER: &str = "payment-signature";
/// The v1 response header carrying the settlement.
pub const V1_RESPONSE_HEADER: &str = "x-payment-response";
/// The v2 response header carrying the settlement.
pub const V2_RESPONSE_HEADER: &str = "payment-response";

/// An x402 protocol version this service speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum X402Version {
    /// `X-PAYMENT`, networks by their v1 names (`solana`).
    V1,
    /// `PAYMENT-SIGNATURE`, networks by their CAIP-2 identifiers.
    V2,
}

impl X402Version {
    /// Both versions, the one a request is read in first (v2) first.
    pub const ALL: [Self; 2] = [Self::V2, Self::V1];

    /// The `x402Version` number.
    pub fn number(self) -> u8 {
        match self {
            Self::V1 => 1,
            Self::V2 => 2,
        }
    }

    /// The request header a payment of this version arrives in (lowercase).
    pub fn payment_header(self) -> &'static str {
        match self {
            Self::V1 => V1_PAYMENT_HEADER,
            Self::V2 => V2_PAYMENT_HEADER,
        }
    }

    /// The response header the settlement answer goes back in (lowercase).
    pub fn response_header(self) -> &'static str {
        match self {
            Self::V1 => V1_RESPONSE_HEADER,
            Self::V2 => V2_RESPONSE_HEADER,
        }
    }
}

impl serde::Serialize for X402Version {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(self.number())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payment::x402::network::Network;

    #[test]
    fn versions_name_their_headers_and_networks() {
        let table = [
            (X402Version::V1, 1, "x-payment", "x-payment-response", "solana"),
            (
                X402Version::V2,
                2,
                "payment-signature",
                "payment-response",
                "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
            ),
        ];
        for (version, number, request, response, network) in table {
            assert_eq!(version.number(), number);
            assert_eq!(version.payment_header(), request);
            assert_eq!(version.response_header(), response);
            assert_eq!(Network::SolanaMainnet.name(version), network);
            assert_eq!(serde_json::to_string(&version).unwrap(), number.to_string());
        }
    }
}
