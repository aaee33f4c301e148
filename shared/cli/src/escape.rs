//! What the command never prints raw: one list of characters ([`is_escaped`]) that could move
//! a terminal's cursor, restyle it, retitle its window, reorder the text around them or hide
//! in it. The text view shows each as `\u{…}` ([`text`]); JSON writes each as `\uXXXX`
//! ([`json_pretty`]), which is the same JSON value, so a signed report still verifies.

use std::io;
use std::ops::RangeInclusive;

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};

/// Unicode's format characters (`Cf`, as of Unicode 16) and its line and paragraph
/// separators (`Zl`, `Zp`): the soft hyphen, Arabic and Syriac marks (the Arabic letter mark
/// U+061C among them), the Mongolian vowel separator, the zero-width characters, the
/// bidirectional marks, embeddings, overrides and isolates, the word joiner and the invisible
/// operators, the byte order mark, the interlinear annotation characters and the tags.
const FORMAT_AND_SEPARATORS: [RangeInclusive<char>; 21] = [
    '\u{ad}'..='\u{ad}',
    '\u{600}'..='\u{605}',
    '\u{61c}'..='\u{61c}',
    '\u{6dd}'..='\u{6dd}',
    '\u{70f}'..='\u{70f}',
    '\u{890}'..='\u{891}',
    '\u{8e2}'..='\u{8e2}',
    '\u{180e}'..='\u{180e}',
    '\u{200b}'..='\u{200f}',
    '\u{2028}'..='\u{202e}',
    '\u{2060}'..='\u{2064}',
    '\u{2066}'..='\u{206f}',
    '\u{feff}'..='\u{feff}',
    '\u{fff9}'..='\u{fffb}',
    '\u{110bd}'..='\u{110bd}',
    '\u{110cd}'..='\u{110cd}',
    '\u{13430}'..='\u{1343f}',
    '\u{1bca0}'..='\u{1bca3}',
    '\u{1d173}'..='\u{1d17a}',
    '\u{e0001}'..='\u{e0001}',
    '\u{e0020}'..='\u{e007f}',
];

/// Whether `c` is never printed raw: a control (C0, DEL, C1: Unicode `Cc`), a format
/// character or a line or paragraph separator ([`FORMAT_AND_SEPARATORS`]).
pub(crate) fn is_escaped(c: char) -> bool {
    c.is_control() || FORMAT_AND_SEPARATORS.iter().any(|range| range.contains(&c))
}

/// `text` for the text view: every [`is_escaped`] character as `\u{…}` (four hex digits at
/// least).
pub(crate) fn text(text: &str) -> String {
    text.chars()
        .map(|c| match is_escaped(c) {
            true => format!("\\u{{{:04x}}}", u32::from(c)),
            false => c.to_string(),
        })
        .collect()
}

/// `value` as pretty-printed JSON with every [`is_escaped`] character of its strings written
/// `\uXXXX` (a surrogate pair above U+FFFF); serde_json escapes the C0 controls itself.
pub(crate) fn json_pretty(value: &impl Serialize) -> String {
    json_with(value, Escaping(PrettyFormatter::new()))
}

/// `value` as one line of JSON (JSON Lines), escaped as [`json_pretty`] escapes.
pub(crate) fn json_line(value: &impl Serialize) -> String {
    json_with(value, Escaping(CompactFormatter))
}

/// `value` written by `formatter`.
fn json_with<F: Formatter>(value: &impl Serialize, formatter: Escaping<F>) -> String {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    value.serialize(&mut serializer).expect("our values serialise");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// A serde_json formatter (pretty or compact), writing the [`is_escaped`] characters of
/// strings escaped.
struct Escaping<F>(F);

impl<F: Formatter> Formatter for Escaping<F> {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut units = [0u16; 2];
        for (start, c) in fragment.char_indices() {
            if !is_escaped(c) {
                writer.write_all(&fragment.as_bytes()[start..start + c.len_utf8()])?;
                continue;
            }
            for unit in c.encode_utf16(&mut units) {
                write!(writer, "\\u{unit:04x}")?;
            }
        }
        Ok(())
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_array(writer)
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array(writer)
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(writer, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array_value(writer)
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object(writer)
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object(writer)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(writer, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object_value(writer)
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_value(writer)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::*;

    /// Every character the list escapes (derived from it, for the generators).
    fn escaped_chars() -> Vec<char> {
        (0..=0x10ffff).filter_map(char::from_u32).filter(|c| is_escaped(*c)).collect()
    }

    /// Strings of any characters, one in two drawn from the escaped ones.
    pub(crate) fn hostile_text() -> impl Strategy<Value = String> {
        let c = prop_oneof![any::<char>(), prop::sample::select(escaped_chars())];
        prop::collection::vec(c, 0..24).prop_map(|chars| chars.into_iter().collect())
    }

    /// The characters of `shown` that are escaped and not one of `ours` (the view's own line
    /// breaks).
    pub(crate) fn raw(shown: &str, ours: &[char]) -> Vec<char> {
        shown.chars().filter(|c| is_escaped(*c) && !ours.contains(c)).collect()
    }

    #[test]
    fn the_probe_s_characters_are_on_the_list_and_printable_text_is_not() {
        let escaped = [
            '\u{0}',
            '\u{1b}',
            '\u{7f}',
            '\u{85}',
            '\u{9b}',
            '\u{ad}',
            '\u{61c}',
            '\u{200b}',
            '\u{200c}',
            '\u{200d}',
            '\u{200e}',
            '\u{2028}',
            '\u{2029}',
            '\u{202e}',
            '\u{2060}',
            '\u{2066}',
            '\u{2069}',
            '\u{feff}',
            '\u{e0041}',
        ];
        for c in escaped {
            assert!(is_escaped(c), "{c:?}");
        }
        for c in ['a', ' ', 'é', '\u{2014}', '\u{4e2d}', '\u{1f600}', '\u{fffd}', '\u{a0}'] {
            assert!(!is_escaped(c), "{c:?}");
        }
        assert_eq!(text("a\u{1b}[2J\u{202e}\u{e0041}"), "a\\u{001b}[2J\\u{202e}\\u{e0041}");
        let json = json_pretty(&json!({"k\u{9b}": "\u{7f}\u{2066}\u{e0041}\n"}));
        assert_eq!(json, "{\n  \"k\\u009b\": \"\\u007f\\u2066\\udb40\\udc41\\n\"\n}");
        let line = json_line(&json!({"k\u{9b}": ["\u{2028}", 1]}));
        assert_eq!(line, "{\"k\\u009b\":[\"\\u2028\",1]}");
    }

    proptest! {
        /// The JSON view of any value: no escaped character raw but its own line breaks, and
        /// the same value when read back.
        #[test]
        fn json_shows_no_escaped_character_raw(
            names in prop::collection::vec(hostile_text(), 0..6),
            values in prop::collection::vec(hostile_text(), 0..6),
        ) {
            let object: serde_json::Map<String, Value> =
                names.into_iter().zip(values.iter().cloned().map(Value::from)).collect();
            let value = json!({"object": object, "list": values});
            let shown = json_pretty(&value);
            prop_assert_eq!(raw(&shown, &['\n']), Vec::<char>::new());
            prop_assert_eq!(serde_json::from_str::<Value>(&shown).unwrap(), value.clone());
            let line = json_line(&value);
            prop_assert_eq!(raw(&line, &[]), Vec::<char>::new());
            prop_assert_eq!(serde_json::from_str::<Value>(&line).unwrap(), value);
        }

        /// The text form of any string: no escaped character.
        #[test]
        fn text_shows_no_escaped_character(shown in hostile_text()) {
            prop_assert_eq!(raw(&text(&shown), &[]), Vec::<char>::new());
        }
    }
}
