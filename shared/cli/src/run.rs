//! One run of `check` or `memo` over its targets, in order: each target vetted, fetched,
//! graded and signed on its own (one target's refusal or failure never stops the others),
//! `--expect` evaluated on what was fetched before it is dropped, each outcome written as it
//! comes in the chosen view, and one exit code for the run (see [`crate::views::severity`]).

use std::fs::File;
use std::io::Write;

use clap::ValueEnum;

use payability_core::expect::Expectations;
use payability_core::op::PaidOp;
use payability_core::policy::{AddressRule, TargetUrl, vet_target_url};
use payability_core::signing::ReportSigner;
use payability_runtime::clock;
use payability_runtime::fetch::Fetcher;
use payability_runtime::verdict::{Fetched, graded};

use crate::exit::{CLOCK_OUT_OF_RANGE, EXIT_FAILED, OUTPUT_UNWRITABLE, print_error, to_stdout};
use crate::local::refusal_problem;
use crate::targets::{self, Problem, Target};
use crate::text;
use crate::views::{self, Checked, EXIT_TERMS_UNMET, Outcome};

/// How `check` and `memo` print the reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// The verdict line and a checklist of every factor.
    Text,
    /// The signed report (JSON Lines for several URLs or with --expect).
    Json,
    /// GitHub Actions: an ::error annotation per failing URL; a summary table.
    Github,
    /// The summary table (URL, op, state, decided by, expectations, key id).
    Markdown,
}

/// What a run needs besides its targets.
pub(crate) struct Run<'a> {
    /// The op.
    pub(crate) op: PaidOp,
    /// The target policy's address rule.
    pub(crate) rule: AddressRule,
    /// The view on standard output.
    pub(crate) format: Format,
    /// One URL from the command line: the view (and a refusal on stderr) is today's.
    pub(crate) plain: bool,
    /// Colour in the text view.
    pub(crate) colour: bool,
    /// `--require`'s states (empty: any state).
    pub(crate) require: Vec<String>,
    /// `--expect`'s expectations (possibly none).
    pub(crate) expectations: Expectations,
    /// `--reports FILE`, open.
    pub(crate) reports: Option<File>,
    /// `$GITHUB_STEP_SUMMARY`, open for appending (with `--format github`).
    pub(crate) summary: Option<File>,
    /// The local signing key.
    pub(crate) signer: &'a ReportSigner,
    /// The bounded fetcher.
    pub(crate) fetcher: &'a Fetcher,
}

impl Run<'_> {
    /// Checks every target (the catalogue's resources last, fetched first) and returns the
    /// run's exit code.
    pub(crate) async fn run(
        mut self,
        targets: Vec<Target>,
        catalogue: Option<Result<TargetUrl, Problem>>,
    ) -> u8 {
        let targets = targets::with_catalogue(self.fetcher, targets, catalogue).await;
        let total = targets.len();
        let op = self.op.as_str();
        let mut unwritten = Unwritten::default();
        let mut rows = views::markdown_head(op);
        if self.format == Format::Markdown {
            unwritten.stdout |= !to_stdout(&rows);
        }
        let (mut worst, mut unmet) = (0u8, 0usize);
        for (target, item) in targets.into_iter().zip(1usize..) {
            let outcome = self.check(target).await;
            let row = views::markdown_row(op, item, &outcome);
            self.emit(item, total, &outcome, &row, &mut unwritten);
            rows += &row;
            unmet += usize::from(outcome.exit() == EXIT_TERMS_UNMET);
            if views::severity(outcome.exit()) > views::severity(worst) {
                worst = outcome.exit();
            }
        }
        // The files are unbuffered: each write's error is seen where it is made.
        if let Some(summary) = &mut self.summary {
            unwritten.summary |= writeln!(summary, "{rows}").is_err();
        }
        unwritten.stdout |= std::io::stdout().flush().is_err();
        if let Some(message) = unwritten.message() {
            print_error(OUTPUT_UNWRITABLE, &message);
            if views::severity(EXIT_FAILED) > views::severity(worst) {
                worst = EXIT_FAILED;
            }
        }
        if unmet > 0 {
            print_error(
                "terms_unmet",
                &format!("{unmet} of {total} URLs have a verdict outside --require or --expect"),
            );
        }
        worst
    }

    /// One target: vetted, fetched, its expectations evaluated, graded and signed.
    async fn check(&self, target: Target) -> Outcome {
        let (url, listed) = match target {
            Target::Url { url, listed } => (url, listed),
            Target::Unusable(problem) => return Outcome::Problem(problem),
        };
        let target = match vet_target_url(&url, self.rule) {
            Ok(target) => target,
            Err(refusal) => return Outcome::Problem(refusal_problem(refusal)),
        };
        let fetched = Fetched::fetch(self.fetcher, self.op, &target).await;
        let expectations =
            (!self.expectations.is_empty()).then(|| self.expectations.evaluate(fetched.outcomes()));
        let Some(verdict) = graded(&target, fetched, clock::now(), true) else {
            let (rule, message) = CLOCK_OUT_OF_RANGE;
            return Outcome::Problem(Problem::failed(rule, message));
        };
        let signed = verdict.report.sign(self.signer);
        let value = serde_json::to_value(&signed).expect("a report serialises");
        let outside_require = !self.require.is_empty()
            && !self.require.iter().any(|state| Some(state.as_str()) == value["state"].as_str());
        Outcome::Verdict(Box::new(Checked { signed, value, expectations, outside_require, listed }))
    }

    /// Writes one outcome: the view on stdout (a plain refusal on stderr), the reports file;
    /// a write that fails is marked in `unwritten`.
    fn emit(
        &mut self,
        item: usize,
        total: usize,
        outcome: &Outcome,
        row: &str,
        unwritten: &mut Unwritten,
    ) {
        if let Some(reports) = &mut self.reports {
            unwritten.reports |= writeln!(reports, "{}", views::json_line(item, outcome)).is_err();
        }
        let lines = self.plain && self.expectations.is_empty();
        let view = match (self.format, outcome) {
            (Format::Json | Format::Text, Outcome::Problem(problem)) if self.plain => {
                print_error(problem.rule, &problem.message);
                String::new()
            }
            (Format::Json, Outcome::Verdict(checked)) if lines => {
                format!("{}\n", crate::escape::json_pretty(&checked.signed))
            }
            (Format::Json, _) => format!("{}\n", views::json_line(item, outcome)),
            (Format::Text, Outcome::Problem(problem)) => views::text_problem(item, total, problem),
            (Format::Text, Outcome::Verdict(checked)) => {
                let mut view = String::new();
                if !self.plain {
                    view += &format!("item {item} of {total}\n");
                }
                view += &text::render(&checked.value, self.colour);
                view += &views::text_additions(checked, &self.require);
                if !self.plain && item < total {
                    view.push('\n');
                }
                view
            }
            (Format::Github, _) => {
                match views::annotation(self.op.as_str(), item, outcome, &self.require) {
                    Some(annotation) => format!("{annotation}\n"),
                    None => String::new(),
                }
            }
            (Format::Markdown, _) => row.to_owned(),
        };
        unwritten.stdout |= !to_stdout(&view);
    }
}

/// The outputs of a run a write failed on (`check`, `memo` and `doctor` runs).
#[derive(Default)]
pub(crate) struct Unwritten {
    /// A write to standard output failed.
    pub(crate) stdout: bool,
    /// A write to the `--reports` file failed.
    pub(crate) reports: bool,
    /// A write to the step summary failed.
    pub(crate) summary: bool,
}

impl Unwritten {
    /// The `output_unwritable` message naming every output a write failed on; None when
    /// every write went through.
    pub(crate) fn message(&self) -> Option<String> {
        let failed: Vec<&str> = [
            (self.stdout, "standard output"),
            (self.reports, "the --reports file"),
            (self.summary, "the step summary (GITHUB_STEP_SUMMARY)"),
        ]
        .into_iter()
        .filter_map(|(failed, name)| failed.then_some(name))
        .collect();
        (!failed.is_empty())
            .then(|| format!("a write failed, so this output is incomplete: {}", failed.join(", ")))
    }
}
