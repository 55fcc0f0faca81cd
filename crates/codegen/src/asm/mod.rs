//! Reader of Mesa's final code listings (`asm.txt`: `INTEL_DEBUG` disassembly as
//! `fs_generator::generate_code` / `vec4_generator` print it) into eubatch IR at the
//! hardware level: fixed GRF regions, channel groups from quarter control, Align16
//! instructions flagged, raw sends with their descriptors.
//!
//! A listing holds several programs, each:
//! ```text
//! Native code for unnamed fragment shader GLSL1 (src_hash 0x...) (sha1 ...)
//! SIMD8 shader: 36 instructions. 0 loops. 870 cycles. 0:0 spills:fills, 2 sends, ...
//!    START B0 (870 cycles)
//! 5a 4b 02 20 e0 34 08 02                         pln(8)  g52<1>F  g8<0,1,0>F  g2<8,8,1>F { align1 1Q compacted };
//! 31 00 60 02 48 02 00 21 80 06 00 06 01 00 42 04 send(8) g8<1>UW  g52<0,1,0>UD 0x04420001
//!                             sampler MsgDesc: sample SIMD8 Surface = 1 Sampler = 0 mlen 2 rlen 4 { align1 1Q };
//! LABEL0:
//!    END B0
//! ```
//! Each instruction line starts with its encoding (8 bytes compacted, 16 otherwise); a send
//! continues on a line decoding its descriptor, which names the shared function.
//!
//! What the hardware program lacks and structured IR needs is added as pseudo-instructions
//! that encode nothing: a `do` where each `while` jumps back to (its JIP label), and a
//! `halt_target` where `halt`s jump to (their UIP label). Mesa's `instructions` figure is
//! the encoded instruction count less the NOPs its generator inserted for hardware
//! workarounds (`before_size / 16 - nop_count`); the listing does not tell those NOPs from
//! others, so [`AsmProgram`] keeps both the figure and the encoded count.
//!
//! [`from_bytes`] reads a binary into the same [`AsmProgram`] without text: the text reader
//! parses each operand into its spelling ([`operand::Spelled`]) and each instruction with
//! [`inst`]'s rules, and `build` makes the program; the binary reader gives the same
//! spelling and rules what Mesa's printer would have shown of the decoded fields.

pub mod from_bytes;
pub mod inst;
pub mod operand;

use eubatch_ir::cfg::split_blocks;
use eubatch_ir::error::ParseError;
use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::shader::InstBuilder;
use eubatch_ir::text::cursor::Cursor;
use eubatch_ir::{Backend, Control, Gen, Inst, Opcode, Operand, Shader, Stage};

use inst::{is_send, parse_inst, parse_options, set_send_function, AsmHints, AsmInst};

/// The statistics line of a program, as Mesa printed it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AsmStats {
    pub instructions: u32,
    pub loops: u32,
    pub cycles: u32,
    pub spills: u32,
    pub fills: u32,
    pub sends: u32,
}

/// One program of a listing.
#[derive(Clone, Debug)]
pub struct AsmProgram {
    /// Line of its `Native code for ...` header.
    pub line: u32,
    pub stage: Stage,
    /// The program's name in the header (`GLSL1`, `(null)` for SPIR-V), as in dump names.
    pub program: String,
    /// Compiled by the vec4 back end (`VS vec4 shader:`): SIMD4x2, mostly Align16.
    pub vec4: bool,
    pub stats: AsmStats,
    /// Instructions in the listing (NOPs included, pseudo-instructions not).
    pub encoded: u32,
    /// NOPs in the listing.
    pub nops: u32,
    pub shader: Shader,
    /// Per encoded instruction (listing order, NOPs included), the options the IR lacks.
    pub hints: Vec<AsmHints>,
    /// The blocks Mesa printed (`START Bn (N cycles)`), in listing order.
    pub blocks: Vec<AsmBlock>,
}

/// One `START Bn (N cycles)` ... `END Bn` block of a listing: Mesa's CFG block at code
/// generation, with the static cycle estimate Mesa printed for it. Mesa leaves out the
/// `START` line of some blocks (an `else` block right after its `if` block); such a block
/// runs from the previous block's end to its `END` line, without a figure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmBlock {
    pub num: u32,
    pub cycles: Option<u32>,
    /// Encoded instructions (NOPs included) of the program before the block's first.
    pub first: u32,
    /// Encoded instructions before the block's end.
    pub end: u32,
}

/// Shared function names of the descriptor decode line (brw_disasm.c `gfx6_sfid`) and
/// their numbers (brw_eu_defines.h `BRW_SFID_*`, `GFX6_SFID_*`, `GFX7_SFID_*`, `HSW_SFID_*`).
pub(crate) const SFIDS: [(&str, u8); 13] = [
    ("null", 0),
    ("math", 1),
    ("sampler", 2),
    ("gateway", 3),
    ("dp_sampler", 4),
    ("render", 5),
    ("urb", 6),
    ("thread_spawner", 7),
    ("vme", 8),
    ("const", 9),
    ("data", 10),
    ("pixel interp", 11),
    ("dp data 1", 12),
];

/// A program being read: by the text reader, or from its bytes ([`from_bytes`]).
pub(crate) struct Partial {
    pub(crate) line: u32,
    pub(crate) stage: Stage,
    pub(crate) program: String,
    pub(crate) vec4: bool,
    pub(crate) width: u8,
    pub(crate) stats: Option<AsmStats>,
    pub(crate) insts: Vec<AsmInst>,
    /// Label number → index of the instruction it precedes.
    pub(crate) labels: Vec<(u32, usize)>,
    pub(crate) nops: u32,
    /// A send whose decode line has not come yet.
    pub(crate) pending_send: bool,
    pub(crate) blocks: Vec<AsmBlock>,
}

/// Reads every program of a listing. `name` names the listing in the shaders' names.
pub fn read_asm(text: &str, name: &str, target: Gen) -> Result<Vec<AsmProgram>, ParseError> {
    let mut programs = Vec::new();
    let mut cur: Option<Partial> = None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i as u32 + 1;
        let line = raw.trim_end();
        let err = |col: usize, msg: String| ParseError::new(line_no, col as u32 + 1, msg);
        if let Some(header) = eubatch_ir::import::listing::program_header(line) {
            if let Some(p) = cur.take() {
                programs.push(finish(p, name, programs.len(), target)?);
            }
            let (stage, program) = header.map_err(|m| err(16, m))?;
            cur = Some(Partial {
                line: line_no,
                stage,
                program,
                vec4: false,
                width: 0,
                stats: None,
                insts: Vec::new(),
                labels: Vec::new(),
                nops: 0,
                pending_send: false,
                blocks: Vec::new(),
            });
            continue;
        }
        let Some(p) = cur.as_mut() else {
            if line.trim().is_empty() {
                continue;
            }
            return Err(err(
                0,
                "expected `Native code for ...` before the first program".into(),
            ));
        };
        if p.pending_send {
            // The line right after a send decodes its descriptor.
            p.pending_send = false;
            let last = p.insts.last_mut().unwrap();
            read_send_decode(line, line_no, last)?;
            continue;
        }
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("START B") {
            let block = parse_block_start(rest, p.insts.len() as u32).map_err(|m| err(0, m))?;
            p.blocks.push(block);
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("END B") {
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let num: u32 = rest[..digits]
                .parse()
                .map_err(|_| err(0, format!("bad block end `{trimmed}`")))?;
            let at = p.insts.len() as u32;
            match p.blocks.last_mut() {
                Some(b) if b.num == num && b.end == u32::MAX => b.end = at,
                // A loop head's block holds only its `do`, which has no code: Mesa prints
                // the next block's `START` first and this `END` after that block's first
                // instruction (disasm_annotate's `use_tail`). The block is empty, where
                // the open block starts.
                Some(b) if b.num > num && b.end == u32::MAX => {
                    let first = b.first;
                    let open = p.blocks.len() - 1;
                    p.blocks.insert(
                        open,
                        AsmBlock {
                            num,
                            cycles: None,
                            first,
                            end: first,
                        },
                    );
                }
                last => {
                    let first = last.map_or(0, |b| b.end.min(at));
                    p.blocks.push(AsmBlock {
                        num,
                        cycles: None,
                        first,
                        end: at,
                    });
                }
            }
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        if p.stats.is_none() {
            let (width, vec4, stats) = parse_stats(line).map_err(|m| err(0, m))?;
            p.width = width;
            p.vec4 = vec4;
            p.stats = Some(stats);
            continue;
        }
        if let Some(l) = trimmed
            .strip_prefix("LABEL")
            .and_then(|l| l.strip_suffix(':'))
        {
            let n: u32 = l
                .parse()
                .map_err(|_| err(0, format!("bad label `{trimmed}`")))?;
            p.labels.push((n, p.insts.len()));
            continue;
        }
        let (bytes, disasm_col) = encoding(line).ok_or_else(|| {
            err(
                0,
                "expected an instruction (its encoding bytes, then its disassembly), a label or a block marker".into(),
            )
        })?;
        let imm = (bytes.len() == 16)
            .then(|| u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]));
        let mut c = Cursor::new(line, line_no);
        c.pos = disasm_col;
        let mut inst = parse_inst(&mut c, imm)?;
        if inst.opcode == Opcode::Nop {
            p.nops += 1;
        }
        if inst.control.exec_size == 0 {
            inst.control.exec_size = 1;
        }
        if is_send(inst.opcode) {
            p.pending_send = true;
        } else if !inst.has_options {
            return Err(err(
                line.len(),
                "expected the instruction's `{ ... }` options".into(),
            ));
        }
        p.insts.push(inst);
    }
    if let Some(p) = cur.take() {
        programs.push(finish(p, name, programs.len(), target)?);
    }
    Ok(programs)
}

/// The encoding bytes at the start of an instruction line of a listing (8 when compacted,
/// 16 otherwise, as lowercase hex pairs each followed by a space) and where the disassembly
/// starts; `None` for any other line. The one reader of the hex column: the corpus tests
/// use it too.
pub fn encoding(line: &str) -> Option<(Vec<u8>, usize)> {
    let b = line.as_bytes();
    let mut bytes = Vec::with_capacity(16);
    let mut pos = 0;
    // Byte by byte, not by string slices: the line may hold any UTF-8 after (or instead
    // of) the hex pairs, and a slice through a multi-byte character panics.
    let hex = |x: u8| match x {
        b'0'..=b'9' => Some(x - b'0'),
        b'a'..=b'f' => Some(x - b'a' + 10),
        _ => None,
    };
    while bytes.len() < 16 && pos + 2 <= b.len() {
        let (Some(hi), Some(lo)) = (hex(b[pos]), hex(b[pos + 1])) else {
            break;
        };
        if b.get(pos + 2) != Some(&b' ') {
            break;
        }
        bytes.push(hi << 4 | lo);
        pos += 3;
    }
    if bytes.len() != 8 && bytes.len() != 16 {
        return None;
    }
    while b.get(pos) == Some(&b' ') {
        pos += 1;
    }
    Some((bytes, pos))
}

/// After `START B`: `3 <-B1 <-B2 (120 cycles)`.
fn parse_block_start(rest: &str, first: u32) -> Result<AsmBlock, String> {
    let bad = || format!("bad block header `START B{rest}`");
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let num = rest[..digits].parse().map_err(|_| bad())?;
    let open = rest.rfind('(').ok_or_else(bad)?;
    let cycles = rest[open + 1..]
        .strip_suffix(" cycles)")
        .and_then(|n| n.parse().ok())
        .ok_or_else(bad)?;
    Ok(AsmBlock {
        num,
        cycles: Some(cycles),
        first,
        end: u32::MAX,
    })
}

/// `SIMD8 shader: 22 instructions. 0 loops. 814 cycles. 0:0 spills:fills, 2 sends, ...` or
/// `VS vec4 shader: ...`.
fn parse_stats(line: &str) -> Result<(u8, bool, AsmStats), String> {
    let (head, rest) = line.split_once(" shader: ").ok_or_else(|| {
        format!("expected the statistics line `SIMDn shader: N instructions. ...`, found `{line}`")
    })?;
    let (width, vec4) = if let Some(w) = head.strip_prefix("SIMD") {
        let w = w
            .parse::<u8>()
            .ok()
            .filter(|w| matches!(w, 8 | 16 | 32))
            .ok_or_else(|| format!("bad SIMD width `{head}` (SIMD8, SIMD16 or SIMD32)"))?;
        (w, false)
    } else if head.ends_with(" vec4") {
        (8, true)
    } else {
        return Err(format!("unknown program kind `{head}`"));
    };
    let num = |key: &str| -> Result<u32, String> {
        let i = rest
            .find(key)
            .ok_or_else(|| format!("statistics line without `{key}`"))?;
        let before = rest[..i].trim_end();
        // The digits ending `before` (cut at a character boundary whatever precedes them).
        let start = before
            .trim_end_matches(|ch: char| ch.is_ascii_digit())
            .len();
        before[start..]
            .parse()
            .map_err(|_| format!("no number before `{key}`"))
    };
    let (spills, fills) = {
        let i = rest
            .find(" spills:fills")
            .ok_or("statistics line without spills:fills")?;
        let before = &rest[..i];
        let start = before.rfind(' ').map_or(0, |k| k + 1);
        let (s, f) = before[start..].split_once(':').ok_or("bad spills:fills")?;
        (
            s.parse().map_err(|_| "bad spill count")?,
            f.parse().map_err(|_| "bad fill count")?,
        )
    };
    Ok((
        width,
        vec4,
        AsmStats {
            instructions: num(" instructions")?,
            loops: num(" loops")?,
            cycles: num(" cycles")?,
            spills,
            fills,
            sends: num(" sends")?,
        },
    ))
}

/// The line after a send: `sampler MsgDesc: sample SIMD8 Surface = 1 ... mlen 2 rlen 4
/// { align1 1Q };`: the shared function and the instruction's options.
fn read_send_decode(line: &str, line_no: u32, inst: &mut AsmInst) -> Result<(), ParseError> {
    let trimmed = line.trim_start();
    let col = line.len() - trimmed.len();
    let err = |msg: String| ParseError::new(line_no, col as u32 + 1, msg);
    let (sfid_name, _) = trimmed.split_once(" MsgDesc:").ok_or_else(|| {
        err("expected the send's descriptor line `<function> MsgDesc: ...`".into())
    })?;
    let sfid = SFIDS
        .iter()
        .find(|(n, _)| *n == sfid_name)
        .map(|(_, s)| *s)
        .ok_or_else(|| err(format!("unknown shared function `{sfid_name}`")))?;
    let brace = line
        .find('{')
        .ok_or_else(|| err("expected the send's `{ ... }` options".into()))?;
    let mut c = Cursor::new(line, line_no);
    c.pos = brace;
    parse_options(&mut c, inst)?;
    set_send_function(inst, sfid);
    Ok(())
}

/// The program a listing's text has given, once complete.
fn finish(p: Partial, name: &str, index: usize, target: Gen) -> Result<AsmProgram, ParseError> {
    if p.pending_send {
        return Err(ParseError::new(
            p.line,
            1,
            "the program ends after a send, without the send's descriptor line",
        ));
    }
    if p.stats.is_none() {
        return Err(ParseError::new(
            p.line + 1,
            1,
            "program without its statistics line",
        ));
    }
    let line = p.line;
    build(p, name, index, target).map_err(|m| ParseError::new(line, 1, m))
}

/// Builds the shader of a program, the IR-building half both readers share:
/// pseudo-instructions for loop heads and halt targets, columns, and the block layout.
/// Errors: jumps to labels the program lacks, halts to different targets.
pub(crate) fn build(
    p: Partial,
    name: &str,
    index: usize,
    target: Gen,
) -> Result<AsmProgram, String> {
    let stats = p.stats.clone().unwrap_or_default();
    let label_at = |n: u32| -> Result<usize, String> {
        p.labels
            .iter()
            .find(|(l, _)| *l == n)
            .map(|(_, at)| *at)
            .ok_or_else(|| format!("jump to LABEL{n}, which the program does not define"))
    };
    // Pseudo-instructions to insert before instruction index `at`: (at, order key, inst).
    let mut inserts: Vec<(usize, usize, AsmInst)> = Vec::new();
    let mut halt_target: Option<usize> = None;
    for (i, inst) in p.insts.iter().enumerate() {
        let pseudo = |op: Opcode| AsmInst {
            opcode: op,
            control: Control {
                predicate: eubatch_ir::shader::Predicate::None,
                flags: inst.control.flags & Control::NO_MASK,
                cmod: eubatch_ir::shader::CondMod::None,
                ..inst.control
            },
            dst: Operand::bad(eubatch_ir::Type::UD),
            srcs: Vec::new(),
            send: None,
            jip: None,
            uip: None,
            has_options: true,
            hints: AsmHints::default(),
        };
        match inst.opcode.control_flow() {
            ControlFlow::While => {
                let jip = inst
                    .jip
                    .ok_or_else(|| format!("while (instruction {i}) without a JIP"))?;
                // The outer loop (the later `while`) opens first.
                inserts.push((label_at(jip)?, usize::MAX - i, pseudo(Opcode::Do)));
            }
            ControlFlow::Halt => {
                if let Some(uip) = inst.uip {
                    let at = label_at(uip)?;
                    if halt_target.is_some_and(|h| h != at) {
                        return Err("halts jump to different targets".into());
                    }
                    if halt_target.is_none() {
                        halt_target = Some(at);
                        inserts.push((at, 0, pseudo(Opcode::HaltTarget)));
                    }
                }
            }
            _ => {}
        }
    }
    inserts.sort_by_key(|(at, key, _)| (*at, *key));
    let mut shader = Shader::new(
        format!("{name}#{index}"),
        p.stage,
        Backend::Scalar,
        p.width,
        target,
    );
    let mut order: Vec<Inst> = Vec::with_capacity(p.insts.len() + inserts.len());
    let mut next = inserts.into_iter().peekable();
    let add = |shader: &mut Shader, inst: &AsmInst| {
        let id = shader.create_inst(InstBuilder {
            opcode: inst.opcode,
            control: inst.control,
            dst: inst.dst,
            srcs: &inst.srcs,
            size_written: 0,
            send: inst.send,
        });
        let sw = if is_send(inst.opcode) {
            // Response length in registers (descriptor bits 24:20).
            inst.send
                .map_or(0, |s| ((s.desc >> 20) & 0x1f) * shader.reg_size())
        } else {
            shader.default_size_written(id)
        };
        shader.insts.size_written[id] = sw;
        id
    };
    for (i, inst) in p.insts.iter().enumerate() {
        while next.peek().is_some_and(|(at, _, _)| *at == i) {
            let (_, _, pseudo) = next.next().unwrap();
            order.push(add(&mut shader, &pseudo));
        }
        order.push(add(&mut shader, inst));
    }
    for (_, _, pseudo) in next {
        order.push(add(&mut shader, &pseudo));
    }
    shader.layout = split_blocks(&order, |i| shader.insts.opcode[i]);
    Ok(AsmProgram {
        line: p.line,
        stage: p.stage,
        program: p.program,
        vec4: p.vec4,
        stats,
        encoded: p.insts.len() as u32,
        nops: p.nops,
        shader,
        hints: p.insts.iter().map(|i| i.hints).collect(),
        blocks: p
            .blocks
            .into_iter()
            .map(|b| AsmBlock {
                end: b.end.min(p.insts.len() as u32),
                ..b
            })
            .collect(),
    })
}
