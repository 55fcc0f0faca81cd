//! The walker [`W`] that [`super::codec`] and [`super::forms`] move fields with, both ways:
//! one walk per form, read when decoding, written when encoding, so that the two are
//! inverse by construction.
//!
//! Why a [`Mode`] type rather than a flag and a column in `W`: the encoder and decoder
//! move some forty fields an instruction, and with the direction and the column known at
//! compile time each move is a shift and a mask of one word at a constant place (the
//! field's [`super::field`] layout folds away), where a run-time direction and column cost
//! a branch and a table look-up per field, most of the walk's time. The walks are
//! instantiated once per column and direction ([`on_col`]); naming differing bits
//! ([`Logging`]), a diagnostic, keeps a run-time column.

use super::field::{Col, Field as F, NativeInst};

/// The direction and column of a walk.
pub(super) trait Mode {
    /// Read fields into the struct (decode), or write them into the word (encode).
    const DECODE: bool;
    fn col(&self) -> Col;
    /// Notes a field written (encode only).
    #[inline(always)]
    fn wrote(&mut self, _field: F) {}
}

/// Column `C` ([`Col`] as a number) and direction `D` fixed at compile time.
pub(super) struct Fixed<const C: u8, const D: bool>;

impl<const C: u8, const D: bool> Mode for Fixed<C, D> {
    const DECODE: bool = D;
    #[inline(always)]
    fn col(&self) -> Col {
        const { Col::from_index(C) }
    }
}

/// Encoding with a run-time column, noting the fields written in order (for naming the
/// fields in which two words differ).
pub(super) struct Logging<'a> {
    pub(super) col: Col,
    pub(super) log: &'a mut Vec<F>,
}

impl Mode for Logging<'_> {
    const DECODE: bool = false;
    fn col(&self) -> Col {
        self.col
    }
    fn wrote(&mut self, field: F) {
        self.log.push(field);
    }
}

pub(super) struct W<'a, M: Mode> {
    pub(super) n: &'a mut NativeInst,
    pub(super) m: M,
}

impl<M: Mode> W<'_, M> {
    #[inline(always)]
    pub(super) fn col(&self) -> Col {
        self.m.col()
    }
    #[inline(always)]
    pub(super) fn decode(&self) -> bool {
        M::DECODE
    }
    /// Moves one field between word and struct: read when decoding, written when encoding.
    /// Inlined: a call costs more than the shift and mask it makes.
    #[inline(always)]
    pub(super) fn f<T: Copy + Into<u64> + TryFrom<u64>>(&mut self, field: F, v: &mut T) {
        let col = self.col();
        if M::DECODE {
            let x = self.n.get(field, col);
            *v = T::try_from(x)
                .ok()
                .expect("field wider than its struct member");
        } else {
            self.n.set(field, col, (*v).into());
            self.m.wrote(field);
        }
    }
}

/// `$body` with `$w` a walker over `$n` in direction `$decode` on the column `$col`, fixed
/// at compile time (one instance of the walk per column).
macro_rules! on_col {
    ($col:expr, $decode:literal, $n:expr, |$w:ident| $body:expr) => {
        match $col {
            Col::Gen7 => {
                let $w = &mut W {
                    n: $n,
                    m: Fixed::<0, $decode>,
                };
                $body
            }
            Col::Gen75 => {
                let $w = &mut W {
                    n: $n,
                    m: Fixed::<1, $decode>,
                };
                $body
            }
            Col::Gen8 => {
                let $w = &mut W {
                    n: $n,
                    m: Fixed::<2, $decode>,
                };
                $body
            }
            Col::Gen9 => {
                let $w = &mut W {
                    n: $n,
                    m: Fixed::<3, $decode>,
                };
                $body
            }
        }
    };
}
pub(super) use on_col;
