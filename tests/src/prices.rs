//! The dollar amounts a text states, for the tests that hold every stated price (the criteria
//! text, the web page, the documents) to the one constant.

/// Every dollar amount in `text`: `$`, then digits with a decimal point (`$0.01`, `$1.00`;
/// not `$1`, `$.5` or `$API`), a sentence's closing full stop left out.
pub fn dollar_amounts(text: &str) -> Vec<&str> {
    let amount = |at: usize| {
        let digits = text[at + 1..]
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .map_or(&text[at + 1..], |end| &text[at + 1..at + 1 + end])
            .trim_end_matches('.');
        let is_amount = digits.starts_with(|c: char| c.is_ascii_digit()) && digits.contains('.');
        is_amount.then(|| &text[at..=at + digits.len()])
    };
    text.match_indices('$').filter_map(|(at, _)| amount(at)).collect()
}

#[cfg(test)]
mod tests {
    use super::dollar_amounts;

    #[test]
    fn only_amounts_with_a_decimal_point_are_amounts() {
        let cases: [(&str, &[&str]); 4] = [
            ("$0.01. $1.00, $1 $API $.5 a$", &["$0.01", "$1.00"]),
            ("pay $0.000001 or $12.5", &["$0.000001", "$12.5"]),
            ("no price here", &[]),
            ("$", &[]),
        ];
        for (text, expected) in cases {
            assert_eq!(dollar_amounts(text), expected, "{text}");
        }
    }
}
