//! The generator's rules that depend on the generation, each once, with its source in
//! Mesa (23.0 `brw_fs_generator.cpp` / `brw_eu_emit.c`; these parts are as in 22.3).
//!
//! eubatch's targets are the big-core parts of each generation (`chv`, `bxt`, `glk` name
//! the same [`Gen`] as `bdw` and `skl`): the rules Mesa has for Cherryview and the gen9
//! low-power parts (`intel_device_info_is_9lp`) are not applied.

use eubatch_ir::Gen;

/// `generate_code`: on gen8 and gen9 a NOP goes between a `math pow` and an instruction
/// whose destination spans more than one register (BDW/SKL PRM Vol. 7 "Register Region
/// Restrictions": "A POW/FDIV operation must not be followed by an instruction that
/// requires two destination registers").
pub fn nop_after_pow(gen: Gen) -> bool {
    matches!(gen, Gen::Gen8 | Gen::Gen9)
}

/// `brw_broadcast`: the signed immediate of an indirect address reaches this many bytes;
/// a source register at or past it needs an `add` to the address register first.
pub const INDIRECT_IMMEDIATE_LIMIT: u32 = 512;

/// `brw_broadcast` / `generate_mov_indirect`: a 64-bit value moves as two dword moves
/// where the hardware has no 64-bit integer type (`!devinfo->has_64bit_int`: gen7.x).
pub fn split_64bit_broadcast(gen: Gen) -> bool {
    !gen.target().has_64bit_int
}

/// `generate_mov_indirect`: a 64-bit indirect move is two dword moves on Ivy Bridge
/// (`verx10 == 70`), where the hardware lacks 64-bit floats, and from gen12.5 on.
pub fn split_64bit_mov_indirect(gen: Gen) -> bool {
    gen.verx10() == 70 || !gen.target().has_64bit_float
}

/// `generate_mov_indirect`: from gen7 the address register is first initialised whole by
/// a NoMask `mov` (hardware bug with VxH addressing of inactive channels).
pub fn mov_indirect_initialises_address(gen: Gen) -> bool {
    gen.verx10() >= 70
}

/// `generate_shuffle`: the execution size of each piece: 8 on gen7 and for 64-bit
/// values (the address register has 8 subregisters there, 64-bit VxH needs two each),
/// else the instruction's, at most 16.
pub fn shuffle_width(gen: Gen, element_bytes: u32, exec_size: u32) -> u32 {
    if gen.verx10() < 80 || element_bytes > 4 {
        8
    } else {
        exec_size.min(16)
    }
}

/// Split sends (`sends`/`sendsc`, two payloads and an extended descriptor) exist from gen9
/// (brw_eu_emit.c `brw_send_indirect_split_message`; `GFX9_OPCODE_SENDS` in
/// brw_eu_opcodes.h).
pub fn split_sends(gen: Gen) -> bool {
    gen >= Gen::Gen9
}

/// `brw_send_indirect_split_message`: before gen12 an immediate extended descriptor with
/// any of bits 15:12 set does not fit the instruction and goes through `a0.2`.
pub fn ex_desc_fits_instruction(gen: Gen, ex_desc: u32) -> bool {
    gen.verx10() >= 120 || ex_desc & 0xf000 == 0
}

/// `brw_find_live_channel` (gen7): the flag register is filled by `mov.z` pieces of at
/// most 16 channels (a gen7 bug applies channel enables wrongly to the second half of a
/// SIMD32 instruction). From gen8 it is one `fbl` of the channel-enable mask, which Mesa
/// emits before register allocation (`fs_visitor::lower_find_live_channel`) and eubatch
/// in the generator.
pub fn find_live_channel_in_generator(gen: Gen) -> bool {
    gen.verx10() < 80
}

/// `generate_barrier`: after the gateway message gen12 waits with `sync.bar`, earlier
/// generations with `wait n0`.
pub fn barrier_wait(gen: Gen) -> eubatch_ir::Opcode {
    if gen >= Gen::Gen12 {
        eubatch_ir::Opcode::Sync
    } else {
        eubatch_ir::Opcode::Wait
    }
}

/// `generate_ddy` (fine): gen11+, and Broadwell for half floats, compute the fine
/// derivative in Align1 SIMD4 pieces, one `add` per four channels; else one Align16 `add`.
pub fn ddy_fine_pieces(gen: Gen, half_float: bool, exec_size: u32) -> u32 {
    if gen >= Gen::Gen11 || (gen == Gen::Gen8 && half_float) {
        exec_size.div_ceil(4)
    } else {
        1
    }
}

/// `generate_quad_swizzle`: a 32-bit swizzle of a SIMD8 value is one Align16 `mov` before
/// gen11 (Align16 exists); otherwise general swizzles take four `mov`s.
pub fn quad_swizzle_align16(gen: Gen, element_bytes: u32) -> bool {
    gen < Gen::Gen11 && element_bytes == 4
}
