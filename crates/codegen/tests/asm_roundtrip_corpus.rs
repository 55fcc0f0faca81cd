//! Bit-exact both ways on every instruction line of every `asm.txt` of the 8 corpora,
//! native (16 bytes) and compacted (8 bytes) alike (issue 17):
//! - assemble: each program's lines go through [`encode::assemble_program`] (parse, Mesa's
//!   don't-care policy, encode, Mesa's compaction decision `compact(precompact(x))` taken
//!   with the jumps' JIP/UIP as generated, then jumps fixed as `brw_compact_instructions`
//!   does) and must give Mesa's bytes, so also Mesa's size: a line Mesa left native must
//!   come out native. Labels are given as instruction indices, not as the listing's
//!   offsets, so the layout (and every JIP/UIP) is the assembler's own;
//! - disassemble: Mesa's bytes of either size → [`encode::disassemble`] must be Mesa's text
//!   (both lines of a send, `compacted` and columns included), JIP/UIP labels resolved at the
//!   listing's (final) offsets.
//!
//! Per corpus and size: lines, exact assemblies, exact disassemblies, and the lines no
//! program can reproduce, counted with the reason (not skipped):
//! - `Half Float IMM`: Mesa prints no value for a half-float immediate (assemble only);
//! - Mesa's printer reading past the end of a table (shaderdb-bdw: message type 16 of the
//!   16-entry `dp_dc0_msg_type_gfx7` prints whatever string follows in that build; we print
//!   Mesa's `*** invalid` message) (disassemble only).
//!
//! Anything else is a failure; exact counts are held to floors. Also counted (not asserted
//! beyond its floor): native jump lines that [`encode::assemble_line`], deciding on the
//! final JIP/UIP of a single line, would compact although Mesa did not.
//! Skipped, with a message, when `../shared` is absent; run in release mode.

#[path = "../../ir/tests/common/mod.rs"]
mod common;

use std::collections::{BTreeMap, HashMap};

use eubatch_codegen::asm::encoding;
use eubatch_codegen::encode::{self, Dialect, Labels, Place, ProgramLine};
use eubatch_ir::Gen;

/// Counts for one size (index 0: native, 1: compacted).
#[derive(Default, Clone, Copy)]
struct BySize {
    lines: u64,
    assemble_exact: u64,
    disasm_exact: u64,
    /// Assembled to Mesa's size (exact or not).
    size_equal: u64,
}

#[derive(Default)]
struct Counts {
    size: [BySize; 2],
    /// (direction, reason) → lines.
    unreproducible: BTreeMap<(&'static str, &'static str), u64>,
    /// Unexplained mismatches: cause → (count, first example).
    failures: BTreeMap<String, (u64, String)>,
    /// Native jump lines a single-line decision (final JIP/UIP) would compact.
    line_decision_compacts_jump: u64,
    /// Jump lines (if, else, endif, while, break, cont, halt) by size.
    jumps: [u64; 2],
}

fn fail(c: &mut Counts, key: String, example: String) {
    let e = c.failures.entry(key).or_default();
    e.0 += 1;
    if e.1.is_empty() {
        e.1 = example;
    }
}

struct Line {
    idx: usize,
    bytes: Vec<u8>,
    at: u32,
}

struct Program {
    lines: Vec<Line>,
    /// Label → instruction index.
    labels: HashMap<u32, usize>,
    /// Label → byte offset in the listing (for the single-line check).
    offsets: HashMap<u32, u32>,
}

fn programs(lines: &[&str]) -> Vec<Program> {
    let mut progs: Vec<Program> = Vec::new();
    let mut at = 0u32;
    for (idx, l) in lines.iter().enumerate() {
        if l.starts_with("Native code for") {
            progs.push(Program {
                lines: Vec::new(),
                labels: HashMap::new(),
                offsets: HashMap::new(),
            });
            at = 0;
            continue;
        }
        let Some(p) = progs.last_mut() else { continue };
        if let Some(n) = l.strip_prefix("LABEL").and_then(|r| r.strip_suffix(':')) {
            let n = n.parse().expect("label number");
            p.labels.insert(n, p.lines.len());
            p.offsets.insert(n, at);
        } else if let Some(bytes) = encoding(l).map(|(bytes, _)| bytes) {
            let len = bytes.len() as u32;
            p.lines.push(Line { idx, bytes, at });
            at += len;
        }
    }
    progs
}

/// The mnemonic, after any predicate `(+f0.0) `.
fn mnemonic(first: &str) -> &str {
    let s = first.trim_start();
    let s = match s.strip_prefix('(') {
        Some(r) => r.split_once(')').map_or(r, |(_, t)| t),
        None => s,
    };
    s.split(['(', '.', ' '])
        .find(|s| !s.is_empty())
        .unwrap_or("?")
}

const JUMPS: [&str; 7] = ["if", "else", "endif", "while", "break", "cont", "halt"];

fn check_program(
    c: &mut Counts,
    gen: Gen,
    dialect: Dialect,
    lines: &[&str],
    p: &Program,
    file: &str,
) {
    let texts: Vec<(&str, Option<&str>)> = p
        .lines
        .iter()
        .map(|l| {
            let first = lines[l.idx].get(48..).unwrap_or("");
            let second = lines
                .get(l.idx + 1)
                .copied()
                .filter(|s| s.contains(" MsgDesc:"));
            (first, second)
        })
        .collect();
    let input: Vec<ProgramLine> = p
        .lines
        .iter()
        .zip(&texts)
        .map(|(l, &(first, second))| ProgramLine {
            first,
            second,
            line: l.idx as u32 + 1,
        })
        .collect();
    let assembled = encode::assemble_program(&input, &p.labels, gen, dialect);
    let by_offset: Labels = p.offsets.iter().map(|(n, at)| (*at, *n)).collect();
    for (i, l) in p.lines.iter().enumerate() {
        let k = (l.bytes.len() == 8) as usize;
        c.size[k].lines += 1;
        let (first, second) = texts[i];
        let where_ = format!("{file}:{}", l.idx + 1);
        // Assemble.
        match &assembled {
            Ok(v) => {
                let e = &v[i];
                if e.bytes().len() == l.bytes.len() {
                    c.size[k].size_equal += 1;
                }
                if e.bytes() == l.bytes.as_slice() {
                    c.size[k].assemble_exact += 1;
                } else if let Some(why) = e.unrecoverable {
                    *c.unreproducible.entry(("assemble", why)).or_default() += 1;
                } else {
                    fail(
                        c,
                        format!(
                            "assemble {}: {} bytes, ours {}",
                            mnemonic(first),
                            l.bytes.len(),
                            e.bytes().len()
                        ),
                        format!("{where_}\n   {}\n   ours {:02x?}", lines[l.idx], e.bytes()),
                    );
                }
            }
            Err((j, e)) => fail(
                c,
                format!("assemble program: {e}"),
                format!("{where_} (line {} of the program)", j + 1),
            ),
        }
        // The single-line decision on a native jump, with the listing's final offsets.
        let jump = JUMPS.contains(&mnemonic(first));
        c.jumps[k] += jump as u64;
        if k == 0 && jump {
            let place = Place {
                line: l.idx as u32 + 1,
                at: l.at,
                labels: &p.offsets,
            };
            let text = match second {
                Some(s) => format!("{first}\n{s}"),
                None => first.to_string(),
            };
            if let Ok(e) = encode::assemble_line(&text, gen, &place, dialect) {
                if e.compacted() {
                    c.line_decision_compacts_jump += 1;
                }
            }
        }
        // Disassemble.
        let mesa_text = match second {
            Some(s) => format!("{first}\n{s}"),
            None => first.to_string(),
        };
        match encode::disassemble(&l.bytes, gen, l.at, &by_offset, dialect) {
            Ok(t) if t == mesa_text => c.size[k].disasm_exact += 1,
            Ok(t) if t.contains("*** invalid") && !mesa_text.contains("*** invalid") => {
                *c.unreproducible
                    .entry((
                        "disassemble",
                        "Mesa's printer read past the end of a table (a string from memory)",
                    ))
                    .or_default() += 1;
            }
            Ok(t) => fail(
                c,
                format!("disassemble {}", mnemonic(first)),
                format!("{where_}\n   want: {mesa_text}\n    got: {t}"),
            ),
            Err(e) => fail(c, format!("disassemble: {e}"), where_),
        }
    }
}

fn walk(corpus: &str, gen: Gen) -> Option<Counts> {
    let dir = common::corpus(corpus)?;
    let files = common::files_named(&dir, "asm.txt");
    assert!(!files.is_empty(), "no asm.txt in {}", dir.display());
    let dialect = if corpus.ends_with("mesa25") {
        Dialect::Mesa25
    } else {
        Dialect::Mesa22
    };
    let mut c = Counts::default();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let name = path.display().to_string();
        for p in programs(&lines) {
            check_program(&mut c, gen, dialect, &lines, &p, &name);
        }
    }
    for (k, s) in ["native", "compacted"].iter().zip(c.size) {
        eprintln!(
            "{corpus} {k:9}: {:7} lines, assemble exact {:7} (size equal {:7}), disassemble exact {:7}",
            s.lines, s.assemble_exact, s.size_equal, s.disasm_exact
        );
    }
    eprintln!(
        "{corpus}: jumps {} native, {} compacted; native ones a single-line decision (final JIP/UIP) compacts: {}",
        c.jumps[0], c.jumps[1], c.line_decision_compacts_jump
    );
    for ((dir, why), n) in &c.unreproducible {
        eprintln!("  unreproducible ({dir}) {n:7}  {why}");
    }
    for (k, (n, ex)) in c.failures.iter().take(20) {
        eprintln!("  FAIL {n:7}  {k}\n      e.g. {ex}");
    }
    Some(c)
}

/// Floors per corpus: for native then compacted lines, (lines, assemble exact, disassemble
/// exact); and the lines unreproducible from text (assemble, disassemble), at most.
struct Floor {
    native: (u64, u64, u64),
    compacted: (u64, u64, u64),
    unreproducible: (u64, u64),
}

fn floor(corpus: &str, gen: Gen, f: Floor) {
    let Some(c) = walk(corpus, gen) else { return };
    for (s, (k, want)) in c
        .size
        .iter()
        .zip([("native", f.native), ("compacted", f.compacted)])
    {
        let (lines, asm, dis) = want;
        assert_eq!(s.lines, lines, "{corpus}: {k} line count changed");
        assert_eq!(
            s.size_equal, lines,
            "{corpus}: {k} lines assembled to another size"
        );
        assert!(
            s.assemble_exact >= asm,
            "{corpus}: {k} assemble exact {} < {asm}",
            s.assemble_exact
        );
        assert!(
            s.disasm_exact >= dis,
            "{corpus}: {k} disassemble exact {} < {dis}",
            s.disasm_exact
        );
    }
    let count = |d: &str| -> u64 {
        c.unreproducible
            .iter()
            .filter(|((dir, _), _)| *dir == d)
            .map(|(_, n)| n)
            .sum()
    };
    assert!(
        count("assemble") <= f.unreproducible.0,
        "{corpus}: more unreproducible assemblies"
    );
    assert!(
        count("disassemble") <= f.unreproducible.1,
        "{corpus}: more unreproducible disassemblies"
    );
    let failures: u64 = c.failures.values().map(|(n, _)| n).sum();
    assert_eq!(failures, 0, "{corpus}: unexplained mismatches");
}

// Measured with Mesa 22.3.6's (and 25.0.7's) listings: every line exact both ways but the
// 151 `Half Float IMM` lines of each fp16 corpus (assemble) and the 297 shaderdb-bdw
// descriptor lines Mesa printed out of bounds (disassemble); every line at Mesa's size.

#[test]
fn shaderdb_skl() {
    floor(
        "shaderdb-skl",
        Gen::Gen9,
        Floor {
            native: (109208, 109208, 109208),
            compacted: (162856, 162856, 162856),
            unreproducible: (0, 0),
        },
    );
}

#[test]
fn shaderdb_bdw() {
    floor(
        "shaderdb-bdw",
        Gen::Gen8,
        Floor {
            native: (104442, 104442, 104145),
            compacted: (161936, 161936, 161936),
            unreproducible: (0, 297),
        },
    );
}

#[test]
fn shaderdb_hsw() {
    floor(
        "shaderdb-hsw",
        Gen::Gen75,
        Floor {
            native: (178533, 178533, 178533),
            compacted: (135479, 135479, 135479),
            unreproducible: (0, 0),
        },
    );
}

#[test]
fn piglit_fp64() {
    floor(
        "piglit-fp64-skl",
        Gen::Gen9,
        Floor {
            native: (60668, 60668, 60668),
            compacted: (24682, 24682, 24682),
            unreproducible: (0, 0),
        },
    );
    floor(
        "piglit-fp64-hsw",
        Gen::Gen75,
        Floor {
            native: (143923, 143923, 143923),
            compacted: (21769, 21769, 21769),
            unreproducible: (0, 0),
        },
    );
}

#[test]
fn vulkan_fp16() {
    floor(
        "vulkan-fp16-skl",
        Gen::Gen9,
        Floor {
            native: (14708, 14557, 14708),
            compacted: (14468, 14468, 14468),
            unreproducible: (151, 0),
        },
    );
    floor(
        "vulkan-fp16-bdw",
        Gen::Gen8,
        Floor {
            native: (15021, 14870, 15021),
            compacted: (14553, 14553, 14553),
            unreproducible: (151, 0),
        },
    );
}

#[test]
fn shaderdb_skl_mesa25() {
    floor(
        "shaderdb-skl-mesa25",
        Gen::Gen9,
        Floor {
            native: (126921, 126921, 126921),
            compacted: (168475, 168475, 168475),
            unreproducible: (0, 0),
        },
    );
}
