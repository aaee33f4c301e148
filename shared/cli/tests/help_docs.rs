//! `docs/cli.md` shows the command's help as the binary prints it: every block that starts
//! `$ payability <args>` is that invocation's output, byte for byte, and every subcommand
//! the help lists has its block.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// Each `$ payability <args>` block of the page: (args, the text shown under it).
fn documented_blocks() -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cli.md");
    let doc = std::fs::read_to_string(&path).expect("docs/cli.md is readable");
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
