//! Buffer memory for untyped surface and byte-scattered messages.
//!
//! Sources of Mesa 22.3's surface messages (`enum surface_logical_srcs`, brw_eu_defines.h):
//! surface, surface handle, address, data, dimensions (immediate) and the argument
//! (immediate: components for untyped messages, bits for byte-scattered ones), then whether
//! the sample mask applies. Memory not yet written reads as a seeded function of (surface,
//! address); every write is an output record `memory_write` holding the surface, the
//! address and the data, in channel order.

use eubatch_ir::{Inst, Operand, RegFile, Shader, Type};

use crate::inputs::{word, Space};
use crate::state::Thread;
use crate::{Outputs, Record, SimError};

/// Bytes written so far, by (surface, address). Never iterated, so its order cannot leak
/// into results.
pub type Memory = std::collections::HashMap<(u64, u64), u8>;

use eubatch_ir::message::surface::src::{ADDRESS, DATA, SURFACE};
use eubatch_ir::message::surface::{logical_shape, Shape};

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

/// Executes a logical untyped surface or byte-scattered read or write for the `enabled`
/// channels.
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
    let shape = logical_shape(op, srcs).ok_or_else(|| {
        fail("a surface message with a non-immediate or unmodelled argument".into())
    })?;
    let dst = shader.insts.dst[inst];
    let (surface, address, data) = (srcs[SURFACE], srcs[ADDRESS], srcs[DATA]);
    let reads = run(
        t,
        (ctl.group as u32, exec),
        enabled,
        shape,
        out,
        |t, i| match surface {
            s if s.file == RegFile::Imm => Ok(s.imm_bits()),
            s => Ok(t.read(&s, i).map_err(|e| e.with_inst(inst))? & 0xffff_ffff),
        },
        |t, i| Ok(t.read(&address, i).map_err(|e| e.with_inst(inst))? & 0xffff_ffff),
        |t, k, i| {
            t.read(&element(&data, k, exec), i)
                .map_err(|e| e.with_inst(inst))
        },
    )?;
    if !dst.is_null() {
        for (k, i, v) in reads {
            t.write(&element(&dst, k, exec), i, v)
                .map_err(|e| e.with_inst(inst))?;
        }
    }
    Ok(())
}

/// The memory accesses of one surface message, channel by channel: `surface`, `address`
/// and `data` read channel `i`'s (component `k`'s) operands. Returns what reads fetched,
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
