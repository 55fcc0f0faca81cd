//! Expanded code (register form, after [`crate::generate::expand`]) → the binary Mesa's
//! emitter would produce, the program decoded back from those bytes, and, when asked for,
//! its listing.
//!
//! The decoded program is what the caller runs in the simulator and what Mesa's
//! performance model ([`crate::cycles`]) prices, so that both are about the binary and not
//! about the IR it came from. It is read straight from the bytes
//! ([`crate::asm::from_bytes`]), which gives what reading the listing gives (the binary
//! reader is held to the listing reader on every program of the corpora) without writing
//! and parsing text, once most of this step's cost. The listing is written only when the
//! caller keeps it, with the model's cycles in its statistics line and block markers, as
//! Mesa prints them.

use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::{Gen, Shader};

use crate::asm::from_bytes::{read_binary, Frame};
use crate::asm::inst::is_send;
use crate::asm::{AsmBlock, AsmProgram, AsmStats};
use crate::cycles::{program_cycles, Estimate};
use crate::encode::listing::{self, Header};
use crate::encode::{encode_shader, Dialect, Program};

/// A shader's final code.
pub struct FinalCode {
    pub program: Program,
    /// Mesa's listing of it (`asm.txt` format), with the model's cycles, when asked for.
    pub listing: Option<String>,
    /// The program decoded from the bytes (its statistics and blocks with the model's
    /// cycles, when it was priced).
    pub decoded: AsmProgram,
    /// Mesa's cycle estimate of the decoded program; why there is none, if there is none.
    pub cycles: Result<Estimate, String>,
}

/// Encodes `s` and reads it back. `what`: the header's `Native code for ...` text;
/// `instructions`: Mesa's `instructions` figure of `s`; spills and fills for the header;
/// `want_listing`: write the listing too.
pub fn final_code(
    s: &Shader,
    gen: Gen,
    what: &str,
    instructions: usize,
    spills_fills: (u32, u32),
    want_listing: bool,
) -> Result<FinalCode, String> {
    let dialect = Dialect::Mesa22;
    let program =
        encode_shader(s, gen, dialect, &|_| Default::default()).map_err(|e| e.to_string())?;
    let loops = s
        .layout
        .insts()
        .filter(|&i| s.insts.opcode[i].control_flow() == ControlFlow::While)
        .count() as u32;
    let mut header = Header {
        what: what.to_string(),
        loops,
        spills: spills_fills.0,
        fills: spills_fills.1,
        ..Header::default()
    };
    // What the listing's header, statistics line and block markers would say, which the
    // bytes do not: the stage and program name as the listing reader takes them from the
    // header, the statistics line's figures (cycles once priced), and `s`'s blocks over
    // the encoded instructions (the markers encode nothing).
    let (stage, name) =
        eubatch_ir::import::listing::program_header(&format!("Native code for {what}"))
            .ok_or("reading back: no program header")?
            .map_err(|e| format!("reading back: {e}"))?;
    let mut blocks = Vec::with_capacity(s.layout.blocks.len());
    let mut k = 0u32;
    for (b, block) in s.layout.blocks.iter().enumerate() {
        let first = k;
        k += block
            .insts
            .iter()
            .filter(|&&i| !crate::generate::encodes_nothing(s.insts.opcode[i]))
            .count() as u32;
        blocks.push(AsmBlock {
            num: b as u32,
            cycles: None,
            first,
            end: k,
        });
    }
    let frame = Frame {
        name: &s.name,
        index: 0,
        stage,
        program: name,
        width: s.dispatch_width,
        // The listing's statistics line is `SIMDn shader:`, scalar code.
        vec4: false,
        stats: AsmStats {
            instructions: instructions as u32,
            loops,
            cycles: 0,
            spills: spills_fills.0,
            fills: spills_fills.1,
            sends: program
                .insts
                .iter()
                .filter(|&&i| is_send(s.insts.opcode[i]))
                .count() as u32,
        },
        blocks,
    };
    let mut decoded =
        read_binary(&program.bytes(), gen, frame).map_err(|e| format!("reading back: {e}"))?;
    let cycles = program_cycles(&decoded, gen);
    if let Ok(e) = &cycles {
        decoded.stats.cycles = e.cycles;
        for b in &mut decoded.blocks {
            b.cycles = e.blocks.get(b.num as usize).copied();
        }
        header.cycles = e.cycles;
        header.block_cycles = e.blocks.clone();
    }
    let listing = if want_listing {
        Some(listing::write(
            s,
            &program,
            gen,
            dialect,
            &header,
            instructions,
        )?)
    } else {
        None
    };
    Ok(FinalCode {
        program,
        listing,
        decoded,
        cycles,
    })
}
