//! Every `PAYABILITY_*` variable, in one table ([`TABLE`]): each stated once with what it is
//! for, its default, who reads it and its parser. [`Settings::from_env`] reads a process's
//! variables once, through those parsers; a bad value stops it with one line naming the
//! variable and what it expects, never the value. The parity test holds `template.yaml` to
//! the table and the operators' configuration table (docs/operators.md) is generated from it
//! ([`markdown_table`]).

pub mod keys;
mod parse;

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use payability_core::criteria::SigningKeyEntry;
use payability_core::payment::solana::Base58Id;
use payability_core::policy::AddressRule;
use payability_core::signing::PublicKeyDescriptor;

pub use keys::KeyPublication;
pub use parse::StoreSetting;

/// Who reads a variable: `payability serve`, the other CLI commands, or a Lambda function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// `payability serve`.
    Serve,
    /// The other `payability` commands (`check`, `memo`, `verify`, `criteria`, `ledger`).
    Cli,
    /// The criteria function (the free documents).
    Criteria,
    /// The precheck function.
    Precheck,
    /// The check function.
    Check,
    /// The memo function.
    Memo,
    /// The metrics function.
    Metrics,
    /// The MCP function (every tool: what precheck, check and memo read).
    Mcp,
    /// The A2A function (every skill: what precheck, check and memo read).
    A2a,
}

impl Reader {
    /// Every reader, in the table's order.
    pub const ALL: [Reader; 9] = [
        Reader::Serve,
        Reader::Cli,
        Reader::Criteria,
        Reader::Precheck,
        Reader::Check,
        Reader::Memo,
        Reader::Metrics,
        Reader::Mcp,
        Reader::A2a,
    ];

    /// The Lambda function binary this reader is (`template.yaml`'s `Binary`), if it is one.
    pub fn function(self) -> Option<&'static str> {
        match self {
            Self::Serve | Self::Cli => None,
            Self::Criteria => Some("criteria"),
            Self::Precheck => Some("precheck"),
            Self::Check => Some("check"),
            Self::Memo => Some("memo"),
            Self::Metrics => Some("metrics"),
            Self::Mcp => Some("mcp"),
            Self::A2a => Some("a2a"),
        }
    }

    /// The reader that is the Lambda function binary `binary`.
    pub fn of_function(binary: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|reader| reader.function() == Some(binary))
    }
}

/// Whether `template.yaml` sets a variable on the functions that read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deployed {
    /// The template sets it on exactly the functions that read it.
    Template,
    /// Never set by the template, for this reason (local runs and tests only).
    Never(&'static str),
}

/// What an unset (or empty) variable means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenUnset {
    /// This value, read by the variable's parser.
    Value(&'static str),
    /// No value; what that means, in words.
    Means(&'static str),
}

/// One row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    /// The variable's name.
    pub name: &'static str,
    /// What it is for, in one line.
    pub purpose: &'static str,
    /// What its parser accepts, in words.
    pub value: &'static str,
    /// What unset means.
    pub default: WhenUnset,
    /// Who reads it.
    pub readers: &'static [Reader],
    /// Whether the template sets it.
    pub deployed: Deployed,
}

impl Setting {
    /// True when `reader` reads this variable.
    pub fn read_by(&self, reader: Reader) -> bool {
        self.readers.contains(&reader)
    }
}

/// A row with its parser: the one rule for this variable's values.
pub struct Var<T: 'static> {
    /// The row.
    pub about: Setting,
    /// Its parser: the value, or the problem in static words (never the value).
    parse: fn(&OsStr) -> Result<T, &'static str>,
}

/// A variable that is missing or malformed: its name and what is wrong, in static words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettingError {
    /// The variable.
    pub variable: &'static str,
    /// What is wrong.
    pub problem: &'static str,
}

impl std::fmt::Display for SettingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "configuration: {} {}", self.variable, self.problem)
    }
}

impl std::error::Error for SettingError {}

/// How a variable's value is looked up (the process environment, or a list in tests).
pub type Lookup<'a> = &'a dyn Fn(&'static str) -> Option<OsString>;

/// The process environment.
fn environment(name: &'static str) -> Option<OsString> {
    std::env::var_os(name)
}

impl<T: 'static> Var<T> {
    /// The variable's name.
    pub const fn name(&self) -> &'static str {
        self.about.name
    }

    /// The error of this variable when a value it needs is not set.
    pub const fn unset(&self) -> SettingError {
        SettingError { variable: self.about.name, problem: "is not set" }
    }

    /// Parses a value as the variable holds it; unset or empty is None.
    fn parse_value(&self, value: Option<&OsStr>) -> Result<Option<T>, SettingError> {
        let Some(value) = value.filter(|v| !v.is_empty()) else { return Ok(None) };
        let problem = |problem| SettingError { variable: self.about.name, problem };
        (self.parse)(value).map(Some).map_err(problem)
    }

    /// Parses a value given as text (tests and callers holding the text); None is unset.
    pub fn parse_text(&self, value: Option<&str>) -> Result<Option<T>, SettingError> {
        self.parse_value(value.map(OsStr::new))
    }

    /// Reads the variable through `lookup`: None when unset or empty.
    pub fn read(&self, lookup: Lookup<'_>) -> Result<Option<T>, SettingError> {
        self.parse_value(lookup(self.about.name).as_deref())
    }

    /// Reads the variable from the process environment: None when unset or empty.
    pub fn from_env(&self) -> Result<Option<T>, SettingError> {
        self.read(&environment)
    }

    /// Reads the variable, else its default value ([`WhenUnset::Value`]); a variable whose
    /// default is not a value is None when unset.
    fn read_or_default(&self, lookup: Lookup<'_>) -> Result<Option<T>, SettingError> {
        match (self.read(lookup)?, self.about.default) {
            (Some(value), _) => Ok(Some(value)),
            (None, WhenUnset::Value(default)) => self.parse_text(Some(default)),
            (None, WhenUnset::Means(_)) => Ok(None),
        }
    }
}

impl Var<AddressRule> {
    /// The address rule from the environment (the CLI's `check` and `memo`).
    pub fn rule_from_env(&self) -> Result<AddressRule, SettingError> {
        Ok(self.read_or_default(&environment)?.unwrap_or(AddressRule::PublicOnly))
    }
}

/// Serve and the functions that build the whole service.
const SERVICE: &[Reader] =
    &[Reader::Serve, Reader::Precheck, Reader::Check, Reader::Memo, Reader::Mcp, Reader::A2a];
/// Serve and the functions that take house checks.
const HOUSE: &[Reader] = &[Reader::Serve, Reader::Check, Reader::Memo, Reader::Mcp, Reader::A2a];
/// Everything that opens the store.
const STORE_READERS: &[Reader] = &[
    Reader::Serve,
    Reader::Cli,
    Reader::Precheck,
    Reader::Check,
    Reader::Memo,
    Reader::Metrics,
    Reader::Mcp,
    Reader::A2a,
];
/// Everything that fetches a target or signs locally.
const LOCAL: &[Reader] = &[
    Reader::Serve,
    Reader::Cli,
    Reader::Precheck,
    Reader::Check,
    Reader::Memo,
    Reader::Mcp,
    Reader::A2a,
];
/// Everything that publishes the keys or checks the seed against the pinned key.
const PINNED: &[Reader] = &[
    Reader::Serve,
    Reader::Criteria,
    Reader::Precheck,
    Reader::Check,
    Reader::Memo,
    Reader::Mcp,
    Reader::A2a,
];
/// What publishes the key history: the criteria document, from `/criteria`, the MCP criteria
/// tool and the A2A criteria skill.
const PUBLISHING: &[Reader] = &[Reader::Serve, Reader::Criteria, Reader::Mcp, Reader::A2a];

/// The wallet that is paid.
pub const OPERATOR_WALLET: Var<Base58Id> = Var {
    about: Setting {
        name: "PAYABILITY_OPERATOR_WALLET",
        purpose: "the Solana wallet that is paid (`payTo` of every offer)",
        value: "a base58 Solana public key",
        default: WhenUnset::Means(
            "none: serve and the precheck, check, memo, mcp and a2a functions need it",
        ),
        readers: SERVICE,
        deployed: Deployed::Template,
    },
    parse: parse::wallet,
};

/// The x402 facilitator.
pub const FACILITATOR_URL: Var<String> = Var {
    about: Setting {
        name: "PAYABILITY_FACILITATOR_URL",
        purpose: "the x402 facilitator's base URL (`/supported`, `/verify`, `/settle`)",
        value: "an http(s) URL",
        default: WhenUnset::Means("none: the paid routes answer 503"),
        readers: SERVICE,
        deployed: Deployed::Template,
    },
    parse: parse::http_url,
};

/// The fee payer advertised when `/supported` cannot be read.
pub const FEE_PAYER: Var<Base58Id> = Var {
    about: Setting {
        name: "PAYABILITY_FEE_PAYER",
        purpose: "the fee payer to advertise when the facilitator's `/supported` cannot be read",
        value: "a base58 Solana public key",
        default: WhenUnset::Means("none: the paid routes answer 503 while `/supported` is unread"),
        readers: SERVICE,
        deployed: Deployed::Template,
    },
    parse: parse::wallet,
};

/// The Solana JSON-RPC endpoint.
pub const SOLANA_RPC_URL: Var<String> = Var {
    about: Setting {
        name: "PAYABILITY_SOLANA_RPC_URL",
        purpose: "Solana JSON-RPC: the ledger's fee, and whether a payment whose settlement \
                  answer was lost landed",
        value: "an http(s) URL",
        default: WhenUnset::Means(
            "none: no fee, and such a payment stays \
                                   `settlement_outcome_unknown`",
        ),
        readers: SERVICE,
        deployed: Deployed::Template,
    },
    parse: parse::http_url,
};

/// The API's public base URL.
pub const PUBLIC_BASE_URL: Var<String> = Var {
    about: Setting {
        name: "PAYABILITY_PUBLIC_BASE_URL",
        purpose: "the API's public origin and path prefix: `resource` and the discovery documents",
        value: "an http(s) URL with a host and no query, fragment or user",
        default: WhenUnset::Means(
            "serve: its own address; a function: the domain and stage \
                                   API Gateway reports for the request",
        ),
        readers: PINNED,
        deployed: Deployed::Template,
    },
    parse: parse::base_url,
};

/// The plain house token (local runs).
pub const HOUSE_TOKEN: Var<String> = Var {
    about: Setting {
        name: "PAYABILITY_HOUSE_TOKEN",
        purpose: "the house bearer token, locally (house checks skip payment)",
        value: "text",
        default: WhenUnset::Means("none: house checks are off unless the secret names one"),
        readers: HOUSE,
        deployed: Deployed::Never("the plain house token for local runs; on AWS it is a secret"),
    },
    parse: parse::text,
};

/// The house token's secret.
pub const HOUSE_TOKEN_SECRET_ARN: Var<String> = Var {
    about: Setting {
        name: "PAYABILITY_HOUSE_TOKEN_SECRET_ARN",
        purpose: "the Secrets Manager secret holding the house token, read once per cold start",
        value: "text (an ARN)",
        default: WhenUnset::Means("none: the plain house token, if any"),
        readers: HOUSE,
        deployed: Deployed::Template,
    },
    parse: parse::text,
};

/// The local signing key file.
pub const SIGNING_KEY_FILE: Var<PathBuf> = Var {
    about: Setting {
        name: "PAYABILITY_SIGNING_KEY_FILE",
        purpose: "the file holding the Ed25519 seed (64 hex digits, or base64 of 32 bytes)",
        value: "a path",
        default: WhenUnset::Means("`signing-key` under the data directory, generated on first use"),
        readers: LOCAL,
        deployed: Deployed::Never("a local key file; on AWS the seed is in Secrets Manager"),
    },
    parse: parse::path,
};

/// The signing seed's secret.
pub const SIGNING_KEY_SECRET_ARN: Var<String> = Var {
    about: Setting {
        name: "PAYABILITY_SIGNING_KEY_SECRET_ARN",
        purpose: "the Secrets Manager secret holding the Ed25519 seed, read once per cold start",
        value: "text (an ARN)",
        default: WhenUnset::Means("none: the local key file"),
        readers: SERVICE,
        deployed: Deployed::Template,
    },
    parse: parse::text,
};

/// The pinned public key.
pub const SIGNING_PUBLIC_KEY: Var<payability_core::signing::PublicKeyDescriptor> = Var {
    about: Setting {
        name: "PAYABILITY_SIGNING_PUBLIC_KEY",
        purpose: "the public key the seed must have (a process with another seed refuses to \
                  start); the criteria function publishes it without the seed",
        value: "a base64url Ed25519 public key (JWK `x`)",
        default: WhenUnset::Means("none: not pinned (the criteria function needs it)"),
        readers: PINNED,
        deployed: Deployed::Template,
    },
    parse: keys::public_key,
};

/// When the current key started signing.
pub const SIGNING_KEY_VALID_FROM: Var<String> = Var {
    about: Setting {
        name: "PAYABILITY_SIGNING_KEY_VALID_FROM",
        purpose: "when the current key started signing, published as its `valid_from`",
        value: "`YYYY-MM-DDTHH:MM:SS.mmmZ`",
        default: WhenUnset::Means("none: published without one"),
        readers: PUBLISHING,
        deployed: Deployed::Template,
    },
    parse: keys::valid_from,
};

/// The retired keys.
pub const PREVIOUS_SIGNING_KEYS: Var<Vec<payability_core::criteria::SigningKeyEntry>> = Var {
    about: Setting {
        name: "PAYABILITY_PREVIOUS_SIGNING_KEYS",
        purpose: "the retired keys `/criteria` keeps publishing, each with its window",
        value: "a JSON array of `{\"publicKey\", \"validFrom\"?, \"validUntil\"}`",
        default: WhenUnset::Means("none"),
        readers: PUBLISHING,
        deployed: Deployed::Template,
    },
    parse: keys::previous_keys,
};

/// Which store.
pub const STORE: Var<StoreSetting> = Var {
    about: Setting {
        name: "PAYABILITY_STORE",
        purpose: "the store: `dynamodb` (the five tables below), else the embedded SQLite file \
                  (`payability` only: a Lambda function links DynamoDB's store alone)",
        value: "`dynamodb` or a path",
        default: WhenUnset::Means(
            "`$XDG_DATA_HOME/payability/store.sqlite3`, else \
                                   `~/.local/share/payability/store.sqlite3`",
        ),
        readers: STORE_READERS,
        deployed: Deployed::Template,
    },
    parse: parse::store,
};

/// A DynamoDB table's row.
const fn table(name: &'static str, purpose: &'static str) -> Var<String> {
    Var {
        about: Setting {
            name,
            purpose,
            value: "text (a table name)",
            default: WhenUnset::Means("none: `PAYABILITY_STORE=dynamodb` needs it"),
            readers: STORE_READERS,
            deployed: Deployed::Template,
        },
        parse: parse::text,
    }
}

/// The ledger table.
pub const TABLE_LEDGER: Var<String> = table("PAYABILITY_TABLE_LEDGER", "the ledger's table");
/// The payment claims table.
pub const TABLE_PAYMENTS: Var<String> =
    table("PAYABILITY_TABLE_PAYMENTS", "the payment claims' table");
/// The free-tier counters table.
pub const TABLE_FREE_TIER: Var<String> =
    table("PAYABILITY_TABLE_FREE_TIER", "the free-tier counters' table");
/// The metrics counters table.
pub const TABLE_METRICS: Var<String> =
    table("PAYABILITY_TABLE_METRICS", "the metrics counters' table");
/// The USD/CAD rate cache table.
pub const TABLE_FX: Var<String> = table("PAYABILITY_TABLE_FX", "the USD/CAD rate cache's table");

/// The five table variables, in the store's order (ledger, payments, free tier, metrics, fx).
pub const TABLES: [&Var<String>; 5] =
    [&TABLE_LEDGER, &TABLE_PAYMENTS, &TABLE_FREE_TIER, &TABLE_METRICS, &TABLE_FX];

/// Whether targets may be private (local tests only).
pub const ALLOW_PRIVATE_TARGETS: Var<AddressRule> = Var {
    about: Setting {
        name: "PAYABILITY_ALLOW_PRIVATE_TARGETS",
        purpose: "`1` lets the fetcher reach loopback and private targets (local tests only)",
        value: "`0` or `1`",
        default: WhenUnset::Value("0"),
        readers: LOCAL,
        deployed: Deployed::Never(
            "lets fetches reach loopback and private addresses: local tests only",
        ),
    },
    parse: parse::address_rule,
};

/// The Bank of Canada Valet origin.
pub const BOC_VALET_ORIGIN: Var<String> = Var {
    about: Setting {
        name: "PAYABILITY_BOC_VALET_ORIGIN",
        purpose: "the Bank of Canada Valet origin for CAD rates (tests point it at loopback)",
        value: "an http(s) URL",
        default: WhenUnset::Value("https://www.bankofcanada.ca"),
        readers: &[
            Reader::Serve,
            Reader::Cli,
            Reader::Check,
            Reader::Memo,
            Reader::Mcp,
            Reader::A2a,
        ],
        deployed: Deployed::Never("a test stand-in for the Bank of Canada Valet origin"),
    },
    parse: parse::http_url,
};

/// The table: every variable, once.
pub const TABLE: [&Setting; 20] = [
    &OPERATOR_WALLET.about,
    &FACILITATOR_URL.about,
    &FEE_PAYER.about,
    &SOLANA_RPC_URL.about,
    &PUBLIC_BASE_URL.about,
    &HOUSE_TOKEN.about,
    &HOUSE_TOKEN_SECRET_ARN.about,
    &SIGNING_KEY_FILE.about,
    &SIGNING_KEY_SECRET_ARN.about,
    &SIGNING_PUBLIC_KEY.about,
    &SIGNING_KEY_VALID_FROM.about,
    &PREVIOUS_SIGNING_KEYS.about,
    &STORE.about,
    &TABLE_LEDGER.about,
    &TABLE_PAYMENTS.about,
    &TABLE_FREE_TIER.about,
    &TABLE_METRICS.about,
    &TABLE_FX.about,
    &ALLOW_PRIVATE_TARGETS.about,
    &BOC_VALET_ORIGIN.about,
];

/// Every variable one reader reads, parsed; a variable it does not read is unset here.
#[derive(Clone)]
pub struct Settings {
    /// [`OPERATOR_WALLET`].
    pub operator_wallet: Option<Base58Id>,
    /// [`FACILITATOR_URL`] (no trailing slash).
    pub facilitator_url: Option<String>,
    /// [`FEE_PAYER`].
    pub fee_payer: Option<Base58Id>,
    /// [`SOLANA_RPC_URL`] (no trailing slash).
    pub solana_rpc_url: Option<String>,
    /// [`PUBLIC_BASE_URL`] (no trailing slash).
    pub public_base_url: Option<String>,
    /// [`HOUSE_TOKEN`].
    pub house_token: Option<String>,
    /// [`HOUSE_TOKEN_SECRET_ARN`].
    pub house_token_secret_arn: Option<String>,
    /// [`SIGNING_KEY_FILE`].
    pub signing_key_file: Option<PathBuf>,
    /// [`SIGNING_KEY_SECRET_ARN`].
    pub signing_key_secret_arn: Option<String>,
    /// [`SIGNING_PUBLIC_KEY`], [`SIGNING_KEY_VALID_FROM`] and [`PREVIOUS_SIGNING_KEYS`].
    pub keys: KeyPublication,
    /// [`STORE`].
    pub store: Option<StoreSetting>,
    /// [`TABLES`], in their order.
    pub tables: [Option<String>; 5],
    /// [`ALLOW_PRIVATE_TARGETS`], else its default.
    pub address_rule: AddressRule,
    /// [`BOC_VALET_ORIGIN`], else its default.
    pub valet_origin: String,
}

impl Settings {
    /// Reads the variables `reader` reads from the process environment, once.
    pub fn from_env(reader: Reader) -> Result<Self, SettingError> {
        Self::from_lookup(reader, &environment)
    }

    /// Reads the variables `reader` reads through `lookup`, once each; no other is looked up.
    pub fn from_lookup(reader: Reader, lookup: Lookup<'_>) -> Result<Self, SettingError> {
        let unread: Lookup<'_> = &|_| None;
        let own =
            |var: &Setting| -> Lookup<'_> { if var.read_by(reader) { lookup } else { unread } };
        let [ledger, payments, free_tier, metrics, fx] = TABLES;
        Ok(Self {
            operator_wallet: OPERATOR_WALLET.read(own(&OPERATOR_WALLET.about))?,
            facilitator_url: FACILITATOR_URL.read(own(&FACILITATOR_URL.about))?,
            fee_payer: FEE_PAYER.read(own(&FEE_PAYER.about))?,
            solana_rpc_url: SOLANA_RPC_URL.read(own(&SOLANA_RPC_URL.about))?,
            public_base_url: PUBLIC_BASE_URL.read(own(&PUBLIC_BASE_URL.about))?,
            house_token: HOUSE_TOKEN.read(own(&HOUSE_TOKEN.about))?,
            house_token_secret_arn: HOUSE_TOKEN_SECRET_ARN
                .read(own(&HOUSE_TOKEN_SECRET_ARN.about))?,
            signing_key_file: SIGNING_KEY_FILE.read(own(&SIGNING_KEY_FILE.about))?,
            signing_key_secret_arn: SIGNING_KEY_SECRET_ARN
                .read(own(&SIGNING_KEY_SECRET_ARN.about))?,
            keys: key_publication(
                SIGNING_PUBLIC_KEY.read(own(&SIGNING_PUBLIC_KEY.about))?,
                SIGNING_KEY_VALID_FROM.read(own(&SIGNING_KEY_VALID_FROM.about))?,
                PREVIOUS_SIGNING_KEYS.read(own(&PREVIOUS_SIGNING_KEYS.about))?,
            )?,
            store: STORE.read(own(&STORE.about))?,
            tables: [
                ledger.read(own(&ledger.about))?,
                payments.read(own(&payments.about))?,
                free_tier.read(own(&free_tier.about))?,
                metrics.read(own(&metrics.about))?,
                fx.read(own(&fx.about))?,
            ],
            address_rule: ALLOW_PRIVATE_TARGETS
                .read_or_default(own(&ALLOW_PRIVATE_TARGETS.about))?
                .unwrap_or(AddressRule::PublicOnly),
            valet_origin: BOC_VALET_ORIGIN
                .read_or_default(own(&BOC_VALET_ORIGIN.about))?
                .unwrap_or_default(),
        })
    }

    /// True when a secret is to be read from Secrets Manager (the process then needs AWS).
    pub fn wants_secrets_from_aws(&self) -> bool {
        self.signing_key_secret_arn.is_some() || self.house_token_secret_arn.is_some()
    }
}

/// The three key settings, parsed, assembled into what `/criteria` publishes: a retired key
/// that is the current one is [`PREVIOUS_SIGNING_KEYS`]'s problem.
fn key_publication(
    pinned: Option<PublicKeyDescriptor>,
    current_valid_from: Option<String>,
    previous: Option<Vec<SigningKeyEntry>>,
) -> Result<KeyPublication, SettingError> {
    KeyPublication::assemble(pinned, current_valid_from, previous)
        .map_err(|problem| SettingError { variable: PREVIOUS_SIGNING_KEYS.name(), problem })
}

/// Who reads a row, in words (`serve, CLI; functions: check, memo`).
fn readers_in_words(setting: &Setting) -> String {
    let mut parts = Vec::new();
    if setting.read_by(Reader::Serve) {
        parts.push("serve".to_owned());
    }
    if setting.read_by(Reader::Cli) {
        parts.push("CLI".to_owned());
    }
    let functions: Vec<&str> = setting.readers.iter().filter_map(|r| r.function()).collect();
    if !functions.is_empty() {
        parts.push(format!("functions: {}", functions.join(", ")));
    }
    parts.join("; ")
}

/// The configuration table of docs/operators.md, generated from [`TABLE`] (a test holds
/// them equal).
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| variable | for | value | unset | read by | template |\n|---|---|---|---|---|---|\n",
    );
    for setting in TABLE {
        let default = match setting.default {
            WhenUnset::Value(value) => format!("`{value}`"),
            WhenUnset::Means(words) => words.to_owned(),
        };
        let deployed = match setting.deployed {
            Deployed::Template => "set".to_owned(),
            Deployed::Never(reason) => format!("never: {reason}"),
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {default} | {} | {deployed} |\n",
            setting.name,
            setting.purpose,
            setting.value,
            readers_in_words(setting),
        ));
    }
    out
}

#[cfg(test)]
mod tests;
