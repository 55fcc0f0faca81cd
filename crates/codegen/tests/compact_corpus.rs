//! Instruction compaction against Mesa's own encodings in every `asm.txt` of the 8 corpora.
//! Mesa tries to compact every instruction (`brw_compact_instructions`), so each line is an
//! oracle:
//! - a compacted line (8 bytes): `compact(uncompact(bytes)) == bytes`, and the expanded
//!   instruction's opcode, execution size and destination register agree with the
//!   disassembly;
//! - a native line (16 bytes): Mesa could not compact `precompact(x)`, so neither may we;
//!   the one exception is a jump, whose compaction Mesa decided with its JIP/UIP before
//!   they were shortened by the compacted instructions they jump over. That exception is
//!   checked, not assumed: the jump's JIP/UIP before fixing are rebuilt from the program's
//!   layout, and that instruction must not compact.
//!
//! Counts are printed per corpus and floors asserted. Skipped, with a message, when
//! `../shared` is absent. Run in release mode.

#[path = "../../ir/tests/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use eubatch_codegen::compact::{compact, native_from_bytes, precompact, try_compact, uncompact};
use eubatch_ir::Gen;

fn asm_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            asm_files(&p, out);
        } else if p.file_name().is_some_and(|n| n == "asm.txt") {
            out.push(p);
        }
    }
}

/// Hardware opcodes by mnemonic, gen7-11 (Mesa `brw_eu.c` `opcode_descs`; 10 is `dim` on
/// gen7.5 and `smov` on gen8+).
#[rustfmt::skip]
const OPCODES: [(&str, u8); 67] = [
    ("mov", 1), ("sel", 2), ("movi", 3), ("not", 4), ("and", 5), ("or", 6), ("xor", 7),
    ("shr", 8), ("shl", 9), ("dim", 10), ("smov", 10), ("asr", 12), ("ror", 14), ("rol", 15),
    ("cmp", 16), ("cmpn", 17), ("csel", 18), ("f32to16", 19), ("f16to32", 20), ("bfrev", 23),
    ("bfe", 24), ("bfi1", 25), ("bfi2", 26), ("jmpi", 32), ("brd", 33), ("if", 34),
    ("brc", 35), ("else", 36), ("endif", 37), ("while", 39), ("break", 40), ("cont", 41),
    ("halt", 42), ("calla", 43), ("call", 44), ("ret", 45), ("goto", 46), ("wait", 48),
    ("send", 49), ("sendc", 50), ("sends", 51), ("sendsc", 52), ("math", 56), ("add", 64),
    ("mul", 65), ("avg", 66), ("frc", 67), ("rndu", 68), ("rndd", 69), ("rnde", 70),
    ("rndz", 71), ("mac", 72), ("mach", 73), ("lzd", 74), ("fbh", 75), ("fbl", 76),
    ("cbit", 77), ("addc", 78), ("subb", 79), ("sad2", 80), ("sada2", 81), ("dp4", 84),
    ("dph", 85), ("dp3", 86), ("dp2", 87), ("line", 89), ("pln", 90),
];
const MORE_OPCODES: [(&str, u8); 4] = [("mad", 91), ("lrp", 92), ("madm", 93), ("nop", 126)];

fn opcode_of(name: &str) -> Option<u8> {
    OPCODES
        .iter()
        .chain(MORE_OPCODES.iter())
        .find(|(n, _)| *n == name)
        .map(|&(_, o)| o)
}

fn is_3src(op: u8) -> bool {
    matches!(op, 18 | 24 | 26 | 91 | 92 | 93)
}

/// Jumps whose JIP/UIP `brw_compact_instructions` fixes after deciding compaction.
fn is_jump(op: u8) -> bool {
    matches!(op, 34 | 36 | 37 | 39 | 40 | 41 | 42)
}

/// What the disassembly says: opcode, execution size, destination GRF (when direct `gN`).
struct Text {
    opcode: u8,
    exec_size: Option<u32>,
    dst_grf: Option<u64>,
}

/// Reads `(+f0.0) sel.l(8) g5<1>F ...`, `math inv(8) g13<1>F ...`, `nop`, ...
fn parse_text(t: &str) -> Option<Text> {
    let mut s = t.trim_start();
    if s.starts_with('(') {
        s = s[s.find(')')? + 1..].trim_start();
    }
    let end = s
        .find(|c: char| c == '(' || c.is_whitespace())
        .unwrap_or(s.len());
    let name = s[..end].split('.').next()?;
    let opcode = opcode_of(name)?;
    let (mut exec_size, mut dst_grf) = (None, None);
    if let Some(open) = s.find('(') {
        // `math inv(8)`: the size follows the function name.
        if !s[..open].contains('{') {
            let close = open + s[open..].find(')')?;
            exec_size = s[open + 1..close].parse().ok();
            let dst = s[close + 1..].split_whitespace().next().unwrap_or("");
            if let Some(rest) = dst.strip_prefix('g') {
                let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
                dst_grf = digits.parse().ok();
            }
        }
    }
    Some(Text {
        opcode,
        exec_size,
        dst_grf,
    })
}

/// An instruction line: its bytes (8 or 16) and the disassembly after them.
fn parse_line(line: &str) -> Option<(Vec<u8>, &str)> {
    let mut bytes = Vec::with_capacity(16);
    let mut rest = line;
    while bytes.len() < 16 {
        let tok = rest.get(..3)?;
        let b = tok.as_bytes();
        if !(b[0].is_ascii_hexdigit() && b[1].is_ascii_hexdigit() && b[2] == b' ') {
            break;
        }
        bytes.push(u8::from_str_radix(&tok[..2], 16).ok()?);
        rest = &rest[3..];
    }
    matches!(bytes.len(), 8 | 16).then_some((bytes, rest))
}

/// Checks the expanded instruction against the disassembly; `None` when they agree.
fn text_mismatch(n: [u64; 2], text: &Text) -> Option<String> {
    let op = (n[0] & 0x7f) as u8;
    if op != text.opcode {
        return Some(format!("opcode {op}, text says {}", text.opcode));
    }
    if let Some(size) = text.exec_size {
        let bits = (n[0] >> 21) & 7;
        if 1u32 << bits != size {
            return Some(format!("exec size field {bits}, text says {size}"));
        }
    }
    if let Some(g) = text.dst_grf {
        // brw_inst.h: dst_da_reg_nr 60:53; 3src_dst_reg_nr 63:56.
        let nr = if is_3src(op) {
            n[0] >> 56
        } else {
            (n[0] >> 53) & 0xff
        };
        if nr != g {
            return Some(format!("dst register {nr}, text says g{g}"));
        }
    }
    None
}

/// One instruction of a program: byte offset, encoding, disassembly, line.
struct Inst<'a> {
    offset: i64,
    bytes: Vec<u8>,
    text: &'a str,
    line: usize,
}

#[derive(Default, Debug)]
struct Counts {
    compacted: u64,
    round_trip: u64,
    native: u64,
    /// Native lines compact() would compact, by reason.
    compactable: BTreeMap<&'static str, u64>,
    /// Why native lines do not compact (first failing rule of `precompact` + compaction).
    refusals: BTreeMap<String, u64>,
    text_checked: u64,
    /// Native lines precompact rewrites (a rewrite Mesa then threw away).
    precompact_changed: u64,
}

/// Rebuilds a native jump's JIP/UIP as they were before `brw_compact_instructions` fixed
/// them (see its `update_uip_jip`), from the positions of compacted instructions in the
/// program. `None` when a target is not an instruction of the program.
fn unfixed_jump(prog: &[Inst], i: usize, gen: Gen) -> Option<[u64; 2]> {
    let mut n = native_from_bytes(prog[i].bytes.as_slice().try_into().ok()?);
    let op = (n[0] & 0x7f) as u8;
    let here = prog[i].offset;
    // Gen8+: JIP 127:96, UIP 95:64, in bytes; gen7: JIP 111:96, UIP 127:112, in 8-byte units.
    let (fields, unit): ([(u32, u32); 2], i64) = if gen >= Gen::Gen8 {
        ([(96, 32), (64, 32)], 1)
    } else {
        ([(96, 16), (112, 16)], 8)
    };
    let jip_only = op == 37 || op == 39 || (op == 36 && gen < Gen::Gen8);
    for (k, &(lo, width)) in fields.iter().enumerate() {
        if k == 1 && jip_only {
            break;
        }
        let mask = (1u64 << width) - 1;
        let raw = (n[1] >> (lo - 64)) & mask;
        let jump = ((raw << (64 - width)) as i64 >> (64 - width)) * unit;
        let target = here + jump;
        prog.iter().find(|x| x.offset == target)?;
        let (a, b) = if target >= here {
            (here, target)
        } else {
            (target, here)
        };
        let compacted = prog
            .iter()
            .filter(|x| x.offset >= a && x.offset < b && x.bytes.len() == 8)
            .count() as i64;
        let old = if target >= here {
            jump + 8 * compacted
        } else {
            jump - 8 * compacted
        };
        let old = (old / unit) as u64 & mask;
        n[1] = (n[1] & !(mask << (lo - 64))) | (old << (lo - 64));
    }
    Some(n)
}

/// A deviation of the Mesa that made a corpus from the compaction code followed here,
/// observed and checked per instruction rather than assumed.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Oracle {
    /// Mesa 22.3.6: no deviation.
    Mesa22,
    /// Mesa 25.0.7 never uses the fourth three-source source index (entry 3 of
    /// `gfx8_3src_source_index_table`: src2 negated): 0 of its 29,483 compacted
    /// three-source instructions use it, where 22.3.6 uses it in 2,112 of 32,507. Its
    /// `brw_eu_compact.c` (as on Mesa's main branch) has the same table and keys; the cause
    /// was not found.
    Mesa25,
}

fn check_program(
    prog: &[Inst],
    gen: Gen,
    oracle: Oracle,
    counts: &mut Counts,
    fail: &mut impl FnMut(String, String),
) {
    for (i, inst) in prog.iter().enumerate() {
        let at = format!("line {}: {}", inst.line, inst.text.trim());
        let text = parse_text(inst.text);
        if inst.bytes.len() == 8 {
            counts.compacted += 1;
            let c = u64::from_le_bytes(inst.bytes.as_slice().try_into().unwrap());
            let n = match uncompact(c, gen) {
                Ok(n) => n,
                Err(e) => {
                    fail(format!("uncompact: {e}"), at);
                    continue;
                }
            };
            // What Mesa compacted had been through precompact already, which changes
            // nothing the second time.
            if precompact(n, gen) != Ok(n) {
                fail("precompact changes an uncompacted line".into(), at.clone());
            }
            match compact(n, gen) {
                Some(back) if back == c => counts.round_trip += 1,
                Some(back) => fail("round trip differs".into(), format!("{at}: {back:016x}")),
                None => fail(
                    format!("round trip: {}", try_compact(n, gen).unwrap_err()),
                    at.clone(),
                ),
            }
            match &text {
                Some(t) => {
                    counts.text_checked += 1;
                    if let Some(m) = text_mismatch(n, t) {
                        fail(
                            format!("uncompacted bits vs text: {}", m.split(',').next().unwrap()),
                            format!("{at}: {m}"),
                        );
                    }
                }
                None => fail("unknown mnemonic".into(), at),
            }
        } else {
            counts.native += 1;
            let n = native_from_bytes(inst.bytes.as_slice().try_into().unwrap());
            if let Some(t) = &text {
                counts.text_checked += 1;
                if let Some(m) = text_mismatch(n, t) {
                    fail(
                        format!("native bits vs text: {}", m.split(',').next().unwrap()),
                        format!("{at}: {m}"),
                    );
                }
            }
            let pre = precompact(n, gen).unwrap();
            if pre != n {
                counts.precompact_changed += 1;
            }
            let mesa = try_compact(pre, gen);
            let op = (n[0] & 0x7f) as u8;
            let plain = compact(n, gen);
            match &mesa {
                Err(r) => *counts.refusals.entry(r.to_string()).or_default() += 1,
                Ok(_) => *counts.refusals.entry("compactable".into()).or_default() += 1,
            }
            let src2_negate_index = is_3src(op) && mesa.as_ref().is_ok_and(|w| (w >> 10) & 3 == 3);
            let reason = match (mesa.is_ok(), plain.is_some()) {
                (false, false) => continue,
                (true, _) if oracle == Oracle::Mesa25 && src2_negate_index => {
                    "Mesa 25.0.7: three-source source index 3 (src2 negate) never used"
                }
                (false, true) => "precompact's rewrite made it uncompactable",
                (true, _) if is_jump(op) => match unfixed_jump(prog, i, gen) {
                    Some(old) => match compact(precompact(old, gen).unwrap(), gen) {
                        None => "jump: its JIP/UIP before fixing did not compact",
                        Some(_) => "UNEXPLAINED jump: compacts even before fixing",
                    },
                    None => "UNEXPLAINED jump: target not an instruction",
                },
                (true, _) => "UNEXPLAINED",
            };
            *counts.compactable.entry(reason).or_default() += 1;
            if reason.starts_with("UNEXPLAINED") {
                fail(format!("native line compacts: {reason}"), at);
            }
        }
    }
}

fn walk(corpus: &str, gen: Gen, oracle: Oracle) -> Option<Counts> {
    let dir = common::corpus(corpus)?;
    let mut files = Vec::new();
    asm_files(&dir, &mut files);
    assert!(!files.is_empty(), "no asm.txt in {}", dir.display());
    let mut counts = Counts::default();
    let mut failures: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut fail = |kind: String, what: String| {
        let e = failures.entry(kind).or_default();
        e.0 += 1;
        if e.1.is_empty() {
            e.1 = what;
        }
    };
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let mut prog: Vec<Inst> = Vec::new();
        let mut offset = 0i64;
        for (no, line) in text.lines().enumerate() {
            if line.starts_with("Native code for") {
                check_program(&prog, gen, oracle, &mut counts, &mut |k, w| {
                    fail(k, format!("{}: {w}", path.display()))
                });
                prog.clear();
                offset = 0;
                continue;
            }
            if let Some((bytes, rest)) = parse_line(line) {
                let len = bytes.len() as i64;
                prog.push(Inst {
                    offset,
                    bytes,
                    text: rest,
                    line: no + 1,
                });
                offset += len;
            }
        }
        check_program(&prog, gen, oracle, &mut counts, &mut |k, w| {
            fail(k, format!("{}: {w}", path.display()))
        });
    }
    eprintln!(
        "{corpus} ({gen}): {} compacted lines, {} round-trip exact; {} native lines ({} rewritten by precompact, still not compactable); {} lines checked against their text",
        counts.compacted, counts.round_trip, counts.native, counts.precompact_changed, counts.text_checked
    );
    for (why, n) in &counts.compactable {
        eprintln!("    native but compact() compacts: {n:6}  {why}");
    }
    for (why, n) in &counts.refusals {
        eprintln!("    native, Mesa's rule says: {n:6}  {why}");
    }
    let total: usize = failures.values().map(|v| v.0).sum();
    let report: Vec<String> = failures
        .iter()
        .map(|(k, (n, first))| format!("{n:6}  {k}\n        first: {first}"))
        .collect();
    assert!(
        total == 0,
        "{corpus}: {total} failures:\n{}",
        report.join("\n")
    );
    assert_eq!(counts.round_trip, counts.compacted);
    Some(counts)
}

/// Floors, measured on the corpora (so a reader that stops finding lines fails instead of
/// passing on nothing), and a ceiling on the native lines only a known deviation of the
/// corpus's Mesa explains.
fn floors(c: Option<Counts>, compacted: u64, native: u64, deviation_max: u64) {
    let Some(c) = c else { return };
    assert!(
        c.compacted >= compacted,
        "{} compacted lines, floor {compacted}",
        c.compacted
    );
    assert!(
        c.native >= native,
        "{} native lines, floor {native}",
        c.native
    );
    let deviations: u64 = c
        .compactable
        .iter()
        .filter(|(k, _)| k.starts_with("Mesa 25"))
        .map(|(_, n)| n)
        .sum();
    assert!(
        deviations <= deviation_max,
        "{deviations} lines explained by a deviation, at most {deviation_max}"
    );
}

#[test]
fn shaderdb_skl() {
    floors(
        walk("shaderdb-skl", Gen::Gen9, Oracle::Mesa22),
        162_856,
        109_208,
        0,
    );
}

#[test]
fn shaderdb_bdw() {
    floors(
        walk("shaderdb-bdw", Gen::Gen8, Oracle::Mesa22),
        161_936,
        104_442,
        0,
    );
}

#[test]
fn shaderdb_hsw() {
    floors(
        walk("shaderdb-hsw", Gen::Gen75, Oracle::Mesa22),
        135_479,
        178_533,
        0,
    );
}

#[test]
fn piglit_fp64() {
    floors(
        walk("piglit-fp64-skl", Gen::Gen9, Oracle::Mesa22),
        24_682,
        60_668,
        0,
    );
    floors(
        walk("piglit-fp64-hsw", Gen::Gen75, Oracle::Mesa22),
        21_769,
        143_923,
        0,
    );
}

#[test]
fn vulkan_fp16() {
    floors(
        walk("vulkan-fp16-skl", Gen::Gen9, Oracle::Mesa22),
        14_468,
        14_708,
        0,
    );
    floors(
        walk("vulkan-fp16-bdw", Gen::Gen8, Oracle::Mesa22),
        14_553,
        15_021,
        0,
    );
}

#[test]
fn shaderdb_skl_mesa25() {
    floors(
        walk("shaderdb-skl-mesa25", Gen::Gen9, Oracle::Mesa25),
        168_475,
        126_921,
        2_116,
    );
}
