//! The virtual scratch opcodes register spilling emits before gen9 (Mesa 22.3
//! brw_fs_reg_allocate.cpp `emit_spill` / `emit_unspill`), given the meaning of the code
//! Mesa's generator makes of them (brw_fs_generator.cpp `generate_scratch_write`,
//! `generate_scratch_read`, `generate_scratch_read_gfx7`, `generate_scratch_header`), on
//! the same scratch memory as the raw OWord block messages ([`crate::hw_message`]):
//! - `gfx4_scratch_write(N) null, value, offset`: a move of `value`'s N dwords into the
//!   message registers under the execution mask, then an OWord block write, which stores
//!   dword `i` only for enabled channel `i`: so an enabled channel's dword lands at
//!   `offset + 4i`, a disabled one's leaves scratch as it was;
//! - `gfx4_scratch_read(N)` / `gfx7_scratch_read(N) dst, offset`: an OWord block read of
//!   N/8 registers from `offset` into `dst`, whole registers whatever the mask (the
//!   response fills them);
//! - `scratch_header(8) dst`: zero but dword 3 (g0.3's per-thread scratch size, bits 3:0)
//!   and dword 5 (g0.5's scratch base, bits 31:10).
//!
//! The offset, in bytes, is the instruction's last source, an immediate
//! ([`eubatch_ir::message::scratch`]).

use eubatch_ir::{Operand, RegFile, Region, Type};

use super::Step;
use crate::hw_message::{element, nth_register};
use crate::state::Thread;
use crate::SimError;

/// The byte offset a virtual scratch message carries.
fn offset(s: &Step) -> Result<u64, SimError> {
    match s.srcs.last() {
        Some(o) if o.file == RegFile::Imm => Ok(o.imm_bits() & 0xffff_ffff),
        _ => Err(s.fail("a scratch message without its offset (an immediate last source)")),
    }
}

/// Dword `k` of the registers from `base` on.
fn dword(base: &Operand, k: u32, reg_size: u32) -> Operand {
    let per = reg_size / 4;
    element(
        &nth_register(base, k / per, reg_size),
        (k % per) * 4,
        Type::UD,
    )
}

pub(super) fn write(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let at = offset(s)?;
    let value = *s
        .srcs
        .first()
        .filter(|v| matches!(v.file, RegFile::Vgrf | RegFile::FixedGrf))
        .ok_or_else(|| s.fail("a scratch write without a register to write"))?;
    let reg_size = s.shader.reg_size();
    for i in s.channels(s.enabled & s.pred) {
        let poison = t.poison_reads;
        let v = s.read(t, &dword(&value, i, reg_size), 0)? as u32;
        // A spill copies: storing bytes never written is not a use of them.
        let defined = t.poison_reads == poison;
        t.poison_reads = poison;
        for (b, byte) in v.to_le_bytes().into_iter().enumerate() {
            t.scratch
                .insert(at + 4 * i as u64 + b as u64, (byte, defined));
        }
    }
    Ok(false)
}

pub(super) fn read(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let at = offset(s)?;
    let reg_size = s.shader.reg_size();
    if s.exec < 8 || !s.exec.is_multiple_of(8) {
        return Err(s.fail(format!(
            "a scratch read of {} channels: block reads are whole registers of 8",
            s.exec
        )));
    }
    for k in 0..s.exec {
        let mut v = 0u32;
        let mut defined = true;
        for b in 0..4 {
            let (byte, d) = t
                .scratch
                .get(&(at + 4 * k as u64 + b))
                .copied()
                .unwrap_or((crate::state::FRESH_BYTE, false));
            v |= (byte as u32) << (8 * b);
            defined &= d;
        }
        t.write_copy(&dword(&s.dst, k, reg_size), 0, v as u64, defined)
            .map_err(|e| e.with_inst(s.inst))?;
    }
    Ok(false)
}

pub(super) fn header(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let reg_size = s.shader.reg_size();
    let g0 = |k: u32| {
        element(
            &Operand::fixed(0, 0, Type::UD, Region::new(0, 1, 0)),
            4 * k,
            Type::UD,
        )
    };
    let size = s.read(t, &g0(3), 0)? & 0xf;
    let base = s.read(t, &g0(5), 0)? & 0xffff_fc00;
    for k in 0..8 {
        let v = match k {
            3 => size,
            5 => base,
            _ => 0,
        };
        s.write(t, &dword(&s.dst, k, reg_size), 0, v)?;
    }
    Ok(false)
}
