//! Interpolation from the thread payload: a `linterp` whose barycentrics are the payload's
//! own registers, gathered into a VGRF only to put them in component order (all u, then
//! all v), becomes a `pln` that reads the payload registers in the order the hardware
//! delivers them — for channels 8k..8k+7, u in register 2k and v in register 2k+1 of the
//! barycentric setup (PRM Vol. 2a "PLN"; Mesa reads `delta_xy` from the payload the same
//! way, which is why its pre-RA code has `linterp(16) ..., g2:F, ...` and no gathering
//! moves). The gathering moves are then dead.
//!
//! Rules that limit it: every 32-byte register of the gathered VGRF is written once in the
//! whole shader, by a NoMask `mov(8)` of one whole fixed register with no modifier,
//! predicate or conditional modifier, and no instruction writes those fixed registers; the
//! registers found are exactly the hardware's pairs for the `linterp`'s channels; the
//! `pln` is at most SIMD16, so a SIMD32 `linterp` becomes two, each reading its own
//! half's registers (a SIMD32 payload holds the second half's eight registers on; run
//! before SIMD-width lowering, which would otherwise gather each half's barycentrics into
//! a temporary).

use eubatch_ir::{Opcode, Operand, RegFile, Region, Shader, Type};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, cx: &mut PassCx) -> Changed {
    // It runs once per pipeline: whatever it changed, every analysis is dropped.
    Changed::when(lower_all(shader, cx), Changed::EVERYTHING)
}

fn lower_all(shader: &mut Shader, _cx: &mut PassCx) -> bool {
    // The fixed registers anything writes, and the payload register each 32-byte register
    // of a VGRF was gathered from (None: written otherwise, or more than once).
    let reg_size = shader.reg_size();
    let mut fixed_written = std::collections::HashSet::new();
    let mut gathered: hashbrown::HashMap<(u32, u32), Option<u32>> = hashbrown::HashMap::new();
    for inst in shader.layout.insts() {
        let dst = shader.insts.dst[inst];
        let size = shader.insts.size_written[inst].max(1);
        match dst.file {
            RegFile::FixedGrf => {
                for r in dst.nr..=dst.nr + (dst.offset + size - 1) / reg_size {
                    fixed_written.insert(r);
                }
            }
            RegFile::Vgrf => {
                let from = payload_copy(shader, inst);
                for r in dst.offset / reg_size..=(dst.offset + size - 1) / reg_size {
                    gathered
                        .entry((dst.nr, r))
                        .and_modify(|e| *e = None)
                        .or_insert(from.filter(|_| dst.offset % reg_size == 0 && size == reg_size));
                }
            }
            _ => {}
        }
    }
    let mut progress = false;
    for b in 0..shader.layout.blocks.len() {
        let block = eubatch_ir::Block::from_usize(b);
        let list = std::mem::take(&mut shader.layout.blocks[block].insts);
        let mut out = Vec::with_capacity(list.len());
        for inst in list {
            match payload_base(shader, inst, &gathered, &fixed_written) {
                Some(bases) => {
                    progress = true;
                    out.extend(to_pln(shader, inst, &bases));
                }
                None => out.push(inst),
            }
        }
        shader.layout.blocks[block].insts = out;
    }
    progress
}

/// The first payload register of the barycentrics each piece of at most 16 channels of a
/// `linterp` reads through a gathering VGRF, if it does.
fn payload_base(
    shader: &Shader,
    inst: eubatch_ir::Inst,
    gathered: &hashbrown::HashMap<(u32, u32), Option<u32>>,
    fixed_written: &std::collections::HashSet<u32>,
) -> Option<Vec<u32>> {
    if shader.insts.opcode[inst] != Opcode::Linterp {
        return None;
    }
    let exec = shader.insts.control[inst].exec_size as u32;
    let delta = shader.srcs(inst)[0];
    if delta.file != RegFile::Vgrf
        || delta.offset % shader.reg_size() != 0
        || delta.stride != 1
        || delta.ty != Type::F
        || delta.mods != eubatch_ir::Mods::NONE
        || exec % 8 != 0
    {
        return None;
    }
    let first = delta.offset / shader.reg_size();
    let blocks = exec / 8;
    let reg = |r: u32| gathered.get(&(delta.nr, r)).copied().flatten();
    // Each piece of at most 16 channels reads its pairs from its own place: SIMD32
    // payloads put the second half's barycentrics after the first half's other setup
    // registers, not right after its pairs.
    let per_piece = blocks.min(2);
    let mut bases = Vec::new();
    for piece in 0..blocks / per_piece {
        let base = reg(first + piece * per_piece)?;
        let hardware_order = (0..per_piece).all(|k| {
            let b = piece * per_piece + k;
            reg(first + b) == Some(base + 2 * k)
                && reg(first + blocks + b) == Some(base + 2 * k + 1)
        });
        let untouched = (base..base + 2 * per_piece).all(|r| !fixed_written.contains(&r));
        if !(hardware_order && untouched) {
            return None;
        }
        bases.push(base);
    }
    Some(bases)
}

/// The `pln`s that do what `inst` did, at most 16 channels each (PLN's limit, in the
/// target's width rules): the piece for channels 16k.. reads the payload from `bases[k]`.
fn to_pln(shader: &mut Shader, inst: eubatch_ir::Inst, bases: &[u32]) -> Vec<eubatch_ir::Inst> {
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let width = exec.min(16);
    let dst = shader.insts.dst[inst];
    let setup = shader.srcs(inst)[1];
    let size_written = shader.insts.size_written[inst];
    let n = exec / width;
    (0..n)
        .map(|k| {
            let mut d = dst;
            d.offset += k * width * dst.stride as u32 * dst.ty.size();
            let delta = Operand::fixed(bases[k as usize], 0, Type::F, Region::new(8, 8, 1));
            // Each piece writes its share of what the whole instruction writes.
            eubatch_ir::Builder::with_control(ctl)
                .group(width as u8, k as u8)
                .alu_sized(shader, Opcode::Pln, d, &[setup, delta], size_written / n)
        })
        .collect()
}

/// The fixed register a `mov(8)` NoMask copies whole and unchanged, if `inst` is one.
fn payload_copy(shader: &Shader, inst: eubatch_ir::Inst) -> Option<u32> {
    let ctl = shader.insts.control[inst];
    let src = *shader.srcs(inst).first()?;
    let dst = shader.insts.dst[inst];
    let plain = shader.is_raw_move(inst)
        && ctl.exec_size == 8
        && ctl.no_mask()
        && dst.ty.size() == 4
        && dst.ty == src.ty
        && dst.stride == 1
        && src.file == RegFile::FixedGrf
        && src.offset == 0
        && src.region == Region::new(8, 8, 1);
    plain.then_some(src.nr)
}
