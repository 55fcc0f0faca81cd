//! Mesa's register classes for the scalar back end: one class per contiguous size (a VGRF
//! of `len` registers takes registers `r..r + len`, any `r` with `r + len` inside the
//! file: gen7+ has no pair alignment, brw_fs_reg_allocate.cpp `brw_alloc_reg_set`), with
//! the Runeson/Nyström numbers util/register_allocate.c's `ra_set_finalize` computes:
//! `p(B)`, how many registers class B may start at, and `q(B, C)`, how many of B's
//! starts one allocation of class C can rule out at worst.
//!
//! Mesa makes a class for every size up to MAX_VGRF_SIZE whatever the shader; q depends
//! only on the two sizes and the file, so classes are made here up to the largest size
//! the shader has. Limits: at most 128 registers (one u128 mask per class).

/// The classes of contiguous sizes `1..=max_len` over a file of `regs` registers; class
/// `k` holds values of `k + 1` registers.
pub struct Classes {
    count: usize,
    /// Per class: registers it may start at (`p`).
    p: Vec<u32>,
    /// `q[b * count + c]`.
    q: Vec<u32>,
    /// The same numbers by column, `q_by_c[c * count + b]`: a push of a node of class `c`
    /// weighs on neighbours of every class, one column.
    q_by_c: Vec<u32>,
}

impl Classes {
    pub fn new(regs: u32, max_len: u32) -> Classes {
        let regs = regs.min(128);
        let count = max_len.max(1) as usize;
        // Starts of each class: every r with r + len <= regs.
        let starts: Vec<u128> = (1..=count as u32)
            .map(|len| {
                if len > regs {
                    0
                } else {
                    let n = regs - len + 1;
                    if n == 128 {
                        u128::MAX
                    } else {
                        (1u128 << n) - 1
                    }
                }
            })
            .collect();
        let p = starts.iter().map(|s| s.count_ones()).collect();
        let mut q = vec![0; count * count];
        for b in 0..count {
            let len_b = b as u32 + 1;
            for c in 0..count {
                let len_c = c as u32 + 1;
                q[b * count + c] = if len_b == 1 && len_c == 1 {
                    // Two single-register classes conflict only where they share a register.
                    (starts[b] & starts[c] != 0) as u32
                } else {
                    // The most starts of B one start of C rules out: those in
                    // [rc - len_b + 1, rc + len_c), over every start rc of C (as
                    // ra_set_finalize, stopping at the most possible).
                    let most = len_b + len_c - 1;
                    let mut max = 0;
                    let mut rest = starts[c];
                    while rest != 0 {
                        let rc = rest.trailing_zeros();
                        rest &= rest - 1;
                        let lo = rc.saturating_sub(len_b - 1);
                        let hi = (rc + len_c).min(regs);
                        max = max.max((starts[b] & range_mask(lo, hi)).count_ones());
                        if max == most {
                            break;
                        }
                    }
                    max
                };
            }
        }
        let mut q_by_c = vec![0; count * count];
        for b in 0..count {
            for c in 0..count {
                q_by_c[c * count + b] = q[b * count + c];
            }
        }
        Classes {
            count,
            p,
            q,
            q_by_c,
        }
    }

    /// The class of a value of `len` registers.
    pub fn of_len(len: u32) -> usize {
        len.max(1) as usize - 1
    }

    /// Registers a value of class `c` takes.
    pub fn len(c: usize) -> u32 {
        c as u32 + 1
    }

    pub fn count(&self) -> usize {
        self.count
    }

    /// How many registers class `c` may start at.
    pub fn p(&self, c: usize) -> u32 {
        self.p[c]
    }

    /// How many starts of class `b` one allocation of class `c` can rule out at worst.
    pub fn q(&self, b: usize, c: usize) -> u32 {
        self.q[b * self.count + c]
    }

    /// `q(b, ·)` for every class: entry `c` is [`Classes::q`]`(b, c)`.
    pub fn q_row(&self, b: usize) -> &[u32] {
        &self.q[b * self.count..(b + 1) * self.count]
    }

    /// `q(·, c)` for every class: entry `b` is [`Classes::q`]`(b, c)`.
    pub fn q_column(&self, c: usize) -> &[u32] {
        &self.q_by_c[c * self.count..(c + 1) * self.count]
    }
}

/// Registers `lo..hi` as a mask.
pub fn range_mask(lo: u32, hi: u32) -> u128 {
    if lo >= hi || lo >= 128 {
        return 0;
    }
    let ones = |n: u32| {
        if n >= 128 {
            u128::MAX
        } else {
            (1u128 << n) - 1
        }
    };
    ones(hi.min(128)) & !ones(lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_and_q_of_contiguous_classes() {
        let c = Classes::new(128, 4);
        // p: every start that keeps the value in the file.
        assert_eq!((c.p(0), c.p(1), c.p(3)), (128, 127, 125));
        // q(B, C) = len(B) + len(C) - 1 once the file is large enough: a value of C at r
        // rules out the starts of B from r - len(B) + 1 to r + len(C) - 1.
        assert_eq!(c.q(0, 0), 1);
        assert_eq!(c.q(0, 1), 2);
        assert_eq!(c.q(1, 0), 2);
        assert_eq!(c.q(1, 1), 3);
        assert_eq!(c.q(3, 1), 5);
        // In a file of 3 registers, a 2-register value rules out at most 2 of the 2
        // starts of another 2-register value, and a 3-register class has one start.
        let small = Classes::new(3, 3);
        assert_eq!(small.p(2), 1);
        assert_eq!(small.q(1, 1), 2);
        assert_eq!(small.q(2, 0), 1);
        // Rows and columns are the same numbers.
        for b in 0..3 {
            for c in 0..3 {
                assert_eq!(small.q_row(b)[c], small.q(b, c));
                assert_eq!(small.q_column(c)[b], small.q(b, c));
            }
        }
        assert_eq!(range_mask(2, 5), 0b11100);
        assert_eq!(range_mask(0, 128), u128::MAX);
        assert_eq!(range_mask(5, 5), 0);
    }
}
