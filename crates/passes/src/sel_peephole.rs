//! Select peephole: `(+f0) if; mov d0, a0; ...; else; mov d0, b0; ...; endif` — the same
//! destinations assigned on both sides — becomes `(+f0) sel d0, a0, b0; ...` with the
//! `if`'s predicate: a select per value instead of two branches (Mesa:
//! brw_fs_sel_peephole.cpp, `opt_peephole_sel`).
//!
//! Rules that limit it: both sides hold only moves, as many on each side, the k-th of each
//! writing the same region with the same type; the moves are unpredicated, without
//! conditional modifier, in the `if`'s channels (execution size, group, not NoMask: a
//! NoMask move would also write the channels the branch leaves alone); no move reads what
//! an earlier one of the same side writes (the selects read everything at once) or what any
//! select before it writes; the predicate is a plain one (not an Align16 group form); the
//! first source of a select cannot be an immediate, so an immediate on the then side swaps
//! the sources and inverts the predicate, and two immediates leave the branch as it is;
//! saturate must match on both sides.

use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::{Builder, Control, Inst, Opcode, Operand, RegFile, Shader};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// A move that can become half of a select, within `ctl`'s channels.
fn plain_move(shader: &Shader, inst: Inst, ctl: Control) -> Option<(Operand, Operand)> {
    let c = shader.insts.control[inst];
    if shader.insts.opcode[inst] != Opcode::Mov
        || c.predicate != Predicate::None
        || c.cmod != CondMod::None
        || c.no_mask()
        || c.exec_size != ctl.exec_size
        || c.group != ctl.group
    {
        return None;
    }
    let dst = shader.insts.dst[inst];
    let src = shader.srcs(inst)[0];
    (dst.file == RegFile::Vgrf && src.ty == dst.ty).then_some((dst, src))
}

/// Whether `a` and `b` can name the same bytes (different files never do; VGRFs by number
/// and byte range; anything else conservatively yes).
fn may_overlap(a: &Operand, a_len: u32, b: &Operand, b_len: u32) -> bool {
    match (a.file, b.file) {
        (RegFile::Imm, _) | (_, RegFile::Imm) | (RegFile::Bad, _) | (_, RegFile::Bad) => false,
        (RegFile::Vgrf, RegFile::Vgrf) => {
            a.nr == b.nr && a.offset < b.offset + b_len && b.offset < a.offset + a_len
        }
        (x, y) => x == y,
    }
}

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> Changed {
    let order: Vec<Inst> = shader.layout.order();
    let mut out: Vec<Inst> = Vec::with_capacity(order.len());
    let mut progress = false;
    let mut i = 0;
    while i < order.len() {
        if let Some((sels, next)) = try_at(shader, &order, i) {
            out.extend(sels);
            i = next;
            progress = true;
        } else {
            out.push(order[i]);
            i += 1;
        }
    }
    if !progress {
        return Changed::NOTHING;
    }
    shader.layout = eubatch_ir::cfg::split_blocks(&out, |i| shader.insts.opcode[i]);
    Changed::EVERYTHING
}

/// The selects replacing the `if` at `order[i]` and the position after its `endif`.
fn try_at(shader: &mut Shader, order: &[Inst], i: usize) -> Option<(Vec<Inst>, usize)> {
    let iff = order[i];
    let ctl = shader.insts.control[iff];
    if shader.insts.opcode[iff] != Opcode::If || ctl.predicate != Predicate::Normal {
        return None;
    }
    let side = |from: usize, end: Opcode| -> Option<(Vec<(Operand, Operand, bool)>, usize)> {
        let mut moves = Vec::new();
        let mut k = from;
        loop {
            let inst = *order.get(k)?;
            if shader.insts.opcode[inst] == end {
                return Some((moves, k));
            }
            let (d, s) = plain_move(shader, inst, ctl)?;
            moves.push((d, s, shader.insts.control[inst].saturate()));
            k += 1;
        }
    };
    let (then_moves, else_at) = side(i + 1, Opcode::Else)?;
    let (else_moves, endif_at) = side(else_at + 1, Opcode::Endif)?;
    if then_moves.is_empty() || then_moves.len() != else_moves.len() {
        return None;
    }
    let exec = ctl.exec_size as u32;
    let mut pairs = Vec::new();
    for (t, e) in then_moves.iter().zip(&else_moves) {
        if t.0 != e.0 || t.2 != e.2 {
            return None;
        }
        pairs.push((t.0, t.1, e.1, t.2));
    }
    // Each select reads its sources when it runs, like the moves did, but a select runs on
    // both sides' behalf: no source may be written by an earlier select, i.e. by an earlier
    // move of either side.
    for (k, p) in pairs.iter().enumerate() {
        for q in &pairs[..k] {
            let len = q.0.span(exec);
            if may_overlap(&q.0, len, &p.1, p.1.span(exec))
                || may_overlap(&q.0, len, &p.2, p.2.span(exec))
            {
                return None;
            }
        }
    }
    let mut sels = Vec::with_capacity(pairs.len());
    for (dst, a, b, sat) in pairs {
        let mut c = Control::new(ctl.exec_size);
        c.group = ctl.group;
        c.predicate = Predicate::Normal;
        c.flag_subreg = ctl.flag_subreg;
        c.set(Control::PRED_INVERT, ctl.pred_invert());
        c.set(Control::SATURATE, sat);
        let (x, y) = match (a.file == RegFile::Imm, b.file == RegFile::Imm) {
            (false, _) => (a, b),
            (true, false) => {
                c.set(Control::PRED_INVERT, !ctl.pred_invert());
                (b, a)
            }
            (true, true) => return None,
        };
        sels.push((c, dst, x, y));
    }
    let sels = sels
        .into_iter()
        .map(|(c, dst, x, y)| Builder::with_control(c).sel(shader, dst, x, y))
        .collect();
    Some((sels, endif_at + 1))
}
