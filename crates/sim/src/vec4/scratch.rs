//! Register spills of vec4 code, in the start IR and in final code.
//!
//! The start IR's virtual opcodes (Mesa brw_vec4_visitor.cpp `SCRATCH_READ`,
//! `SCRATCH_WRITE`, `get_scratch_offset`; their meaning is what
//! brw_vec4_generator.cpp `generate_scratch_read`/`_write` and
//! `generate_oword_dual_block_offsets` make of them):
//! - `gfx4_scratch_write(8) g0.MASK, value, index`: half `h` of `value` (its swizzle
//!   applied) goes to the OWord at `index_h + h`, the dwords of the components in the
//!   destination's writemask and of the enabled channels only;
//! - `gfx4_scratch_read(8) dst, index`: half `h` of `dst` gets the OWord at `index_h + h`.
//!
//! `index` counts OWords (16 bytes; Mesa's `message_header_scale` 2 a register): an
//! immediate, the same for both halves, or a register whose `x` of each half is that
//! half's (`index_4` is the second vertex's). So a spilled register takes two OWords,
//! vertex 0's then vertex 1's. Bytes never written read as the simulator's fresh byte,
//! undefined.
//!
//! Final code: gen7 data-cache OWord dual block reads and writes to scratch (SFID 10, binding table index 255; message types
//! `GFX7_DATAPORT_DC_OWORD_DUAL_BLOCK_READ` 2 and `_WRITE` 10 in descriptor bits 17:14,
//! brw_eu_defines.h; Mesa brw_vec4_generator.cpp `generate_scratch_read`/`_write`).
//!
//! The payload is the header, then a register of per-half offsets (dword 0 of each half,
//! in OWords), then, for a write, the data: half `h` of the data register goes to its
//! half's offset, the dwords that the send's destination writemask names only (Mesa
//! spills a partially written register with the instruction's writemask). A read returns
//! the OWord at each half's offset in that half of the destination.

use eubatch_ir::{Inst, Operand, RegFile, Shader, Type};

use crate::state::{Thread, FRESH_BYTE};
use crate::SimError;

/// Message types of the gen7 data cache (brw_eu_defines.h).
const DUAL_BLOCK_READ: u32 = 2;
const DUAL_BLOCK_WRITE: u32 = 10;
/// The stateless binding table index scratch is accessed through.
const SCRATCH_BTI: u32 = 255;

/// Whether descriptor `desc` of a data-cache send is a vec4 scratch access.
pub fn is_scratch(desc: u32) -> bool {
    desc & 0xff == SCRATCH_BTI && matches!((desc >> 14) & 0xf, DUAL_BLOCK_READ | DUAL_BLOCK_WRITE)
}

/// Runs a scratch dual block read or write for the halves of `mask`.
pub fn access(shader: &Shader, t: &mut Thread, inst: Inst, mask: u32) -> Result<(), SimError> {
    let info = shader
        .send_info(inst)
        .copied()
        .ok_or_else(|| SimError::at(inst, "send without a descriptor"))?;
    let payload = shader
        .srcs(inst)
        .first()
        .filter(|o| o.file == RegFile::FixedGrf)
        .copied()
        .ok_or_else(|| SimError::at(inst, "a scratch send's payload must be a register"))?;
    let dst = shader.insts.dst[inst];
    let reg = t.reg_size as usize;
    let offsets = (payload.nr as usize + 1) * reg;
    let dword = |t: &Thread, a: usize| -> Result<u32, SimError> {
        let b = t
            .grf
            .get(a..a + 4)
            .ok_or_else(|| SimError::at(inst, "scratch payload outside the register file"))?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let write = (info.desc >> 14) & 0xf == DUAL_BLOCK_WRITE;
    for h in 0..2usize {
        if mask & (0xf << (4 * h)) == 0 {
            continue;
        }
        let base = dword(t, offsets + 16 * h)? as u64 * 16;
        for c in 0..4usize {
            let scratch = base + 4 * c as u64;
            if write {
                if dst.region.swizzle & (1 << c) == 0 {
                    continue;
                }
                let a = offsets + reg + 16 * h + 4 * c;
                let v = dword(t, a)?.to_le_bytes();
                for (k, b) in v.iter().enumerate() {
                    t.scratch.insert(scratch + k as u64, (*b, true));
                }
            } else {
                let a = dst.nr as usize * reg + 16 * h + 4 * c;
                for k in 0..4usize {
                    let b = t
                        .scratch
                        .get(&(scratch + k as u64))
                        .map_or(FRESH_BYTE, |x| x.0);
                    *t.grf.get_mut(a + k).ok_or_else(|| {
                        SimError::at(inst, "scratch read outside the register file")
                    })? = b;
                }
            }
        }
    }
    Ok(())
}

/// The OWord index of half `h` of a start-IR scratch message's `index` source.
fn ir_index(t: &mut Thread, inst: Inst, index: &Operand, h: u32) -> Result<u64, SimError> {
    let base = if index.file == RegFile::Imm {
        index.imm_bits() & 0xffff_ffff
    } else {
        let mut x = *index;
        x.ty = Type::UD;
        x.region.swizzle = 0; // .xxxx: the half's first dword.
        t.read(&x, 4 * h).map_err(|e| e.with_inst(inst))? & 0xffff_ffff
    };
    Ok(base.wrapping_add(h as u64))
}

/// `gfx4_scratch_write` of the start IR for the channels of `mask`.
pub fn ir_write(shader: &Shader, t: &mut Thread, inst: Inst, mask: u32) -> Result<(), SimError> {
    let [value, index] = shader.srcs(inst) else {
        return Err(SimError::at(
            inst,
            "gfx4_scratch_write takes a value and an index",
        ));
    };
    if value.ty.size() != 4 {
        return Err(SimError::at(
            inst,
            "a vec4 scratch write of other than 32-bit data (Mesa shuffles 64-bit data first)",
        ));
    }
    let writemask = shader.insts.dst[inst].region.swizzle;
    for i in (0..8u32).filter(|i| mask & (1 << i) != 0) {
        let (h, c) = super::regs::half_comp(i);
        if writemask & (1 << c) == 0 {
            continue;
        }
        let at = ir_index(t, inst, index, h)? * 16 + 4 * c as u64;
        let poison = t.poison_reads;
        let v = t.read(value, i).map_err(|e| e.with_inst(inst))? as u32;
        // A spill copies: storing bytes never written is not a use of them.
        let defined = t.poison_reads == poison;
        t.poison_reads = poison;
        for (k, b) in v.to_le_bytes().into_iter().enumerate() {
            t.scratch.insert(at + k as u64, (b, defined));
        }
    }
    Ok(())
}

/// `gfx4_scratch_read` of the start IR: the halves with a channel in `mask`.
pub fn ir_read(shader: &Shader, t: &mut Thread, inst: Inst, mask: u32) -> Result<(), SimError> {
    let [index] = shader.srcs(inst) else {
        return Err(SimError::at(inst, "gfx4_scratch_read takes an index"));
    };
    let mut dst = shader.insts.dst[inst];
    if dst.ty.size() != 4 {
        return Err(SimError::at(
            inst,
            "a vec4 scratch read into other than 32-bit data",
        ));
    }
    dst.ty = Type::UD;
    // The response fills the half, whatever the writemask.
    dst.region.swizzle = eubatch_ir::Region::WRITEMASK_XYZW;
    for h in (0..2u32).filter(|h| mask & (0xf << (4 * h)) != 0) {
        let at = ir_index(t, inst, index, h)? * 16;
        for c in 0..4u32 {
            let mut v = 0u32;
            let mut defined = true;
            for k in 0..4u64 {
                let (b, d) = t
                    .scratch
                    .get(&(at + 4 * c as u64 + k))
                    .copied()
                    .unwrap_or((FRESH_BYTE, false));
                v |= (b as u32) << (8 * k);
                defined &= d;
            }
            t.write_copy(&dst, 4 * h + c, v as u64, defined)
                .map_err(|e| e.with_inst(inst))?;
        }
    }
    Ok(())
}
