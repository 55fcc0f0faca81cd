//! Logical messages to `send`s: each logical message becomes the moves that build its
//! payload — one register per 8 channels for each parameter, in the order the shared
//! function reads them — and a `send` with the message's descriptor (shared function,
//! message type, SIMD mode, binding table entry, message and response lengths). Payload
//! orders and descriptors come from [`eubatch_ir::message`], which the simulator decodes
//! raw sends with too: a lowered shader and its logical input are compared message by
//! message. (Mesa: brw_lower_logical_sends.cpp.)
//!
//! Lowered so far, on gen7-gen9, one file per message family, each saying what of its
//! family it lowers and which hardware rules limit it:
//! - `pull_constants.rs`: `varying_pull_const_logical`, `uniform_pull_const` and Mesa 25's
//!   constant block `memory_load`.
//! - `memory.rs`: Mesa 25's `memory_load`, `memory_store`, `memory_atomic` (per-channel
//!   accesses of buffers, shared memory, images and 64-bit addresses, as the surface and
//!   A64 messages).
//! - `sampler.rs`: the sampler messages.
//! - `surface.rs`: every surface message (untyped surface, byte- and dword-scattered
//!   reads and writes here; the payload and `send` of them all), with `atomic.rs` (untyped
//!   and typed atomics, integer and float) and `typed.rs` (typed surface reads and writes).
//! - `a64.rs`: A64 (64-bit address) reads, writes and atomics.
//! - `block.rs`: OWord block reads and writes, by binding table entry and A64.
//! - `urb.rs`: URB reads and writes.
//! - `framebuffer.rs`: render target writes (`fb_write_logical`).
//! - `payload.rs`: the payloads of them all, one run of registers or two.
//!
//! This file is the pass: it finds each message's family (`Family`) and hands the message
//! to it, and holds the helpers every family shares (the `send` itself, moves and ALU
//! instructions, SIMD modes, immediates).
//!
//! Rules that limit it: the instruction is already no wider than its message allows (SIMD-
//! width lowering runs first); surface and sampler indices are immediates or scalars
//! computed at run time (`BindingTable`, and the sampler's own descriptor register); every
//! parameter is a 32-bit value. Where the parameters already lie in one VGRF in payload
//! order (a texture coordinate, a colour), the send reads that VGRF and no move is made.
//! Anything else is left logical: [`Outcome::left_logical`] counts it, with the reason, and
//! the shader is as it was before the attempt (its VGRF table, the message's size written
//! and control).

mod a64;
mod atomic;
mod block;
mod framebuffer;
mod memory;
mod payload;
mod pull_constants;
mod sampler;
mod surface;
mod typed;
mod urb;

use eubatch_ir::message::message_desc;
use eubatch_ir::shader::SendInfo;
use eubatch_ir::{Builder, Gen, Inst, Opcode, Operand, RegFile, Shader, Type};

use crate::analysis::changed::Changed;
use crate::PassCx;

use payload::Payload;

/// What one run did.
#[derive(Debug, Default)]
pub struct Outcome {
    pub lowered: usize,
    /// Messages left logical, with why.
    pub left_logical: Vec<(Inst, String)>,
}

/// Scalar code on gen7–gen9: the message descriptors and payloads built here are those
/// generations' (Ice Lake's and Xe's dataport, sampler and URB messages differ).
pub const SCOPE: crate::manager::Scope = crate::manager::Scope {
    targets: (eubatch_ir::Gen::Gen7, eubatch_ir::Gen::Gen9),
    assumes: "it builds gen7-gen9 message descriptors and payloads from Align1 operands",
    ..crate::manager::Scope::SCALAR
};

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> Changed {
    // It runs once per pipeline: whatever it changed, every analysis is dropped.
    Changed::when(lower(shader).lowered > 0, Changed::EVERYTHING)
}

/// Lowers every logical message of `shader` that its family can, block by block, and says
/// how many it lowered and which it left logical, with why.
pub fn lower(shader: &mut Shader) -> Outcome {
    let mut out = Outcome::default();
    if shader.target < Gen::Gen7 {
        return out;
    }
    let (targets, fb_writes) = framebuffer::targets(shader);
    let low_samplers = sampler::low_samplers(shader);
    // Where a fragment shader's sample mask is, decided on the shader as it comes (the
    // copies of the dispatch mask this pass adds do not change it).
    let in_flag = eubatch_ir::message::sample_mask::in_flag(shader);
    for b in 0..shader.layout.blocks.len() {
        let block = eubatch_ir::Block::from_usize(b);
        let old = std::mem::take(&mut shader.layout.blocks[block].insts);
        let mut new = Vec::with_capacity(old.len());
        let mut fb_headers = hashbrown::HashMap::new();
        let mut urb_headers = hashbrown::HashMap::new();
        for inst in old {
            let Some(family) = Family::of(shader.insts.opcode[inst]) else {
                new.push(inst);
                continue;
            };
            // What a family may change of the shader before it finds it cannot lower the
            // message: put back when it gives up, so that a message left logical leaves
            // the shader as it was (no VGRF of an unfinished payload or descriptor).
            let vgrfs = shader.vgrfs.len();
            let (size_written, control) =
                (shader.insts.size_written[inst], shader.insts.control[inst]);
            let result = match family {
                Family::VaryingPull => pull_constants::varying_pull(shader, inst),
                Family::UniformPull => pull_constants::uniform_pull(shader, inst),
                Family::Memory => memory::memory_message(shader, inst, &new, in_flag),
                Family::Surface => surface::surface_message(shader, inst, &new, in_flag),
                Family::A64 => a64::a64_message(shader, inst, &new, in_flag),
                Family::Block => block::block_message(shader, inst, &new),
                Family::Sampler => sampler::sampler_message(shader, inst, &new, &low_samplers),
                Family::UrbWrite => urb::urb_write(shader, inst, &new, &mut urb_headers),
                Family::UrbRead => urb::urb_read(shader, inst),
                Family::FbWrite => {
                    let target = targets.get(&inst).copied().unwrap_or(0);
                    framebuffer::fb_write(shader, inst, target, fb_writes, &new, &mut fb_headers)
                }
            };
            match result {
                Ok(insts) => {
                    out.lowered += 1;
                    new.extend(insts);
                }
                Err(why) => {
                    shader.vgrfs.truncate(vgrfs);
                    shader.insts.size_written[inst] = size_written;
                    shader.insts.control[inst] = control;
                    out.left_logical.push((inst, why));
                    new.push(inst);
                }
            }
        }
        shader.layout.blocks[block].insts = new;
    }
    out
}

/// The kinds of logical message this pass lowers, each by its own function.
#[derive(Clone, Copy)]
enum Family {
    /// `varying_pull_const_logical` (`pull_constants.rs`).
    VaryingPull,
    /// `uniform_pull_const` (`pull_constants.rs`).
    UniformPull,
    /// Mesa 25's `memory_load`, `memory_store`, `memory_atomic` (`memory.rs`).
    Memory,
    /// Surface messages: untyped and typed, reads, writes and atomics, scattered
    /// (`surface.rs`, `atomic.rs`, `typed.rs`).
    Surface,
    /// A64 reads, writes and atomics (`a64.rs`).
    A64,
    /// OWord block reads and writes (`block.rs`).
    Block,
    /// The sampler messages (`sampler.rs`).
    Sampler,
    /// `urb_write_logical` (`urb.rs`).
    UrbWrite,
    /// `urb_read_logical` (`urb.rs`).
    UrbRead,
    /// `fb_write_logical` (`framebuffer.rs`).
    FbWrite,
}

impl Family {
    /// The family of a message of opcode `op`, if this pass lowers it.
    fn of(op: Opcode) -> Option<Family> {
        Some(match op {
            Opcode::VaryingPullConstLogical => Family::VaryingPull,
            Opcode::UniformPullConst => Family::UniformPull,
            Opcode::MemoryLoadLogical
            | Opcode::MemoryStoreLogical
            | Opcode::MemoryAtomicLogical => Family::Memory,
            Opcode::UrbWriteLogical => Family::UrbWrite,
            Opcode::UrbReadLogical => Family::UrbRead,
            Opcode::FbWriteLogical => Family::FbWrite,
            op if eubatch_ir::width_rules::is_surface_message(op) => Family::Surface,
            op if eubatch_ir::width_rules::is_a64_message(op) => Family::A64,
            op if eubatch_ir::message::block::is_block_message(op) => Family::Block,
            op if eubatch_ir::width_rules::is_sampler_message(op) => Family::Sampler,
            _ => return None,
        })
    }
}

/// The logical messages this pass lowers (some forms of them it still leaves logical,
/// saying why in [`Outcome::left_logical`]).
pub fn handles(op: Opcode) -> bool {
    Family::of(op).is_some()
}

/// Messages Mesa keeps as virtual opcodes through register allocation and whose `send` its
/// generator emits (brw_fs_generator.cpp: `generate_cs_terminate`, `generate_barrier`,
/// SHADER_OPCODE_MEMORY_FENCE / INTERLOCK, the halt and discard jumps): its pre-RA IR has
/// them as they are, so lowering leaves them too.
pub fn kept_for_generator(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::CsTerminate | Opcode::Barrier | Opcode::MemoryFence | Opcode::Interlock
    )
}

/// The `send` replacing `inst`, reading `payload`.
fn send(shader: &mut Shader, inst: Inst, payload: Payload, sfid: u8, desc: u32) -> Inst {
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let size_written = shader.insts.size_written[inst];
    let rlen = if dst.is_null() || dst.is_bad() {
        0
    } else {
        size_written.div_ceil(shader.reg_size())
    };
    let desc = desc | message_desc(payload.mlen, rlen, payload.header > 0);
    let mut srcs = vec![
        Operand::imm(Type::UD, 0),
        Operand::imm(Type::UD, 0),
        payload.first,
    ];
    srcs.extend(payload.second);
    // The response's size is the instruction's (the message's), not its region's.
    Builder::with_control(ctl).message(
        shader,
        Opcode::Send,
        dst,
        &srcs,
        if rlen == 0 { 0 } else { size_written },
        Some(SendInfo {
            mlen: payload.mlen as u8,
            ex_mlen: payload.ex_mlen as u8,
            header_size: payload.header as u8,
            sfid,
            desc,
            ex_desc: eubatch_ir::message::ex_desc(payload.ex_mlen),
            urb_offset: None,
            header_bits: None,
        }),
    )
}

/// The sampler message's SIMD mode for `exec` channels (8 or 16).
fn simd_mode(exec: u32) -> Result<u32, String> {
    match exec {
        8 => Ok(eubatch_ir::message::sampler::SIMD8),
        16 => Ok(eubatch_ir::message::sampler::SIMD16),
        w => Err(format!(
            "a SIMD{w} sampler message (SIMD-width lowering leaves 8 or 16)"
        )),
    }
}

/// The bits of `op`, an immediate; else an error naming it `what`.
/// A fresh one-dword VGRF for the part of a descriptor computed at run time: the
/// destination its scalar instructions write, and the `<0,1,0>` source the `send` reads as
/// its descriptor (source 0), which the generator ORs into `a0.0`.
fn descriptor_register(shader: &mut Shader) -> (Operand, Operand) {
    let nr = shader.vgrfs.push(eubatch_ir::VgrfLayout::flat(4)).index() as u32;
    let d = Operand::vgrf(nr, 0, Type::UD, 1);
    let scalar = Operand {
        region: eubatch_ir::Region::new(0, 1, 0),
        stride: 0,
        ..d
    };
    (d, scalar)
}

/// A message's binding table index as its descriptor takes it: an immediate's low bits go
/// into the descriptor itself; one computed at run time (a scalar: Mesa makes it uniform
/// first) is masked by an `and(1)` NoMask into a fresh scalar that the `send` ORs into its
/// descriptor ([`eubatch_ir::message::surface::BINDING_TABLE_INDEX_MASK`], Mesa 22.3
/// `setup_surface_descriptors`). The `and` goes into `out`; [`BindingTable::attach`] puts
/// the scalar on the send.
#[derive(Clone, Copy)]
enum BindingTable {
    Imm(u32),
    Reg(Operand),
}

impl BindingTable {
    fn of(
        shader: &mut Shader,
        out: &mut Vec<Inst>,
        index: &Operand,
    ) -> Result<BindingTable, String> {
        use eubatch_ir::message::surface::{is_scalar_index, BINDING_TABLE_INDEX_MASK};
        if index.file == RegFile::Imm {
            return Ok(BindingTable::Imm(
                index.imm_bits() as u32 & BINDING_TABLE_INDEX_MASK,
            ));
        }
        if !is_scalar_index(index) {
            return Err("a binding table index that is neither an immediate nor a scalar".into());
        }
        let (d, scalar) = descriptor_register(shader);
        let mut index = *index;
        index.ty = Type::UD;
        out.push(Builder::new(1).exec_all().and(
            shader,
            d,
            index,
            Operand::imm(Type::UD, BINDING_TABLE_INDEX_MASK as u64),
        ));
        Ok(BindingTable::Reg(scalar))
    }

    /// The index's part of the descriptor's immediate (0 for a register index).
    fn imm(self) -> u32 {
        match self {
            BindingTable::Imm(i) => i,
            BindingTable::Reg(_) => 0,
        }
    }

    /// Gives send `s` the register part of its descriptor, if any.
    fn attach(self, shader: &mut Shader, s: Inst) {
        if let BindingTable::Reg(d) = self {
            shader.srcs_mut(s)[0] = d;
        }
    }
}

fn immediate(op: &Operand, what: &str) -> Result<u32, String> {
    (op.file == RegFile::Imm)
        .then(|| op.imm_bits() as u32)
        .ok_or_else(|| format!("a non-immediate {what}"))
}
