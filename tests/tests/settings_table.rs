//! The operators' configuration table (docs/operators.md) is the settings table
//! (`payability_runtime::settings`):
//! generated from it and held equal here, so no variable is missing, extra or given another
//! default, purpose, reader or parser rule. On a change, paste the block this test prints.

use std::path::Path;

use payability_runtime::settings::{self, TABLE, WhenUnset};

/// The lines around the generated block.
const BEGIN: &str = "<!-- settings table: generated from shared/runtime/src/settings; \
                     `cargo test -p payability-tests --test integration settings_table::` prints it -->";
const END: &str = "<!-- end of the settings table -->";

/// The page that holds the table.
const PAGE: &str = "docs/operators.md";

fn page() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(PAGE);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The page's block between the markers.
fn page_block(page: &str) -> &str {
    let begin = page.find(BEGIN).unwrap_or_else(|| panic!("{PAGE} has no line {BEGIN}"));
    let rest = &page[begin + BEGIN.len()..];
    let end = rest.find(END).unwrap_or_else(|| panic!("{PAGE} has no line {END}"));
    rest[..end].trim_matches('\n')
}

#[test]
fn the_operators_configuration_table_is_generated_from_the_settings_table() {
    let page = page();
    let generated = settings::markdown_table();
    let found = page_block(&page);
    assert!(
        found == generated.trim_end(),
        "{PAGE}'s settings table differs from the code's; paste this between its markers:\n\
         {BEGIN}\n{generated}{END}"
    );
}

#[test]
fn each_variable_is_one_row_with_its_default() {
    let page = page();
    let rows: Vec<&str> = page_block(&page).lines().skip(2).collect();
    assert_eq!(rows.len(), TABLE.len(), "one row per variable, none extra");
    for (row, setting) in rows.iter().zip(TABLE) {
        let cells: Vec<&str> = row.split(" | ").collect();
        assert_eq!(cells[0], format!("| `{}`", setting.name), "rows in the table's order");
        let default = match setting.default {
            WhenUnset::Value(value) => format!("`{value}`"),
            WhenUnset::Means(words) => words.to_owned(),
        };
        assert_eq!(cells[3], default, "{}: its default", setting.name);
    }
    let listed = page.matches("| `PAYABILITY_").count();
    assert_eq!(listed, TABLE.len(), "no other table of the page lists a variable");
}
