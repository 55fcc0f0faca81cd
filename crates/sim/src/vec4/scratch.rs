//! Register spills of vec4 final code: gen7 data-cache OWord dual block reads and writes
//! to scratch (SFID 10, binding table index 255; message types
//! `GFX7_DATAPORT_DC_OWORD_DUAL_BLOCK_READ` 2 and `_WRITE` 10 in descriptor bits 17:14,
//! brw_eu_defines.h; Mesa brw_vec4_generator.cpp `generate_scratch_read`/`_write`).
//!
//! The payload is the header, then a register of per-half offsets (dword 0 of each half,
//! in OWords), then, for a write, the data: half `h` of the data register goes to its
//! half's offset, the dwords that the send's destination writemask names only (Mesa
//! spills a partially written register with the instruction's writemask). A read returns
//! the OWord at each half's offset in that half of the destination.

use eubatch_ir::{Inst, RegFile, Shader};

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
