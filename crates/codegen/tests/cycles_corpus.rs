//! Mesa's static performance model on every program of every `asm.txt` of the eight
//! corpora (scalar and vec4): the model's total against the `cycles` of the program's
//! statistics line, and each block's against its `START Bn (N cycles)`. Prints per corpus
//! the programs, how many agree exactly and within 1 %, the blocks that agree, and the
//! largest mismatches grouped by a likely cause (what the first disagreeing block holds);
//! asserts floors so regressions fail. Skipped, with a message, when `../shared` is absent.
//! Run in release mode.

#[path = "../../ir/tests/common/mod.rs"]
mod common;

use std::collections::BTreeMap;

use eubatch_codegen::asm::{read_asm, AsmProgram};
use eubatch_codegen::cycles::program_cycles;
use eubatch_ir::operand::arf;
use eubatch_ir::{Gen, Opcode, RegFile};

/// A mismatching program: relative error, where, Mesa's figure, the model's.
type Example = (f64, String, u32, u32);

#[derive(Default)]
struct Tally {
    programs: usize,
    exact: usize,
    within_1pct: usize,
    blocks: usize,
    blocks_exact: usize,
    /// Cause → (programs, examples).
    causes: BTreeMap<String, (usize, Vec<Example>)>,
}

/// What the first disagreeing block holds that the model treats specially or not at all,
/// in order of suspicion.
fn cause(p: &AsmProgram, block: usize) -> String {
    let s = &p.shader;
    let first = p.blocks.get(block).map_or(0, |b| b.first as usize);
    let end = p.blocks.get(block).map_or(usize::MAX, |b| b.end as usize);
    let mut encoded = 0usize;
    let mut found: Vec<&'static str> = Vec::new();
    for id in s.layout.insts() {
        let op = s.insts.opcode[id];
        if matches!(op, Opcode::Do | Opcode::HaltTarget) {
            continue;
        }
        if (first..end).contains(&encoded) {
            let srcs = s.srcs(id);
            let dst = s.insts.dst[id];
            let ops = || std::iter::once(&dst).chain(srcs.iter());
            if ops().any(|o| o.file == RegFile::Indirect) {
                found.push("indirect region (mov_indirect/broadcast expansion)");
            }
            if ops()
                .any(|o| o.file == RegFile::Arf && (arf::ADDRESS..arf::ACCUMULATOR).contains(&o.nr))
            {
                found.push("address register");
            }
            if ops().any(|o| o.file == RegFile::Arf && o.nr >= arf::MASK) {
                found.push("mask/state register (find_live_channel etc.)");
            }
            if ops()
                .any(|o| o.file == RegFile::Arf && (arf::ACCUMULATOR..arf::FLAG).contains(&o.nr))
            {
                found.push("accumulator");
            }
            if ops().any(|o| o.ty.size() == 8) {
                found.push("64-bit types");
            }
            if ops().any(|o| o.ty.size() == 2 && o.ty.is_float()) {
                found.push("half float");
            }
            if let Some(i) = s.send_info(id) {
                if i.sfid != 2 && i.sfid != 5 && i.sfid != 6 {
                    found.push("data/const/other send");
                }
            }
            if matches!(op, Opcode::Halt) {
                found.push("halt");
            }
            if matches!(op, Opcode::While) {
                found.push("loop");
            }
        }
        encoded += 1;
    }
    found.sort();
    found.dedup();
    if found.is_empty() {
        "plain ALU/sampler/urb/render code".into()
    } else {
        found.join(" + ")
    }
}

/// Checks one corpus; `floors`: the least percentage of programs and of blocks whose
/// figure the model must reproduce exactly (the measured ones, so that a regression fails).
fn walk(corpus: &str, target: Gen, floors: (f64, f64)) -> Option<()> {
    let dir = common::corpus(corpus)?;
    let files = common::files_named(&dir, "asm.txt");
    assert!(!files.is_empty(), "no asm.txt in {}", dir.display());
    let mut t = Tally::default();
    let mut errors: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let progs = read_asm(&text, &name, target)
            .unwrap_or_else(|e| panic!("{}", e.in_file(&path.display().to_string())));
        for p in &progs {
            t.programs += 1;
            let at = format!("{}:{}", path.display(), p.line);
            let est = match program_cycles(p, target) {
                Ok(e) => e,
                Err(e) => {
                    let k = errors.entry(e.clone()).or_default();
                    k.0 += 1;
                    if k.1.is_empty() {
                        k.1 = at;
                    }
                    continue;
                }
            };
            let mesa = p.stats.cycles;
            // EUBATCH_CYCLES_SHOW=<end of file:line>, or `mismatches`: the program's blocks,
            // Mesa's figure against the model's.
            if std::env::var("EUBATCH_CYCLES_SHOW").is_ok_and(|w| {
                (w == "mismatches" && est.cycles != mesa) || (!w.is_empty() && at.ends_with(&w))
            }) {
                eprintln!("{at}: Mesa {mesa}, model {}", est.cycles);
                for b in &p.blocks {
                    let got = est.blocks.get(b.num as usize).copied().unwrap_or(0);
                    let mark = if Some(got) == b.cycles { "" } else { "  <--" };
                    eprintln!(
                        "  B{} (first {}): Mesa {:?} model {got}{mark}",
                        b.num, b.first, b.cycles
                    );
                }
            }
            if est.cycles == mesa {
                t.exact += 1;
            }
            let err = (est.cycles as f64 - mesa as f64).abs() / (mesa.max(1) as f64);
            if err <= 0.01 {
                t.within_1pct += 1;
            }
            let mut first_bad = None;
            for (i, b) in p.blocks.iter().enumerate() {
                let Some(cycles) = b.cycles else { continue };
                t.blocks += 1;
                let got = est.blocks.get(b.num as usize).copied().unwrap_or(0);
                if got == cycles {
                    t.blocks_exact += 1;
                } else if first_bad.is_none() {
                    first_bad = Some(i);
                }
            }
            if std::env::var("EUBATCH_CYCLES_BLOCKS").is_ok()
                && first_bad.is_some()
                && est.cycles == mesa
            {
                eprintln!("block mismatch only: {at}");
            }
            if est.cycles != mesa && std::env::var("EUBATCH_CYCLES_LIST").is_ok() {
                eprintln!("mismatch: {at}: Mesa {mesa} model {}", est.cycles);
            }
            if est.cycles != mesa {
                let c = cause(p, first_bad.unwrap_or(0));
                let e = t.causes.entry(c).or_default();
                e.0 += 1;
                e.1.push((err, at, mesa, est.cycles));
            }
        }
    }
    let pct = |n: usize, d: usize| 100.0 * n as f64 / d.max(1) as f64;
    eprintln!(
        "{corpus}: {} programs, {} exact ({:.2}%), {} within 1% ({:.2}%); blocks {} of {} exact ({:.2}%)",
        t.programs,
        t.exact,
        pct(t.exact, t.programs),
        t.within_1pct,
        pct(t.within_1pct, t.programs),
        t.blocks_exact,
        t.blocks,
        pct(t.blocks_exact, t.blocks)
    );
    let mut causes: Vec<_> = t.causes.into_iter().collect();
    causes.sort_by_key(|c| std::cmp::Reverse(c.1 .0));
    for (c, (n, mut ex)) in causes {
        ex.sort_by(|a, b| b.0.total_cmp(&a.0));
        eprintln!("  {n:5} mismatching: {c}");
        for (err, at, mesa, got) in ex.iter().take(2) {
            eprintln!(
                "        {at}: Mesa {mesa}, model {got} ({:+.1}%)",
                100.0 * err * if got > mesa { 1.0 } else { -1.0 }
            );
        }
    }
    for (e, (n, at)) in &errors {
        eprintln!("  {n:5} not modelled: {e} (first: {at})");
    }
    let (exact_floor, block_floor) = floors;
    assert!(
        pct(t.exact, t.programs) >= exact_floor,
        "{corpus}: {:.2}% of programs exact, floor {exact_floor}%",
        pct(t.exact, t.programs)
    );
    assert!(
        pct(t.blocks_exact, t.blocks) >= block_floor,
        "{corpus}: {:.2}% of blocks exact, floor {block_floor}%",
        pct(t.blocks_exact, t.blocks)
    );
    Some(())
}

#[test]
fn shaderdb_skl() {
    walk("shaderdb-skl", Gen::Gen9, (100.0, 100.0));
}

#[test]
fn shaderdb_bdw() {
    walk("shaderdb-bdw", Gen::Gen8, (100.0, 100.0));
}

#[test]
fn shaderdb_hsw() {
    walk("shaderdb-hsw", Gen::Gen75, (100.0, 100.0));
}

#[test]
fn piglit_fp64() {
    walk("piglit-fp64-skl", Gen::Gen9, (100.0, 100.0));
    walk("piglit-fp64-hsw", Gen::Gen75, (100.0, 100.0));
}

#[test]
fn vulkan_fp16() {
    walk("vulkan-fp16-skl", Gen::Gen9, (100.0, 100.0));
    walk("vulkan-fp16-bdw", Gen::Gen8, (100.0, 100.0));
}

#[test]
fn shaderdb_skl_mesa25() {
    walk("shaderdb-skl-mesa25", Gen::Gen9, (100.0, 100.0));
}
