//! How a report's factors are laid out for a person: the legs, in print order, and the leg of
//! every factor of each op, in the report contract's order. The command line's text view prints
//! reports by it, and `/criteria` publishes it (`report_layout`) for the web page and any other
//! viewer; a factor it does not name (a later revision's) goes under [`Group::Other`].

/// A leg of the layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// What the fetch itself gave.
    Fetch,
    /// The JSON body's `accepts[0]`.
    Body,
    /// The `PAYMENT-REQUIRED` header.
    Header,
    /// The two legs compared.
    Equality,
    /// The memo op's completion rules.
    Completion,
    /// Any factor this layout does not name.
    Other,
}

impl Group {
    /// Every leg, in print order.
    pub const ALL: [Group; 6] =
        [Self::Fetch, Self::Body, Self::Header, Self::Equality, Self::Completion, Self::Other];

    /// The leg's heading.
    pub fn heading(self) -> &'static str {
        match self {
            Self::Fetch => "fetch",
            Self::Body => "body leg",
            Self::Header => "header leg",
            Self::Equality => "equality",
            Self::Completion => "completion",
            Self::Other => "other",
        }
    }
}

/// Check factors in the report contract's order, each with its leg.
pub const CHECK_FACTORS: [(&str, Group); 21] = [
    ("fetch_ok", Group::Fetch),
    ("status", Group::Fetch),
    ("body_over_cap", Group::Fetch),
    ("reason", Group::Fetch),
    ("body_parseable", Group::Body),
    ("body_leg_present", Group::Body),
    ("header_present", Group::Header),
    ("header_over_cap", Group::Header),
    ("header_decodable", Group::Header),
    ("recipient_present", Group::Body),
    ("token_account_present", Group::Body),
    ("memo_present", Group::Body),
    ("amounts_present", Group::Body),
    ("amounts_consistent", Group::Equality),
    ("resource_present", Group::Body),
    ("resource_equal", Group::Equality),
    ("memo_equal", Group::Equality),
    ("amount_equal", Group::Equality),
    ("pay_to_equal", Group::Equality),
    ("description_overlong", Group::Body),
    ("description_length", Group::Body),
];

/// Memo factors of each fetch (`factors.fetches[i]`), in contract order, each with its leg.
pub const MEMO_FETCH_FACTORS: [(&str, Group); 11] = [
    ("fetch_ok", Group::Fetch),
    ("status", Group::Fetch),
    ("is_402", Group::Fetch),
    ("body_over_cap", Group::Fetch),
    ("body_parseable", Group::Body),
    ("body_leg_present", Group::Body),
    ("header_present", Group::Header),
    ("header_over_cap", Group::Header),
    ("header_decodable", Group::Header),
    ("body_memo_present", Group::Body),
    ("header_memo_present", Group::Header),
];

/// Memo factors of the pair, in contract order, each with its leg (`correlation_census` is laid
/// out by fetch and leg: its `body` names under the body leg, its `header` names under the
/// header leg; `fetches` holds the per-fetch factors).
pub const MEMO_PAIR_FACTORS: [(&str, Group); 11] = [
    ("memo_equality_fetch1", Group::Equality),
    ("memo_equality_fetch2", Group::Equality),
    ("body_memos_unique", Group::Body),
    ("header_memos_unique", Group::Header),
    ("body_freshness_class", Group::Body),
    ("header_freshness_class", Group::Header),
    ("body_memo_format_fetch1", Group::Body),
    ("body_memo_format_fetch2", Group::Body),
    ("header_memo_format_fetch1", Group::Header),
    ("header_memo_format_fetch2", Group::Header),
    ("reason", Group::Completion),
];
