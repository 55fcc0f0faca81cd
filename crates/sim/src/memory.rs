//! Buffer and image memory for the surface messages: untyped surface reads and writes,
//! byte- and dword-scattered ones, typed surface reads and writes, untyped and typed
//! atomics.
//!
//! Sources of Mesa 22.3's surface messages (`enum surface_logical_srcs`, brw_eu_defines.h):
//! surface, surface handle, address, data, dimensions (immediate) and the argument
//! (immediate: components for untyped and typed messages, bits for scattered ones, the
//! operation for atomics), then whether the sample mask applies: in a fragment shader such a
//! message, and an A64 or Mesa 25 memory write or atomic, acts only on the enabled channels
//! that are in the sample mask ([`eubatch_ir::message::sample_mask`]). Memory not yet written
//! reads as a seeded function of (surface, address); every write is an output record
//! `memory_write` holding the surface, the address and the data, every atomic a record
//! `memory_atomic` holding the surface, the address and the value stored, in channel
//! order.
//!
//! An image (typed messages) is modelled as texels of four dwords, whatever its format
//! (no format conversion): texel (x, y, z, lod) is at [`typed_address`] of a space of its
//! own ([`TYPED_SPACE`]). Bounds are not modelled: what the hardware drops out of bounds
//! is stored here, the same for a logical message and its send.

use eubatch_ir::{Inst, Operand, RegFile, Shader, Type};

use crate::inputs::{word, Space};
use crate::state::Thread;
use crate::{Outputs, Record, SimError};

/// Bytes written so far, by (surface, address). Never iterated, so its order cannot leak
/// into results.
pub type Memory = std::collections::HashMap<(u64, u64), u8>;

use eubatch_ir::message::atomic::{self, Atomic};
use eubatch_ir::message::sample_mask;
use eubatch_ir::message::surface::src::{ADDRESS, ALLOW_SAMPLE_MASK, DATA, IMM_DIMS, SURFACE};
use eubatch_ir::message::surface::{logical_shape, Kind, Shape};

/// Added to an image's binding table index: images and buffers of the same index are
/// different memories.
pub const TYPED_SPACE: u64 = 1 << 33;
/// The surface of A64 messages: one memory addressed by 64-bit addresses.
pub const A64_SPACE: u64 = 1 << 34;

/// The byte address of dword 0 of texel (x, y, z, lod) (`coords`, missing ones 0): 16
/// bytes a texel, each coordinate's low 16 bits (the LOD's low 8) in a field of its own.
/// Coordinates past those bits alias, the same for a logical message and its send.
pub fn typed_address(coords: &[u64]) -> u64 {
    let c = |k: usize| coords.get(k).copied().unwrap_or(0);
    (c(0) & 0xffff) << 4 | (c(1) & 0xffff) << 20 | (c(2) & 0xffff) << 36 | (c(3) & 0xff) << 52
}

/// The address of a message of `kind` from its address components (`coord(k)`, of
/// `dims`): the typed texel's, else the one byte address.
pub fn address_of(
    kind: Kind,
    dims: u32,
    mut coord: impl FnMut(u32) -> Result<u64, SimError>,
) -> Result<u64, SimError> {
    if kind == Kind::Typed {
        let coords = (0..dims).map(&mut coord).collect::<Result<Vec<_>, _>>()?;
        Ok(typed_address(&coords))
    } else {
        Ok(coord(0)? & 0xffff_ffff)
    }
}

fn read_byte(mem: &Memory, seed: u64, surface: u64, addr: u64) -> u8 {
    mem.get(&(surface, addr)).copied().unwrap_or_else(|| {
        let w = word(
            seed,
            Space::Constant,
            (surface + 0x1_0000) << 32 | (addr / 4) & 0xffff_ffff,
        );
        w.to_le_bytes()[(addr % 4) as usize]
    })
}

/// Component `k` of a value of `exec` channels, as dwords.
fn element(op: &Operand, k: u32, exec: u32) -> Operand {
    let mut o = *op;
    o.ty = Type::UD;
    o.offset += k * exec * 4;
    o
}

/// Executes a logical surface message (read, write or atomic) for the `enabled` channels.
pub fn access(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    enabled: u32,
    out: &mut Outputs,
) -> Result<(), SimError> {
    let op = shader.insts.opcode[inst];
    let srcs = shader.srcs(inst);
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let fail = |m: String| SimError::at(inst, m);
    if srcs.len() < 7 {
        return Err(fail(format!(
            "`{}` with {} sources is not modelled yet (Mesa 22.3 has 7)",
            op.name(),
            srcs.len()
        )));
    }
    let dst = shader.insts.dst[inst];
    let has_dst = !dst.is_null() && !dst.is_bad();
    let (surface, address, data) = (srcs[SURFACE], srcs[ADDRESS], srcs[DATA]);
    let atomic = atomic::logical(op, srcs, has_dst);
    let shape = match atomic {
        Some(_) => None,
        None => Some(logical_shape(op, srcs).ok_or_else(|| {
            fail("a surface message with a non-immediate or unmodelled argument".into())
        })?),
    };
    let kind = match (atomic, shape) {
        (Some(a), _) if a.kind == atomic::Kind::Typed => Kind::Typed,
        (_, Some(s)) => s.kind,
        _ => Kind::Untyped,
    };
    let dims = match kind {
        Kind::Typed => Some(srcs[IMM_DIMS])
            .filter(|d| d.file == RegFile::Imm && (1..=4).contains(&d.imm_bits()))
            .map(|d| d.imm_bits() as u32)
            .ok_or_else(|| fail("a typed message whose dimensions are not 1 to 4".into()))?,
        _ => 1,
    };
    let space = if kind == Kind::Typed { TYPED_SPACE } else { 0 };
    let surface_of = |t: &mut Thread, i: u32| -> Result<u64, SimError> {
        Ok(space
            + t.binding_table_index(&surface, i)
                .map_err(|e| e.with_inst(inst))?)
    };
    let addr_of = |t: &mut Thread, i: u32| {
        address_of(kind, dims, |k| {
            t.read(&element(&address, k, exec), i)
                .map_err(|e| e.with_inst(inst))
        })
    };
    let data_of = |t: &mut Thread, k: u32, i: u32| {
        t.read(&element(&data, k, exec), i)
            .map_err(|e| e.with_inst(inst))
    };
    let what = match (atomic, shape) {
        (Some(a), _) => Op::Atomic(a),
        (None, Some(s)) => Op::Access(s),
        (None, None) => return Err(fail("neither an atomic nor an access".into())),
    };
    let allow = srcs[ALLOW_SAMPLE_MASK];
    if allow.file != RegFile::Imm {
        return Err(fail(
            "a surface message whose allow-sample-mask is not an immediate".into(),
        ));
    }
    let enabled = under_sample_mask(
        t,
        enabled,
        sample_mask::surface_takes_it(shader.stage, allow.imm_bits() != 0),
    );
    run_logical(
        shader, t, inst, enabled, out, what, surface_of, addr_of, data_of,
    )
}

/// The channels of `enabled` a message acts on: those in the fragment's sample mask too
/// when the message `takes` it ([`sample_mask`]: what the predicate or the header of its
/// lowered `send` makes the hardware do).
fn under_sample_mask(t: &Thread, enabled: u32, takes: bool) -> u32 {
    if takes {
        enabled & t.sample_mask()
    } else {
        enabled
    }
}

/// What a surface, A64 or memory message does per channel: an access ([`run`]) or an
/// atomic ([`atomic_run`]).
pub use eubatch_ir::message::surface::Op;

/// Runs `what` for the `enabled` channels of logical message `inst`, `surface`, `address`
/// and `data` reading channel `i`'s (component `k`'s) operands, and writes what it answers
/// into the instruction's destination, a component after another.
#[allow(clippy::too_many_arguments)]
fn run_logical(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    enabled: u32,
    out: &mut Outputs,
    what: Op,
    surface: impl Fn(&mut Thread, u32) -> Result<u64, SimError>,
    address: impl Fn(&mut Thread, u32) -> Result<u64, SimError>,
    data: impl Fn(&mut Thread, u32, u32) -> Result<u64, SimError>,
) -> Result<(), SimError> {
    let ctl = shader.insts.control[inst];
    let (group, exec) = (ctl.group as u32, ctl.exec_size as u32);
    let reads = run_op(t, (group, exec), enabled, what, out, surface, address, data)?;
    let dst = shader.insts.dst[inst];
    if !dst.is_null() && !dst.is_bad() {
        for (k, i, v) in reads {
            t.write(&element(&dst, k, exec), i, v)
                .map_err(|e| e.with_inst(inst))?;
        }
    }
    Ok(())
}

/// [`run`] or [`atomic_run`], by what `what` is: what comes back as (component, channel,
/// value).
#[allow(clippy::too_many_arguments)]
pub fn run_op(
    t: &mut Thread,
    channels: (u32, u32),
    enabled: u32,
    what: Op,
    out: &mut Outputs,
    surface: impl Fn(&mut Thread, u32) -> Result<u64, SimError>,
    address: impl Fn(&mut Thread, u32) -> Result<u64, SimError>,
    data: impl Fn(&mut Thread, u32, u32) -> Result<u64, SimError>,
) -> Result<Vec<(u32, u32, u64)>, SimError> {
    Ok(match what {
        Op::Access(shape) => run(t, channels, enabled, shape, out, surface, address, data)?,
        Op::Atomic(a) => atomic_run(t, channels, enabled, a, out, surface, address, data)?
            .into_iter()
            .map(|(i, v)| (0, i, v))
            .collect(),
    })
}

/// Executes a logical A64 read, write or atomic (Mesa's `enum a64_logical_srcs`:
/// address, data, argument) for the `enabled` channels.
pub fn a64_access(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    enabled: u32,
    out: &mut Outputs,
) -> Result<(), SimError> {
    use eubatch_ir::message::a64::{self, src};
    let op = shader.insts.opcode[inst];
    let srcs = shader.srcs(inst);
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let dst = shader.insts.dst[inst];
    let has_dst = !dst.is_null() && !dst.is_bad();
    let msg = a64::logical(op, srcs, has_dst).ok_or_else(|| {
        SimError::at(
            inst,
            format!(
                "message `{}` is not modelled yet (16- and 64-bit A64 atomics, a non-immediate \
                 argument)",
                op.name()
            ),
        )
    })?;
    let mut address = srcs[src::ADDRESS];
    if address.ty.size() != 8 {
        return Err(SimError::at(inst, "an A64 address that is not 64-bit"));
    }
    address.ty = Type::UQ;
    let data = srcs[src::DATA];
    let addr_of = |t: &mut Thread, i: u32| t.read(&address, i).map_err(|e| e.with_inst(inst));
    let data_of = |t: &mut Thread, k: u32, i: u32| {
        t.read(&element(&data, k, exec), i)
            .map_err(|e| e.with_inst(inst))
    };
    let space = |_: &mut Thread, _: u32| Ok(A64_SPACE);
    let takes = sample_mask::a64_takes_it(shader.stage, msg.has_side_effects(), srcs);
    let enabled = under_sample_mask(t, enabled, takes);
    run_logical(shader, t, inst, enabled, out, msg, space, addr_of, data_of)
}

/// Executes a per-channel Mesa 25 memory message (`memory_load`, `memory_store`,
/// `memory_atomic` of a buffer, shared local memory, an image or a 64-bit address) for the
/// `enabled` channels, as the gen9 message it lowers to
/// ([`eubatch_ir::message::memory::per_channel`]) runs.
pub fn memory_access(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    enabled: u32,
    out: &mut Outputs,
) -> Result<(), SimError> {
    use eubatch_ir::message::memory::{per_channel, src, Target};
    let op = shader.insts.opcode[inst];
    let srcs = shader.srcs(inst);
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let dst = shader.insts.dst[inst];
    let has_dst = !dst.is_null() && !dst.is_bad();
    let m = per_channel(srcs, has_dst).ok_or_else(|| {
        SimError::at(
            inst,
            format!(
                "a `{}` other than a constant block load or a per-channel access is not \
                 modelled yet",
                op.name()
            ),
        )
    })?;
    let comps = srcs[src::COMPONENTS].imm_bits() as u32;
    let (data0, data1) = (srcs[src::DATA0], srcs[src::DATA1]);
    let mut address = srcs[src::ADDRESS];
    // The space: a binding table entry's (an immediate, or a scalar of which the index's
    // bits count, as the lowered send's descriptor takes them), or A64's.
    let (binding, base, kind) = match m.target {
        Target::Bti(b) => (Some(b), 0, Kind::Untyped),
        Target::Typed(b) => (Some(b), TYPED_SPACE, Kind::Typed),
        Target::Flat => {
            address.ty = Type::UQ;
            (None, A64_SPACE, Kind::Untyped)
        }
    };
    let flat = m.target == Target::Flat;
    let addr_of = |t: &mut Thread, i: u32| {
        if flat {
            return t.read(&address, i).map_err(|e| e.with_inst(inst));
        }
        address_of(kind, m.coord_components, |k| {
            t.read(&element(&address, k, exec), i)
                .map_err(|e| e.with_inst(inst))
        })
    };
    let data_of = |t: &mut Thread, k: u32, i: u32| {
        let (d, k) = if k < comps {
            (data0, k)
        } else {
            (data1, k - comps)
        };
        t.read(&element(&d, k, exec), i)
            .map_err(|e| e.with_inst(inst))
    };
    let space = |t: &mut Thread, i: u32| -> Result<u64, SimError> {
        Ok(base
            + match binding {
                None => 0,
                Some(b) => t
                    .binding_table_index(&b, i)
                    .map_err(|e| e.with_inst(inst))?,
            })
    };
    let takes = sample_mask::memory_takes_it(shader.stage, op, srcs);
    let enabled = under_sample_mask(t, enabled, takes);
    run_logical(shader, t, inst, enabled, out, m.op, space, addr_of, data_of)
}

/// Executes a logical OWord block read or write ([`eubatch_ir::message::block`]): one
/// block of dwords at the address (channel 0's: Mesa's is a scalar) for the whole message,
/// when any of its channels is enabled.
pub fn block_access(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    enabled: u32,
    out: &mut Outputs,
) -> Result<(), SimError> {
    use eubatch_ir::message::{a64, block, surface::src as ssrc};
    let op = shader.insts.opcode[inst];
    let srcs = shader.srcs(inst);
    let ctl = shader.insts.control[inst];
    let fail = |m: &str| SimError::at(inst, m.to_string());
    let b = block::logical(op, srcs)
        .ok_or_else(|| fail("a block message whose size is not 4, 8, 16 or 32 dwords"))?;
    let (surface, address, data) = if b.a64 {
        let d = srcs.get(a64::src::DATA).copied();
        (A64_SPACE, srcs[a64::src::ADDRESS], d)
    } else {
        if srcs.len() < 7 {
            return Err(fail("a block message with fewer than 7 sources"));
        }
        let s = srcs[ssrc::SURFACE];
        if s.file != RegFile::Imm {
            return Err(fail(
                "a block message on a run-time surface is not modelled yet",
            ));
        }
        (s.imm_bits(), srcs[ssrc::ADDRESS], Some(srcs[ssrc::DATA]))
    };
    let mut a = address;
    a.ty = if b.a64 { Type::UQ } else { Type::UD };
    let addr = t.read(&a, 0).map_err(|e| e.with_inst(inst))?;
    let dword = |op: &Operand, j: u32| {
        let mut o = *op;
        o.ty = Type::UD;
        o.offset += 4 * j;
        o
    };
    let channels = ((1u64 << ctl.exec_size) - 1) as u32;
    let active = enabled & (channels << ctl.group) != 0;
    let dst = shader.insts.dst[inst];
    let read = block_run(t, active, b, surface, addr, out, |t, j| {
        let d = data
            .filter(|d| !d.is_bad())
            .ok_or_else(|| fail("a block write without data"))?;
        t.read(&dword(&d, j), 0).map_err(|e| e.with_inst(inst))
    })?;
    for (j, v) in read.into_iter().enumerate() {
        t.write(&dword(&dst, j as u32), 0, v)
            .map_err(|e| e.with_inst(inst))?;
    }
    Ok(())
}

/// Executes Mesa 25's block load of a buffer or shared memory
/// ([`eubatch_ir::message::memory::block_load`]) as the OWord block read it lowers to: one
/// block at the address (channel 0's, a scalar) of the binding table entry (an immediate,
/// or a scalar of which the index's bits count, as the lowered send's descriptor takes
/// them), when any of its channels is enabled.
pub fn memory_block_load(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    enabled: u32,
    out: &mut Outputs,
) -> Result<(), SimError> {
    let srcs = shader.srcs(inst);
    let ctl = shader.insts.control[inst];
    let load = eubatch_ir::message::memory::block_load(srcs)
        .ok_or_else(|| SimError::at(inst, "not a block load of a buffer or shared memory"))?;
    let surface = t
        .binding_table_index(&load.surface, 0)
        .map_err(|e| e.with_inst(inst))?;
    let mut a = load.address;
    a.ty = Type::UD;
    let addr = t.read(&a, 0).map_err(|e| e.with_inst(inst))? & 0xffff_ffff;
    let channels = ((1u64 << ctl.exec_size) - 1) as u32;
    let active = enabled & (channels << ctl.group) != 0;
    let read = block_run(t, active, load.block, surface, addr, out, |_, _| {
        Err(SimError::at(inst, "a block load has no data"))
    })?;
    let dst = shader.insts.dst[inst];
    for (j, v) in read.into_iter().enumerate() {
        let mut o = dst;
        o.ty = Type::UD;
        o.offset += 4 * j as u32;
        t.write(&o, 0, v).map_err(|e| e.with_inst(inst))?;
    }
    Ok(())
}

/// One OWord block message: `b.dwords` consecutive dwords at byte address `addr` (its low
/// four bits dropped where the message is aligned) of `surface`, when `active`. A write
/// stores `data(j)` as dword `j` and is one output record `memory_block_write` (surface,
/// address, the dwords); a read returns the dwords.
pub fn block_run(
    t: &mut Thread,
    active: bool,
    b: eubatch_ir::message::block::Block,
    surface: u64,
    addr: u64,
    out: &mut Outputs,
    data: impl Fn(&mut Thread, u32) -> Result<u64, SimError>,
) -> Result<Vec<u64>, SimError> {
    if !active {
        return Ok(Vec::new());
    }
    let addr = if b.aligned { addr & !15 } else { addr };
    let mut values = vec![surface, addr];
    let mut read = Vec::new();
    for j in 0..b.dwords {
        let at = addr.wrapping_add(4 * j as u64);
        if b.write {
            let v = data(t, j)? & 0xffff_ffff;
            for k in 0..4u64 {
                t.memory.insert((surface, at + k), (v >> (8 * k)) as u8);
            }
            values.push(v);
        } else {
            let mut v = 0u64;
            for k in 0..4u64 {
                v |= (read_byte(&t.memory, t.seed, surface, at + k) as u64) << (8 * k);
            }
            read.push(v);
        }
    }
    if b.write {
        out.records.push(Record {
            message: "memory_block_write".into(),
            channel: 0,
            values,
            undefined: 0,
        });
    }
    Ok(read)
}

/// The value an atomic stores from the old value and its operands (PRM Vol. 2d "Atomic
/// Operations"; `BRW_AOP_*`), 32 bits.
fn atomic_result(a: Atomic, old: u32, src0: u32, src1: u32) -> u32 {
    use atomic::op::*;
    if a.float() {
        let (o, s) = (f32::from_bits(old), f32::from_bits(src0));
        // Maximum and minimum of the two, -0 below +0, a NaN operand losing to a number
        // (IEEE 754 maxNum/minNum).
        let pick_max = |x: f32, y: f32| {
            if x.is_nan() {
                y
            } else if y.is_nan() || x > y || (x == y && y.is_sign_negative()) {
                x
            } else {
                y
            }
        };
        return match a.op {
            FMAX => pick_max(o, s).to_bits(),
            FMIN => {
                let neg = |x: f32| -x;
                neg(pick_max(neg(o), neg(s))).to_bits()
            }
            // FCMPWR: compared as floats (a NaN equals nothing, -0 equals +0).
            _ => {
                if o == s {
                    src1
                } else {
                    old
                }
            }
        };
    }
    match a.op {
        AND => old & src0,
        OR => old | src0,
        XOR => old ^ src0,
        MOV => src0,
        INC => old.wrapping_add(1),
        DEC | PREDEC => old.wrapping_sub(1),
        ADD => old.wrapping_add(src0),
        SUB => old.wrapping_sub(src0),
        REVSUB => src0.wrapping_sub(old),
        IMAX => (old as i32).max(src0 as i32) as u32,
        IMIN => (old as i32).min(src0 as i32) as u32,
        UMAX => old.max(src0),
        UMIN => old.min(src0),
        // CMPWR
        _ => {
            if old == src0 {
                src1
            } else {
                old
            }
        }
    }
}

/// The atomics of one message, channel by channel in order (a later channel sees what an
/// earlier one stored): `surface`, `address` and `data` read channel `i`'s (operand
/// `k`'s) operands. Returns what comes back per channel: the old value (PREDEC: the new
/// one), as (channel, value); each store is an output record `memory_atomic`.
#[allow(clippy::too_many_arguments)]
pub fn atomic_run(
    t: &mut Thread,
    (group, exec): (u32, u32),
    enabled: u32,
    a: Atomic,
    out: &mut Outputs,
    surface: impl Fn(&mut Thread, u32) -> Result<u64, SimError>,
    address: impl Fn(&mut Thread, u32) -> Result<u64, SimError>,
    data: impl Fn(&mut Thread, u32, u32) -> Result<u64, SimError>,
) -> Result<Vec<(u32, u64)>, SimError> {
    let mut mem = std::mem::take(&mut t.memory);
    let mut results = Vec::new();
    let mut result = Ok(());
    for i in 0..exec {
        let ch = group + i;
        if enabled & (1 << ch) == 0 {
            continue;
        }
        let step = (|| -> Result<(), SimError> {
            let surface = surface(t, i)?;
            let addr = address(t, i)?;
            let mut src = [0u32; 2];
            for k in 0..a.data_components() {
                src[k as usize] = data(t, k, i)? as u32;
            }
            let mut old = 0u32;
            for b in 0..4u64 {
                old |= (read_byte(&mem, t.seed, surface, addr + b) as u32) << (8 * b);
            }
            let new = atomic_result(a, old, src[0], src[1]);
            for b in 0..4u64 {
                mem.insert((surface, addr + b), (new >> (8 * b)) as u8);
            }
            let back = if !a.float() && a.op == atomic::op::PREDEC {
                new
            } else {
                old
            };
            results.push((i, back as u64));
            out.records.push(Record {
                message: "memory_atomic".into(),
                channel: ch,
                values: vec![surface, addr, new as u64],
                undefined: 0,
            });
            Ok(())
        })();
        if step.is_err() {
            result = step;
            break;
        }
    }
    t.memory = mem;
    result.map(|()| results)
}

/// The memory accesses of one surface message (not an atomic), channel by channel:
/// `surface`, `address` and `data` read channel `i`'s (component `k`'s) operands. Returns what reads fetched,
/// as (component, channel, value); writes are output records.
#[allow(clippy::too_many_arguments)]
pub fn run(
    t: &mut Thread,
    (group, exec): (u32, u32),
    enabled: u32,
    shape: Shape,
    out: &mut Outputs,
    surface: impl Fn(&mut Thread, u32) -> Result<u64, SimError>,
    address: impl Fn(&mut Thread, u32) -> Result<u64, SimError>,
    data: impl Fn(&mut Thread, u32, u32) -> Result<u64, SimError>,
) -> Result<Vec<(u32, u32, u64)>, SimError> {
    let mut mem = std::mem::take(&mut t.memory);
    let mut reads = Vec::new();
    let mut result = Ok(());
    for i in 0..exec {
        let ch = group + i;
        if enabled & (1 << ch) == 0 {
            continue;
        }
        let step = (|| -> Result<(), SimError> {
            let surface = surface(t, i)?;
            let addr = address(t, i)?;
            let mut values = vec![surface, addr];
            for k in 0..shape.comps {
                let a = addr.wrapping_add(4 * k as u64);
                if shape.write {
                    let v = data(t, k, i)?;
                    for b in 0..shape.bytes as u64 {
                        mem.insert((surface, a + b), (v >> (8 * b)) as u8);
                    }
                    values.push(v & ((1u64 << (8 * shape.bytes)) - 1));
                } else {
                    let mut v = 0u64;
                    for b in 0..shape.bytes as u64 {
                        v |= (read_byte(&mem, t.seed, surface, a + b) as u64) << (8 * b);
                    }
                    reads.push((k, i, v));
                }
            }
            if shape.write {
                out.records.push(Record {
                    message: "memory_write".into(),
                    channel: ch,
                    values,
                    undefined: 0,
                });
            }
            Ok(())
        })();
        if step.is_err() {
            result = step;
            break;
        }
    }
    t.memory = mem;
    result.map(|()| reads)
}
