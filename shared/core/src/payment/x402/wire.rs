//! The x402 objects this service writes and the one it reads back, typed per version: payment
//! requirements, the 402's `PaymentRequired`, the settlement response. Field names are the
//! specification's (coinbase/x402 `specs/x402-specification-v1.md` and `-v2.md`, sections 5
//! and 6; `specs/schemes/exact/scheme_exact_svm.md` for `extra`).
//!
//! Other sellers' challenges are graded from untyped JSON (`crate::grade`): there tolerance is
//! the point. Here the objects are ours, so they are structs, their network a
//! [`Network`] written by the name of their version.

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::network::Network;
use super::version::X402Version;
use crate::payment::solana::Base58Id;

/// An amount of USDC base units, written as x402 writes amounts: a decimal string without
/// sign, leading zeros or spaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UsdcUnits(pub u64);

impl Serialize for UsdcUnits {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

/// The `extra` of our Solana `exact` requirements.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SvmExtra {
    /// The facilitator's fee payer.
    #[serde(rename = "feePayer")]
    pub fee_payer: String,
    /// The associated token account of (payTo, USDC mint).
    pub usdc_token_account: String,
    /// The challenge memo the transaction must carry (in the offers of both versions; absent
    /// in what v1 payments are verified and settled against).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memo: Option<String>,
}

/// v2 `PaymentRequirements`: an entry of `accepts`, and the `accepted` a payment echoes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequirementsV2 {
    /// The payment scheme (`exact`).
    pub scheme: String,
    /// The network, written by its CAIP-2 identifier.
    #[serde(serialize_with = "caip2")]
    pub network: Network,
    /// The price.
    pub amount: UsdcUnits,
    /// The token mint.
    pub asset: String,
    /// The wallet that is paid.
    pub pay_to: String,
    /// How long the payer has to complete the payment.
    pub max_timeout_seconds: u64,
    /// Scheme-specific terms.
    pub extra: SvmExtra,
}

/// v1 `PaymentRequirements`: `accepts[0]` of the challenge body, and what a v1 payment is
/// verified and settled against.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequirementsV1 {
    /// The payment scheme (`exact`).
    pub scheme: String,
    /// The network, written by its v1 name.
    #[serde(serialize_with = "v1_name")]
    pub network: Network,
    /// The price, as v1 names it.
    pub max_amount_required: UsdcUnits,
    /// The price again, as v2-aware v1 clients read it.
    pub amount: UsdcUnits,
    /// The URL the payment buys.
    pub resource: String,
    /// What the payment buys, in one sentence.
    pub description: String,
    /// The media type of the paid answer.
    pub mime_type: String,
    /// The wallet that is paid.
    pub pay_to: String,
    /// How long the payer has to complete the payment.
    pub max_timeout_seconds: u64,
    /// The token mint.
    pub asset: String,
    /// Scheme-specific terms.
    pub extra: SvmExtra,
    /// How to call the route and what it answers (discovery), when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
}

/// Writes a network by its CAIP-2 identifier (v2).
fn caip2<S: Serializer>(network: &Network, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(network.caip2())
}

/// Writes a network by its v1 name.
fn v1_name<S: Serializer>(network: &Network, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(network.v1_name())
}

/// The requirements a payment is verified and settled against, in its version's form.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Requirements {
    /// A v1 payment's: ours, without a memo.
    V1(RequirementsV1),
    /// A v2 payment's: the `accepted` it echoed, matched to ours.
    V2(RequirementsV2),
}

/// The v1 402 body.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequiredV1 {
    /// Always [`X402Version::V1`].
    pub x402_version: X402Version,
    /// Why the 402 is served.
    pub error: String,
    /// The offers.
    pub accepts: Vec<RequirementsV1>,
}

/// The v2 `resource` object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceInfo {
    /// The URL the payment buys.
    pub url: String,
    /// What the payment buys, in one sentence.
    pub description: String,
    /// The media type of the paid answer.
    pub mime_type: String,
}

/// The v2 `PAYMENT-REQUIRED` object.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequiredV2 {
    /// Always [`X402Version::V2`].
    pub x402_version: X402Version,
    /// Why the 402 is served.
    pub error: String,
    /// What the payment buys.
    pub resource: ResourceInfo,
    /// The offers.
    pub accepts: Vec<RequirementsV2>,
    /// Protocol extensions (`bazaar`, `payment-identifier`), when any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Value>,
}

/// The settlement response echoed in `PAYMENT-RESPONSE` / `X-PAYMENT-RESPONSE`: built from
/// checked fields only, never from a facilitator's bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SettlementResponse {
    /// The version of the payment it answers (it names the header and the network).
    #[serde(skip)]
    version: X402Version,
    /// Whether this payment settled.
    success: bool,
    /// The rule id of a failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    error_reason: Option<&'static str>,
    /// The settlement transaction; empty when none is known.
    transaction: String,
    /// The network, as the payment's version names it.
    network: &'static str,
    /// The payer, when the facilitator named one.
    #[serde(skip_serializing_if = "Option::is_none")]
    payer: Option<Base58Id>,
    /// `{"offer-receipt": {"info": {"receipt"}}}` on a delivered verdict's answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    extensions: Option<Box<Value>>,
}

impl SettlementResponse {
    /// A settlement of `transaction` on Solana mainnet, named as the version names it.
    pub fn settled(version: X402Version, transaction: &Base58Id, payer: Option<Base58Id>) -> Self {
        Self {
            version,
            success: true,
            error_reason: None,
            transaction: transaction.as_str().to_owned(),
            network: Network::SolanaMainnet.name(version),
            payer,
            extensions: None,
        }
    }

    /// A payment that did not (or not knowingly) settle, with the rule id why (the network:
    /// Solana mainnet, named as the version names it).
    pub fn failed(version: X402Version, reason: &'static str) -> Self {
        Self {
            version,
            success: false,
            error_reason: Some(reason),
            transaction: String::new(),
            network: Network::SolanaMainnet.name(version),
            payer: None,
            extensions: None,
        }
    }

    /// This answer carrying a signed receipt (`extensions["offer-receipt"].info.receipt`).
    pub fn with_receipt(self, receipt: Value) -> Self {
        let extensions = serde_json::json!({"offer-receipt": {"info": {"receipt": receipt}}});
        Self { extensions: Some(Box::new(extensions)), ..self }
    }

    /// The version of the payment it answers.
    pub fn version(&self) -> X402Version {
        self.version
    }

    /// The header value: standard base64 of the JSON.
    pub fn header_value(&self) -> String {
        use base64::Engine;
        let json = serde_json::to_string(self).expect("a settlement response serializes");
        base64::engine::general_purpose::STANDARD.encode(json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn usdc_units_are_written_as_decimal_strings() {
        assert_eq!(serde_json::to_value(UsdcUnits(10_000)).unwrap(), json!("10000"));
    }

    #[test]
    fn settlement_responses_name_only_checked_fields() {
        let tx = Base58Id::signature(&"1".repeat(64)).unwrap();
        let payer = Base58Id::pubkey(&"1".repeat(32));
        let settled =
            serde_json::to_value(SettlementResponse::settled(X402Version::V2, &tx, payer)).unwrap();
        assert_eq!(
            settled,
            json!({"success": true, "transaction": "1".repeat(64),
                   "network": Network::SolanaMainnet.caip2(), "payer": "1".repeat(32)})
        );
        let failed =
            serde_json::to_value(SettlementResponse::failed(X402Version::V1, "not_settled"))
                .unwrap();
        assert_eq!(
            failed,
            json!({"success": false, "errorReason": "not_settled", "transaction": "",
                   "network": "solana"})
        );
    }
}
