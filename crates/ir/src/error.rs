//! Errors of the text readers: always with line, column and what was expected.

use std::fmt;

/// A syntax or import error at a position in a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in bytes).
    pub col: u32,
    pub msg: String,
}

impl ParseError {
    pub fn new(line: u32, col: u32, msg: impl Into<String>) -> ParseError {
        ParseError {
            line,
            col,
            msg: msg.into(),
        }
    }

    /// The error as `FILE:LINE:COL: message`.
    pub fn in_file(&self, file: &str) -> String {
        format!("{file}:{}:{}: {}", self.line, self.col, self.msg)
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.msg)
    }
}

impl std::error::Error for ParseError {}
