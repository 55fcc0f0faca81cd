//! Mesa 25's subgroup opcodes to hardware instructions before register allocation, as
//! Mesa 25.0 lowers them (which it does before allocation, so eubatch does too). The
//! rules that fix widths, types and predicates are the target's ([`eubatch_ir::subgroup`]:
//! the scan steps, the flag fill's type, the vote predicates, how a reduction's result is
//! moved); this pass writes the instructions:
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
//!   and `broadcast` write. A value not at the start of a register is first moved to one
//!   in the instruction's channels (`BROADCAST`: "the source of a broadcast is always
//!   register aligned");
//! * `read_from_channel value, index` (`brw_lower_read_from_channel`): an immediate index
//!   masked by the dispatch width is `mov dst, value.index<0>`; a register index is ANDed
//!   with the dispatch width less one (below SIMD32), uniformized as above, and the value
//!   broadcast from that channel and moved to `dst`. Mesa ANDs when the API's subgroup
//!   size (which the dump does not say) is wider than the dispatch: GLSL's
//!   KHR_shader_subgroup fixes it at 32, ARB_shader_ballot leaves it the dispatch width.
//!   The AND only changes an index past the dispatch, whose read NIR leaves undefined, so
//!   the one lowering is right for both, one `and` above Mesa's code in the second case;
//! * `reduce value, op, cluster` (`brw_lower_reduce`): a NoMask `sel_exec scan, value,
//!   identity` (the operation's identity in dead channels), the steps of `brw_emit_scan`
//!   (each a NoMask `op` or `sel.l`/`sel.ge` from channel 0) and either one
//!   `cluster_broadcast dst, scan, cluster - 1, cluster` or, where a cluster spans two
//!   registers or more, a `mov` per two-register group of its cluster's last element, in
//!   the instruction's channels;
//! * `inclusive_scan`/`exclusive_scan value, op` (`brw_lower_scan`): the `sel_exec`; for an
//!   exclusive scan, `load_subgroup_invocation` (lowered as above), a NoMask `add.sat
//!   idx:UW, invocation, -1w`, a NoMask `shuffle shifted, scan, idx` and a NoMask `mov(1)`
//!   of the identity into channel 0; the scan steps over the whole dispatch; a `mov dst,
//!   scan` in the instruction's channels;
//! * `vote_any`/`vote_all`/`vote_equal value` over the whole dispatch
//!   (`brw_lower_dispatch_width_vote`): the flag filled with 0 for any, all ones otherwise;
//!   `cmp.nz.f0.0 null:D, value, 0d` (`cmp.z` against the uniformized value for equal) in
//!   the instruction's channels; a NoMask `mov(1) res:D, 0d` and `(+f0.0.all8h) mov(1)
//!   res, -1d` (ANY/ALL of the dispatch width); `mov dst:D, res<0>`. In quads (cluster 4,
//!   `brw_lower_quad_vote_gfx9`): the fill, `cmp.nz.f0.0 null:UD, value:UD, 0u`, a NoMask
//!   `mov dst:UD, 0u` and `(+f0.0.any4h) mov dst:D, -1d`.
//!
//! Rules that limit it: `ballot` of an immediate (Mesa's `load_live_channels` fast path)
//! and `quad_swap` stay as they are: the simulator runs them as Mesa defines them
//! (eubatch-sim's `run/subgroup.rs`), and they remain to be lowered here. So do a reduction
//! or scan of bytes (Mesa's identity is then a word immediate), of a 64-bit type where the
//! target has no 64-bit immediates, or a 64-bit integer min, max or mul where it has no
//! 64-bit integers (`brw_emit_scan_step`'s compare sequence); one narrower than the
//! dispatch or not from channel 0 (Mesa scans the instruction's width but moves results by
//! the dispatch's); a vote of an immediate, a vote in clusters other than 4 or the
//! dispatch, a quad vote of other than a dword integer; `read_from_channel` of an
//! immediate value with a register index or of a fixed register with an immediate one.
//! An instruction with a predicate, a conditional modifier or saturation, with a
//! destination other than a VGRF, or with another destination type than Mesa's (the
//! value's for reductions and scans; UD at SIMD8, UW wider for
//! `load_subgroup_invocation`), stays too.

use eubatch_ir::operand::arf;
use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::subgroup::{
    dispatch_vote_predicate, flag_fill_type, for_each_scan_step, identity, quad_vote_predicate,
    reduce_result_groups, scan_step_is_one_instruction, ReduceOp,
};
use eubatch_ir::vgrf::VgrfLayout;
use eubatch_ir::{Builder, Control, Inst, Opcode, Operand, RegFile, Region, Shader, Type};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> Changed {
    // Exclusive scans emit `load_subgroup_invocation`, lowered after them.
    let mut progress = super::replace_each(shader, Opcode::Reduce, reduce);
    progress |= super::replace_each(shader, Opcode::InclusiveScan, scan);
    progress |= super::replace_each(shader, Opcode::ExclusiveScan, scan);
    progress |= super::replace_each(shader, Opcode::LoadSubgroupInvocation, invocation);
    progress |= super::replace_each(shader, Opcode::Ballot, ballot);
    progress |= super::replace_each(shader, Opcode::ReadFromLiveChannel, read_from_live_channel);
    progress |= super::replace_each(shader, Opcode::ReadFromChannel, read_from_channel);
    for op in [Opcode::VoteAny, Opcode::VoteAll, Opcode::VoteEqual] {
        progress |= super::replace_each(shader, op, vote);
    }
    Changed::when(progress, Changed::EVERYTHING)
}

/// Whether `inst` has only what the lowering keeps: its channels, NoMask and nothing else.
fn plain(shader: &Shader, inst: Inst) -> bool {
    let ctl = shader.insts.control[inst];
    ctl.predicate == Predicate::None && ctl.cmod == CondMod::None && !ctl.saturate()
}

/// A new VGRF of `bytes` bytes, read as `ty` from its start with stride 1.
fn temp(shader: &mut Shader, bytes: u32, ty: Type) -> Operand {
    let nr = shader.vgrfs.push(VgrfLayout::flat(bytes)).index() as u32;
    Operand::vgrf(nr, 0, ty, 1)
}

/// Element `k` of a VGRF, uniform or attribute region as a scalar (Mesa's `component`);
/// an immediate is its own; `None` for other files.
fn component(value: Operand, k: u32) -> Option<Operand> {
    let mut o = value;
    match value.file {
        RegFile::Imm => {}
        RegFile::Vgrf | RegFile::Uniform | RegFile::Attr => {
            o.offset += k * value.stride as u32 * value.ty.size();
            o.stride = 0;
        }
        _ => return None,
    }
    Some(o)
}

fn scalar(mut o: Operand) -> Operand {
    o.stride = 0;
    o
}

/// Mesa's `BROADCAST(value, index)` at the width of `ctl`: a NoMask `broadcast tmp,
/// value, index`, after a move of a value that does not start a register into one.
/// Returns `tmp<0>`.
fn broadcast(
    shader: &mut Shader,
    ctl: Control,
    value: Operand,
    index: Operand,
    out: &mut Vec<Inst>,
) -> Operand {
    let exec = ctl.exec_size as u32;
    let size = value.ty.size();
    let value = if value.file == RegFile::Vgrf && !value.offset.is_multiple_of(shader.reg_size()) {
        let moved = temp(shader, exec * size, value.ty);
        out.push(Builder::channels_of(ctl).mov(shader, moved, value));
        moved
    } else {
        value
    };
    let tmp = temp(shader, exec * size, value.ty);
    let all = Builder::channels_of(ctl).exec_all();
    out.push(all.alu(shader, Opcode::Broadcast, tmp, &[value, index]));
    scalar(tmp)
}

/// Mesa's `emit_uniformize(value)`: an immediate as it is, else a NoMask
/// `find_live_channel` and the [`broadcast`] of the value from that channel.
fn uniformize(shader: &mut Shader, ctl: Control, value: Operand, out: &mut Vec<Inst>) -> Operand {
    if value.file == RegFile::Imm {
        return value;
    }
    let chan = temp(shader, ctl.exec_size as u32 * 4, Type::UD);
    let all = Builder::channels_of(ctl).exec_all();
    out.push(all.alu(shader, Opcode::FindLiveChannel, chan, &[]));
    broadcast(shader, ctl, value, scalar(chan), out)
}

/// `brw_fill_flag`: a NoMask `mov(1)` of `v` into f0.0 (and f0.1 at SIMD32).
fn fill_flag(shader: &mut Shader, v: u32) -> Inst {
    let ty = flag_fill_type(shader.dispatch_width as u32);
    let bits = if ty == Type::UW { v & 0xffff } else { v };
    let flag = Operand::arf(arf::FLAG, 0, ty, Region::new(8, 8, 1));
    Builder::new(1)
        .exec_all()
        .mov(shader, flag, Operand::imm(ty, bits as u64))
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
    let mut out = vec![fill_flag(shader, 0)];
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
    let flag_ty = flag_fill_type(shader.dispatch_width as u32);
    let flag = Operand::arf(arf::FLAG, 0, flag_ty, Region::new(0, 1, 0));
    out.push(Builder::channels_of(ctl).exec_all().mov(shader, dst, flag));
    Some(out)
}

fn read_from_live_channel(shader: &mut Shader, inst: Inst) -> Option<Vec<Inst>> {
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let value = *shader.srcs(inst).first()?;
    if !plain(shader, inst) || value.is_bad() || dst.file != RegFile::Vgrf {
        return None;
    }
    let mut out = Vec::with_capacity(4);
    let v = uniformize(shader, ctl, value, &mut out);
    out.push(Builder::channels_of(ctl).mov(shader, dst, v));
    Some(out)
}

fn read_from_channel(shader: &mut Shader, inst: Inst) -> Option<Vec<Inst>> {
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let (value, index) = match shader.srcs(inst) {
        [v, i, ..] => (*v, *i),
        _ => return None,
    };
    let width = shader.dispatch_width as u32;
    if !plain(shader, inst)
        || value.is_bad()
        || index.is_bad()
        || dst.file != RegFile::Vgrf
        || width < ctl.exec_size as u32
    {
        return None;
    }
    // Mesa's `dispatch_width_mask`: an index bounded by the dispatch.
    let mask = width - 1;
    let b = Builder::channels_of(ctl);
    if index.file == RegFile::Imm {
        let from = component(value, index.imm_bits() as u32 & mask)?;
        return Some(vec![b.mov(shader, dst, from)]);
    }
    if value.file == RegFile::Imm {
        return None;
    }
    let mut out = Vec::with_capacity(6);
    let mut index = index;
    index.ty = Type::UD;
    if width < 32 {
        // Mesa's AND for an API subgroup wider than the dispatch (see the top).
        let masked = temp(shader, ctl.exec_size as u32 * 4, Type::UD);
        out.push(b.and(shader, masked, index, Operand::imm(Type::UD, mask as u64)));
        index = masked;
    }
    let index = uniformize(shader, ctl, index, &mut out);
    let v = broadcast(shader, ctl, value, index, &mut out);
    out.push(b.mov(shader, dst, v));
    Some(out)
}

/// The identity of `op` on `ty` as an immediate (a 16-bit one in both halves of its
/// word, as Mesa's `brw_imm_w`/`brw_imm_uw` write it).
fn identity_imm(op: ReduceOp, ty: Type) -> Operand {
    let bits = identity(op, ty);
    let bits = if ty.size() == 2 {
        bits | bits << 16
    } else {
        bits
    };
    Operand::imm(ty, bits)
}

/// What `reduce` and the scans share: the operation and the value, once the instruction
/// is one the lowering takes (see the top).
fn scan_operands(shader: &Shader, inst: Inst) -> Option<(ReduceOp, Operand)> {
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let srcs = shader.srcs(inst);
    let value = *srcs.first()?;
    let op = srcs
        .get(1)
        .filter(|o| o.file == RegFile::Imm)
        .and_then(|o| ReduceOp::from_imm(o.imm_bits()))?;
    let target = shader.target.target();
    let ty = value.ty;
    let size_ok = match ty.size() {
        2 | 4 => true,
        8 => target.has_64bit_immediates,
        _ => false,
    };
    let taken = plain(shader, inst)
        && size_ok
        && !value.is_bad()
        && value.file != RegFile::Imm
        && dst.file == RegFile::Vgrf
        && dst.ty == ty
        && ctl.exec_size == shader.dispatch_width
        && ctl.group == 0
        && scan_step_is_one_instruction(op, ty, &target);
    taken.then_some((op, value))
}

/// The scratch register of a reduction or scan, `sel_exec`-filled: the value in live
/// channels, the identity in the others (a NoMask `sel_exec` at the instruction's width).
fn sel_exec(
    shader: &mut Shader,
    exec: u32,
    op: ReduceOp,
    value: Operand,
    out: &mut Vec<Inst>,
) -> Operand {
    let scan = temp(shader, exec * value.ty.size(), value.ty);
    let id = identity_imm(op, value.ty);
    let all = Builder::new(exec as u8).exec_all();
    out.push(all.alu(shader, Opcode::SelExec, scan, &[value, id]));
    scan
}

/// `brw_emit_scan` on `scan` (a VGRF from its start, stride 1): each step
/// ([`for_each_scan_step`]) one NoMask instruction from channel 0.
fn emit_scan(
    shader: &mut Shader,
    op: ReduceOp,
    scan: Operand,
    width: u32,
    cluster: u32,
    out: &mut Vec<Inst>,
) {
    let (alu, cmod) = op.alu();
    let size = scan.ty.size();
    let at = |element: u32, stride: u32| {
        let mut o = scan;
        o.offset += element * size;
        o.stride = stride as u8;
        o
    };
    for_each_scan_step(width, size, cluster, &mut |st| {
        let right = at(st.right, st.right_stride);
        let left = at(st.left, st.left_stride);
        let mut ctl = Builder::new(st.width as u8).exec_all().control();
        ctl.cmod = cmod;
        out.push(Builder::with_control(ctl).alu(shader, alu, right, &[left, right]));
    });
}

fn reduce(shader: &mut Shader, inst: Inst) -> Option<Vec<Inst>> {
    let (op, value) = scan_operands(shader, inst)?;
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let exec = ctl.exec_size as u32;
    let cluster = shader
        .srcs(inst)
        .get(2)
        .filter(|o| o.file == RegFile::Imm)
        .and_then(|o| u32::try_from(o.imm_bits()).ok())
        .filter(|&c| c > 0 && c <= exec && c.is_power_of_two())?;
    let size = value.ty.size();
    let mut out = Vec::with_capacity(20);
    let scan = sel_exec(shader, exec, op, value, &mut out);
    emit_scan(shader, op, scan, exec, cluster, &mut out);
    let b = Builder::channels_of(ctl);
    match reduce_result_groups(exec, size, cluster, shader.reg_size()) {
        Some(groups) => {
            let group_size = exec / groups;
            for i in 0..groups {
                let cl = i * group_size / cluster;
                let last = cl * cluster + cluster - 1;
                let mut d = dst;
                d.offset += i * group_size * dst.stride as u32 * dst.ty.size();
                let from = component(scan, last)?;
                let piece = b.group(group_size as u8, i as u8);
                out.push(piece.mov(shader, d, from));
            }
        }
        None => {
            let srcs = [
                scan,
                Operand::imm(Type::UD, cluster as u64 - 1),
                Operand::imm(Type::UD, cluster as u64),
            ];
            out.push(b.alu(shader, Opcode::ClusterBroadcast, dst, &srcs));
        }
    }
    Some(out)
}

fn scan(shader: &mut Shader, inst: Inst) -> Option<Vec<Inst>> {
    let (op, value) = scan_operands(shader, inst)?;
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let exec = ctl.exec_size as u32;
    let mut out = Vec::with_capacity(24);
    let mut scan = sel_exec(shader, exec, op, value, &mut out);
    let all = Builder::new(exec as u8).exec_all();
    if shader.insts.opcode[inst] == Opcode::ExclusiveScan {
        // Each channel takes its left neighbour's value, channel 0 the identity: a
        // shuffle by the invocation less one, saturated at 0 (Mesa: so that no index is
        // negative), then a `mov(1)`.
        let size = value.ty.size();
        let inv_ty = if exec < 16 { Type::UD } else { Type::UW };
        let inv = temp(shader, exec * inv_ty.size(), inv_ty);
        out.push(all.alu(shader, Opcode::LoadSubgroupInvocation, inv, &[]));
        let idx = temp(shader, exec * 2, Type::UW);
        let mut add = all.control();
        add.set(Control::SATURATE, true);
        let minus_one = Operand::imm(Type::W, 0xffff_ffff);
        out.push(Builder::with_control(add).add(shader, idx, inv, minus_one));
        let shifted = temp(shader, exec * size, value.ty);
        out.push(all.alu(shader, Opcode::Shuffle, shifted, &[scan, idx]));
        let one = Builder::new(1).exec_all();
        out.push(one.mov(shader, shifted, identity_imm(op, value.ty)));
        scan = shifted;
    }
    emit_scan(shader, op, scan, exec, exec, &mut out);
    out.push(Builder::channels_of(ctl).mov(shader, dst, scan));
    Some(out)
}

fn vote(shader: &mut Shader, inst: Inst) -> Option<Vec<Inst>> {
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let op = shader.insts.opcode[inst];
    let width = shader.dispatch_width as u32;
    let srcs = shader.srcs(inst);
    let value = *srcs.first()?;
    // Mesa: a cluster size in src1 if there is one, else the dispatch.
    let cluster = match srcs.get(1) {
        Some(c) if c.file == RegFile::Imm => c.imm_bits(),
        Some(_) => return None,
        None => width as u64,
    };
    if !plain(shader, inst)
        || value.is_bad()
        || value.file == RegFile::Imm
        || dst.file != RegFile::Vgrf
        || ctl.exec_size as u32 != width
        || ctl.group != 0
    {
        return None;
    }
    let any = op == Opcode::VoteAny;
    let equal = op == Opcode::VoteEqual;
    let b = Builder::channels_of(ctl);
    let mut dst_d = dst;
    dst_d.ty = Type::D;
    let minus_one = Operand::imm(Type::D, u32::MAX as u64);
    let mut out = Vec::with_capacity(8);
    if cluster == width as u64 {
        let pred = dispatch_vote_predicate(any, width)?;
        let reference = if equal {
            uniformize(shader, ctl, value, &mut out)
        } else {
            Operand::imm(Type::D, 0)
        };
        // The predicates read every channel's bit, live or not: the fill is the identity
        // of the operation (0 for any, all ones for all and equal).
        out.push(fill_flag(shader, if any { 0 } else { u32::MAX }));
        let mut cmp = b.control();
        cmp.cmod = if equal { CondMod::Z } else { CondMod::Nz };
        cmp.flag_subreg = 0;
        let null = Operand::arf(arf::NULL, 0, Type::D, Region::new(8, 8, 1));
        out.push(Builder::with_control(cmp).alu(shader, Opcode::Cmp, null, &[value, reference]));
        // Mesa: "the any/all predicates don't work properly with SIMD32" through a
        // QtrCtrl 2H `sel`, so one channel takes the result and every channel copies it.
        let res = temp(shader, shader.reg_size(), Type::D);
        let one = Builder::new(1).exec_all();
        out.push(one.mov(shader, res, Operand::imm(Type::D, 0)));
        let mut set = one.control();
        set.predicate = pred;
        set.flag_subreg = 0;
        out.push(Builder::with_control(set).mov(shader, res, minus_one));
        out.push(b.mov(shader, dst_d, scalar(res)));
    } else if cluster == 4 && !equal && matches!(value.ty, Type::D | Type::UD) {
        out.push(fill_flag(shader, if any { 0 } else { u32::MAX }));
        let mut cmp = b.control();
        cmp.cmod = CondMod::Nz;
        cmp.flag_subreg = 0;
        let null = Operand::arf(arf::NULL, 0, Type::UD, Region::new(8, 8, 1));
        let mut value_ud = value;
        value_ud.ty = Type::UD;
        let zero = Operand::imm(Type::UD, 0);
        out.push(Builder::with_control(cmp).alu(shader, Opcode::Cmp, null, &[value_ud, zero]));
        let mut dst_ud = dst;
        dst_ud.ty = Type::UD;
        out.push(b.exec_all().mov(shader, dst_ud, zero));
        let mut set = b.control();
        set.predicate = quad_vote_predicate(any);
        set.flag_subreg = 0;
        out.push(Builder::with_control(set).mov(shader, dst_d, minus_one));
    } else {
        return None;
    }
    Some(out)
}
