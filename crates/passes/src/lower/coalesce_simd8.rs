//! SIMD8 coalescing (seed 001): in a SIMD8 shader, two consecutive SIMD8 instructions of
//! one opcode whose destinations are adjacent registers of one VGRF, and whose sources are
//! adjacent registers too (or the same scalar or immediate), become one SIMD16 instruction:
//!
//! ```text
//! mul(8) vgrf5:F, vgrf2:F, u0<0>:F          mul(16) vgrf5:F, vgrf2:F, u0<0>:F NoMask
//! mul(8) vgrf5+1.0:F, vgrf2+1.0:F, u0<0>:F
//! ```
//!
//! A SIMD8 thread has no execution mask for channels 8-15 (the dispatch mask's upper bits are
//! junk), so the SIMD16 instruction runs with NoMask (WE_all) and also writes the channels
//! the SIMD8 pair left alone. That is only equivalent where nothing can see those channels:
//! both halves of the destination hold nothing live before the pair (the old values are dead
//! in every channel), and the pair is outside control flow, where the channels a masked write
//! skips are the ones the thread was not dispatched with, whose values no output reads.
//! A pair already NoMask merges anywhere.
//!
//! Rules that limit it: plain ALU instructions without predicate or conditional modifier
//! (a flag write would cover 16 channels), the same saturate and types, 32-bit stride-one
//! destinations at a register boundary; the second instruction does not read the first's
//! destination (the hardware runs a SIMD16 instruction as two SIMD8 halves, first half first);
//! and the SIMD16 instruction is allowed its width on the target
//! ([`eubatch_ir::width_rules::max_width`]: three-source instructions on gen7.0, math on
//! gen7 and 64-bit types stay SIMD8). Off by default: `--passes lower,coalesce_simd8`
//! measures it.

use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::{Control, Inst, Operand, RegFile, Region, Shader};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, cx: &mut PassCx) -> Changed {
    // It runs once per pipeline: whatever it changed, every analysis is dropped.
    Changed::when(lower_all(shader, cx), Changed::EVERYTHING)
}

fn lower_all(shader: &mut Shader, cx: &mut PassCx) -> bool {
    if shader.dispatch_width != 8 {
        return false;
    }
    let Some(live) = cx.liveness(shader) else {
        return false;
    };
    let table = &live.access;
    let mut progress = false;
    let nesting = cx.nesting(shader);
    let mut removed = hashbrown::HashSet::new();
    let mut l = crate::analysis::scratch_set::ScratchSet::new(table.slots.count());
    for b in 0..shader.layout.blocks.len() {
        let block = eubatch_ir::Block::from_usize(b);
        let insts = shader.layout.blocks[block].insts.clone();
        // Per instruction: whether its destination's old value is dead just before it.
        let mut fresh = vec![false; insts.len()];
        live.load_live_out(block, &mut l);
        for (k, &inst) in insts.iter().enumerate().rev() {
            for (s, full) in table.defs(inst) {
                if full {
                    l.remove(s);
                }
            }
            for s in table.uses(inst) {
                l.insert(s);
            }
            fresh[k] = table.defs(inst).all(|(s, _)| !l.contains(s));
        }
        let top_level = nesting.block_depth(block) == 0;
        let mut k = 0;
        while k + 1 < insts.len() {
            let (a, c) = (insts[k], insts[k + 1]);
            if let Some(srcs) = pair(shader, a, c) {
                let no_mask = shader.insts.control[a].no_mask();
                let safe = no_mask || (top_level && fresh[k] && fresh[k + 1]);
                if safe && widen(shader, a, &srcs) {
                    removed.insert(c);
                    progress = true;
                    k += 2;
                    continue;
                }
            }
            k += 1;
        }
    }
    if progress {
        crate::remove_set(shader, &removed);
    }
    progress
}

/// The SIMD16 sources of `a` and `c` merged, if they form a pair.
fn pair(shader: &Shader, a: Inst, c: Inst) -> Option<Vec<Operand>> {
    let op = shader.insts.opcode[a];
    let (ca, cc) = (shader.insts.control[a], shader.insts.control[c]);
    let (da, dc) = (shader.insts.dst[a], shader.insts.dst[c]);
    let plain = |ctl: Control| {
        ctl.exec_size == 8
            && ctl.group == 0
            && ctl.predicate == Predicate::None
            && ctl.cmod == CondMod::None
            && !ctl.eot()
    };
    if op != shader.insts.opcode[c]
        || op.alu_arity().is_none()
        || !crate::analysis::access::is_pure(op)
        || !plain(ca)
        || ca != cc
        || da.file != RegFile::Vgrf
        || dc.file != RegFile::Vgrf
        || da.nr != dc.nr
        || da.ty != dc.ty
        || da.ty.size() != 4
        || da.stride != 1
        || dc.stride != 1
        || da.offset % 32 != 0
        || dc.offset != da.offset + 32
        || shader.insts.size_written[a] != 32
        || shader.insts.size_written[c] != 32
    {
        return None;
    }
    // The second half must not read what the first half writes.
    let reads_first = shader.srcs(c).iter().any(|s| {
        s.file == RegFile::Vgrf && s.nr == da.nr && {
            let span = s.span(8);
            s.offset < da.offset + 32 && da.offset < s.offset + span
        }
    });
    if reads_first {
        return None;
    }
    shader
        .srcs(a)
        .iter()
        .zip(shader.srcs(c))
        .map(|(x, y)| merged_source(x, y))
        .collect()
}

/// One SIMD16 source that reads `x` in channels 0-7 and `y` in 8-15.
fn merged_source(x: &Operand, y: &Operand) -> Option<Operand> {
    if x.mods != y.mods || x.ty != y.ty {
        return None;
    }
    match x.file {
        RegFile::Imm => (x == y).then_some(*x),
        RegFile::FixedGrf => {
            let scalar = x.region == Region::new(0, 1, 0);
            let packed = x.region == Region::new(8, 8, 1) && x.ty.size() == 4;
            if x == y && scalar {
                Some(*x)
            } else if packed && y.region == x.region && x.offset % 32 == 0 {
                let next = (y.nr == x.nr + 1 && y.offset == x.offset)
                    || (y.nr == x.nr && y.offset == x.offset + 32);
                next.then_some(*x)
            } else {
                None
            }
        }
        RegFile::Vgrf | RegFile::Attr | RegFile::Uniform => {
            if x == y && x.stride == 0 {
                Some(*x)
            } else if x.stride == 1
                && y.stride == 1
                && x.ty.size() == 4
                && x.offset % 32 == 0
                && y.nr == x.nr
                && y.offset == x.offset + 32
            {
                Some(*x)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Makes `a` the SIMD16 NoMask instruction reading `srcs`, if the target allows it that
/// wide; leaves it unchanged otherwise.
fn widen(shader: &mut Shader, a: Inst, srcs: &[Operand]) -> bool {
    let old_ctl = shader.insts.control[a];
    let old_srcs = shader.srcs(a).to_vec();
    let old_size = shader.insts.size_written[a];
    let mut ctl = old_ctl;
    ctl.exec_size = 16;
    ctl.set(Control::NO_MASK, true);
    shader.insts.control[a] = ctl;
    shader.set_srcs(a, srcs);
    shader.insts.size_written[a] = 64;
    let (width, _) = eubatch_ir::width_rules::max_width(shader, a);
    if width >= 16 {
        return true;
    }
    shader.insts.control[a] = old_ctl;
    shader.set_srcs(a, &old_srcs);
    shader.insts.size_written[a] = old_size;
    false
}
