//! The virtual opcodes that assemble registers rather than compute: `undef`,
//! `load_payload` and `pack`. They exist only before lowering (Mesa turns them into moves),
//! so the simulator gives them the meaning Mesa's lowering does, which is what a shader
//! compared before and after lowering needs.

use eubatch_ir::{RegFile, Type};

use super::Step;
use crate::state::Thread;
use crate::value::{decode, encode};
use crate::SimError;

/// `undef`: the whole VGRF counts as defined from here on (its value is whatever it holds),
/// so reading it is not a read of undefined bytes.
pub(super) fn undef(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    if s.dst.file == RegFile::Vgrf {
        t.define_all(s.dst.nr);
    }
    Ok(false)
}

/// `load_payload`: the sources one after the other in the destination, the header's
/// registers first (copied whole, in every channel) and then a component of `exec` channels
/// per source. A source's undefined bytes stay undefined in the copy.
pub(super) fn load_payload(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let header = s
        .shader
        .send_info(s.inst)
        .map_or(0, |m| m.header_size as usize);
    let mut off = 0u32;
    for (k, src) in s.srcs.iter().enumerate() {
        let in_header = k < header;
        // A header source is one register, copied dword by dword whatever the execution
        // size.
        let comp_bytes = if in_header {
            s.shader.reg_size()
        } else {
            s.exec * src.ty.size()
        };
        if !src.is_bad() {
            let n = if in_header { comp_bytes / 4 } else { s.exec };
            let mut d = s.dst;
            d.ty = if in_header { Type::UD } else { src.ty };
            d.offset += off;
            let mut from = *src;
            if in_header {
                from.ty = Type::UD;
            }
            for i in 0..n {
                let on = in_header || s.ctl.no_mask() || s.enabled & (1 << (s.group + i)) != 0;
                if on {
                    let (v, defined) = s.read_defined(t, &from, i)?;
                    t.write_copy(&d, i, v, defined)
                        .map_err(|e| e.with_inst(s.inst))?;
                }
            }
        }
        off += comp_bytes;
    }
    Ok(false)
}

/// FS_OPCODE_PACK: the sources side by side in each channel's destination element, the
/// first in the low bits.
pub(super) fn pack(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let mut results = Vec::new();
    for i in s.channels(s.enabled & s.pred) {
        let (mut bits, mut shift) = (0u64, 0u32);
        for src in s.srcs.iter().filter(|o| !o.is_bad()) {
            let v = encode(src.ty, decode(src.ty, s.read(t, src, i)?), false);
            bits |= v.checked_shl(shift).unwrap_or(0);
            shift += 8 * src.ty.size();
        }
        results.push((i, bits));
    }
    s.write_results(t, results)?;
    Ok(false)
}
