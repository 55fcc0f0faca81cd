//! Buffer memory for untyped surface and byte-scattered messages.
//!
//! Sources of Mesa 22.3's surface messages (`enum surface_logical_srcs`, brw_eu_defines.h):
//! surface, surface handle, address, data, dimensions (immediate) and the argument
//! (immediate: components for untyped messages, bits for byte-scattered ones), then whether
//! the sample mask applies. Memory not yet written reads as a seeded function of (surface,
//! address); every write is an output record `memory_write` holding the surface, the
//! address and the data, in channel order.

use eubatch_ir::{Inst, Opcode, Operand, RegFile, Shader, Type};

use crate::inputs::{word, Space};
use crate::state::Thread;
use crate::{Outputs, Record, SimError};

/// Bytes written so far, by (surface, address). Never iterated, so its order cannot leak
/// into results.
pub type Memory = std::collections::HashMap<(u64, u64), u8>;

const SURFACE: usize = 0;
const ADDRESS: usize = 2;
const DATA: usize = 3;
const ARG: usize = 5;

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

fn element(op: &Operand, k: u32, exec: u32) -> Operand {
    let mut o = *op;
    o.ty = Type::UD;
    o.offset += k * exec * 4;
    o
}

/// Executes an untyped surface or byte-scattered read or write for the `enabled` channels.
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
    let arg = match srcs[ARG] {
        s if s.file == RegFile::Imm => s.imm_bits() as u32,
        _ => {
            return Err(fail(
                "a surface message with a non-immediate argument".into(),
            ))
        }
    };
    let dst = shader.insts.dst[inst];
    let write = matches!(
        op,
        Opcode::UntypedSurfaceWriteLogical | Opcode::ByteScatteredWriteLogical
    );
    // Components per channel and bytes per component: byte-scattered messages move one
    // value of `arg` bits, untyped ones `arg` dwords.
    let byte_scattered = matches!(
        op,
        Opcode::ByteScatteredReadLogical | Opcode::ByteScatteredWriteLogical
    );
    let shape = if byte_scattered {
        (1, arg / 8)
    } else {
        (arg, 4)
    };
    if !matches!(shape.1, 1 | 2 | 4) {
        return Err(fail(format!(
            "byte-scattered access of {arg} bits is not modelled"
        )));
    }
    let mut mem = std::mem::take(&mut t.memory);
    let result = run_channels(
        t,
        &mut mem,
        srcs,
        inst,
        (ctl.group as u32, exec),
        enabled,
        write,
        shape,
        out,
    );
    t.memory = mem;
    let reads = result?;
    if !dst.is_null() {
        for (k, i, v) in reads {
            t.write(&element(&dst, k, exec), i, v)
                .map_err(|e| e.with_inst(inst))?;
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn run_channels(
    t: &mut Thread,
    mem: &mut Memory,
    srcs: &[Operand],
    inst: Inst,
    (group, exec): (u32, u32),
    enabled: u32,
    write: bool,
    (comps, width): (u32, u32),
    out: &mut Outputs,
) -> Result<Vec<(u32, u32, u64)>, SimError> {
    let mut reads = Vec::new();
    for i in 0..exec {
        let ch = group + i;
        if enabled & (1 << ch) == 0 {
            continue;
        }
        let surface = match srcs[SURFACE] {
            s if s.file == RegFile::Imm => s.imm_bits(),
            s => t.read(&s, i).map_err(|e| e.with_inst(inst))? & 0xffff_ffff,
        };
        let addr = t.read(&srcs[ADDRESS], i).map_err(|e| e.with_inst(inst))? & 0xffff_ffff;
        let mut values = vec![surface, addr];
        for k in 0..comps {
            let a = addr.wrapping_add(4 * k as u64);
            if write {
                let v = t
                    .read(&element(&srcs[DATA], k, exec), i)
                    .map_err(|e| e.with_inst(inst))?;
                for b in 0..width as u64 {
                    mem.insert((surface, a + b), (v >> (8 * b)) as u8);
                }
                values.push(v & ((1u64 << (8 * width)) - 1));
            } else {
                let mut v = 0u64;
                for b in 0..width as u64 {
                    v |= (read_byte(mem, t.seed, surface, a + b) as u64) << (8 * b);
                }
                reads.push((k, i, v));
            }
        }
        if write {
            out.records.push(Record {
                message: "memory_write".into(),
                channel: ch,
                values,
                undefined: 0,
            });
        }
    }
    Ok(reads)
}
