//! The views of a run of several targets (or of one with `--expect` or `--require`): a JSON
//! Lines line per target, the text view's additions, GitHub workflow annotations and the
//! markdown summary table. Pure functions of an [`Outcome`]; every string a target or a
//! catalogue supplied (the URL) goes through [`escape::text`] first, then through the
//! escaping of its medium ([`github_data`], [`github_property`], [`markdown_cell`]).

use payability_core::expect::{ExpectationReport, LegOutcome};
use payability_core::report::SignedReport;
use serde::Serialize;
use serde_json::Value;

use crate::escape;
use crate::targets::Problem;

/// One target's verdict, with what the caller asked beside it.
pub(crate) struct Checked {
    /// The signed report.
    pub(crate) signed: SignedReport,
    /// The same report as JSON, for the views.
    pub(crate) value: Value,
    /// `--expect`'s result, when expectations were given.
    pub(crate) expectations: Option<ExpectationReport>,
    /// The state is not one of `--require` (false without it).
    pub(crate) outside_require: bool,
    /// The method a catalogue listed the resource with, when not GET.
    pub(crate) listed: Option<&'static str>,
}

/// What one target came to: a verdict, or a closed-form problem in its place.
pub(crate) enum Outcome {
    /// A signed report was made.
    Verdict(Box<Checked>),
    /// The target was refused, or could not be checked.
    Problem(Problem),
}

/// Exit code of a verdict outside the caller's terms (`--require`, `--expect`).
pub(crate) const EXIT_TERMS_UNMET: u8 = 3;

impl Outcome {
    /// This target's exit code: 0, 3 for terms unmet, or the problem's 1 or 2.
    pub(crate) fn exit(&self) -> u8 {
        match self {
            Self::Verdict(checked) if checked.terms_met() => 0,
            Self::Verdict(_) => EXIT_TERMS_UNMET,
            Self::Problem(problem) => problem.exit,
        }
    }
}

impl Checked {
    /// The state is among `--require` and every expectation is met.
    pub(crate) fn terms_met(&self) -> bool {
        !self.outside_require && self.expectations.as_ref().is_none_or(|e| e.met)
    }

    /// A string member of the report.
    fn text_of(&self, field: &str) -> String {
        escape::text(self.value.get(field).and_then(Value::as_str).unwrap_or(""))
    }
}

/// How bad an exit code is: 1 (a check could not be made) over 2 (an input was refused) over
/// 3 (a verdict outside the caller's terms) over 0.
pub(crate) fn severity(exit: u8) -> u8 {
    match exit {
        1 => 3,
        2 => 2,
        EXIT_TERMS_UNMET => 1,
        _ => 0,
    }
}

/// A report line with its expectations beside it (never inside the signed object).
#[derive(Serialize)]
struct WithExpectations<'a> {
    report: &'a SignedReport,
    expectations: &'a ExpectationReport,
}

/// A problem's line: the target's place in the run and the closed-form error.
#[derive(Serialize)]
struct ProblemLine<'a> {
    item: usize,
    error: ErrorBody<'a>,
}

/// `{"rule": …, "message": …}`.
#[derive(Serialize)]
struct ErrorBody<'a> {
    rule: &'a str,
    message: &'a str,
}

/// The JSON Lines line of target `item`: the signed report, `{"report", "expectations"}`
/// when expectations were given, or `{"item", "error"}`.
pub(crate) fn json_line(item: usize, outcome: &Outcome) -> String {
    match outcome {
        Outcome::Verdict(checked) => match &checked.expectations {
            Some(expectations) => {
                escape::json_line(&WithExpectations { report: &checked.signed, expectations })
            }
            None => escape::json_line(&checked.signed),
        },
        Outcome::Problem(problem) => problem_json_line(item, problem),
    }
}

/// The JSON Lines line of a target refused or not checked: `{"item", "error"}`.
pub(crate) fn problem_json_line(item: usize, problem: &Problem) -> String {
    escape::json_line(&ProblemLine {
        item,
        error: ErrorBody { rule: problem.rule, message: &problem.message },
    })
}

/// A problem as the text view shows it.
pub(crate) fn text_problem(item: usize, total: usize, problem: &Problem) -> String {
    let what = if problem.exit == 1 { "failed" } else { "refused" };
    format!("item {item} of {total}: {what} ({}): {}\n", problem.rule, problem.message)
}

/// What the text view adds below a report: the catalogue's method, `--require` and
/// `--expect`.
pub(crate) fn text_additions(checked: &Checked, require: &[String]) -> String {
    let mut out = String::new();
    if let Some(method) = checked.listed {
        out += &format!(
            "\ncatalogue: listed as {method}; the rule fetches it with GET, as any stranger's \
             first request\n"
        );
    }
    if !require.is_empty() {
        let verdict = if checked.outside_require { "is not" } else { "is" };
        out += &format!(
            "\n--require: the state {} {verdict} one of {}\n",
            checked.text_of("state"),
            require.join(", ")
        );
    }
    if let Some(expectations) = &checked.expectations {
        out += "\n--expect (your terms, beside the signed report, not in it; accepts[0] of each \
                leg, each fetch)\n";
        for result in &expectations.results {
            let label = format!("{} (fetch {})", result.key.as_str(), result.fetch);
            out += &format!(
                "  {} {label:<22} body: {:<7} header: {}\n",
                if result.met() { "[x]" } else { "[ ]" },
                result.body.as_str(),
                result.header.as_str()
            );
        }
    }
    out
}

/// The unmet expectations, one phrase per leg: `pay-to: header leg absent (fetch 1)`.
fn unmet(expectations: &ExpectationReport) -> Vec<String> {
    let mut phrases = Vec::new();
    for result in &expectations.results {
        for (leg, outcome) in [("body", result.body), ("header", result.header)] {
            if outcome != LegOutcome::Met {
                phrases.push(format!(
                    "{}: {leg} leg {} (fetch {})",
                    result.key.as_str(),
                    outcome.as_str(),
                    result.fetch
                ));
            }
        }
    }
    phrases
}

/// GitHub's escaping of a workflow command's message: `%`, CR and LF.
pub(crate) fn github_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// GitHub's escaping of a workflow command's property: the message's, and `:` and `,`.
pub(crate) fn github_property(text: &str) -> String {
    github_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// The `::error` annotation of a target that makes the exit code non-zero; None for one that
/// does not.
pub(crate) fn annotation(
    op: &str,
    item: usize,
    outcome: &Outcome,
    require: &[String],
) -> Option<String> {
    let (title, message) = match outcome {
        Outcome::Verdict(checked) if checked.terms_met() => return None,
        Outcome::Verdict(checked) => {
            let mut parts = Vec::new();
            let state = checked.text_of("state");
            if checked.outside_require {
                parts.push(format!("state {state} is not one of --require {}", require.join(",")));
            } else {
                parts.push(format!("state {state}"));
            }
            if let Some(expectations) = &checked.expectations {
                let unmet = unmet(expectations);
                if !unmet.is_empty() {
                    parts.push(format!("--expect unmet: {}", unmet.join(", ")));
                }
            }
            (format!("payability {op}: {}", checked.text_of("url")), parts.join("; "))
        }
        Outcome::Problem(problem) => {
            let what = if problem.exit == 1 { "failed" } else { "refused" };
            (
                format!("payability {op}: item {item}"),
                format!("{what} ({}): {}", problem.rule, escape::text(&problem.message)),
            )
        }
    };
    Some(format!("::error title={}::{}", github_property(&title), github_data(&message)))
}

/// Markdown-significant and HTML characters as numeric references, line breaks as spaces:
/// nothing in a cell can end it, start a row, a code span, a link or image, emphasis, an
/// autolink or a tag.
pub(crate) fn markdown_cell(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\r' | '\n' => " ".to_owned(),
            '|' | '`' | '<' | '>' | '&' | '\\' | '*' | '_' | '[' | ']' | '~' | '"' => {
                format!("&#{};", u32::from(c))
            }
            c => c.to_string(),
        })
        .collect()
}

/// The summary table's heading and head row.
pub(crate) fn markdown_head(op: &str) -> String {
    format!(
        "### payability {op}\n\n| URL | op | state | decided by | expectations | key id |\n\
         |---|---|---|---|---|---|\n"
    )
}

/// The `decided by` cell: the step and the factors it names.
fn decided(report: &Value) -> String {
    let Some(step) = report.pointer("/decided_by/step").and_then(Value::as_u64) else {
        return "\u{2014}".to_owned();
    };
    let factors: Vec<String> = report
        .pointer("/decided_by/factors")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|f| {
                    let name = escape::text(f.get("factor")?.as_str()?);
                    Some(match f.get("fetch").and_then(Value::as_u64) {
                        Some(n) => format!("{name} (fetch {n})"),
                        None => name,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    match factors.is_empty() {
        true => format!("step {step}"),
        false => format!("step {step}: {}", factors.join(", ")),
    }
}

/// One row of the summary table.
pub(crate) fn markdown_row(op: &str, item: usize, outcome: &Outcome) -> String {
    let cells: [String; 6] = match outcome {
        Outcome::Verdict(checked) => {
            let mut state = checked.text_of("state");
            if checked.outside_require {
                state += " (not one of --require)";
            }
            let expectations = match &checked.expectations {
                None => "\u{2014}".to_owned(),
                Some(e) if e.met => "met".to_owned(),
                Some(e) => format!("unmet: {}", unmet(e).join(", ")),
            };
            let key_id = checked.value.pointer("/signature/key_id").and_then(Value::as_str);
            [
                checked.text_of("url"),
                op.to_owned(),
                state,
                decided(&checked.value),
                expectations,
                escape::text(key_id.unwrap_or("")),
            ]
        }
        Outcome::Problem(problem) => {
            let what = if problem.exit == 1 { "failed" } else { "refused" };
            [
                format!("item {item}"),
                op.to_owned(),
                format!("{what}: {}", problem.rule),
                "\u{2014}".to_owned(),
                "\u{2014}".to_owned(),
                "\u{2014}".to_owned(),
            ]
        }
    };
    let cells: Vec<String> = cells.iter().map(|c| markdown_cell(c)).collect();
    format!("| {} |\n", cells.join(" | "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_escapes_the_message_and_the_properties_as_it_requires() {
        let vectors = [
            ("plain", "plain", "plain"),
            ("100%", "100%25", "100%25"),
            ("a\nb\r\nc", "a%0Ab%0D%0Ac", "a%0Ab%0D%0Ac"),
            ("::error ::x", "::error ::x", "%3A%3Aerror %3A%3Ax"),
            ("a,b:c", "a,b:c", "a%2Cb%3Ac"),
            ("%0A", "%250A", "%250A"),
            ("http://h/a::b%25,c", "http://h/a::b%2525,c", "http%3A//h/a%3A%3Ab%2525%2Cc"),
        ];
        for (text, data, property) in vectors {
            assert_eq!(github_data(text), data, "{text:?}");
            assert_eq!(github_property(text), property, "{text:?}");
        }
    }

    #[test]
    fn a_markdown_cell_cannot_break_the_table_or_carry_markup() {
        let vectors = [
            ("https://a.example/x", "https://a.example/x"),
            ("a|b", "a&#124;b"),
            ("a\nb\r\n| x |", "a b  &#124; x &#124;"),
            ("`code`", "&#96;code&#96;"),
            ("<img src=x onerror=y>", "&#60;img src=x onerror=y&#62;"),
            ("[t](javascript:x)", "&#91;t&#93;(javascript:x)"),
            ("*a* _b_ ~c~ \\|", "&#42;a&#42; &#95;b&#95; &#126;c&#126; &#92;&#124;"),
            ("&amp; \"q\" #h ![i]", "&#38;amp; &#34;q&#34; #h !&#91;i&#93;"),
        ];
        for (text, cell) in vectors {
            assert_eq!(markdown_cell(text), cell, "{text:?}");
        }
    }

    #[test]
    fn exit_codes_rank_failed_over_refused_over_terms_unmet_over_success() {
        let mut codes = [0, 3, 2, 1];
        codes.sort_by_key(|code| std::cmp::Reverse(severity(*code)));
        assert_eq!(codes, [1, 2, 3, 0]);
    }
}
