//! What one verdict costs: USDC on Solana, and the price in its base units, stated once here;
//! every text states it through [`price_usd`].

/// USDC mint on Solana mainnet.
pub const USDC_MINT: &str = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
/// The price of one verdict in USDC base units: the one place it is stated ([`price_usd`]).
pub const PRICE_USDC_UNITS: u64 = 10_000;

/// USDC base units (6 decimals) as dollars without `$`: at least two decimals, no more than needed.
pub fn usd_amount(units: u64) -> String {
    let micros = format!("{:06}", units % 1_000_000);
    let fraction = micros.trim_end_matches('0');
    let fraction = if fraction.len() < 2 { &micros[..2] } else { fraction };
    format!("{}.{fraction}", units / 1_000_000)
}

/// The price as every text states it: `$` and the [`usd_amount`] of [`PRICE_USDC_UNITS`].
pub fn price_usd() -> String {
    format!("${}", usd_amount(PRICE_USDC_UNITS))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (USDC base units, the dollars every text states them in).
    #[test]
    fn usd_amounts_have_at_least_two_decimals_and_no_trailing_zero_beyond() {
        let vectors = [
            (10_000, "0.01"),
            (1, "0.000001"),
            (0, "0.00"),
            (500, "0.0005"),
            (100_000, "0.10"),
            (1_000_000, "1.00"),
            (1_234_567, "1.234567"),
            (12_300_000, "12.30"),
            (25_000_000_000, "25000.00"),
        ];
        for (units, usd) in vectors {
            assert_eq!(usd_amount(units), usd, "{units}");
        }
    }

    #[test]
    fn the_dollar_price_reads_back_as_the_constant() {
        let price = price_usd();
        let (dollars, fraction) =
            price.strip_prefix('$').and_then(|usd| usd.split_once('.')).expect("$<d>.<d>");
        let micros: u64 = format!("{fraction:0<6}").parse().unwrap();
        assert_eq!(dollars.parse::<u64>().unwrap() * 1_000_000 + micros, PRICE_USDC_UNITS);
    }
}
