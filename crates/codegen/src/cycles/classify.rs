//! Which of Mesa's cost classes a final-code instruction counts as. Mesa prices the IR
//! before code generation (brw_ir_performance.cpp `instruction_desc` switches on the IR
//! opcode); in the final code a hardware opcode names its IR opcode, and a send names it
//! by shared function and message type (`SHADER_OPCODE_SEND`'s `switch (info.sfid)`, with
//! `brw_dp_desc_msg_type`), except for the messages Mesa still sends through a legacy
//! opcode (scratch, constant-cache pull loads, barriers, thread termination, fences).

use eubatch_ir::message::sfid;
use eubatch_ir::{Gen, Opcode};

use super::desc::Class;

/// Data-port message types (brw_eu_defines.h) the model distinguishes.
mod msg {
    /// `GFX7_DATAPORT_RC_TYPED_ATOMIC_OP`.
    pub const RC_TYPED_ATOMIC: u32 = 6;
    /// `GFX7_DATAPORT_RC_MEMORY_FENCE`, `GFX7_DATAPORT_DC_MEMORY_FENCE`.
    pub const MEMORY_FENCE: u32 = 7;
    /// `GFX7_DATAPORT_DC_UNTYPED_ATOMIC_OP` (IVB).
    pub const IVB_DC_UNTYPED_ATOMIC: u32 = 6;
    /// `HSW_DATAPORT_DC_PORT1_UNTYPED_ATOMIC_OP`, `_SIMD4X2`, `TYPED_ATOMIC_OP`,
    /// `TYPED_ATOMIC_OP_SIMD4X2`.
    pub const HSW_DC_ATOMICS: [u32; 4] = [2, 3, 6, 7];
    /// `GFX7_DATAPORT_DC_OWORD_BLOCK_READ`, `OWORD_DUAL_BLOCK_READ`, `OWORD_BLOCK_WRITE`,
    /// `OWORD_DUAL_BLOCK_WRITE`: what legacy scratch reads and writes send before gen9.
    pub const OWORD_BLOCK: [u32; 4] = [0, 2, 8, 10];
}

/// `brw_dp_desc_msg_type`: bits 18:14 on gen8+, 17:14 on gen7.
pub fn dp_msg_type(gen: Gen, desc: u32) -> u32 {
    if matches!(gen, Gen::Gen7 | Gen::Gen75) {
        (desc >> 14) & 0xf
    } else {
        (desc >> 14) & 0x1f
    }
}

/// Bit 18 of a data-cache descriptor on gen7+: a scratch-block message
/// (`GFX7_DATAPORT_SCRATCH_READ`/`WRITE`), sent only by `SHADER_OPCODE_GFX7_SCRATCH_READ`.
fn is_scratch_block(desc: u32) -> bool {
    desc & (1 << 18) != 0
}

/// A scratch-block read (`SHADER_OPCODE_GFX7_SCRATCH_READ`, gen7–8): data cache, scratch
/// bit set, a read (`GFX7_DATAPORT_SCRATCH_READ` has bit 17 clear).
pub fn is_scratch_block_read(gen: Gen, info: &eubatch_ir::shader::SendInfo) -> bool {
    !matches!(gen, Gen::Gen9 | Gen::Gen11 | Gen::Gen12)
        && info.sfid == sfid::DATA_CACHE
        && is_scratch_block(info.desc)
        && info.desc & (1 << 17) == 0
}

/// The class of a send to `sfid` with descriptor `desc` (`None`: unknown function).
pub fn send_class(gen: Gen, sfid: u8, desc: u32) -> Option<Class> {
    let ty = dp_msg_type(gen, desc);
    Some(match sfid {
        sfid::SAMPLER => Class::Sampler,
        sfid::URB => Class::Urb,
        sfid::RENDER_CACHE if ty == msg::RC_TYPED_ATOMIC => Class::RenderCacheAtomic,
        sfid::RENDER_CACHE if ty == msg::MEMORY_FENCE => Class::FenceRender,
        sfid::RENDER_CACHE => Class::RenderCache,
        sfid::DATA_CACHE if is_scratch_block(desc) => Class::Scratch,
        sfid::DATA_CACHE if ty == msg::MEMORY_FENCE => Class::FenceData,
        // Before gen9 Mesa spills and fills with the legacy scratch opcodes, which send
        // OWord block messages; from gen9 with a plain SEND.
        sfid::DATA_CACHE
            if !matches!(gen, Gen::Gen9 | Gen::Gen11 | Gen::Gen12)
                && msg::OWORD_BLOCK.contains(&ty) =>
        {
            Class::Scratch
        }
        sfid::DATA_CACHE | sfid::DATA_CACHE_1 => {
            let atomic = if matches!(gen, Gen::Gen7) {
                ty == msg::IVB_DC_UNTYPED_ATOMIC
            } else {
                msg::HSW_DC_ATOMICS.contains(&ty)
            };
            if atomic {
                Class::DataCacheAtomic
            } else {
                Class::DataCache
            }
        }
        sfid::CONSTANT_CACHE => Class::ConstantCache,
        sfid::PIXEL_INTERP => Class::PixelInterp,
        sfid::GATEWAY => Class::Barrier,
        sfid::THREAD_SPAWNER => Class::CsTerminate,
        _ => return None,
    })
}

/// The class of a non-send hardware opcode (or of eubatch's math opcodes, which stand for
/// the `math` instruction's function). `None`: no class (a send, or an opcode Mesa's
/// table does not price).
pub fn alu_class(op: Opcode) -> Option<Class> {
    use Opcode as O;
    Some(match op {
        O::Mov | O::Cmp | O::Add | O::Mul | O::Add3 => Class::Arith,
        O::Sel
        | O::Not
        | O::And
        | O::Or
        | O::Xor
        | O::Shr
        | O::Shl
        | O::Asr
        | O::Cmpn
        | O::F16to32
        | O::Bfrev
        | O::Bfi1
        | O::Avg
        | O::Frc
        | O::Rndu
        | O::Rndd
        | O::Rnde
        | O::Rndz
        | O::Mac
        | O::Mach
        | O::Lzd
        | O::Fbh
        | O::Fbl
        | O::Cbit
        | O::Addc
        | O::Subb
        | O::Sad2
        | O::Sada2
        | O::Line
        | O::Nop
        | O::Dim
        | O::Ror
        | O::Rol
        | O::Sync => Class::Logic,
        O::Bfe | O::Bfi2 | O::Csel => Class::Bitfield,
        O::Mad => Class::Mad,
        O::Lrp => Class::Lrp,
        O::F32to16 => Class::F32to16,
        O::Dp4 | O::Dph | O::Dp3 | O::Dp2 => Class::Dot,
        O::Pln => Class::Linterp,
        O::Rcp | O::Rsq | O::Sqrt | O::Exp2 | O::Log2 | O::Sin | O::Cos => Class::Math,
        O::Pow => Class::Pow,
        O::IntQuot | O::IntRem => Class::IntDiv,
        O::Do => Class::Do,
        O::If | O::Else | O::Endif | O::While | O::Break | O::Continue | O::Halt => Class::Jump,
        O::HaltTarget => Class::Free,
        // The `wait` after a barrier's gateway send: part of SHADER_OPCODE_BARRIER, whose
        // cost the send carries (`generate_barrier`).
        O::Wait => Class::Free,
        _ => return None,
    })
}

/// Three-source opcodes (`is_3src`), whose second and third sources can conflict in a
/// register bank.
pub fn is_3src(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Mad | Opcode::Lrp | Opcode::Bfe | Opcode::Bfi2 | Opcode::Csel | Opcode::Add3
    )
}
