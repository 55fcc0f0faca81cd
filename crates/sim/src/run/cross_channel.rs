//! The opcodes whose channels read other channels: derivatives (within each 2x2 subspan),
//! `find_live_channel`, `broadcast` and `shuffle`. The ALU path reads each channel's own
//! sources only, so these read all the channels they need first, then write.

use eubatch_ir::{Opcode, Operand};

use super::Step;
use crate::state::Thread;
use crate::value::{decode, encode, Value};
use crate::SimError;

/// Derivatives: differences inside each 2x2 subspan (channels tl, tr, bl, br): coarse
/// takes one difference per subspan (tr - tl, bl - tl), fine one per row or column
/// (brw_fs_generator.cpp generate_ddx/generate_ddy).
pub(super) fn derivative(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let src = s
        .srcs
        .first()
        .ok_or_else(|| s.fail("derivative without a source"))?;
    let mut vals = Vec::with_capacity(s.exec as usize);
    for i in 0..s.exec {
        vals.push(s.read_f64(t, src, i)?);
    }
    let mut results = Vec::new();
    for i in s.channels(s.enabled) {
        let q = i & !3;
        let d = match s.op {
            Opcode::DdxCoarse => vals[q as usize + 1] - vals[q as usize],
            Opcode::DdyCoarse => vals[q as usize + 2] - vals[q as usize],
            Opcode::DdxFine => {
                let row = q + (i & 2);
                vals[row as usize + 1] - vals[row as usize]
            }
            _ => {
                let col = q + (i & 1);
                vals[col as usize + 2] - vals[col as usize]
            }
        };
        results.push((i, encode(s.dst.ty, Value::Float(d), s.ctl.saturate())));
    }
    s.write_results(t, results)?;
    Ok(false)
}

/// SHADER_OPCODE_FIND_LIVE_CHANNEL: the index of the first live channel, and
/// SHADER_OPCODE_FIND_LAST_LIVE_CHANNEL the last's (0 when none is), written to every
/// enabled channel.
pub(super) fn find_live_channel(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let first = if s.live == 0 {
        0
    } else if s.op == eubatch_ir::Opcode::FindLastLiveChannel {
        31 - s.live.leading_zeros() as u64
    } else {
        s.live.trailing_zeros() as u64
    };
    for i in s.channels(s.enabled) {
        s.write(
            t,
            &s.dst,
            i,
            encode(s.dst.ty, Value::Int(first as i128), false),
        )?;
    }
    Ok(false)
}

/// SHADER_OPCODE_SEL_EXEC (brw_fs_generator.cpp: `mov dst, src1` with the execution mask
/// off, then `mov dst, src0` with it on; Mesa asserts the instruction is NoMask): in every
/// channel the instruction runs, the first source where the channel is live in the control
/// flow and the second elsewhere. (What it is for: a value defined in the channels that
/// run and a known one in those that do not, before a cross-channel read — a scan, a
/// reduction, `find_live_channel`.) Every channel is read before any is written, since a
/// source may be the destination; an undefined source element leaves its channel undefined.
pub(super) fn sel_exec(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let [a, b] = match s.srcs {
        [a, b, ..] if !a.is_bad() && !b.is_bad() => [*a, *b],
        _ => return Err(s.fail("sel_exec without its two sources")),
    };
    let mut results = Vec::with_capacity(s.exec as usize);
    for i in s.channels(s.enabled) {
        let from = if s.live & (1 << (s.group + i)) != 0 {
            a
        } else {
            b
        };
        let (bits, defined) = s.read_defined(t, &from, i)?;
        results.push((i, encode(s.dst.ty, decode(from.ty, bits), false), defined));
    }
    s.write_copies(t, results)?;
    Ok(false)
}

/// SHADER_OPCODE_CLUSTER_BROADCAST `value, component, cluster size` (brw_fs_generator.cpp:
/// one `mov` from the region `value.component<size * stride; size, 0>`): each channel takes
/// channel `component` of its cluster of `size` consecutive channels, counted from the
/// instruction's first.
pub(super) fn cluster_broadcast(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let imm = |o: Option<&Operand>| {
        o.filter(|o| o.file == eubatch_ir::RegFile::Imm)
            .map(|o| o.imm_bits() as u32)
    };
    let (Some(value), Some(component), Some(size)) =
        (s.srcs.first(), imm(s.srcs.get(1)), imm(s.srcs.get(2)))
    else {
        return Err(s.fail("cluster_broadcast needs a value and immediate component and size"));
    };
    if size == 0 || component >= size {
        return Err(s.fail(format!(
            "cluster_broadcast of component {component} in clusters of {size}"
        )));
    }
    let mut results = Vec::with_capacity(s.exec as usize);
    for i in s.channels(s.enabled & s.pred) {
        let (v, defined) = s.read_defined(t, value, i / size * size + component)?;
        results.push((i, encode(s.dst.ty, decode(value.ty, v), false), defined));
    }
    s.write_copies(t, results)?;
    Ok(false)
}

/// SHADER_OPCODE_BROADCAST: channel `index` of the value, to every enabled channel.
pub(super) fn broadcast(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let (value, index) = value_and_index(s, "broadcast")?;
    let idx = channel_index(s, t, index, 0, "broadcast")?;
    let v = s.read(t, value, idx)?;
    let v = encode(s.dst.ty, decode(value.ty, v), false);
    for i in s.channels(s.enabled) {
        s.write(t, &s.dst, i, v)?;
    }
    Ok(false)
}

/// SHADER_OPCODE_SHUFFLE (brw_fs_generator.cpp `generate_shuffle`): each channel reads the
/// value's channel its index names, counted from the value's start whatever the
/// instruction's channel group (the hardware reads it indirectly). An index outside the
/// 32 channels (a shuffle up or down past the ends: `subgroupShuffleUp(x, 1)` in channel
/// 0 asks for channel -1) gives an undefined value: Mesa's generator does not mask it (the
/// indirect address reads whatever register it lands in) and NIR leaves the result
/// undefined, so any value stands for it.
pub(super) fn shuffle(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let (value, index) = value_and_index(s, "shuffle")?;
    let mut results = Vec::new();
    for i in s.channels(s.enabled & s.pred) {
        let raw = decode(index.ty, s.read(t, index, i)?).as_i128();
        let Some(idx) = u32::try_from(raw).ok().filter(|&k| k < 32) else {
            results.push((i, 0, false));
            continue;
        };
        let (v, defined) = s.read_defined(t, value, idx)?;
        results.push((i, encode(s.dst.ty, decode(value.ty, v), false), defined));
    }
    s.write_copies(t, results)?;
    Ok(false)
}

/// The value and index sources of `broadcast` and `shuffle` (named `what`).
fn value_and_index<'a>(s: &Step<'a>, what: &str) -> Result<(&'a Operand, &'a Operand), SimError> {
    match s.srcs {
        [value, index, ..] => Ok((value, index)),
        _ => Err(s.fail(format!("{what} needs a value and an index"))),
    }
}

/// Channel `i` of `index` as a channel number: below 32, the most channels a register
/// value of a SIMD32 dispatch has.
fn channel_index(
    s: &Step,
    t: &mut Thread,
    index: &Operand,
    i: u32,
    what: &str,
) -> Result<u32, SimError> {
    let idx = decode(index.ty, s.read(t, index, i)?).as_i128();
    u32::try_from(idx)
        .ok()
        .filter(|&k| k < 32)
        .ok_or_else(|| s.fail(format!("{what} index {idx} out of range")))
}
