use std::cell::RefCell;
use std::collections::BTreeSet;
use std::os::unix::ffi::OsStringExt;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::SigningKey;

use super::*;

const WALLET: &str = "AXmhKMjW8gDUZT1vZ9FPQf6qxrNie4V6VMtUv1mu5MP1";
const CANARY: &str = "canary-7f3a";

#[test]
fn the_table_states_each_variable_once_with_a_reader_and_a_parsable_default() {
    let names: BTreeSet<&str> = TABLE.iter().map(|s| s.name).collect();
    assert_eq!(names.len(), TABLE.len(), "a variable is listed twice");
    for setting in TABLE {
        assert!(setting.name.starts_with("PAYABILITY_"), "{}", setting.name);
        assert!(!setting.readers.is_empty(), "{}: nobody reads it", setting.name);
        for text in [setting.purpose, setting.value] {
            assert!(!text.is_empty() && !text.contains('\n'), "{}: one line", setting.name);
        }
    }
    assert_eq!(ALLOW_PRIVATE_TARGETS.parse_text(Some("0")), Ok(Some(AddressRule::PublicOnly)));
    let valet = BOC_VALET_ORIGIN.parse_text(Some("https://www.bankofcanada.ca"));
    assert_eq!(valet, Ok(Some("https://www.bankofcanada.ca".to_owned())));
    let unset = Settings::from_lookup(Reader::Serve, &|_| None).unwrap();
    assert_eq!(unset.address_rule, AddressRule::PublicOnly, "the default of 0");
    assert_eq!(unset.valet_origin, "https://www.bankofcanada.ca");
}

#[test]
fn each_reader_looks_up_exactly_its_variables_once() {
    for reader in Reader::ALL {
        let asked = RefCell::new(Vec::new());
        let lookup = |name: &'static str| {
            asked.borrow_mut().push(name);
            None
        };
        Settings::from_lookup(reader, &lookup).unwrap();
        let mut asked = asked.into_inner();
        let expected: Vec<&str> =
            TABLE.iter().filter(|s| s.read_by(reader)).map(|s| s.name).collect();
        assert_eq!(asked, expected, "{reader:?}: in the table's order, once each");
        asked.dedup();
        assert_eq!(asked.len(), expected.len());
    }
}

#[test]
fn every_function_reader_is_a_binary() {
    for reader in Reader::ALL {
        match reader.function() {
            Some(binary) => assert_eq!(Reader::of_function(binary), Some(reader)),
            None => assert!(matches!(reader, Reader::Serve | Reader::Cli)),
        }
    }
    assert_eq!(Reader::of_function("not-covered"), None);
}

#[test]
fn one_parser_per_variable_and_its_rule() {
    // (variable, value) -> Ok(parsed, as Debug) or the problem.
    let not_utf8 = OsString::from_vec(vec![b'1', 0xff]);
    let vectors: [(&str, &OsStr, Result<&str, &str>); 22] = [
        ("allow", OsStr::new("0"), Ok("PublicOnly")),
        ("allow", OsStr::new("1"), Ok("AllowPrivate")),
        ("allow", OsStr::new("2"), Err("must be 0 or 1")),
        ("allow", OsStr::new(" 1"), Err("must be 0 or 1")),
        ("allow", OsStr::new("true"), Err("must be 0 or 1")),
        ("allow", &not_utf8, Err("must be 0 or 1")),
        ("base", OsStr::new("https://a.example/v1/"), Ok("\"https://a.example/v1\"")),
        ("base", OsStr::new("http://127.0.0.1:8402"), Ok("\"http://127.0.0.1:8402\"")),
        ("base", OsStr::new("https://a.example/v1?x=1"), Err(BASE)),
        ("base", OsStr::new("https://a.example/#top"), Err(BASE)),
        ("base", OsStr::new("https://user:pw@a.example"), Err(BASE)),
        ("base", OsStr::new("ftp://a.example"), Err(BASE)),
        ("base", &not_utf8, Err(BASE)),
        ("url", OsStr::new("http://127.0.0.1:9/"), Ok("\"http://127.0.0.1:9\"")),
        ("url", OsStr::new("https://f.example/x?y"), Ok("\"https://f.example/x?y\"")),
        ("url", OsStr::new("ftp://x"), Err("is not an http(s) URL")),
        ("wallet", OsStr::new(WALLET), Ok("\"AXmhKMjW8gDUZT1vZ9FPQf6qxrNie4V6VMtUv1mu5MP1\"")),
        ("wallet", OsStr::new("not-a-wallet"), Err("is not a base58 Solana public key")),
        ("store", OsStr::new("dynamodb"), Ok("DynamoDb")),
        ("store", OsStr::new("/tmp/s.sqlite3"), Ok("Embedded(\"/tmp/s.sqlite3\")")),
        ("table", OsStr::new("ledger"), Ok("\"ledger\"")),
        ("table", &not_utf8, Err("is not UTF-8 text")),
    ];
    const BASE: &str = "is not an http(s) URL with a host and no query, fragment or user";
    for (which, value, expected) in vectors {
        let got = match which {
            "allow" => {
                ALLOW_PRIVATE_TARGETS.parse_value(Some(value)).map(|v| format!("{:?}", v.unwrap()))
            }
            "base" => PUBLIC_BASE_URL.parse_value(Some(value)).map(|v| format!("{:?}", v.unwrap())),
            "url" => FACILITATOR_URL.parse_value(Some(value)).map(|v| format!("{:?}", v.unwrap())),
            "wallet" => OPERATOR_WALLET
                .parse_value(Some(value))
                .map(|v| format!("{:?}", v.unwrap().as_str())),
            "store" => STORE.parse_value(Some(value)).map(|v| format!("{:?}", v.unwrap())),
            _ => TABLE_LEDGER.parse_value(Some(value)).map(|v| format!("{:?}", v.unwrap())),
        };
        assert_eq!(got.as_deref().map_err(|e| e.problem), expected, "{which} {value:?}");
    }
}

#[test]
fn unset_or_empty_is_the_default_and_a_bad_value_is_one_line_without_the_value() {
    let empty = |_: &'static str| Some(OsString::new());
    let settings = Settings::from_lookup(Reader::Serve, &empty).unwrap();
    assert_eq!(settings.operator_wallet, None);
    assert_eq!(settings.address_rule, AddressRule::PublicOnly);
    for setting in TABLE.iter().filter(|s| s.read_by(Reader::Serve)) {
        let bad = |name: &'static str| {
            let value = format!("{CANARY}://x?{CANARY}#{CANARY}");
            (name == setting.name).then(|| OsString::from(value))
        };
        let Err(error) = Settings::from_lookup(Reader::Serve, &bad) else {
            continue; // text, paths and the store take any value
        };
        let line = error.to_string();
        assert_eq!(error.variable, setting.name);
        assert!(line.starts_with("configuration: ") && !line.contains('\n'), "{line}");
        assert!(!line.contains(CANARY), "{line}");
    }
}

#[test]
fn a_reader_never_sees_a_variable_it_does_not_read() {
    let everything = |name: &'static str| match name {
        "PAYABILITY_OPERATOR_WALLET" => Some(OsString::from(WALLET)),
        "PAYABILITY_ALLOW_PRIVATE_TARGETS" => Some(OsString::from("1")),
        _ => Some(OsString::from("not valid for most")),
    };
    let criteria = Settings::from_lookup(Reader::Criteria, &everything);
    assert_eq!(criteria.err().map(|e| e.variable), Some(PUBLIC_BASE_URL.name()));
    let metrics = Settings::from_lookup(Reader::Metrics, &everything).unwrap();
    assert_eq!(metrics.operator_wallet, None);
    assert_eq!(metrics.address_rule, AddressRule::PublicOnly);
    assert!(metrics.store.is_some() && metrics.tables.iter().all(Option::is_some));
}

#[test]
fn the_markdown_table_has_one_row_per_variable() {
    let table = markdown_table();
    assert_eq!(table.lines().count(), TABLE.len() + 2);
    for setting in TABLE {
        assert!(table.contains(&format!("| `{}` |", setting.name)), "{}", setting.name);
    }
    assert!(table.contains("| `0` |"), "a value default is code");
}

/// The three key settings as text (each None when unset), parsed and assembled as
/// [`Settings::from_lookup`] does.
fn parse_keys(
    pinned: Option<&str>,
    valid_from: Option<&str>,
    previous: Option<&str>,
) -> Result<KeyPublication, SettingError> {
    key_publication(
        SIGNING_PUBLIC_KEY.parse_text(pinned)?,
        SIGNING_KEY_VALID_FROM.parse_text(valid_from)?,
        PREVIOUS_SIGNING_KEYS.parse_text(previous)?,
    )
}

fn x_of(seed: u8) -> String {
    URL_SAFE_NO_PAD.encode(SigningKey::from_bytes(&[seed; 32]).verifying_key().as_bytes())
}

fn previous(seed: u8, from: Option<&str>, until: &str) -> String {
    let from = from.map_or(String::new(), |f| format!(r#""validFrom":"{f}","#));
    format!(r#"{{"publicKey":"{}",{from}"validUntil":"{until}"}}"#, x_of(seed))
}

#[test]
fn settings_are_checked_and_assembled() {
    const FROM: &str = "2026-01-01T00:00:00.000Z";
    const UNTIL: &str = "2026-06-01T00:00:00.000Z";
    let one = format!("[{}]", previous(2, Some(FROM), UNTIL));
    let open_start = format!("[{}]", previous(2, None, UNTIL));
    let two = format!("[{},{}]", previous(2, None, FROM), previous(3, Some(FROM), UNTIL));
    let reversed = format!("[{}]", previous(2, Some(UNTIL), FROM));
    let repeated = format!("[{},{}]", previous(2, None, FROM), previous(2, None, UNTIL));
    let current_again = format!("[{}]", previous(1, None, UNTIL));
    let extra_field = format!(r#"[{{"publicKey":"{}","validUntil":"{UNTIL}","x":1}}]"#, x_of(2));
    let bad_time = format!("[{}]", previous(2, None, "2026-06-01"));
    let x1 = x_of(1);
    // (pinned, valid from, previous) -> Ok(number of previous keys) or the problem.
    const NOT_A_LIST: &str = "is not a JSON array of {publicKey, validFrom, validUntil}";
    const TWICE: &str = "lists a key twice or the current key";
    type Settings<'a> = (Option<&'a str>, Option<&'a str>, Option<&'a str>);
    let vectors: [(Settings, Result<usize, &str>); 13] = [
        ((None, None, None), Ok(0)),
        ((Some(&x1), Some(FROM), Some("[]")), Ok(0)),
        ((Some(&x1), None, Some(&one)), Ok(1)),
        ((Some(&x1), None, Some(&open_start)), Ok(1)),
        ((Some(&x1), None, Some(&two)), Ok(2)),
        ((Some("not-a-key"), None, None), Err("is not a base64url Ed25519 key")),
        ((Some(&x1), Some("yesterday"), None), Err("is not YYYY-MM-DDTHH:MM:SS.mmmZ")),
        ((Some(&x1), None, Some("{}")), Err(NOT_A_LIST)),
        ((Some(&x1), None, Some(&reversed)), Err("holds a validFrom after its validUntil")),
        ((Some(&x1), None, Some(&repeated)), Err(TWICE)),
        ((Some(&x1), None, Some(&current_again)), Err(TWICE)),
        ((Some(&x1), None, Some(&extra_field)), Err(NOT_A_LIST)),
        ((Some(&x1), None, Some(&bad_time)), Err("holds a validUntil that is not a timestamp")),
    ];
    for ((pinned, from, list), expected) in vectors {
        let got = parse_keys(pinned, from, list).map(|p| p.previous.len()).map_err(|e| e.problem);
        assert_eq!(got, expected, "{pinned:?} {from:?} {list:?}");
    }
}

#[test]
fn the_current_key_comes_first_and_open_ended() {
    let list = format!("[{}]", previous(2, None, "2026-06-01T00:00:00.000Z"));
    let publication =
        parse_keys(Some(&x_of(1)), Some("2026-06-01T00:00:00.000Z"), Some(&list)).unwrap();
    let current = publication.pinned.clone().unwrap();
    let entries = publication.entries(&current);
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].descriptor, current);
    assert_eq!(entries[0].valid_from.as_deref(), Some("2026-06-01T00:00:00.000Z"));
    assert_eq!(entries[0].valid_until, None);
    assert_eq!(entries[1].valid_until.as_deref(), Some("2026-06-01T00:00:00.000Z"));
}
