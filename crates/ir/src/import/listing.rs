//! What the importer needs from Mesa's final-code listings (`asm.txt` beside the dumps):
//! the program headers, and the URB offsets that Mesa's IR printers leave out.
//!
//! Mesa keeps a URB message's global offset in `fs_inst::offset` (brw_fs_visitor.cpp
//! `emit_urb_writes`, brw_fs_nir.cpp's URB input loads); neither `dump_instruction` (Mesa
//! 22.3) nor brw_print.cpp (Mesa 25) prints it, and it cannot be worked out from the IR:
//! it follows the VUE map, which skips the header slot when no special varying is written
//! and leaves gaps where a slot is never written (27 of the 507 Skylake vertex shaders of
//! shader-db have such gaps). The program's final code has it, in the decode line of each
//! URB `send` (`urb MsgDesc: offset 1 SIMD8 write mlen 1 ex_mlen 8 rlen 0`). Mesa's back
//! end neither removes nor adds URB messages between its first dump and its final code,
//! and its scheduler keeps writes in order (they have side effects), so the k-th logical
//! URB message of the start dump is taken as the k-th URB send of the program's listing.
//! Reads have no side effects, and Mesa 22.3's scheduler does exchange them between two
//! writes (three TES of piglit-coverage-skl: tcs-tes-max-in-out-components,
//! tcs-output-array-*-index-wr), which the checks below do not see (all reads, no
//! per-slot offsets): where the scalar program reads the URB, the importer first pairs
//! the sends by data flow between the variant's pre-allocation dump (program order) and
//! the final code ([`crate::import::dataflow_match`]), and a read several sends may be
//! takes one of their offsets with [`crate::Shader::unproven`] set, so that the
//! cross-check does not compare it. Only without that pairing is the k-th taken as the
//! k-th (where an exchange would give a payload field instead
//! ([`crate::import::payload_scalars::recover_icp_handles`]) nothing is taken). Mesa 25's
//! pre-RA scheduler moves URB reads too (7 TES of piglit-coverage-skl-mesa25 reading
//! inputs through per-slot offsets, and two whose reads are all alike): there the
//! variant's pre-allocation dump, written before scheduling and printing each send's
//! descriptor, gives the program's order ([`urb_in_program_order`]), taken first where
//! the program reads the URB. [`recover_urb_offsets`] checks that the sequences agree —
//! same count, reads against reads, writes against writes, per-slot offsets where the
//! logical message has them — before it takes any offset.

use crate::opcode::Opcode;
use crate::shader::{Shader, Stage};

/// The first line of a program in a listing: `Native code for unnamed vertex shader
/// GLSL1 (sha1 ...)`. `None` for any other line; an error for a header whose stage is
/// not one of Mesa's (`_mesa_shader_stage_to_string`).
pub fn program_header(line: &str) -> Option<Result<(Stage, String), String>> {
    program_header_str(line).map(|h| h.map(|(stage, program)| (stage, program.to_string())))
}

/// [`program_header`] without the copy of the program's name: the reader of a listing
/// copies only the names of the programs it keeps.
fn program_header_str(line: &str) -> Option<Result<(Stage, &str), String>> {
    let rest = line.strip_prefix("Native code for ")?;
    let words = rest.strip_prefix("unnamed ").unwrap_or(rest);
    let found = Stage::ALL.iter().find_map(|s| {
        let after = words
            .strip_prefix(s.mesa_name())?
            .strip_prefix(" shader ")?;
        Some((*s, after))
    });
    Some(match found {
        // `GLSL1 (src_hash ...) (sha1 ...)`, `(null) (sha1 ...)`.
        Some((stage, after)) => Ok((
            stage,
            match after.find(" (s") {
                Some(i) => &after[..i],
                None => after.trim_end(),
            },
        )),
        None => Err(format!("unknown shader stage in `{rest}`")),
    })
}

/// One URB message of a listing, from its descriptor decode line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UrbMessage {
    pub read: bool,
    /// Global offset, in 128-bit units.
    pub offset: u16,
    /// The payload carries per-slot offsets.
    pub per_slot: bool,
    /// The send's message descriptor (`None` where the send line before the decode does
    /// not show it as an immediate).
    pub desc: Option<u32>,
    /// For a read of a tessellation control or geometry program: the payload register
    /// and dword its URB handles were broadcast from (`mov(8) gX<1>UD gN.k<0,1,0>UD`, the
    /// last write to the send's payload register in its block), which Mesa 22.3's dumps
    /// print without the dword (`broadcast_handle`). `None` where the listing does not
    /// show one plainly.
    pub handle: Option<(u32, u32)>,
    /// Line of the decode in the listing.
    pub line: u32,
}

/// What a sampler send's header holds in dword 2, as far as the listing shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderDword2 {
    /// The message has no header (descriptor bit 19 clear).
    NoHeader,
    /// The header's dword 2: the immediate moved there after the header was copied from
    /// g0, or g0's own (0 in the vertex and fragment stages, where Mesa writes none:
    /// [`crate::message::sampler::g0_dword2_is_zero`]) — also where g0 itself is the
    /// header.
    Value(u32),
    /// Something this reader does not follow built the header.
    Unknown,
}

/// One sampler message of a listing: from its `send` line and descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerMessage {
    /// Message type (descriptor bits 16:12); `None` for a descriptor in a register.
    pub msg_type: Option<u32>,
    /// The send's execution size.
    pub exec: u8,
    /// Binding table entry (descriptor bits 7:0); `None` for a descriptor in a register.
    pub surface: Option<u32>,
    /// Sampler index (descriptor bits 11:8); `None` for a descriptor in a register.
    pub sampler: Option<u32>,
    pub header: HeaderDword2,
    /// Line of the decode in the listing.
    pub line: u32,
}

/// A program of a listing and its URB and sampler messages, in order.
#[derive(Clone, Debug)]
pub struct ListedProgram {
    pub stage: Stage,
    pub program: String,
    /// Dispatch width (`SIMD8 shader:`); `None` for vec4 programs.
    pub width: Option<u8>,
    pub urb: Vec<UrbMessage>,
    pub sampler: Vec<SamplerMessage>,
    /// The 64-bit immediates of its instructions (`0x3fb3b13b13b13b14F`), exact where the
    /// IR printers round (Mesa 22.3 prints a DF immediate with six decimals).
    pub wide_immediates: Vec<u64>,
    /// Its 32-bit float immediates (`0xbfb504f3F`), gathered with the 64-bit ones: exact
    /// where the vec4 IR printer rounds (`"%fF"`, six decimals).
    pub float_immediates: Vec<u32>,
    /// The descriptors (the EOT bit, bit 31 of the printed immediate, cleared) of its
    /// thread-ending sends to the thread spawner (`thread_spawner MsgDesc: ... EOT`): a
    /// compute thread's end.
    pub thread_ends: Vec<u32>,
}

/// A 64-bit immediate operand of the disassembly: `0x` and 16 hex digits, then the type.
fn wide_immediate(operand: &str) -> Option<u64> {
    // The type letters may be hex digits too (`...14F`, `...00DF`).
    let hex = operand.strip_prefix("0x")?;
    let (value, ty) = (hex.get(..16)?, &hex[16..]);
    if !matches!(ty, "F" | "DF" | "Q" | "UQ") {
        return None;
    }
    u64::from_str_radix(value, 16).ok()
}

/// A 32-bit float immediate operand of the disassembly: `0x`, 8 hex digits and `F`.
fn float_immediate(operand: &str) -> Option<u32> {
    let hex = operand.strip_prefix("0x")?.strip_suffix('F')?;
    if hex.len() != 8 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(hex, 16).ok()
}

/// An instruction of a listing: its mnemonic and operands.
type Disassembly<'a> = (&'a str, Vec<&'a str>);

/// Whether `b` separates words: ASCII whitespace as `char::is_whitespace` has it (which,
/// unlike `u8::is_ascii_whitespace`, includes the vertical tab).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t'..=b'\r')
}

/// The words of an ASCII line, as `split_whitespace` gives them, without decoding
/// characters (listing lines are long and most of them are read).
struct AsciiWords<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Iterator for AsciiWords<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let b = self.s.as_bytes();
        while self.pos < b.len() && is_space(b[self.pos]) {
            self.pos += 1;
        }
        if self.pos == b.len() {
            return None;
        }
        let start = self.pos;
        while self.pos < b.len() && !is_space(b[self.pos]) {
            self.pos += 1;
        }
        // ASCII only: every byte index is a character boundary.
        self.s.get(start..self.pos)
    }
}

/// An instruction line of a listing without its encoding bytes: the mnemonic (with any
/// predicate before it skipped) and the operands up to the instruction options.
fn disassembly(line: &str) -> Option<Disassembly<'_>> {
    // A line with other characters keeps the Unicode rules of whitespace.
    if line.is_ascii() {
        disassembly_of(AsciiWords { s: line, pos: 0 })
    } else {
        disassembly_of(line.split_whitespace())
    }
}

/// Skips a listing line's encoding bytes (two hex digits each): whether there were those of
/// one instruction, 8 (compacted) or 16.
pub(crate) fn skip_encoding<'a>(
    words: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>,
) -> bool {
    let mut bytes = 0;
    while words
        .peek()
        .is_some_and(|w| w.len() == 2 && w.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        words.next();
        bytes += 1;
    }
    bytes == 8 || bytes == 16
}

/// [`disassembly`] of the line's words.
fn disassembly_of<'a>(words: impl Iterator<Item = &'a str>) -> Option<Disassembly<'a>> {
    let mut words = words.peekable();
    if !skip_encoding(&mut words) {
        return None;
    }
    let mut mnemonic = words.next()?;
    if mnemonic.starts_with('(') {
        mnemonic = words.next()?;
    }
    let operands = words.take_while(|w| !w.starts_with('{')).collect();
    Some((mnemonic, operands))
}

/// Whether `line` may hold a 64-bit immediate ([`wide_immediate`]): `0x` and 16 hex
/// digits somewhere. Most lines have none, and are then not taken apart at all.
fn may_hold_wide_immediate(line: &str) -> bool {
    let b = line.as_bytes();
    (1..b.len()).any(|i| {
        b[i] == b'x'
            && b[i - 1] == b'0'
            && b.get(i + 1..i + 17).is_some_and(|h| {
                // `from_str_radix` takes a leading `+` too.
                (h[0] == b'+' || h[0].is_ascii_hexdigit())
                    && h[1..].iter().all(u8::is_ascii_hexdigit)
            })
    })
}

/// `g12.2<1>UD` -> (12, Some(2)); `g3UD` -> (3, None).
fn grf(operand: &str) -> Option<(u32, Option<u32>)> {
    let rest = operand.strip_prefix('g')?;
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let nr = rest[..end].parse().ok()?;
    let sub = rest[end..].strip_prefix('.').and_then(|r| {
        r[..r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len())]
            .parse()
            .ok()
    });
    Some((nr, sub))
}

/// Dword 2 of the header in GRF `reg`, from the lines of the block before the send
/// (`before`, in order). Mesa builds a sampler header as a copy of g0 and then moves the
/// header bits into dword 2 (and the sampler state pointer into dword 3):
/// brw_lower_logical_sends.cpp `lower_sampler_logical_send`. The first write to `reg` met
/// going back is one of those, or the header is something this reader does not follow.
/// Lines are taken apart only here, going back from the send, and only as far as needed.
/// `None` where no line of the block writes `reg`.
fn header_dword2(before: &[&str], reg: u32) -> Option<HeaderDword2> {
    for line in before.iter().rev() {
        let Some((mnemonic, ops)) = disassembly(line) else {
            continue;
        };
        let Some((nr, sub)) = ops.first().and_then(|d| grf(d)) else {
            continue;
        };
        if nr != reg {
            continue;
        }
        return Some(match sub {
            Some(2) if mnemonic == "mov(1)" => ops
                .get(1)
                .and_then(|v| v.strip_prefix("0x")?.strip_suffix("UD"))
                .and_then(|v| u32::from_str_radix(v, 16).ok())
                .map_or(HeaderDword2::Unknown, HeaderDword2::Value),
            Some(3) => continue,
            None if ops.get(1).is_some_and(|s| s.starts_with("g0<")) => HeaderDword2::Value(0),
            _ => HeaderDword2::Unknown,
        });
    }
    None
}

/// The `send` on `line` (the line before a sampler decode): its execution size, its
/// operands and whether it is a split send. An error where the line is not a send.
fn send_of(line: &str) -> Result<(u8, Vec<&str>, bool), String> {
    let (mnemonic, ops) = disassembly(line)
        .ok_or_else(|| format!("expected a send before the decode, found `{line}`"))?;
    let exec = mnemonic
        .split_once('(')
        .and_then(|(m, r)| {
            m.starts_with("send")
                .then_some(r)?
                .strip_suffix(')')?
                .parse()
                .ok()
        })
        .ok_or_else(|| format!("expected `send(N)` or `sends(N)`, found `{mnemonic}`"))?;
    Ok((exec, ops, mnemonic.starts_with("sends")))
}

/// The sampler message of the `send` on `line` (the line before its decode), in a program
/// of `stage`.
fn sampler_message(
    line: &str,
    before: &[&str],
    ln: u32,
    stage: Stage,
) -> Result<SamplerMessage, String> {
    let (exec, ops, split) = send_of(line)?;
    let desc = descriptor(&ops, split);
    let header = match desc {
        Some(d) if !crate::message::header_present(d) => HeaderDword2::NoHeader,
        _ => match ops.get(1).and_then(|p| grf(p)) {
            Some((reg, None)) => match header_dword2(before, reg) {
                Some(h) => h,
                // g0 itself as the header, unwritten in the block: Mesa copied g0 and
                // wrote no dword 2 (the bits were 0 in a stage whose g0.2 is 0), and copy
                // propagation sent g0. g0 is the thread payload, live from the start up
                // to this send, so nothing before it wrote it. In another stage Mesa
                // writes dword 2 whatever the bits, so g0 cannot be such a header there.
                None if reg == 0 && crate::message::sampler::g0_dword2_is_zero(stage) => {
                    HeaderDword2::Value(0)
                }
                None => HeaderDword2::Unknown,
            },
            _ => HeaderDword2::Unknown,
        },
    };
    let decoded = desc.map(crate::message::sampler::Desc::decode);
    Ok(SamplerMessage {
        msg_type: decoded.map(|d| d.msg_type),
        exec,
        surface: decoded.map(|d| d.surface),
        sampler: decoded.map(|d| d.sampler),
        header,
        line: ln,
    })
}

/// The message descriptor among a send's operands, where it is an immediate: `send` has
/// destination, payload, descriptor; `sends` destination, two payloads, descriptor and
/// extended descriptor.
fn descriptor(ops: &[&str], split: bool) -> Option<u32> {
    ops.get(if split { 3 } else { 2 })
        .and_then(|d| d.strip_prefix("0x"))
        .and_then(|d| u32::from_str_radix(d, 16).ok())
}

/// The size in bytes of a disassembled operand's type (`UD`, `HF`, ...).
fn type_size(ty: &str) -> Option<u32> {
    Some(match ty {
        "UB" | "B" => 1,
        "UW" | "W" | "HF" => 2,
        "UD" | "D" | "F" => 4,
        "UQ" | "Q" | "DF" => 8,
        _ => return None,
    })
}

/// The bytes of the GRF file an instruction of a listing writes, from its mnemonic and
/// operands: a send's destination and response length (`None` for a descriptor in a
/// register), another instruction's destination region (`gR.s<h>T`, its execution size
/// of elements `h` apart). `None` where the listing does not show the extent, and
/// `Some(None)` where the instruction writes no GRF (a null, flag or address destination,
/// a jump's `JIP:`).
fn grf_written(mnemonic: &str, ops: &[&str]) -> Option<Option<std::ops::Range<u32>>> {
    let Some(dst) = ops.first() else {
        return Some(None);
    };
    let Some((nr, sub)) = grf(dst) else {
        return Some(None);
    };
    let (name, exec) = mnemonic.split_once('(')?;
    let exec: u32 = exec.strip_suffix(')')?.parse().ok()?;
    let start = nr.checked_mul(32)?;
    if name.starts_with("send") {
        let desc = descriptor(ops, name.starts_with("sends"))?;
        let len = crate::message::rlen(desc) * 32;
        return Some(Some(start..start.checked_add(len)?));
    }
    let (_, region) = dst.split_once('<')?;
    let (stride, ty) = region.split_once('>')?;
    let stride: u32 = stride.parse().ok()?;
    let size = type_size(ty)?;
    let first = start.checked_add(sub.unwrap_or(0).checked_mul(size)?)?;
    let span = exec.checked_sub(1)?.checked_mul(stride)?.checked_add(1)?;
    Some(Some(first..first.checked_add(span.checked_mul(size)?)?))
}

/// Whether an instruction line of a listing is predicated (`(+f0.0) mov(8) ...`): the
/// first word after the encoding bytes is the predicate.
fn predicated(line: &str) -> bool {
    line.split_whitespace()
        .find(|w| !(w.len() == 2 && w.bytes().all(|b| b.is_ascii_hexdigit())))
        .is_some_and(|w| w.starts_with('('))
}

/// The payload register and dword a URB read's handles were broadcast from: the `send`
/// on `send` reads its handles from the first register of its payload, gX, and the last
/// instruction of the block before it (`before`, in order) that writes any byte of gX is
/// `mov(8) gX<1>UD gN.k<0,1,0>UD`, unpredicated and without modifiers: (N, k). Mesa emits
/// that copy for an input vertex read by constant index (brw_fs_nir.cpp
/// `get_tcs_single_patch_icp_handle`, `emit_gs_input_load`: "Emit a MOV to resolve
/// <0,1,0> regioning"), and the scheduler keeps it before the send in the same block.
/// `None` for anything else, and where an instruction in between may write gX without
/// the listing showing how much it writes: the dword is then not known.
fn broadcast_handle(send: &str, before: &[&str]) -> Option<(u32, u32)> {
    let (_, ops, _) = send_of(send).ok()?;
    let (x, sub) = grf(ops.get(1)?)?;
    if sub.unwrap_or(0) != 0 {
        return None;
    }
    let reg = x.checked_mul(32)?..x.checked_add(1)?.checked_mul(32)?;
    for line in before.iter().rev() {
        let Some((mnemonic, ops)) = disassembly(line) else {
            continue;
        };
        match grf_written(mnemonic, &ops) {
            Some(None) => continue,
            Some(Some(w)) if w.end <= reg.start || w.start >= reg.end => continue,
            // Writes gX, or may: this is the instruction that decides.
            _ => {}
        }
        if mnemonic != "mov(8)" || predicated(line) || ops.len() != 2 {
            return None;
        }
        if ops[0] != format!("g{x}<1>UD") {
            return None;
        }
        let src = ops[1].strip_suffix("<0,1,0>UD")?;
        let (n, k) = grf(src)?;
        // The whole operand is `gN` or `gN.k`: nothing else before the region.
        let k = k.unwrap_or(0);
        let plain = if src.contains('.') {
            format!("g{n}.{k}")
        } else {
            format!("g{n}")
        };
        return (src == plain && k < 8).then_some((n, k));
    }
    None
}

/// The URB message of a decode line (`decode`: what follows `urb MsgDesc: `, on line `ln`).
fn urb_message(decode: &str, ln: u32) -> Result<UrbMessage, (u32, String)> {
    // `offset 1 SIMD8 write per-slot mlen 2 ex_mlen 8 rlen 0 { align1 1Q };`
    let mut words = decode.split_whitespace();
    let bad = || {
        (
            ln,
            format!("expected `offset N [SIMD8] read|write ...`, found `{decode}`"),
        )
    };
    if words.next() != Some("offset") {
        return Err(bad());
    }
    let offset: u16 = words.next().and_then(|w| w.parse().ok()).ok_or_else(bad)?;
    // Gen8+: `SIMD8 write per-slot ...`; gen7 (vec4 programs): `write HWord interleave
    // complete ...` (brw_disasm.c `urb_opcode`, `urb_swizzle`, `urb_complete`).
    let words: Vec<&str> = words.take_while(|w| *w != "mlen").collect();
    let read = match (words.contains(&"read"), words.contains(&"write")) {
        (true, false) => true,
        (false, true) => false,
        _ => return Err(bad()),
    };
    let per_slot = words.contains(&"per-slot");
    Ok(UrbMessage {
        read,
        offset,
        per_slot,
        desc: None,
        handle: None,
        line: ln,
    })
}

/// A line without its indentation. ASCII spaces are skipped byte by byte; a line indented
/// with other whitespace keeps `trim_start`'s Unicode rules.
fn trim_indent(line: &str) -> &str {
    let skip = line.bytes().take_while(|&b| is_space(b)).count();
    let rest = &line[skip..];
    if rest.as_bytes().first().is_some_and(|b| !b.is_ascii()) {
        rest.trim_start()
    } else {
        rest
    }
}

/// Which programs of a listing its reader keeps, and what it gathers from them.
#[derive(Clone, Copy, Debug)]
pub struct ListingFilter<'a> {
    /// Only the programs of this stage and name (all their widths); `None`: all of them.
    /// The others are still checked, so that a listing is an error or not whatever the
    /// filter, but they are not taken apart.
    pub program: Option<(Stage, &'a str)>,
    /// Whether to gather [`ListedProgram::wide_immediates`] (left empty otherwise): finding
    /// them means looking at every instruction line.
    pub wide_immediates: bool,
}

impl ListingFilter<'_> {
    /// Everything of every program.
    pub const ALL: ListingFilter<'static> = ListingFilter {
        program: None,
        wide_immediates: true,
    };

    fn keeps(&self, stage: Stage, program: &str) -> bool {
        self.program.is_none_or(|(s, p)| s == stage && p == program)
    }
}

/// The programs of a listing with their URB and sampler messages. Lines this reader has
/// no use for are passed over: the full reader is `eubatch_codegen::asm`.
pub fn listed_programs(text: &str) -> Result<Vec<ListedProgram>, (u32, String)> {
    listed_programs_filtered(text, ListingFilter::ALL)
}

/// [`listed_programs`], keeping only what `filter` asks for. Errors are the same whatever
/// the filter: the first line of the listing this reader cannot follow.
pub fn listed_programs_filtered(
    text: &str,
    filter: ListingFilter<'_>,
) -> Result<Vec<ListedProgram>, (u32, String)> {
    let mut out: Vec<ListedProgram> = Vec::new();
    // Inside a program (after the first header), and whether it is kept (the last of `out`).
    let mut in_program = false;
    let mut kept = false;
    let mut stats_next = false;
    // The lines of the current block, for the sends before sampler decodes and the headers
    // of sampler messages; taken apart only when a decode asks.
    let mut block: Vec<&str> = Vec::new();
    let mut lines = crate::text::lines::lines(text);
    let mut ln = 0;
    while let Some(line) = lines.next() {
        ln += 1;
        // Lines are told apart by their first letter before any longer comparison.
        let header = match line.as_bytes().first() {
            Some(b'N') => program_header_str(line),
            _ => None,
        };
        if let Some(h) = header {
            let (stage, program) = h.map_err(|m| (ln, m))?;
            in_program = true;
            kept = filter.keeps(stage, program);
            if kept {
                out.push(ListedProgram {
                    stage,
                    program: program.to_string(),
                    width: None,
                    urb: Vec::new(),
                    sampler: Vec::new(),
                    wide_immediates: Vec::new(),
                    float_immediates: Vec::new(),
                    thread_ends: Vec::new(),
                });
            }
            stats_next = true;
            block.clear();
            if !kept {
                // Up to the next header, only what could be refused is looked at.
                let rest = lines.remainder();
                let (len, count) = check_unkept_program(rest, ln)?;
                lines = crate::text::lines::lines(&rest[len..]);
                ln += count;
                // The statistics line, if there was one, is among the lines passed over.
                stats_next = count == 0;
            }
            continue;
        }
        if !in_program {
            continue;
        }
        let p = if kept { out.last_mut() } else { None };
        if stats_next {
            stats_next = false;
            if let Some(p) = p {
                p.width = line
                    .strip_prefix("SIMD")
                    .and_then(|r| r.split_once(" shader:"))
                    .and_then(|(w, _)| w.parse().ok());
            }
            continue;
        }
        // Instruction lines, most of a listing, start at column 0: only others are trimmed.
        let indented = line
            .as_bytes()
            .first()
            .is_some_and(|&b| is_space(b) || !b.is_ascii());
        let trimmed = if indented { trim_indent(line) } else { line };
        let first = trimmed.as_bytes().first().copied();
        let special = matches!(first, Some(b'S' | b'E' | b's' | b'u' | b't'));
        if special && (trimmed.starts_with("START B") || trimmed.starts_with("END B")) {
            block.clear();
            continue;
        }
        if special && trimmed.starts_with("sampler MsgDesc: ") {
            let (send, before) = block
                .split_last()
                .ok_or_else(|| (ln, "a sampler decode without its send".to_string()))?;
            match p {
                Some(p) => {
                    let m = sampler_message(send, before, ln, p.stage).map_err(|e| (ln - 1, e))?;
                    p.sampler.push(m);
                }
                None => {
                    send_of(send).map_err(|e| (ln - 1, e))?;
                }
            }
            continue;
        }
        if special && trimmed.starts_with("thread_spawner MsgDesc: ") {
            if let (Some(p), Some(send)) = (p, block.last()) {
                let (_, ops, split) = send_of(send).map_err(|e| (ln - 1, e))?;
                let desc = ops
                    .get(if split { 3 } else { 2 })
                    .and_then(|d| d.strip_prefix("0x"))
                    .and_then(|d| u32::from_str_radix(d, 16).ok());
                if let (Some(d), true) = (desc, trimmed.contains(" EOT")) {
                    p.thread_ends.push(d & !(1 << 31));
                }
            }
            continue;
        }
        let decode = if special {
            trimmed.strip_prefix("urb MsgDesc: ")
        } else {
            None
        };
        let Some(decode) = decode else {
            if let Some(p) = p {
                if filter.wide_immediates && may_hold_wide_immediate(line) {
                    if let Some((_, ops)) = disassembly(line) {
                        p.wide_immediates
                            .extend(ops.iter().filter_map(|o| wide_immediate(o)));
                    }
                }
                if filter.wide_immediates && line.contains("0x") {
                    if let Some((_, ops)) = disassembly(line) {
                        p.float_immediates
                            .extend(ops.iter().filter_map(|o| float_immediate(o)));
                    }
                }
            }
            block.push(line);
            continue;
        };
        let mut m = urb_message(decode, ln)?;
        if let Some(p) = p {
            m.desc = block
                .last()
                .and_then(|send| send_of(send).ok())
                .and_then(|(_, ops, split)| descriptor(&ops, split));
            // Only these stages read URB handles from payload dwords (input vertices);
            // the others' reads are not followed back through their blocks.
            if m.read && matches!(p.stage, Stage::Tcs | Stage::Gs) {
                m.handle = block
                    .split_last()
                    .and_then(|(send, before)| broadcast_handle(send, before));
            }
            p.urb.push(m);
        }
    }
    Ok(out)
}

/// The lines of the program of `stage`, `program` and dispatch width `width` (`None`: a
/// vec4 program, without one) in a listing, after its statistics line, up to the next
/// program's header: `None` where the listing does not have it, or has it twice.
pub fn program_lines<'a>(
    text: &'a str,
    stage: Stage,
    program: &str,
    width: Option<u8>,
) -> Option<Vec<&'a str>> {
    let mut found: Option<Vec<&'a str>> = None;
    let mut current: Option<Vec<&'a str>> = None;
    let mut lines = crate::text::lines::lines(text).peekable();
    while let Some(line) = lines.next() {
        if let Some(h) = program_header_str(line) {
            if let Some(done) = current.take() {
                if found.replace(done).is_some() {
                    return None;
                }
            }
            let Ok((s, p)) = h else { continue };
            let w = lines
                .peek()
                .and_then(|l| l.strip_prefix("SIMD"))
                .and_then(|r| r.split_once(" shader:"))
                .and_then(|(w, _)| w.parse::<u8>().ok());
            if s == stage && p == program && w == width {
                if width.is_some() {
                    lines.next();
                }
                current = Some(Vec::new());
            }
            continue;
        }
        if let Some(c) = current.as_mut() {
            c.push(line);
        }
    }
    if let Some(done) = current {
        if found.replace(done).is_some() {
            return None;
        }
    }
    found
}

/// The lines of a program the filter does not keep, checked as [`listed_programs_filtered`]
/// checks them, without taking apart any other. `rest` is the text after the program's
/// header (on line `header_ln`), up to the next header or the end of the listing:
/// returned are that part's length in bytes and its number of lines. What the reader
/// can refuse in a program are its decode lines, found by a vector search for `MsgDesc: `
/// (the statistics line after the header is never one), and the sends before sampler
/// decodes, found by going back from the decode over the lines the reader does not keep
/// in a block. Errors come in line order, with the lines the reader names.
fn check_unkept_program(rest: &str, header_ln: u32) -> Result<(usize, u32), (u32, String)> {
    let end = if rest.starts_with("Native code for ") {
        0
    } else {
        memchr::memmem::find(rest.as_bytes(), b"\nNative code for ").map_or(rest.len(), |i| i + 1)
    };
    let region = &rest[..end];
    let bytes = region.as_bytes();
    let body = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |i| i + 1);
    // The line number of the line starting at byte `at` (only ever counted for an error).
    let line_at =
        |at: usize| header_ln + 1 + memchr::memchr_iter(b'\n', &bytes[..at]).count() as u32;
    let mut next_line = body;
    for hit in memchr::memmem::find_iter(bytes, b"MsgDesc: ") {
        if hit < next_line {
            continue;
        }
        let start = memchr::memrchr(b'\n', &bytes[..hit]).map_or(0, |i| i + 1);
        let stop = memchr::memchr(b'\n', &bytes[hit..]).map_or(bytes.len(), |i| hit + i);
        next_line = stop + 1;
        let trimmed = trim_indent(line_text(region, start, stop));
        if trimmed.starts_with("sampler MsgDesc: ") {
            let Some(send) = send_before(region, body, start) else {
                return Err((
                    line_at(start),
                    "a sampler decode without its send".to_string(),
                ));
            };
            send_of(send).map_err(|e| (line_at(start) - 1, e))?;
        } else if trimmed.starts_with("thread_spawner MsgDesc: ") {
            // The kept reader takes the send before a thread-ending decode apart for its
            // descriptor, so an unkept program's must be one too.
            if let Some(send) = send_before(region, body, start) {
                send_of(send).map_err(|e| (line_at(start) - 1, e))?;
            }
        } else if let Some(decode) = trimmed.strip_prefix("urb MsgDesc: ") {
            urb_message(decode, line_at(start))?;
        }
    }
    let mut count = memchr::memchr_iter(b'\n', bytes).count() as u32;
    if !region.is_empty() && !region.ends_with('\n') {
        count += 1;
    }
    Ok((end, count))
}

/// The line of `text` from byte `start` to the line feed at `stop` (or the end), as
/// [`crate::text::lines::lines`] gives it: without a `\r` before the line feed.
fn line_text(text: &str, start: usize, stop: usize) -> &str {
    let line = &text[start..stop];
    if stop < text.len() {
        line.strip_suffix('\r').unwrap_or(line)
    } else {
        line
    }
}

/// The last line before the one starting at byte `at` that the reader keeps in its block
/// (not a decode), going back no further than byte `body` (the block's start at the
/// latest) nor past a block boundary (`START B`, `END B`): the send of a sampler decode on
/// the line at `at`. `None` where the block has no line.
fn send_before(text: &str, body: usize, at: usize) -> Option<&str> {
    let bytes = text.as_bytes();
    let mut end = at;
    while end > body {
        let stop = end - 1;
        let start = memchr::memrchr(b'\n', &bytes[..stop]).map_or(0, |i| i + 1);
        let line = line_text(text, start, stop);
        let trimmed = trim_indent(line);
        if trimmed.starts_with("START B") || trimmed.starts_with("END B") {
            return None;
        }
        // The decode lines the kept reader does not keep in a block are passed over.
        if !(trimmed.starts_with("sampler MsgDesc: ")
            || trimmed.starts_with("urb MsgDesc: ")
            || trimmed.starts_with("thread_spawner MsgDesc: "))
        {
            return Some(line);
        }
        end = start;
    }
    None
}

/// The thread-ending sends whose shared function a Mesa 25 dump leaves out: `send (EOT)`
/// with an immediate descriptor and a zero extended one and no shared function or
/// descriptor of its own (brw_print.cpp prints `inst->desc` as the first source, never
/// `inst->sfid`). Mesa 25 emits one in the start IR only to end a compute thread
/// (brw_fs_visitor.cpp `emit_cs_terminate`).
fn thread_end_sends(shader: &Shader) -> Vec<crate::Inst> {
    shader
        .layout
        .insts()
        .filter(|&i| {
            let srcs = shader.srcs(i);
            shader.insts.opcode[i] == Opcode::Send
                && shader.insts.control[i].eot()
                && shader
                    .send_info(i)
                    .is_some_and(|s| s.sfid == 0 && s.desc == 0)
                && srcs.len() >= 3
                && srcs[0].file == crate::RegFile::Imm
                && srcs[1].file == crate::RegFile::Imm
                && srcs[1].imm_bits() == 0
        })
        .collect()
}

/// Whether a vec4 geometry shader has `gs_urb_write`s whose descriptor is not known: Mesa's
/// dumps print neither the message's global offset (`inst->offset`: the control data
/// header's size in HWords, brw_vec4_gs_visitor.cpp `emit_urb_write_opcode`) nor its
/// flags (`urb_write_flags`: the control data bits go as an OWord write,
/// `emit_control_data_bits`), which only the final code's descriptor shows.
pub fn needs_gs_urb_writes(shader: &Shader) -> bool {
    shader.backend == crate::shader::Backend::Vec4
        && shader.stage == Stage::Gs
        && shader.layout.insts().any(|i| {
            shader.insts.opcode[i] == Opcode::GsUrbWrite
                && shader.send_info(i).is_none_or(|s| s.desc == 0)
        })
}

/// The descriptors of a vec4 geometry shader's `gs_urb_write`s from its final code's URB
/// sends (`urb`, the listing's order): the writes that do not end the thread (descriptor
/// bit 31, EOT on gen7, clear; `gs_thread_end` is the EOT one), one for each
/// `gs_urb_write` in program order (URB writes keep their order: each rewrites the header
/// in m1 the next one reads). Each `gs_urb_write` gets the descriptor as
/// [`crate::shader::SendInfo::desc`] and its global offset as `urb_offset`. Nothing is
/// recovered (`false`) unless the counts agree and every descriptor is known.
pub fn recover_gs_urb_writes(shader: &mut Shader, urb: &[UrbMessage]) -> bool {
    let writes: Vec<crate::Inst> = shader
        .layout
        .insts()
        .filter(|&i| shader.insts.opcode[i] == Opcode::GsUrbWrite)
        .collect();
    let sends: Vec<u32> = match urb
        .iter()
        .filter(|m| !m.read && m.desc.is_none_or(|d| d & 1 << 31 == 0))
        .map(|m| m.desc)
        .collect::<Option<Vec<u32>>>()
    {
        Some(d) => d,
        None => return false,
    };
    if writes.len() != sends.len() {
        return false;
    }
    for (&inst, desc) in writes.iter().zip(sends) {
        let d = crate::message::urb::decode_gen7(desc);
        let mut info = shader.send_info(inst).copied().unwrap_or_default();
        info.sfid = crate::message::sfid::URB;
        info.desc = desc;
        info.urb_offset = Some(d.offset as u16);
        shader.set_send_info(inst, info);
    }
    true
}

/// Whether the shader has a thread-ending send without its shared function.
pub fn needs_thread_end(shader: &Shader) -> bool {
    !thread_end_sends(shader).is_empty()
}

/// Gives each thread-ending send without a shared function ([`needs_thread_end`]) the
/// thread spawner and the descriptor of the final code's, when the listing's thread-ending
/// sends of the same program (any width: `emit_cs_terminate`'s descriptor and message
/// length do not depend on it) agree on one descriptor that is the dump's printed one
/// with the dump's message length and no response. Otherwise the send stays as it is,
/// which the simulator refuses to run.
pub fn recover_thread_ends(shader: &mut Shader, programs: &[&ListedProgram]) {
    let fields = (0xf << 25) | (0x1f << 20) | (1 << 19);
    for inst in thread_end_sends(shader) {
        let printed = shader.srcs(inst)[0].imm_bits() as u32;
        let mut info = shader.send_info(inst).copied().unwrap_or_default();
        let mut found: Vec<u32> = programs
            .iter()
            .flat_map(|p| p.thread_ends.iter().copied())
            .filter(|&d| {
                d & !fields == printed
                    && crate::message::mlen(d) == info.mlen as u32
                    && crate::message::rlen(d) == 0
            })
            .collect();
        found.sort_unstable();
        found.dedup();
        if let [d] = found[..] {
            info.sfid = crate::message::sfid::THREAD_SPAWNER;
            info.desc = d;
            shader.set_send_info(inst, info);
        }
    }
}

fn is_urb_logical(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::UrbReadLogical | Opcode::UrbWriteLogical | Opcode::UrbRead | Opcode::TcsUrbWrite
    )
}

/// Whether `op` reads the URB (a logical read, or the vec4 tessellation stages' `urb_read`).
fn is_urb_read(op: Opcode) -> bool {
    matches!(op, Opcode::UrbReadLogical | Opcode::UrbRead)
}

/// Whether a URB message of the start IR carries per-slot offsets: the logical messages'
/// second source; the vec4 tessellation stages' `urb_read` and `tcs_urb_write` always
/// (brw_vec4_generator.cpp `generate_vec4_urb_read`, `generate_tcs_urb_write` without EOT
/// set `urb_per_slot_offset`).
fn has_per_slot(shader: &Shader, inst: crate::Inst) -> bool {
    match shader.insts.opcode[inst] {
        Opcode::UrbRead | Opcode::TcsUrbWrite => true,
        _ => shader.srcs(inst).get(1).is_some_and(|s| !s.is_bad()),
    }
}

/// Whether the shader has logical URB messages without an offset.
pub fn needs_urb_offsets(shader: &Shader) -> bool {
    shader.layout.insts().any(|i| {
        is_urb_logical(shader.insts.opcode[i])
            && shader.send_info(i).is_none_or(|s| s.urb_offset.is_none())
    })
}

/// A program's URB sends (`listed`'s, in the scheduler's order) in program order, from the
/// pre-allocation dump of the same variant (`pre_ra`, written before Mesa's scheduling):
/// each of its `send`s whose descriptor immediate is that of a listed URB send, in the
/// dump's order. Mesa 25 prints the descriptor (Mesa 22.3 `0u`, never one); a TES reading
/// inputs through per-slot offsets has its reads reordered by Mesa 25's pre-RA scheduler
/// (reads without side effects, with different handles' payloads). `None` unless the
/// descriptors take every listed send exactly once and no other send has one of them
/// (the shared function is not printed, so a dump whose other sends share a URB
/// descriptor is not taken).
pub fn urb_in_program_order(listed: &ListedProgram, pre_ra: &Shader) -> Option<Vec<UrbMessage>> {
    let mut left: Vec<Option<&UrbMessage>> = listed.urb.iter().map(Some).collect();
    let mut out = Vec::with_capacity(left.len());
    if listed.urb.iter().any(|m| m.desc.is_none()) {
        return None;
    }
    for i in pre_ra.layout.insts() {
        if pre_ra.insts.opcode[i] != Opcode::Send {
            continue;
        }
        let d = pre_ra.srcs(i).first()?;
        if d.file != crate::operand::RegFile::Imm {
            continue;
        }
        let desc = d.imm_bits() as u32;
        if !listed.urb.iter().any(|m| m.desc == Some(desc)) {
            continue;
        }
        // A send beyond the listed ones with a URB send's descriptor: not told apart.
        let slot = left
            .iter_mut()
            .find(|m| m.is_some_and(|m| m.desc == Some(desc)))?;
        out.push(*slot.take()?);
    }
    (out.len() == listed.urb.len()).then_some(out)
}

/// Gives the logical URB messages of `shader` (in program order) the offsets of `urb`, a
/// program's URB sends in the same order. An error, naming the first disagreement, where
/// the two sequences differ.
pub fn recover_urb_offsets(shader: &mut Shader, urb: &[UrbMessage]) -> Result<(), String> {
    let matched: Vec<(UrbMessage, bool)> = urb.iter().map(|&m| (m, true)).collect();
    recover_urb_offsets_matched(shader, &matched)
}

/// [`recover_urb_offsets`] where some messages are not known: each of `urb` is a URB send
/// of the program in the dump's order and whether it is that message; where it is not
/// (`false`: one of several sends of the same shape, [`crate::import::dataflow_match`]),
/// that send's offset is taken all the same, so that the shader lowers, and
/// [`Shader::unproven`] says so. The shapes (read or write, per-slot offsets) are
/// checked for every one.
pub fn recover_urb_offsets_matched(
    shader: &mut Shader,
    urb: &[(UrbMessage, bool)],
) -> Result<(), String> {
    let logical: Vec<_> = shader
        .layout
        .insts()
        .filter(|&i| is_urb_logical(shader.insts.opcode[i]))
        .collect();
    // vec4 code: the final code's URB sends with per-slot offsets are the tessellation
    // stages' `urb_read`s and `tcs_urb_write`s; the others (input release, the thread's
    // end, a TES's `vs_urb_write`) have no offset the dump leaves out.
    let vec4 = shader.backend == crate::shader::Backend::Vec4;
    let sends: Vec<(&UrbMessage, bool)> = urb
        .iter()
        .filter(|(m, _)| !vec4 || m.per_slot)
        .map(|(m, k)| (m, *k))
        .collect();
    if logical.len() != sends.len() {
        return Err(format!(
            "the shader has {} logical URB messages, its final code {} URB sends",
            logical.len(),
            sends.len()
        ));
    }
    for (k, (&inst, (m, _))) in logical.iter().zip(sends.iter().copied()).enumerate() {
        let read = is_urb_read(shader.insts.opcode[inst]);
        let per_slot = has_per_slot(shader, inst);
        if read != m.read || per_slot != m.per_slot {
            let what = |r: bool, p: bool| {
                format!(
                    "a {}{}",
                    if r { "read" } else { "write" },
                    if p { " with per-slot offsets" } else { "" }
                )
            };
            return Err(format!(
                "URB message {} is {} in the shader but {} in the final code (line {})",
                k + 1,
                what(read, per_slot),
                what(m.read, m.per_slot),
                m.line
            ));
        }
    }
    let plain: Vec<&UrbMessage> = sends.iter().map(|(m, _)| *m).collect();
    let ambiguous = if vec4 {
        vec4_ambiguous_reads(shader, &plain)
    } else {
        Vec::new()
    };
    for (k, (&inst, (m, known))) in logical.iter().zip(sends).enumerate() {
        if ambiguous.contains(&k) {
            continue;
        }
        if !known && shader.unproven.is_none() {
            shader.unproven = Some(format!(
                "URB message {} has the data flow of several final-code sends of other \
                 global offsets; the offset of one of them (line {}) was taken",
                k + 1,
                m.line
            ));
        }
        let mut info = shader.send_info(inst).copied().unwrap_or_default();
        info.urb_offset = Some(m.offset);
        shader.set_send_info(inst, info);
    }
    Ok(())
}

/// Whether `op` orders the vec4 scheduler's instructions around it (Mesa
/// brw_schedule_instructions.cpp `is_scheduling_barrier`: control flow, `halt_target`, and
/// `backend_instruction::has_side_effects` — of the vec4 opcodes the TCS's URB writes and
/// input releases, barriers, untyped writes and atomics, scratch writes).
fn vec4_scheduling_barrier(op: Opcode) -> bool {
    op.control_flow() != crate::opcode::ControlFlow::None
        || matches!(
            op,
            Opcode::HaltTarget
                | Opcode::TcsUrbWrite
                | Opcode::TcsReleaseInput
                | Opcode::Barrier
                | Opcode::UntypedAtomic
                | Opcode::UntypedSurfaceWrite
                | Opcode::Gfx4ScratchWrite
        )
}

/// The vec4 URB reads (indices into `logical`) whose offset the listing does not tell: Mesa's
/// vec4 scheduler reorders URB reads (sends without side effects) between its barriers
/// ([`vec4_scheduling_barrier`]), so the k-th read of the final code is the k-th of the
/// start IR only within such a run of reads; a read is ambiguous when its run holds reads
/// of different offsets in the final code (piglit-coverage-hsw's TES variable-indexing
/// tests: direct and indirect reads exchanged). Writes and barriers keep their order, and
/// so does the number of reads in each run.
fn vec4_ambiguous_reads(shader: &Shader, sends: &[&UrbMessage]) -> Vec<usize> {
    vec4_ambiguous_runs(shader, sends).concat()
}

/// The runs of [`vec4_ambiguous_reads`], each the indices of its reads (into the shader's
/// logical URB messages, which pair one to one with `sends`), in program order.
fn vec4_ambiguous_runs(shader: &Shader, sends: &[&UrbMessage]) -> Vec<Vec<usize>> {
    let mut run = 0u32;
    let mut runs = Vec::with_capacity(sends.len());
    for inst in shader.layout.insts() {
        let op = shader.insts.opcode[inst];
        if vec4_scheduling_barrier(op) {
            run += 1;
        }
        if is_urb_logical(op) {
            runs.push(if is_urb_read(op) { Some(run) } else { None });
        }
    }
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut seen = Vec::new();
    for r in runs.iter().flatten() {
        if seen.contains(r) {
            continue;
        }
        seen.push(*r);
        let members: Vec<usize> = (0..runs.len()).filter(|&j| runs[j] == Some(*r)).collect();
        let first = sends[members[0]].offset;
        if members.iter().any(|&j| sends[j].offset != first) {
            out.push(members);
        }
    }
    out
}

/// A run of vec4 URB reads that Mesa's scheduler may have reordered among themselves
/// ([`vec4_ambiguous_reads`]): the listing tells which offsets the run reads, not which
/// read reads which.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AmbiguousReads {
    /// The start IR's reads, in program order.
    pub reads: Vec<crate::Inst>,
    /// The global offsets of the run's sends in the final code, in the listing's order:
    /// each read has one of them, each taken once.
    pub offsets: Vec<u16>,
}

/// The runs of `shader`'s vec4 URB reads whose offsets [`recover_urb_offsets`] left unknown
/// when it matched them to `urb` (a program's URB sends, as it was given them). Empty for
/// scalar code, and where the shader's logical URB messages do not pair with the sends.
pub fn ambiguous_vec4_reads(shader: &Shader, urb: &[UrbMessage]) -> Vec<AmbiguousReads> {
    if shader.backend != crate::shader::Backend::Vec4 {
        return Vec::new();
    }
    let logical: Vec<_> = shader
        .layout
        .insts()
        .filter(|&i| is_urb_logical(shader.insts.opcode[i]))
        .collect();
    let sends: Vec<&UrbMessage> = urb.iter().filter(|m| m.per_slot).collect();
    if logical.len() != sends.len() {
        return Vec::new();
    }
    vec4_ambiguous_runs(shader, &sends)
        .into_iter()
        .map(|run| AmbiguousReads {
            reads: run.iter().map(|&k| logical[k]).collect(),
            offsets: run.iter().map(|&k| sends[k].offset).collect(),
        })
        .collect()
}

/// Every way to give the reads of `runs` their offsets: per run each distinct ordering of
/// its offsets (a multiset: reads of equal offsets are not told apart), across runs every
/// combination; each as (read, offset) pairs. `None` when there are more than `limit`.
pub fn offset_assignments(
    runs: &[AmbiguousReads],
    limit: usize,
) -> Option<Vec<Vec<(crate::Inst, u16)>>> {
    let mut out: Vec<Vec<(crate::Inst, u16)>> = vec![Vec::new()];
    for run in runs {
        let orders = distinct_orders(&run.offsets, limit)?;
        if out.len().checked_mul(orders.len())? > limit {
            return None;
        }
        out = out
            .iter()
            .flat_map(|a| {
                orders.iter().map(move |o| {
                    let mut a = a.clone();
                    a.extend(run.reads.iter().copied().zip(o.iter().copied()));
                    a
                })
            })
            .collect();
    }
    Some(out)
}

/// The distinct orderings of `items` (lexicographic, by next permutation); `None` beyond
/// `limit` of them.
fn distinct_orders(items: &[u16], limit: usize) -> Option<Vec<Vec<u16>>> {
    let mut v = items.to_vec();
    v.sort_unstable();
    let mut out = vec![v.clone()];
    loop {
        // Next permutation: the last i with v[i] < v[i + 1], swapped with the last larger
        // element after it, then the tail reversed.
        let Some(i) = (0..v.len().saturating_sub(1))
            .rev()
            .find(|&i| v[i] < v[i + 1])
        else {
            return Some(out);
        };
        let j = (i + 1..v.len()).rev().find(|&j| v[j] > v[i]).unwrap();
        v.swap(i, j);
        v[i + 1..].reverse();
        if out.len() == limit {
            return None;
        }
        out.push(v.clone());
    }
}

/// Gives each read of `assignment` its URB offset.
pub fn apply_urb_offsets(shader: &mut Shader, assignment: &[(crate::Inst, u16)]) {
    for &(inst, offset) in assignment {
        let mut info = shader.send_info(inst).copied().unwrap_or_default();
        info.urb_offset = Some(offset);
        shader.set_send_info(inst, info);
    }
}

/// `runs` split by what data flow tells of their reads: `candidates` has, for each
/// `urb_read` of `shader` in program order, the indices into `urb` of the final-code
/// sends it may be ([`crate::import::dataflow_match::vec4::read_candidates`]). The reads
/// of a run with the same candidates become a run of their own, reading those sends'
/// offsets: where they are one offset, one assignment is left. A run whose reads'
/// candidates do not make up its offsets (another number of reads than of candidates, a
/// candidate not among the run's) is kept whole.
pub fn split_runs_by_data_flow(
    shader: &Shader,
    urb: &[UrbMessage],
    runs: Vec<AmbiguousReads>,
    candidates: &[Vec<usize>],
) -> Vec<AmbiguousReads> {
    let reads: Vec<crate::Inst> = shader
        .layout
        .insts()
        .filter(|&i| shader.insts.opcode[i] == Opcode::UrbRead)
        .collect();
    if reads.len() != candidates.len() {
        return runs;
    }
    let index: std::collections::HashMap<crate::Inst, usize> =
        reads.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    let mut out = Vec::new();
    for run in runs {
        let mut groups: Vec<(Vec<usize>, Vec<crate::Inst>)> = Vec::new();
        let mut ok = true;
        for &r in &run.reads {
            let Some(c) = index.get(&r).map(|&k| &candidates[k]) else {
                ok = false;
                break;
            };
            let mut c = c.clone();
            c.sort_unstable();
            match groups.iter_mut().find(|g| g.0 == c) {
                Some(g) => g.1.push(r),
                None => groups.push((c, vec![r])),
            }
        }
        let mut split = Vec::new();
        let mut offsets_of_groups: Vec<u16> = Vec::new();
        for (c, rs) in &groups {
            let offsets: Option<Vec<u16>> =
                c.iter().map(|&u| urb.get(u).map(|m| m.offset)).collect();
            match offsets {
                Some(o) if o.len() == rs.len() => {
                    offsets_of_groups.extend(&o);
                    split.push(AmbiguousReads {
                        reads: rs.clone(),
                        offsets: o,
                    });
                }
                _ => ok = false,
            }
        }
        let mut mine = run.offsets.clone();
        mine.sort_unstable();
        offsets_of_groups.sort_unstable();
        if ok && mine == offsets_of_groups {
            out.extend(split);
        } else {
            out.push(run);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTING: &str = "Native code for unnamed vertex shader GLSL1 (sha1 0)\n\
SIMD8 shader: 3 instructions. 0 loops. 10 cycles. 0:0 spills:fills, 2 sends, ...\n\
   START B0 (10 cycles)\n\
31 00 60 06 48 02 e0 20 40 00 00 06 28 00 48 02 send(8)         g7<1>UW         g2<0,1,0>UD     0x02480028\n\
                            urb MsgDesc: offset 2 SIMD8 read mlen 1 rlen 4  { align1 1Q };\n\
33 00 60 06 10 60 07 00 c8 0f 00 00 17 00 08 82 sends(8)        nullUD          g126UD          g118UD          0x02080017                0x00000200\n\
                            urb MsgDesc: offset 1 SIMD8 write mlen 1 ex_mlen 8 rlen 0 { align1 1Q EOT };\n\
   END B0\n";

    /// A vec4 GS's `gs_urb_write`s take the descriptors of the final code's URB writes that
    /// do not end the thread, in order (Mesa 22.3, piglit ubo_array_indexing/gs-simple: a
    /// vertex at global offset 1, the control data bits as an OWord write); with another
    /// count nothing is taken.
    #[test]
    fn gs_urb_writes_take_the_listed_descriptors() {
        let text = "shader \"t\" stage GS width 8 target hsw backend vec4\nblock0:\n\
            \x20   gs_urb_write(8) (null):UD\n    gs_urb_write(8) (null):UD\n\
            \x20   gs_thread_end(8) (null):UD\n";
        let mut s = crate::text::parse_shader(text).unwrap();
        assert!(needs_gs_urb_writes(&s));
        let m = |desc: u32| UrbMessage {
            read: false,
            offset: ((desc >> 3) & 0x7ff) as u16,
            per_slot: desc & 1 << 16 != 0,
            desc: Some(desc),
            handle: None,
            line: 1,
        };
        let (vertex, control, end) = (m(0x0a09_4008), m(0x0408_4001), m(0x8208_4000));
        assert!(!recover_gs_urb_writes(&mut s, &[vertex, end]));
        assert!(needs_gs_urb_writes(&s));
        assert!(recover_gs_urb_writes(&mut s, &[vertex, control, end]));
        assert!(!needs_gs_urb_writes(&s));
        let got: Vec<(u32, Option<u16>)> = s
            .layout
            .insts()
            .filter(|&i| s.insts.opcode[i] == Opcode::GsUrbWrite)
            .map(|i| {
                let info = s.send_info(i).unwrap();
                (info.desc, info.urb_offset)
            })
            .collect();
        assert_eq!(got, vec![(0x0a09_4008, Some(1)), (0x0408_4001, Some(0))]);
    }

    #[test]
    fn reads_programs_and_urb_messages() {
        let p = listed_programs(LISTING).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(
            (p[0].stage, p[0].program.as_str(), p[0].width),
            (Stage::Vs, "GLSL1", Some(8))
        );
        let offsets: Vec<(bool, u16)> = p[0].urb.iter().map(|m| (m.read, m.offset)).collect();
        assert_eq!(offsets, vec![(true, 2), (false, 1)]);
        assert!(listed_programs("Native code for unnamed warp shader X\n").is_err());
    }

    #[test]
    fn a_filter_keeps_programs_not_errors() {
        let fs = "Native code for unnamed fragment shader GLSL1 (sha1 1)\n\
SIMD8 shader: 1 instructions. 0 loops. 10 cycles. 0:0 spills:fills, 1 sends, ...\n\
   START B0 (10 cycles)\n\
01 00 60 00 28 02 60 20 40 00 00 00 00 00 f0 3f mov(8)          g3<1>DF         0x3ff0000000000000DF { align1 1Q };\n\
   END B0\n";
        let text = format!("{LISTING}{fs}");
        let only_vs = ListingFilter {
            program: Some((Stage::Vs, "GLSL1")),
            wide_immediates: false,
        };
        let p = listed_programs_filtered(&text, only_vs).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].urb, listed_programs(&text).unwrap()[0].urb);
        let only_fs = ListingFilter {
            program: Some((Stage::Fs, "GLSL1")),
            wide_immediates: true,
        };
        let p = listed_programs_filtered(&text, only_fs).unwrap();
        assert_eq!((p.len(), p[0].stage), (1, Stage::Fs));
        assert_eq!(p[0].wide_immediates, vec![0x3ff0_0000_0000_0000]);
        // A listing an unfiltered reader refuses is refused whatever the filter, at the
        // same line: here a sampler decode after a line that is not a send, in the VS.
        let bad = text
            .replacen("urb MsgDesc: offset 2", "sampler MsgDesc: sample SIMD8", 1)
            .replacen("send(8)         g7", "mov(8)          g7", 1);
        let e = listed_programs(&bad).unwrap_err();
        assert_eq!(listed_programs_filtered(&bad, only_fs).unwrap_err(), e);
        assert!(
            e.0 == 4
                && e.1
                    .contains("expected `send(N)` or `sends(N)`, found `mov(8)`"),
            "{e:?}"
        );
        let bad = text.replacen("offset 1 SIMD8 write", "offset x SIMD8 write", 1);
        let e = listed_programs(&bad).unwrap_err();
        assert_eq!(listed_programs_filtered(&bad, only_fs).unwrap_err(), e);
    }

    /// A program the filter does not keep is passed over by a search, not line by line:
    /// the reader still refuses what it refuses when it reads every line, at the same line,
    /// and numbers the lines after it the same.
    #[test]
    fn programs_passed_over_give_the_same_errors_and_lines() {
        let fs = "Native code for unnamed fragment shader GLSL1 (sha1 1)\n\
SIMD8 shader: 1 instructions. 0 loops. 10 cycles. 0:0 spills:fills, 1 sends, ...\n\
   START B0 (10 cycles)\n\
31 00 60 06 48 02 e0 20 40 00 00 06 28 00 48 02 send(8)         g7<1>UW         g2<0,1,0>UD     0x02480028\n\
                            urb MsgDesc: offset 3 SIMD8 read mlen 1 rlen 4  { align1 1Q };\n\
   END B0\n";
        let vs_then_fs = format!("{LISTING}{fs}");
        let mut cases = vec![
            vs_then_fs.clone(),
            format!("{fs}{LISTING}"),
            format!("junk\n{LISTING}{fs}"),
            vs_then_fs.replace('\n', "\r\n"),
            vs_then_fs.trim_end().to_string(),
            // A header right after a header: no statistics line.
            format!("Native code for unnamed vertex shader X (sha1 2)\n{fs}"),
            // A decode on the statistics line is not one.
            format!("Native code for unnamed vertex shader X\n   urb MsgDesc: bad\n{fs}"),
            // An unknown stage after a passed-over program.
            format!("{LISTING}Native code for unnamed warp shader X\n{fs}"),
        ];
        let vs = LISTING;
        let bad = [
            ("urb MsgDesc: offset 2", "urb MsgDesc: offset x"),
            ("urb MsgDesc: offset 2", "sampler MsgDesc: sample SIMD8"),
            ("send(8)         g7", "mov(8)          g7"),
            ("   START B0 (10 cycles)\n", ""),
            ("urb MsgDesc: offset 1 SIMD8", "sampler MsgDesc: x"),
            ("urb MsgDesc: offset 1 SIMD8", "\n   sampler MsgDesc: x"),
            ("   END B0\n", "   END B0\n   sampler MsgDesc: x\n"),
            ("   END B0\n", "   END B0\nsampler MsgDesc: y\u{a0}\n"),
            // A thread-ending decode after a line that is not a send (found by the readers'
            // fuzz target: only the kept reader took it apart), after none, and before a
            // sampler decode, which must find the send before both.
            (
                "urb MsgDesc: offset 2",
                "thread_spawner MsgDesc: mlen 1 rlen 0 EOT",
            ),
            (
                "urb MsgDesc: offset 1 SIMD8",
                "thread_spawner MsgDesc: x EOT\n   sampler MsgDesc: x",
            ),
            (
                "   START B0 (10 cycles)\n",
                "   START B0 (10 cycles)\n   thread_spawner MsgDesc: EOT\n",
            ),
        ];
        for (from, to) in bad {
            let v = vs.replacen(from, to, 1);
            cases.push(format!("{v}{fs}"));
            cases.push(format!("{fs}{v}{fs}").replace('\n', "\r\n"));
        }
        let not_a_send = vs
            .replacen(
                "urb MsgDesc: offset 2",
                "thread_spawner MsgDesc: mlen 1 rlen 0 EOT",
                1,
            )
            .replacen("send(8)         g7", "mov(8)          g7", 1);
        cases.push(format!("{not_a_send}{fs}"));
        cases.push(format!("{fs}{not_a_send}"));
        for text in &cases {
            let all = listed_programs(text);
            for keep in [
                (Stage::Fs, "GLSL1"),
                (Stage::Vs, "GLSL1"),
                (Stage::Gs, "none"),
            ] {
                let filter = ListingFilter {
                    program: Some(keep),
                    wide_immediates: true,
                };
                let some = listed_programs_filtered(text, filter);
                match (&all, &some) {
                    (Ok(all), Ok(some)) => {
                        let wanted: Vec<String> = all
                            .iter()
                            .filter(|p| (p.stage, p.program.as_str()) == keep)
                            .map(|p| format!("{p:?}"))
                            .collect();
                        let got: Vec<String> = some.iter().map(|p| format!("{p:?}")).collect();
                        assert_eq!(got, wanted, "{text:?}");
                    }
                    (Err(a), Err(b)) => assert_eq!(a, b, "{text:?}"),
                    _ => panic!("{text:?}: {all:?} but {some:?}"),
                }
            }
        }
    }

    #[test]
    fn words_of_other_whitespace_follow_the_unicode_rules() {
        let ascii = "31 00 60 06 48 02 e0 20 40 00 00 06 28 00 48 02 send(8) g7<1>UW g2<0,1,0>UD 0x02480028 { align1 };";
        let nbsp = ascii.replace(" g2", "\u{a0}g2");
        assert_eq!(
            disassembly(ascii).unwrap(),
            ("send(8)", vec!["g7<1>UW", "g2<0,1,0>UD", "0x02480028"])
        );
        assert_eq!(
            disassembly(&nbsp).unwrap(),
            ("send(8)", vec!["g7<1>UW", "g2<0,1,0>UD", "0x02480028"])
        );
        assert!(may_hold_wide_immediate(
            "mov(8) g3<1>DF 0x3ff0000000000000DF"
        ));
        assert!(may_hold_wide_immediate(
            "mov(8) g3<1>DF 0x+ff0000000000000DF"
        ));
        assert!(!may_hold_wide_immediate(
            "send(8) g7<1>UW g2<0,1,0>UD 0x02480028"
        ));
    }

    #[test]
    fn offsets_go_to_matching_messages_only() {
        let text = "shader \"t\" stage VS width 8 target skl\nvgrf0 4x32\nblock0:\n\
    urb_read_logical(8) (mlen: 1) (size: 128) vgrf0:F, g2<8,8,1>:UD, (null):UD, (null):UD, (null):UD\n\
    urb_write_logical(8) (mlen: 5) (EOT) (null):UD, g1<8,8,1>:UD, (null):UD, (null):UD, vgrf0:F\n";
        let mut s = crate::text::parse_shader(text).unwrap();
        assert!(needs_urb_offsets(&s));
        let p = &listed_programs(LISTING).unwrap()[0];
        recover_urb_offsets(&mut s, &p.urb).unwrap();
        assert!(!needs_urb_offsets(&s));
        let got: Vec<Option<u16>> = s
            .layout
            .insts()
            .map(|i| s.send_info(i).and_then(|x| x.urb_offset))
            .collect();
        assert_eq!(got, vec![Some(2), Some(1)]);
        // Reads and writes in another order: refused, and nothing is set.
        let swapped = text.replace(
            "urb_read_logical(8) (mlen: 1) (size: 128) vgrf0:F",
            "urb_write_logical(8) (mlen: 5) (null):UD",
        );
        let mut s = crate::text::parse_shader(&swapped).unwrap();
        let e = recover_urb_offsets(&mut s, &p.urb).unwrap_err();
        assert!(e.contains("URB message 1 is a write"), "{e}");
        assert!(needs_urb_offsets(&s));
    }

    /// Mesa 22.3's vec4 scheduler may exchange URB reads between its barriers: a run whose
    /// sends read different offsets (5 and 6 before the `if`) is left unknown and offered
    /// as both assignments; a run of equal offsets (7, 7 inside it) is taken in order.
    #[test]
    fn reordered_vec4_reads_are_offered_every_assignment() {
        let dump = "tes_create_input_read_header(8) vgrf0:UD\n\
urb_read(8) vgrf1:D, vgrf0.xyzw:UD\n\
urb_read(8) vgrf2:D, vgrf0.xyzw:UD\n\
mov(8).nz.f0.0 null:D, vgrf1.xxxx:D\n\
(+f0.0.x) if(8) (null):UD\n\
urb_read(8) vgrf3:D, vgrf0.xyzw:UD\n\
urb_read(8) vgrf4:D, vgrf0.xyzw:UD\n\
endif(8) (null):UD\n";
        let name = crate::import::DumpName::parse("TES-GLSL1-00-00-start").unwrap();
        let mut s = crate::import::import_mesa_dump(dump, &name, "", crate::Gen::Gen75).unwrap();
        let read = |offset: u16| UrbMessage {
            read: true,
            offset,
            per_slot: true,
            desc: None,
            handle: None,
            line: 1,
        };
        let urb = [read(6), read(5), read(7), read(7)];
        recover_urb_offsets(&mut s, &urb).unwrap();
        let reads: Vec<crate::Inst> = s
            .layout
            .insts()
            .filter(|&i| s.insts.opcode[i] == Opcode::UrbRead)
            .collect();
        let offsets = |s: &Shader| -> Vec<Option<u16>> {
            reads
                .iter()
                .map(|&i| s.send_info(i).and_then(|x| x.urb_offset))
                .collect()
        };
        assert_eq!(offsets(&s), vec![None, None, Some(7), Some(7)]);
        let runs = ambiguous_vec4_reads(&s, &urb);
        assert_eq!(
            runs,
            vec![AmbiguousReads {
                reads: reads[..2].to_vec(),
                offsets: vec![6, 5]
            }]
        );
        let all = offset_assignments(&runs, 2).unwrap();
        assert_eq!(
            all,
            vec![
                vec![(reads[0], 5), (reads[1], 6)],
                vec![(reads[0], 6), (reads[1], 5)]
            ]
        );
        // Data flow that tells the two reads apart (the first is the listing's second
        // send) leaves one assignment: two runs of one offset each.
        let told = [vec![1], vec![0], vec![2, 3], vec![2, 3]];
        let split = split_runs_by_data_flow(&s, &urb, runs.clone(), &told);
        assert_eq!(
            split,
            vec![
                AmbiguousReads {
                    reads: vec![reads[0]],
                    offsets: vec![5]
                },
                AmbiguousReads {
                    reads: vec![reads[1]],
                    offsets: vec![6]
                }
            ]
        );
        assert_eq!(offset_assignments(&split, 1).unwrap().len(), 1);
        // Data flow that cannot tell them apart leaves the run whole, and so do
        // candidates that are not the run's sends, or as many as the dump has reads.
        let same = [vec![0, 1], vec![0, 1], vec![2, 3], vec![2, 3]];
        assert_eq!(split_runs_by_data_flow(&s, &urb, runs.clone(), &same), runs);
        let foreign = [vec![2], vec![3], vec![0], vec![1]];
        assert_eq!(
            split_runs_by_data_flow(&s, &urb, runs.clone(), &foreign),
            runs
        );
        assert_eq!(
            split_runs_by_data_flow(&s, &urb, runs.clone(), &told[..3]),
            runs
        );
        assert_eq!(offset_assignments(&runs, 1), None);
        apply_urb_offsets(&mut s, &all[1]);
        assert_eq!(offsets(&s), vec![Some(6), Some(5), Some(7), Some(7)]);
        // Equal offsets are not told apart: 3 orderings of [2, 2, 3], not 6.
        assert_eq!(
            distinct_orders(&[3, 2, 2], 10).unwrap(),
            vec![vec![2, 2, 3], vec![2, 3, 2], vec![3, 2, 2]]
        );
        assert_eq!(distinct_orders(&[3, 2, 2], 2), None);
        // Scalar code has no such runs.
        s.backend = crate::shader::Backend::Scalar;
        assert!(ambiguous_vec4_reads(&s, &urb).is_empty());
    }

    /// Mesa 25's scheduler moves URB reads: a TES reading a patch input array through
    /// per-slot offsets (piglit's tes-patch-input-array-float-index-rd) reads with offsets
    /// 18, 2 and 32 in program order, its final code 2, 32, 18. The pre-allocation dump
    /// (before scheduling, descriptors printed) gives the program's order.
    #[test]
    fn reordered_urb_reads_take_the_pre_allocation_order() {
        let listing = "Native code for unnamed tessellation evaluation shader GLSL1 (sha1 0)\n\
SIMD8 shader: 4 instructions. 0 loops. 10 cycles. 0:0 spills:fills, 3 sends, ...\n\
   START B0 (10 cycles)\n\
31 00 60 06 48 02 e0 24 c0 05 00 06 28 00 1a 04 send(8)         g39<1>UW        g46<0,1,0>UD    0x041a0028\n\
                            urb MsgDesc: offset 2 SIMD8 read per-slot  mlen 2 rlen 1 { align1 1Q };\n\
31 00 60 06 48 02 80 22 00 06 00 06 08 02 48 02 send(8)         g20<1>UW        g48<0,1,0>UD    0x02480208\n\
                            urb MsgDesc: offset 32 SIMD8 read  mlen 1 rlen 4 { align1 1Q };\n\
31 00 60 06 48 02 c0 24 80 05 00 06 28 01 1a 04 send(8)         g38<1>UW        g44<0,1,0>UD    0x041a0128\n\
                            urb MsgDesc: offset 18 SIMD8 read per-slot  mlen 2 rlen 1 { align1 1Q };\n\
   END B0\n";
        let p = &listed_programs(listing).unwrap()[0];
        assert_eq!(p.urb[0].desc, Some(0x041a_0028));
        let start = "shader \"t\" stage TES width 8 target skl\nvgrf0 1x32\nvgrf1 1x32\nvgrf2 1x32\nvgrf3 1x32\nvgrf4 4x32\nblock0:\n\
    add(8) vgrf0:D, g5<0,1,0>:D, -16d NoMask\n\
    urb_read_logical(8) vgrf1:F, g0<0,1,0>:UD, vgrf0<0>:D, (null):UD, (null):UD, (null):UD\n\
    urb_read_logical(8) vgrf2:F, g0<0,1,0>:UD, g5<0,1,0>:D, (null):UD, (null):UD, (null):UD\n\
    urb_read_logical(8) (size: 128) vgrf4:F, g0<0,1,0>:UD, (null):UD, (null):UD, (null):UD, (null):UD\n";
        let mut s = crate::text::parse_shader(start).unwrap();
        assert!(recover_urb_offsets(&mut s, &p.urb).is_err());
        let name =
            crate::import::DumpName::parse("TES8-GLSL1-90-90-pre_register_allocate").unwrap();
        let pre_ra_text = "START B0\n\
add(8) %0:D, g5<0,1,0>:D, -16d NoMask \n\
mov(8) v18+0.0:UD, g0<0,1,0>:UD NoMask \n\
mov(8) v18+1.0:UD, %0+0.0<0>:UD NoMask \n\
send(8) (mlen: 2) v1, 68813096u, 0u, v18, null \n\
mov(8) v19+0.0:UD, g0<0,1,0>:UD NoMask \n\
mov(8) v19+1.0:UD, g5<0,1,0>:UD NoMask \n\
send(8) (mlen: 2) v2, 68812840u, 0u, v19, null \n\
mov(8) %20:UD, g0<0,1,0>:UD NoMask \n\
send(8) (mlen: 1) %6, 38273544u, 0u, %20, null \n\
END B0\n";
        let pre_ra =
            crate::import::import_mesa_dump(pre_ra_text, &name, "", crate::Gen::Gen9).unwrap();
        let urb = urb_in_program_order(p, &pre_ra).unwrap();
        recover_urb_offsets(&mut s, &urb).unwrap();
        let got: Vec<Option<u16>> = s
            .layout
            .insts()
            .map(|i| s.send_info(i).and_then(|x| x.urb_offset))
            .collect();
        assert_eq!(got, vec![None, Some(18), Some(2), Some(32)]);
        // Another send with one of the URB descriptors: which is the URB one is not known.
        let twice = pre_ra_text.replace(
            "END B0",
            "send(8) (mlen: 1) %7, 38273544u, 0u, %20, null \nEND B0",
        );
        let pre_ra = crate::import::import_mesa_dump(&twice, &name, "", crate::Gen::Gen9).unwrap();
        assert_eq!(urb_in_program_order(p, &pre_ra), None);
        // A dump without descriptors (Mesa 22.3 prints `0u`) gives no order.
        let none = pre_ra_text
            .replace("68813096u", "0u")
            .replace("68812840u", "0u");
        let pre_ra = crate::import::import_mesa_dump(&none, &name, "", crate::Gen::Gen9).unwrap();
        assert_eq!(urb_in_program_order(p, &pre_ra), None);
    }

    /// A compute thread's end in a Mesa 25 dump (`send (EOT) 16u, 0u`, no shared function
    /// printed) takes the thread spawner and the listing's descriptor when the printed one
    /// is the listing's without its lengths; a listing that disagrees gives nothing.
    #[test]
    fn thread_ends_take_the_listed_descriptor() {
        let listing = |desc: &str| {
            format!(
                "Native code for unnamed compute shader GLSL1 (sha1 0)\n\
SIMD16 shader: 1 instructions. 0 loops. 10 cycles. 0:0 spills:fills, 1 sends, ...\n\
   START B0 (10 cycles)\n\
31 00 80 07 44 02 00 20 c0 0f 00 06 10 00 00 82 send(16)        null<1>UW       g126<0,1,0>UD   {desc}\n\
                            thread_spawner MsgDesc:  mlen 1 rlen 0          {{ align1 WE_all 1H EOT }};\n\
   END B0\n"
            )
        };
        let dump = "shader \"t\" stage CS width 8 target skl\nvgrf0 1x32\nblock0:\n\
    mov(8) vgrf0:UD, g0<8,8,1>:UD NoMask\n\
    send(8) (mlen: 1) (EOT) (null):UD, 16u, 0u, vgrf0:UD, (null):UD NoMask\n";
        let mut s = crate::text::parse_shader(dump).unwrap();
        assert!(needs_thread_end(&s));
        // The SIMD16 variant's end serves the SIMD8 one: its descriptor has no width.
        let p = listed_programs(&listing("0x82000010")).unwrap();
        assert_eq!(p[0].thread_ends, vec![0x0200_0010]);
        recover_thread_ends(&mut s, &p.iter().collect::<Vec<_>>());
        assert!(!needs_thread_end(&s));
        let send = s.layout.insts().last().unwrap();
        let info = s.send_info(send).unwrap();
        assert_eq!(
            (info.sfid, info.desc),
            (crate::message::sfid::THREAD_SPAWNER, 0x0200_0010)
        );
        // Another descriptor than the printed one: left unknown.
        let mut s = crate::text::parse_shader(dump).unwrap();
        let p = listed_programs(&listing("0x82000000")).unwrap();
        recover_thread_ends(&mut s, &p.iter().collect::<Vec<_>>());
        assert!(needs_thread_end(&s));
    }
}
