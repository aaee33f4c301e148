//! The documentation against the code: the route, error and target-URL policy tables of
//! `docs/api.md` name exactly what the code answers (no route, rule or refusal missing, none
//! retired), every relative link in `README.md` and `docs/*.md` reaches a file (and its
//! heading, when the link names one), and every price they state is the price.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use payability_core::doctor::{CheckId, LIST_REVISION};
use payability_core::policy::PolicyRefusal;
use payability_core::price::{PRICE_USDC_UNITS, price_usd};
use payability_runtime::routes::Route;
use payability_runtime::rules::{ApiError, Refusal};
use payability_tests::prices::dollar_amounts;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The lines of `doc` outside fenced code blocks.
fn prose_lines(doc: &str) -> Vec<&str> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for line in doc.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            lines.push(line);
        }
    }
    lines
}

/// The body rows (cells trimmed) of the first table after the `## <heading>` line of
/// docs/api.md.
fn table_under(doc: &str, heading: &str) -> Vec<Vec<String>> {
    let lines = prose_lines(doc);
    let start = lines
        .iter()
        .position(|line| *line == format!("## {heading}"))
        .unwrap_or_else(|| panic!("no heading \"## {heading}\""));
    let table: Vec<&str> = lines[start + 1..]
        .iter()
        .take_while(|line| !line.starts_with("## "))
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .copied()
        .collect();
    assert!(table.len() > 2, "no table under \"## {heading}\"");
    let cells =
        |line: &str| line.trim_matches('|').split('|').map(|c| c.trim().to_owned()).collect();
    table[2..].iter().map(|line| cells(line)).collect()
}

/// The code spans of a cell, in order.
fn code_spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// The rule id of a cell that is exactly one code span (other cells describe a family).
fn rule_cell(cell: &str) -> Option<&str> {
    let spans = code_spans(cell);
    (spans.len() == 1 && cell == format!("`{}`", spans[0])).then(|| spans[0])
}

fn api_md() -> String {
    read(&workspace_root().join("docs/api.md"))
}

#[test]
fn the_route_table_names_every_route_and_method_and_no_other() {
    let doc = api_md();
    let mut listed = BTreeSet::new();
    for row in table_under(&doc, "Routes") {
        for span in code_spans(&row[0]) {
            if let Some((method, target)) = span.split_once(' ') {
                let path = target.split('?').next().expect("split yields one part");
                listed.insert((method.to_owned(), path.to_owned()));
            }
        }
    }
    let answered: BTreeSet<(String, String)> = Route::ALL
        .into_iter()
        .flat_map(|route| {
            route.methods().iter().map(move |m| (m.as_str().to_owned(), route.path().to_owned()))
        })
        .collect();
    let missing: Vec<_> = answered.difference(&listed).collect();
    let retired: Vec<_> = listed.difference(&answered).collect();
    assert!(missing.is_empty(), "docs/api.md's route table misses {missing:?}");
    assert!(
        retired.is_empty(),
        "docs/api.md's route table names routes the code lacks: {retired:?}"
    );
}

#[test]
fn the_error_table_is_the_closed_list_with_each_status() {
    let doc = api_md();
    let listed: BTreeSet<(u16, String)> = table_under(&doc, "Errors")
        .iter()
        .filter_map(|row| {
            let rule = rule_cell(&row[1])?;
            let status = row[0].parse().unwrap_or_else(|_| panic!("status {:?} of {rule}", row[0]));
            Some((status, rule.to_owned()))
        })
        .collect();
    // The policy refusals are the policy table's; the facilitator's codes are one family row.
    let errors = ApiError::all()
        .into_iter()
        .filter(|error| !matches!(error, ApiError::UrlRefused(_)))
        .map(|error| (error.status().as_u16(), error.rule().to_owned()));
    let refusals = Refusal::all()
        .into_iter()
        .filter(|refusal| !matches!(refusal, Refusal::NotVerified(Some(_))))
        .map(|refusal| (402, refusal.rule().to_owned()));
    let answered: BTreeSet<(u16, String)> = errors.chain(refusals).collect();
    let missing: Vec<_> = answered.difference(&listed).collect();
    let retired: Vec<_> = listed.difference(&answered).collect();
    assert!(missing.is_empty(), "docs/api.md's error table misses (status, rule) {missing:?}");
    assert!(retired.is_empty(), "docs/api.md's error table names what the code lacks: {retired:?}");
}

#[test]
fn the_policy_table_is_every_policy_refusal() {
    let doc = api_md();
    let listed: BTreeSet<String> = table_under(&doc, "The target-URL policy")
        .iter()
        .map(|row| {
            rule_cell(&row[0]).unwrap_or_else(|| panic!("not a rule: {}", row[0])).to_owned()
        })
        .collect();
    let refused: BTreeSet<String> =
        PolicyRefusal::ALL.iter().map(|refusal| refusal.rule().to_owned()).collect();
    assert_eq!(listed, refused, "docs/api.md's policy table against PolicyRefusal::ALL");
}

/// The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The targets of the inline links `[text](target)` in a document's prose.
fn link_targets(doc: &str) -> Vec<String> {
    let mut targets = Vec::new();
    for line in prose_lines(doc) {
        for (at, _) in line.match_indices("](") {
            let rest = &line[at + 2..];
            if let Some(end) = rest.find(')') {
                targets.push(rest[..end].to_owned());
            }
        }
    }
    targets
}

#[test]
fn every_relative_link_in_the_readme_and_docs_resolves() {
    let root = workspace_root();
    let mut documents = vec![root.join("README.md")];
    for entry in fs::read_dir(root.join("docs")).expect("docs/ is a directory") {
        let path = entry.expect("docs/ is readable").path();
        if path.extension().is_some_and(|ext| ext == "md") {
            documents.push(path);
        }
    }
    let mut broken = Vec::new();
    let mut checked = 0;
    for document in &documents {
        let doc = read(document);
        for target in link_targets(&doc) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, fragment) = target.split_once('#').unwrap_or((&target, ""));
            let path = if file.is_empty() {
                document.clone()
            } else {
                document.parent().expect("a document has a folder").join(file)
            };
            checked += 1;
            let name = format!("{} -> {target}", document.strip_prefix(&root).unwrap().display());
            if !path.exists() {
                broken.push(format!("{name}: no such file"));
            } else if !fragment.is_empty() {
                let headings: Vec<String> = prose_lines(&read(&path))
                    .iter()
                    .filter(|line| line.starts_with('#'))
                    .map(|line| anchor(line.trim_start_matches('#')))
                    .collect();
                if !headings.contains(&fragment.to_owned()) {
                    broken.push(format!("{name}: no such heading"));
                }
            }
        }
    }
    assert!(checked > 20, "only {checked} relative links found: is the link parser broken?");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_anchor_of_a_heading_is_githubs() {
    let cases = [
        (
            "Signing keys: publishing, verifying, rotating",
            "signing-keys-publishing-verifying-rotating",
        ),
        ("`payability serve`", "payability-serve"),
        ("The target-URL policy", "the-target-url-policy"),
        (
            "Express and Hono (`@x402/express`, `@x402/hono` 2.27.0)",
            "express-and-hono-x402express-x402hono-2270",
        ),
    ];
    for (heading, expected) in cases {
        assert_eq!(anchor(heading), expected, "{heading}");
    }
}

/// Dollar amounts the documents state that are not this service's price, per document: the
/// AWS list prices and per-request costs of the operators' cost table, and the price of the
/// example seller the sellers' guide configures.
const NOT_THE_PRICE: [(&str, &[&str]); 2] = [
    (
        "docs/operators.md",
        &[
            "$0.0000133334",
            "$0.20",
            "$1.00",
            "$0.625",
            "$0.125",
            "$0.0000100",
            "$0.0000167",
            "$0.0000004",
            "$0.0000020",
            "$0.0000056",
            "$0.0000003",
            "$0.000019",
            "$0.000026",
            "$0.40",
        ],
    ),
    ("docs/sellers.md", &["$0.01"]),
];

/// Every number written just before "USDC units", "USDC base units" or "base units" in
/// `text`, as written (digits and commas).
fn unit_amounts(text: &str) -> Vec<&str> {
    let number = |at: usize| {
        let before = &text[..at];
        let before = before.strip_suffix(" base").unwrap_or(before);
        let before = before.strip_suffix(" USDC").unwrap_or(before);
        let digits = before.trim_end_matches(|c: char| c.is_ascii_digit() || c == ',');
        (digits.len() < before.len()).then(|| &before[digits.len()..])
    };
    text.match_indices(" units").filter_map(|(at, _)| number(at)).collect()
}

#[test]
fn every_price_the_readme_and_docs_state_is_the_price() {
    let root = workspace_root();
    let mut documents = vec![root.join("README.md")];
    let docs = fs::read_dir(root.join("docs")).expect("docs/ is listable");
    documents.extend(
        docs.map(|entry| entry.expect("a docs/ entry").path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "md")),
    );
    let (price, mut stated, mut wrong) = (price_usd(), 0, Vec::new());
    for path in documents {
        let name = path.strip_prefix(&root).expect("under the root").to_string_lossy().into_owned();
        let others = NOT_THE_PRICE.iter().find(|(doc, _)| *doc == name).map_or(&[][..], |e| e.1);
        let text = read(&path);
        for amount in dollar_amounts(&text).into_iter().filter(|a| !others.contains(a)) {
            stated += 1;
            if amount != price {
                wrong.push(format!("{name}: {amount}"));
            }
        }
        for units in unit_amounts(&text) {
            stated += 1;
            if units.replace(',', "").parse() != Ok(PRICE_USDC_UNITS) {
                wrong.push(format!("{name}: {units} units"));
            }
        }
    }
    assert!(stated > 10, "the documents state the price ({stated} mentions found)");
    assert!(
        wrong.is_empty(),
        "the price is {price} ({PRICE_USDC_UNITS} USDC units), but these state another (a \
         dollar amount that is not the price belongs in NOT_THE_PRICE): {wrong:#?}"
    );
    assert_eq!(
        unit_amounts("(10000 USDC units) 10,000 base units; 9 write units"),
        ["10000", "10,000"]
    );
}

#[test]
fn the_doctor_page_lists_every_check_with_its_level_scope_and_sentence_and_a_fix_for_each() {
    let doc = read(&workspace_root().join("docs/doctor.md"));
    let rows = table_under(&doc, &format!("The checks ({LIST_REVISION})"));
    let want: Vec<Vec<String>> = CheckId::ALL
        .into_iter()
        .map(|id| {
            let check = id.check();
            vec![
                format!("[`{0}`](#{0})", id.as_str()),
                check.level.as_str().to_owned(),
                check.applies.describe(),
                check.sentence.to_owned(),
            ]
        })
        .collect();
    assert_eq!(rows, want, "docs/doctor.md's table is not the list");
    let sections: Vec<&str> =
        prose_lines(&doc).into_iter().filter_map(|line| line.strip_prefix("### ")).collect();
    let ids: Vec<&str> = CheckId::ALL.into_iter().map(CheckId::as_str).collect();
    assert_eq!(
        sections, ids,
        "docs/doctor.md needs one fix section per check, in the list's order"
    );
    assert!(
        doc.contains(&format!("- `{LIST_REVISION}`:")),
        "docs/doctor.md's changelog has no line for {LIST_REVISION}"
    );
}
