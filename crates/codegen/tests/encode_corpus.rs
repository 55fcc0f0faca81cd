//! Every native (16-byte) instruction of every corpus listing, both ways through the
//! table-driven encoder: Mesa's text → struct (with the don't-care policy) → bytes must be
//! Mesa's bytes, and Mesa's bytes → struct → text must be Mesa's text (both lines of a
//! send, columns included). Counts per corpus: native lines, exact encodes, exact disasm,
//! lines whose text cannot give the bytes (counted with the reason, not skipped), and
//! mismatches grouped by cause (the fields that differ, or where the text first differs).
//! Compacted (8-byte) lines are only read and printed back here; both sizes, bytes and
//! compaction decision included, are checked in `asm_roundtrip_corpus.rs`. Each corpus asserts the
//! counts reached as a floor. Skipped, with a message, when `../shared` is absent; run in
//! release mode.

#[path = "../../ir/tests/common/mod.rs"]
mod common;

use std::collections::{BTreeMap, HashMap};

use eubatch_codegen::asm::encoding;
use eubatch_codegen::encode::{
    self, codec, Dialect, LabelOffsets, Labels, NativeInst, Place, Style,
};
use eubatch_ir::Gen;

#[derive(Default)]
struct Counts {
    native: u64,
    compacted: u64,
    encode_exact: u64,
    disasm_exact: u64,
    from_text_impossible: BTreeMap<String, u64>,
    encode_causes: BTreeMap<String, (u64, String)>,
    disasm_causes: BTreeMap<String, (u64, String)>,
    /// Compacted lines whose text reads and prints back identically (text → struct → text).
    compacted_text_exact: u64,
    compacted_causes: BTreeMap<String, (u64, String)>,
    unmodelled_bits: u64,
}

fn note(map: &mut BTreeMap<String, (u64, String)>, key: String, example: String) {
    let e = map.entry(key).or_default();
    e.0 += 1;
    if e.1.is_empty() {
        e.1 = example;
    }
}

/// The instruction lines of a listing, per program: (line index, bytes, byte offset).
struct Line {
    idx: usize,
    bytes: Vec<u8>,
    at: u32,
}

/// Splits a listing into programs: their instruction lines and labels.
fn programs(lines: &[&str]) -> Vec<(Vec<Line>, LabelOffsets)> {
    let mut progs: Vec<(Vec<Line>, LabelOffsets)> = Vec::new();
    let mut at = 0u32;
    for (idx, l) in lines.iter().enumerate() {
        if l.starts_with("Native code for") {
            progs.push((Vec::new(), HashMap::new()));
            at = 0;
            continue;
        }
        let Some(p) = progs.last_mut() else { continue };
        if let Some(n) = l.strip_prefix("LABEL").and_then(|r| r.strip_suffix(':')) {
            p.1.insert(n.parse().expect("label number"), at);
        } else if let Some(bytes) = encoding(l).map(|(bytes, _)| bytes) {
            let len = bytes.len() as u32;
            p.0.push(Line { idx, bytes, at });
            at += len;
        }
    }
    progs
}

/// Where two texts first differ, as a cause: a few characters of each, digits as `N`.
fn text_cause(want: &str, got: &str) -> String {
    let i = want
        .bytes()
        .zip(got.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let start = want[..i].rfind(' ').map_or(0, |s| s + 1);
    let norm = |s: &str| -> String {
        let s: String = s.chars().take(24).collect();
        s.chars()
            .map(|c| if c.is_ascii_digit() { 'N' } else { c })
            .collect()
    };
    format!(
        "want `{}` got `{}`",
        norm(&want[start..]),
        norm(&got[start.min(got.len())..])
    )
}

#[allow(clippy::too_many_arguments)]
fn check_line(
    c: &mut Counts,
    gen: Gen,
    dialect: Dialect,
    lines: &[&str],
    l: &Line,
    labels: &LabelOffsets,
    by_offset: &Labels,
    at_file: &str,
) {
    let raw = lines[l.idx];
    let first = raw.get(48..).unwrap_or("");
    let second = lines
        .get(l.idx + 1)
        .copied()
        .filter(|s| s.contains(" MsgDesc:"));
    let mesa_text = match second {
        Some(s) => format!("{first}\n{s}"),
        None => first.to_string(),
    };
    let where_ = format!("{at_file}:{}", l.idx + 1);
    let mesa = NativeInst::from_bytes(&l.bytes[..].try_into().unwrap());
    let decoded = match encode::decode(mesa, gen) {
        Ok(d) => d,
        Err(e) => {
            note(&mut c.disasm_causes, format!("decode: {e}"), where_.clone());
            note(&mut c.encode_causes, format!("decode: {e}"), where_);
            return;
        }
    };
    if decoded.residue != [0, 0] {
        c.unmodelled_bits += 1;
    }
    match encode::disasm_as(
        &decoded,
        gen,
        l.at,
        by_offset,
        Style {
            dialect,
            compacted: false,
        },
    ) {
        Ok(t) if t == mesa_text => c.disasm_exact += 1,
        Ok(t) => note(
            &mut c.disasm_causes,
            text_cause(&mesa_text, &t),
            format!("{where_}\n   want: {mesa_text}\n    got: {t}"),
        ),
        Err(e) => note(&mut c.disasm_causes, format!("print: {e}"), where_.clone()),
    }
    let place = Place {
        line: l.idx as u32 + 1,
        at: l.at,
        labels,
    };
    match encode::assemble(first, second, gen, &place) {
        Ok(a) if a.compacted => note(
            &mut c.encode_causes,
            "parse: `compacted` on a 16-byte line".into(),
            where_,
        ),
        Ok(a) => {
            let (inst, why) = (a.inst, a.unrecoverable);
            let bytes = encode::encode(&inst, gen).expect("a parsed instruction encodes");
            if bytes == mesa {
                c.encode_exact += 1;
            } else if let Some(why) = why {
                *c.from_text_impossible.entry(why.to_string()).or_default() += 1;
            } else {
                let fields = codec::differing_fields(&decoded, gen, mesa, bytes);
                let op = first
                    .split(['(', '.', ' '])
                    .find(|s| !s.is_empty() && !s.starts_with(['+', '-']))
                    .unwrap_or("?");
                note(
                    &mut c.encode_causes,
                    format!("{op}: {}", fields.join(",")),
                    format!(
                        "{where_}\n   {raw}\n   mesa {:032x}\n   ours {:032x}",
                        u128_of(mesa),
                        u128_of(bytes)
                    ),
                );
            }
        }
        Err(e) => note(
            &mut c.encode_causes,
            format!("parse: {}", e.msg),
            format!("{where_}: {e:?}"),
        ),
    }
}

/// A compacted line until compaction joins: its text must read (as `compacted`) and print
/// back as Mesa printed it.
#[allow(clippy::too_many_arguments)]
fn check_compacted(
    c: &mut Counts,
    gen: Gen,
    dialect: Dialect,
    lines: &[&str],
    l: &Line,
    labels: &LabelOffsets,
    by_offset: &Labels,
    at_file: &str,
) {
    let raw = lines[l.idx];
    let first = raw.get(48..).unwrap_or("");
    let second = lines
        .get(l.idx + 1)
        .copied()
        .filter(|s| s.contains(" MsgDesc:"));
    let mesa_text = match second {
        Some(s) => format!("{first}\n{s}"),
        None => first.to_string(),
    };
    let where_ = format!("{at_file}:{}", l.idx + 1);
    let place = Place {
        line: l.idx as u32 + 1,
        at: l.at,
        labels,
    };
    match encode::assemble(first, second, gen, &place) {
        Ok(a) if !a.compacted => note(
            &mut c.compacted_causes,
            "8 bytes without `compacted`".into(),
            where_,
        ),
        Ok(a) => match encode::disasm_as(
            &a.inst,
            gen,
            l.at,
            by_offset,
            Style {
                dialect,
                compacted: true,
            },
        ) {
            Ok(t) if t == mesa_text => c.compacted_text_exact += 1,
            Ok(t) => note(
                &mut c.compacted_causes,
                text_cause(&mesa_text, &t),
                format!("{where_}\n   want: {mesa_text}\n    got: {t}"),
            ),
            Err(e) => note(&mut c.compacted_causes, format!("print: {e}"), where_),
        },
        Err(e) => note(
            &mut c.compacted_causes,
            format!("parse: {}", e.msg),
            format!("{where_}: {e:?}"),
        ),
    }
}

fn u128_of(n: NativeInst) -> u128 {
    (n.0[1] as u128) << 64 | n.0[0] as u128
}

fn walk(corpus: &str, gen: Gen) -> Option<Counts> {
    let dir = common::corpus(corpus)?;
    let files = common::files_named(&dir, "asm.txt");
    let dialect = if corpus.ends_with("mesa25") {
        Dialect::Mesa25
    } else {
        Dialect::Mesa22
    };
    assert!(!files.is_empty(), "no asm.txt in {}", dir.display());
    let mut c = Counts::default();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let name = path.display().to_string();
        for (insts, labels) in programs(&lines) {
            let by_offset: Labels = labels.iter().map(|(n, at)| (*at, *n)).collect();
            for l in &insts {
                if l.bytes.len() == 8 {
                    c.compacted += 1;
                    check_compacted(&mut c, gen, dialect, &lines, l, &labels, &by_offset, &name);
                    continue;
                }
                c.native += 1;
                check_line(&mut c, gen, dialect, &lines, l, &labels, &by_offset, &name);
            }
        }
    }
    report(corpus, &c);
    Some(c)
}

fn report(corpus: &str, c: &Counts) {
    let impossible: u64 = c.from_text_impossible.values().sum();
    eprintln!(
        "{corpus}: {} native lines, encode exact {} ({:.2}%), disasm exact {} ({:.2}%), \
         not reproducible from text {impossible}, unmodelled bits in {}; \
         compacted: handled by compaction {} (text → struct → text exact {})",
        c.native,
        c.encode_exact,
        100.0 * c.encode_exact as f64 / c.native.max(1) as f64,
        c.disasm_exact,
        100.0 * c.disasm_exact as f64 / c.native.max(1) as f64,
        c.unmodelled_bits,
        c.compacted,
        c.compacted_text_exact
    );
    for (why, n) in &c.from_text_impossible {
        eprintln!("  not from text alone: {n:7}  {why}");
    }
    let groups = [
        ("encode", &c.encode_causes),
        ("disasm", &c.disasm_causes),
        ("compacted text", &c.compacted_causes),
    ];
    for (title, map) in groups {
        let mut v: Vec<_> = map.iter().collect();
        v.sort_by_key(|e| std::cmp::Reverse(e.1 .0));
        for (k, (n, ex)) in v.iter().take(12) {
            eprintln!("  {title} mismatch {n:7}  {k}\n      e.g. {ex}");
        }
    }
}

/// The counts a corpus reached: (native lines, exact encodes, exact disassembly, compacted
/// lines, compacted lines whose text reads and prints back).
type Floor = (u64, u64, u64, u64, u64);

/// Runs a corpus and holds it to the counts reached: line counts equal, exact counts at least
/// the floor (regressions fail), no bit of a Mesa word outside the modelled fields.
fn floor(corpus: &str, gen: Gen, f: Floor) {
    let Some(c) = walk(corpus, gen) else { return };
    let (native, encode_exact, disasm_exact, compacted, compacted_text) = f;
    assert_eq!(
        (c.native, c.compacted),
        (native, compacted),
        "{corpus}: line counts changed"
    );
    assert!(
        c.encode_exact >= encode_exact,
        "{corpus}: encode exact {} < floor {encode_exact}",
        c.encode_exact
    );
    assert!(
        c.disasm_exact >= disasm_exact,
        "{corpus}: disasm exact {} < floor {disasm_exact}",
        c.disasm_exact
    );
    assert!(
        c.compacted_text_exact >= compacted_text,
        "{corpus}: compacted text exact {} < floor {compacted_text}",
        c.compacted_text_exact
    );
    assert_eq!(
        c.unmodelled_bits, 0,
        "{corpus}: words with bits outside the modelled fields"
    );
}

// Floors measured with Mesa 22.3.6's (and 25.0.7's) listings. Below 100%: fp16's
// `Half Float IMM` lines (value not printed: 151 each, counted as not reproducible from
// text), and 297 shaderdb-bdw descriptor lines where Mesa's printer reads past the end of
// `dp_dc0_msg_type_gfx7` (message type 16 of a 16-entry table: it prints whatever string
// follows in memory, `SIMD16` in that build).

#[test]
fn shaderdb_skl() {
    floor(
        "shaderdb-skl",
        Gen::Gen9,
        (109208, 109208, 109208, 162856, 162856),
    );
}

#[test]
fn shaderdb_bdw() {
    floor(
        "shaderdb-bdw",
        Gen::Gen8,
        (104442, 104442, 104145, 161936, 161936),
    );
}

#[test]
fn shaderdb_hsw() {
    floor(
        "shaderdb-hsw",
        Gen::Gen75,
        (178533, 178533, 178533, 135479, 135479),
    );
}

#[test]
fn piglit_fp64() {
    floor(
        "piglit-fp64-skl",
        Gen::Gen9,
        (60668, 60668, 60668, 24682, 24682),
    );
    floor(
        "piglit-fp64-hsw",
        Gen::Gen75,
        (143923, 143923, 143923, 21769, 21769),
    );
}

#[test]
fn vulkan_fp16() {
    floor(
        "vulkan-fp16-skl",
        Gen::Gen9,
        (14708, 14557, 14708, 14468, 14468),
    );
    floor(
        "vulkan-fp16-bdw",
        Gen::Gen8,
        (15021, 14870, 15021, 14553, 14553),
    );
}

#[test]
fn shaderdb_skl_mesa25() {
    floor(
        "shaderdb-skl-mesa25",
        Gen::Gen9,
        (126921, 126921, 126921, 168475, 168475),
    );
}
