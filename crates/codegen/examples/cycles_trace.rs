//! Prints Mesa's performance model step by step for one program of a listing: each
//! instruction's facts and the front-end clock after it. Usage:
//! `cycles_trace LISTING LINE GEN` (GEN: 7, 75, 8, 9), LINE the program's header line.

use eubatch_codegen::asm::read_asm;
use eubatch_codegen::cycles::{from_asm::program_facts, model::estimate_traced};
use eubatch_ir::Gen;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let [_, path, line, gen] = &args[..] else {
        return Err("usage: cycles_trace LISTING LINE GEN".into());
    };
    let gen = match gen.as_str() {
        "7" => Gen::Gen7,
        "75" => Gen::Gen75,
        "8" => Gen::Gen8,
        "9" => Gen::Gen9,
        g => return Err(format!("unknown generation {g}")),
    };
    let line: u32 = line.parse().map_err(|_| "bad line")?;
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let progs = read_asm(&text, path, gen).map_err(|e| e.to_string())?;
    let p = progs
        .iter()
        .find(|p| p.line == line)
        .ok_or("no program at that line")?;
    let (facts, blocks) = program_facts(p, gen).map_err(|e| e.to_string())?;
    let est = estimate_traced(&facts, gen, blocks, |i, fe| {
        let f = &facts[i];
        println!(
            "{i:5} B{:<3} fe {fe:8}  {:?} sizes {:?} reads {:?} writes {:?} payload {:?} fr {:x} fw {:x}",
            f.block, f.class, f.sizes, f.reads.iter().map(|b| (b.file, b.regs())).collect::<Vec<_>>(),
            f.writes.iter().map(|b| (b.file, b.regs())).collect::<Vec<_>>(),
            f.payload.iter().map(|b| b.regs()).collect::<Vec<_>>(), f.flags_read, f.flags_written
        );
    })
    .map_err(|e| e.to_string())?;
    println!(
        "total {} (Mesa {}); blocks {:?}",
        est.cycles, p.stats.cycles, est.blocks
    );
    Ok(())
}
