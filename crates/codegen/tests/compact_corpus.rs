//! Instruction compaction against Mesa's own encodings in every `asm.txt` of the 8 corpora.
//! Mesa tries to compact every instruction (`brw_compact_instructions`), so each line is an
//! oracle:
//! - a compacted line (8 bytes): `compact(uncompact(bytes)) == bytes`, and the expanded
//!   instruction agrees with the disassembly: opcode, execution size, predicate, saturate,
//!   condition modifier, flag, access mode, WE_all, quarter, dependency controls, and for
//!   every operand its register, subregister, region or swizzle and writemask, type,
//!   modifiers and immediate value. The round trip alone cannot find a wrong table entry
//!   (it goes through the same entry both ways); this comparison does;
//! - a native line (16 bytes): Mesa could not compact `precompact(x)`, so neither may we;
//!   the one exception is a jump, whose compaction Mesa decided with its JIP/UIP before
//!   they were shortened by the compacted instructions they jump over. That exception is
//!   checked, not assumed: the jump's JIP/UIP before fixing are rebuilt from the program's
//!   layout, and that instruction must not compact (no corpus has such a jump: every native
//!   line is refused by Mesa's rules as they stand, except one known deviation of Mesa
//!   25.0.7, see [`Oracle`]);
//! - every program: its bytes and lines agree with Mesa's "Compacted A to B bytes".
//!
//! The same field comparison runs on native lines, which keeps the comparison itself honest.
//!
//! Counts (and which table entries the compacted lines use: a table entry no line uses is
//! checked only by its transcription from Mesa) are printed per corpus and floors asserted. Skipped, with a message, when
//! `../shared` is absent. Run in release mode.

#[path = "../../ir/tests/common/mod.rs"]
mod common;

use std::collections::BTreeMap;

use eubatch_codegen::asm::encoding;
use eubatch_codegen::compact::{compact, native_from_bytes, precompact, try_compact, uncompact};
use eubatch_ir::Gen;

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

/// Bits `hi..=lo` of a native instruction.
fn bits(n: [u64; 2], hi: u32, lo: u32) -> u64 {
    let v = if lo >= 64 {
        n[1] >> (lo - 64)
    } else {
        n[0] >> lo
    };
    v & ((1u64 << (hi - lo + 1)) - 1)
}

/// Register and immediate type letters by hardware code (brw_reg_type.c `hw_reg_type`,
/// `hw_imm_type`; gen7 has codes 0-7 only).
const REG_TYPES: [&str; 11] = ["UD", "D", "UW", "W", "UB", "B", "DF", "F", "UQ", "Q", "HF"];
const IMM_TYPES: [&str; 12] = [
    "UD", "D", "UW", "W", "UV", "VF", "V", "F", "UQ", "Q", "DF", "HF",
];

fn type_size(t: &str) -> u64 {
    match t {
        "UB" | "B" => 1,
        "UW" | "W" | "HF" => 2,
        "DF" | "Q" | "UQ" => 8,
        _ => 4,
    }
}

/// Region numbers as the hardware encodes them (0 → 0, 2^k → k + 1 for strides; 2^k → k for
/// widths).
fn stride_code(v: u64) -> Option<u64> {
    match v {
        0 => Some(0),
        v if v.is_power_of_two() => Some(u64::from(v.trailing_zeros()) + 1),
        _ => None,
    }
}

/// Positions of an Align1 operand's fields (brw_inst.h, gen7 / gen8+).
struct Operand {
    file: (u32, u32),
    ty: (u32, u32),
    nr: (u32, u32),
    sub: (u32, u32),
    /// vstride, width, hstride (dst: hstride only).
    region: [Option<(u32, u32)>; 3],
    negate: Option<u32>,
    abs: Option<u32>,
    /// Address mode (0: direct, which is what `gN` prints).
    addr: u32,
}

fn operands(gen: Gen) -> [Operand; 3] {
    let g8 = gen >= Gen::Gen8;
    [
        Operand {
            file: if g8 { (36, 35) } else { (33, 32) },
            ty: if g8 { (40, 37) } else { (36, 34) },
            nr: (60, 53),
            sub: (52, 48),
            region: [None, None, Some((62, 61))],
            negate: None,
            abs: None,
            addr: 63,
        },
        Operand {
            file: if g8 { (42, 41) } else { (38, 37) },
            ty: if g8 { (46, 43) } else { (41, 39) },
            nr: (76, 69),
            sub: (68, 64),
            region: [Some((88, 85)), Some((84, 82)), Some((81, 80))],
            negate: Some(78),
            abs: Some(77),
            addr: 79,
        },
        Operand {
            file: if g8 { (90, 89) } else { (43, 42) },
            ty: if g8 { (94, 91) } else { (46, 44) },
            nr: (108, 101),
            sub: (100, 96),
            region: [Some((120, 117)), Some((116, 114)), Some((113, 112))],
            negate: Some(110),
            abs: Some(109),
            addr: 111,
        },
    ]
}

/// Compares one operand token of the disassembly (`-g8.4<0,1,0>F`, `0x3f800000F`, `12D`)
/// with the bits; other tokens (`null`, ARF, Align16 forms) are not compared.
fn check_operand(n: [u64; 2], op: &Operand, tok: &str, is_dst: bool) -> Result<bool, String> {
    let b = |f: (u32, u32)| bits(n, f.0, f.1);
    let ty_of = |s: &str| -> Option<String> {
        let t: String = s.chars().skip_while(|c| !c.is_ascii_uppercase()).collect();
        (!t.is_empty() && t.chars().all(|c| c.is_ascii_uppercase())).then_some(t)
    };
    let mut s = tok;
    let negate = s.starts_with('-') && s[1..].starts_with(['g', '(']);
    if negate {
        s = &s[1..];
    }
    let abs = s.starts_with("(abs)");
    if abs {
        s = &s[5..];
    }
    if let Some(rest) = s.strip_prefix('g') {
        let nr_end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let Ok(nr) = rest[..nr_end].parse::<u64>() else {
            return Ok(false);
        };
        let mut rest = &rest[nr_end..];
        let mut sub = 0;
        if let Some(r) = rest.strip_prefix('.') {
            let e = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
            sub = r[..e].parse::<u64>().map_err(|_| "subreg".to_string())?;
            rest = &r[e..];
        }
        let Some(r) = rest.strip_prefix('<') else {
            return Ok(false);
        };
        let Some(close) = r.find('>') else {
            return Ok(false);
        };
        let nums: Vec<u64> = r[..close]
            .split(',')
            .filter_map(|x| x.parse().ok())
            .collect();
        let Some(ty) = ty_of(&r[close + 1..]) else {
            return Ok(false);
        };
        if nums.len() != if is_dst { 1 } else { 3 } {
            return Ok(false);
        }
        let want_ty = REG_TYPES
            .iter()
            .position(|t| *t == ty)
            .ok_or("type letters")? as u64;
        let mut checks = vec![
            ("file", b(op.file), 1),
            ("address mode", bits(n, op.addr, op.addr), 0),
            ("type", b(op.ty), want_ty),
            ("register", b(op.nr), nr),
            ("subregister", b(op.sub), sub * type_size(&ty)),
        ];
        let codes: Vec<Option<u64>> = if is_dst {
            vec![stride_code(nums[0])]
        } else {
            vec![
                stride_code(nums[0]),
                Some(u64::from(nums[1].trailing_zeros())),
                stride_code(nums[2]),
            ]
        };
        let fields: Vec<(u32, u32)> = op.region.iter().flatten().copied().collect();
        for (f, c) in fields.iter().zip(codes) {
            checks.push(("region", b(*f), c.ok_or("region number")?));
        }
        if let (Some(ng), Some(ab)) = (op.negate, op.abs) {
            checks.push(("negate", bits(n, ng, ng), u64::from(negate)));
            checks.push(("abs", bits(n, ab, ab), u64::from(abs)));
        }
        for (what, got, want) in checks {
            if got != want {
                return Err(format!("{what} {got}, text `{tok}` says {want}"));
            }
        }
        return Ok(true);
    }
    // Immediates: 0x-hex or decimal, then the type.
    if is_dst || !(s.starts_with("0x") || s.starts_with(|c: char| c.is_ascii_digit() || c == '-')) {
        return Ok(false);
    }
    let Some(ty) = ty_of(s) else { return Ok(false) };
    let digits = &s[..s.len() - ty.len()];
    let value = if let Some(h) = digits.strip_prefix("0x") {
        // A 64-bit immediate (Haswell's `dim`, DF/Q on gen8+) is not compared.
        if h.len() > 8 {
            return Ok(false);
        }
        u64::from_str_radix(h, 16).ok()
    } else {
        digits.parse::<i64>().ok().map(|v| v as u64)
    };
    let Some(value) = value else { return Ok(false) };
    let want_ty = IMM_TYPES
        .iter()
        .position(|t| *t == ty)
        .ok_or("imm type letters")? as u64;
    if b(op.file) != 3 {
        return Err(format!("file {}, text `{tok}` says immediate", b(op.file)));
    }
    if b(op.ty) != want_ty {
        return Err(format!("type {}, text `{tok}` says {want_ty}", b(op.ty)));
    }
    let imm = bits(n, 127, 96);
    let (got, want) = match type_size(&ty) {
        2 => (imm & 0xffff, value & 0xffff),
        4 => (imm, value & 0xffff_ffff),
        _ => return Ok(false),
    };
    if got != want {
        return Err(format!("immediate {got:#x}, text `{tok}` says {want:#x}"));
    }
    Ok(true)
}

/// A GRF operand as brw_disasm.c prints it in any access mode:
/// `[-][(abs)]gN[.S]<R,...>[.chans]TYPE`.
struct Tok {
    negate: bool,
    abs: bool,
    nr: u64,
    sub: u64,
    region: Vec<u64>,
    chans: Option<String>,
    ty: String,
}

fn parse_grf(tok: &str) -> Option<Tok> {
    let mut s = tok;
    let negate = s.starts_with('-');
    if negate {
        s = &s[1..];
    }
    let abs = s.starts_with("(abs)");
    if abs {
        s = &s[5..];
    }
    let rest = s.strip_prefix('g')?;
    let e = rest.find(|c: char| !c.is_ascii_digit())?;
    let nr = rest[..e].parse().ok()?;
    let mut rest = &rest[e..];
    let mut sub = 0;
    if let Some(r) = rest.strip_prefix('.') {
        let e = r.find(|c: char| !c.is_ascii_digit())?;
        sub = r[..e].parse().ok()?;
        rest = &r[e..];
    }
    let r = rest.strip_prefix('<')?;
    let close = r.find('>')?;
    let region = r[..close]
        .split(',')
        .map(|x| x.parse().ok())
        .collect::<Option<Vec<u64>>>()?;
    let mut rest = &r[close + 1..];
    let mut chans = None;
    if let Some(c) = rest.strip_prefix('.') {
        let e = c.find(|ch: char| !"xyzw".contains(ch))?;
        chans = Some(c[..e].to_string());
        rest = &c[e..];
    }
    let ty = rest.to_string();
    (!ty.is_empty() && ty.chars().all(|c| c.is_ascii_uppercase())).then_some(Tok {
        negate,
        abs,
        nr,
        sub,
        region,
        chans,
        ty,
    })
}

/// A swizzle as brw_disasm.c `src_swizzle` prints it (nothing for xyzw, one letter when all
/// four agree), as the 8-bit field (x in bits 1:0 ... w in 7:6).
fn swizzle_code(chans: &Option<String>) -> Option<u64> {
    let letters: Vec<u64> = match chans {
        None => vec![0, 1, 2, 3],
        Some(c) => c
            .chars()
            .map(|ch| "xyzw".find(ch).map(|i| i as u64))
            .collect::<Option<_>>()?,
    };
    let four = match letters.len() {
        1 => vec![letters[0]; 4],
        4 => letters,
        _ => return None,
    };
    Some(four.iter().enumerate().map(|(i, c)| c << (2 * i)).sum())
}

/// A writemask as printed (`.xz`; nothing for all four).
fn writemask_code(chans: &Option<String>) -> Option<u64> {
    match chans {
        None => Some(0xf),
        Some(c) => c.chars().map(|ch| "xyzw".find(ch).map(|i| 1u64 << i)).sum(),
    }
}

/// Three-source Align16 types (brw_reg_type.c `hw_3src_reg_type`).
const TYPES_3SRC: [&str; 5] = ["F", "D", "UD", "DF", "HF"];

/// Compares the operands of an Align16 instruction (two-source vec4 code, or three-source
/// gen7-9) with the text. Returns the number compared.
fn check_align16(n: [u64; 2], gen: Gen, toks: &[&str], three_src: bool) -> Result<u32, String> {
    let g8 = gen >= Gen::Gen8;
    let b = |hi: u32, lo: u32| bits(n, hi, lo);
    let mut checks: Vec<(&str, u64, u64)> = Vec::new();
    let mut compared = 0;
    for (i, tok) in toks.iter().enumerate() {
        let Some(t) = parse_grf(tok) else { continue };
        let size = type_size(&t.ty);
        if three_src {
            if i > 3 {
                break;
            }
            let code = TYPES_3SRC
                .iter()
                .position(|x| *x == t.ty)
                .ok_or("3src type")? as u64;
            if i == 0 {
                checks.push(("3src dst register", b(63, 56), t.nr));
                checks.push(("3src dst subregister", b(55, 53) * 4, t.sub * size));
                let mask = writemask_code(&t.chans).ok_or("writemask")?;
                checks.push(("3src writemask", b(52, 49), mask));
                checks.push((
                    "3src dst type",
                    if g8 { b(48, 46) } else { b(45, 44) },
                    code,
                ));
            } else {
                let k = i - 1;
                let (nr, sub, rep, swz) = [
                    ((83, 76), (75, 73), 64, (72, 65)),
                    ((104, 97), (96, 94), 85, (93, 86)),
                    ((125, 118), (117, 115), 106, (114, 107)),
                ][k];
                let scalar = t.region == [0, 1, 0];
                checks.push(("3src register", b(nr.0, nr.1), t.nr));
                checks.push(("3src subregister", b(sub.0, sub.1) * 4, t.sub * size));
                checks.push(("3src replicate", b(rep, rep), u64::from(scalar)));
                if !scalar {
                    let sw = swizzle_code(&t.chans).ok_or("swizzle")?;
                    checks.push(("3src swizzle", b(swz.0, swz.1), sw));
                }
                let (abs, neg) = if g8 {
                    (37 + 2 * k, 38 + 2 * k)
                } else {
                    (36 + 2 * k, 37 + 2 * k)
                };
                checks.push((
                    "3src negate",
                    b(neg as u32, neg as u32),
                    u64::from(t.negate),
                ));
                checks.push(("3src abs", b(abs as u32, abs as u32), u64::from(t.abs)));
                // Mixed-precision src1/src2 types (gen8+ bits 36:35) are not compared.
                if k == 0 || !g8 || b(36, 35) == 0 {
                    checks.push(("3src type", if g8 { b(45, 43) } else { b(43, 42) }, code));
                }
            }
        } else {
            if i > 2 {
                break;
            }
            let ops = operands(gen);
            let op = &ops[i];
            let ty = REG_TYPES.iter().position(|x| *x == t.ty).ok_or("type")? as u64;
            checks.push(("file", b(op.file.0, op.file.1), 1));
            checks.push(("address mode", b(op.addr, op.addr), 0));
            checks.push(("type", b(op.ty.0, op.ty.1), ty));
            checks.push(("register", b(op.nr.0, op.nr.1), t.nr));
            // Align16 subregisters: one bit, 16 bytes, printed as 16 / element size.
            let sub_bit = u64::from(t.sub != 0);
            if i == 0 {
                checks.push(("dst subregister", b(52, 52), sub_bit));
                checks.push((
                    "writemask",
                    b(51, 48),
                    writemask_code(&t.chans).ok_or("mask")?,
                ));
            } else {
                let (sub, vs, swz) = if i == 1 {
                    (68, (88, 85), [(65, 64), (67, 66), (81, 80), (83, 82)])
                } else {
                    (
                        100,
                        (120, 117),
                        [(97, 96), (99, 98), (113, 112), (115, 114)],
                    )
                };
                checks.push(("subregister", b(sub, sub), sub_bit));
                if t.region.len() == 1 {
                    checks.push((
                        "vstride",
                        b(vs.0, vs.1),
                        stride_code(t.region[0]).ok_or("vs")?,
                    ));
                }
                let sw = swizzle_code(&t.chans).ok_or("swizzle")?;
                let got: u64 = swz
                    .iter()
                    .enumerate()
                    .map(|(c, f)| b(f.0, f.1) << (2 * c))
                    .sum();
                checks.push(("swizzle", got, sw));
                let (ng, ab) = (op.negate.unwrap(), op.abs.unwrap());
                checks.push(("negate", b(ng, ng), u64::from(t.negate)));
                checks.push(("abs", b(ab, ab), u64::from(t.abs)));
            }
        }
        compared += 1;
    }
    for (what, got, want) in checks {
        if got != want {
            return Err(format!("{what} {got}, text says {want}"));
        }
    }
    Ok(compared)
}

/// Conditional modifiers as brw_disasm.c prints them.
const CONDS: [(&str, u64); 8] = [
    ("z", 1),
    ("nz", 2),
    ("g", 3),
    ("ge", 4),
    ("l", 5),
    ("le", 6),
    ("o", 8),
    ("u", 9),
];

/// Compares the instruction's control and (Align1 two-source) operand bits with the
/// disassembly: predicate, saturate, condition modifier, flag register, access mode,
/// WE_all, quarter, AccWrEnable, NoDDClr/NoDDChk, and each operand's register, subregister,
/// region, type, negate and abs, immediates with their type and value. This is what tests
/// the table contents: a wrong entry expands a compacted line into bits the text denies.
/// Returns the number of operands compared.
fn check_detail(n: [u64; 2], gen: Gen, text: &str) -> Result<u32, String> {
    let g8 = gen >= Gen::Gen8;
    let op = (n[0] & 0x7f) as u8;
    let mut s = text.trim_start();
    // Comments (`/* 1F */`) and the options in braces.
    let (body, opts) = match s.find('{') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let body = match body.find("/*") {
        Some(i) => &body[..i],
        None => body,
    };
    s = body;
    let expect = |what: &str, got: u64, want: u64| -> Result<(), String> {
        if got == want {
            Ok(())
        } else {
            Err(format!("{what} {got}, text says {want}"))
        }
    };
    let mut flag: Option<(u64, u64)> = None;
    let parse_flag = |f: &str| -> Option<(u64, u64)> {
        let f = f.strip_prefix('f')?;
        let (r, sr) = f.split_once('.')?;
        let sr: String = sr.chars().take_while(|c| c.is_ascii_digit()).collect();
        Some((r.parse().ok()?, sr.parse().ok()?))
    };
    if let Some(rest) = s.strip_prefix('(') {
        let close = rest.find(')').ok_or("predicate")?;
        let p = &rest[..close];
        expect(
            "predicate inverse",
            bits(n, 20, 20),
            u64::from(p.starts_with('-')),
        )?;
        if bits(n, 19, 16) == 0 {
            return Err("no predicate, text has one".into());
        }
        flag = parse_flag(p.trim_start_matches(['+', '-']));
        s = rest[close + 1..].trim_start();
    } else {
        expect("predicate", bits(n, 19, 16), 0)?;
    }
    // `nop` has no execution size.
    let Some(open) = s.find('(') else {
        return Ok(0);
    };
    let mnemonic = &s[..open];
    let is_send = (49..=52).contains(&op);
    let is_math = op == 56;
    let is_flow = (32..=47).contains(&op);
    if !is_send && !is_math && !is_flow && op != 126 {
        let mut parts = mnemonic.split('.').skip(1).peekable();
        let mut sat = 0;
        let mut cond = 0;
        while let Some(p) = parts.next() {
            if p == "sat" {
                sat = 1;
            } else if let Some(&(_, c)) = CONDS.iter().find(|(nm, _)| *nm == p) {
                cond = c;
            } else if p.starts_with('f') {
                let sub = parts.next().unwrap_or("");
                flag = parse_flag(&format!("{p}.{sub}"));
            }
        }
        expect("saturate", bits(n, 31, 31), sat)?;
        expect("condition modifier", bits(n, 27, 24), cond)?;
    }
    if let Some((r, sr)) = flag {
        let (fr, fs) = if g8 {
            (bits(n, 33, 33), bits(n, 32, 32))
        } else {
            (bits(n, 90, 90), bits(n, 89, 89))
        };
        expect("flag register", fr, r)?;
        expect("flag subregister", fs, sr)?;
    }
    // A send's options are on its descriptor line, not this one: nothing to compare.
    if opts.is_empty() {
        return Ok(0);
    }
    let words: Vec<&str> = opts
        .trim_matches(['{', '}', ';', ' '])
        .split([' ', ','])
        .filter(|w| !w.is_empty())
        .collect();
    let has = |w: &str| u64::from(words.contains(&w));
    let align16 = bits(n, 8, 8);
    if words.contains(&"align1") || words.contains(&"align16") {
        expect("access mode", align16, has("align16"))?;
    }
    let three_src = is_3src(op);
    let (mask, ddclr, ddchk, nib) = if g8 {
        (
            bits(n, 34, 34),
            bits(n, 9, 9),
            bits(n, 10, 10),
            bits(n, 11, 11),
        )
    } else {
        (
            bits(n, 9, 9),
            bits(n, 10, 10),
            bits(n, 11, 11),
            bits(n, 47, 47),
        )
    };
    expect("WE_all", mask, has("WE_all"))?;
    expect("NoDDClr", ddclr, has("NoDDClr"))?;
    expect("NoDDChk", ddchk, has("NoDDChk"))?;
    if !is_send && !is_flow {
        expect("AccWrEnable", bits(n, 28, 28), has("AccWrEnable"))?;
    }
    if let Some(q) = words
        .iter()
        .find(|w| w.len() == 2 && w.as_bytes()[0].is_ascii_digit())
    {
        let k = u64::from(q.as_bytes()[0] - b'1');
        let qtr = bits(n, 13, 12);
        match q.as_bytes()[1] {
            b'Q' => expect("quarter", qtr, k)?,
            b'H' => expect("quarter", qtr, 2 * k)?,
            b'N' if !three_src => expect("nibble", qtr * 2 + nib, k)?,
            _ => {}
        }
    }
    if is_send || is_flow {
        return Ok(0);
    }
    let close = open + s[open..].find(')').ok_or("exec size")?;
    let toks: Vec<&str> = s[close + 1..].split_whitespace().collect();
    if align16 == 1 || three_src {
        return check_align16(n, gen, &toks, three_src);
    }
    let ops = operands(gen);
    let mut compared = 0;
    for (i, tok) in toks.iter().take(3).enumerate() {
        if check_operand(n, &ops[i], tok, i == 0)? {
            compared += 1;
        }
    }
    Ok(compared)
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
    /// Table entries the compacted lines use: control, datatype, subreg, src0, src1 (register
    /// src1 only), three-source control, three-source source (bit sets by index).
    entries: [u64; 7],
    /// Operands (register or immediate) compared field by field with the text.
    operands_checked: u64,
    /// Programs whose bytes and lines agree with Mesa's "Compacted A to B bytes".
    programs_sized: u64,
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
    sizes: Option<(i64, i64)>,
    gen: Gen,
    oracle: Oracle,
    counts: &mut Counts,
    fail: &mut impl FnMut(String, String),
) {
    // Mesa's "Compacted A to B bytes": A is 16 bytes per instruction before compaction, B
    // the bytes after it, including the compacted NOP that pads the program to 16 bytes,
    // which the listing does not show. A line the reader missed or misread shows here.
    if let (Some((before, after)), Some(first)) = (sizes, prog.first()) {
        let bytes: i64 = prog.iter().map(|x| x.bytes.len() as i64).sum();
        let lines = prog.len() as i64;
        let padding = bytes % 16;
        if bytes + padding != after || before != 16 * lines {
            fail(
                "program size differs from Mesa's figure".into(),
                format!(
                    "program at line {}: {lines} lines, {bytes} bytes; Mesa: {before} to {after}",
                    first.line
                ),
            );
        } else {
            counts.programs_sized += 1;
        }
    }
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
            let field = |hi: u32, lo: u32| (c >> lo) & ((1 << (hi - lo + 1)) - 1);
            if gen >= Gen::Gen8 && is_3src((c & 0x7f) as u8) {
                counts.entries[5] |= 1 << field(9, 8);
                counts.entries[6] |= 1 << field(11, 10);
            } else {
                counts.entries[0] |= 1 << field(12, 8);
                counts.entries[1] |= 1 << field(17, 13);
                counts.entries[2] |= 1 << field(22, 18);
                counts.entries[3] |= 1 << field(34, 30);
                let src1_imm = if gen >= Gen::Gen8 {
                    bits(n, 90, 89)
                } else {
                    bits(n, 43, 42)
                } == 3
                    || if gen >= Gen::Gen8 {
                        bits(n, 42, 41)
                    } else {
                        bits(n, 38, 37)
                    } == 3;
                if !src1_imm {
                    counts.entries[4] |= 1 << field(39, 35);
                }
            }
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
            match check_detail(n, gen, inst.text) {
                Ok(k) => counts.operands_checked += u64::from(k),
                Err(m) => fail(
                    format!("uncompacted bits vs text, {}", m.split(' ').next().unwrap()),
                    format!("{at}: {m}"),
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
            match check_detail(n, gen, inst.text) {
                Ok(k) => counts.operands_checked += u64::from(k),
                Err(m) => fail(
                    format!("native bits vs text, {}", m.split(' ').next().unwrap()),
                    format!("{at}: {m}"),
                ),
            }
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
    let files = common::files_named(&dir, "asm.txt");
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
        let mut sizes = None;
        let mut offset = 0i64;
        for (no, line) in text.lines().enumerate() {
            if line.starts_with("Native code for") {
                check_program(&prog, sizes, gen, oracle, &mut counts, &mut |k, w| {
                    fail(k, format!("{}: {w}", path.display()))
                });
                prog.clear();
                sizes = None;
                offset = 0;
                continue;
            }
            if let Some(at) = line.find("Compacted ") {
                let mut words = line[at..].split_whitespace().skip(1);
                let before = words.next().and_then(|w| w.parse().ok());
                let after = words.nth(1).and_then(|w| w.parse().ok());
                sizes = before.zip(after);
                continue;
            }
            if let Some((bytes, at)) = encoding(line) {
                let rest = &line[at..];
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
        check_program(&prog, sizes, gen, oracle, &mut counts, &mut |k, w| {
            fail(k, format!("{}: {w}", path.display()))
        });
    }
    eprintln!(
        "{corpus} ({gen}): {} compacted lines, {} round-trip exact; {} native lines ({} rewritten by precompact, still not compactable); {} lines checked against their text ({} operands field by field); {} programs' sizes agree with Mesa's",
        counts.compacted,
        counts.round_trip,
        counts.native,
        counts.precompact_changed,
        counts.text_checked,
        counts.operands_checked,
        counts.programs_sized
    );
    let e = counts.entries.map(|m| m.count_ones());
    eprintln!(
        "    table entries the compacted lines use: control {}/32, datatype {}/32, subreg {}/32, src0 {}/32, src1 {}/32, 3-src control {}/4, 3-src source {}/4",
        e[0], e[1], e[2], e[3], e[4], e[5], e[6]
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

/// What a corpus must show: floors measured on it (so a reader that stops finding lines or
/// headers fails instead of passing on nothing), and a ceiling on the native lines only a
/// known deviation of the corpus's Mesa explains.
struct Expect {
    compacted: u64,
    native: u64,
    programs: u64,
    operands: u64,
    deviations: u64,
}

fn expect(c: Option<Counts>, e: Expect) {
    let Some(c) = c else { return };
    assert!(
        c.compacted >= e.compacted,
        "{} compacted lines, floor {}",
        c.compacted,
        e.compacted
    );
    assert!(
        c.native >= e.native,
        "{} native lines, floor {}",
        c.native,
        e.native
    );
    assert!(
        c.programs_sized >= e.programs,
        "{} programs' sizes checked, floor {}",
        c.programs_sized,
        e.programs
    );
    assert!(
        c.operands_checked >= e.operands,
        "{} operands compared with the text, floor {}",
        c.operands_checked,
        e.operands
    );
    let deviations: u64 = c
        .compactable
        .iter()
        .filter(|(k, _)| k.starts_with("Mesa 25"))
        .map(|(_, n)| n)
        .sum();
    assert!(
        deviations <= e.deviations,
        "{deviations} lines explained by a deviation, at most {}",
        e.deviations
    );
}

const fn floor(compacted: u64, native: u64, programs: u64, operands: u64) -> Expect {
    Expect {
        compacted,
        native,
        programs,
        operands,
        deviations: 0,
    }
}

#[test]
fn shaderdb_skl() {
    let c = walk("shaderdb-skl", Gen::Gen9, Oracle::Mesa22);
    expect(c, floor(162_856, 109_208, 1_648, 718_344));
}

#[test]
fn shaderdb_bdw() {
    let c = walk("shaderdb-bdw", Gen::Gen8, Oracle::Mesa22);
    expect(c, floor(161_936, 104_442, 1_610, 699_070));
}

#[test]
fn shaderdb_hsw() {
    let c = walk("shaderdb-hsw", Gen::Gen75, Oracle::Mesa22);
    expect(c, floor(135_479, 178_533, 1_613, 733_819));
}

#[test]
fn piglit_fp64() {
    let c = walk("piglit-fp64-skl", Gen::Gen9, Oracle::Mesa22);
    expect(c, floor(24_682, 60_668, 2_726, 212_679));
    let c = walk("piglit-fp64-hsw", Gen::Gen75, Oracle::Mesa22);
    expect(c, floor(21_769, 143_923, 2_698, 365_965));
}

#[test]
fn vulkan_fp16() {
    let c = walk("vulkan-fp16-skl", Gen::Gen9, Oracle::Mesa22);
    expect(c, floor(14_468, 14_708, 261, 66_042));
    let c = walk("vulkan-fp16-bdw", Gen::Gen8, Oracle::Mesa22);
    expect(c, floor(14_553, 15_021, 261, 66_838));
}

#[test]
fn shaderdb_skl_mesa25() {
    let c = walk("shaderdb-skl-mesa25", Gen::Gen9, Oracle::Mesa25);
    let deviations = 2_116;
    expect(
        c,
        Expect {
            deviations,
            ..floor(168_475, 126_921, 1_652, 761_245)
        },
    );
}
