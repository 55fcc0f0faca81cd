//! Instruction timing as Mesa's list scheduler sees it after register allocation: the
//! latency of each instruction (Mesa 23.0 brw_schedule_instructions.cpp
//! `schedule_node::set_latency_gfx7`, the table used from gen6 on; Mesa 22.3.6 has the same
//! numbers) and the cycles it takes to issue (`fs_instruction_scheduler::issue_time`, with
//! brw_fs_bank_conflicts.cpp `has_bank_conflict`). These are the scheduler's own estimates,
//! measured by hand on Ivy Bridge and Haswell as the comments in Mesa say, not the static
//! performance model (`brw_ir_performance.cpp`, eubatch_codegen's `cycles`), whose numbers
//! differ.
//!
//! Where Mesa differs by generation, it is Haswell (`verx10 == 75`) against every other
//! generation; the table is the same for gen7, gen8 and gen9.

use crate::message::sfid;
use crate::{Gen, Opcode, Operand, RegFile};

/// Cycles before a dependent instruction can use the result of an instruction of opcode
/// `op` on `gen`; `send` is a raw send's shared function and descriptor (`None` for other
/// opcodes, or a send whose message is not known).
///
/// Mesa's numbers and where it got them (`set_latency_gfx7`):
/// - `mad`: 18 (16 on Haswell), `lrp`: 14 — the latency with both sources' banks unknown
///   ("our register allocator doesn't know about register banks, so use the higher
///   latency");
/// - one-source extended math (`rcp`, `rsq`, `sqrt`, `log2`, `exp2`, `sin`, `cos`): 16 (14 on
///   Haswell); `pow`: 24 (22 on Haswell). Mesa's table has no row for integer division,
///   which takes the default;
/// - the sampler: 200 (a cache-hot 140 to a cache-cold 700 cycles), `resinfo` and
///   `sampleinfo` 100;
/// - pull-constant loads (`uniform_pull_const*`, `varying_pull_const_gfx4`,
///   `pull_constant_load`): 200; `gfx7_scratch_read`: 50;
/// - render cache: render-target write 600 ("completely fabricated"), typed surface read or
///   write 600, typed atomic 14000;
/// - data cache (SFID 10) by message type (descriptor bits 18:14): OWord block read or
///   write 200, dword and byte scattered read or write 300, untyped surface read or write
///   600, untyped atomic 14000;
/// - data cache 1 (SFID 12): surface reads and writes (untyped, typed, A64) 300, atomics
///   14000; vec4's untyped surface read/write 600 (300 on Haswell), untyped atomic 14000;
/// - URB: 200;
/// - everything else: 14 ("2 cycles ... 16 cycles" for a `mul` and a dependent `mov`).
///
/// Messages Mesa's table has no row for (it stops there: `unreachable`) take 200, the
/// latency Mesa gives the URB and unknown ray-tracing messages: the constant cache, the
/// pixel interpolator, the gateway, the thread spawner, render-target reads, and data-port
/// messages of other types.
pub fn latency(gen: Gen, op: Opcode, send: Option<(u8, u32)>) -> u32 {
    use Opcode::*;
    let haswell = gen == Gen::Gen75;
    match op {
        Mad => {
            if haswell {
                16
            } else {
                18
            }
        }
        Lrp => 14,
        Rcp | Rsq | Sqrt | Log2 | Exp2 | Sin | Cos => {
            if haswell {
                14
            } else {
                16
            }
        }
        Pow => {
            if haswell {
                22
            } else {
                24
            }
        }
        Tex | Txd | Txf | TxfLz | Txl | TxlLz => 200,
        Txs => 100,
        VaryingPullConstGfx4 | UniformPullConst | UniformPullConstGfx7 | PullConstantLoad => 200,
        Gfx7ScratchRead => 50,
        UntypedAtomic => 14000,
        UntypedSurfaceRead | UntypedSurfaceWrite => {
            if haswell {
                300
            } else {
                600
            }
        }
        Send | Sendc | Sends | Sendsc => match send {
            Some((sfid, desc)) => send_latency(sfid, desc),
            None => UNKNOWN_MESSAGE,
        },
        _ => DEFAULT,
    }
}

/// Mesa's `default:` latency.
const DEFAULT: u32 = 14;
/// A message Mesa's table has no row for (see [`latency`]).
const UNKNOWN_MESSAGE: u32 = 200;

/// A raw send's latency by shared function and message type (see [`latency`]).
fn send_latency(sf: u8, desc: u32) -> u32 {
    match sf {
        sfid::SAMPLER => match (desc >> 12) & 0x1f {
            // GFX5_SAMPLER_MESSAGE_SAMPLE_RESINFO, GFX6_SAMPLER_MESSAGE_SAMPLE_SAMPLEINFO.
            10 | 11 => 100,
            _ => 200,
        },
        // brw_fb_desc_msg_type on gen7+: bits 17:14.
        sfid::RENDER_CACHE => match (desc >> 14) & 0xf {
            // GFX7_DATAPORT_RC_TYPED_SURFACE_READ, _WRITE; RENDER_TARGET_WRITE.
            5 | 13 | 12 => 600,
            // GFX7_DATAPORT_RC_TYPED_ATOMIC_OP.
            6 => 14000,
            _ => UNKNOWN_MESSAGE,
        },
        sfid::DATA_CACHE => match (desc >> 14) & 0x1f {
            // OWORD_BLOCK_READ, UNALIGNED_OWORD_BLOCK_READ, OWORD_BLOCK_WRITE.
            0 | 1 | 8 => 200,
            // DWORD_SCATTERED_READ, _WRITE, BYTE_SCATTERED_READ, _WRITE.
            3 | 11 | 4 | 12 => 300,
            // UNTYPED_SURFACE_READ, _WRITE.
            5 | 13 => 600,
            // UNTYPED_ATOMIC_OP.
            6 => 14000,
            _ => UNKNOWN_MESSAGE,
        },
        sfid::DATA_CACHE_1 => match (desc >> 14) & 0x1f {
            // Untyped and typed surface reads and writes, A64 reads and writes.
            1 | 9 | 5 | 13 | 0x19 | 0x11 | 0x1a | 0x10 | 0x14 | 0x15 => 300,
            // Untyped, typed, float and A64 atomics.
            2 | 3 | 7 | 6 | 0x1b | 0x12 | 0x1d | 0x13 | 0x1e => 14000,
            _ => UNKNOWN_MESSAGE,
        },
        sfid::URB => 200,
        _ => UNKNOWN_MESSAGE,
    }
}

/// The two-cycle issue of a SIMD8 instruction, four for SIMD16 (Mesa's
/// `fs_instruction_scheduler::issue_time`: "instructions in gen hardware are handled one
/// simd4 vector at a time, with 1 cycle per vector dispatched"; `is_compressed` is
/// `exec_size == 16`), plus, when the second and third sources of a three-source
/// instruction conflict ([`bank_conflict`]), one cycle per register of the destination
/// (`dst_bytes`, Mesa's `dst.component_size(exec_size)`).
pub fn issue_time(exec_size: u32, dst_bytes: u32, conflict: bool, reg_size: u32) -> u32 {
    let overhead = if conflict {
        dst_bytes.div_ceil(reg_size)
    } else {
        0
    };
    if exec_size == 16 {
        4 + overhead
    } else {
        2 + overhead
    }
}

/// The GRF bank of register `reg` (brw_fs_bank_conflicts.cpp `bank_of`: bit 6 and bit 0 of
/// the register number).
pub fn bank_of(reg: u32) -> u32 {
    (reg & 0x40) >> 5 | (reg & 1)
}

/// The registers the first three of `srcs` start in, in register-form code with
/// `reg_size`-byte registers (`None`: not a general register, or no such source): what the
/// bank rules ([`bank_conflict`], [`conflict_optimized_out`]) read of an instruction.
pub fn source_grfs(srcs: &[Operand], reg_size: u32) -> [Option<u32>; 3] {
    std::array::from_fn(|k| {
        srcs.get(k)
            .filter(|o| o.file == RegFile::FixedGrf)
            .map(|o| o.nr + o.offset / reg_size)
    })
}

/// Mesa's `has_bank_conflict` for a three-source instruction whose sources are in
/// registers `srcs` (`None`: not a general register): the second and third in the same
/// bank, unless gen9+ optimizes the read out (`is_conflict_optimized_out`: the first
/// source in the register of the second or third, or the second and third in one).
pub fn bank_conflict(gen: Gen, srcs: [Option<u32>; 3]) -> bool {
    let (Some(r1), Some(r2)) = (srcs[1], srcs[2]) else {
        return false;
    };
    bank_of(r1) == bank_of(r2) && !conflict_optimized_out(gen, srcs)
}

/// Whether the hardware skips the read cycle that would conflict, for a three-source
/// instruction whose second and third sources are general registers `srcs[1]` and
/// `srcs[2]` (brw_fs_bank_conflicts.cpp `is_conflict_optimized_out`, found by experiment:
/// gen9 and later, when the first source is in the register of the second or third, or
/// the second and third are in one).
pub fn conflict_optimized_out(gen: Gen, srcs: [Option<u32>; 3]) -> bool {
    let (Some(r1), Some(r2)) = (srcs[1], srcs[2]) else {
        return false;
    };
    gen >= Gen::Gen9 && (srcs[0].is_some_and(|r0| r0 == r1 || r0 == r2) || r1 == r2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mesa_latencies() {
        use Opcode::*;
        for gen in [Gen::Gen7, Gen::Gen8, Gen::Gen9] {
            assert_eq!(latency(gen, Mad, None), 18);
            assert_eq!(latency(gen, Rsq, None), 16);
            assert_eq!(latency(gen, Pow, None), 24);
        }
        assert_eq!(latency(Gen::Gen75, Mad, None), 16);
        assert_eq!(latency(Gen::Gen75, Rsq, None), 14);
        assert_eq!(latency(Gen::Gen75, Pow, None), 22);
        assert_eq!(latency(Gen::Gen9, Lrp, None), 14);
        assert_eq!(latency(Gen::Gen9, Add, None), 14);
        assert_eq!(latency(Gen::Gen9, IntQuot, None), 14);
        // A sampler sample (message type 0) and resinfo (10).
        assert_eq!(
            latency(Gen::Gen9, Send, Some((sfid::SAMPLER, 0x0a40_0000))),
            200
        );
        assert_eq!(
            latency(Gen::Gen9, Send, Some((sfid::SAMPLER, 10 << 12))),
            100
        );
        // A render-target write (message type 12 in bits 17:14).
        assert_eq!(
            latency(Gen::Gen9, Sends, Some((sfid::RENDER_CACHE, 12 << 14))),
            600
        );
        // Data cache: OWord block read, byte scattered read, untyped read, atomic.
        assert_eq!(latency(Gen::Gen9, Send, Some((sfid::DATA_CACHE, 0))), 200);
        assert_eq!(
            latency(Gen::Gen9, Send, Some((sfid::DATA_CACHE, 4 << 14))),
            300
        );
        assert_eq!(
            latency(Gen::Gen9, Send, Some((sfid::DATA_CACHE, 5 << 14))),
            600
        );
        assert_eq!(
            latency(Gen::Gen9, Send, Some((sfid::DATA_CACHE, 6 << 14))),
            14000
        );
        assert_eq!(
            latency(Gen::Gen9, Send, Some((sfid::DATA_CACHE_1, 1 << 14))),
            300
        );
        assert_eq!(latency(Gen::Gen9, Send, Some((sfid::URB, 0))), 200);
        // No row in Mesa's table.
        assert_eq!(
            latency(Gen::Gen9, Send, Some((sfid::CONSTANT_CACHE, 0))),
            200
        );
        assert_eq!(latency(Gen::Gen9, Gfx7ScratchRead, None), 50);
    }

    #[test]
    fn issue_and_bank_conflicts() {
        assert_eq!(issue_time(8, 32, false, 32), 2);
        assert_eq!(issue_time(16, 64, false, 32), 4);
        assert_eq!(issue_time(16, 64, true, 32), 6);
        assert_eq!(issue_time(8, 32, true, 32), 3);
        // g2 and g4: bank 0 both; g3: bank 1; g66: bank 2.
        assert!(bank_conflict(Gen::Gen9, [Some(10), Some(2), Some(4)]));
        assert!(!bank_conflict(Gen::Gen9, [Some(10), Some(2), Some(3)]));
        assert!(!bank_conflict(Gen::Gen9, [Some(10), Some(2), Some(66)]));
        // Gen9 reads a repeated register once; gen8 does not.
        assert!(!bank_conflict(Gen::Gen9, [Some(2), Some(2), Some(4)]));
        assert!(bank_conflict(Gen::Gen8, [Some(2), Some(2), Some(4)]));
        assert!(!bank_conflict(Gen::Gen9, [None, Some(4), Some(4)]));
        // An immediate or other file in the second or third place: no conflict.
        assert!(!bank_conflict(Gen::Gen7, [Some(2), None, Some(4)]));
    }
}
