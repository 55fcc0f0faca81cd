//! Dead-code elimination: removes instructions whose every write is dead and that have no
//! other effect; an instruction whose VGRF result is dead but whose flag write is live keeps
//! only the flag (its destination becomes null).
//!
//! Liveness is per 4-byte slot ([`crate::liveness`]), so a value overwritten by two SIMD8
//! half-float writes, or by its two strided 32-bit halves, is dead after them (Mesa, which
//! only sees whole-register writes, keeps it: seeds 002 and 003). Rules that limit it:
//! messages and virtual opcodes not known to be pure ([`crate::access::is_pure`]), writes to
//! fixed registers or architecture registers other than the flags, `EOT` and control flow
//! are never removed.

use eubatch_ir::{Operand, RegFile, Shader};

use crate::access::{
    for_each_def, for_each_def_ignoring_mask, for_each_use, has_side_effects, writes_flag,
};
use crate::PassCx;

/// Any code, vec4 included: what the slot model cannot read element by element
/// ([`crate::access::opaque`]: every vec4 instruction, Align16 swizzles and writemasks)
/// reads and writes its VGRFs whole and defines nothing fully, so such an instruction goes
/// only when nothing reads any part of its destination afterwards, and a value written
/// `.x` then `.y` stays live through both.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::ANY;

pub fn run(shader: &mut Shader, cx: &mut PassCx) -> bool {
    let Some(live) = cx.liveness(shader) else {
        return false;
    };
    let slots = &live.slots;
    let mut progress = false;
    // The live set walking backwards through a block: one for the run.
    let mut l = crate::bitset::BitSet::new(slots.count());
    for b in 0..shader.layout.blocks.len() {
        let block = eubatch_ir::Block::from_usize(b);
        l.copy_from(&live.live_out[block]);
        let insts = shader.layout.blocks[block].insts.clone();
        let mut keep = vec![true; insts.len()];
        for (k, &inst) in insts.iter().enumerate().rev() {
            let (mut vgrf_live, mut flag_live, mut writes) = (false, false, false);
            for_each_def(shader, slots, inst, |s, _| {
                writes = true;
                if l.contains(s) {
                    if s >= slots.vgrf_slots {
                        flag_live = true;
                    } else {
                        vgrf_live = true;
                    }
                }
            });
            let dst = shader.insts.dst[inst];
            let op = shader.insts.opcode[inst];
            let ctl = shader.insts.control[inst];
            if op == eubatch_ir::Opcode::Undef
                && overwritten_before_read(shader, slots, &insts[k..])
            {
                keep[k] = false;
                progress = true;
                continue;
            }
            if !has_side_effects(shader, inst) && !vgrf_live && !flag_live {
                // `undef` and everything pure that writes nothing live.
                let _ = writes;
                keep[k] = false;
                progress = true;
                continue;
            }
            if !has_side_effects(shader, inst)
                && !vgrf_live
                && dst.file == RegFile::Vgrf
                && writes_flag(op, ctl.cmod)
                && op.alu_arity().is_some()
                && !crate::access::opaque(shader, inst)
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
                progress = true;
            }
            for_each_def(shader, slots, inst, |s, full| {
                if full {
                    l.remove(s);
                }
            });
            for_each_use(shader, slots, inst, |s| l.insert(s));
        }
        if keep.iter().any(|k| !k) {
            let mut i = 0;
            shader.layout.blocks[block].insts.retain(|_| {
                i += 1;
                keep[i - 1]
            });
        }
    }
    if progress {
        crate::relayout(shader);
    }
    progress
}

/// Whether the `undef` first in `insts` is overwritten in all its bytes, by writes that are
/// not predicated, before anything reads them. Liveness keeps a value written under the
/// execution mask live across the write where the VGRF is also read without the mask (the
/// disabled channels keep the old value); an `undef` gives no channel a value, so those
/// channels are as undefined without it, and it goes (Mesa's liveness, which does not
/// look at masks, drops it the same way).
fn overwritten_before_read(
    shader: &Shader,
    slots: &crate::access::Slots,
    insts: &[eubatch_ir::Inst],
) -> bool {
    let Some((&undef, rest)) = insts.split_first() else {
        return false;
    };
    let mut pending = hashbrown::HashSet::new();
    for_each_def(shader, slots, undef, |s, _| {
        pending.insert(s);
    });
    for &inst in rest {
        if pending.is_empty() {
            break;
        }
        let mut read = false;
        for_each_use(shader, slots, inst, |s| read |= pending.contains(&s));
        if read {
            return false;
        }
        for_each_def_ignoring_mask(shader, slots, inst, |s, full| {
            if full {
                pending.remove(&s);
            }
        });
    }
    pending.is_empty()
}
