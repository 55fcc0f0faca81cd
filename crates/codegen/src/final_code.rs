//! Expanded code (register form, after [`crate::generate::expand`]) → the binary Mesa's
//! emitter would produce, its listing, and the program decoded back from those bytes.
//!
//! The decoded program — the listing, read by the same reader as Mesa's own listings — is
//! what the caller runs in the simulator and what Mesa's performance model
//! ([`crate::cycles`]) prices, so that both are about the binary and not about the IR it
//! came from. The listing is written to read the program back; when the caller keeps it,
//! again with the model's cycles in its statistics line and block markers, as Mesa prints
//! them.

use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::{Gen, Shader};

use crate::asm::{read_asm, AsmProgram};
use crate::cycles::{program_cycles, Estimate};
use crate::encode::listing::{self, Header};
use crate::encode::{encode_shader, Dialect, Program};

/// A shader's final code.
pub struct FinalCode {
    pub program: Program,
    /// Mesa's listing of it (`asm.txt` format), with the model's cycles, when asked for.
    pub listing: Option<String>,
    /// The program decoded from the bytes.
    pub decoded: AsmProgram,
    /// Mesa's cycle estimate of the decoded program; why there is none, if there is none.
    pub cycles: Result<Estimate, String>,
}

/// Encodes `s` and reads it back. `what`: the header's `Native code for ...` text;
/// `instructions`: Mesa's `instructions` figure of `s`; spills and fills for the header;
/// `want_listing`: keep the listing (written again with the cycles).
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
    let read = |text: &str| -> Result<AsmProgram, String> {
        let mut v = read_asm(text, &s.name, gen).map_err(|e| format!("reading back: {e}"))?;
        v.pop()
            .filter(|_| v.is_empty())
            .ok_or_else(|| "reading back: not one program".to_string())
    };
    let text = listing::write(s, &program, gen, dialect, &header, instructions)?;
    let decoded = read(&text)?;
    let cycles = program_cycles(&decoded, gen);
    let listing = match &cycles {
        Ok(e) if want_listing => {
            header.cycles = e.cycles;
            header.block_cycles = e.blocks.clone();
            Some(listing::write(
                s,
                &program,
                gen,
                dialect,
                &header,
                instructions,
            )?)
        }
        _ => want_listing.then_some(text),
    };
    Ok(FinalCode {
        program,
        listing,
        decoded,
        cycles,
    })
}
