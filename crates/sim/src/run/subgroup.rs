//! Mesa 25's subgroup opcodes, each as Mesa 25.0 defines it by its lowering
//! (brw_lower_subgroup_ops.cpp, and brw_lower.cpp `brw_lower_load_subgroup_invocation`),
//! so that a shader holding them and its lowered form compute the same thing bit for bit:
//!
//! * `ballot value`: bit c for each enabled channel c whose value is not zero (the flag is
//!   filled with 0, a masked `cmp.nz` sets the enabled channels' bits, the flag is moved);
//! * `vote_any`/`vote_all value[, cluster]`, `vote_equal value`: the flag is filled with the
//!   operation's identity (0 for any, all ones for all and equal), a masked `cmp` sets the
//!   enabled channels' bits (`nz` against 0; `z` against the value of the first live
//!   channel for equal), and the ANYnH/ALLnH predicate of the dispatch width (ANY4H/ALL4H
//!   per quad for a cluster of 4, gen9) gives -1 or 0;
//! * `reduce value, op, cluster` and `inclusive_scan`/`exclusive_scan value, op`: a NoMask
//!   `sel_exec` of the value in live channels and the operation's identity
//!   ([`identity`]) elsewhere, shifted by one channel for an exclusive scan, then the steps
//!   of `brw_emit_scan` ([`scan_steps`], shared with the lowering) in Mesa's order (which fixes how float sums round),
//!   and a masked move (of the last channel of each cluster, for a reduction);
//! * `read_from_live_channel value`: the value of the first live channel; `read_from_channel
//!   value, index`: the value of channel `index` (an immediate masked by the dispatch
//!   width; a register index taken from the first live channel);
//! * `quad_swap value, direction`: each channel takes the value of its neighbour in the quad
//!   (horizontal: x ^ 1, vertical: x ^ 2, diagonal: x ^ 3);
//! * `load_subgroup_invocation`: channel i holds i, in every channel whatever the mask (Mesa
//!   writes it NoMask from a vector immediate).
//!
//! A value read from undefined bytes stays undefined through each of them.

use eubatch_ir::shader::CondMod;
use eubatch_ir::subgroup::{identity, scan_steps, ReduceOp, ScanStep};
use eubatch_ir::{Opcode, Operand, RegFile, Type};

use super::Step;
use crate::alu::{compare, eval};
use crate::state::Thread;
use crate::value::{decode, encode, Value};
use crate::SimError;

/// An element of the scratch register a scan works in: its bits and whether they are
/// defined.
type Elem = (u64, bool);

/// Runs `steps` of `op` on `tmp` (elements of type `ty`); each step reads all its
/// channels before it writes, as one instruction does.
fn run_scan(
    s: &Step,
    op: ReduceOp,
    ty: Type,
    tmp: &mut [Elem],
    steps: &[ScanStep],
) -> Result<(), SimError> {
    let (alu, cmod) = op.alu();
    for st in steps {
        let mut out = Vec::with_capacity(st.width as usize);
        for c in 0..st.width {
            let l = (st.left + c * st.left_stride) as usize;
            let r = (st.right + c * st.right_stride) as usize;
            let (Some(&(lb, ld)), Some(&(rb, rd))) = (tmp.get(l), tmp.get(r)) else {
                return Err(s.fail("a scan step outside the scanned channels"));
            };
            let v = eval(alu, cmod, &[decode(ty, lb), decode(ty, rb)], &[ty, ty])
                .map_err(|m| s.fail(m))?;
            out.push((r, (encode(ty, v, false), ld && rd)));
        }
        for (r, e) in out {
            tmp[r] = e;
        }
    }
    Ok(())
}

/// An immediate source `k`, if it is one.
fn imm(s: &Step, k: usize) -> Option<u64> {
    s.srcs
        .get(k)
        .filter(|o| o.file == RegFile::Imm)
        .map(|o| o.imm_bits())
}

fn value_source<'a>(s: &Step<'a>) -> Result<&'a Operand, SimError> {
    s.srcs
        .first()
        .filter(|o| !o.is_bad())
        .ok_or_else(|| s.fail(format!("`{}` without its value", s.op.name())))
}

/// The instruction's channel (counted from its first) of the first live channel, 0 when
/// none is (as `find_live_channel` gives, which Mesa's `emit_uniformize` broadcasts).
fn first_live(s: &Step) -> u32 {
    if s.live == 0 {
        0
    } else {
        (s.live.trailing_zeros()).saturating_sub(s.group)
    }
}

/// The value `sel_exec` leaves in the scratch register: the value where the channel is
/// live, `identity` elsewhere, for each of the instruction's channels.
fn sel_exec_values(
    s: &Step,
    t: &mut Thread,
    value: &Operand,
    identity: u64,
) -> Result<Vec<Elem>, SimError> {
    let mut tmp = Vec::with_capacity(s.exec as usize);
    for i in 0..s.exec {
        if s.live & (1 << (s.group + i)) != 0 {
            let (bits, defined) = s.read_defined(t, value, i)?;
            tmp.push((bits, defined));
        } else {
            tmp.push((identity, true));
        }
    }
    Ok(tmp)
}

/// `reduce`, `inclusive_scan` and `exclusive_scan`.
pub(super) fn reduce_or_scan(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let value = value_source(s)?;
    let op = imm(s, 1)
        .and_then(ReduceOp::from_imm)
        .ok_or_else(|| s.fail(format!("`{}` without an immediate operation", s.op.name())))?;
    let ty = value.ty;
    if s.dst.ty.size() != ty.size() {
        return Err(s.fail(format!(
            "`{}` of {} into {} (Mesa asserts the types are the same)",
            s.op.name(),
            ty.letters(),
            s.dst.ty.letters()
        )));
    }
    let cluster = if s.op == Opcode::Reduce {
        let c = imm(s, 2).ok_or_else(|| s.fail("`reduce` without an immediate cluster size"))?;
        u32::try_from(c)
            .ok()
            .filter(|&c| c > 0 && c <= s.exec && c.is_power_of_two())
            .ok_or_else(|| s.fail(format!("`reduce` with clusters of {c} at SIMD{}", s.exec)))?
    } else {
        s.exec
    };
    let id = identity(op, ty);
    let mut tmp = sel_exec_values(s, t, value, id)?;
    if s.op == Opcode::ExclusiveScan {
        // shuffle by (invocation - 1) saturated, then channel 0 set to the identity.
        tmp.rotate_right(1);
        tmp[0] = (id, true);
    }
    run_scan(s, op, ty, &mut tmp, &scan_steps(s.exec, ty.size(), cluster))?;
    let mut results = Vec::with_capacity(s.exec as usize);
    for i in s.channels(s.enabled & s.pred) {
        let from = if s.op == Opcode::Reduce {
            i / cluster * cluster + cluster - 1
        } else {
            i
        };
        let (bits, defined) = tmp[from as usize];
        results.push((i, bits, defined));
    }
    s.write_copies(t, results)?;
    Ok(false)
}

/// `ballot`.
pub(super) fn ballot(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let value = value_source(s)?;
    let mut mask = 0u64;
    let mut defined = true;
    for i in s.channels(s.enabled & s.pred) {
        let (bits, d) = s.read_defined(t, value, i)?;
        defined &= d;
        // `cmp.nz` of the value as UD against 0.
        if decode(Type::UD, bits) != Value::Int(0) {
            mask |= 1 << (s.group + i);
        }
    }
    // The flag is 16 bits (UW) below SIMD32, moved to the destination's type in every
    // channel: Mesa writes a scalar destination (`dst.is_scalar`, which its dumps do not
    // print) NoMask in its scalar group and a vector one in the live channels
    // (`brw_lower_ballot`: `xbld = dst.is_scalar ? bld.scalar_group() : bld`); a scalar
    // result is read at channel 0, live or not, a vector one only in live channels, so
    // every channel serves both (as eubatch's lowering writes it).
    let results = s
        .channels(super::channel_range(s.group, s.exec))
        .map(|i| {
            (
                i,
                encode(s.dst.ty, Value::Int(mask as i128), false),
                defined,
            )
        })
        .collect();
    s.write_copies(t, results)?;
    Ok(false)
}

/// `vote_any`, `vote_all` (whole dispatch, or quads with a cluster of 4) and `vote_equal`.
pub(super) fn vote(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let value = value_source(s)?;
    let any = s.op == Opcode::VoteAny;
    let width = s.shader.dispatch_width as u32;
    let cluster = match (s.op, imm(s, 1)) {
        (Opcode::VoteEqual, _) | (_, None) => width,
        (_, Some(c)) => c as u32,
    };
    if cluster != width && cluster != 4 {
        return Err(s.fail(format!("`{}` in clusters of {cluster}", s.op.name())));
    }
    // The flag filled with the identity, then the enabled channels' comparisons.
    let mut flag: u32 = if any { 0 } else { u32::MAX };
    let mut defined = true;
    let reference = if s.op == Opcode::VoteEqual {
        let (bits, d) = s.read_defined(t, value, first_live(s))?;
        defined &= d;
        Some(decode(value.ty, bits))
    } else {
        None
    };
    for i in s.channels(s.enabled & s.pred) {
        let (bits, d) = s.read_defined(t, value, i)?;
        defined &= d;
        let v = decode(value.ty, bits);
        let holds = match reference {
            Some(r) => compare(CondMod::Z, v, r),
            None => compare(CondMod::Nz, v, Value::Int(0)),
        };
        let c = s.group + i;
        flag = (flag & !(1 << c)) | (u32::from(holds) << c);
    }
    let combine = |bits: u32| {
        if any {
            bits != 0
        } else {
            bits == all_ones(cluster)
        }
    };
    let mut results = Vec::new();
    if cluster == width {
        // ANYnH / ALLnH over the dispatch's channels.
        let r = combine(flag & all_ones(width));
        let bits = encode(Type::D, Value::Int(if r { -1 } else { 0 }), false);
        for i in s.channels(s.enabled & s.pred) {
            results.push((i, bits, defined));
        }
    } else {
        // gen9's quad vote: a NoMask `mov dst, 0`, then a masked `(+any4h) mov dst, -1`.
        for i in 0..s.exec {
            let c = s.group + i;
            let quad = (flag >> (c & !3)) & 0xf;
            let on = s.enabled & s.pred & (1 << c) != 0 && combine(quad);
            let bits = encode(Type::D, Value::Int(if on { -1 } else { 0 }), false);
            results.push((i, bits, defined));
        }
    }
    let mut dst = s.dst;
    dst.ty = Type::D;
    for (i, bits, d) in results {
        t.write_copy(&dst, i, bits, d)
            .map_err(|e| e.with_inst(s.inst))?;
    }
    Ok(false)
}

fn all_ones(n: u32) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1 << n) - 1
    }
}

/// `read_from_live_channel` and `read_from_channel`.
pub(super) fn read_from_channel(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let value = value_source(s)?;
    let width = s.shader.dispatch_width as u32;
    let channel = if s.op == Opcode::ReadFromLiveChannel {
        Some(first_live(s))
    } else {
        let index = s
            .srcs
            .get(1)
            .filter(|o| !o.is_bad())
            .ok_or_else(|| s.fail("`read_from_channel` without an index"))?;
        if index.file == RegFile::Imm {
            Some(index.imm_bits() as u32 & (width - 1))
        } else {
            // The index of the first live channel. Mesa masks it by the dispatch width
            // unless the API's subgroup size is the dispatch width, which the dump does
            // not say: an index outside the dispatch gives an undefined value (NIR leaves
            // reading past the subgroup undefined).
            let (bits, d) = s.read_defined(t, index, first_live(s))?;
            let k = decode(Type::UD, bits).as_i128();
            if !d {
                None
            } else {
                u32::try_from(k).ok().filter(|&k| k < width)
            }
        }
    };
    let (bits, defined) = match channel {
        Some(c) => {
            let (b, d) = s.read_defined(t, value, c)?;
            (encode(s.dst.ty, decode(value.ty, b), false), d)
        }
        None => (0, false),
    };
    let results = s
        .channels(s.enabled & s.pred)
        .map(|i| (i, bits, defined))
        .collect();
    s.write_copies(t, results)?;
    Ok(false)
}

/// `quad_swap`.
pub(super) fn quad_swap(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let value = value_source(s)?;
    let xor = match imm(s, 1) {
        Some(0) => 1,
        Some(1) => 2,
        Some(2) => 3,
        d => return Err(s.fail(format!("`quad_swap` in direction {d:?}"))),
    };
    let mut results = Vec::new();
    for i in s.channels(s.enabled & s.pred) {
        let (b, d) = s.read_defined(t, value, i ^ xor)?;
        results.push((i, encode(s.dst.ty, decode(value.ty, b), false), d));
    }
    s.write_copies(t, results)?;
    Ok(false)
}

/// `load_subgroup_invocation`.
pub(super) fn load_subgroup_invocation(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    for i in 0..s.exec {
        s.write(t, &s.dst, i, encode(s.dst.ty, Value::Int(i as i128), false))?;
    }
    Ok(false)
}
