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

use super::disassemble;
use super::print::{Dialect, Labels};
use super::program::Program;

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
fn labels(p: &Program, at: &[u32]) -> Labels {
    p.jump_targets
        .iter()
        .enumerate()
        .map(|(n, &i)| (at[i.min(at.len() - 1)], n as u32))
        .collect()
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
    let at = p.offsets();
    let labels = labels(p, &at);
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
    // `p` encodes the layout's instructions in order, the markers left out.
    let mut k = 0usize;
    for (b, block) in s.layout.blocks.iter().enumerate() {
        let cycles = header.block_cycles.get(b).copied().unwrap_or(0);
        let _ = writeln!(o, "   START B{b} ({cycles} cycles)");
        for i in &block.insts {
            if crate::generate::encodes_nothing(s.insts.opcode[*i]) {
                continue;
            }
            debug_assert_eq!(p.insts[k], *i);
            if let Some(n) = labels.get(&at[k]) {
                let _ = writeln!(o, "LABEL{n}:");
            }
            let e = &p.encoded[k];
            // The 48-column hex dump (by hand: `format!` per byte is most of a listing's
            // cost).
            const HEX: &[u8; 16] = b"0123456789abcdef";
            let start = o.len();
            for &x in e.bytes() {
                o.push(HEX[(x >> 4) as usize] as char);
                o.push(HEX[(x & 15) as usize] as char);
                o.push(' ');
            }
            while o.len() < start + 48 {
                o.push(' ');
            }
            let text = disassemble(e.bytes(), gen, at[k], &labels, dialect)
                .map_err(|e| format!("instruction {k}: {}", e.0))?;
            o.push_str(&text);
            o.push('\n');
            k += 1;
        }
        let _ = writeln!(o, "   END B{b}");
    }
    if let Some(n) = labels.get(&at[k]) {
        let _ = writeln!(o, "LABEL{n}:");
    }
    Ok(o)
}
