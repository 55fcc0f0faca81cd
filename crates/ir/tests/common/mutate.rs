//! Mutations of real text for the readers' property tests: deletions, insertions and
//! replacements of grammar characters, swapped lines, truncation.

use proptest::prelude::*;

#[derive(Debug, Clone)]
pub enum Edit {
    Delete(usize, usize),
    Insert(usize, u8),
    Replace(usize, u8),
    SwapLines(usize, usize),
    Truncate(usize),
}

/// One edit, inserting and replacing with characters of `alphabet` (those that matter to
/// the grammar under test).
pub fn edit(alphabet: &'static [u8]) -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1usize..8).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), any::<usize>())
            .prop_map(|(a, c)| Edit::Insert(a, alphabet[c % alphabet.len()])),
        (any::<usize>(), any::<usize>())
            .prop_map(|(a, c)| Edit::Replace(a, alphabet[c % alphabet.len()])),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::SwapLines(a, b)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

/// `text` with `edits` applied in order.
pub fn apply(text: &str, edits: &[Edit]) -> String {
    let mut b = text.as_bytes().to_vec();
    for e in edits {
        let n = b.len().max(1);
        match *e {
            Edit::Delete(a, k) => {
                let a = a % n;
                let end = (a + k).min(b.len());
                if a < end {
                    b.drain(a..end);
                }
            }
            Edit::Insert(a, c) => b.insert(a % (b.len() + 1), c),
            Edit::Replace(a, c) => {
                if !b.is_empty() {
                    b[a % n] = c;
                }
            }
            Edit::SwapLines(x, y) => {
                let s = String::from_utf8_lossy(&b).into_owned();
                let mut lines: Vec<&str> = s.lines().collect();
                if !lines.is_empty() {
                    let l = lines.len();
                    lines.swap(x % l, y % l);
                }
                b = lines.join("\n").into_bytes();
            }
            Edit::Truncate(a) => b.truncate(a % n),
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}
