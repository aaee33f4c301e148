//! Standard input as MCP's stdio transport frames it: one message a line ([`Lines`]), each
//! line read with a bound. A line longer than the bound is skipped to its newline without
//! being kept ([`Line::TooLong`]), so no line, however long, is buffered past the bound.

use std::io::{self, BufRead};

/// One line of standard input.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Line {
    /// The bytes before the newline (a trailing carriage return removed), at most the bound.
    Message(Vec<u8>),
    /// A line over the bound: skipped to its newline, nothing of it kept.
    TooLong,
}

/// The lines of a reader, each at most `cap` bytes before its newline.
pub(super) struct Lines<R> {
    reader: R,
    cap: usize,
}

impl<R: BufRead> Lines<R> {
    /// The lines of `reader`, each bounded by `cap` bytes.
    pub(super) fn new(reader: R, cap: usize) -> Self {
        Self { reader, cap }
    }

    /// The next line; None at the end of the input. A last line without a newline is a line.
    pub(super) fn next_line(&mut self) -> io::Result<Option<Line>> {
        let mut kept = Vec::new();
        let (mut over, mut read_any) = (false, false);
        loop {
            let available = match self.reader.fill_buf() {
                Ok(available) => available,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                return Ok(read_any.then(|| Self::ended(kept, over)));
            }
            read_any = true;
            let newline = available.iter().position(|b| *b == b'\n');
            let piece = &available[..newline.unwrap_or(available.len())];
            if !over && kept.len() + piece.len() > self.cap {
                over = true;
                kept = Vec::new();
            }
            if !over {
                kept.extend_from_slice(piece);
            }
            let used = piece.len() + usize::from(newline.is_some());
            self.reader.consume(used);
            if newline.is_some() {
                return Ok(Some(Self::ended(kept, over)));
            }
        }
    }

    /// The line read: the message, or that it was over the bound.
    fn ended(mut kept: Vec<u8>, over: bool) -> Line {
        if over {
            return Line::TooLong;
        }
        if kept.last() == Some(&b'\r') {
            kept.pop();
        }
        Line::Message(kept)
    }
}

#[cfg(test)]
mod tests {
    use std::io::BufReader;

    use super::*;

    /// Every line of `input` read with a bound of 8 bytes and a read buffer of 3, so a line
    /// spans several reads.
    fn lines(input: &[u8]) -> Vec<Line> {
        let mut lines = Lines::new(BufReader::with_capacity(3, input), 8);
        std::iter::from_fn(|| lines.next_line().unwrap()).collect()
    }

    /// (input, the lines read) for every way a line can end.
    #[test]
    fn lines_are_bounded_and_an_overlong_one_is_skipped_to_its_newline() {
        let message = |text: &str| Line::Message(text.as_bytes().to_vec());
        let vectors: [(&[u8], Vec<Line>); 8] = [
            (b"", vec![]),
            (b"{}\n", vec![message("{}")]),
            (b"{}\r\n[]", vec![message("{}"), message("[]")]),
            (b"12345678\n", vec![message("12345678")]),
            (b"123456789\nok\n", vec![Line::TooLong, message("ok")]),
            (b"0123456789abcdef0123\n\nok", vec![Line::TooLong, message(""), message("ok")]),
            (b"0123456789abcdef", vec![Line::TooLong]),
            (b"\n\n", vec![message(""), message("")]),
        ];
        for (input, expected) in vectors {
            assert_eq!(lines(input), expected, "{:?}", String::from_utf8_lossy(input));
        }
    }
}
