//! Instructions the generator adds around one IR instruction (fs_generator / vec4_generator
//! and brw_eu_emit.c helpers), recognized in the final code so that the model counts the
//! IR instruction once, as Mesa's model does (it runs before code generation):
//! * vec4 URB writes: the channel-mask `or(1) mN.5 g0.5 0xff00` of `brw_urb_WRITE` and the
//!   header copy of `gfx6_resolve_implied_move`;
//! * `SHADER_OPCODE_SCRATCH_HEADER` (`generate_scratch_header`): `mov(8) gN 0` and two
//!   `and(1)`s;
//! * legacy scratch messages before gen9 (`generate_scratch_write`,
//!   `brw_oword_block_write_scratch`, `brw_oword_block_read_scratch`): the data copy into
//!   the message, the header copy of `g0` and its offset `mov(1)` (vec4: two offsets, an
//!   `add(1)` for an index in a register), then the send.

use eubatch_ir::{Inst, Opcode, Operand, RegFile, Shader};

use super::desc::Class;
use super::from_asm::View;
use crate::asm::inst::is_send;

/// `or(1) mN.5 g0.5 0xff00`: the channel-mask enable `brw_urb_WRITE` (brw_eu_emit.c) adds
/// to a vec4 URB write header on gen7+; not in the IR.
pub fn is_urb_channel_mask_or(v: &View<'_>) -> bool {
    v.op == Opcode::Or
        && v.control.exec_size == 1
        && !v.control.align16()
        && v.dst.file == RegFile::FixedGrf
        && v.dst.offset == 20
        && v.srcs.len() == 2
        && v.srcs[0].file == RegFile::FixedGrf
        && v.srcs[0].nr == 0
        && v.srcs[0].offset == 20
        && v.srcs[1].file == RegFile::Imm
        && v.srcs[1].nr == 0xff00
}

/// `mov(8) mN g0 { WE_all }` right before a send from `mN` (past the channel-mask OR):
/// the header copy `gfx6_resolve_implied_move` (brw_eu_emit.c) emits for vec4 messages
/// whose header is `g0`; not in the IR.
pub fn is_implied_header_move(s: &Shader, rest: &[Inst], v: &View<'_>) -> bool {
    let is_g0 = |o: &Operand| o.file == RegFile::FixedGrf && o.nr == 0 && o.offset == 0;
    if v.op != Opcode::Mov
        || v.control.exec_size != 8
        || !v.control.no_mask()
        || v.dst.file != RegFile::FixedGrf
        || !v.srcs.first().is_some_and(is_g0)
    {
        return false;
    }
    for &n in rest.iter().skip(1).take(2) {
        let op = s.insts.opcode[n];
        if is_send(op) {
            return s
                .srcs(n)
                .first()
                .is_some_and(|p| p.file == RegFile::FixedGrf && p.nr == v.dst.nr);
        }
        if op != Opcode::Or {
            return false;
        }
    }
    false
}

/// The two `and(1)`s that follow `mov(8) gN 0` in `SHADER_OPCODE_SCRATCH_HEADER`
/// (fs_generator::generate_scratch_header: `and gN.3 g0.3 0xf`, `and gN.5 g0.5
/// 0xfffffc00`); Mesa prices the header as the one `mov`.
pub fn is_scratch_header_and(s: &Shader, before: &[Inst], v: &View<'_>) -> bool {
    let (sub, mask) = match v.srcs.get(1) {
        Some(i) if i.file == RegFile::Imm && i.nr == 0xf => (12, 0xfu32),
        Some(i) if i.file == RegFile::Imm && i.nr == 0xffff_fc00 => (20, 0xffff_fc00),
        _ => return false,
    };
    if v.op != Opcode::And
        || v.control.exec_size != 1
        || v.dst.file != RegFile::FixedGrf
        || v.dst.offset != sub
        || !(v.srcs[0].file == RegFile::FixedGrf && v.srcs[0].nr == 0 && v.srcs[0].offset == sub)
    {
        return false;
    }
    // The header's `mov(8) gN 0`, one or two instructions back.
    let back = if mask == 0xf { 1 } else { 2 };
    let Some(&m) = before.len().checked_sub(back).and_then(|i| before.get(i)) else {
        return false;
    };
    let dst = s.insts.dst[m];
    s.insts.opcode[m] == Opcode::Mov
        && s.insts.control[m].exec_size == 8
        && dst.file == RegFile::FixedGrf
        && dst.nr == v.dst.nr
        && dst.offset == 0
        && s.srcs(m)
            .first()
            .is_some_and(|i| i.file == RegFile::Imm && i.nr == 0)
}

/// Legacy scratch sequences: for each instruction of `order`, whether it is a setup
/// instruction of a scratch send (skipped), and for a scratch send, the sources its data
/// copy read (the IR instruction's source). The scalar back end's write is `mov mB+1 data`,
/// `mov(8) mB g0`, `mov(1) mB.2 offset`, send (`generate_scratch_write`,
/// `brw_oword_block_write_scratch`); the vec4 back end's `mov(8) mB g0`, the two offsets
/// of `generate_oword_dual_block_offsets` in `mB+1`, `mov mB+2 data`, send
/// (vec4_generator.cpp `generate_scratch_write`/`_read`), where an index in a register
/// (`get_scratch_offset` with a relative address) is copied by `mov(1) mB+1.0 index.0`
/// and `add(1) mB+1.4 index.4 1` and is a source of the IR instruction. Reads lack the
/// data copy.
pub fn legacy_scratch(
    s: &Shader,
    order: &[Inst],
    vec4: bool,
    class_of_send: impl Fn(Inst) -> Option<Class>,
) -> (Vec<bool>, Vec<Vec<Operand>>) {
    let mut skip = vec![false; order.len()];
    let mut extra = vec![Vec::new(); order.len()];
    let is_g0 = |o: &Operand| o.file == RegFile::FixedGrf && o.nr == 0 && o.offset == 0;
    let data_reg = if vec4 { 2 } else { 1 };
    for k in 0..order.len() {
        let send = order[k];
        if !is_send(s.insts.opcode[send]) || class_of_send(send) != Some(Class::Scratch) {
            continue;
        }
        let Some(base) = s.srcs(send).first().filter(|o| o.file == RegFile::FixedGrf) else {
            continue;
        };
        let base = base.nr;
        let mut data = None;
        let mut index = None;
        let mut header = None;
        for back in 1..=k.min(5) {
            let m = order[k - back];
            let d = s.insts.dst[m];
            // A register index's second offset is `add(1) mB+1.4 index.4 1`
            // (generate_oword_dual_block_offsets).
            let offset_add = vec4 && s.insts.opcode[m] == Opcode::Add && d.nr == base + 1;
            if (s.insts.opcode[m] != Opcode::Mov && !offset_add)
                || d.file != RegFile::FixedGrf
                || !(base..=base + data_reg).contains(&d.nr)
            {
                break;
            }
            let src = s.srcs(m).first();
            if d.nr == base && src.is_some_and(is_g0) {
                header = Some(back);
                break;
            }
            let from_reg = src.is_some_and(|o| o.file == RegFile::FixedGrf);
            if d.nr == base + data_reg && !src.is_some_and(|o| o.file == RegFile::Imm) {
                data = Some(k - back);
            } else if vec4 && d.nr == base + 1 && d.offset == 0 && from_reg {
                // `mov(1) mB+1.0 index.0`: the IR instruction's index source, a
                // register of `exec_size` dwords (vec4_instruction::size_read).
                index = src.copied();
            }
        }
        let Some(mut back) = header else { continue };
        // The scalar back end copies the data before the header.
        if !vec4 && k > back {
            let m = order[k - back - 1];
            let d = s.insts.dst[m];
            if s.insts.opcode[m] == Opcode::Mov && d.file == RegFile::FixedGrf && d.nr == base + 1 {
                back += 1;
                data = Some(k - back);
            }
        }
        for x in &mut skip[k - back..k] {
            *x = true;
        }
        if let Some(d) = data {
            extra[k] = s.srcs(order[d]).to_vec();
        }
        extra[k].extend(index);
    }
    (skip, extra)
}

/// `SHADER_OPCODE_FIND_LIVE_CHANNEL` on gen7 (`brw_find_live_channel`): `mov(1) fN 0`,
/// one or two `mov.z.fN null 0`, then `fbl(1) dst fN` (or `lzd` and `add` for the last
/// channel). Returns, per instruction of `order`, whether it is one of the flag-setting
/// moves (skipped), and the flag subregister for the instruction that stands for the
/// whole sequence (the `fbl`/`lzd`).
pub fn gen7_find_live_channel(s: &Shader, order: &[Inst]) -> (Vec<bool>, Vec<Option<u8>>) {
    use eubatch_ir::operand::arf;
    use eubatch_ir::shader::CondMod;
    let mut skip = vec![false; order.len()];
    let mut flc = vec![None; order.len()];
    let flag_of = |o: &Operand| {
        (o.file == RegFile::Arf && (arf::FLAG..arf::MASK).contains(&o.nr))
            .then(|| ((o.nr - arf::FLAG) * 2 + o.offset / 2) as u8)
    };
    for k in 0..order.len() {
        let i = order[k];
        if !matches!(s.insts.opcode[i], Opcode::Fbl | Opcode::Lzd) {
            continue;
        }
        let Some(flag) = s.srcs(i).first().and_then(flag_of) else {
            continue;
        };
        // Back over the `mov.z` instructions to the `mov(1) fN 0`.
        let mut j = k;
        let mut zs = 0;
        while j > 0 {
            let m = order[j - 1];
            let c = s.insts.control[m];
            if s.insts.opcode[m] == Opcode::Mov && c.cmod == CondMod::Z && s.insts.dst[m].is_null()
            {
                zs += 1;
                j -= 1;
            } else {
                break;
            }
        }
        if zs == 0 || j == 0 {
            continue;
        }
        let m = order[j - 1];
        if s.insts.opcode[m] == Opcode::Mov
            && s.insts.control[m].exec_size == 1
            && flag_of(&s.insts.dst[m]) == Some(flag)
        {
            for x in &mut skip[j - 1..k] {
                *x = true;
            }
            flc[k] = Some(flag);
        }
    }
    (skip, flc)
}
