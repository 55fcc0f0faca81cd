//! Dead-code elimination: removes instructions whose every write is dead and that have no
//! other effect; an instruction whose VGRF result is dead but whose flag write is live keeps
//! only the flag (its destination becomes null).
//!
//! Liveness is per 4-byte slot ([`crate::analysis::liveness`]), so a value overwritten by two
//! SIMD8 half-float writes, or by its two strided 32-bit halves, is dead after them (Mesa,
//! which only sees whole-register writes, keeps it: seeds 002 and 003). Rules that limit it:
//! messages and virtual opcodes not known to be pure ([`crate::analysis::access::is_pure`]),
//! writes to fixed registers or architecture registers other than the flags, `EOT` and control
//! flow are never removed.

use eubatch_ir::{Operand, RegFile, Shader};

use crate::analysis::access::{for_each_def_run, for_each_use_run, has_side_effects, writes_flag};
use crate::analysis::access::{Slot, SlotRange};
use crate::analysis::bitset::BitSet;
use crate::analysis::changed::{Changed, Snapshot};
use crate::PassCx;

/// Any code, vec4 included: what the slot model cannot read element by element
/// ([`crate::analysis::access::opaque`]: every vec4 instruction, Align16 swizzles and writemasks)
/// reads and writes its VGRFs whole and defines nothing fully, so such an instruction goes
/// only when nothing reads any part of its destination afterwards, and a value written
/// `.x` then `.y` stays live through both.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::ANY;

pub fn run(shader: &mut Shader, cx: &mut PassCx) -> Changed {
    let Some(live) = cx.liveness(shader) else {
        return Changed::NOTHING;
    };
    let table = &live.access;
    let slots = &table.slots;
    let mut progress = false;
    // The live set walking backwards through a block: one for the run.
    let mut l = crate::analysis::live_walk::LiveWalk::new(&live);
    // Per slot, what the rest of the block does to it first (for `undef`s).
    let mut next = NextAccess::new(slots.count());
    let most = crate::largest_block(shader);
    let mut insts = Vec::with_capacity(most);
    let mut keep = Vec::with_capacity(most);
    let mut undefs_before = Vec::new();
    let mut blocks_before = None;
    for b in 0..shader.layout.blocks.len() {
        let block = eubatch_ir::Block::from_usize(b);
        l.start(block);
        next.clear();
        insts.clear();
        insts.extend_from_slice(&shader.layout.blocks[block].insts);
        keep.clear();
        keep.resize(insts.len(), true);
        // How many `undef`s come before each instruction of the block: what an instruction
        // does to each slot matters only to an `undef` before it.
        undefs_before.clear();
        let mut n = 0;
        for &inst in &insts {
            undefs_before.push(n);
            n += (shader.insts.opcode[inst] == eubatch_ir::Opcode::Undef) as u32;
        }
        for (k, &inst) in insts.iter().enumerate().rev() {
            let (mut vgrf_live, mut flag_live) = (false, false);
            // Whether this instruction's destination was just replaced by null: the table
            // describes it as it was, so its accesses are computed anew.
            let mut rewritten = false;
            // (No run holds both VGRF and flag slots.)
            for (r, _, _) in table.def_runs(inst) {
                if l.intersects_range(r.clone()) {
                    if r.start >= slots.first_flag() {
                        flag_live = true;
                    } else {
                        vgrf_live = true;
                    }
                }
            }
            let dst = shader.insts.dst[inst];
            let op = shader.insts.opcode[inst];
            let ctl = shader.insts.control[inst];
            // Whether it has no effect but its writes: asked once, and only of an
            // instruction whose VGRF result is dead (both rules below need that).
            let pure = !vgrf_live && !has_side_effects(shader, inst);
            if op == eubatch_ir::Opcode::Undef
                && table.def_runs(inst).all(|(r, _, _)| next.overwritten(r))
                || pure && !flag_live
            {
                // An `undef` overwritten before any read (see [`NextAccess`]), or anything
                // pure (`undef` included) that writes nothing live.
                keep[k] = false;
                progress = true;
            } else if pure
                && dst.file == RegFile::Vgrf
                && writes_flag(op, ctl.cmod)
                && op.alu_arity().is_some()
                && !crate::analysis::access::opaque(shader, inst)
            {
                // (An opaque instruction keeps its destination: which flag bits an Align16
                // write under a writemask sets is not modelled.)
                // Keep the flag write only.
                let mut null = Operand::arf(
                    eubatch_ir::operand::arf::NULL,
                    0,
                    dst.ty,
                    eubatch_ir::Region::new(8, 8, 1),
                );
                null.stride = 1;
                shader.insts.dst[inst] = null;
                shader.insts.size_written[inst] = shader.default_size_written(inst);
                rewritten = true;
                progress = true;
                for_each_def_run(shader, slots, inst, |r, full, _| {
                    if full {
                        l.write(r);
                    }
                });
                for_each_use_run(shader, slots, inst, |r| l.read(r));
            } else {
                for (r, full, _) in table.def_runs(inst) {
                    if full {
                        l.write(r);
                    }
                }
                for r in table.use_runs(inst) {
                    l.read(r);
                }
            }
            // What this instruction, removed or not, does first to each slot, as the
            // `undef`s before it see it.
            if undefs_before[k] == 0 {
                continue;
            }
            if rewritten {
                for_each_def_run(shader, slots, inst, |r, _, full| next.write(r, full));
                for_each_use_run(shader, slots, inst, |r| next.read(r));
            } else {
                for (r, _, full) in table.def_runs(inst) {
                    next.write(r, full);
                }
                for r in table.use_runs(inst) {
                    next.read(r);
                }
            }
        }
        if keep.iter().any(|k| !k) {
            // The blocks as they were, for what re-splitting them changes (the blocks
            // walked so far lost nothing).
            blocks_before.get_or_insert_with(|| Snapshot::blocks(shader));
            let mut i = 0;
            shader.layout.blocks[block].insts.retain(|_| {
                i += 1;
                keep[i - 1]
            });
        }
    }
    // Instructions removed, or rewritten to keep only their flag write.
    if !progress {
        return Changed::NOTHING;
    }
    let before = blocks_before.unwrap_or_else(|| Snapshot::blocks(shader));
    Changed::INSTRUCTION_DATA_FLOW | crate::relayout(shader, &before)
}

/// For a backward walk through a block: per slot, what the instructions after the current
/// one do to it first — read it, or write all its bytes unpredicated. An `undef` whose
/// every slot is next written so goes: nothing reads what it leaves undefined. Liveness
/// keeps a value written under the execution mask live across the write where the VGRF is
/// also read without the mask (the disabled channels keep the old value); an `undef` gives
/// no channel a value, so those channels are as undefined without it (Mesa's liveness,
/// which does not look at masks, drops it the same way). One walk answers every `undef`
/// of the block, where scanning forward from each was quadratic.
struct NextAccess {
    /// The slots whose first access after the current instruction is a whole write
    /// (others: a read first, or nothing after).
    overwritten: BitSet<Slot>,
    /// Whether anything was recorded since the last clear.
    used: bool,
}

impl NextAccess {
    fn new(slots: u32) -> NextAccess {
        NextAccess {
            overwritten: BitSet::new(slots),
            used: false,
        }
    }

    fn clear(&mut self) {
        if std::mem::take(&mut self.used) {
            self.overwritten.clear();
        }
    }

    /// A write by the instruction stepped back over (its reads come after, and win).
    fn write(&mut self, r: SlotRange, full: bool) {
        if full {
            self.used = true;
            self.overwritten.insert_range(r);
        }
    }

    fn read(&mut self, r: SlotRange) {
        self.overwritten.remove_range(r);
    }

    fn overwritten(&self, r: SlotRange) -> bool {
        self.overwritten.contains_range(r)
    }
}
