//! SIMD-width lowering: an instruction wider than its target allows becomes one instruction
//! per channel group of the allowed width (SIMD32 → 2 × SIMD16, SIMD16 → 2 × SIMD8, and
//! SIMD4 where gen7 fp64 needs it), each with its channel group (`group`), its slice of
//! every operand's region, and the original predicate, conditional modifier, flag register,
//! saturate and NoMask. All width knowledge is in the target's rules
//! ([`eubatch_ir::width_rules`]); this pass only applies them (seed
//! 004_51683a3e28f25c23.txt: one splitting pass instead of loops in every emitter).
//!
//! Rules that limit it:
//! - Only the opcodes the width rules cover (ALU, math, interpolation, derivatives,
//!   `sel_exec`, `cluster_broadcast`) are split here; messages keep their width until
//!   their lowering splits them. A `cluster_broadcast` whose clusters are wider than a
//!   piece is left whole: a piece would read another piece's channels.
//! - Sources are sliced in place, never copied: a scalar region or immediate is the same
//!   for every group, a VGRF region moves by the group's channels times its stride. Where
//!   the destination overlaps a source without being the same region, the first piece
//!   would overwrite what a later piece reads (Mesa copies through a temporary there);
//!   such instructions, and fixed-register regions whose rows do not divide a piece, are
//!   left whole and counted in [`Outcome::left_whole`].
//! - Flags: each piece keeps the flag subregister; the channel group selects its bits, as
//!   the hardware does for split SIMD32 code.

use eubatch_ir::width_rules::{max_width, source_layout, SourceLayout};

use crate::analysis::changed::Changed;
use crate::lower::horiz_offset;
use eubatch_ir::{Builder, Inst, Operand, RegFile, Shader};

use crate::PassCx;

/// What one run did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub split: usize,
    pub left_whole: usize,
}

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> Changed {
    // It runs once per pipeline: whatever it changed, every analysis is dropped.
    Changed::when(lower(shader).split > 0, Changed::EVERYTHING)
}

/// Splits every instruction wider than its rules allow.
pub fn lower(shader: &mut Shader) -> Outcome {
    let mut out = Outcome::default();
    for b in 0..shader.layout.blocks.len() {
        let block = eubatch_ir::Block::from_usize(b);
        let old = std::mem::take(&mut shader.layout.blocks[block].insts);
        let mut new = Vec::with_capacity(old.len());
        for inst in old {
            let (width, _) = max_width(shader, inst);
            let exec = shader.insts.control[inst].exec_size as u32;
            if width >= exec {
                new.push(inst);
                continue;
            }
            match pieces(shader, inst, width) {
                Some(p) => {
                    out.split += 1;
                    new.extend(p);
                }
                None => {
                    out.left_whole += 1;
                    new.push(inst);
                }
            }
        }
        shader.layout.blocks[block].insts = new;
    }
    out
}

/// Whether two operands name overlapping bytes of one VGRF without being the same region.
fn overlaps_differently(dst: &Operand, dst_bytes: u32, src: &Operand, src_bytes: u32) -> bool {
    if dst.file != RegFile::Vgrf || src.file != RegFile::Vgrf || dst.nr != src.nr {
        return false;
    }
    let same =
        dst.offset == src.offset && dst.stride == src.stride && dst.ty.size() == src.ty.size();
    let overlap = dst.offset < src.offset + src_bytes && src.offset < dst.offset + dst_bytes;
    overlap && !same
}

/// The pieces of `inst` at `width` channels each, created in the columns, with the copies
/// that gather multi-component sources; `None` if it cannot be split in place.
fn pieces(shader: &mut Shader, inst: Inst, width: u32) -> Option<Vec<Inst>> {
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let n = exec / width;
    let op = shader.insts.opcode[inst];
    let dst = shader.insts.dst[inst];
    let srcs: Vec<Operand> = shader.srcs(inst).to_vec();
    let size_written = shader.insts.size_written[inst];
    let send_info = shader.send_info(inst).copied();
    if !size_written.is_multiple_of(n) {
        return None;
    }
    // Each piece reads its own clusters only where a cluster fits in it.
    if op == eubatch_ir::Opcode::ClusterBroadcast
        && srcs
            .get(2)
            .is_none_or(|c| c.file != RegFile::Imm || c.imm_bits() > width as u64)
    {
        return None;
    }
    let layouts: Vec<SourceLayout> = (0..srcs.len())
        .map(|i| source_layout(op, &srcs, i))
        .collect();
    let comps: Vec<u32> = layouts
        .iter()
        .zip(&srcs)
        .map(|(l, s)| match l {
            // An immediate or a missing source is the same for every component.
            _ if matches!(s.file, RegFile::Imm | RegFile::Bad) => 1,
            SourceLayout::Components(n) => *n,
            SourceLayout::PlnPairs => 1,
        })
        .collect();
    if layouts.contains(&SourceLayout::PlnPairs) && width % 8 != 0 {
        return None;
    }
    // A message's result holds several components of `exec` channels each: each piece
    // writes its own temporary, whose components are then copied into place (Mesa's
    // `emit_zip`).
    let dst_comps = if op.is_message() && dst.file == RegFile::Vgrf {
        let comp = exec * dst.ty.size() * dst.stride.max(1) as u32;
        if size_written % comp != 0 || dst.stride != 1 {
            return None;
        }
        size_written / comp
    } else {
        1
    };
    if dst_comps > 1 && ctl.predicate != eubatch_ir::shader::Predicate::None {
        return None;
    }
    for (s, &c) in srcs.iter().zip(&comps) {
        if c > 1 && (s.file != RegFile::Vgrf || s.stride != 1) {
            return None;
        }
        if dst_comps == 1
            && overlaps_differently(
                &dst,
                size_written,
                s,
                s.span(exec) + c.saturating_sub(1) * exec * s.ty.size(),
            )
        {
            return None;
        }
    }
    let mut parts = Vec::with_capacity(n as usize);
    let reg = shader.reg_size();
    for k in 0..n {
        let dst_k = if dst_comps > 1 {
            dst
        } else {
            horiz_offset(&dst, k * width, reg)?
        };
        let srcs_k = srcs
            .iter()
            .zip(&layouts)
            .map(|(s, l)| match l {
                SourceLayout::PlnPairs => pln_pairs_offset(s, k * width, reg),
                SourceLayout::Components(_) => horiz_offset(s, k * width, reg),
            })
            .collect::<Option<Vec<_>>>()?;
        let mut c = ctl;
        c.exec_size = width as u8;
        c.group = ctl.group + (k * width) as u8;
        // Only the last piece ends the thread.
        c.set(eubatch_ir::Control::EOT, ctl.eot() && k == n - 1);
        parts.push((dst_k, srcs_k, c));
    }
    let mut out = Vec::new();
    for (d, mut s, c) in parts {
        for (i, &ncomp) in comps.iter().enumerate() {
            if ncomp > 1 {
                s[i] = unzip(shader, &mut out, s[i], ncomp, exec, c);
            }
        }
        let piece_dst = if dst_comps > 1 {
            let tmp = shader
                .vgrfs
                .push(eubatch_ir::VgrfLayout {
                    components: dst_comps as u16,
                    data: (width * dst.ty.size()) as u16,
                    padding: 0,
                })
                .index() as u32;
            Operand::vgrf(tmp, 0, dst.ty, 1)
        } else {
            d
        };
        // Each piece writes its share of what the whole instruction writes (a message's
        // response is sized by the message, not by its region).
        out.push(Builder::with_control(c).message(
            shader,
            op,
            piece_dst,
            &s,
            size_written / n,
            send_info,
        ));
        if dst_comps > 1 {
            let channel = (c.group - ctl.group) as u32;
            zip(
                shader, &mut out, piece_dst, dst, dst_comps, exec, channel, c,
            );
        }
    }
    Some(out)
}

/// Copies the components of a piece's temporary result (`ncomp` packed components of the
/// piece's width) to where they belong in the whole instruction's result (components
/// `exec` channels apart).
fn zip(
    shader: &mut Shader,
    out: &mut Vec<Inst>,
    tmp: Operand,
    dst: Operand,
    ncomp: u32,
    exec: u32,
    channel: u32,
    c: eubatch_ir::Control,
) {
    let width = c.exec_size as u32;
    let size = dst.ty.size();
    use eubatch_ir::Type;
    let raw = match size {
        1 => Type::UB,
        2 => Type::UW,
        8 => Type::UQ,
        _ => Type::UD,
    };
    let mov = Builder::channels_of(c);
    for j in 0..ncomp {
        let mut to = dst;
        to.ty = raw;
        // The piece's channels (`channel` on from the instruction's first) of component j.
        to.offset += (j * exec + channel) * size;
        let mut from = tmp;
        from.ty = raw;
        from.offset += j * width * size;
        out.push(mov.mov(shader, to, from));
    }
}

/// Copies a piece's channels of every component of a source (components `exec` channels
/// apart, the piece's first channel at `src`) into a new VGRF of `ncomp` packed
/// components of the piece's width, and returns that VGRF: what the piece reads instead.
fn unzip(
    shader: &mut Shader,
    out: &mut Vec<Inst>,
    src: Operand,
    ncomp: u32,
    exec: u32,
    c: eubatch_ir::Control,
) -> Operand {
    let width = c.exec_size as u32;
    let comp_bytes = width * src.ty.size();
    let tmp = shader
        .vgrfs
        .push(eubatch_ir::VgrfLayout {
            components: ncomp as u16,
            data: comp_bytes as u16,
            padding: 0,
        })
        .index() as u32;
    let mov = Builder::channels_of(c);
    for j in 0..ncomp {
        let mut from = src;
        from.offset += j * exec * src.ty.size();
        from.mods = eubatch_ir::Mods::NONE;
        if !crate::lower::inside_vgrf(shader, &from, comp_bytes) {
            continue;
        }
        out.push(mov.mov(shader, Operand::vgrf(tmp, j * comp_bytes, src.ty, 1), from));
    }
    let mut r = Operand::vgrf(tmp, 0, src.ty, 1);
    r.mods = src.mods;
    r
}

/// Where channel `channels` starts in barycentrics laid out as PLN register pairs: two
/// registers (of `reg_size` bytes) per 8 channels.
fn pln_pairs_offset(op: &Operand, channels: u32, reg_size: u32) -> Option<Operand> {
    let mut o = *op;
    let regs = 2 * (channels / 8);
    match op.file {
        RegFile::Vgrf => o.offset += regs * reg_size,
        RegFile::FixedGrf => o.nr += regs,
        _ => return None,
    }
    Some(o)
}
