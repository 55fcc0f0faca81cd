//! The gen7 (Ivybridge, Haswell) tessellation stages of the vec4 back end: their thread
//! payloads and the URB message headers Mesa's vec4 generator builds for them, as Mesa 22.3
//! writes them (brw_vec4_tcs.cpp `vec4_tcs_visitor::setup_payload`, brw_vec4_tes.cpp
//! `vec4_tes_visitor::setup_payload`, brw_vec4_generator.cpp `generate_tcs_*`,
//! `generate_tes_*`, `generate_vec4_urb_read`). The simulator models the start IR's virtual
//! opcodes with these rules and the final code's sends with the same header fields.
//!
//! Thread payload:
//! - TCS (HS): g0.0 the patch URB handle (`generate_tcs_output_urb_offsets`: "HS patch URB
//!   handle is delivered in r0.0"), g0.1 the primitive ID (`generate_tcs_get_primitive_id`),
//!   g0.2 the instance number in bits 23:17 (22:16 on Ivybridge) and the barrier ID in bits
//!   16:13 (15:12) (`generate_tcs_get_instance_id`, `generate_tcs_create_barrier_header`);
//!   g1.0-g4.7 the input control points' URB handles, vertex `v` at `g(1 + v / 8).(v % 8)`;
//!   push constants from g5.
//! - TES (DS): g1.0-2 and g1.4-6 the tessellation coordinates (`load_tess_coord` reads
//!   `g1<4,4,1>`), g1.3 the patch URB handle (`generate_tes_create_input_read_header`), g1.7
//!   the primitive ID (`generate_tes_get_primitive_id`); push constants from g2, then the
//!   pushed patch inputs, two 16-byte slots a register, the same for both halves
//!   (`setup_payload`: slot `s` at `brw_vec4_grf(reg + s / 2, 4 * (s % 2))`, `<0,4,1>`).
//!
//! The URB message header (one register, eight dwords) of the OWord reads and writes:
//! dwords 0 and 1 the URB handles of the two halves (interleaved) or dword 0 alone; dwords
//! 3 and 4 the per-slot offsets, 128-bit units; dword 5 bits 11:8 and 15:12 the channel
//! enables of the first and the second OWord of data.

/// Dword of the header holding the URB handle of half (OWord) `h`.
pub const HANDLE_DWORD: u32 = 0;
/// First of the two per-slot offset dwords.
pub const PER_SLOT_DWORD: u32 = 3;
/// The channel-enable dword.
pub const CHANNEL_ENABLE_DWORD: u32 = 5;
/// Every channel of both OWords enabled (`brw_imm_ud(0xff00)`).
pub const ALL_CHANNELS: u32 = 0xff00;

/// Dword 5 of a header writing the components `mask` of both OWords
/// (`generate_tcs_output_urb_offsets`: `(mask << 8) | (mask << 12)`).
pub fn channel_enables(mask: u32) -> u32 {
    (mask & 0xf) << 8 | (mask & 0xf) << 12
}

/// The components of OWord `k` (0, 1) a channel-enable dword writes.
pub fn oword_mask(enables: u32, k: u32) -> u32 {
    (enables >> (8 + 4 * k)) & 0xf
}

/// gen7 URB message opcodes (brw_eu_defines.h `BRW_URB_OPCODE_*`).
pub const GEN7_WRITE_OWORD: u32 = 1;
pub const GEN7_READ_OWORD: u32 = 3;

/// The TCS payload: register of the input control points' handles and where push
/// constants start.
pub const TCS_ICP_HANDLES_REG: u32 = 1;
pub const TCS_CURB_START: u32 = 5;
/// Register and dword of input vertex `v`'s URB handle.
pub fn tcs_icp_handle(v: u32) -> (u32, u32) {
    (TCS_ICP_HANDLES_REG + v / 8, v % 8)
}
/// g0.0: the patch URB handle; g0.1: the primitive ID; g0.2: instance and barrier ID.
pub const TCS_PATCH_HANDLE: (u32, u32) = (0, 0);
pub const TCS_PRIMITIVE_ID: (u32, u32) = (0, 1);
pub const TCS_INSTANCE_DWORD: (u32, u32) = (0, 2);

/// The instance number's field in g0.2 and its shift (`generate_tcs_get_instance_id`:
/// `INTEL_MASK(23, 17)` and 17 on Haswell, `INTEL_MASK(22, 16)` and 16 on Ivybridge).
pub fn tcs_instance_field(ivb: bool) -> (u32, u32) {
    if ivb {
        (0x7f << 16, 16)
    } else {
        (0x7f << 17, 17)
    }
}

/// The two invocation IDs of a TCS thread (halves 0 and 1) from g0.2: "we assign (2i + 1,
/// 2i) as the thread counts" — the generator shifts right by one less than the field's
/// shift and adds 1 for the second half.
pub fn tcs_instance_ids(g0_2: u32, ivb: bool) -> [u32; 2] {
    let (mask, shift) = tcs_instance_field(ivb);
    let first = (g0_2 & mask) >> (shift - 1);
    [first, first.wrapping_add(1)]
}

/// The TES payload: g1.3 the patch URB handle, masked to its 13 valid bits
/// (`generate_tes_create_input_read_header`: `brw_imm_ud(0x1fff)`); g1.7 the primitive ID.
pub const TES_PATCH_HANDLE: (u32, u32) = (1, 3);
pub const TES_PATCH_HANDLE_MASK: u32 = 0x1fff;
pub const TES_PRIMITIVE_ID: (u32, u32) = (1, 7);
pub const TES_CURB_START: u32 = 2;

/// `tcs_thread_end`'s message (`vec4_tcs_visitor::emit_thread_end`: base_mrf 14, mlen 2;
/// `generate_tcs_thread_end`: header zero but dword 5 = `WRITEMASK_X << 8` and dword 0 =
/// g0.0, the data register zero; an OWord write, not interleaved, with channel masks, EOT,
/// global offset 0).
pub const TCS_THREAD_END_MRF: u32 = 14;
pub const TCS_THREAD_END_ENABLES: u32 = 1 << 8;

/// The barrier message header's dword 2 (`generate_tcs_create_barrier_header`): the
/// barrier ID from g0.2 bits 16:13 (15:12 on Ivybridge) shifted to bits 27:24, the barrier
/// count (`brw_tcs_prog_data::instances`, which the IR does not record) at bit 9, and the
/// enable bit 15.
pub fn tcs_barrier_dword2(g0_2: u32, instances: u32, ivb: bool) -> u32 {
    let (mask, shl) = if ivb {
        (0xf << 12, 12)
    } else {
        (0xf << 13, 11)
    };
    ((g0_2 & mask) << shl) | instances << 9 | 1 << 15
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The final code of piglit-coverage-hsw's vs-tcs-tes-vertex: `and g5 g0.2
    /// 0x00fe0000`, `shr g5 g5 0x10`, `add g5.4 g5 1`; the write header's `0x0000ee00`
    /// for a write mask 0xe; the barrier's `and 0x0001e000`, `shl 0xb`, `or 0x8400`
    /// (two instances).
    #[test]
    fn haswell_fields_match_mesas_final_code() {
        assert_eq!(tcs_instance_field(false).0, 0x00fe_0000);
        assert_eq!(tcs_instance_ids(3 << 17, false), [6, 7]);
        assert_eq!(channel_enables(0xe), 0xee00);
        assert_eq!(oword_mask(0x1100, 0), 1);
        assert_eq!(oword_mask(0x1100, 1), 1);
        assert_eq!(tcs_barrier_dword2(0, 2, false), 0x8400);
        assert_eq!(tcs_barrier_dword2(1 << 13, 2, false), 0x8400 | 1 << 24);
        assert_eq!(tcs_icp_handle(9), (2, 1));
    }
}
