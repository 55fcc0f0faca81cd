//! Splitting a file into lines, as `str::lines` does, but looking for the line feed 16
//! bytes at a time: the importer splits every dump and every final-code listing it reads,
//! and the byte-at-a-time search of the standard library costs more than the parsing of
//! most listing lines.

/// The lines of `text`: the same lines as `text.lines()` (split at `\n`, a `\r` before the
/// `\n` removed, no empty line after a final line feed).
pub fn lines(text: &str) -> Lines<'_> {
    Lines { rest: text }
}

/// The iterator of [`lines`].
#[derive(Clone, Debug)]
pub struct Lines<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        match line_feed(self.rest.as_bytes()) {
            Some(i) => {
                // A line feed is one byte and never inside a character: both are boundaries.
                let line = &self.rest[..i];
                self.rest = &self.rest[i + 1..];
                Some(line.strip_suffix('\r').unwrap_or(line))
            }
            None => {
                let line = self.rest;
                self.rest = "";
                Some(line)
            }
        }
    }
}

/// The index of the first `\n` in `bytes`, sixteen bytes at a time as two words: in a
/// word XORed with line feeds a line feed is a zero byte, and `(x - 0x01..) & !x & 0x80..`
/// marks the first zero byte exactly (bytes above it may be marked too, but the lowest
/// mark is the one taken).
#[inline]
fn line_feed(bytes: &[u8]) -> Option<usize> {
    let mut chunks = bytes.chunks_exact(16);
    let mut at = 0;
    for chunk in &mut chunks {
        let (low, high) = chunk.split_at(8);
        let (low, high) = (zero_marks(low), zero_marks(high));
        if low | high != 0 {
            let first = if low != 0 {
                low.trailing_zeros() / 8
            } else {
                8 + high.trailing_zeros() / 8
            };
            return Some(at + first as usize);
        }
        at += 16;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == b'\n')
        .map(|p| at + p)
}

/// The marks of the line feeds in eight bytes (see [`line_feed`]).
#[inline]
fn zero_marks(eight: &[u8]) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const FEEDS: u64 = ONES * b'\n' as u64;
    let mut word = [0u8; 8];
    word.copy_from_slice(eight);
    let x = u64::from_le_bytes(word) ^ FEEDS;
    x.wrapping_sub(ONES) & !x & HIGHS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_lines_as_the_standard_library() {
        let long = "x".repeat(40);
        let cases = [
            String::new(),
            "\n".into(),
            "\n\n".into(),
            "a".into(),
            "a\n".into(),
            "a\r".into(),
            "a\r\n".into(),
            "a\r\rb\r\n\r\n".into(),
            "\r".into(),
            "\r\n".into(),
            "a\nb".into(),
            "a\n\nb\n".into(),
            "é\nü\r\nß".into(),
            format!("{long}\n{long}{long}\r\n{long}\n\n{long}"),
            format!("{long}{long}\n"),
            format!("{}\n", "y".repeat(16)),
            format!("{}\n", "y".repeat(15)),
            format!("{}\r\n{}", "y".repeat(16), "z".repeat(17)),
        ];
        for text in &cases {
            let ours: Vec<&str> = lines(text).collect();
            let std: Vec<&str> = text.lines().collect();
            assert_eq!(ours, std, "{text:?}");
        }
    }
}
