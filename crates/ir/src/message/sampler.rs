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
