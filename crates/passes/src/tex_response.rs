//! Sampler responses cut to the components the shader reads: a texturing message whose
//! trailing result components nothing reads asks the sampler for fewer components (a
//! shorter response length), as Mesa's front end does on gen9+ (brw_fs_nir.cpp
//! `nir_emit_texture`: `size_written = util_last_bit(nir_ssa_def_components_read(dest)) *
//! component_size`, for every texturing opcode but `tg4` and `query_levels`, only when
//! `devinfo->ver >= 9`; before gen9 the response is always four components).
//!
//! Mesa decides it on NIR, before its back end; its dumps do not show `size_written`, so
//! the start IR eubatch imports has four-component responses. This pass recovers the
//! decision from the IR: the components of a message's destination that no instruction of
//! the shader reads. A `load_payload` source counts as read only where the bytes it fills
//! in the payload may be read (Mesa's start IR copies all four components of a texturing
//! result into the NIR destination with one `load_payload`, whatever NIR reads of it).
//! The sampler writes the components in order and stops after the response length (with a
//! header the lowering also masks the channels left out), so the bytes no longer written
//! are bytes nothing reads: the shader computes the same values. Shorter responses take
//! fewer registers (SKL shader-db: 18,286 response registers in SIMD16 against Mesa's
//! 12,918 before this pass), which is what lets SIMD32 variants allocate and win.
//!
//! Rules that limit it: gen9 and later only (Mesa's rule); `tg4` (a gather's four texels)
//! and image-size queries keep their responses; only 32-bit results (component = channels
//! × 4 bytes); at least one component stays. Reads are counted conservatively: a message
//! or virtual opcode other than `load_payload` reads its VGRF source to the VGRF's end
//! (its component count is an argument the pass does not interpret), and a `load_payload`
//! whose destination another `load_payload` reads counts every source as read. One walk
//! over the instructions to gather reads, one over the messages: linear in the shader.

use eubatch_ir::{Gen, Opcode, RegFile, Shader};

use crate::analysis::changed::Changed;
use crate::PassCx;

pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

/// Whether Mesa shortens the response of `op` (every texturing opcode of
/// `nir_emit_texture` but `tg4`; image sizes come from elsewhere and keep theirs).
fn shortens(op: Opcode) -> bool {
    eubatch_ir::width_rules::is_sampler_message(op)
        && !matches!(
            op,
            Opcode::Tg4Logical | Opcode::Tg4OffsetLogical | Opcode::ImageSizeLogical
        )
}

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> Changed {
    if shader.target < Gen::Gen9 {
        return Changed::NOTHING;
    }
    let insts: Vec<eubatch_ir::Inst> = shader.layout.insts().collect();
    if !insts.iter().any(|&i| shortens(shader.insts.opcode[i])) {
        return Changed::NOTHING;
    }
    let reg = shader.reg_size();
    let count = shader.vgrfs.len();
    // Per VGRF: the end of the bytes read (0: none), and whether a `load_payload` reads it.
    let mut read_end = vec![0u32; count];
    let mut payload_read = vec![false; count];
    let size_of = |shader: &Shader, nr: u32| shader.vgrfs[eubatch_ir::Vgrf::from_raw(nr)].size();
    for &inst in &insts {
        let op = shader.insts.opcode[inst];
        let srcs = shader.srcs(inst);
        for (k, s) in srcs.iter().enumerate() {
            if s.file != RegFile::Vgrf || s.nr as usize >= count {
                continue;
            }
            let v = s.nr as usize;
            if op == Opcode::LoadPayload {
                payload_read[v] = true;
                continue;
            }
            let end = if op.alu_arity().is_some() {
                let n = eubatch_ir::size_read::size_read(shader, inst, k);
                (s.offset + n.max(1)).div_ceil(reg) * reg
            } else {
                size_of(shader, s.nr)
            };
            read_end[v] = read_end[v].max(end);
        }
    }
    // `load_payload` sources: read where the payload bytes they fill may be read.
    for &inst in &insts {
        if shader.insts.opcode[inst] != Opcode::LoadPayload {
            continue;
        }
        let exec = shader.insts.control[inst].exec_size as u32;
        let header = shader.send_info(inst).map_or(0, |s| s.header_size as usize);
        let dst = shader.insts.dst[inst];
        let dst_vgrf = dst.file == RegFile::Vgrf && (dst.nr as usize) < count;
        let mut offset = dst.offset;
        for (k, s) in shader.srcs(inst).iter().enumerate() {
            let bytes = if k < header { reg } else { exec * s.ty.size() };
            let read =
                !dst_vgrf || payload_read[dst.nr as usize] || read_end[dst.nr as usize] > offset;
            if read && s.file == RegFile::Vgrf && (s.nr as usize) < count {
                let len = if k < header { reg } else { s.footprint(exec) };
                let end = (s.offset + len.max(1)).div_ceil(reg) * reg;
                read_end[s.nr as usize] = read_end[s.nr as usize].max(end);
            }
            offset += bytes;
        }
    }
    let mut progress = false;
    for &inst in &insts {
        if !shortens(shader.insts.opcode[inst]) {
            continue;
        }
        let dst = shader.insts.dst[inst];
        if dst.file != RegFile::Vgrf || dst.nr as usize >= count || dst.ty.size() != 4 {
            continue;
        }
        let exec = shader.insts.control[inst].exec_size as u32;
        let comp = exec * 4;
        let written = shader.insts.size_written[inst];
        if comp == 0 || !written.is_multiple_of(comp) {
            continue;
        }
        let needed = read_end[dst.nr as usize].saturating_sub(dst.offset);
        let comps = needed.div_ceil(comp).max(1);
        if comps * comp < written {
            shader.insts.size_written[inst] = comps * comp;
            progress = true;
        }
    }
    Changed::when(
        progress,
        Changed::INSTRUCTION_DETAIL.union(Changed::INSTRUCTION_DATA_FLOW),
    )
}
