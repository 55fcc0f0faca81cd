//! Mesa 25's subgroup opcodes to hardware instructions before register allocation, as
//! Mesa 25.0 lowers them (which it does before allocation, so eubatch does too):
//!
//! * `load_subgroup_invocation` (brw_lower.cpp `brw_lower_load_subgroup_invocation`): at
//!   SIMD8 a NoMask `mov(8) dst:UW, 76543210V` then `mov(8) dst:UD, dst:UW`; wider, the
//!   UW destination gets `mov(8) dst, 76543210V`, `add(8) dst+16B, dst, 8uw` and at SIMD32
//!   `add(16) dst+32B, dst, 16uw`, all NoMask in channel group 0;
//! * `ballot value` of a register (brw_lower_subgroup_ops.cpp `brw_lower_ballot`): the flag
//!   f0.0 filled with 0 (`brw_fill_flag`: a NoMask `mov(1)`, UD at SIMD32 to cover f0.0 and
//!   f0.1, UW below), a `cmp.nz.f0.0 null:UD, value:UD, 0u` in the instruction's channels,
//!   and `mov dst, f0.0<0,1,0>` NoMask (Mesa's is NoMask in its scalar group where `dst`
//!   is one of its scalar VGRFs, which the dumps do not mark, else in the live channels:
//!   every channel serves both);
//! * `read_from_live_channel value` (`brw_lower_read_from_live_channel`: `MOV(dst,
//!   emit_uniformize(value))`): a NoMask `find_live_channel` into a channel index, a NoMask
//!   `broadcast tmp, value, index<0>` and a `mov dst, tmp<0>` in the instruction's channels.
//!   Mesa allocates the index and `tmp` SIMD8 (its scalar group) and writes one element of
//!   each; here they are as wide as the instruction, the width eubatch's `find_live_channel`
//!   and `broadcast` write.
//!
//! Rules that limit it: `ballot` of an immediate (Mesa's `load_live_channels` fast path),
//! `read_from_live_channel` of a value not at the start of a register (Mesa moves it to one
//! first), `read_from_channel` (whose index Mesa masks by the dispatch width or not by the
//! API's subgroup size, which the dump does not say) and the other subgroup opcodes
//! (reductions, scans, votes, quad swaps) stay as they are: the simulator runs them as Mesa defines them
//! (eubatch-sim's `run/subgroup.rs`), and they remain to be lowered here. An instruction
//! with a predicate, a conditional modifier or saturation, or another destination type
//! than Mesa's (UD at SIMD8, UW wider for `load_subgroup_invocation`), stays too.

use eubatch_ir::operand::arf;
use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::vgrf::VgrfLayout;
use eubatch_ir::{Builder, Inst, Opcode, Operand, RegFile, Region, Shader, Type};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> Changed {
    let mut progress = super::replace_each(shader, Opcode::LoadSubgroupInvocation, invocation);
    progress |= super::replace_each(shader, Opcode::Ballot, ballot);
    progress |= super::replace_each(shader, Opcode::ReadFromLiveChannel, read_from_live_channel);
    Changed::when(progress, Changed::EVERYTHING)
}

/// Whether `inst` has only what the lowering keeps: its channels, NoMask and nothing else.
fn plain(shader: &Shader, inst: Inst) -> bool {
    let ctl = shader.insts.control[inst];
    ctl.predicate == Predicate::None && ctl.cmod == CondMod::None && !ctl.saturate()
}

fn invocation(shader: &mut Shader, inst: Inst) -> Option<Vec<Inst>> {
    let exec = shader.insts.control[inst].exec_size;
    let dst = shader.insts.dst[inst];
    let want = if exec == 8 { Type::UD } else { Type::UW };
    if !plain(shader, inst) || dst.file != RegFile::Vgrf || dst.stride != 1 || dst.ty != want {
        return None;
    }
    let b8 = Builder::new(8).exec_all();
    let ramp = Operand::imm(Type::V, 0x7654_3210);
    let mut uw = dst;
    uw.ty = Type::UW;
    let mut out = vec![b8.mov(shader, uw, ramp)];
    if exec == 8 {
        out.push(b8.mov(shader, dst, uw));
    } else {
        let mut hi = uw;
        hi.offset += 16;
        out.push(b8.add(shader, hi, uw, Operand::imm(Type::UW, 8)));
        if exec > 16 {
            let mut upper = uw;
            upper.offset += 32;
            out.push(Builder::new(16).exec_all().add(
                shader,
                upper,
                uw,
                Operand::imm(Type::UW, 16),
            ));
        }
    }
    Some(out)
}

fn ballot(shader: &mut Shader, inst: Inst) -> Option<Vec<Inst>> {
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let value = *shader.srcs(inst).first()?;
    if !plain(shader, inst)
        || value.file == RegFile::Imm
        || value.is_bad()
        || dst.file != RegFile::Vgrf
        || shader.dispatch_width < ctl.exec_size
    {
        return None;
    }
    // brw_fill_flag: f0.0 as UD (f0.0 and f0.1) at SIMD32, as UW below.
    let flag_ty = if shader.dispatch_width == 32 {
        Type::UD
    } else {
        Type::UW
    };
    let flag = |region| Operand::arf(arf::FLAG, 0, flag_ty, region);
    let mut out = vec![Builder::new(1).exec_all().mov(
        shader,
        flag(Region::new(8, 8, 1)),
        Operand::imm(flag_ty, 0),
    )];
    let mut value_ud = value;
    value_ud.ty = Type::UD;
    let mut cmp_ctl = Builder::channels_of(ctl).control();
    cmp_ctl.cmod = CondMod::Nz;
    cmp_ctl.flag_subreg = 0;
    let null = Operand::arf(arf::NULL, 0, Type::UD, Region::new(8, 8, 1));
    out.push(Builder::with_control(cmp_ctl).alu(
        shader,
        Opcode::Cmp,
        null,
        &[value_ud, Operand::imm(Type::UD, 0)],
    ));
    // NoMask: Mesa writes a scalar destination (`dst.is_scalar`, not in its dumps) in its
    // scalar group whatever the live channels, a vector one in the live channels; every
    // channel covers both (the others of a vector one are never read).
    out.push(
        Builder::channels_of(ctl)
            .exec_all()
            .mov(shader, dst, flag(Region::new(0, 1, 0))),
    );
    Some(out)
}

fn read_from_live_channel(shader: &mut Shader, inst: Inst) -> Option<Vec<Inst>> {
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let value = *shader.srcs(inst).first()?;
    let aligned = value.file != RegFile::Vgrf || value.offset % shader.reg_size() == 0;
    if !plain(shader, inst) || value.is_bad() || !aligned || dst.file != RegFile::Vgrf {
        return None;
    }
    let exec = ctl.exec_size as u32;
    let all = Builder::channels_of(ctl).exec_all();
    let chan = shader.vgrfs.push(VgrfLayout::flat(exec * 4)).index() as u32;
    let chan = Operand::vgrf(chan, 0, Type::UD, 1);
    let size = value.ty.size();
    let tmp = shader.vgrfs.push(VgrfLayout::flat(exec * size)).index() as u32;
    let tmp = Operand::vgrf(tmp, 0, value.ty, 1);
    let mut index = chan;
    index.stride = 0;
    let mut scalar = tmp;
    scalar.stride = 0;
    Some(vec![
        all.alu(shader, Opcode::FindLiveChannel, chan, &[]),
        all.alu(shader, Opcode::Broadcast, tmp, &[value, index]),
        Builder::channels_of(ctl).mov(shader, dst, scalar),
    ])
}
