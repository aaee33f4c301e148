//! `payability doctor`: the published check list `doctor/v1` over each target, as a seller
//! runs it against their own endpoints. Each target is vetted by the target policy, observed
//! (the stranger's GET and a CORS preflight) and examined by the core's pure checks; the
//! output carries check ids, levels, outcomes and counts, never a fetched value. One exit
//! code for the run: 3 when a check at or above `--fail-on` failed, with the precedence of
//! `check`'s codes (1 over 2 over 3).

mod mcp;
mod probes;

use std::fs::File;
use std::io::Write;

use payability_core::doctor::{
    CheckId, Findings, LIST_REVISION, Level, Outcome, examine, examine_mcp,
};
use payability_core::policy::{AddressRule, TargetUrl, vet_target_url};
use payability_runtime::fetch::Fetcher;
use serde::Serialize;

use crate::escape;

use crate::exit::{EXIT_FAILED, OUTPUT_UNWRITABLE, print_error, to_stdout};
use crate::local::refusal_problem;
use crate::run::{Format, Unwritten};
use crate::targets::{self, Problem, Target};
use crate::views::{
    EXIT_TERMS_UNMET, github_data, github_property, markdown_cell, problem_json_line, severity,
};
pub(crate) use probes::{Flags, Probes};

/// Where each check's fix is explained: `docs/doctor.md`, one section per check id.
pub(crate) const DOCS: &str =
    "https://github.com/payability-verdict/payability-verdict/blob/main/docs/doctor.md";

/// What a run needs besides its targets.
pub(crate) struct Doctor<'a> {
    /// The target policy's address rule.
    pub(crate) rule: AddressRule,
    /// The view on standard output.
    pub(crate) format: Format,
    /// Colour in the text view.
    pub(crate) colour: bool,
    /// The lowest level whose failure fails the run.
    pub(crate) fail_on: Level,
    /// `--reports FILE`, open.
    pub(crate) reports: Option<File>,
    /// `$GITHUB_STEP_SUMMARY`, open for appending (with `--format github`).
    pub(crate) summary: Option<File>,
    /// The bounded fetcher.
    pub(crate) fetcher: &'a Fetcher,
    /// The opt-in probes asked for.
    pub(crate) probes: Probes,
    /// `--mcp`: an MCP server to examine after the URLs.
    pub(crate) mcp: Option<McpTarget>,
}

/// `--mcp URL` with `--tool` and `--arguments`: the server, the paid tools to call unpaid,
/// their arguments.
pub(crate) struct McpTarget {
    /// The server's Streamable HTTP endpoint, vetted.
    pub(crate) url: TargetUrl,
    /// The tools to call without payment.
    pub(crate) tools: Vec<String>,
    /// Their arguments (an object).
    pub(crate) arguments: serde_json::Value,
}

/// One item of a run: a URL (or a target's problem), or the `--mcp` server.
enum Work<'a> {
    Http(Target),
    Mcp(&'a McpTarget),
}

/// What one target came to.
enum Examined {
    /// The checks ran: the URL examined and its findings.
    Findings(String, Findings),
    /// The target was refused, or could not be examined.
    Problem(Problem),
}

impl Examined {
    fn exit(&self, fail_on: Level) -> u8 {
        match self {
            Self::Findings(_, findings) if findings.failed_at_or_above(fail_on) => EXIT_TERMS_UNMET,
            Self::Findings(..) => 0,
            Self::Problem(problem) => problem.exit,
        }
    }
}

/// One check in a target's JSON line.
#[derive(Serialize)]
struct CheckLine {
    id: &'static str,
    level: &'static str,
    outcome: &'static str,
}

/// How many checks had each outcome.
#[derive(Serialize)]
struct Counts {
    pass: usize,
    fail: usize,
    not_applicable: usize,
}

/// A target's JSON line (without `item`: the MCP tool's answer).
#[derive(Serialize)]
struct FindingsLine<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    item: Option<usize>,
    url: &'a str,
    list: &'static str,
    checks: Vec<CheckLine>,
    counts: Counts,
}

impl Doctor<'_> {
    /// Examines every target (the catalogue's resources last) and returns the run's exit code.
    pub(crate) async fn run(
        mut self,
        targets: Vec<Target>,
        catalogue: Option<Result<TargetUrl, Problem>>,
    ) -> u8 {
        let targets = targets::with_catalogue(self.fetcher, targets, catalogue).await;
        let mcp = self.mcp.take();
        let mut work: Vec<Work<'_>> = targets.into_iter().map(Work::Http).collect();
        work.extend(mcp.as_ref().map(Work::Mcp));
        let total = work.len();
        let (mut worst, mut failing) = (0u8, 0usize);
        let mut rows = String::from(
            "### payability doctor\n\n| URL | failed | passed | not applicable |\n|---|---|---|---|\n",
        );
        let mut unwritten = Unwritten::default();
        if self.format == Format::Markdown {
            unwritten.stdout |= !to_stdout(&rows);
        }
        for (target, item) in work.into_iter().zip(1usize..) {
            let examined = match target {
                Work::Http(target) => self.examine(target).await,
                Work::Mcp(server) => {
                    let seen =
                        mcp::observe(self.fetcher, &server.url, &server.tools, &server.arguments)
                            .await;
                    Examined::Findings(server.url.as_str().to_owned(), examine_mcp(&seen))
                }
            };
            let row = markdown_row(item, &examined);
            if let Some(reports) = &mut self.reports {
                unwritten.reports |= writeln!(reports, "{}", json_line(item, &examined)).is_err();
            }
            let view = match self.format {
                Format::Json => format!("{}\n", json_line(item, &examined)),
                Format::Text => text_view(item, total, &examined, self.colour),
                Format::Github => annotations(item, &examined),
                Format::Markdown => row.clone(),
            };
            unwritten.stdout |= !to_stdout(&view);
            rows += &row;
            let exit = examined.exit(self.fail_on);
            failing += usize::from(exit == EXIT_TERMS_UNMET);
            if severity(exit) > severity(worst) {
                worst = exit;
            }
        }
        if let Some(summary) = &mut self.summary {
            unwritten.summary |= writeln!(summary, "{rows}").is_err();
        }
        unwritten.stdout |= std::io::stdout().flush().is_err();
        if let Some(message) = unwritten.message() {
            print_error(OUTPUT_UNWRITABLE, &message);
            if severity(EXIT_FAILED) > severity(worst) {
                worst = EXIT_FAILED;
            }
        }
        if failing > 0 {
            let level = self.fail_on.as_str();
            print_error(
                "checks_failed",
                &format!("{failing} of {total} URLs failed a check at level {level} or above"),
            );
        }
        worst
    }

    /// One target: vetted, observed, examined.
    async fn examine(&self, target: Target) -> Examined {
        let url = match target {
            Target::Url { url, .. } => url,
            Target::Unusable(problem) => return Examined::Problem(problem),
        };
        let target = match vet_target_url(&url, self.rule) {
            Ok(target) => target,
            Err(refusal) => return Examined::Problem(refusal_problem(refusal)),
        };
        let seen = self.fetcher.observe(&target).await;
        let answers = self.probes.ask(self.fetcher, self.rule, &target, &seen).await;
        Examined::Findings(seen.url.clone(), examine(&seen, &answers))
    }
}

/// One URL's findings as JSON (a line), `item` its place in a run when in one.
pub(crate) fn findings_json(item: Option<usize>, url: &str, findings: &Findings) -> String {
    escape::json_line(&FindingsLine {
        item,
        url,
        list: LIST_REVISION,
        checks: findings
            .iter()
            .map(|(id, outcome)| CheckLine {
                id: id.as_str(),
                level: id.level().as_str(),
                outcome: outcome.as_str(),
            })
            .collect(),
        counts: Counts {
            pass: findings.count(Outcome::Pass),
            fail: findings.count(Outcome::Fail),
            not_applicable: findings.count(Outcome::NotApplicable),
        },
    })
}

/// The JSON Lines line of target `item`.
fn json_line(item: usize, examined: &Examined) -> String {
    match examined {
        Examined::Findings(url, findings) => findings_json(Some(item), url, findings),
        Examined::Problem(problem) => problem_json_line(item, problem),
    }
}

/// The fix line of a check: its section of `docs/doctor.md`.
fn fix(id: CheckId) -> String {
    format!("{DOCS}#{}", id.as_str())
}

/// The text view of one target: a ✓/✗/– line per check, the fix under each failure, counts.
fn text_view(item: usize, total: usize, examined: &Examined, colour: bool) -> String {
    let (url, findings) = match examined {
        Examined::Findings(url, findings) => (url, findings),
        Examined::Problem(problem) => return crate::views::text_problem(item, total, problem),
    };
    let paint = |code: &str, text: String| match colour {
        true => format!("\x1b[{code}m{text}\x1b[0m"),
        false => text,
    };
    let mut view = String::new();
    if total > 1 {
        view += &format!("item {item} of {total}\n");
    }
    view += &format!("payability doctor ({LIST_REVISION}): {}\n", escape::text(url));
    for (id, outcome) in findings.iter() {
        let check = id.check();
        let level = check.level.as_str();
        view += &match outcome {
            Outcome::Pass => format!("  {} {}\n", paint("32", "✓".into()), id.as_str()),
            Outcome::Fail => format!(
                "  {} {} [{level}]: {}\n      fix: {}\n",
                paint("31", "✗".into()),
                id.as_str(),
                check.sentence,
                fix(id)
            ),
            Outcome::NotApplicable => format!("  – {} (not applicable)\n", id.as_str()),
        };
    }
    view += &format!(
        "{} passed, {} failed, {} not applicable\n",
        findings.count(Outcome::Pass),
        findings.count(Outcome::Fail),
        findings.count(Outcome::NotApplicable)
    );
    if item < total {
        view.push('\n');
    }
    view
}

/// GitHub annotations: one per failed check (`::error`, `::warning` or `::notice` by its
/// level), or one `::error` for a problem.
fn annotations(item: usize, examined: &Examined) -> String {
    match examined {
        Examined::Findings(url, findings) => findings
            .iter()
            .filter(|(_, outcome)| *outcome == Outcome::Fail)
            .map(|(id, _)| {
                let command = match id.level() {
                    Level::Error => "error",
                    Level::Warning => "warning",
                    Level::Info => "notice",
                };
                let title = format!("payability doctor: {}", escape::text(url));
                let message = format!("{}: {} Fix: {}", id.as_str(), id.check().sentence, fix(id));
                format!(
                    "::{command} title={}::{}\n",
                    github_property(&title),
                    github_data(&message)
                )
            })
            .collect(),
        Examined::Problem(problem) => {
            let what = if problem.exit == EXIT_FAILED { "failed" } else { "refused" };
            let title = format!("payability doctor: item {item}");
            let message = format!("{what} ({}): {}", problem.rule, escape::text(&problem.message));
            format!("::error title={}::{}\n", github_property(&title), github_data(&message))
        }
    }
}

/// One row of the summary table: the URL, the failed check ids (with their levels), counts.
fn markdown_row(item: usize, examined: &Examined) -> String {
    match examined {
        Examined::Findings(url, findings) => {
            let failed: Vec<String> = findings
                .iter()
                .filter(|(_, outcome)| *outcome == Outcome::Fail)
                .map(|(id, _)| format!("{} ({})", id.as_str(), id.level().as_str()))
                .collect();
            let failed = if failed.is_empty() { "none".to_owned() } else { failed.join(", ") };
            format!(
                "| {} | {} | {} | {} |\n",
                markdown_cell(&escape::text(url)),
                markdown_cell(&failed),
                findings.count(Outcome::Pass),
                findings.count(Outcome::NotApplicable)
            )
        }
        Examined::Problem(problem) => format!(
            "| item {item} | {} ({}) | — | — |\n",
            if problem.exit == EXIT_FAILED { "failed" } else { "refused" },
            markdown_cell(problem.rule)
        ),
    }
}

/// `payability doctor --list`: the whole list, as text (a line per check and its sentence) or
/// as JSON (the list's revision and every check's row).
pub(crate) fn list(format: Format) -> String {
    match format {
        Format::Json => {
            let checks: Vec<_> = CheckId::ALL.into_iter().map(CheckId::check).collect();
            let list = serde_json::json!({ "list": LIST_REVISION, "checks": checks });
            escape::json_pretty(&list)
        }
        Format::Text | Format::Github | Format::Markdown => {
            let mut text = format!("{LIST_REVISION}: {} checks\n", CheckId::ALL.len());
            for id in CheckId::ALL {
                let check = id.check();
                text += &format!(
                    "{:<20} {:<8} {}\n{:<29} {}\n",
                    id.as_str(),
                    check.level.as_str(),
                    check.applies.describe(),
                    "",
                    check.sentence
                );
            }
            text.trim_end().to_owned()
        }
    }
}
