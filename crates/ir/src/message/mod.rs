//! Messages to the shared functions, defined once: descriptors and payload layouts as the
//! hardware reads them and as Mesa builds them from logical instructions. The lowering
//! passes and the simulator both use these, so a logical message and its lowered `send`
//! mean the same thing by construction.

pub mod a64;
pub mod atomic;
pub mod block;
pub mod memory;
pub mod pixel_interp;
pub mod sample_mask;
pub mod sampler;
pub mod scratch;
pub mod surface;
pub mod tess_vec4;
pub mod typed;
pub mod urb;

use crate::operand::{Operand, RegFile};

/// Shared function IDs (brw_eu_defines.h `BRW_SFID_*`, `GFX6_SFID_*`, `GFX7_SFID_*`,
/// `HSW_SFID_*`).
pub mod sfid {
    pub const SAMPLER: u8 = 2;
    /// BRW_SFID_MESSAGE_GATEWAY: barriers.
    pub const GATEWAY: u8 = 3;
    pub const RENDER_CACHE: u8 = 5;
    pub const URB: u8 = 6;
    /// BRW_SFID_THREAD_SPAWNER: a compute thread ends with an EOT message to it
    /// (Mesa `emit_cs_terminate`).
    pub const THREAD_SPAWNER: u8 = 7;
    pub const CONSTANT_CACHE: u8 = 9;
    pub const DATA_CACHE: u8 = 10;
    /// GFX7_SFID_PIXEL_INTERPOLATOR.
    pub const PIXEL_INTERP: u8 = 11;
    /// HSW_SFID_DATAPORT_DATA_CACHE_1: untyped surface and atomic messages (gen7.5+).
    pub const DATA_CACHE_1: u8 = 12;
}

/// Bytes the response of logical message `op` (sources `srcs`, `exec` channels) fills,
/// where Mesa's code fixes it: a varying pull-constant load's four components
/// (fs_visitor::VARYING_PULL_CONSTANT_LOAD, `size_written = 4 * component_size`); a
/// pixel-interpolator query's two coordinates ([`pixel_interp`]); a
/// surface, A64 or block read's components as their tables say (`atomic`, `surface`,
/// `a64`, `block`: the immediate argument of untyped and typed reads, one dword per
/// channel for scattered ones, an atomic's old value, a block's dwords; Mesa 25's memory
/// loads and atomics, [`memory::response_bytes`]). `None` for
/// messages without a response, or whose size is the instruction's own (`(size: N)`:
/// sampler messages, which answer the components a pass leaves them).
pub fn response_bytes(op: crate::Opcode, srcs: &[Operand], exec: u32) -> Option<u32> {
    let per_channel = exec * 4;
    if matches!(
        op,
        crate::Opcode::MemoryLoadLogical | crate::Opcode::MemoryAtomicLogical
    ) {
        return memory::response_bytes(srcs, exec);
    }
    if op == crate::Opcode::VaryingPullConstLogical {
        return Some(4 * per_channel);
    }
    if pixel_interp::location(op).is_some() {
        return Some(pixel_interp::COORDINATES * per_channel);
    }
    if let Some(a) = atomic::logical(op, srcs, true) {
        return Some(a.response as u32 * per_channel);
    }
    if let Some(s) = surface::logical_shape(op, srcs).filter(|s| !s.write) {
        return Some(s.comps * per_channel);
    }
    if let Some(m) = a64::logical(op, srcs, true) {
        return Some(m.response_components() * per_channel).filter(|&n| n > 0);
    }
    block::logical(op, srcs)
        .filter(|b| !b.write)
        .map(|b| b.dwords * 4)
}

/// Whether a raw `send` of shared function `sfid` with descriptor `desc` only reads: the
/// sampler, the constant cache, a URB read, a data-port surface or scattered read. Mesa
/// marks each message it builds (`fs_inst::send_has_side_effects`); a send read back from
/// a dump does not say, so the descriptor decides, conservatively: a message not known to
/// only read (writes, atomics, fences, the render target, the thread spawner, a
/// descriptor left in a register, an EOT) has side effects.
pub fn only_reads(sfid: u8, desc: u32, eot: bool, desc_in_register: bool) -> bool {
    if eot || desc_in_register {
        return false;
    }
    match sfid {
        sfid::SAMPLER | sfid::CONSTANT_CACHE => true,
        sfid::URB => urb::decode(desc).opcode == urb::SIMD8_READ,
        sfid::DATA_CACHE | sfid::DATA_CACHE_1 | sfid::RENDER_CACHE => {
            surface::decode(sfid, desc).is_some_and(|(shape, _)| !shape.write)
                || typed::decode(sfid, desc).is_some_and(|(shape, _)| !shape.write)
                || matches!(a64::decode(sfid, desc), Some((a64::Msg::Access(s), _)) if !s.write)
                || block::decode(sfid, desc).is_some_and(|b| !b.write)
        }
        _ => false,
    }
}

/// Fields every message descriptor has (PRM Vol. 2a "Message Descriptor"): message
/// length (28:25), response length (24:20), header present (19).
pub fn mlen(desc: u32) -> u32 {
    (desc >> 25) & 0xf
}
pub fn rlen(desc: u32) -> u32 {
    (desc >> 20) & 0x1f
}
pub fn header_present(desc: u32) -> bool {
    desc & (1 << 19) != 0
}
/// Extended message length of a split send (extended descriptor bits 9:6).
pub fn ex_mlen(ex_desc: u32) -> u32 {
    (ex_desc >> 6) & 0xf
}

/// The extended descriptor of a split send whose second payload is `ex_mlen` registers
/// (bits 9:6; the shared function in bits 3:0 is the instruction's own field here).
pub fn ex_desc(ex_mlen: u32) -> u32 {
    (ex_mlen & 0xf) << 6
}

/// The length fields every descriptor carries (`brw_message_desc`): message length,
/// response length and whether a header leads the payload.
pub fn message_desc(mlen: u32, rlen: u32, header: bool) -> u32 {
    (mlen & 0xf) << 25 | (rlen & 0x1f) << 20 | (header as u32) << 19
}

/// The payload sources of a `send`, in either form the IR holds: Mesa's SHADER_OPCODE_SEND
/// (descriptor, extended descriptor, payload, second payload — what lowering emits and the
/// pre-RA dumps print; a descriptor in a register is ORed into the instruction's) or final code's (payload, second payload; the descriptors are in the
/// instruction's [`crate::shader::SendInfo`]).
pub fn send_payloads(srcs: &[Operand]) -> (Option<&Operand>, Option<&Operand>) {
    if sends_form(srcs) {
        (srcs.get(2), srcs.get(3))
    } else {
        (srcs.first(), srcs.get(1))
    }
}

/// Whether a `send`'s sources are Mesa's SHADER_OPCODE_SEND form (descriptors first):
/// three or four sources, the first two immediates or registers holding a scalar (virtual,
/// or fixed with a `<0;1,0>` region once registers are allocated), the third a payload
/// register. Final code has at most the two payloads and an address register.
fn sends_form(srcs: &[Operand]) -> bool {
    let descriptor = |s: &Operand| match s.file {
        RegFile::Imm | RegFile::Vgrf | RegFile::Uniform => true,
        RegFile::FixedGrf => s.region.vstride == 0 && s.region.width == 1,
        _ => false,
    };
    srcs.len() >= 3 && srcs[..2].iter().all(descriptor) && srcs[2].file != RegFile::Arf
}

/// The register holding part of a `send`'s descriptor (Mesa's SHADER_OPCODE_SEND with a
/// descriptor computed at run time, `component(desc, 0)`), which the hardware ORs into the
/// instruction's own.
pub fn descriptor_register(srcs: &[Operand]) -> Option<&Operand> {
    srcs.first()
        .filter(|d| sends_form(srcs) && d.file != RegFile::Imm)
}

/// The surface and offset sources of a pull-constant load (`varying_pull_const_logical`,
/// `uniform_pull_const`): Mesa 22.3 orders them surface, offset, ...; Mesa 25 puts the
/// surface's bindless handle second (`PULL_*_CONSTANT_SRC_SURFACE_HANDLE`), four sources
/// in all.
pub fn pull_constant_srcs(srcs: &[Operand]) -> Option<(Operand, Operand)> {
    match srcs.len() {
        4 => Some((srcs[0], srcs[2])),
        2 | 3 => Some((srcs[0], srcs[1])),
        _ => None,
    }
}

/// Why the component counts of sampler message `op` (sources `srcs`) are out of range,
/// if they are: at most [`sampler::src::MAX_COORD_COMPONENTS`] coordinates and
/// [`sampler::src::MAX_GRAD_COMPONENTS`] gradients.
pub fn sampler_counts(op: crate::Opcode, srcs: &[Operand]) -> Option<String> {
    use sampler::src;
    if !crate::width_rules::is_sampler_message(op) || srcs.len() < src::COUNT {
        return None;
    }
    [
        (
            src::COORD_COMPONENTS,
            src::MAX_COORD_COMPONENTS,
            "coordinate",
        ),
        (src::GRAD_COMPONENTS, src::MAX_GRAD_COMPONENTS, "gradient"),
    ]
    .into_iter()
    .find_map(|(k, max, what)| {
        let s = srcs[k];
        let n = (s.file == RegFile::Imm).then(|| s.imm_bits() as u32)?;
        (n > max).then(|| format!("a {what} count of {n}: a sampler message takes at most {max}"))
    })
}

/// How many components (each one value per channel) source `i` of a logical message holds:
/// what splitting it into channel groups must gather per group (Mesa's
/// `fs_inst::components_read`). One for anything else.
pub fn source_components(op: crate::Opcode, srcs: &[Operand], i: usize) -> u32 {
    let imm = |k: usize| {
        srcs.get(k)
            .filter(|s| s.file == RegFile::Imm)
            .map(|s| s.imm_bits() as u32)
    };
    if crate::width_rules::is_sampler_message(op) && srcs.len() >= sampler::src::COUNT {
        use sampler::src;
        // (A count out of range is the verifier's error, `sampler_counts`; here it counts
        // as one component, so that nothing sized by it runs away before that is said.)
        let bounded = |k: usize, max: u32| imm(k).filter(|&n| n <= max).unwrap_or(1);
        return match i {
            src::COORDINATE => bounded(src::COORD_COMPONENTS, src::MAX_COORD_COMPONENTS),
            src::LOD | src::LOD2 if op == crate::Opcode::TxdLogical => {
                bounded(src::GRAD_COMPONENTS, src::MAX_GRAD_COMPONENTS)
            }
            src::TG4_OFFSET => 2,
            src::MCS if op == crate::Opcode::TxfCmsWLogical => 2,
            _ => 1,
        };
    }
    if crate::width_rules::is_surface_message(op) {
        // The address: the image's coordinates for typed messages (`IMM_DIMS`), one
        // address for the others; the data: what the message writes, the atomic's
        // operands (Mesa `fs_inst::components_read`).
        let dims = imm(surface::src::IMM_DIMS).filter(|d| (1..=4).contains(d));
        return match i {
            surface::src::ADDRESS => dims.unwrap_or(1),
            surface::src::DATA => match atomic::logical(op, srcs, false) {
                Some(a) => a.data_components(),
                None => surface::logical_shape(op, srcs).map_or(1, |s| s.comps),
            },
            _ => 1,
        };
    }
    if matches!(
        op,
        crate::Opcode::MemoryLoadLogical
            | crate::Opcode::MemoryStoreLogical
            | crate::Opcode::MemoryAtomicLogical
    ) && srcs.len() == memory::src::COUNT
    {
        // Mesa 25's memory messages: the address's coordinates, each data operand's
        // components (a block's data is not split by channels: one).
        use memory::src;
        let block = imm(src::FLAGS).is_some_and(|f| f & memory::FLAG_TRANSPOSE != 0);
        return match i {
            src::ADDRESS if !block => imm(src::COORD_COMPONENTS)
                .filter(|n| (1..=4).contains(n))
                .unwrap_or(1),
            src::DATA0 | src::DATA1 if !block => imm(src::COMPONENTS)
                .filter(|n| (1..=4).contains(n))
                .unwrap_or(1),
            _ => 1,
        };
    }
    if crate::width_rules::is_a64_message(op) && i == a64::src::DATA {
        return a64::logical(op, srcs, false).map_or(1, |m| m.data_components().max(1));
    }
    if op == crate::Opcode::FbWriteLogical {
        let comps = imm(render_target::src::COMPONENTS).unwrap_or(4);
        return match i {
            render_target::src::COLOR0 | render_target::src::COLOR1 => comps,
            _ => 1,
        };
    }
    1
}

/// Constant-cache reads (SFID 9; PRM Vol. 2d "OWord Block Read"; Mesa
/// brw_fs_generator.cpp `generate_uniform_pull_constant_load_gfx7`): a header whose dword 2
/// is the offset in OWords (16 bytes), then the block in `rlen` registers.
pub mod constant_cache {
    /// Message type in bits 17:14 (`GFX6_DATAPORT_READ_MESSAGE_OWORD_BLOCK_READ`).
    pub const OWORD_BLOCK_READ: u32 = 0;

    /// The descriptor without lengths: binding table entry `surface`, an OWord block read
    /// of `bytes` (16, 32, 64 or 128: block size bits 10:8, `BRW_DATAPORT_OWORD_BLOCK_*`).
    pub fn block_read_desc(surface: u32, bytes: u32) -> Option<u32> {
        let size =
            super::memory::oword_block_size(bytes / 4).filter(|_| bytes.is_multiple_of(4))?;
        Some((surface & 0xff) | size << 8 | OWORD_BLOCK_READ << 14)
    }
}

/// Render target writes (SFID 5; PRM Vol. 2d "Render Target Write", Mesa
/// brw_eu.h `brw_fb_write_desc`).
pub mod render_target {
    /// Message type in bits 17:14 (`GFX6_DATAPORT_WRITE_MESSAGE_RENDER_TARGET_WRITE`).
    pub const WRITE: u32 = 12;
    /// Message subtypes in bits 10:8 (`BRW_DATAPORT_RENDER_TARGET_WRITE_SIMD*`).
    pub const SIMD16_SINGLE_SOURCE: u32 = 0;
    pub const SIMD8_DUAL_SOURCE_SUBSPAN01: u32 = 2;
    pub const SIMD8_DUAL_SOURCE_SUBSPAN23: u32 = 3;
    pub const SIMD8_SINGLE_SOURCE: u32 = 4;

    /// The descriptor without lengths: binding table entry `surface`, the subtype, and
    /// the "last render target select" bit (12) of the thread's final write.
    pub fn write_desc(surface: u32, subtype: u32, last: bool) -> u32 {
        (surface & 0xff) | (subtype & 7) << 8 | (last as u32) << 12 | WRITE << 14
    }

    /// Sources of `fb_write_logical` (Mesa 22.3 `enum fb_write_logical_srcs`).
    pub mod src {
        pub const COLOR0: usize = 0;
        pub const COLOR1: usize = 1;
        pub const SRC0_ALPHA: usize = 2;
        pub const SRC_DEPTH: usize = 3;
        pub const DST_DEPTH: usize = 4;
        pub const SRC_STENCIL: usize = 5;
        pub const OMASK: usize = 6;
        pub const COMPONENTS: usize = 7;
    }
}
