//! Mesa 25's spelling of the LSC-style memory opcodes (`memory_load`, `memory_store`,
//! `memory_atomic`): `brw_print.cpp`'s `print_memory_logical_source` writes the control
//! sources as words (`load const bti:0u addr: v3 coord_comps:1u align:32u d32 comps:16u
//! transpose data0: (null):UD`). They are read back into the twelve sources Mesa's
//! `MEMORY_LOGICAL_*` enum orders; eubatch prints them as plain immediates.

use super::cursor::{Cursor, PResult};
use super::inst::{parse_operand, Dialect, ParsedInst};
use crate::operand::Operand;
use crate::types::Type;

/// `enum lsc_opcode` (brw_eu_defines.h) and `brw_lsc_op_to_string`.
const LSC_OPS: [(&str, u32); 25] = [
    ("load", 0),
    ("load_cmask", 2),
    ("store", 4),
    ("store_cmask", 6),
    ("atomic_inc", 8),
    ("atomic_dec", 9),
    ("atomic_load", 10),
    ("atomic_store", 11),
    ("atomic_add", 12),
    ("atomic_sub", 13),
    ("atomic_min", 14),
    ("atomic_max", 15),
    ("atomic_umin", 16),
    ("atomic_umax", 17),
    ("atomic_cmpxchg", 18),
    ("atomic_fadd", 19),
    ("atomic_fsub", 20),
    ("atomic_fmin", 21),
    ("atomic_fmax", 22),
    ("atomic_fcmpxchg", 23),
    ("atomic_and", 24),
    ("atomic_or", 25),
    ("atomic_xor", 26),
    ("load_cmask_msrt", 49),
    ("store_cmask_msrt", 50),
];
/// `enum memory_logical_mode` (brw_eu_defines.h), in order.
const MODES: [&str; 5] = ["typed", "untyped", "shared", "scratch", "const"];
/// `enum lsc_addr_surface_type`, in order.
const SURFTYPES: [&str; 4] = ["flat", "bss", "ss", "bti"];
/// `enum lsc_data_size`, in order.
const DATA_SIZES: [&str; 7] = ["d8", "d16", "d32", "d64", "d8u32", "d16u32", "d16bf32"];
/// `MEMORY_FLAG_TRANSPOSE`, `MEMORY_FLAG_INCLUDE_HELPERS`.
const FLAGS: [(&str, u32); 2] = [("transpose", 1), ("helpers", 2)];

fn word_value(c: &mut Cursor<'_>, what: &str, table: &[(&str, u32)]) -> PResult<Operand> {
    c.skip_spaces();
    let start = c.pos;
    let w = c.take_while(|b| b.is_ascii_alphanumeric() || b == b'_');
    match table.iter().find(|(n, _)| *n == w) {
        Some(&(_, v)) => Ok(Operand::imm(Type::UD, v as u64)),
        None => {
            c.pos = start;
            Err(c.expected(what))
        }
    }
}

fn indexed(names: &[&'static str]) -> Vec<(&'static str, u32)> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| (*n, i as u32))
        .collect()
}

fn labelled(c: &mut Cursor<'_>, d: Dialect, label: &str, out: &mut ParsedInst) -> PResult<()> {
    c.skip_spaces();
    c.expect(label)?;
    c.skip_spaces();
    push(c, d, out)
}

fn push(c: &mut Cursor<'_>, d: Dialect, out: &mut ParsedInst) -> PResult<()> {
    let (op, shown) = parse_operand(c, d, false)?;
    out.offset_shown |= (shown as u64) << (out.srcs.len() + 1);
    out.srcs.push(op);
    Ok(())
}

pub fn parse_mesa25_memory_sources(
    c: &mut Cursor<'_>,
    d: Dialect,
    out: &mut ParsedInst,
) -> PResult<()> {
    out.srcs
        .push(word_value(c, "an LSC operation such as `load`", &LSC_OPS)?);
    out.srcs.push(word_value(
        c,
        "a memory mode (typed, untyped, shared, scratch, const)",
        &indexed(&MODES),
    )?);
    let surf = word_value(
        c,
        "a binding type (flat, bss, ss, bti)",
        &indexed(&SURFTYPES),
    )?;
    let flat = surf.imm_bits() == 0;
    out.srcs.push(surf);
    if flat {
        out.srcs.push(Operand::bad(Type::UD));
    } else {
        c.expect(":")?;
        push(c, d, out)?;
    }
    labelled(c, d, "addr:", out)?;
    labelled(c, d, "coord_comps:", out)?;
    labelled(c, d, "align:", out)?;
    out.srcs.push(word_value(
        c,
        "a data size such as `d32`",
        &indexed(&DATA_SIZES),
    )?);
    labelled(c, d, "comps:", out)?;
    let mut flags = 0u32;
    loop {
        c.skip_spaces();
        match FLAGS.iter().find(|(n, _)| c.rest().starts_with(n)) {
            Some(&(n, v)) => {
                c.pos += n.len();
                flags |= v;
            }
            None => break,
        }
    }
    out.srcs.push(Operand::imm(Type::UD, flags as u64));
    labelled(c, d, "data0:", out)?;
    c.skip_spaces();
    if c.rest().starts_with("data1:") {
        labelled(c, d, "data1:", out)?;
    } else {
        out.srcs.push(Operand::bad(Type::UD));
    }
    Ok(())
}
