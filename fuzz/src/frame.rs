//! A forgiving reader of framed fuzz inputs: fixed-width little-endian fields, length-prefixed
//! byte strings (the length clamped to what is left), then the rest. Reading past the end
//! yields zeros and empty strings, so every byte string is a valid input.

/// A cursor over the fuzzer's bytes.
pub struct Frame<'a> {
    data: &'a [u8],
}

impl<'a> Frame<'a> {
    /// A reader over `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data }
    }

    fn take(&mut self, n: usize) -> &'a [u8] {
        let n = n.min(self.data.len());
        let (head, tail) = self.data.split_at(n);
        self.data = tail;
        head
    }

    /// One byte (0 when the input is exhausted).
    pub fn u8(&mut self) -> u8 {
        self.take(1).first().copied().unwrap_or(0)
    }

    /// A little-endian u16 (missing bytes are zeros).
    pub fn u16(&mut self) -> u16 {
        let mut out = [0u8; 2];
        let got = self.take(2);
        out[..got.len()].copy_from_slice(got);
        u16::from_le_bytes(out)
    }

    /// A little-endian u32 (missing bytes are zeros).
    pub fn u32(&mut self) -> u32 {
        let mut out = [0u8; 4];
        let got = self.take(4);
        out[..got.len()].copy_from_slice(got);
        u32::from_le_bytes(out)
    }

    /// A little-endian i64 (missing bytes are zeros).
    pub fn i64(&mut self) -> i64 {
        let mut out = [0u8; 8];
        let got = self.take(8);
        out[..got.len()].copy_from_slice(got);
        i64::from_le_bytes(out)
    }

    /// A u32-length-prefixed byte string (the length clamped to what is left).
    pub fn bytes(&mut self) -> &'a [u8] {
        let len = self.u32() as usize;
        self.take(len)
    }

    /// Everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        self.take(usize::MAX)
    }
}

/// Writes frames (the seed writer's side of [`Frame`]).
#[derive(Default)]
pub struct FrameWriter {
    out: Vec<u8>,
}

impl FrameWriter {
    /// One byte.
    pub fn u8(mut self, value: u8) -> Self {
        self.out.push(value);
        self
    }

    /// A little-endian u16.
    pub fn u16(mut self, value: u16) -> Self {
        self.out.extend(value.to_le_bytes());
        self
    }

    /// A little-endian i64.
    pub fn i64(mut self, value: i64) -> Self {
        self.out.extend(value.to_le_bytes());
        self
    }

    /// A u32-length-prefixed byte string.
    pub fn bytes(mut self, value: &[u8]) -> Self {
        self.out.extend((value.len() as u32).to_le_bytes());
        self.out.extend(value);
        self
    }

    /// Trailing bytes (the frame's rest).
    pub fn rest(mut self, value: &[u8]) -> Vec<u8> {
        self.out.extend(value);
        self.out
    }
}
