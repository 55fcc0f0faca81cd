//! Which send of Mesa's final code is which send of its pre-allocation dump, by data flow.
//!
//! Mesa 22.3's pre-RA scheduler (brw_schedule_instructions.cpp) reorders sends without
//! side effects — URB reads among them — inside a block, and its pre-allocation dump
//! (written before scheduling, in program order) prints every send's descriptor as `0u`:
//! the k-th URB read of the dump need not be the k-th URB read of the final code. What the
//! scheduler and the register allocator keep is the computation: every instruction of the
//! dump is an instruction of the final code with the same opcode, execution size,
//! modifiers and immediates, reading the values of the same instructions, only with other
//! registers and in another order inside its block. [`match_sends`] builds that data-flow
//! graph for both (inside each block; a value from another block or from the thread
//! payload is a leaf) and refines a colouring of it (Weisfeiler-Lehman colour refinement:
//! an instruction's colour is its own description with the colours of the instructions
//! it reads, source by source and by the register within their destinations, and of the
//! instructions reading it), on both graphs at once, until no class splits. Refinement
//! gives isomorphic nodes the same colour, so where a colour is held by exactly one send
//! on each side, every correspondence of the two computations pairs them; where a class
//! holds several sends, the caller takes a property only if all of them share it (and
//! otherwise marks the value it takes unproven, [`crate::Shader::unproven`]). A class
//! with more sends on one side than the other means the graphs are not the same
//! computation (an instruction the generator expands, a printer's loss that leaves the
//! two descriptions different), and nothing is matched.
//!
//! Two facts of Mesa's scheduler anchor the refinement: a send without a response (a
//! write) has side effects, and nothing moves across an instruction with side effects
//! (`is_scheduling_barrier`), so the k-th write of the dump is the k-th of the final
//! code and is labelled so; and a write's data may hold registers nothing wrote (a URB
//! write's unwritten slots), read from no instruction in the dump and from whatever the
//! register held in the final code: those dwords, found in the dump, are left out of
//! that write's edges on both sides.
//!
//! The two sides are described alike where Mesa's printers differ: the pre-allocation
//! printer drops a fixed register's sub-register (`g6<0>:D` for `g6.6<0,1,0>D`), so a
//! payload register is known by its number only; float immediates are compared at the six
//! significant digits the dump prints; a word immediate (`0xaaabUW`) by its replicated
//! dword; `math inv` is `rcp`, `sends` is `send`; `NoMask` is `WE_all`. Nothing of the
//! registers' numbers or the instructions' order is used, and no send's shared function
//! (the dump does not print it).

use std::collections::HashMap;

pub mod vec4;

use crate::opcode::{ControlFlow, Opcode};
use crate::operand::{arf, RegFile};
use crate::shader::{CondMod, Control, Predicate, Shader};
use crate::types::Type;

/// Where the bytes a source reads were written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Origin {
    /// An instruction of the same block, and the dword of its destination read first.
    Node(u32, u32),
    /// A payload register never written before (its number).
    Payload(u32),
    /// A value from another block.
    LiveIn,
}

/// A register space of the graph: a VGRF (pre-allocation) or a file of fixed registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Space {
    Vgrf(u32),
    Grf,
    Acc,
    Flag,
}

/// The data-flow graph of one program: one node per instruction.
#[derive(Debug, Default)]
pub struct Graph {
    labels: Vec<String>,
    /// Per node: (source position, dword of the source's read, origin), in source order.
    ins: Vec<Vec<(u8, u32, Origin)>>,
    /// The send nodes, in program order.
    pub sends: Vec<u32>,
    writers: HashMap<(Space, u32), (u32, u32)>,
    /// Sends without a response so far.
    writes: u32,
    /// Per write (send without a response), the dwords of its data the dump's block did
    /// not write: recorded building the dump's graph, given building the listing's.
    holes: Vec<Vec<u32>>,
    given_holes: Option<Vec<Vec<u32>>>,
}

/// A register range an instruction reads or writes, in dwords.
#[derive(Clone, Copy, Debug)]
struct Range {
    space: Space,
    first: u32,
    dwords: u32,
}

/// What a source is, for the graph.
#[derive(Clone, Debug)]
enum Read {
    Regs(Range),
    Payload(u32),
}

impl Graph {
    /// Each node's description and sources (for diagnostics).
    pub fn describe(&self) -> Vec<String> {
        self.labels
            .iter()
            .zip(&self.ins)
            .map(|(l, i)| format!("{l} <- {i:?}"))
            .collect()
    }

    /// A new block: nothing written in it yet.
    fn block(&mut self) {
        self.writers.clear();
    }

    fn add(&mut self, label: String, reads: &[(u8, Read)], writes: &[Range], send: bool) -> u32 {
        let node = self.labels.len() as u32;
        let mut ins = Vec::new();
        // A message without a response (a write) has side effects, and Mesa's scheduler
        // moves nothing across an instruction with side effects
        // (brw_schedule_instructions.cpp `is_scheduling_barrier`): the k-th of them is the
        // k-th of the final code, which its label says.
        let write = send && writes.is_empty();
        let mut label = label;
        let ordinal = self.writes as usize;
        if write {
            label.push_str(&format!(" write#{ordinal}"));
            self.writes += 1;
        }
        for (pos, r) in reads {
            match r {
                Read::Payload(n) => ins.push((*pos, 0, Origin::Payload(*n))),
                Read::Regs(range) => {
                    // A write's data (its second payload) may hold registers nothing
                    // wrote (the unwritten slots of a URB write): the dump reads them
                    // from no instruction, the final code from whatever the register last
                    // held. Those dwords (the dump's, `holes`, by write) are left out on
                    // both sides.
                    let data = write && *pos == 1;
                    let given = self.given_holes.as_ref().and_then(|h| h.get(ordinal));
                    let mut holes = Vec::new();
                    let mut last: Option<Origin> = None;
                    for d in range.first..range.first.saturating_add(range.dwords.max(1)) {
                        let rel = d - range.first;
                        let writer = self.writers.get(&(range.space, d));
                        if data {
                            let hole = match &self.given_holes {
                                Some(_) => given.is_some_and(|h| h.contains(&rel)),
                                None => writer.is_none(),
                            };
                            if hole {
                                holes.push(rel);
                                last = None;
                                continue;
                            }
                        }
                        let o = match writer {
                            Some(&(n, start)) => Origin::Node(n, d - start),
                            None => Origin::LiveIn,
                        };
                        push_edge(&mut ins, &mut last, (*pos, rel, o));
                    }
                    if data && self.given_holes.is_none() {
                        self.holes.resize(ordinal + 1, Vec::new());
                        self.holes[ordinal] = holes;
                    }
                }
            }
        }
        for w in writes {
            for d in w.first..w.first.saturating_add(w.dwords.max(1)) {
                self.writers.insert((w.space, d), (node, w.first));
            }
        }
        self.labels.push(label);
        self.ins.push(ins);
        if send {
            self.sends.push(node);
        }
        node
    }
}

/// Adds the edge `e` to `ins` unless it continues the run of dwords from the same writer
/// as the one before (`last`): one edge per such run.
fn push_edge(ins: &mut Vec<(u8, u32, Origin)>, last: &mut Option<Origin>, e: (u8, u32, Origin)) {
    let o = e.2;
    let same = match (*last, o) {
        (Some(Origin::Node(a, _)), Origin::Node(b, _)) => a == b,
        (Some(x), y) => x == y,
        (None, _) => false,
    };
    if !same {
        ins.push(e);
    }
    *last = Some(o);
}

/// An immediate's description, alike on both sides (see the module doc).
fn immediate(ty: Type, bits: u64) -> String {
    match ty {
        Type::F => format!("f{:.5e}", f32::from_bits(bits as u32)),
        Type::DF => "df".to_string(),
        Type::W | Type::UW => {
            let w = bits as u32 & 0xffff;
            format!("i{}", w | w << 16)
        }
        Type::Q | Type::UQ => format!("q{bits}"),
        _ => format!("i{}", bits as u32),
    }
}

/// The description of an instruction: its part of the label.
#[derive(Default)]
struct Desc {
    op: String,
    exec: u32,
    sat: bool,
    nomask: bool,
    /// `Some(inverted)` when predicated.
    pred: Option<bool>,
    cmod: &'static str,
    /// Per source position (nulls left out): an immediate's description, or the
    /// modifiers of a register source.
    srcs: Vec<String>,
    /// A send's mlen, ex_mlen, EOT.
    send: Option<(u32, u32, bool)>,
    dst_null: bool,
}

impl Desc {
    /// The description of a dump instruction of opcode `name` and control `c` (its sources
    /// and message fields to be added).
    fn of_dump(name: &str, c: &Control) -> Desc {
        Desc {
            op: name.to_string(),
            exec: c.exec_size as u32,
            sat: c.flags & Control::SATURATE != 0,
            nomask: c.flags & Control::NO_MASK != 0,
            pred: (c.predicate != Predicate::None).then_some(c.flags & Control::PRED_INVERT != 0),
            cmod: c.cmod.name(),
            ..Desc::default()
        }
    }

    fn label(&self) -> String {
        let mut s = format!("{}({})", self.op, self.exec);
        if self.sat {
            s.push_str(".sat");
        }
        if self.nomask {
            s.push_str(" nomask");
        }
        if let Some(inv) = self.pred {
            s.push_str(if inv { " pred-" } else { " pred+" });
        }
        if !self.cmod.is_empty() {
            s.push_str(" .");
            s.push_str(self.cmod);
        }
        if let Some((m, e, eot)) = self.send {
            s.push_str(&format!(" mlen{m} ex{e}{}", if eot { " eot" } else { "" }));
        }
        if self.dst_null {
            s.push_str(" null");
        }
        for (k, src) in self.srcs.iter().enumerate() {
            s.push_str(&format!(" {k}:{src}"));
        }
        s
    }
}

/// Whether a conditional modifier on `op` writes the flag (gen6+: not on `sel`, `csel`,
/// `if`, `while`; brw_disasm.c and brw_fs.cpp `flags_written`).
fn cmod_writes_flag(op: &str) -> bool {
    !matches!(op, "sel" | "csel" | "if" | "while")
}

fn modifiers(neg: bool, abs: bool) -> String {
    format!(
        "r{}{}",
        if neg { "-" } else { "" },
        if abs { "a" } else { "" }
    )
}

/// The data-flow graph of a Mesa pre-allocation dump (scalar code): `None` where it holds
/// what this does not describe (a register file other than those of such dumps).
pub fn pre_ra_graph(shader: &Shader) -> Option<Graph> {
    let mut g = Graph::default();
    for inst in shader.layout.insts() {
        let op = shader.insts.opcode[inst];
        let c = shader.insts.control[inst];
        let cf = op.control_flow();
        if matches!(op, Opcode::Undef) {
            continue;
        }
        if matches!(cf, ControlFlow::Do | ControlFlow::HaltTarget) {
            g.block();
            continue;
        }
        if cf != ControlFlow::None {
            g.block();
        }
        let name = op.name();
        let mut d = Desc::of_dump(name, &c);
        let mut reads: Vec<(u8, Read)> = Vec::new();
        let mut writes: Vec<Range> = Vec::new();
        let send = op == Opcode::Send;
        let srcs = shader.srcs(inst);
        if send {
            let info = shader.send_info(inst).copied().unwrap_or_default();
            d.send = Some((
                info.mlen as u32,
                info.ex_mlen as u32,
                c.flags & Control::EOT != 0,
            ));
        }
        let mut pos = 0u8;
        for (k, s) in srcs.iter().enumerate() {
            // A send's descriptors (`0u` in Mesa 22.3's dumps) are not compared.
            if send && k < 2 {
                continue;
            }
            if s.is_null() {
                continue;
            }
            let len = crate::size_read::size_read(shader, inst, k);
            let read = match s.file {
                RegFile::Imm => {
                    d.srcs.push(immediate(s.ty, s.imm_bits()));
                    pos += 1;
                    continue;
                }
                RegFile::Vgrf => Read::Regs(Range {
                    space: Space::Vgrf(s.nr),
                    first: s.offset / 4,
                    dwords: len.div_ceil(4),
                }),
                RegFile::FixedGrf => Read::Payload(s.nr),
                RegFile::Arf if s.nr & 0xf0 == arf::ACCUMULATOR => Read::Regs(Range {
                    space: Space::Acc,
                    first: s.offset / 4,
                    dwords: len.div_ceil(4),
                }),
                RegFile::Arf if s.nr & 0xf0 == arf::FLAG => Read::Regs(Range {
                    space: Space::Flag,
                    first: (s.nr & 0xf) * 2 + s.offset / 2,
                    dwords: 1,
                }),
                _ => return None,
            };
            d.srcs.push(modifiers(s.mods.negate(), s.mods.abs()));
            reads.push((pos, read));
            pos += 1;
        }
        if c.predicate != Predicate::None {
            reads.push((
                u8::MAX,
                Read::Regs(Range {
                    space: Space::Flag,
                    first: c.flag_subreg as u32,
                    dwords: 1,
                }),
            ));
        }
        let dst = shader.insts.dst[inst];
        let written = shader.insts.size_written[inst];
        match dst.file {
            RegFile::Vgrf => writes.push(Range {
                space: Space::Vgrf(dst.nr),
                first: dst.offset / 4,
                dwords: written.div_ceil(4),
            }),
            RegFile::Arf if dst.nr & 0xf0 == arf::ACCUMULATOR => writes.push(Range {
                space: Space::Acc,
                first: dst.offset / 4,
                dwords: written.div_ceil(4),
            }),
            RegFile::Arf if dst.nr & 0xf0 == arf::FLAG => writes.push(Range {
                space: Space::Flag,
                first: (dst.nr & 0xf) * 2 + dst.offset / 2,
                dwords: 1,
            }),
            RegFile::Bad => d.dst_null = cf == ControlFlow::None,
            RegFile::Arf if dst.nr == arf::NULL => d.dst_null = true,
            _ => return None,
        }
        if c.cmod != CondMod::None && cmod_writes_flag(name) {
            writes.push(Range {
                space: Space::Flag,
                first: c.flag_subreg as u32,
                dwords: 1,
            });
        }
        g.add(d.label(), &reads, &writes, send);
        if cf != ControlFlow::None {
            g.block();
        }
    }
    Some(g)
}

/// A register operand of a listing: `-(abs)g12.3<8,8,1>UD`, `g53UD`, `acc0<1>UD`,
/// `null<1>F`, `f0.0<0,1,0>UW`: (file, number, sub-register, region, type, negate, abs).
struct AsmOperand<'a> {
    file: &'a str,
    nr: u32,
    sub: u32,
    region: Option<(u32, u32, u32)>,
    ty: &'a str,
    neg: bool,
    abs: bool,
}

fn asm_operand(w: &str) -> Option<AsmOperand<'_>> {
    let mut s = w;
    let mut neg = false;
    let mut abs = false;
    loop {
        if let Some(r) = s.strip_prefix('-').or_else(|| s.strip_prefix('~')) {
            neg = true;
            s = r;
        } else if let Some(r) = s.strip_prefix("(abs)") {
            abs = true;
            s = r;
        } else {
            break;
        }
    }
    let name_end = s.find(|c: char| !c.is_ascii_lowercase())?;
    let file = &s[..name_end];
    let rest = &s[name_end..];
    let num_end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let nr = if num_end == 0 {
        0
    } else {
        rest[..num_end].parse().ok()?
    };
    let mut rest = &rest[num_end..];
    let mut sub = 0;
    if let Some(r) = rest.strip_prefix('.') {
        let e = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
        if e > 0 {
            sub = r[..e].parse().ok()?;
            rest = &r[e..];
        }
    }
    let mut region = None;
    if let Some(r) = rest.strip_prefix('<') {
        let (inside, after) = r.split_once('>')?;
        let nums: Vec<u32> = inside
            .split(',')
            .map(|x| x.parse().ok())
            .collect::<Option<_>>()?;
        region = Some(match nums[..] {
            [h] => (0, 0, h),
            [v, w, h] => (v, w, h),
            _ => return None,
        });
        rest = after;
    }
    // An Align16 swizzle or writemask (`.xyzw`) before the type.
    if let Some(r) = rest.strip_prefix('.') {
        let e = r.find(|c: char| !c.is_ascii_lowercase()).unwrap_or(r.len());
        rest = &r[e..];
    }
    if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_uppercase()) {
        return None;
    }
    // Numbers no register file has (a GRF file of 128, strides and widths of at most 32)
    // are no operand: the offsets computed from them stay in range.
    let in_range = |x: u32| x <= 255;
    if !in_range(nr) || !in_range(sub) || region.is_some_and(|(v, w, h)| v > 32 || w > 32 || h > 32)
    {
        return None;
    }
    Some(AsmOperand {
        file,
        nr,
        sub,
        region,
        ty: rest,
        neg,
        abs,
    })
}

/// An immediate operand of a listing (`0x3f000000F`, `-1D`, `0xaaabUW`, `0x76543210UV`).
fn asm_immediate(w: &str) -> Option<String> {
    let ty_start = w.find(|c: char| c.is_ascii_uppercase())?;
    let (v, ty) = w.split_at(ty_start);
    let ty = Type::from_letters(ty)?;
    let bits: u64 = if let Some(h) = v.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()?
    } else if let Some(n) = v.strip_prefix('-') {
        (n.parse::<u64>().ok()?).wrapping_neg()
    } else {
        v.parse().ok()?
    };
    Some(immediate(ty, bits))
}

/// A source word of a listing that is an immediate (a number, not a negated register):
/// its description.
fn source_immediate(w: &str) -> Option<String> {
    let number = w.starts_with(|c: char| c.is_ascii_digit() || c == '-')
        && !w.starts_with("-g")
        && !w.starts_with("-(");
    asm_immediate(w).filter(|_| number)
}

fn math_function(f: &str) -> Option<&'static str> {
    Some(match f {
        "inv" => "rcp",
        "log" => "log2",
        "exp" => "exp2",
        "sqrt" => "sqrt",
        "rsq" => "rsq",
        "sin" => "sin",
        "cos" => "cos",
        "pow" => "pow",
        "intdiv" => "int_quot",
        "intmod" => "int_rem",
        _ => return None,
    })
}

/// Control flow mnemonics of a listing (their operands are jump targets).
fn asm_control_flow(op: &str) -> bool {
    matches!(
        op,
        "if" | "else" | "endif" | "while" | "break" | "cont" | "halt" | "jmpi" | "do"
    )
}

/// The data-flow graph of a program of a listing (its lines after the statistics line),
/// with the holes in its writes' data taken from the graph of its pre-allocation dump,
/// and which of its sends are URB messages: for each send of [`Graph::sends`], the index
/// of its `urb MsgDesc:` decode among the program's, if it has one. `None` where a line is
/// one this reader does not take apart.
pub fn listing_graph(lines: &[&str], pre_ra: &Graph) -> Option<(Graph, Vec<Option<usize>>)> {
    let mut g = Graph {
        given_holes: Some(pre_ra.holes.clone()),
        ..Graph::default()
    };
    let mut urb_of_send: Vec<Option<usize>> = Vec::new();
    let mut urb_count = 0;
    let mut written_ever = std::collections::HashSet::new();
    for (li, line) in lines.iter().enumerate() {
        let (t, mut words) = match listing_line(line) {
            ListingLine::Block => {
                g.block();
                continue;
            }
            ListingLine::Other(t) => {
                if t.starts_with("urb MsgDesc: ") {
                    let last = urb_of_send.last_mut()?;
                    *last = Some(urb_count);
                    urb_count += 1;
                }
                // Decode lines of other messages, labels, blank lines.
                continue;
            }
            ListingLine::Inst(t, words) => (t, words),
        };
        let Some(head) = parse_head(&mut words)? else {
            continue;
        };
        let (pred, pred_flag, mut op, exec) = (head.pred, head.pred_flag, head.op, head.exec);
        let (sat, cmod, flag) = (head.sat, head.cmod, head.flag);
        let send = matches!(op.as_str(), "send" | "sends" | "sendc" | "sendsc");
        let split = op.ends_with('s') && send || op == "sendsc";
        if op == "sends" {
            op = "send".to_string();
        } else if op == "sendsc" {
            op = "sendc".to_string();
        }
        let cf = asm_control_flow(&op);
        if op == "do" {
            g.block();
            continue;
        }
        if cf {
            g.block();
        }
        let options = t.split_once('{').map_or("", |(_, o)| o);
        let mut d = Desc {
            op: op.clone(),
            exec,
            sat,
            nomask: options.split_whitespace().any(|o| o == "WE_all"),
            pred,
            cmod,
            ..Desc::default()
        };
        let ops = operand_words(words);
        let mut reads: Vec<(u8, Read)> = Vec::new();
        let mut writes: Vec<Range> = Vec::new();
        if cf {
            // Jump targets only.
        } else if send {
            let (desc_k, payloads) = if split { (3, 2) } else { (2, 1) };
            let desc = ops
                .get(desc_k)
                .and_then(|d| d.strip_prefix("0x"))
                .and_then(|d| u32::from_str_radix(d, 16).ok())?;
            let ex_mlen = if split {
                let ex = ops
                    .get(desc_k + 1)
                    .and_then(|d| d.strip_prefix("0x"))
                    .and_then(|d| u32::from_str_radix(d, 16).ok())?;
                (ex >> 6) & 0x1f
            } else {
                0
            };
            let mlen = crate::message::mlen(desc);
            let rlen = crate::message::rlen(desc);
            // The disassembler prints a send's options, EOT among them, after the
            // descriptor's decode on the next line.
            let eot = |l: &str| {
                l.split_once('{')
                    .is_some_and(|(_, o)| o.split_whitespace().any(|w| w == "EOT" || w == "EOT};"))
            };
            let next = lines.get(li + 1).filter(|l| l.contains("MsgDesc:"));
            d.send = Some((mlen, ex_mlen, eot(t) || next.is_some_and(|l| eot(l))));
            let mut pos = 0;
            for (k, len) in (1..=payloads).zip([mlen, ex_mlen]) {
                let o = asm_operand(ops.get(k)?)?;
                if o.file == "null" {
                    continue;
                }
                if o.file != "g" {
                    return None;
                }
                d.srcs.push(modifiers(o.neg, o.abs));
                reads.push((pos, grf_read(&written_ever, o.nr * 8 + o.sub, len * 8)));
                pos += 1;
            }
            let dst = asm_operand(ops.first()?)?;
            match dst.file {
                "null" => d.dst_null = true,
                "g" => {
                    writes.push(Range {
                        space: Space::Grf,
                        first: dst.nr * 8,
                        dwords: rlen * 8,
                    });
                }
                _ => return None,
            }
        } else {
            let mut pos = 0u8;
            for w in ops.iter().skip(1) {
                if let Some(imm) = source_immediate(w) {
                    d.srcs.push(imm);
                    pos += 1;
                    continue;
                }
                let o = asm_operand(w)?;
                if o.file == "null" {
                    continue;
                }
                let size = type_bytes(o.ty)?;
                let (v, wd, h) = o.region.unwrap_or((0, 0, 0));
                let span = if wd == 0 {
                    size
                } else {
                    let rows = exec.div_ceil(wd);
                    (rows - 1) * v * size + (wd - 1) * h * size + size
                };
                let read = match o.file {
                    "g" => {
                        let first = o.nr * 32 + o.sub * size;
                        grf_read(&written_ever, first / 4, span.div_ceil(4))
                    }
                    "acc" => Read::Regs(Range {
                        space: Space::Acc,
                        first: o.sub * size / 4,
                        dwords: span.div_ceil(4),
                    }),
                    "f" => Read::Regs(Range {
                        space: Space::Flag,
                        first: o.nr * 2 + o.sub,
                        dwords: 1,
                    }),
                    _ => return None,
                };
                d.srcs.push(modifiers(o.neg, o.abs));
                reads.push((pos, read));
                pos += 1;
            }
            let dst = asm_operand(ops.first()?)?;
            let size = type_bytes(dst.ty)?;
            let h = dst.region.map_or(1, |r| r.2.max(1));
            let span = (exec - 1) * h * size + size;
            match dst.file {
                "null" => d.dst_null = true,
                "g" => writes.push(Range {
                    space: Space::Grf,
                    first: (dst.nr * 32 + dst.sub * size) / 4,
                    dwords: span.div_ceil(4),
                }),
                "acc" => writes.push(Range {
                    space: Space::Acc,
                    first: dst.sub * size / 4,
                    dwords: span.div_ceil(4),
                }),
                "f" => writes.push(Range {
                    space: Space::Flag,
                    first: dst.nr * 2 + dst.sub,
                    dwords: 1,
                }),
                _ => return None,
            }
        }
        if let Some(p) = pred.map(|_| pred_flag) {
            reads.push((
                u8::MAX,
                Read::Regs(Range {
                    space: Space::Flag,
                    first: p,
                    dwords: 1,
                }),
            ));
        }
        if !cmod.is_empty() && cmod_writes_flag(&op) {
            writes.push(Range {
                space: Space::Flag,
                first: flag.unwrap_or(0),
                dwords: 1,
            });
        }
        for w in &writes {
            if w.space == Space::Grf {
                for r in w.first / 8..(w.first + w.dwords.max(1)).div_ceil(8) {
                    written_ever.insert(r);
                }
            }
        }
        g.add(d.label(), &reads, &writes, send);
        if send {
            urb_of_send.push(None);
        }
        if cf {
            g.block();
        }
    }
    Some((g, urb_of_send))
}

/// One line of a program of a listing, as the data-flow readers take it.
enum ListingLine<'a> {
    /// `START B` or `END B`: a block boundary.
    Block,
    /// An instruction (the line, trimmed) and its words after the encoding.
    Inst(&'a str, std::iter::Peekable<std::str::SplitWhitespace<'a>>),
    /// Anything else, trimmed: a message's decode, a label, a blank line.
    Other(&'a str),
}

fn listing_line(line: &str) -> ListingLine<'_> {
    let t = line.trim_start();
    if t.starts_with("START B") || t.starts_with("END B") {
        return ListingLine::Block;
    }
    let mut words = t.split_whitespace().peekable();
    if super::listing::skip_encoding(&mut words) {
        ListingLine::Inst(t, words)
    } else {
        ListingLine::Other(t)
    }
}

/// The head of an instruction of a listing: predicate, mnemonic (a math function by its
/// IR name), execution size and modifiers.
struct Head {
    /// `Some(inverted)` when predicated, and the predicate's flag subregister.
    pred: Option<bool>,
    pred_flag: u32,
    op: String,
    exec: u32,
    sat: bool,
    cmod: &'static str,
    /// The flag subregister a conditional modifier writes, where it names one.
    flag: Option<u32>,
}

/// The head of the instruction whose words (after the encoding) are `words`: `(+f0.0)
/// cmp.nz.f0.0(8)`, `mov.sat(8)`, `math.sat inv(8)`, `send(8)`. `Some(None)` for a `nop`;
/// `None` where a word is not one of these.
fn parse_head<'a>(words: &mut impl Iterator<Item = &'a str>) -> Option<Option<Head>> {
    let mut word = words.next()?;
    if word == "nop" {
        return Some(None);
    }
    let mut pred = None;
    let mut pred_flag = 0;
    if let Some(p) = word.strip_prefix('(') {
        let p = p.strip_suffix(')')?;
        let (inv, f) = match p.as_bytes().first()? {
            b'+' => (false, &p[1..]),
            b'-' => (true, &p[1..]),
            _ => (false, p),
        };
        let f = f.strip_prefix('f')?;
        let mut parts = f.split('.');
        let r: u32 = parts.next()?.parse().ok()?;
        let s: u32 = parts.next()?.parse().ok()?;
        pred = Some(inv);
        pred_flag = r * 2 + s;
        word = words.next()?;
    }
    let (head, exec, math) = if word.contains('(') {
        let (h, e) = word.split_once('(')?;
        (h, e, None)
    } else {
        let (func, exec) = words.next()?.split_once('(')?;
        (word, exec, Some(math_function(func)?))
    };
    let exec: u32 = exec.strip_suffix(')')?.parse().ok()?;
    // An execution size the EU has (what else a line says is not an instruction).
    if !matches!(exec, 1 | 2 | 4 | 8 | 16 | 32) {
        return None;
    }
    let mut parts = head.split('.');
    let base = parts.next()?;
    let op: String = match (base, math) {
        ("math", Some(f)) => f.to_string(),
        (_, None) => base.to_string(),
        _ => return None,
    };
    let mut sat = false;
    let mut cmod: &'static str = "";
    let mut flag: Option<u32> = None;
    let rest: Vec<&str> = parts.collect();
    let mut i = 0;
    while i < rest.len() {
        let p = rest[i];
        if p == "sat" {
            sat = true;
        } else if let Some(r) = p.strip_prefix('f').filter(|r| r.parse::<u32>().is_ok()) {
            let s: u32 = rest.get(i + 1)?.parse().ok()?;
            flag = Some(r.parse::<u32>().ok()? * 2 + s);
            i += 1;
        } else if let Some(c) = CondMod::from_name(p) {
            cmod = c.name();
        } else {
            return None;
        }
        i += 1;
    }
    if op == "nop" {
        return Some(None);
    }
    Some(Some(Head {
        pred,
        pred_flag,
        op,
        exec,
        sat,
        cmod,
        flag,
    }))
}

/// The operands of an instruction of a listing, up to its options, without comments
/// (`/* 0.5F */`).
fn operand_words<'a>(words: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut ops: Vec<&str> = Vec::new();
    let mut comment = false;
    for w in words {
        if w.starts_with('{') {
            break;
        }
        if w.starts_with("/*") {
            comment = !w.ends_with("*/") || w.len() < 4;
            continue;
        }
        if comment {
            if w.ends_with("*/") {
                comment = false;
            }
            continue;
        }
        ops.push(w);
    }
    ops
}

fn type_bytes(ty: &str) -> Option<u32> {
    Some(match ty {
        "UB" | "B" => 1,
        "UW" | "W" | "HF" => 2,
        "UD" | "D" | "F" | "VF" | "V" | "UV" => 4,
        "UQ" | "Q" | "DF" => 8,
        _ => return None,
    })
}

/// A read of the GRF file at dword `first` of a listing: a payload register when nothing
/// before wrote any register it reads (its number), else registers.
fn grf_read(written_ever: &std::collections::HashSet<u32>, first: u32, dwords: u32) -> Read {
    let regs = first / 8..(first + dwords.max(1)).div_ceil(8);
    if regs.clone().all(|r| !written_ever.contains(&r)) {
        return Read::Payload(first / 8);
    }
    Read::Regs(Range {
        space: Space::Grf,
        first,
        dwords,
    })
}

/// Colours both graphs by refinement until no class splits; the colours of each graph's
/// nodes.
fn refine(a: &Graph, b: &Graph) -> (Vec<u32>, Vec<u32>) {
    let graphs = [a, b];
    let mut labels: HashMap<&str, u32> = HashMap::new();
    let mut colours: Vec<Vec<u32>> = graphs
        .iter()
        .map(|g| {
            g.labels
                .iter()
                .map(|l| {
                    let n = labels.len() as u32;
                    *labels.entry(l.as_str()).or_insert(n)
                })
                .collect()
        })
        .collect();
    // The consumers of each node: (consumer, position, dword of the source, dword of the
    // destination read first).
    let outs: Vec<Vec<Vec<(u32, u8, u32, u32)>>> = graphs
        .iter()
        .map(|g| {
            let mut o = vec![Vec::new(); g.labels.len()];
            for (n, ins) in g.ins.iter().enumerate() {
                for &(pos, at, origin) in ins {
                    if let Origin::Node(p, dw) = origin {
                        o[p as usize].push((n as u32, pos, at, dw));
                    }
                }
            }
            o
        })
        .collect();
    let mut classes = labels.len();
    loop {
        let mut interned: HashMap<Vec<u128>, u32> = HashMap::new();
        let mut next: Vec<Vec<u32>> = Vec::with_capacity(2);
        for (gi, g) in graphs.iter().enumerate() {
            let c = &colours[gi];
            let mut out = Vec::with_capacity(c.len());
            for n in 0..c.len() {
                let mut sig: Vec<u128> = vec![c[n] as u128];
                for &(pos, at, origin) in &g.ins[n] {
                    let (kind, v, dw) = match origin {
                        Origin::Node(p, dw) => (0u128, c[p as usize] as u128, dw as u128),
                        Origin::Payload(r) => (1, r as u128, 0),
                        Origin::LiveIn => (2, 0, 0),
                    };
                    sig.push(kind << 120 | (pos as u128) << 96 | (at as u128) << 64 | dw << 32 | v);
                }
                sig.push(u128::MAX);
                let mut consumers: Vec<u128> = outs[gi][n]
                    .iter()
                    .map(|&(m, pos, at, dw)| {
                        (pos as u128) << 96
                            | (at as u128) << 64
                            | (dw as u128) << 32
                            | c[m as usize] as u128
                    })
                    .collect();
                consumers.sort_unstable();
                sig.extend(consumers);
                let k = interned.len() as u32;
                out.push(*interned.entry(sig).or_insert(k));
            }
            next.push(out);
        }
        let count = interned.len();
        colours = next;
        if count <= classes {
            break;
        }
        classes = count;
    }
    let b_colours = colours.pop().unwrap_or_default();
    let a_colours = colours.pop().unwrap_or_default();
    (a_colours, b_colours)
}

/// For each send of `pre_ra` (program order), the sends of `listed` (indices into its
/// [`Graph::sends`]) of the same colour after refinement: the final-code sends it may be.
/// `None` where a class of sends does not have as many members on both sides (the two
/// graphs are then not the same computation).
pub fn match_sends(pre_ra: &Graph, listed: &Graph) -> Option<Vec<Vec<usize>>> {
    if pre_ra.sends.len() != listed.sends.len() {
        return None;
    }
    let (a, b) = refine(pre_ra, listed);
    let mut by_colour: HashMap<u32, Vec<usize>> = HashMap::new();
    for (k, &n) in listed.sends.iter().enumerate() {
        by_colour.entry(b[n as usize]).or_default().push(k);
    }
    let mut count: HashMap<u32, usize> = HashMap::new();
    for &n in &pre_ra.sends {
        *count.entry(a[n as usize]).or_default() += 1;
    }
    let mut out = Vec::with_capacity(pre_ra.sends.len());
    for &n in &pre_ra.sends {
        let c = a[n as usize];
        let same = by_colour.get(&c)?;
        if same.len() != count[&c] {
            return None;
        }
        out.push(same.clone());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{import_mesa_dump, DumpName};
    use crate::target::Gen;

    /// A TES pre-allocation dump: two URB reads of one shape, each compared with its own
    /// constant, then the thread's end.
    fn dump(second_imm: &str, used: bool) -> Shader {
        let mut text = format!(
            "\
{{  1}}    0: mov(8) vgrf9:UD, g0<0>:UD NoMask 
{{  5}}    1: send(8) (mlen: 1) vgrf1:F, 0u, 0u, vgrf9:F, null:F 
{{  5}}    2: send(8) (mlen: 1) vgrf2:F, 0u, 0u, vgrf9:F, null:F 
{{  6}}    3: cmp.nz.f0.0(8) vgrf3:D, vgrf1:D, 5d 
{{  6}}    4: cmp.nz.f0.0(8) vgrf4:D, vgrf2:D, {second_imm} 
{{  6}}    5: or(8) vgrf5:UD, vgrf3:UD, vgrf4:UD 
{{  6}}    6: send(8) (mlen: 1) (ex_mlen: 1) (EOT) null:F, 0u, 0u, vgrf9:F, vgrf5:F 
Maximum 6 registers live at once.
"
        );
        if !used {
            text = text.replace("or(8) vgrf5:UD, vgrf3:UD, vgrf4:UD", "mov(8) vgrf5:UD, 0u");
        }
        let name = DumpName::parse("TES8-GLSL1-90-90-pre_register_allocate").unwrap();
        import_mesa_dump(&text, &name, "t", Gen::Gen9).unwrap()
    }

    /// Its final code with the two reads in the other order (the scheduler's), each
    /// compared as in the dump.
    fn listing(second_imm: &str) -> String {
        let b = "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00";
        format!(
            "   START B0 (10 cycles)
{b} mov(8)          g7<1>UD         g0<0,1,0>UD                     {{ align1 WE_all 1Q }};
{b} send(8)         g10<1>UW        g7<0,1,0>UD     0x02180018
                            urb MsgDesc: offset 3 SIMD8 read mlen 1 rlen 1 {{ align1 1Q }};
{b} send(8)         g11<1>UW        g7<0,1,0>UD     0x02180008
                            urb MsgDesc: offset 2 SIMD8 read mlen 1 rlen 1 {{ align1 1Q }};
{b} cmp.nz.f0.0(8)  g12<1>D         g11<8,8,1>D     5D              {{ align1 1Q }};
{b} cmp.nz.f0.0(8)  g13<1>D         g10<8,8,1>D     {second_imm}              {{ align1 1Q }};
{b} or(8)           g14<1>UD        g12<8,8,1>UD    g13<8,8,1>UD    {{ align1 1Q }};
{b} sends(8)        nullUD          g7UD            g14UD           0x02080017                0x00000040
                            urb MsgDesc: offset 1 SIMD8 write mlen 1 ex_mlen 1 rlen 0 {{ align1 1Q EOT }};
   END B0
"
        )
    }

    fn matched(dump_imm: &str, listing_imm: &str, used: bool) -> Option<Vec<Vec<usize>>> {
        let a = pre_ra_graph(&dump(dump_imm, used)).unwrap();
        let mut text = listing(listing_imm);
        if !used {
            text = text.replace(
                "or(8)           g14<1>UD        g12<8,8,1>UD    g13<8,8,1>UD",
                "mov(8)          g14<1>UD        0x00000000UD",
            );
        }
        let lines: Vec<&str> = text.lines().collect();
        let (b, urb) = listing_graph(&lines, &a).unwrap();
        assert_eq!(urb, [Some(0), Some(1), Some(2)]);
        match_sends(&a, &b)
    }

    /// The reads are told apart by what their values are compared with: the dump's first
    /// read is the listing's second send, and the write (the thread's end) the write.
    #[test]
    fn reads_are_paired_by_the_constants_their_values_meet() {
        assert_eq!(
            matched("7d", "7D", true),
            Some(vec![vec![1], vec![0], vec![2]])
        );
        // With the same constant, the `or`'s sources still tell them apart.
        assert_eq!(
            matched("5d", "5D", true),
            Some(vec![vec![1], vec![0], vec![2]])
        );
    }

    /// Where nothing tells the reads apart (both compared with 5, the results unused),
    /// each may be either send.
    #[test]
    fn reads_of_the_same_data_flow_stay_ambiguous() {
        assert_eq!(
            matched("5d", "5D", false),
            Some(vec![vec![0, 1], vec![0, 1], vec![2]])
        );
    }

    /// A listing of another computation (a constant that is not the dump's) pairs
    /// nothing: its classes do not have as many sends on both sides.
    #[test]
    fn another_computation_pairs_nothing() {
        assert_eq!(matched("7d", "8D", true), None);
    }

    /// The two printers' spellings describe an instruction alike: a word immediate by its
    /// replicated dword, a float at six significant digits, `math inv` as `rcp`.
    #[test]
    fn immediates_and_math_are_described_alike() {
        assert_eq!(
            immediate(Type::UW, 0xaaab),
            immediate(Type::UD, 0xaaab_aaab)
        );
        assert_eq!(asm_immediate("0xaaabUW"), Some(immediate(Type::UW, 0xaaab)));
        assert_eq!(
            asm_immediate("0x3eaaaaabF"),
            Some(immediate(Type::F, (0.333333f32).to_bits() as u64))
        );
        assert_eq!(
            asm_immediate("-1D"),
            Some(immediate(Type::D, u32::MAX as u64))
        );
        assert_eq!(math_function("inv"), Some("rcp"));
    }
}
