//! An encoded program as Mesa's listing (`asm.txt`, `INTEL_DEBUG` disassembly): the
//! header, the statistics line, each block between `START Bn (N cycles)` and `END Bn`,
//! `LABELn:` before every jump target, and each instruction as its bytes (the 48-column hex
//! dump) and their disassembly ([`super::disassemble`]: decoded from the bytes, so the text
//! is what the binary says, not what the IR meant).
//!
//! The same reader that reads Mesa's listings ([`crate::asm::read_asm`]) reads it back: the
//! program the simulator runs and the cycle model prices is the decoded binary.

use std::fmt::Write;

use eubatch_ir::{Gen, Shader};

use super::codec::col_of;
use super::inst::Form;
use super::print::{jump_unit, Dialect, Labels};
use super::program::Program;
use super::{decode, disassemble, NativeInst};
use crate::compact::uncompact;

/// What the statistics line says besides the instructions.
#[derive(Clone, Debug, Default)]
pub struct Header {
    /// `Native code for {what}` (Mesa: `unnamed fragment shader GLSL1 (src_hash ...)`).
    pub what: String,
    pub loops: u32,
    pub cycles: u32,
    pub spills: u32,
    pub fills: u32,
    /// Cycles per block, in block order (empty: 0 each).
    pub block_cycles: Vec<u32>,
}

/// The byte offsets jumps land on, numbered in order (`LABELn`).
fn labels(p: &Program, gen: Gen) -> Result<Labels, String> {
    let col = col_of(gen).map_err(|e| e.0)?;
    let unit = jump_unit(col);
    let at = p.offsets();
    let mut targets = Vec::new();
    for (k, e) in p.encoded.iter().enumerate() {
        let native = match e.len() {
            16 => NativeInst::from_bytes(e.bytes().try_into().unwrap()),
            _ => NativeInst(
                uncompact(u64::from_le_bytes(e.bytes().try_into().unwrap()), gen)
                    .map_err(|r| format!("uncompact: {r}"))?,
            ),
        };
        let i = decode(native, gen).map_err(|e| e.0)?;
        if let Form::Jump { jip, uip, .. } = i.form {
            for j in [jip, uip] {
                let t = at[k] as i64 + j as i64 * unit;
                if (0..=at[at.len() - 1] as i64).contains(&t) {
                    targets.push(t as u32);
                }
            }
        }
    }
    targets.sort_unstable();
    targets.dedup();
    Ok(targets
        .into_iter()
        .enumerate()
        .map(|(n, t)| (t, n as u32))
        .collect())
}

/// The listing of `p`, encoded from `s` (whose blocks give the `START`/`END` lines).
/// `instructions`: Mesa's `instructions` figure (NOPs left out).
pub fn write(
    s: &Shader,
    p: &Program,
    gen: Gen,
    dialect: Dialect,
    header: &Header,
    instructions: usize,
) -> Result<String, String> {
    let labels = labels(p, gen)?;
    let at = p.offsets();
    let bytes_native = 16 * p.encoded.len();
    let bytes = at[at.len() - 1] as usize;
    let sends = p
        .insts
        .iter()
        .filter(|&&i| crate::asm::inst::is_send(s.insts.opcode[i]))
        .count();
    let mut o = String::with_capacity(96 * p.encoded.len() + 256);
    let _ = writeln!(o, "Native code for {}", header.what);
    let _ = writeln!(
        o,
        "SIMD{} shader: {instructions} instructions. {} loops. {} cycles. {}:{} spills:fills, {sends} sends, scheduled with mode eubatch. Promoted 0 constants. Compacted {bytes_native} to {bytes} bytes ({:.0}%)",
        s.dispatch_width,
        header.loops,
        header.cycles,
        header.spills,
        header.fills,
        100.0 * (bytes_native - bytes) as f64 / bytes_native.max(1) as f64
    );
    // Which encoded instruction each IR block starts and ends at.
    let mut index_of = std::collections::HashMap::with_capacity(p.insts.len());
    for (k, &i) in p.insts.iter().enumerate() {
        index_of.insert(i, k);
    }
    let mut k = 0usize;
    for (b, block) in s.layout.blocks.iter().enumerate() {
        let cycles = header.block_cycles.get(b).copied().unwrap_or(0);
        let _ = writeln!(o, "   START B{b} ({cycles} cycles)");
        for i in &block.insts {
            let Some(&kk) = index_of.get(i) else { continue };
            debug_assert_eq!(kk, k);
            if let Some(n) = labels.get(&at[k]) {
                let _ = writeln!(o, "LABEL{n}:");
            }
            let e = &p.encoded[k];
            let mut hex = String::with_capacity(48);
            for x in e.bytes() {
                let _ = write!(hex, "{x:02x} ");
            }
            let text = disassemble(e.bytes(), gen, at[k], &labels, dialect)
                .map_err(|e| format!("instruction {k}: {}", e.0))?;
            let _ = writeln!(o, "{hex:48}{text}");
            k += 1;
        }
        let _ = writeln!(o, "   END B{b}");
    }
    if let Some(n) = labels.get(&at[k]) {
        let _ = writeln!(o, "LABEL{n}:");
    }
    Ok(o)
}
