//! The human view of a signed report: the verdict line, every factor as a checklist grouped
//! by leg (fetch factors first), the factors that decided the state marked, then where the
//! signed JSON is. A pure function of the report's JSON, so it reads any revision's report:
//! factors it does not know are listed last, and `decided_by` is marked when present. Every
//! string of the report is shown through [`escape::text`], so none (a census name is a
//! seller's) can move the cursor, restyle the terminal or reorder the line.

use payability_core::layout::{CHECK_FACTORS, Group, MEMO_FETCH_FACTORS, MEMO_PAIR_FACTORS};
use serde_json::{Map, Value};

use crate::escape;

/// One checklist line: a factor (of one fetch, for memo per-fetch factors) and its value.
struct Row {
    group: Group,
    name: String,
    fetch: Option<u64>,
    detail: &'static str,
    value: Value,
}

impl Row {
    fn label(&self) -> String {
        let name = escape::text(&self.name);
        match self.fetch {
            Some(n) => format!("{name} (fetch {n}{})", self.detail),
            None => name,
        }
    }
}

/// A factor named in `decided_by`.
struct Decider {
    name: String,
    fetch: Option<u64>,
    value: Value,
}

impl Decider {
    /// Whether this decider is the factor of `row` (any fetch, when it names none).
    fn marks(&self, row: &Row) -> bool {
        self.name == row.name && (self.fetch.is_none() || self.fetch == row.fetch)
    }
}

/// The verdict line and the headings on a terminal: bold.
const BOLD: &str = "\x1b[1m";
/// The deciding factors on a terminal: bold yellow.
const DECIDED: &str = "\x1b[1;33m";
/// Back to the terminal's style.
const RESET: &str = "\x1b[0m";

/// Renders a signed report's JSON for a person; `colour` adds ANSI styles.
pub(crate) fn render(report: &Value, colour: bool) -> String {
    let paint = |text: &str, style: &str| match colour {
        true => format!("{style}{text}{RESET}"),
        false => text.to_owned(),
    };
    let text_of =
        |field: &str| escape::text(report.get(field).and_then(Value::as_str).unwrap_or(""));
    let op = text_of("op");
    let rows = match report.get("factors").and_then(Value::as_object) {
        Some(factors) if op == "memo" => memo_rows(factors),
        Some(factors) => check_rows(factors),
        None => Vec::new(),
    };
    let (step, deciders) = decided_by(report);
    let mut out = format!("{}\n", paint(&text_of("verdict_line"), BOLD));
    out += &format!("url: {}\n", text_of("url"));
    out +=
        &format!("criteria: {} revision {}\n", text_of("criteria"), text_of("criteria_revision"));
    if let Some(step) = step {
        let named: Vec<String> = deciders
            .iter()
            .map(|d| match d.fetch {
                Some(n) => format!("{} (fetch {n}): {}", escape::text(&d.name), shown(&d.value)),
                None => format!("{}: {}", escape::text(&d.name), shown(&d.value)),
            })
            .collect();
        let named = match named.is_empty() {
            true => "no factor (no earlier step matched)".to_owned(),
            false => named.join(", "),
        };
        let line = format!("decided by step {step} of the {op} state rule: {named}");
        for part in wrapped(&line) {
            out += &format!("{}\n", paint(&part, DECIDED));
        }
    }
    let width = rows.iter().map(|row| row.label().chars().count()).max().unwrap_or(0);
    for group in Group::ALL {
        let heading = group.heading();
        let mut in_group = rows.iter().filter(|row| row.group == group).peekable();
        if in_group.peek().is_none() {
            continue;
        }
        out += &format!("\n{}\n", paint(heading, BOLD));
        for row in in_group {
            let decided = deciders.iter().any(|d| d.marks(row));
            let line = format!(
                "{} {} {:<width$}  {}{}",
                if decided { ">" } else { " " },
                checkbox(&row.value),
                row.label(),
                shown(&row.value),
                if decided { "  <- decided" } else { "" },
            );
            match decided {
                true => out += &format!("  {}\n", paint(&line, DECIDED)),
                false => out += &format!("  {line}\n"),
            }
        }
    }
    out += "\nThe signed report: add --format json (the default when standard output is not a \
            terminal).\n";
    out
}

/// The check factors as rows: known ones in contract order, then any other.
fn check_rows(factors: &Map<String, Value>) -> Vec<Row> {
    let mut rows = known_rows(factors, &CHECK_FACTORS, None);
    rows.extend(other_rows(factors, &CHECK_FACTORS.map(|(name, _)| name), None));
    rows
}

/// The memo factors as rows: per-fetch factors (fetch 1 then 2 for each), the census split
/// by fetch and leg, the pair's factors, then any other.
fn memo_rows(factors: &Map<String, Value>) -> Vec<Row> {
    let fetches: Vec<&Map<String, Value>> = factors
        .get("fetches")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_object).collect())
        .unwrap_or_default();
    let mut rows = Vec::new();
    for (name, group) in MEMO_FETCH_FACTORS {
        for (fetch, n) in fetches.iter().zip(1u64..) {
            if let Some(value) = fetch.get(name) {
                let value = value.clone();
                rows.push(Row { group, name: name.to_owned(), fetch: Some(n), detail: "", value });
            }
        }
    }
    for (fetch, n) in fetches.iter().zip(1u64..) {
        rows.extend(other_rows(fetch, &MEMO_FETCH_FACTORS.map(|(name, _)| name), Some(n)));
    }
    let census = factors.get("correlation_census");
    for (leg, group, detail) in
        [("body", Group::Body, ", body"), ("header", Group::Header, ", header")]
    {
        for n in 1u64..=2 {
            if let Some(names) = census.and_then(|c| c.get(format!("fetch{n}"))?.get(leg)) {
                let name = "correlation_census".to_owned();
                rows.push(Row { group, name, fetch: Some(n), detail, value: names.clone() });
            }
        }
    }
    rows.extend(known_rows(factors, &MEMO_PAIR_FACTORS, None));
    let split = ["fetches", "correlation_census"];
    let known: Vec<&str> =
        MEMO_PAIR_FACTORS.map(|(name, _)| name).into_iter().chain(split).collect();
    rows.extend(other_rows(factors, &known, None));
    rows
}

/// Rows of the listed factors present in `factors`, in list order.
fn known_rows(
    factors: &Map<String, Value>,
    list: &[(&str, Group)],
    fetch: Option<u64>,
) -> Vec<Row> {
    let row = |&(name, group): &(&str, Group)| {
        let value = factors.get(name)?.clone();
        Some(Row { group, name: name.to_owned(), fetch, detail: "", value })
    };
    list.iter().filter_map(row).collect()
}

/// Rows of the factors in `factors` that `known` does not name (a later revision's).
fn other_rows(factors: &Map<String, Value>, known: &[&str], fetch: Option<u64>) -> Vec<Row> {
    factors
        .iter()
        .filter(|(name, _)| !known.contains(&name.as_str()))
        .map(|(name, value)| Row {
            group: Group::Other,
            name: name.clone(),
            fetch,
            detail: "",
            value: value.clone(),
        })
        .collect()
}

/// The step and the factors of the report's `decided_by`, when it has one.
fn decided_by(report: &Value) -> (Option<u64>, Vec<Decider>) {
    let Some(decided) = report.get("decided_by") else {
        return (None, Vec::new());
    };
    let deciders = decided
        .get("factors")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|item| {
                    Some(Decider {
                        name: item.get("factor")?.as_str()?.to_owned(),
                        fetch: item.get("fetch").and_then(Value::as_u64),
                        value: item.get("value").cloned().unwrap_or(Value::Null),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    (decided.get("step").and_then(Value::as_u64), deciders)
}

/// Widest line of the `decided by` summary before it wraps.
const SUMMARY_WIDTH: usize = 92;

/// A line cut after the `, ` nearest before [`SUMMARY_WIDTH`], continuations indented.
fn wrapped(line: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    for piece in line.split_inclusive(", ") {
        let last = parts.last_mut().expect("one part at least");
        if !last.trim().is_empty()
            && last.chars().count() + piece.trim_end().chars().count() > SUMMARY_WIDTH
        {
            let done = last.trim_end().to_owned();
            *last = done;
            parts.push(format!("    {piece}"));
        } else {
            last.push_str(piece);
        }
    }
    parts
}

/// `[x]` for true, `[ ]` for false, `[-]` for null, blanks for any other value.
fn checkbox(value: &Value) -> &'static str {
    match value {
        Value::Bool(true) => "[x]",
        Value::Bool(false) => "[ ]",
        Value::Null => "[-]",
        _ => "   ",
    }
}

/// A value as printed: strings bare, lists bracketed, anything else as JSON.
fn shown(value: &Value) -> String {
    match value {
        Value::String(text) => escape::text(text),
        Value::Array(items) => {
            format!("[{}]", items.iter().map(shown).collect::<Vec<_>>().join(", "))
        }
        other => escape::text(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::escape::tests::{hostile_text, raw};

    /// A check report of a v2 middleware (challenge in the header only), graded UNCONFIGURED.
    fn check_unconfigured(decided: bool) -> Value {
        let mut report = json!({
            "criteria": "payability/v1", "criteria_revision": "1.4.0", "op": "check",
            "url": "http://127.0.0.1:3000/weather", "state": "UNCONFIGURED",
            "verdict_line": "CHALLENGE PAYABILITY VERDICT \u{2014} state: UNCONFIGURED \u{2014} \
                             2026-12-01T00:00:00.000Z",
            "checked_at": "2026-12-01T00:00:00.000Z",
            "factors": {
                "fetch_ok": true, "status": 402, "body_over_cap": false, "body_parseable": true,
                "body_leg_present": false, "header_present": true, "header_over_cap": false,
                "header_decodable": true, "recipient_present": false,
                "token_account_present": false, "memo_present": false,
                "amounts_present": false, "amounts_consistent": false,
                "resource_present": false, "resource_equal": true, "memo_equal": null,
                "amount_equal": false, "pay_to_equal": false, "description_overlong": false,
                "description_length": null
            },
            "house": true, "signature": {"alg": "Ed25519", "key_id": "k", "value": "v"}
        });
        if decided {
            report["decided_by"] = json!({"step": 5, "factors": [
                {"factor": "recipient_present", "value": false},
                {"factor": "memo_present", "value": false}]});
        }
        report
    }

    /// A memo report whose second fetch is not a 402.
    fn memo_not_a_402() -> Value {
        let fetch = |status: u16| {
            json!({"fetch_ok": true, "status": status, "is_402": status == 402,
                   "body_over_cap": false, "body_parseable": true, "body_leg_present": true,
                   "header_present": true, "header_over_cap": false, "header_decodable": true,
                   "body_memo_present": true, "header_memo_present": true})
        };
        json!({
            "criteria": "payability/v1", "criteria_revision": "1.4.0", "op": "memo",
            "url": "http://127.0.0.1:3000/weather", "state": "NOT-A-402",
            "verdict_line": "MEMO BINDING VERDICT \u{2014} state: NOT-A-402 \u{2014} \
                             2026-12-01T00:00:00.000Z",
            "factors": {
                "fetches": [fetch(402), fetch(500)],
                "memo_equality_fetch1": true, "memo_equality_fetch2": true,
                "body_memos_unique": true, "header_memos_unique": true,
                "body_freshness_class": "regenerated", "header_freshness_class": "regenerated",
                "body_memo_format_fetch1": "prefixed-opaque",
                "body_memo_format_fetch2": "prefixed-opaque",
                "header_memo_format_fetch1": "prefixed-opaque",
                "header_memo_format_fetch2": "prefixed-opaque",
                "correlation_census": {
                    "fetch1": {"body": ["amount", "extra", "memo"], "header": ["memo"]},
                    "fetch2": {"body": ["amount", "extra", "memo"], "header": ["memo"]}
                }
            },
            "decided_by": {"step": 1, "factors": [{"factor": "is_402", "fetch": 2, "value": false}]}
        })
    }

    /// The line of the checklist whose label is exactly `label`.
    fn line<'a>(text: &'a str, label: &str) -> &'a str {
        let mut found = text.lines().filter(|l| {
            l.get(8..).is_some_and(|rest| {
                rest.starts_with(label) && rest[label.len()..].starts_with("  ")
            })
        });
        let first = found.next().unwrap_or_else(|| panic!("no line {label} in\n{text}"));
        assert!(found.next().is_none(), "two lines {label}");
        first
    }

    /// The heading above the line `label`.
    fn heading_of(text: &str, label: &str) -> String {
        let at = text.find(line(text, label)).unwrap();
        let before = &text[..at];
        let heading = before.lines().rev().find(|l| !l.starts_with(' ')).unwrap();
        heading.to_owned()
    }

    /// A report, its `decided by` line, the labels marked and some not, and where some go.
    type Vector =
        (Value, Option<&'static str>, &'static [&'static str], &'static [&'static str], Headings);
    /// Labels and the heading each is listed under.
    type Headings = &'static [(&'static str, &'static str)];

    #[test]
    fn deciding_factors_are_marked_and_every_factor_is_listed_under_its_leg() {
        let vectors: [Vector; 4] = [
            (
                check_unconfigured(true),
                Some(
                    "decided by step 5 of the check state rule: recipient_present: false, \
                      memo_present: false",
                ),
                &["recipient_present", "memo_present"],
                &["token_account_present", "body_leg_present", "fetch_ok", "pay_to_equal"],
                &[
                    ("fetch_ok", "fetch"),
                    ("body_leg_present", "body leg"),
                    ("header_decodable", "header leg"),
                    ("pay_to_equal", "equality"),
                ],
            ),
            (
                check_unconfigured(false),
                None,
                &[],
                &["recipient_present", "memo_present"],
                &[("body_parseable", "body leg")],
            ),
            (
                {
                    let mut populated = check_unconfigured(false);
                    populated["decided_by"] = json!({"step": 6, "factors": []});
                    populated
                },
                Some(
                    "decided by step 6 of the check state rule: no factor (no earlier step \
                      matched)",
                ),
                &[],
                &["recipient_present", "fetch_ok"],
                &[],
            ),
            (
                memo_not_a_402(),
                Some("decided by step 1 of the memo state rule: is_402 (fetch 2): false"),
                &["is_402 (fetch 2)"],
                &["is_402 (fetch 1)", "status (fetch 2)", "memo_equality_fetch2"],
                &[
                    ("is_402 (fetch 1)", "fetch"),
                    ("body_memo_present (fetch 2)", "body leg"),
                    ("correlation_census (fetch 1, header)", "header leg"),
                    ("memo_equality_fetch1", "equality"),
                ],
            ),
        ];
        for (report, decided, marked, unmarked, headings) in vectors {
            let text = render(&report, false);
            assert!(text.starts_with(report["verdict_line"].as_str().unwrap()), "{text}");
            let decided_lines: Vec<&str> =
                text.lines().filter(|l| l.starts_with("decided by")).collect();
            assert_eq!(decided_lines, decided.into_iter().collect::<Vec<_>>(), "{text}");
            for label in marked {
                let l = line(&text, label);
                assert!(l.starts_with("  > ") && l.ends_with("<- decided"), "{l}");
            }
            for label in unmarked {
                let l = line(&text, label);
                assert!(l.starts_with("    ") && !l.contains("decided"), "{l}");
            }
            for (label, heading) in headings {
                assert_eq!(heading_of(&text, label), *heading, "{label}");
            }
            assert!(text.trim_end().ends_with(
                "--format json (the default when standard output \
                                              is not a terminal)."
            ));
            assert!(!text.contains('\x1b'));
        }
    }

    #[test]
    fn a_long_decided_by_wraps_after_a_comma() {
        let mut report = check_unconfigured(false);
        let names = ["recipient_present", "token_account_present", "memo_present"];
        let factors: Vec<Value> = names
            .iter()
            .cycle()
            .take(9)
            .map(|name| json!({"factor": name, "value": false}))
            .collect();
        report["decided_by"] = json!({"step": 5, "factors": factors});
        let text = render(&report, false);
        let summary: Vec<&str> = text.lines().skip(3).take_while(|l| !l.is_empty()).collect();
        assert!(summary.len() > 1, "{text}");
        assert!(summary.iter().all(|l| l.chars().count() <= SUMMARY_WIDTH), "{summary:#?}");
        assert!(summary[..summary.len() - 1].iter().all(|l| l.ends_with(',')), "{summary:#?}");
        assert!(summary[1..].iter().all(|l| l.starts_with("    ") && !l.starts_with("     ")));
        let joined = summary.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
        let listed = names.map(|name| format!("{name}: false")).join(", ");
        assert_eq!(
            joined,
            format!("decided by step 5 of the check state rule: {listed}, {listed}, {listed}")
        );
    }

    #[test]
    fn every_factor_has_one_line_known_or_not() {
        let mut report = check_unconfigured(true);
        report["factors"]["a_later_factor"] = json!(true);
        let text = render(&report, false);
        let factors = report["factors"].as_object().unwrap();
        for name in factors.keys() {
            line(&text, name);
        }
        assert_eq!(heading_of(&text, "a_later_factor"), "other");
        let memo = render(&memo_not_a_402(), false);
        for n in [1, 2] {
            for (name, _) in MEMO_FETCH_FACTORS {
                line(&memo, &format!("{name} (fetch {n})"));
            }
        }
    }

    #[test]
    fn values_are_shown_with_checkboxes_and_terminal_controls_escaped() {
        let mut report = memo_not_a_402();
        report["factors"]["correlation_census"]["fetch1"]["body"] =
            json!(["amount", "\u{1b}[2Jclear", "rtl\u{202e}txt"]);
        let text = render(&report, false);
        let census = line(&text, "correlation_census (fetch 1, body)");
        assert!(census.ends_with("[amount, \\u{001b}[2Jclear, rtl\\u{202e}txt]"), "{census}");
        assert!(line(&text, "status (fetch 2)").ends_with("    500"));
        assert!(line(&text, "body_parseable (fetch 1)").contains("[x] body_parseable"));
        let check = render(&check_unconfigured(false), false);
        assert!(line(&check, "memo_equal").contains("[-] memo_equal"));
        assert!(line(&check, "amount_equal").contains("[ ] amount_equal"));
    }

    proptest::proptest! {
        /// Any report, every string of it a target's (names, values, the URL, the verdict
        /// line, deciding factors), is shown with no escaped character but the view's own
        /// line breaks and, in colour, its own styles.
        #[test]
        fn no_report_string_reaches_the_view_raw(
            strings in proptest::collection::vec(hostile_text(), 12),
            memo in proptest::bool::ANY,
        ) {
            let s = |i: usize| Value::from(strings[i].clone());
            let mut report = if memo { memo_not_a_402() } else { check_unconfigured(true) };
            report["url"] = s(0);
            report["verdict_line"] = s(1);
            report["criteria"] = s(2);
            report["factors"][strings[3].as_str()] = s(4);
            report["factors"]["status"] = json!([s(5), {"k": s(6)}]);
            report["decided_by"] = json!({"step": 1, "factors": [
                {"factor": s(7), "value": s(8)}, {"factor": "fetch_ok", "fetch": 1, "value": s(9)}]});
            if memo {
                report["factors"]["fetches"][0][strings[10].as_str()] = s(11);
                report["factors"]["correlation_census"]["fetch2"]["header"] = json!([s(10), s(11)]);
            }
            let plain = render(&report, false);
            proptest::prop_assert_eq!(raw(&plain, &['\n']), Vec::<char>::new());
            let coloured = render(&report, true);
            let unstyled = coloured.replace(BOLD, "").replace(DECIDED, "").replace(RESET, "");
            proptest::prop_assert_eq!(unstyled, plain);
        }
    }

    #[test]
    fn colour_marks_the_verdict_and_the_deciding_factors_only_when_asked() {
        let report = check_unconfigured(true);
        let plain = render(&report, false);
        let coloured = render(&report, true);
        assert!(!plain.contains('\x1b'));
        assert!(coloured.starts_with(&format!("{BOLD}CHALLENGE PAYABILITY VERDICT")));
        let decided = coloured.lines().find(|l| l.contains("recipient_present  ")).unwrap();
        assert!(decided.starts_with(&format!("  {DECIDED}>")) && decided.ends_with(RESET));
        let strip = coloured.replace(BOLD, "").replace(DECIDED, "").replace(RESET, "");
        assert_eq!(strip, plain);
    }
}
