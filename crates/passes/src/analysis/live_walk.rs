//! The live set of a backward walk through one block, as DCE keeps it: live at the block's
//! end ([`Liveness`]), then each instruction's full writes taken out and its reads put in.
//!
//! The set is not copied out of the block's live-out set into the slot numbering at each
//! block (issue 15: that copy, and emptying it again, cost blocks × live slots, most of
//! DCE on dolphin's ubershaders). It is kept as two changes to the live-out set, which it
//! reads in place: the slots read since the end of the block (`read`, slot numbering) and
//! the global slots written since (`killed`, global numbering). A slot is live when it was
//! read since, or when it is live out and not written since. Starting a block empties both
//! at the cost of what the last block put in them ([`ScratchSet`]).

use eubatch_ir::Block;

use crate::analysis::access::{Slot, SlotRange};
use crate::analysis::bitset::BitSet;
use crate::analysis::liveness::{GlobalSlot, Liveness};
use crate::analysis::scratch_set::ScratchSet;

pub struct LiveWalk<'a> {
    live: &'a Liveness,
    /// The live-out set of the block walked (none before the first [`LiveWalk::start`]).
    out: Option<&'a BitSet<GlobalSlot>>,
    /// Slots read by the instructions walked so far (after the current one).
    read: ScratchSet<Slot>,
    /// Global slots fully written by them (live out or not).
    killed: ScratchSet<GlobalSlot>,
}

impl<'a> LiveWalk<'a> {
    /// A walk over the blocks of the shader `live` describes; [`LiveWalk::start`] each.
    pub fn new(live: &'a Liveness) -> LiveWalk<'a> {
        LiveWalk {
            live,
            out: None,
            read: ScratchSet::new(live.access.slots.count()),
            killed: ScratchSet::new(live.global_slots().len() as u32),
        }
    }

    /// At the end of block `b`: what is live there.
    pub fn start(&mut self, b: Block) {
        self.out = Some(self.live.live_out_set(b));
        self.read.clear();
        self.killed.clear();
    }

    /// An instruction reads `r`: live before it.
    #[inline]
    pub fn read(&mut self, r: SlotRange) {
        self.read.insert_range(r);
    }

    /// An instruction fully writes `r`: dead before it (until read again).
    #[inline]
    pub fn write(&mut self, r: SlotRange) {
        let g = self.live.numbers(&r);
        self.read.remove_range(r);
        if g.start < g.end {
            self.killed.insert_range(g);
        }
    }

    /// Whether a slot of `r` is live at this point of the walk.
    #[inline]
    pub fn intersects_range(&self, r: SlotRange) -> bool {
        if self.read.intersects_range(r.clone()) {
            return true;
        }
        let g = self.live.numbers(&r);
        g.start < g.end
            && self
                .out
                .is_some_and(|out| out.intersects_range_excluding(g, &self.killed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk answers as the live-out set loaded into the slot numbering and changed in
    /// place (what DCE did before) does, at every step of every block.
    #[test]
    fn answers_as_the_loaded_set_does() {
        let shader = eubatch_ir::text::parse_shader(
            "shader \"w\" stage FS width 8 target skl
vgrf0 2x32
vgrf1 1x32
vgrf2 1x32
block0:
    mov(8) vgrf0:F, g2<8,8,1>:F
    mov(8) vgrf0+1.0:F, g3<8,8,1>:F
    mov(8) vgrf1:F, g4<8,8,1>:F
block1:
    do(8) (null):UD
block2:
    add(8) vgrf2:F, vgrf0:F, vgrf1:F
    mov(8) vgrf1:F, vgrf2:F
    mov(8) vgrf0+1.0:F, vgrf1:F
    while(8) (null):UD
block3:
    add(8) g10<8,8,1>:F, vgrf0+1.0:F, vgrf1:F
",
        )
        .unwrap();
        let mut cx = crate::PassCx::default();
        let live = cx.liveness(&shader).unwrap();
        let table = &live.access;
        let n = table.slots.count();
        let mut walk = LiveWalk::new(&live);
        let mut loaded = ScratchSet::new(n);
        let mut checked = 0;
        for (b, block) in shader.layout.blocks.iter_enumerated() {
            walk.start(b);
            live.load_live_out(b, &mut loaded);
            for &inst in block.insts.iter().rev() {
                for s in 0..n {
                    let r = Slot::new(s)..Slot::new(s + 1);
                    assert_eq!(walk.intersects_range(r.clone()), loaded.intersects_range(r));
                    checked += 1;
                }
                for (r, full, _) in table.def_runs(inst) {
                    if full {
                        walk.write(r.clone());
                        loaded.remove_range(r);
                    }
                }
                for r in table.use_runs(inst) {
                    walk.read(r.clone());
                    loaded.insert_range(r);
                }
            }
        }
        assert!(checked > 20);
        // Something is live across the loop's blocks (the walk read the live-out sets).
        assert!(shader.layout.blocks.indices().any(|b| live
            .live_out_set(b)
            .iter()
            .next()
            .is_some()));
    }
}
