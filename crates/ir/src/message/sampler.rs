//! Sampler messages (SFID 2) on gen7-gen9: the descriptor and how a logical texturing
//! instruction becomes one, as Mesa 22.3 lowers it (`lower_sampler_logical_send_gfx7` and
//! `sampler_msg_type` in brw_lower_logical_sends.cpp; PRM Vol. 2d "Sampler Message
//! Descriptor" and "Message Types"). The lowering pass and the simulator share this, so a
//! logical `tex_logical` and the `send` Mesa made of it are the same message.

use crate::opcode::Opcode;
use crate::operand::{Operand, RegFile};
use crate::target::Gen;

/// Message types (descriptor bits 16:12; brw_eu_defines.h `GFX5_SAMPLER_MESSAGE_*`,
/// `GFX7_*`, `GFX9_*`, `HSW_*`).
pub mod msg {
    pub const SAMPLE: u32 = 0;
    pub const SAMPLE_B: u32 = 1;
    pub const SAMPLE_L: u32 = 2;
    pub const SAMPLE_C: u32 = 3;
    pub const SAMPLE_D: u32 = 4;
    pub const SAMPLE_B_C: u32 = 5;
    pub const SAMPLE_L_C: u32 = 6;
    pub const LD: u32 = 7;
    pub const GATHER4: u32 = 8;
    pub const LOD: u32 = 9;
    pub const RESINFO: u32 = 10;
    pub const SAMPLEINFO: u32 = 11;
    pub const GATHER4_C: u32 = 16;
    pub const GATHER4_PO: u32 = 17;
    pub const GATHER4_PO_C: u32 = 18;
    pub const SAMPLE_D_C: u32 = 20;
    pub const SAMPLE_LZ: u32 = 24;
    pub const SAMPLE_C_LZ: u32 = 25;
    pub const LD_LZ: u32 = 26;
    pub const LD2DMS_W: u32 = 28;
    pub const LD_MCS: u32 = 29;
    pub const LD2DMS: u32 = 30;
    pub const LD2DSS: u32 = 31;
}

/// Parameters a message leaves out are zero to the sampler: the message length says which
/// are sent (PRM Vol. 2d "Message Payload"; Mesa 25 `brw_opt_zero_samples` leaves trailing
/// zero parameters out of every sampler message on gen5+, but for Wa_14012688258's cube
/// maps on gen12.5, which eubatch does not target).
pub const TRAILING_PARAMETERS_OPTIONAL: bool = true;

/// How many of a message's first parameters it must send whatever their value: parameter
/// 0, "required except for the sampleinfo message, which has no parameter 0" (Haswell PRM
/// Vol. 7 p. 149, quoted in Mesa's `opt_zero_samples`).
pub fn required_parameters(msg_type: u32) -> u32 {
    if msg_type == msg::SAMPLEINFO {
        0
    } else {
        1
    }
}

/// Bits 15:12 of a sampler header's dword 2: the response components left out (1 = not
/// written; PRM Vol. 2d "Message Header", Mesa `lower_sampler_logical_send`). The rest of
/// the dword is the message's header bits (gather channel 17:16, texel offsets 11:0).
pub const HEADER_RESPONSE_MASK: u32 = 0xf << 12;

/// A sampler message header's dword holding the Sampler State Pointer (bits 31:5; PRM
/// Vol. 2d "Message Header", M0.3), which the sampler adds the descriptor's 4-bit Sampler
/// Index to, 16 bytes a sampler state; g0's same dword holds the thread's pointer.
pub const HEADER_SAMPLER_STATE_DWORD: u32 = 3;
/// Bytes of one sampler state (`SAMPLER_STATE`; Mesa brw_eu_emit.c
/// `brw_adjust_sampler_state_pointer`: `sampler_state_size = 16`).
pub const SAMPLER_STATE_BYTES: u32 = 16;
/// The bits of the Sampler State Pointer dword that are the pointer (31:5, 32-byte
/// aligned).
pub const SAMPLER_STATE_POINTER_MASK: u32 = !0x1f;

/// The highest sampler index a header reaches in Mesa's code: bits 7:4 of the index move
/// the Sampler State Pointer, bits 3:0 are the descriptor's (brw_eu_emit.c
/// `brw_adjust_sampler_state_pointer`, run-time index: `(index & 0xf0) << 4`).
pub const MAX_HEADER_SAMPLER: u32 = 0xff;

/// The sampler a message with a header reads: the descriptor's `desc_sampler` (bits 11:8)
/// counted from the header's Sampler State Pointer (`header_dword3`), as an index from the
/// thread's own pointer (`g0_dword3`, which samplers 0-15 are from). Mesa reaches samplers
/// past 15 so (brw_eu_emit.c `brw_adjust_sampler_state_pointer`: dword 3 = g0.3 +
/// 16 * (sampler / 16) * 16 bytes, or with a run-time index g0.3 + ((index & 0xf0) << 4),
/// and the index's low 4 bits in the descriptor). `None` past [`MAX_HEADER_SAMPLER`]
/// (a pointer below the thread's is far past it, the difference taken modulo 2^32).
pub fn sampler_from_header(header_dword3: u32, g0_dword3: u32, desc_sampler: u32) -> Option<u32> {
    let base = g0_dword3 & SAMPLER_STATE_POINTER_MASK;
    let ptr = header_dword3 & SAMPLER_STATE_POINTER_MASK;
    let index = (ptr.wrapping_sub(base) / SAMPLER_STATE_BYTES).checked_add(desc_sampler & 0xf)?;
    (index <= MAX_HEADER_SAMPLER).then_some(index)
}

/// The highest texture and sampler index a vec4 texturing instruction's run-time index
/// reaches: Mesa's vec4 generator puts `(sampler << 8 | texture) & 0xfff` in a0 for the
/// descriptor (brw_vec4_generator.cpp `generate_tex`, non-constant sampler index), so the
/// texture has bits 7:0, and the sampler's bits 7:4 go to the header's Sampler State Pointer
/// ([`sampler_from_header`]); a larger index would not reach the sampler as itself.
pub const VEC4_MAX_DYNAMIC_INDEX: u32 = 0xff;

/// Whether a vec4 texturing instruction on `gen` whose sampler is `sampler` sends a message
/// header, for the reason the start IR shows: on Haswell a sampler index that is not an
/// immediate below 16 (Mesa 22.3 brw_vec4_visitor.cpp `emit_texture`: `header_size` is 1
/// for `is_high_sampler(sampler_reg)`, "Sampler indices too large to fit in a 4-bit value").
/// The header then takes `base_mrf` (m2) and the parameters start at m3. Mesa's other
/// reasons (texel offsets, gathers, `sampleinfo`, gen4) are not recorded in the start IR.
pub fn vec4_high_sampler_header(gen: Gen, sampler: &Operand) -> bool {
    gen == Gen::Gen75 && (sampler.file != RegFile::Imm || sampler.imm_bits() >= 16)
}

/// Whether g0's dword 2 is zero when a thread of `stage` starts, so that a sampler header
/// copied from g0 needs no write to its dword 2 where the message's header bits are 0:
/// "The vertex and fragment stages have g0.2 set to 0, so header0.2 is 0 when g0 is
/// copied. Other stages may not, so we must set it to 0" (Mesa 22.3
/// brw_lower_logical_sends.cpp `lower_sampler_logical_send`, the same in Mesa 25 for
/// gen < 11, which builds the header from 0 on gen11+). Mesa's copy propagation then
/// sends g0 itself as the header (`sends(8) g123UD g0UD g2UD ...` in its final code):
/// such a header's dword 2 is this zero.
pub fn g0_dword2_is_zero(stage: crate::shader::Stage) -> bool {
    matches!(stage, crate::shader::Stage::Vs | crate::shader::Stage::Fs)
}

/// Whether a sampler message of this shape is how a varying pull-constant load
/// (`varying_pull_const_logical`) reaches the sampler: an `ld` without a header, on the
/// buffer's binding table entry, whose only parameter is the byte offset (Mesa 22.3
/// brw_lower_logical_sends.cpp `lower_varying_pull_constant_logical_send` where
/// `compiler->indirect_ubos_use_sampler`, which brw_compiler.c sets for `ver < 12`: see
/// [`crate::target::Target::varying_pull_via_sampler`]; the same in Mesa 25). In a
/// final-code listing such sends are among the sampler messages, and Mesa's CSE may merge
/// two loads of one offset, so they are told apart by their surface, not counted.
pub fn is_varying_pull_shape(msg_type: u32, header: bool) -> bool {
    msg_type == msg::LD && !header
}

/// The gathers: their header must carry the channel to gather
/// ([`crate::shader::SendInfo::header_bits`]), which no dump records.
pub fn is_gather(op: Opcode) -> bool {
    matches!(op, Opcode::Tg4Logical | Opcode::Tg4OffsetLogical)
}

/// Sources of the logical texturing opcodes (Mesa 22.3 `enum tex_logical_srcs`).
pub mod src {
    pub const COORDINATE: usize = 0;
    pub const SHADOW_C: usize = 1;
    pub const LOD: usize = 2;
    pub const LOD2: usize = 3;
    pub const MIN_LOD: usize = 4;
    pub const SAMPLE_INDEX: usize = 5;
    pub const MCS: usize = 6;
    pub const SURFACE: usize = 7;
    pub const SAMPLER: usize = 8;
    pub const SURFACE_HANDLE: usize = 9;
    pub const SAMPLER_HANDLE: usize = 10;
    pub const TG4_OFFSET: usize = 11;
    pub const COORD_COMPONENTS: usize = 12;
    /// At most this many coordinate components: a 2D array or cube coordinate and its
    /// layer (NIR's `nir_tex_instr::coord_components`, 1..4, which Mesa's sampler lowering
    /// copies into the message).
    pub const MAX_COORD_COMPONENTS: u32 = 4;
    /// At most this many gradient components per derivative (x, y, z).
    pub const MAX_GRAD_COMPONENTS: u32 = 3;
    pub const GRAD_COMPONENTS: usize = 13;
    /// Sources in Mesa 22.3 (Mesa 25 adds a residency source).
    pub const COUNT: usize = 14;
    /// Mesa 25's residency request (an immediate: non-zero for sparse fetches).
    pub const RESIDENCY: usize = 14;
}

/// SIMD mode (descriptor bits 18:17, `BRW_SAMPLER_SIMD_MODE_*`).
pub const SIMD8: u32 = 1;
pub const SIMD16: u32 = 2;

/// The fields of a sampler message descriptor (`brw_sampler_desc`, gen7+).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Desc {
    pub surface: u32,
    pub sampler: u32,
    pub msg_type: u32,
    pub simd_mode: u32,
}

impl Desc {
    pub fn decode(desc: u32) -> Desc {
        Desc {
            surface: desc & 0xff,
            sampler: (desc >> 8) & 0xf,
            msg_type: (desc >> 12) & 0x1f,
            simd_mode: (desc >> 17) & 0x3,
        }
    }
}

/// Type of a message parameter as the lowering moves it into the payload.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ParamType {
    /// `payload_type` (F for 32-bit payloads): the source is converted.
    Float,
    /// `payload_signed_type` / `payload_unsigned_type`: the source's bits, retyped.
    Int,
}

/// One payload parameter (one register per eight channels).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Param {
    /// Component `comp` of logical source `src`.
    Src {
        src: usize,
        comp: u32,
        ty: ParamType,
    },
    /// The immediate 0 (`brw_imm_d(0)`).
    Zero,
    /// A parameter slot the message skips (padding before `min_lod`).
    Unused,
}

/// A logical texturing instruction as a message: its type and its parameters in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lowered {
    pub msg_type: u32,
    pub params: Vec<Param>,
}

fn imm(s: &Operand) -> Option<u64> {
    (s.file == RegFile::Imm).then(|| s.imm_bits())
}

fn present(s: Option<&Operand>) -> bool {
    s.is_some_and(|s| !s.is_bad())
}

/// `fs_reg::is_zero`: an immediate 0 (of any type; -0.0 is not zero).
fn is_zero(s: &Operand) -> bool {
    imm(s) == Some(0)
}

/// The message Mesa 22.3 builds on `gen` (gen7+) from a logical texturing instruction (its
/// 14 sources), or why it cannot say. Gen9 added the LOD-zero messages (`sample_lz`,
/// `ld_lz`) and moved `ld`'s LOD after `v`.
pub fn lower(op: Opcode, srcs: &[Operand], gen: Gen) -> Result<Lowered, String> {
    let gen9 = gen >= Gen::Gen9;
    use msg::*;
    // Mesa 25 appends the residency request (TEX_LOGICAL_SRC_RESIDENCY, an immediate).
    match srcs.len() {
        src::COUNT => {}
        n if n == src::COUNT + 1 => match imm(&srcs[src::RESIDENCY]) {
            Some(0) => {}
            Some(_) => {
                return Err("a residency request (sparse textures) is not modelled yet".into())
            }
            None => return Err("a non-immediate residency source".into()),
        },
        n => {
            return Err(format!(
                "`{}` with {} sources (Mesa 22.3 has {}, Mesa 25 {})",
                op.name(),
                n,
                src::COUNT,
                src::COUNT + 1
            ))
        }
    }
    let count = |k: usize, what: &str, max: u32| {
        let n = imm(&srcs[k])
            .map(|v| v as u32)
            .ok_or_else(|| format!("a non-immediate {what}"))?;
        if n > max {
            return Err(format!(
                "a {what} of {n} (a sampler message takes at most {max})"
            ));
        }
        Ok(n)
    };
    let coords = count(
        src::COORD_COMPONENTS,
        "coordinate count",
        src::MAX_COORD_COMPONENTS,
    )?;
    let grads = count(
        src::GRAD_COMPONENTS,
        "gradient count",
        src::MAX_GRAD_COMPONENTS,
    )?;
    let shadow = present(srcs.get(src::SHADOW_C));
    let f = |src: usize, comp: u32| Param::Src {
        src,
        comp,
        ty: ParamType::Float,
    };
    let i = |src: usize, comp: u32| Param::Src {
        src,
        comp,
        ty: ParamType::Int,
    };
    let mut p = Vec::new();
    if shadow {
        p.push(f(src::SHADOW_C, 0));
    }
    let pick = |plain: u32, compare: u32| if shadow { compare } else { plain };
    let mut coordinate_done = false;
    let msg_type = match op {
        Opcode::TexLogical => pick(SAMPLE, SAMPLE_C),
        Opcode::TxbLogical => {
            p.push(f(src::LOD, 0));
            pick(SAMPLE_B, SAMPLE_B_C)
        }
        Opcode::TxlLogical if gen9 && is_zero(&srcs[src::LOD]) => pick(SAMPLE_LZ, SAMPLE_C_LZ),
        Opcode::TxlLogical => {
            p.push(f(src::LOD, 0));
            pick(SAMPLE_L, SAMPLE_L_C)
        }
        Opcode::TxdLogical => {
            for c in 0..coords {
                p.push(f(src::COORDINATE, c));
                if c < grads {
                    p.push(f(src::LOD, c));
                    p.push(f(src::LOD2, c));
                }
            }
            coordinate_done = true;
            pick(SAMPLE_D, SAMPLE_D_C)
        }
        Opcode::TxsLogical => {
            p.push(i(src::LOD, 0));
            RESINFO
        }
        Opcode::ImageSizeLogical => {
            p.push(Param::Zero);
            RESINFO
        }
        Opcode::TxfLogical => {
            // LD: u, lod, v, r before gen9; u, v, lod, r on gen9 (v is 0 for 1D).
            p.push(i(src::COORDINATE, 0));
            if gen9 {
                p.push(if coords >= 2 {
                    i(src::COORDINATE, 1)
                } else {
                    Param::Zero
                });
            }
            let lz = gen9 && is_zero(&srcs[src::LOD]);
            if !lz {
                p.push(i(src::LOD, 0));
            }
            for c in if gen9 { 2 } else { 1 }..coords {
                p.push(i(src::COORDINATE, c));
            }
            coordinate_done = true;
            if lz {
                LD_LZ
            } else {
                LD
            }
        }
        Opcode::TxfCmsLogical
        | Opcode::TxfCmsWLogical
        | Opcode::TxfUmsLogical
        | Opcode::TxfMcsLogical => {
            if op != Opcode::TxfMcsLogical {
                p.push(i(src::SAMPLE_INDEX, 0));
            }
            let mcs = match op {
                Opcode::TxfCmsLogical => 1,
                Opcode::TxfCmsWLogical => 2,
                _ => 0,
            };
            for c in 0..mcs {
                // An immediate MCS is used for every component.
                let comp = if imm(&srcs[src::MCS]).is_some() { 0 } else { c };
                p.push(i(src::MCS, comp));
            }
            for c in 0..coords {
                p.push(i(src::COORDINATE, c));
            }
            coordinate_done = true;
            match op {
                Opcode::TxfCmsLogical => LD2DMS,
                Opcode::TxfCmsWLogical => LD2DMS_W,
                Opcode::TxfUmsLogical => LD2DSS,
                _ => LD_MCS,
            }
        }
        Opcode::Tg4Logical => pick(GATHER4, GATHER4_C),
        Opcode::Tg4OffsetLogical => {
            p.push(f(src::COORDINATE, 0));
            p.push(f(src::COORDINATE, 1));
            p.push(i(src::TG4_OFFSET, 0));
            p.push(i(src::TG4_OFFSET, 1));
            if coords == 3 {
                p.push(f(src::COORDINATE, 2));
            }
            coordinate_done = true;
            pick(GATHER4_PO, GATHER4_PO_C)
        }
        Opcode::LodLogical => LOD,
        Opcode::SampleInfoLogical => SAMPLEINFO,
        _ => return Err(format!("`{}` is not a sampler message", op.name())),
    };
    if !coordinate_done {
        for c in 0..coords {
            p.push(f(src::COORDINATE, c));
        }
    }
    if present(srcs.get(src::MIN_LOD)) {
        let mut skip = 4u32.saturating_sub(coords);
        if op == Opcode::TxdLogical {
            skip += 3u32.saturating_sub(grads) * 2;
        }
        p.extend((0..skip).map(|_| Param::Unused));
        p.push(f(src::MIN_LOD, 0));
    }
    Ok(Lowered {
        msg_type,
        params: p,
    })
}

/// Mesa's limit on a sampler message's payload: 11 registers (brw_ir.h
/// `MAX_SAMPLER_MESSAGE_SIZE`), so a SIMD16 message (two registers a parameter) takes at
/// most 5 parameters.
pub const MAX_MESSAGE_REGISTERS: u32 = 11;

/// The widest SIMD width at which Mesa 25 sends the sampler message of logical
/// instruction `op` (its 15 sources, the residency request last) on gen9-gen12
/// (brw_lower_simd_width.cpp `get_lowered_simd_width` and
/// `get_sampler_lowered_simd_width`, `ver < 20`). Mesa 25 counts the coordinate as four
/// components whatever `coord_components` is ("num_payload_components += 4 -
/// coord_components"; Mesa 22.3 counted the components read), so a SIMD16 message with
/// two parameters besides a 2D coordinate is split where 22.3's was not: the gather with
/// run-time offsets (`gather4_po`: u, v and two offsets) is SIMD8 in Mesa 25's final code.
/// `txd` is always SIMD8 ("TXD is unsupported in SIMD16 mode previous to Xe2"); a
/// minimum LOD on anything but `tex` also SIMD8. Components are `fs_inst::components_read`
/// (brw_fs.cpp): the offsets two, `txf_cms_w`'s MCS two, a present source one, an absent
/// one none. `None` for an opcode this rule does not cover or sources it cannot read.
pub fn mesa25_lowered_width(op: Opcode, srcs: &[Operand]) -> Option<u32> {
    if srcs.len() != src::COUNT + 1 {
        return None;
    }
    let has = |k: usize| present(srcs.get(k)) as u32;
    match op {
        Opcode::TxdLogical => return Some(8),
        Opcode::TexLogical
        | Opcode::TxfMcsLogical
        | Opcode::LodLogical
        | Opcode::Tg4Logical
        | Opcode::SampleInfoLogical
        | Opcode::TxfCmsWLogical
        | Opcode::Tg4OffsetLogical
        | Opcode::TxlLogical
        | Opcode::TxbLogical
        | Opcode::TxfLogical
        | Opcode::TxsLogical => {}
        _ => return None,
    }
    if op != Opcode::TexLogical && has(src::MIN_LOD) != 0 {
        return Some(8);
    }
    let coords = imm(&srcs[src::COORD_COMPONENTS])? as u32;
    if coords > src::MAX_COORD_COMPONENTS {
        return None;
    }
    // The LZ forms carry no LOD: free (`implicit_lod`).
    let implicit_lod =
        matches!(op, Opcode::TxlLogical | Opcode::TxfLogical) && is_zero(&srcs[src::LOD]);
    let components = coords
        + has(src::SHADOW_C)
        + if implicit_lod { 0 } else { has(src::LOD) }
        + has(src::LOD2)
        + has(src::SAMPLE_INDEX)
        + if op == Opcode::Tg4OffsetLogical {
            2 * has(src::TG4_OFFSET)
        } else {
            0
        }
        + if op == Opcode::TxfCmsWLogical { 2 } else { 1 } * has(src::MCS)
        + has(src::MIN_LOD)
        + (src::MAX_COORD_COMPONENTS - coords);
    Some(if components > MAX_MESSAGE_REGISTERS / 2 {
        8
    } else {
        16
    })
}

/// Whether the response of a message is integer data regardless of the surface (sizes and
/// sample counts); other messages return texels.
pub fn returns_integers(msg_type: u32) -> bool {
    matches!(msg_type, msg::RESINFO | msg::SAMPLEINFO | msg::LD_MCS)
}

/// The descriptor without lengths (`brw_sampler_desc`, gen7+): binding table entry in bits
/// 7:0, sampler 11:8, message type 16:12, SIMD mode 18:17.
pub fn descriptor(surface: u32, sampler: u32, msg_type: u32, simd_mode: u32) -> u32 {
    (surface & 0xff) | (sampler & 0xf) << 8 | (msg_type & 0x1f) << 12 | (simd_mode & 3) << 17
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A logical sampler instruction's sources: Mesa 22.3's 14, or Mesa 25's 15.
    fn srcs(coords: u32, with: &[(usize, Operand)], mesa25: bool) -> Vec<Operand> {
        let mut s = vec![Operand::bad(crate::Type::UD); src::COUNT + mesa25 as usize];
        s[src::COORDINATE] = Operand::vgrf(1, 0, crate::Type::F, 1);
        s[src::SURFACE] = Operand::imm(crate::Type::UD, 1);
        s[src::SAMPLER] = Operand::imm(crate::Type::UD, 0);
        s[src::COORD_COMPONENTS] = Operand::imm(crate::Type::D, coords as u64);
        s[src::GRAD_COMPONENTS] = Operand::imm(crate::Type::D, 0);
        if mesa25 {
            s[src::RESIDENCY] = Operand::imm(crate::Type::UD, 0);
        }
        for &(k, o) in with {
            s[k] = o;
        }
        s
    }

    /// The sampler of a header: the descriptor's counted from the thread's pointer moved
    /// on by `(index & 0xf0) << 4` (Mesa's run-time index), whatever the pointer's low bits;
    /// a pointer below the thread's or too far past it gives none.
    #[test]
    fn sampler_from_the_header_pointer() {
        let g0 = 0x1234_5678;
        for index in [0u32, 1, 15, 16, 17, 37, 255] {
            let h3 = g0 + ((index & 0xf0) << 4);
            assert_eq!(sampler_from_header(h3, g0, index & 0xf), Some(index));
        }
        assert_eq!(sampler_from_header(g0 | 0x1f, g0 & !0x1f, 3), Some(3));
        assert_eq!(sampler_from_header(g0 - 0x100, g0, 0), None);
        assert_eq!(sampler_from_header(g0 + 0x1000, g0, 0), None);
        let r = |n| Operand::vgrf(n, 0, crate::Type::UD, 1);
        let imm = |v| Operand::imm(crate::Type::UD, v);
        assert!(vec4_high_sampler_header(Gen::Gen75, &r(3)));
        assert!(vec4_high_sampler_header(Gen::Gen75, &imm(16)));
        assert!(!vec4_high_sampler_header(Gen::Gen75, &imm(15)));
        assert!(!vec4_high_sampler_header(Gen::Gen7, &r(3)));
    }

    #[test]
    fn mesa25_counts_the_coordinate_as_four() {
        let v = |n| Operand::vgrf(n, 0, crate::Type::F, 1);
        let offsets = [(src::TG4_OFFSET, Operand::vgrf(2, 0, crate::Type::D, 1))];
        // gather4_po of a 2D coordinate: 2 + 2 offsets + 2 for the coordinate = 6 > 5.
        let po = srcs(2, &offsets, true);
        assert_eq!(mesa25_lowered_width(Opcode::Tg4OffsetLogical, &po), Some(8));
        // A plain gather, a 2D txl with an LOD, an LOD-zero txl: 4, 5, 4 — SIMD16.
        let g = srcs(2, &[], true);
        assert_eq!(mesa25_lowered_width(Opcode::Tg4Logical, &g), Some(16));
        let txl = srcs(2, &[(src::LOD, v(3))], true);
        assert_eq!(mesa25_lowered_width(Opcode::TxlLogical, &txl), Some(16));
        let lz = srcs(2, &[(src::LOD, Operand::imm(crate::Type::F, 0))], true);
        assert_eq!(mesa25_lowered_width(Opcode::TxlLogical, &lz), Some(16));
        // A shadow compare with a bias on 2D: 6.
        let txb = srcs(2, &[(src::LOD, v(3)), (src::SHADOW_C, v(4))], true);
        assert_eq!(mesa25_lowered_width(Opcode::TxbLogical, &txb), Some(8));
        // txd, and a minimum LOD on anything but tex: SIMD8.
        assert_eq!(mesa25_lowered_width(Opcode::TxdLogical, &g), Some(8));
        let min_lod = srcs(2, &[(src::MIN_LOD, v(3))], true);
        assert_eq!(mesa25_lowered_width(Opcode::TxbLogical, &min_lod), Some(8));
        assert_eq!(mesa25_lowered_width(Opcode::TexLogical, &min_lod), Some(16));
        // Mesa 22.3's sources (14): not this rule's; nor an opcode it does not cover.
        assert_eq!(
            mesa25_lowered_width(Opcode::Tg4OffsetLogical, &srcs(2, &offsets, false)),
            None
        );
        assert_eq!(mesa25_lowered_width(Opcode::ImageSizeLogical, &g), None);
        // A coordinate count out of range or not an immediate: no answer, no panic.
        let mut bad = srcs(2, &[], true);
        bad[src::COORD_COMPONENTS] = Operand::imm(crate::Type::D, 7);
        assert_eq!(mesa25_lowered_width(Opcode::TexLogical, &bad), None);
        bad[src::COORD_COMPONENTS] = v(5);
        assert_eq!(mesa25_lowered_width(Opcode::TexLogical, &bad), None);
    }

    #[test]
    fn g0_dword2_is_zero_in_vertex_and_fragment_stages() {
        use crate::shader::Stage;
        assert!(g0_dword2_is_zero(Stage::Vs));
        assert!(g0_dword2_is_zero(Stage::Fs));
        assert!(!g0_dword2_is_zero(Stage::Cs));
        assert!(!g0_dword2_is_zero(Stage::Gs));
    }
}
