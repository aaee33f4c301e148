//! `payability mcp`: an MCP server over stdio (MCP 2026-07-28 `basic/transports/stdio`), the
//! service's four tools answered on this machine, free, with the local key, and the doctor
//! ([`tools`]).
//! Standard input carries one JSON-RPC 2.0 message a line, each read with the service's body
//! cap ([`lines`]); standard output carries one answer a line and nothing else, in the order
//! the requests came; the server ends at the end of standard input. Both eras are spoken, per
//! request, as `POST /mcp` speaks them ([`payability_runtime::mcp`]): the handshake era
//! (`initialize`, `ping`, `tools/list`, `tools/call`) and 2026-07-28 (`server/discover`,
//! `tools/list`, `tools/call`, each request naming its version in `_meta`). Every error is
//! closed form, a code and a static message. Nothing is written to standard error after
//! start-up (the one line saying where a new key was generated), so nothing a target serves
//! reaches it.

mod lines;
mod tools;

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use payability_runtime::api::MAX_REQUEST_BODY_BYTES;
use payability_runtime::jsonrpc::{self, Envelope, Failure, Success, code};
use payability_runtime::mcp::era::{self, DISCOVER, Era};
use payability_runtime::mcp::error::McpError;
use payability_runtime::mcp::results;
use payability_runtime::mcp::tools::{DOCTOR, Offer, read_call};
use serde::Serialize;
use serde_json::{Value, json};

use crate::escape;
use crate::exit::{EXIT_FAILED, current_thread_runtime, print_error};
use lines::{Line, Lines};
use tools::Local;

/// The static message of a line over the cap, answered -32600 and skipped unread.
const LINE_TOO_LONG: &str =
    "a message is one line of at most 262,144 bytes; this line was longer and was skipped unread";

/// The response line carrying `result` for the request `id`.
fn result_line(id: &Value, result: impl Serialize) -> String {
    escape::json_line(&Success::new(id, result))
}

/// The response line carrying the JSON-RPC `error` object for the request `id`.
fn error_line(id: &Value, error: Value) -> String {
    escape::json_line(&Failure::new(id, error))
}

impl Local {
    /// The answer to one line: a response line, or None for a notification.
    async fn answer(&self, line: &[u8]) -> Option<String> {
        let mut call = match jsonrpc::read(line) {
            Ok(Envelope::Call(call)) => call,
            Ok(Envelope::Notification) => return None,
            Err(malformed) => return Some(escape::json_line(&malformed.failure())),
        };
        let id = std::mem::take(&mut call.id);
        let Some(params) = call.object_params() else {
            return Some(error_line(&id, McpError::InvalidParams.object()));
        };
        let era = era::stateless_meta(&call.method, &params).and_then(|m| era::era(m.as_ref()));
        let era = match era {
            Ok(era) => era,
            Err(refusal) => return Some(error_line(&id, refusal.object())),
        };
        let params = Value::Object(params);
        let offer = Offer::Local;
        Some(match (call.method.as_str(), era) {
            ("initialize", Era::Handshake) => result_line(&id, results::initialize(&params, offer)),
            ("ping", Era::Handshake) => result_line(&id, json!({})),
            (DISCOVER, Era::Stateless { .. }) => result_line(&id, results::discover(offer)),
            ("tools/list", era) => result_line(&id, results::tools_list(era, offer)),
            ("tools/call", era) if params.get("name").and_then(Value::as_str) == Some(DOCTOR) => {
                result_line(&id, self.doctor(&params, era).await)
            }
            ("tools/call", era) => match read_call(params) {
                Ok(call) => result_line(&id, self.call(call, era).await),
                Err(refusal) => error_line(&id, refusal.object()),
            },
            _ => error_line(&id, McpError::MethodNotFound.object()),
        })
    }
}

/// `payability mcp`: reads the settings and the key, then answers standard input's lines
/// until it ends.
pub(crate) fn run(allow_private: bool) -> ExitCode {
    let rule = match crate::local::address_rule(allow_private) {
        Ok(rule) => rule,
        Err(code) => return code,
    };
    let (signer, fetcher) = match (crate::local::local_signer(), crate::local::build_fetcher(rule))
    {
        (Ok(signer), Ok(fetcher)) => (signer, fetcher),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let local = Local { signer, fetcher, rule };
    let stdin = io::stdin().lock();
    let mut stdout = BufWriter::new(io::stdout().lock());
    match serve(&local, Lines::new(stdin, MAX_REQUEST_BODY_BYTES), &mut stdout) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => {
            print_error("stdio_failed", "standard input or output failed");
            ExitCode::from(EXIT_FAILED)
        }
    }
}

/// Answers every line of `input` on `output`, one at a time, in order, until the input ends.
fn serve(
    local: &Local,
    mut input: Lines<impl io::BufRead>,
    output: &mut impl Write,
) -> io::Result<()> {
    let runtime = current_thread_runtime();
    while let Some(line) = input.next_line()? {
        let answer = match line {
            Line::TooLong => {
                let failure = Failure::plain(&Value::Null, code::INVALID_REQUEST, LINE_TOO_LONG);
                Some(escape::json_line(&failure))
            }
            Line::Message(bytes) if bytes.trim_ascii().is_empty() => None,
            Line::Message(bytes) => runtime.block_on(local.answer(&bytes)),
        };
        if let Some(answer) = answer {
            output.write_all(answer.as_bytes())?;
            output.write_all(b"\n")?;
            output.flush()?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use payability_core::policy::AddressRule;
    use payability_core::signing::ReportSigner;
    use payability_runtime::fetch::Fetcher;

    use super::*;

    /// A server with a fixed key, the public-address rule, and no target reachable.
    fn local() -> Local {
        let rule = AddressRule::PublicOnly;
        let fetcher = Fetcher::new(rule).expect("a fetcher");
        Local { signer: ReportSigner::from_seed(&[7; 32]), fetcher, rule }
    }

    /// The answer to one line, parsed (null for none).
    fn answered(line: &str) -> Value {
        let answer = current_thread_runtime().block_on(local().answer(line.as_bytes()));
        answer.map_or(Value::Null, |a| serde_json::from_str(&a).expect("an answer is JSON"))
    }

    /// A stateless request's params: `_meta` naming 2026-07-28 and capabilities, and `more`.
    fn stateless(more: Value) -> Value {
        let mut params = json!({"_meta": {
            era::PROTOCOL_VERSION_META: "2026-07-28",
            era::CLIENT_CAPABILITIES_META: {},
        }});
        params.as_object_mut().unwrap().extend(more.as_object().unwrap().clone());
        params
    }

    fn request(method: &str, params: Value) -> String {
        json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": params}).to_string()
    }

    /// (line, the error code answered) for every message that is not served.
    #[test]
    fn what_is_not_one_request_of_ours_is_answered_closed_form() {
        let call = |arguments: Value| {
            request("tools/call", json!({"name": "check", "arguments": arguments}))
        };
        let vectors: [(String, i64); 10] = [
            ("{".into(), -32700),
            ("\u{fffd}\u{0}".into(), -32700),
            ("[]".into(), -32600),
            (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#.into(), -32600),
            (request("resources/list", json!({})), -32601),
            (request("server/discover", json!({})), -32602),
            (request("ping", stateless(json!({}))), -32601),
            (
                request(
                    "server/discover",
                    json!({"_meta": {era::PROTOCOL_VERSION_META: "1999-01-01", era::CLIENT_CAPABILITIES_META: {}}}),
                ),
                -32022,
            ),
            (call(json!("SECRET-ARGUMENT")), -32602),
            (request("tools/call", json!({"name": "SECRET-TOOL"})), -32602),
        ];
        for (line, code) in vectors {
            let answer = answered(&line);
            assert_eq!(answer["error"]["code"], code, "{line}: {answer}");
            assert!(!answer.to_string().contains("SECRET"), "nothing received echoed: {answer}");
        }
    }

    /// (tool, arguments, the rule of the closed-form tool error) for every hostile argument.
    #[test]
    fn hostile_arguments_are_closed_form_tool_errors_that_echo_nothing() {
        let huge = format!("https://example.com/{}SECRET", "a".repeat(5_000));
        let vectors: [(&str, Value, &str); 8] = [
            ("check", json!({"url": 7}), "body_wrong_shape"),
            ("check", json!({"url": "https://example.com/", "SECRET": 1}), "body_wrong_shape"),
            ("memo", json!({}), "body_wrong_shape"),
            ("check", json!({"url": huge}), "url_too_long"),
            ("check", json!({"url": "http://127.0.0.1:9/SECRET"}), "address_not_public"),
            ("precheck", json!({"url": "https://example.com/", "op": "SECRET"}), "op_unknown"),
            (
                "precheck",
                json!({"url": "https://example.com/", "caller": "SECRET-0"}),
                "caller_not_a_wallet",
            ),
            ("precheck", json!({"url": ["SECRET"]}), "body_wrong_shape"),
        ];
        for (tool, arguments, rule) in vectors {
            let answer =
                answered(&request("tools/call", json!({"name": tool, "arguments": arguments})));
            let result = &answer["result"];
            assert_eq!(result["isError"], true, "{tool} {answer}");
            assert_eq!(result["structuredContent"]["error"]["rule"], rule, "{tool} {answer}");
            assert!(!answer.to_string().contains("SECRET"), "nothing received echoed: {answer}");
        }
    }

    #[test]
    fn a_payment_is_refused_by_every_tool_and_nothing_is_fetched() {
        for tool in ["criteria", "precheck", "check", "memo"] {
            let params = json!({"name": tool, "arguments": {"url": "https://example.invalid/"},
                "_meta": {"x402/payment": {"SECRET": 1}}});
            let answer = answered(&request("tools/call", params));
            let result = &answer["result"];
            assert_eq!(result["isError"], true, "{answer}");
            assert_eq!(result["structuredContent"]["error"]["rule"], tools::TAKES_NO_PAYMENT.0);
            assert!(!answer.to_string().contains("SECRET"), "{answer}");
        }
    }

    #[test]
    fn both_eras_list_the_tools_and_only_the_stateless_one_carries_cache_hints() {
        let old = answered(&request("tools/list", json!({})));
        let new = answered(&request("tools/list", stateless(json!({}))));
        let names = |answer: &Value| -> Vec<Value> {
            answer["result"]["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].clone())
                .collect()
        };
        let tools = ["criteria", "precheck", "check", "memo", "doctor"];
        assert_eq!(names(&old), tools.map(|name| json!(name)));
        assert_eq!(names(&new), names(&old));
        assert_eq!(old["result"].get("resultType"), None);
        assert_eq!(
            (&new["result"]["resultType"], &new["result"]["cacheScope"]),
            (&json!("complete"), &json!("public"))
        );
        let discovered = answered(&request("server/discover", stateless(json!({}))));
        assert_eq!(discovered["result"]["supportedVersions"][0], "2026-07-28");
        let initialized =
            answered(&request("initialize", json!({"protocolVersion": "2025-06-18"})));
        assert_eq!(initialized["result"]["protocolVersion"], "2025-06-18");
        assert_eq!(answered(&request("ping", json!({})))["result"], json!({}));
        assert_eq!(
            answered(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Value::Null
        );
    }

    /// The local pre-check has the service's shape: the fields of the `PrecheckAnswer` schema
    /// the tool lists as its output schema, each required one present, no other.
    #[test]
    fn the_precheck_answer_is_the_schema_the_tool_lists() {
        let listed = answered(&request("tools/list", json!({})));
        let tools = listed["result"]["tools"].as_array().unwrap();
        let precheck = tools.iter().find(|tool| tool["name"] == "precheck").unwrap();
        let schema = &precheck["outputSchema"]["components"]["schemas"]["PrecheckAnswer"];
        let properties: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        for url in ["https://example.com/x", "ftp://example.com/"] {
            let params = json!({"name": "precheck", "arguments": {"url": url}});
            let answer = answered(&request("tools/call", params));
            let fields = answer["result"]["structuredContent"].as_object().unwrap().clone();
            assert_eq!(fields.keys().collect::<Vec<_>>(), properties, "{url}: {answer}");
            for required in schema["required"].as_array().unwrap() {
                assert!(fields.contains_key(required.as_str().unwrap()), "{required} {answer}");
            }
        }
    }

    #[test]
    fn the_line_cap_is_the_service_body_cap_and_its_message_says_so() {
        let cap = MAX_REQUEST_BODY_BYTES;
        let shown = format!("{},{:03} bytes", cap / 1_000, cap % 1_000);
        assert!(LINE_TOO_LONG.contains(&shown), "{LINE_TOO_LONG}");
    }

    #[test]
    fn the_precheck_is_signed_with_the_key_the_criteria_publish() {
        let params = stateless(
            json!({"name": "precheck", "arguments": {"url": "https://example.com/x", "op": "memo"}}),
        );
        let answer = answered(&request("tools/call", params));
        let result = &answer["result"];
        assert_eq!((&result["isError"], &result["cacheScope"]), (&json!(false), &json!("private")));
        let precheck = &result["structuredContent"];
        assert_eq!(
            (&precheck["in_policy"], &precheck["op"], &precheck["kind"]),
            (&json!(true), &json!("memo"), &json!("precheck"))
        );
        let criteria = answered(&request("tools/call", json!({"name": "criteria"})));
        let keys: Vec<payability_core::signing::PublicKeyDescriptor> =
            criteria["result"]["structuredContent"]["signing_keys"]
                .as_array()
                .unwrap()
                .iter()
                .map(|entry| serde_json::from_value(entry.clone()).unwrap())
                .collect();
        assert!(payability_core::signing::verify_signed(precheck, &keys).is_ok(), "{precheck}");
        assert_eq!(
            result["content"][0]["text"]
                .as_str()
                .map(|t| serde_json::from_str::<Value>(t).unwrap()),
            Some(precheck.clone())
        );
    }
}
