//! Live intervals: for every 4-byte slot ([`super::access`]), the first and the
//! last instruction position (in layout order) at which it is live or accessed, and from
//! them the interval of every VGRF and whether two VGRFs' intervals overlap.
//!
//! Linear intervals over the layout, as Mesa's `brw_live_variables` start/end: a slot live
//! into a block is live from the block's first instruction, live out of it to its last, so
//! a value live around a loop covers the whole loop. Coalescing asks about parts of VGRFs
//! (one component), register allocation about whole VGRFs; both read the per-slot column.
//! A pass that asks about a few slots only (coalescing: the ends of its moves) computes the
//! intervals of those alone ([`LiveIntervals::compute_within`]: columns for them, and the
//! accesses of other slots passed over).

use std::rc::Rc;

use eubatch_ir::{Block, Shader, Vgrf};

use crate::analysis::access::{Slot, SlotRange};
use crate::analysis::access_table::AccessTable;
use crate::analysis::bitset::BitSet;
use crate::analysis::liveness::Liveness;
use crate::analysis::points::Point;
use crate::analysis::points::Points;

/// Program points `start..=end`; empty when `start > end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    pub start: Point,
    pub end: Point,
}

impl Interval {
    pub const EMPTY: Interval = Interval {
        start: Point::new(u32::MAX),
        end: Point::new(0),
    };

    /// Points `start..=end` (in tests, as plain numbers).
    pub fn between(start: u32, end: u32) -> Interval {
        Interval {
            start: Point::new(start),
            end: Point::new(end),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.start > self.end
    }

    /// The smallest interval holding both.
    pub fn union(self, o: Interval) -> Interval {
        Interval {
            start: self.start.min(o.start),
            end: self.end.max(o.end),
        }
    }

    /// Whether some position is in both.
    pub fn overlaps(&self, o: &Interval) -> bool {
        !self.is_empty() && !o.is_empty() && self.start <= o.end && o.start <= self.end
    }
}

pub struct LiveIntervals {
    /// The accesses the intervals were computed from (their slot numbering is the columns').
    pub access: Rc<AccessTable>,
    /// Per slot, the first position it is live or accessed at (`u32::MAX` for none) and the
    /// last (0 for none): two columns, each filled a run of slots at a time.
    start: Vec<u32>,
    end: Vec<u32>,
    /// When only some slots were wanted ([`LiveIntervals::compute_within`]): those slots
    /// and the rank table of the set; the columns then hold the wanted slots alone, a slot
    /// at its rank among them (so the wanted slots of a run of slots are a run of
    /// columns).
    dense: Option<(BitSet<Slot>, Vec<u32>)>,
}

impl LiveIntervals {
    pub fn compute(shader: &Shader, live: &Liveness, points: &Points) -> LiveIntervals {
        Self::compute_within(shader, live, points, None)
    }

    /// The intervals of the slots in `wanted` (every slot when `None`): exactly what
    /// [`LiveIntervals::compute`] gives them; the other slots' are left out or partial, and
    /// must not be asked for. The walk over the accesses passes over every run of slots
    /// that holds none of them — a pass that asks about a few VGRFs (coalescing: the two
    /// ends of each move) does not pay for every access of the shader (issue 15).
    pub fn compute_within(
        shader: &Shader,
        live: &Liveness,
        points: &Points,
        wanted: Option<BitSet<Slot>>,
    ) -> LiveIntervals {
        let table = &live.access;
        let dense = wanted.map(|w| {
            let ranks = w.rank_table();
            (w, ranks)
        });
        // Columns for the wanted slots only: as many as there are, not one per slot of
        // the shader.
        let n = match &dense {
            Some((_, ranks)) => *ranks.last().unwrap() as usize,
            None => table.slots.count() as usize,
        };
        let (mut start, mut end) = (vec![u32::MAX; n], vec![0u32; n]);
        let cols = |r: SlotRange| columns(&dense, r);
        let col = |s: Slot| match &dense {
            Some((w, ranks)) => w.contains(s).then(|| w.rank(ranks, s) as usize),
            None => Some(s.get() as usize),
        };
        // The accesses, run by run, in one backward walk over the positions: the first
        // position that touches a slot is the last written to its start (whole slices
        // stored), the last is the first written to its end (a slot's end, 0 until then,
        // is written once: an end of position 0 is the same either way). A select per
        // slot, no comparison of positions.
        let order = points.order();
        for (ip, &inst) in order.iter().enumerate().rev() {
            let ip = ip as u32;
            let (defs, uses) = table.runs(inst);
            let mut touch = |r: SlotRange| {
                // (The wanted slots of the run: a run of columns; a word-level test first
                // passes over most runs when few slots are wanted.)
                if dense
                    .as_ref()
                    .is_some_and(|(w, _)| !w.intersects_range(r.clone()))
                {
                    return;
                }
                let r = cols(r);
                start[r.clone()].fill(ip);
                for e in &mut end[r] {
                    *e = if *e == 0 { ip } else { *e };
                }
            };
            for r in uses {
                touch(r);
            }
            for (r, _, _) in defs {
                touch(r);
            }
        }
        // Across blocks. A slot live into a block is live from the block's start; live
        // out of it, to its end. Only two of those widen an interval beyond what the
        // accesses and the other give: a slot live into a block is read in it or live out
        // of it (so its end is at least the block's end), and one live out of a block
        // other than the first is accessed in it or live into it (so its start is at most
        // the block's start). What is left: the starts, from the first block (but the
        // entry: live into it means read before any write, undefined, so the slot holds
        // nothing another value could not take the place of) a slot is live into, or out
        // of the entry block; the ends, from the last block a slot is live out of. Block
        // starts and ends grow with the block's place in the layout, so each slot is
        // touched once per direction (the first time it is seen), not once per block it
        // is live across.
        let nb = shader.layout.blocks.len();
        let bound = |b: usize| {
            let r = points.block(Block::from_usize(b));
            (
                r.start.get(),
                if r.is_empty() {
                    r.start.get()
                } else {
                    r.end.get() - 1
                },
            )
        };
        let mut seen = live.new_global_set();
        if nb > 0 {
            let at = bound(0).1;
            live.add_new_live_out(Block::from_usize(0), &mut seen, |s| {
                if let Some(c) = col(s) {
                    start[c] = start[c].min(at)
                }
            });
        }
        for b in 1..nb {
            let at = bound(b).0;
            live.add_new_live_in(Block::from_usize(b), &mut seen, |s| {
                if let Some(c) = col(s) {
                    start[c] = start[c].min(at)
                }
            });
        }
        seen.clear();
        for b in (0..nb).rev() {
            let at = bound(b).1;
            live.add_new_live_out(Block::from_usize(b), &mut seen, |s| {
                if let Some(c) = col(s) {
                    end[c] = end[c].max(at)
                }
            });
        }
        LiveIntervals {
            access: live.access.clone(),
            start,
            end,
            dense,
        }
    }

    /// The interval of slots `r` together.
    pub fn slots(&self, r: SlotRange) -> Interval {
        let r = columns(&self.dense, r);
        Interval {
            start: Point::new(
                self.start[r.clone()]
                    .iter()
                    .fold(u32::MAX, |a, &b| a.min(b)),
            ),
            end: Point::new(self.end[r].iter().fold(0, |a, &b| a.max(b))),
        }
    }

    /// The interval of VGRF `v`: from the first position any of its slots is live at to the
    /// last.
    pub fn vgrf(&self, shader: &Shader, v: Vgrf) -> Interval {
        self.slots(self.access.slots.vgrf(shader, v.index() as u32))
    }

    /// Whether VGRFs `a` and `b` are live at a common position, so cannot share storage
    /// (positions are inclusive: a value last read by the instruction writing the other
    /// interferes with it).
    pub fn interfere(&self, shader: &Shader, a: Vgrf, b: Vgrf) -> bool {
        a != b && self.vgrf(shader, a).overlaps(&self.vgrf(shader, b))
    }
}

/// The columns of slots `r` ([`LiveIntervals::dense`]): the wanted slots among them.
fn columns(dense: &Option<(BitSet<Slot>, Vec<u32>)>, r: SlotRange) -> std::ops::Range<usize> {
    match dense {
        Some((w, ranks)) => w.rank(ranks, r.start) as usize..w.rank(ranks, r.end) as usize,
        None => r.start.get() as usize..r.end.get() as usize,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PassCx;

    #[test]
    fn intervals_and_interference() {
        let s = eubatch_ir::text::parse_shader(
            "shader \"i\" stage FS width 8 target skl
vgrf0 1x32
vgrf1 1x32
vgrf2 1x32
block0:
    mov(8) vgrf0:F, g2<8,8,1>:F
    add(8) vgrf1:F, vgrf0:F, 1f
    mov(8) vgrf2:F, vgrf1:F
    mov(8) g10<8,8,1>:F, vgrf2:F
",
        )
        .unwrap();
        let mut cx = PassCx::default();
        let iv = cx.intervals(&s).unwrap();
        let v = Vgrf::from_usize;
        assert_eq!(iv.vgrf(&s, v(0)), Interval::between(0, 1));
        assert_eq!(iv.vgrf(&s, v(1)), Interval::between(1, 2));
        assert_eq!(iv.vgrf(&s, v(2)), Interval::between(2, 3));
        // Each value meets the next where it is read to write it; 0 and 2 never meet.
        assert!(iv.interfere(&s, v(0), v(1)));
        assert!(iv.interfere(&s, v(1), v(2)));
        assert!(!iv.interfere(&s, v(0), v(2)));
        assert!(!iv.interfere(&s, v(0), v(0)));
    }
}
