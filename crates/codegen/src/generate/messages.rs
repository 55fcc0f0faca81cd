//! Virtual opcodes the generator emits as one send with a descriptor it builds itself:
//! the result is the `send` the reader of Mesa's listings gives for the same line (payload
//! as the only source, the whole descriptor in the instruction's [`SendInfo`]).
//!
//! Mesa 23.0 (as 22.3):
//! - `cs_terminate` (brw_fs_generator.cpp `generate_cs_terminate`): `send null:UW,
//!   payload:UW` to the thread spawner, mlen 1, no response, no header, "dereference
//!   resource" with the root-thread request and bit 4 "do not dereference URB" set before
//!   gen11, NoMask, EOT as the instruction says;
//! - `memory_fence` / `interlock` (brw_eu_emit.c `brw_memory_fence`,
//!   `brw_set_memory_fence_message`): a one-channel NoMask `send` (`sendc` for interlock)
//!   of `dst:UW` and `src:UD` (each `vec1`), mlen 1 with a header, one response register when
//!   the commit is asked for (second source), message type "memory fence" of the data cache
//!   (7, bits 18:14) with the commit bit (message control bit 5), binding table index the
//!   third source (0 before gen11). The shared function is the data cache: Mesa 22.3's
//!   NIR front end fences through it on every generation before gen11 (brw_fs_nir.cpp
//!   `emit_fence` calls with `GFX7_SFID_DATAPORT_DATA_CACHE`), and the dumps do not print
//!   it.

use eubatch_ir::message::{message_desc, sfid};
use eubatch_ir::operand::arf;
use eubatch_ir::shader::SendInfo;
use eubatch_ir::{Control, Gen, Inst, Opcode, Operand, RegFile, Region, Type};

use super::{retype, with_region, Emit};

/// A send of `src` (final code's form: the payload its only source) with `info`.
pub(super) fn send(
    e: &mut Emit<'_>,
    op: Opcode,
    ctl: Control,
    dst: Operand,
    src: Operand,
    info: SendInfo,
) -> Inst {
    e.push(op, ctl, dst, &[src], Some(info))
}

/// The null destination of a send that answers nothing (`retype(brw_null_reg(), UW)`).
pub(super) fn null_uw() -> Operand {
    Operand::arf(arf::NULL, 0, Type::UW, Region::new(8, 8, 1))
}

/// `GFX7_DATAPORT_DC_MEMORY_FENCE` (brw_eu_defines.h), descriptor bits 18:14.
const DC_MEMORY_FENCE: u32 = 7;

pub(super) fn cs_terminate(e: &mut Emit<'_>, inst: Inst) -> bool {
    let s = &*e.shader;
    let (mut ctl, gen) = (s.insts.control[inst], s.target);
    let Some(&payload) = s.srcs(inst).last() else {
        return false;
    };
    if payload.file != RegFile::FixedGrf {
        return false;
    }
    // ts_opcode 0 (dereference resource), request type 0 (root thread), resource select
    // 1 (bit 4: do not dereference the URB) before gen11.
    let resource = if gen < Gen::Gen11 { 1 << 4 } else { 0 };
    ctl.set(Control::NO_MASK, true);
    let info = SendInfo {
        mlen: 1,
        sfid: sfid::THREAD_SPAWNER,
        desc: message_desc(1, 0, false) | resource,
        ..SendInfo::default()
    };
    send(
        e,
        Opcode::Send,
        ctl,
        null_uw(),
        retype(payload, Type::UW),
        info,
    );
    true
}

pub(super) fn memory_fence(e: &mut Emit<'_>, inst: Inst) -> bool {
    let s = &*e.shader;
    let (ctl, dst, gen) = (s.insts.control[inst], s.insts.dst[inst], s.target);
    let srcs = s.srcs(inst);
    let (Some(&src), Some(commit), Some(bti)) = (srcs.first(), srcs.get(1), srcs.get(2)) else {
        return false;
    };
    if src.file != RegFile::FixedGrf
        || commit.file != RegFile::Imm
        || bti.file != RegFile::Imm
        || gen >= Gen::Gen11
    {
        return false;
    }
    let commit = commit.imm_bits() != 0;
    let mut one = Control::new(1);
    one.group = ctl.group;
    one.set(Control::NO_MASK, true);
    let vec1 = |op: Operand, ty: Type| with_region(retype(op, ty), Region::new(0, 1, 0));
    let dst = if dst.is_null() {
        Operand::arf(arf::NULL, 0, Type::UW, Region::new(1, 1, 1))
    } else {
        with_region(retype(dst, Type::UW), Region::new(1, 1, 1))
    };
    let op = if s.insts.opcode[inst] == Opcode::Interlock {
        Opcode::Sendc
    } else {
        Opcode::Send
    };
    let desc = message_desc(1, commit as u32, true)
        | DC_MEMORY_FENCE << 14
        | (commit as u32) << (8 + 5)
        | (bti.imm_bits() as u32 & 0xff);
    let info = SendInfo {
        mlen: 1,
        header_size: 1,
        sfid: sfid::DATA_CACHE,
        desc,
        ..SendInfo::default()
    };
    let id = send(e, op, one, dst, vec1(src, Type::UD), info);
    // The response register (when committing) is written whole.
    e.shader.insts.size_written[id] = commit as u32 * e.reg_size();
    true
}

/// `gfx7_scratch_read` (brw_eu_emit.c `gfx7_block_read_scratch`): `send dst:UW, g0:F` to
/// the data cache, the scratch category (bit 18) reading (bit 17 clear) OWords (bit 16
/// clear) of `exec_size / 8` registers — block size `log2` of them from gen8, minus one on
/// gen7 (bits 13:12) — at the offset in registers (bits 11:0, the instruction's byte
/// offset over 32), mlen 1 (g0's header), a response register each.
pub(super) fn gfx7_scratch_read(e: &mut Emit<'_>, inst: Inst) -> bool {
    let s = &*e.shader;
    let (ctl, dst, gen) = (s.insts.control[inst], s.insts.dst[inst], s.target);
    let Some(offset) = s.srcs(inst).first().filter(|o| o.file == RegFile::Imm) else {
        return false;
    };
    let reg = e.reg_size();
    let regs = (ctl.exec_size as u32 / 8).max(1);
    let at = offset.imm_bits() as u32 / reg;
    if dst.file != RegFile::FixedGrf || at >= 1 << 12 || !matches!(regs, 1 | 2 | 4) {
        return false;
    }
    let block = if gen >= Gen::Gen8 {
        regs.trailing_zeros()
    } else {
        regs - 1
    };
    let desc = message_desc(1, regs, true) | 1 << 18 | block << 12 | at;
    let g0 = Operand::fixed(0, 0, Type::F, Region::new(8, 8, 1));
    let info = SendInfo {
        mlen: 1,
        header_size: 1,
        sfid: sfid::DATA_CACHE,
        desc,
        ..SendInfo::default()
    };
    let id = send(e, Opcode::Send, ctl, retype(dst, Type::UW), g0, info);
    e.shader.insts.size_written[id] = regs * reg;
    true
}
