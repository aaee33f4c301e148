//! `docs/cli.md` shows the command's help as the binary prints it: every block that starts
//! `$ payability <args>` is that invocation's output, byte for byte, and every subcommand
//! the help lists has its block. The command lines `docs/cli.md` and `docs/ci.md` show use
//! only flags their subcommand's help lists, and `docs/ci.md`'s workflows give the action only
//! the inputs `action.yml` declares and read only its outputs.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// A file of the repository, by its path from the root.
fn repository_file(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{path} is readable: {e}"))
}

/// Each `$ payability <args>` block of the page: (args, the text shown under it).
fn documented_blocks() -> Vec<(String, String)> {
    let doc = repository_file("docs/cli.md");
    let mut blocks = Vec::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        if line != "```text" {
            continue;
        }
        let block: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
        if let Some(args) = block.first().and_then(|first| first.strip_prefix("$ payability ")) {
            let shown: String = block[1..].iter().map(|l| format!("{l}\n")).collect();
            blocks.push((args.to_owned(), shown));
        }
    }
    blocks
}

/// The subcommands a help text lists under `Commands:` (its `help` entry aside).
fn listed_commands(help: &str) -> Vec<&str> {
    help.lines()
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .collect()
}

#[test]
fn every_help_block_is_what_the_binary_prints() {
    let blocks = documented_blocks();
    assert!(blocks.len() > 1, "docs/cli.md shows no help block");
    for (args, shown) in &blocks {
        let output = Command::new(env!("CARGO_BIN_EXE_payability"))
            .args(args.split_whitespace())
            .env_remove("NO_COLOR")
            .output()
            .expect("payability runs");
        assert!(output.status.success(), "payability {args} failed");
        let printed = String::from_utf8(output.stdout).expect("help is UTF-8");
        assert_eq!(&printed, shown, "docs/cli.md's `$ payability {args}` block is not the help");
    }
}

#[test]
fn every_listed_subcommand_has_its_help_block() {
    let blocks = documented_blocks();
    let documented: BTreeSet<&str> = blocks.iter().map(|(args, _)| args.as_str()).collect();
    assert!(documented.contains("--help"), "docs/cli.md does not show `payability --help`");
    let mut missing = Vec::new();
    for (args, shown) in &blocks {
        let prefix = args.strip_suffix("--help").expect("help blocks end in --help");
        for command in listed_commands(shown) {
            let wanted = format!("{prefix}{command} --help");
            if !documented.contains(wanted.as_str()) {
                missing.push(wanted);
            }
        }
    }
    assert!(missing.is_empty(), "docs/cli.md lacks the help of: {missing:?}");
}

/// The help the binary prints for `payability <subcommands...> --help`.
fn help_of(subcommands: &[String]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_payability"))
        .args(subcommands)
        .arg("--help")
        .output()
        .expect("payability runs");
    assert!(output.status.success(), "payability {subcommands:?} --help failed");
    String::from_utf8(output.stdout).expect("help is UTF-8")
}

/// Each `payability <subcommand> ...` line a page shows in its code, with a continued line
/// joined: (its words before any comment).
fn shown_command_lines(doc: &str) -> Vec<Vec<String>> {
    let joined = doc.replace("\\\n", " ");
    joined
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("payability "))
        .map(|rest| {
            let words = rest.split('#').next().unwrap_or_default().split_whitespace();
            words.map(str::to_owned).collect::<Vec<_>>()
        })
        .filter(|words| words.first().is_some_and(|w| !w.starts_with('-')))
        .collect()
}

/// The names a top-level `section:` of `action.yml` declares (its two-space-indented keys).
fn action_section(action: &str, section: &str) -> BTreeSet<String> {
    action
        .lines()
        .skip_while(|line| *line != format!("{section}:"))
        .skip(1)
        .take_while(|line| line.starts_with(' ') || line.is_empty())
        .filter_map(|line| line.strip_prefix("  ")?.strip_suffix(':'))
        .filter(|name| !name.starts_with(' '))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_command_lines_the_docs_show_use_only_flags_the_help_lists() {
    let mut unknown = Vec::new();
    let mut shown = 0;
    for page in ["docs/cli.md", "docs/ci.md"] {
        for words in shown_command_lines(&repository_file(page)) {
            // The subcommand path: each next word the help lists under `Commands:`.
            let mut path = vec![words[0].clone()];
            let mut help = help_of(&path);
            for word in &words[1..] {
                if !listed_commands(&help).contains(&word.as_str()) {
                    break;
                }
                path.push(word.clone());
                help = help_of(&path);
            }
            for word in words.iter().filter(|w| w.starts_with("--")) {
                let flag = word.split('=').next().unwrap_or(word);
                shown += 1;
                if !help.contains(&format!("{flag} ")) && !help.contains(&format!("{flag}\n")) {
                    unknown.push(format!("{page}: payability {} {flag}", path.join(" ")));
                }
            }
        }
    }
    assert!(shown > 10, "the docs show command lines with flags ({shown} found)");
    assert!(unknown.is_empty(), "flags the help does not list: {unknown:#?}");
}

#[test]
fn the_workflows_of_docs_ci_use_only_the_actions_inputs_and_outputs() {
    let action = repository_file("action.yml");
    let (inputs, outputs) = (action_section(&action, "inputs"), action_section(&action, "outputs"));
    assert!(inputs.contains("urls") && outputs.contains("exit-code"), "{inputs:?} {outputs:?}");
    let doc = repository_file("docs/ci.md");
    let mut wrong = Vec::new();
    let mut lines = doc.lines().peekable();
    let mut given = 0;
    while let Some(line) = lines.next() {
        if !line.contains("uses: payability-verdict/payability-verdict@") {
            continue;
        }
        // The step's `with:` block: the keys indented deeper than `with:` itself.
        while let Some(next) = lines.next_if(|l| !l.trim_start().starts_with("- ")) {
            if next.trim() != "with:" {
                continue;
            }
            let depth = next.len() - next.trim_start().len();
            while let Some(key_line) =
                lines.next_if(|l| l.len() - l.trim_start().len() > depth || l.trim().is_empty())
            {
                let key = key_line.trim().split(':').next().unwrap_or_default();
                let is_key = key_line.len() - key_line.trim_start().len() == depth + 2
                    && !key.is_empty()
                    && key.chars().all(|c| c.is_ascii_lowercase() || c == '-');
                if is_key {
                    given += 1;
                    if !inputs.contains(key) {
                        wrong.push(format!("input {key}"));
                    }
                }
            }
        }
    }
    for (at, _) in doc.match_indices(".outputs.") {
        let name: String = doc[at + ".outputs.".len()..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '-')
            .collect();
        if !outputs.contains(&name) {
            wrong.push(format!("output {name}"));
        }
    }
    assert!(given > 3, "docs/ci.md gives the action inputs ({given} found)");
    assert!(wrong.is_empty(), "docs/ci.md names what action.yml does not declare: {wrong:?}");
}
