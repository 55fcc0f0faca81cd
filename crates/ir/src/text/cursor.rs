//! A byte cursor over one line, producing column-accurate errors.

use crate::error::ParseError;

pub struct Cursor<'a> {
    pub s: &'a str,
    pub pos: usize,
    pub line: u32,
}

pub type PResult<T> = Result<T, ParseError>;

impl<'a> Cursor<'a> {
    #[inline]
    pub fn new(s: &'a str, line: u32) -> Cursor<'a> {
        Cursor { s, pos: 0, line }
    }

    #[inline]
    pub fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }

    #[inline]
    pub fn at_end(&self) -> bool {
        self.pos >= self.s.len()
    }

    #[inline]
    pub fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.pos).copied()
    }

    pub fn error(&self, msg: impl Into<String>) -> ParseError {
        ParseError::new(self.line, self.pos as u32 + 1, msg)
    }

    /// An error saying what was expected and what was found instead.
    pub fn expected(&self, what: &str) -> ParseError {
        let found: String = self.rest().chars().take(16).collect();
        if found.is_empty() {
            self.error(format!("expected {what}, found end of line"))
        } else {
            self.error(format!("expected {what}, found `{found}`"))
        }
    }

    /// Skips spaces, tabs and carriage returns. On the bytes, with the position in a local:
    /// called several times on every line.
    #[inline]
    pub fn skip_spaces(&mut self) {
        let b = self.s.as_bytes();
        let mut p = self.pos;
        while p < b.len() && matches!(b[p], b' ' | b'\t' | b'\r') {
            p += 1;
        }
        self.pos = p;
    }

    /// [`Cursor::eat`] for a keyword: only where no letter, digit or `_` follows it, so
    /// that `NoMask` is not taken from the front of `NoMaskParams`.
    #[inline]
    pub fn eat_word(&mut self, word: &str) -> bool {
        let rest = &self.s.as_bytes()[self.pos..];
        let whole = rest.starts_with(word.as_bytes())
            && !rest
                .get(word.len())
                .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_');
        if whole {
            self.pos += word.len();
        }
        whole
    }

    /// Whether the text continues with `tok`. Bytes, not `rest()`: the same test without
    /// finding a character boundary first (the cursor only ever stops on one). Inlined, so
    /// that a constant `tok` is compared in place rather than by a call to `memcmp`.
    #[inline]
    pub fn looking_at(&self, tok: &str) -> bool {
        self.s.as_bytes()[self.pos..].starts_with(tok.as_bytes())
    }

    /// Consumes `tok` if the text continues with it (a match ends on a character boundary).
    #[inline]
    pub fn eat(&mut self, tok: &str) -> bool {
        if self.looking_at(tok) {
            self.pos += tok.len();
            true
        } else {
            false
        }
    }

    #[inline]
    pub fn expect(&mut self, tok: &str) -> PResult<()> {
        if self.eat(tok) {
            Ok(())
        } else {
            Err(self.expected_token(tok))
        }
    }

    /// The error of [`Cursor::expect`], out of line: it is rare, and formatting is large.
    #[cold]
    fn expected_token(&self, tok: &str) -> ParseError {
        self.expected(&format!("`{tok}`"))
    }

    /// Consumes the longest run of bytes matching `f`.
    #[inline]
    pub fn take_while(&mut self, f: impl Fn(u8) -> bool) -> &'a str {
        let b = self.s.as_bytes();
        let start = self.pos;
        let mut p = start;
        while p < b.len() && f(b[p]) {
            p += 1;
        }
        self.pos = p;
        &self.s[start..p]
    }

    /// An unsigned decimal number.
    /// Digits are accumulated as they are read (numbers are on every line of a dump; going
    /// through `str::parse` costs several times more).
    #[inline]
    pub fn number(&mut self, what: &str) -> PResult<u32> {
        let start = self.pos;
        let bytes = self.s.as_bytes();
        let mut value: u32 = 0;
        while let Some(&b) = bytes.get(self.pos) {
            if !b.is_ascii_digit() {
                break;
            }
            value = match value
                .checked_mul(10)
                .and_then(|v| v.checked_add(u32::from(b - b'0')))
            {
                Some(v) => v,
                None => return Err(self.number_out_of_range(start, what)),
            };
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.expected_cold(what));
        }
        Ok(value)
    }

    /// [`Cursor::number`] where the value is not wanted (the register pressure and index
    /// before each instruction of a dump): up to nine digits cannot overflow and are only
    /// passed over; anything else (no digit, or more) is read by `number`, for its error.
    #[inline]
    pub fn skip_number(&mut self, what: &str) -> PResult<()> {
        let b = self.s.as_bytes();
        let mut p = self.pos;
        while p < b.len() && b[p].is_ascii_digit() {
            p += 1;
        }
        if p == self.pos || p - self.pos > 9 {
            return self.number(what).map(drop);
        }
        self.pos = p;
        Ok(())
    }

    /// The error of a number beyond u32 starting at `start`: it names all its digits.
    #[cold]
    fn number_out_of_range(&mut self, start: usize, what: &str) -> ParseError {
        self.pos = start;
        let digits = self.take_while(|c| c.is_ascii_digit());
        ParseError::new(
            self.line,
            start as u32 + 1,
            format!("{what} `{digits}` is out of range"),
        )
    }

    /// [`Cursor::expected`], out of line for the paths that are hot when nothing is wrong.
    #[cold]
    fn expected_cold(&self, what: &str) -> ParseError {
        self.expected(what)
    }

    pub fn number_u8(&mut self, what: &str) -> PResult<u8> {
        let start = self.pos;
        let n = self.number(what)?;
        u8::try_from(n).map_err(|_| {
            ParseError::new(
                self.line,
                start as u32 + 1,
                format!("{what} {n} is out of range"),
            )
        })
    }

    /// `.N`: a dot followed by a number (a sub-register), if the text continues with one.
    pub fn dot_number(&mut self, what: &str) -> PResult<Option<u32>> {
        if self.peek() == Some(b'.')
            && self
                .s
                .as_bytes()
                .get(self.pos + 1)
                .is_some_and(|b| b.is_ascii_digit())
        {
            self.pos += 1;
            return self.number(what).map(Some);
        }
        Ok(None)
    }

    /// An identifier: letters, digits, `_`.
    pub fn ident(&mut self) -> &'a str {
        self.take_while(|c| c.is_ascii_alphanumeric() || c == b'_')
    }
}
