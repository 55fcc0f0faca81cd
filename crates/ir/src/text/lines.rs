//! Splitting a file into lines, as `str::lines` does, but looking for the line feed with
//! a vector search ([`memchr`]): the importer splits every dump and every final-code
//! listing it reads, and the byte-at-a-time search of the standard library costs more than
//! the parsing of most listing lines.

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

impl<'a> Lines<'a> {
    /// The text not split yet: what follows the last line returned, its line feed
    /// excluded. `lines(l.remainder()[n..])`, with `n` a line start, goes on from there.
    pub fn remainder(&self) -> &'a str {
        self.rest
    }
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

/// The index of the first `\n` in `bytes`: `memchr` compares 16 or 32 bytes per
/// instruction with the vector unit, several times fewer instructions than a word-at-a-time
/// search (listing lines are long: most of a listing's reading is finding their ends).
#[inline]
fn line_feed(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', bytes)
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
