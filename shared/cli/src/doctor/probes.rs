//! The doctor's opt-in probes, each one request more (or one per address the challenge names)
//! and named by its flag: the URLs the seller gave are vetted by the target policy before
//! anything is fetched, then asked what the core's checks read ([`ProbeAnswers`]). What they
//! answer stays in memory.

use payability_core::doctor::{
    EvmContract, HttpObservation, ProbeAnswers, abi_string, declared_method, questions, same_url,
};
use payability_core::policy::{AddressRule, TargetUrl, vet_target_url};
use payability_runtime::fetch::Fetcher;
use serde_json::{Value, json};

use crate::local::refusal_problem;
use crate::targets::{self, Problem, Target};

/// The methods `--method` takes: those a paid route may be declared with (x402 Bazaar's),
/// but GET, which the doctor always sends.
pub(crate) const METHODS: [&str; 5] = ["POST", "PUT", "PATCH", "DELETE", "HEAD"];
/// `--method`'s value naming the Bazaar declaration's method.
pub(crate) const DECLARED: &str = "declared";

/// What `--method` asks for.
pub(crate) enum MethodProbe {
    /// The method named.
    Named(&'static str),
    /// The method the challenge's Bazaar declaration names, else POST.
    Declared,
}
/// Pages of the facilitator's discovery listing read, at most, looking for the URL (each of
/// [`PAGE_SIZE`] items).
pub(crate) const LISTING_PAGES: usize = 10;
/// Items asked per page of the facilitator's discovery listing.
pub(crate) const PAGE_SIZE: usize = 100;

/// The probes a run asked for, their URLs vetted.
#[derive(Default)]
pub(crate) struct Probes {
    /// `--method`.
    pub(crate) method: Option<MethodProbe>,
    /// `--facilitator`: its base URL.
    pub(crate) facilitator: Option<String>,
    /// `--solana-rpc`.
    pub(crate) solana_rpc: Option<TargetUrl>,
    /// `--evm-rpc`.
    pub(crate) evm_rpc: Option<TargetUrl>,
    /// `--discovery`.
    pub(crate) discovery: bool,
}

/// The flags as given on the command line.
pub(crate) struct Flags<'a> {
    pub(crate) method: Option<&'a str>,
    pub(crate) facilitator: Option<&'a str>,
    pub(crate) solana_rpc: Option<&'a str>,
    pub(crate) evm_rpc: Option<&'a str>,
    pub(crate) discovery: bool,
}

impl Probes {
    /// Reads the flags: each URL under the target policy, the method one of [`METHODS`];
    /// a refusal before anything is fetched.
    pub(crate) fn read(flags: &Flags<'_>, rule: AddressRule) -> Result<Self, Problem> {
        let vet = |url: Option<&str>| -> Result<Option<TargetUrl>, Problem> {
            url.map(|url| vet_target_url(url, rule).map_err(refusal_problem)).transpose()
        };
        let method = match flags.method {
            None => None,
            Some(DECLARED) => Some(MethodProbe::Declared),
            Some(name) => match METHODS.into_iter().find(|method| *method == name) {
                Some(method) => Some(MethodProbe::Named(method)),
                None => {
                    return Err(Problem::refused(
                        "method_unknown",
                        "--method takes POST, PUT, PATCH, DELETE or HEAD (upper case), or declared (the Bazaar declaration's method)",
                    ));
                }
            },
        };
        let facilitator =
            vet(flags.facilitator)?.map(|url| url.as_str().trim_end_matches('/').to_owned());
        Ok(Self {
            method,
            facilitator,
            solana_rpc: vet(flags.solana_rpc)?,
            evm_rpc: vet(flags.evm_rpc)?,
            discovery: flags.discovery,
        })
    }

    /// Asks every probe given, for the endpoint `target` as `seen`.
    pub(crate) async fn ask(
        &self,
        fetcher: &Fetcher,
        rule: AddressRule,
        target: &TargetUrl,
        seen: &HttpObservation,
    ) -> ProbeAnswers {
        let asked = questions(seen);
        let mut answers = ProbeAnswers::default();
        if let Some(probe) = &self.method {
            let method = match probe {
                MethodProbe::Named(method) => method,
                MethodProbe::Declared => declared_method(seen).unwrap_or("POST"),
            };
            answers.method = Some(fetcher.empty_request(target, method).await);
        }
        if let Some(base) = &self.facilitator {
            answers.supported =
                Some(self.facilitator_json(fetcher, rule, base, "/supported").await);
        }
        if let Some(rpc) = &self.solana_rpc {
            let mut accounts = Vec::new();
            for payout in &asked.svm_accounts {
                let params =
                    json!([payout.account, {"encoding": "jsonParsed", "commitment": "confirmed"}]);
                let value = rpc_result(fetcher, rpc, "getAccountInfo", params).await;
                accounts.push(
                    value.and_then(|result| result.get("value").cloned()).filter(Value::is_object),
                );
            }
            answers.svm_accounts = Some(accounts);
        }
        if let Some(rpc) = &self.evm_rpc {
            let mut contracts = Vec::new();
            for asset in &asked.evm_assets {
                contracts.push(evm_contract(fetcher, rpc, asset).await);
            }
            answers.evm_contracts = Some(contracts);
        }
        if self.discovery {
            answers.origin_lists_url = Some(origin_lists(fetcher, rule, target).await);
            if let Some(base) = &self.facilitator {
                answers.facilitator_listing =
                    Some(self.facilitator_item(fetcher, rule, base, target).await);
            }
        }
        answers
    }

    /// The facilitator's JSON at `path` (under its base URL).
    async fn facilitator_json(
        &self,
        fetcher: &Fetcher,
        rule: AddressRule,
        base: &str,
        path: &str,
    ) -> Option<Value> {
        let url = vet_target_url(&format!("{base}{path}"), rule).ok()?;
        fetcher.json(&url, None).await
    }

    /// The facilitator's discovery item whose `resource` is the URL, read page by page (at
    /// most [`LISTING_PAGES`]).
    async fn facilitator_item(
        &self,
        fetcher: &Fetcher,
        rule: AddressRule,
        base: &str,
        target: &TargetUrl,
    ) -> Option<Value> {
        for page in 0..LISTING_PAGES {
            let path = format!(
                "/discovery/resources?type=http&limit={PAGE_SIZE}&offset={}",
                page * PAGE_SIZE
            );
            let listing = self.facilitator_json(fetcher, rule, base, &path).await?;
            let items = listing.get("items")?.as_array()?;
            let found = items.iter().find(|item| {
                item.get("resource")
                    .and_then(Value::as_str)
                    .is_some_and(|r| same_url(r, target.as_str()))
            });
            if let Some(item) = found {
                return Some(item.clone());
            }
            if items.len() < PAGE_SIZE {
                return None;
            }
        }
        None
    }
}

/// A JSON-RPC call's `result`, when the answer has one.
async fn rpc_result(
    fetcher: &Fetcher,
    rpc: &TargetUrl,
    method: &str,
    params: Value,
) -> Option<Value> {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    fetcher.json(rpc, Some(&request)).await?.get("result").cloned()
}

/// An EVM asset as its chain answers: code, `name()` (0x06fdde03), `version()` (0x54fd4d50).
async fn evm_contract(fetcher: &Fetcher, rpc: &TargetUrl, asset: &str) -> EvmContract {
    let code = rpc_result(fetcher, rpc, "eth_getCode", json!([asset, "latest"])).await;
    let call = |selector: &str| json!([{"to": asset, "data": selector}, "latest"]);
    let text = |result: Option<Value>| result.as_ref().and_then(Value::as_str).and_then(abi_string);
    EvmContract {
        has_code: code.as_ref().and_then(Value::as_str).is_some_and(|c| c.len() > 2),
        name: text(rpc_result(fetcher, rpc, "eth_call", call("0x06fdde03")).await),
        version: text(rpc_result(fetcher, rpc, "eth_call", call("0x54fd4d50")).await),
    }
}

/// Whether the origin's `/.well-known/x402` lists the URL (false when it cannot be read).
async fn origin_lists(fetcher: &Fetcher, rule: AddressRule, target: &TargetUrl) -> bool {
    let origin = target.url().origin().ascii_serialization();
    let Ok(catalogue) = targets::catalogue_url(&origin, rule) else {
        return false;
    };
    let Ok(listed) = targets::listed(fetcher, &catalogue, targets::MAX_URLS).await else {
        return false;
    };
    listed
        .iter()
        .any(|entry| matches!(entry, Target::Url { url, .. } if same_url(url, target.as_str())))
}
