//! A test that runs itself again in a child process (a fresh environment, several processes
//! on one file) names itself to the test binary's harness by its full path.

/// The name the harness gives the test `function` of the module whose `module_path!()` is
/// `module_path`: that path less the crate's own name, then the function
/// (`paid_flow::basics::x` for `x` in `integration::paid_flow::basics`).
pub fn test_name(module_path: &str, function: &str) -> String {
    match module_path.split_once("::") {
        Some((_, module)) => format!("{module}::{function}"),
        None => function.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::test_name;

    #[test]
    fn the_crate_name_is_left_out() {
        let cases = [
            ("integration::http_clients", "a", "http_clients::a"),
            ("integration::paid_flow::soak", "b", "paid_flow::soak::b"),
            ("integration", "c", "c"),
        ];
        for (module, function, expected) in cases {
            assert_eq!(test_name(module, function), expected);
        }
    }
}
