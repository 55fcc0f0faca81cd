//! The data-flow graphs of vec4 code (Mesa's gen7 vertex, tessellation and geometry
//! stages), for [`super::match_sends`]: which URB read of Mesa's final code is which
//! `urb_read` of its pre-allocation dump.
//!
//! Mesa's vec4 back end schedules only after register allocation
//! (brw_schedule_instructions.cpp, `vec4_instruction_scheduler` is `SCHEDULE_POST`), and
//! its IR printer (brw_vec4.cpp `dump_instruction`) prints neither a URB read's offset nor
//! its payload length, so the final code tells the offsets and the dump the program order,
//! and nothing pairs them where the scheduler moved reads. The computation pairs them, as
//! in scalar code (the module doc of [`super`]), with what differs in vec4 code:
//!
//! - **Registers by dword, channels by swizzle.** A register holds two vec4s (SIMD4x2);
//!   dword `4h + c` is channel `c` of half `h`. A destination writes the channels of its
//!   writemask in each half it executes for; a source reads, for each enabled channel, the
//!   one its swizzle names (brw_vec4.cpp `vec4_instruction::reads_channel`): the same
//!   dwords on both sides, since vec4 allocation keeps every channel in place (whole
//!   registers, brw_vec4_reg_allocate.cpp).
//! - **What the generator expands is opaque.** The dump's virtual opcodes that are no
//!   message (URB header and offset builders, `tcs_get_instance_id`, `broadcast`, ...) are
//!   emitted by brw_vec4_generator.cpp as Align1 sequences of another shape, so on both
//!   sides such code is *opaque*: a dump instruction of a virtual opcode, a listing
//!   instruction in Align1. A source that reads opaque values reads one node standing for
//!   all of them, whose inputs are the computed (non-opaque) values those opaque
//!   instructions read, transitively, without order or position: an indirect URB read's
//!   header (`tes_add_indirect_urb_offset`) keeps the index it adds.
//! - **Thread inputs have no number.** The dump's push constants (`u65532`) and inputs
//!   are numbered otherwise than the final code's registers: every read of a register
//!   nothing wrote is one leaf, a thread input.
//! - **Message registers.** vec4 messages read a payload of message registers
//!   (`m2`, the final code's `g114`: brw_vec4.h `GFX7_MRF_HACK_START`, 112) that the dump
//!   does not print as a source; a write to one says which in its label, and message
//!   registers are read by no node on either side.
//! - **Messages** other than the URB reads are labelled by whether they respond; the
//!   k-th message without a response (they have side effects: nothing moves across them)
//!   is the k-th of the final code. Barriers are gateway messages in Align1: opaque.
//! - **Spills are moves.** Where the dump has no scratch messages, the final code's are
//!   the allocator's spills and fills; a fill's register holds the value its slot's spill
//!   stored, and neither is a node.
//!
//! 64-bit values (`df`, gen7's split doubles) are not described: the graphs are `None`.

use std::collections::HashMap;

use super::{Desc, Graph, Origin, Space};
use crate::opcode::{ControlFlow, Opcode};
use crate::operand::{arf, RegFile, Region};
use crate::shader::{CondMod, Predicate, Shader};
use crate::types::Type;

/// gen7's message registers are the GRFs from here on (brw_vec4.h `GFX7_MRF_HACK_START`).
const MRF_HACK_START: u32 = 112;

/// The last writer of a dword: a node (and the first dword of its destination), or an
/// opaque instruction (its index into [`Builder::opaque`]).
#[derive(Clone, Copy, Debug)]
enum Writer {
    Node(u32, u32),
    /// A node's value moved through a spill and its fill: its dword `.1`, wherever it is.
    At(u32, u32),
    /// A thread input moved through a spill.
    Input,
    Opaque(u32),
}

/// A graph under construction: the writers of the current block, the opaque
/// instructions' flattened inputs.
#[derive(Default)]
struct Builder {
    g: Graph,
    writers: HashMap<(Space, u32), Writer>,
    /// Per opaque instruction: the nodes it reads, directly or through other opaque ones.
    opaque: Vec<Vec<u32>>,
    /// Messages without a response so far.
    writes: u32,
    /// Spill slots (by their offset) of the final code, each dword's value.
    slots: HashMap<u32, [Option<Writer>; 8]>,
}

/// One source as the graph sees it: the dwords it reads, relative to its own start
/// (`rel`), in one space; or a thread input.
enum Source {
    Dwords(Space, Vec<(u32, u32)>),
    Input,
}

impl Builder {
    fn block(&mut self) {
        self.writers.clear();
        self.slots.clear();
    }

    /// The value dword `d` of `space` holds, to be moved elsewhere (a spill's data).
    fn value_of(&self, space: Space, d: u32) -> Option<Writer> {
        match self.writers.get(&(space, d))? {
            Writer::Node(n, base) => Some(Writer::At(*n, d - base)),
            w => Some(*w),
        }
    }

    /// The nodes `srcs` read, through opaque writers, sorted and without repeats.
    fn flattened(&self, srcs: &[Source]) -> Vec<u32> {
        let mut out = Vec::new();
        for s in srcs {
            if let Source::Dwords(space, dws) = s {
                for &(d, _) in dws {
                    match self.writers.get(&(*space, d)) {
                        Some(Writer::Node(n, _)) | Some(Writer::At(n, _)) => out.push(*n),
                        Some(Writer::Opaque(o)) => out.extend(&self.opaque[*o as usize]),
                        Some(Writer::Input) | None => {}
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// An opaque instruction: records what it reads for those that read it.
    fn opaque(&mut self, srcs: &[Source], writes: &[(Space, Vec<u32>)]) {
        let id = self.opaque.len() as u32;
        let ins = self.flattened(srcs);
        self.opaque.push(ins);
        for (space, dws) in writes {
            for &d in dws {
                self.writers.insert((*space, d), Writer::Opaque(id));
            }
        }
    }

    /// A node reading `srcs` (by source position) and writing `writes` (each with the
    /// first dword of its destination).
    fn node(
        &mut self,
        label: String,
        srcs: &[(u8, Source)],
        writes: &[(Space, Vec<u32>, u32)],
        send: bool,
    ) -> u32 {
        let send_like = send || label.starts_with("msg");
        let mut ins: Vec<(u8, u32, Origin)> = Vec::new();
        for (pos, s) in srcs {
            let dws = match s {
                Source::Input => {
                    ins.push((*pos, 0, Origin::Payload(0)));
                    continue;
                }
                Source::Dwords(space, dws) => (space, dws),
            };
            let mut opaque_seen = false;
            let mut last: Option<Origin> = None;
            for &(d, rel) in dws.1 {
                let o = match self.writers.get(&(*dws.0, d)) {
                    Some(&Writer::Node(n, base)) => Origin::Node(n, d - base),
                    Some(&Writer::At(n, dw)) => Origin::Node(n, dw),
                    Some(&Writer::Input) => Origin::Payload(0),
                    Some(&Writer::Opaque(_)) => {
                        // Every opaque dword of the source is one node, at its first.
                        if !opaque_seen {
                            opaque_seen = true;
                            let space = *dws.0;
                            let opaque: Vec<(u32, u32)> = dws
                                .1
                                .iter()
                                .copied()
                                .filter(|&(d, _)| {
                                    matches!(self.writers.get(&(space, d)), Some(Writer::Opaque(_)))
                                })
                                .collect();
                            let group = self.flattened(&[Source::Dwords(space, opaque)]);
                            // A message's header built from the thread's payload alone
                            // (an input release's) is no source of the dump's message.
                            if !(send_like && group.is_empty()) {
                                let n = self.group(group);
                                ins.push((*pos, rel, Origin::Node(n, 0)));
                            }
                        }
                        last = None;
                        continue;
                    }
                    None => Origin::LiveIn,
                };
                super::push_edge(&mut ins, &mut last, (*pos, rel, o));
            }
        }
        let node = self.g.labels.len() as u32;
        for (space, dws, base) in writes {
            for &d in dws {
                self.writers.insert((*space, d), Writer::Node(node, *base));
            }
        }
        self.g.labels.push(label);
        self.g.ins.push(ins);
        if send {
            self.g.sends.push(node);
        }
        node
    }

    /// The node standing for opaque values that read `nodes`.
    fn group(&mut self, nodes: Vec<u32>) -> u32 {
        let n = self.g.labels.len() as u32;
        self.g.labels.push("opaque".into());
        self.g.ins.push(
            nodes
                .into_iter()
                .map(|m| (0, 0, Origin::Node(m, 0)))
                .collect(),
        );
        n
    }

    fn message_label(&mut self, responds: bool) -> String {
        if responds {
            "msg".into()
        } else {
            let k = self.writes;
            self.writes += 1;
            format!("msg write#{k}")
        }
    }
}

/// The channels (0..4) a swizzle reads for the channels of `writemask`.
fn swizzled(swizzle: u8, writemask: u8) -> Vec<u32> {
    let mut comps: Vec<u32> = (0..4)
        .filter(|c| writemask >> c & 1 != 0)
        .map(|c| (swizzle >> (2 * c) & 3) as u32)
        .collect();
    comps.sort_unstable();
    comps.dedup();
    comps
}

/// The halves (0, 1) of a register an instruction of `exec` channels at `half` covers.
fn halves(exec: u8, half: u32) -> Vec<u32> {
    if exec >= 8 {
        vec![0, 1]
    } else {
        vec![half]
    }
}

/// Dwords `(absolute, relative)` of `regs` registers from `first_reg`, for channels
/// `comps` of halves `hs`.
fn dwords(space_first: u32, regs: u32, hs: &[u32], comps: &[u32]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for r in 0..regs {
        for &h in hs {
            for &c in comps {
                let rel = r * 8 + h * 4 + c;
                out.push((space_first + rel, rel));
            }
        }
    }
    out.sort_unstable();
    out
}

fn wide(ty: Type) -> bool {
    ty.size() >= 8
}

/// The data-flow graph of a Mesa vec4 pre-allocation dump: `None` where it holds what this
/// does not describe (64-bit values, an unknown register file).
pub fn pre_ra_graph(shader: &Shader) -> Option<Graph> {
    let mut b = Builder::default();
    for inst in shader.layout.insts() {
        let op = shader.insts.opcode[inst];
        let c = shader.insts.control[inst];
        let cf = op.control_flow();
        if cf != ControlFlow::None || op == Opcode::HaltTarget {
            b.block();
            continue;
        }
        let dst = shader.insts.dst[inst];
        let srcs = shader.srcs(inst);
        if wide(dst.ty) || srcs.iter().any(|s| !s.is_null() && wide(s.ty)) {
            return None;
        }
        // Register numbers and offsets beyond any register file: not described (the
        // dword numbers computed from them stay in range).
        let huge = |o: &crate::operand::Operand| {
            o.file != RegFile::Imm && (o.nr > 1 << 20 || o.offset > 1 << 20)
        };
        if huge(&dst) || srcs.iter().any(huge) {
            return None;
        }
        let message = op.is_message() && op != Opcode::Barrier;
        // The math functions are virtual opcodes of the dump, `math` in the final code.
        let alu = (op.is_hardware() || op.is_math()) && !op.is_message();
        let writemask = match dst.file {
            RegFile::Vgrf | RegFile::Mrf | RegFile::FixedGrf | RegFile::Arf => {
                dst.region.swizzle & 0xf
            }
            _ => 0xf,
        };
        let hs = halves(c.exec_size, (dst.offset % 32) / 16);
        // Sources, by position.
        let mut reads: Vec<(u8, Source)> = Vec::new();
        let mut d = Desc::of_dump(op.name(), &c);
        let mut pos = 0u8;
        let mut first_payload = true;
        for s in srcs.iter() {
            if s.is_null() {
                continue;
            }
            let read = match s.file {
                RegFile::Imm => {
                    // A message's immediates (surface, offsets) are its descriptor in the
                    // final code: not compared.
                    if !message {
                        d.srcs.push(super::immediate(s.ty, s.imm_bits()));
                        pos += 1;
                    }
                    continue;
                }
                RegFile::Vgrf => {
                    let reg = s.offset / 32;
                    let (regs, comps) = if message && first_payload {
                        first_payload = false;
                        let size = shader
                            .vgrfs
                            .get(crate::Vgrf::from_raw(s.nr))
                            .map_or(32, |l| l.size());
                        (
                            size.div_ceil(32).saturating_sub(reg).max(1),
                            swizzled(s.region.swizzle, 0xf),
                        )
                    } else {
                        (1, swizzled(s.region.swizzle, writemask))
                    };
                    let src_hs = if message { vec![0, 1] } else { hs.clone() };
                    Source::Dwords(Space::Vgrf(s.nr), dwords(reg * 8, regs, &src_hs, &comps))
                }
                RegFile::Uniform | RegFile::Attr | RegFile::FixedGrf => Source::Input,
                RegFile::Arf if s.nr & 0xf0 == arf::ACCUMULATOR => Source::Dwords(
                    Space::Acc,
                    dwords(0, 1, &hs, &swizzled(s.region.swizzle, writemask)),
                ),
                RegFile::Arf if s.nr & 0xf0 == arf::FLAG => {
                    Source::Dwords(Space::Flag, vec![((s.nr & 0xf) * 2 + s.offset / 2, 0)])
                }
                _ => return None,
            };
            if !message {
                d.srcs.push(super::modifiers(s.mods.negate(), s.mods.abs()));
            }
            reads.push((pos, read));
            pos += 1;
        }
        if c.predicate != Predicate::None {
            reads.push((
                u8::MAX,
                Source::Dwords(Space::Flag, vec![(c.flag_subreg as u32, 0)]),
            ));
        }
        let comps = swizzled(Region::XYZW, writemask);
        let mut writes: Vec<(Space, Vec<u32>, u32)> = Vec::new();
        let mut mrf = None;
        match dst.file {
            RegFile::Vgrf => {
                let reg = dst.offset / 32;
                let regs = if message {
                    let size = shader.insts.size_written[inst].max(32);
                    size.div_ceil(32)
                } else {
                    1
                };
                let dws = dwords(reg * 8, regs, &hs, &comps);
                writes.push((
                    Space::Vgrf(dst.nr),
                    dws.iter().map(|x| x.0).collect(),
                    reg * 8,
                ));
            }
            RegFile::Mrf => {
                mrf = Some(dst.nr);
                let first = (MRF_HACK_START + dst.nr) * 8;
                let dws = dwords(first, 1, &hs, &comps);
                writes.push((Space::Grf, dws.iter().map(|x| x.0).collect(), first));
            }
            RegFile::Arf if dst.nr & 0xf0 == arf::ACCUMULATOR => {
                let dws = dwords(0, 1, &hs, &comps);
                writes.push((Space::Acc, dws.iter().map(|x| x.0).collect(), 0));
            }
            RegFile::Arf if dst.nr & 0xf0 == arf::FLAG => {
                let f = (dst.nr & 0xf) * 2 + dst.offset / 2;
                writes.push((Space::Flag, vec![f], f));
            }
            RegFile::Bad => d.dst_null = true,
            RegFile::Arf if dst.nr == arf::NULL => d.dst_null = true,
            // A scratch write's `g0` destination is its header's source.
            RegFile::FixedGrf if message => d.dst_null = true,
            _ => return None,
        }
        if c.cmod != CondMod::None && super::cmod_writes_flag(op.name()) {
            let f = c.flag_subreg as u32;
            writes.push((Space::Flag, vec![f], f));
        }
        if op == Opcode::UrbRead {
            b.node("urb-read".into(), &reads, &writes, true);
        } else if message {
            // An input release names a destination but gets no response
            // (brw_vec4_generator.cpp `generate_tcs_release_input`: rlen 0).
            let responds = dst.file == RegFile::Vgrf && op != Opcode::TcsReleaseInput;
            let label = b.message_label(responds);
            let writes = if responds { writes } else { Vec::new() };
            b.node(label, &reads, &writes, false);
        } else if alu || op == Opcode::MovForScratch {
            if op == Opcode::MovForScratch {
                d.op = "mov".into();
            }
            let mut label = d.label();
            if let Some(m) = mrf {
                label.push_str(&format!(" m{m}"));
            }
            b.node(label, &reads, &writes, false);
        } else {
            let srcs: Vec<Source> = reads.into_iter().map(|(_, s)| s).collect();
            let ws: Vec<(Space, Vec<u32>)> = writes.into_iter().map(|(s, d, _)| (s, d)).collect();
            b.opaque(&srcs, &ws);
        }
    }
    Some(b.g)
}

/// An Align16 register operand of a listing (`-g10<4>.xyyyD`, `g13<1>.xD`, `g5<0>.xUD`,
/// `g34<4,4,1>.xF`, `null<1>F`): its Align1 description and its swizzle or writemask
/// (`None` where it prints none).
fn align16_operand(w: &str) -> Option<(super::AsmOperand<'_>, Option<u8>)> {
    let o = super::asm_operand(w)?;
    let after = w.rsplit_once('>').map_or(w, |(_, a)| a);
    let letters: &str = after
        .strip_prefix('.')
        .map(|r| &r[..r.find(|c: char| !c.is_ascii_lowercase()).unwrap_or(r.len())])
        .unwrap_or("");
    if letters.is_empty() {
        return Some((o, None));
    }
    let mut chans = Vec::new();
    for ch in letters.bytes() {
        chans.push(match ch {
            b'x' => 0u8,
            b'y' => 1,
            b'z' => 2,
            b'w' => 3,
            _ => return None,
        });
    }
    Some((o, Some(chans_code(&chans))))
}

/// A swizzle's code (a one-letter swizzle replicates, `.xyy` repeats its last): or, for a
/// destination, the caller reads the letters as a writemask ([`writemask_of`]).
fn chans_code(chans: &[u8]) -> u8 {
    let mut code = 0u8;
    for c in 0..4 {
        let ch = *chans.get(c).unwrap_or_else(|| chans.last().unwrap_or(&0));
        code |= ch << (2 * c);
    }
    code
}

/// The writemask a destination's letters name (`.xy`: x and y), from their swizzle code
/// and count.
fn writemask_of(w: &str) -> u8 {
    let after = w.rsplit_once('>').map_or(w, |(_, a)| a);
    let Some(r) = after.strip_prefix('.') else {
        return 0xf;
    };
    let mut m = 0u8;
    for ch in r.bytes() {
        match ch {
            b'x' => m |= 1,
            b'y' => m |= 2,
            b'z' => m |= 4,
            b'w' => m |= 8,
            _ => break,
        }
    }
    if m == 0 {
        0xf
    } else {
        m
    }
}

/// What the register allocator's spills and fills are in a listing (brw_vec4_reg_allocate.cpp
/// `spill_reg`, expanded by brw_vec4_generator.cpp `generate_scratch_write` and
/// `generate_scratch_read`: a header copied from g0, the slot's offsets moved into the next
/// message register, for a write the value moved into the one after, then a dataport
/// OWord dual-block message to binding table index 255). The pre-allocation dump has none
/// of it: a spill and its fill are a move of the value, through a slot.
#[derive(Default)]
struct SpillPlan {
    /// Setup lines of spill messages: not part of the computation.
    setup: std::collections::HashSet<usize>,
    /// Per spill write's data move (its line): the send's line.
    data: HashMap<usize, usize>,
    /// Per spill message (its send's line): whether it writes, and the slot's offset.
    sends: HashMap<usize, (bool, u32)>,
}

/// The spills and fills of `lines` ([`SpillPlan`]); `None` where one's setup is not the
/// generator's.
fn spill_plan(lines: &[&str]) -> Option<SpillPlan> {
    let mut plan = SpillPlan::default();
    // The instruction lines: (line, mnemonic, operand words).
    let mut insts: Vec<(usize, String, Vec<&str>)> = Vec::new();
    for (li, line) in lines.iter().enumerate() {
        let mut words = match super::listing_line(line) {
            super::ListingLine::Block => {
                insts.push((li, "block".into(), Vec::new()));
                continue;
            }
            super::ListingLine::Other(_) => continue,
            super::ListingLine::Inst(_, words) => words,
        };
        let Some(Some(head)) = super::parse_head(&mut words) else {
            continue;
        };
        insts.push((li, head.op, super::operand_words(words)));
    }
    for (k, (li, op, ops)) in insts.iter().enumerate() {
        if op != "send" {
            continue;
        }
        let decode = lines.get(li + 1).map(|l| l.trim_start()).unwrap_or("");
        let write = decode.contains("OWORD dual block write, bti 255");
        if !write && !decode.contains("OWORD dual block read, bti 255") {
            continue;
        }
        let payload = super::asm_operand(ops.get(1)?)?.nr;
        let desc = ops
            .get(2)
            .and_then(|d| d.strip_prefix("0x"))
            .and_then(|d| u32::from_str_radix(d, 16).ok())?;
        let mlen = crate::message::mlen(desc);
        let mut slot = None;
        for (lj, op_j, ops_j) in insts[..k].iter().rev() {
            if op_j == "send" || op_j == "block" || super::asm_control_flow(op_j) {
                break;
            }
            let Some(dst) = ops_j.first().and_then(|w| super::asm_operand(w)) else {
                continue;
            };
            if dst.file != "g" || dst.nr < payload || dst.nr >= payload + mlen {
                continue;
            }
            plan.setup.insert(*lj);
            if dst.nr == payload + 1 && dst.sub == 0 && op_j == "mov" {
                slot = ops_j
                    .get(1)
                    .and_then(|w| w.strip_prefix("0x"))
                    .and_then(|w| w.strip_suffix("UD"))
                    .and_then(|w| u32::from_str_radix(w, 16).ok());
            }
            if write && dst.nr == payload + 2 && op_j == "mov" {
                plan.data.insert(*lj, *li);
            }
        }
        plan.sends.insert(*li, (write, slot?));
    }
    Some(plan)
}

/// The data-flow graph of a vec4 program of a listing (its lines after the statistics
/// line), and for each of its sends (the URB reads with per-slot offsets, those
/// [`super::match_sends`] pairs) the index of its `urb MsgDesc:` decode among the
/// program's. With `spills` (the dump has no scratch messages), the dataport scratch
/// messages are the allocator's spills and fills ([`SpillPlan`]): moves of values. `None`
/// where a line is one this reader does not take apart.
pub fn listing_graph(lines: &[&str], spills: bool) -> Option<(Graph, Vec<usize>)> {
    let plan = if spills {
        spill_plan(lines)?
    } else {
        SpillPlan::default()
    };
    // Per spill write (its send's line): the value its data move moved, by dword.
    let mut spilled: HashMap<usize, [Option<Writer>; 8]> = HashMap::new();
    let mut b = Builder::default();
    let mut urb_of_send = Vec::new();
    let mut urb_count = 0usize;
    let mut written_ever = std::collections::HashSet::new();
    for (li, line) in lines.iter().enumerate() {
        let (t, mut words) = match super::listing_line(line) {
            super::ListingLine::Block => {
                b.block();
                continue;
            }
            super::ListingLine::Other(t) => {
                if t.starts_with("urb MsgDesc:") {
                    urb_count += 1;
                }
                continue;
            }
            super::ListingLine::Inst(t, words) => (t, words),
        };
        let Some(head) = super::parse_head(&mut words)? else {
            continue;
        };
        let (pred, pred_flag, op, exec) = (head.pred, head.pred_flag, head.op, head.exec);
        let (sat, cmod, flag) = (head.sat, head.cmod, head.flag);
        if super::asm_control_flow(&op) {
            b.block();
            continue;
        }
        let send = matches!(op.as_str(), "send" | "sendc");
        // A send's options follow its descriptor's decode on the next line.
        let decode = lines
            .get(li + 1)
            .map(|l| l.trim_start())
            .filter(|l| l.contains("MsgDesc:"));
        let options_line = if send { decode.unwrap_or(t) } else { t };
        let options = options_line.split_once('{').map_or("", |(_, o)| o);
        let align1 = options.split_whitespace().any(|o| o == "align1");
        let nomask = options.split_whitespace().any(|o| o == "WE_all");
        let ops = super::operand_words(words);
        if let Some(&send) = plan.data.get(&li) {
            // A spill's data move: the value of its source, channel by channel.
            let (src, swz) = align16_operand(ops.get(1)?)?;
            if src.file != "g" {
                return None;
            }
            let swz = swz.unwrap_or(Region::XYZW);
            let mut moved = [None; 8];
            for (k, m) in moved.iter_mut().enumerate() {
                let (h, c) = (k as u32 / 4, k as u32 % 4);
                let from = src.nr * 8 + h * 4 + (swz >> (2 * c) & 3) as u32;
                *m = if written_ever.contains(&src.nr) {
                    b.value_of(Space::Grf, from)
                } else {
                    Some(Writer::Input)
                };
            }
            spilled.insert(send, moved);
            continue;
        }
        if plan.setup.contains(&li) {
            continue;
        }
        if let Some(&(write, slot)) = plan.sends.get(&li) {
            let dst_word = ops.first()?;
            if write {
                let moved = spilled.remove(&li).unwrap_or([None; 8]);
                let mask = writemask_of(dst_word);
                let held = b.slots.entry(slot).or_insert([None; 8]);
                for (k, m) in moved.iter().enumerate() {
                    if mask >> (k % 4) & 1 != 0 {
                        held[k] = *m;
                    }
                }
            } else {
                let dst = super::asm_operand(dst_word)?;
                let held = b.slots.get(&slot).copied().unwrap_or([None; 8]);
                for (k, h) in held.iter().enumerate() {
                    let d = dst.nr * 8 + k as u32;
                    match h {
                        Some(w) => b.writers.insert((Space::Grf, d), *w),
                        None => b.writers.remove(&(Space::Grf, d)),
                    };
                }
                written_ever.insert(dst.nr);
            }
            continue;
        }
        let mut d = Desc {
            op: op.clone(),
            exec,
            sat,
            nomask,
            pred,
            cmod,
            ..Desc::default()
        };
        let dst_word = *ops.first()?;
        let flag_reads = pred.map(|_| (u8::MAX, Source::Dwords(Space::Flag, vec![(pred_flag, 0)])));
        let mut flag_writes: Vec<(Space, Vec<u32>, u32)> = Vec::new();
        if !cmod.is_empty() && super::cmod_writes_flag(&op) {
            let f = flag.unwrap_or(0);
            flag_writes.push((Space::Flag, vec![f], f));
        }
        if send {
            let desc = ops
                .get(2)
                .and_then(|d| d.strip_prefix("0x"))
                .and_then(|d| u32::from_str_radix(d, 16).ok())?;
            let mlen = crate::message::mlen(desc);
            let rlen = crate::message::rlen(desc);
            let dst = super::asm_operand(dst_word)?;
            let (payload, swz) = align16_operand(ops.get(1)?)?;
            if payload.file != "g" || wide_letters(payload.ty) {
                return None;
            }
            let urb = decode.is_some_and(|l| l.starts_with("urb MsgDesc:"));
            let urb_index = urb.then(|| urb_count);
            let urb_read = urb
                && decode.is_some_and(|l| l.contains(" read ") && l.contains("per-slot"))
                && rlen > 0;
            let mut written = Vec::new();
            if dst.file == "g" && rlen > 0 {
                let first = dst.nr * 8;
                written.push((Space::Grf, (first..first + rlen * 8).collect(), first));
            } else if dst.file != "null" && dst.file != "g" {
                // A message without a response may name a register (a scratch write's
                // `g0`, its header's source): nothing is written.
                return None;
            }
            if align1 {
                // A gateway message (a barrier): opaque, as the dump's `barrier`.
                let srcs = [Source::Dwords(
                    Space::Grf,
                    (0..mlen * 8).map(|k| (payload.nr * 8 + k, k)).collect(),
                )];
                let ws: Vec<(Space, Vec<u32>)> =
                    written.into_iter().map(|(s, d, _)| (s, d)).collect();
                b.opaque(&srcs, &ws);
                continue;
            }
            // Message registers are read by no node (the dump does not print them).
            let regs = if payload.nr >= MRF_HACK_START {
                0
            } else {
                mlen
            };
            let comps = swizzled(swz.unwrap_or(Region::XYZW), 0xf);
            let srcs: Vec<(u8, Source)> = if regs == 0 {
                Vec::new()
            } else {
                vec![(
                    0,
                    listing_source(&written_ever, payload.nr * 8, regs, &[0, 1], &comps),
                )]
            };
            for w in &written {
                for &dw in &w.1 {
                    written_ever.insert(dw / 8);
                }
            }
            if urb_read {
                b.node("urb-read".into(), &srcs, &written, true);
                urb_of_send.push(urb_index?);
            } else {
                let label = b.message_label(rlen > 0);
                b.node(label, &srcs, &written, false);
            }
            continue;
        }
        // An ALU instruction: its sources and destination.
        let dst = super::asm_operand(dst_word)?;
        if wide_letters(dst.ty) {
            return None;
        }
        // Other architecture registers (`wait n0`, the end of a barrier's expansion;
        // `a0` for indirect addressing) belong to expanded code: opaque.
        let plain_dst = matches!(dst.file, "g" | "null" | "acc" | "f");
        if align1 || !plain_dst {
            let mut srcs = Vec::new();
            for w in ops.iter().skip(1) {
                let Some(o) = super::asm_operand(w) else {
                    continue;
                };
                if o.file != "g" {
                    continue;
                }
                let size = super::type_bytes(o.ty)?;
                // Exactly the elements of the region (`g5<4,1,0>` in a `mov(2)` reads
                // dwords 0 and 4, not what lies between).
                let (v, wd, h) = o.region.unwrap_or((0, 1, 0));
                let wd = wd.max(1);
                let first = o.nr * 32 + o.sub * size;
                let mut dws: Vec<(u32, u32)> = (0..exec)
                    .flat_map(|i| {
                        let byte = first + (i / wd) * v * size + (i % wd) * h * size;
                        (byte / 4..(byte + size).div_ceil(4)).map(move |d| (d, d - first / 4))
                    })
                    .collect();
                dws.sort_unstable();
                dws.dedup();
                srcs.push(Source::Dwords(Space::Grf, dws));
            }
            let mut ws = Vec::new();
            if dst.file == "g" {
                let size = super::type_bytes(dst.ty)?;
                let h = dst.region.map_or(1, |r| r.2.max(1));
                let span = (exec - 1) * h * size + size;
                let first = (dst.nr * 32 + dst.sub * size) / 4;
                ws.push((
                    Space::Grf,
                    (first..first + span.div_ceil(4)).collect::<Vec<u32>>(),
                ));
                for r in first / 8..(first + span.div_ceil(4)).div_ceil(8) {
                    written_ever.insert(r);
                }
            }
            for (s, dws, _) in &flag_writes {
                ws.push((*s, dws.clone()));
            }
            b.opaque(&srcs, &ws);
            continue;
        }
        let writemask = writemask_of(dst_word);
        let dst_half =
            |sub: u32, ty: &str| -> Option<u32> { Some(sub * super::type_bytes(ty)? / 16 % 2) };
        let hs = halves(exec as u8, dst_half(dst.sub, dst.ty)?);
        let mut reads: Vec<(u8, Source)> = Vec::new();
        let mut pos = 0u8;
        for w in ops.iter().skip(1) {
            if let Some(imm) = super::source_immediate(w) {
                d.srcs.push(imm);
                pos += 1;
                continue;
            }
            let (o, swz) = align16_operand(w)?;
            if o.file == "null" {
                continue;
            }
            if wide_letters(o.ty) {
                return None;
            }
            let comps = swizzled(swz.unwrap_or(Region::XYZW), writemask);
            let base_half = dst_half(o.sub, o.ty)?;
            // Align16 regions: `<4>` and `<4,4,1>` read each half's own vec4, `<0>` the
            // operand's one for both.
            let vstride = match o.region {
                Some((0, 0, v)) | Some((v, _, _)) => v,
                None => 4,
            };
            let src_hs: Vec<u32> = if vstride == 0 || exec < 8 {
                vec![base_half]
            } else {
                vec![base_half, base_half + 1]
            };
            let read = match o.file {
                "g" => listing_source(&written_ever, o.nr * 8, 1, &src_hs, &comps),
                "acc" => Source::Dwords(Space::Acc, dwords(0, 1, &src_hs, &comps)),
                "f" => Source::Dwords(Space::Flag, vec![(o.nr * 2 + o.sub, 0)]),
                _ => return None,
            };
            d.srcs.push(super::modifiers(o.neg, o.abs));
            reads.push((pos, read));
            pos += 1;
        }
        reads.extend(flag_reads);
        let comps = swizzled(Region::XYZW, writemask);
        let mut writes = flag_writes;
        let mut mrf = None;
        match dst.file {
            "null" => d.dst_null = true,
            "g" => {
                let first = dst.nr * 8;
                let dws = dwords(first, 1, &hs, &comps);
                writes.push((Space::Grf, dws.iter().map(|x| x.0).collect(), first));
                written_ever.insert(dst.nr);
                if dst.nr >= MRF_HACK_START {
                    mrf = Some(dst.nr - MRF_HACK_START);
                }
            }
            "acc" => {
                let dws = dwords(0, 1, &hs, &comps);
                writes.push((Space::Acc, dws.iter().map(|x| x.0).collect(), 0));
            }
            "f" => {
                let f = dst.nr * 2 + dst.sub;
                writes.push((Space::Flag, vec![f], f));
            }
            _ => return None,
        }
        let mut label = d.label();
        if let Some(m) = mrf {
            label.push_str(&format!(" m{m}"));
        }
        b.node(label, &reads, &writes, false);
    }
    Some((b.g, urb_of_send))
}

/// Whether a listing type is 64 bits wide.
fn wide_letters(ty: &str) -> bool {
    matches!(ty, "DF" | "Q" | "UQ")
}

/// A GRF source of a listing at dword `first`: a thread input where nothing before wrote
/// any register it reads.
fn listing_source(
    written_ever: &std::collections::HashSet<u32>,
    first: u32,
    regs: u32,
    hs: &[u32],
    comps: &[u32],
) -> Source {
    let r0 = first / 8;
    if (r0..r0 + regs).all(|r| !written_ever.contains(&r)) {
        return Source::Input;
    }
    Source::Dwords(Space::Grf, dwords(first, regs, hs, comps))
}

/// For each `urb_read` of the vec4 pre-allocation dump `pre_ra` (program order), the URB
/// decodes of its final code `lines` (indices among the program's `urb MsgDesc:` lines)
/// that it may be by data flow ([`super::match_sends`]); `None` where the graphs are not
/// described or do not pair.
pub fn read_candidates(pre_ra: &Shader, lines: &[&str]) -> Option<Vec<Vec<usize>>> {
    let a = pre_ra_graph(pre_ra)?;
    // Scratch messages in the final code that the dump does not have are spills.
    let scratch = pre_ra.layout.insts().any(|i| {
        matches!(
            pre_ra.insts.opcode[i],
            Opcode::Gfx4ScratchRead | Opcode::Gfx4ScratchWrite | Opcode::Gfx7ScratchRead
        )
    });
    let (b, urb_of_send) = listing_graph(lines, !scratch)?;
    let matched = super::match_sends(&a, &b)?;
    Some(
        matched
            .into_iter()
            .map(|c| c.into_iter().map(|k| urb_of_send[k]).collect())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{import_mesa_dump, DumpName};
    use crate::target::Gen;

    /// A TCS dump: two URB reads of one vertex's header (the generator expands
    /// `tcs_set_input_urb_offsets` in Align1), each added to its own constant.
    const DUMP: &str = "\
tcs_set_input_urb_offsets(8) vgrf81:UD, 0U NoMask
mov(8) vgrf6:UD, vgrf81.xyzw:UD NoMask
urb_read(8) vgrf5:D, vgrf6.xyzw:UD
mov(8) vgrf16:UD, vgrf81.xyzw:UD NoMask
urb_read(8) vgrf15:D, vgrf16.xyzw:UD
add(8) vgrf13.x:D, vgrf5.xxxx:D, 5D
add(8) vgrf23.x:D, vgrf15.yyyy:D, 7D
mul(8) vgrf24.x:D, vgrf13.xxxx:D, vgrf23.xxxx:D
";

    /// Its final code with the reads in the other order: the second send (offset 3)
    /// feeds the `add` of 5, and reads x; the first (offset 2) the `add` of 7, from y.
    fn listing(first_add: &str) -> String {
        let e = "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00";
        format!(
            "\
{e} mov(8)          g87<1>UD        0x00000000UD                    {{ align1 WE_all 1Q }};
{e} mov(1)          g87.5<1>UD      0x0000ff00UD                    {{ align1 WE_all 1N }};
{e} mov(2)          g87<1>UD        g1<0,1,0>UD                     {{ align1 WE_all 1N }};
{e} mov(8)          g11<1>UD        g87<4>UD                        {{ align16 WE_all 1Q }};
{e} mov(8)          g21<1>UD        g87<4>UD                        {{ align16 WE_all 1Q }};
{e} send(8)         g20<1>D         g21<4>UD        0x02194013
                            urb MsgDesc: offset 2 read OWord per-slot interleave mlen 1 rlen 1 {{ align16 1Q }};
{e} send(8)         g10<1>D         g11<4>UD        0x0219401b
                            urb MsgDesc: offset 3 read OWord per-slot interleave mlen 1 rlen 1 {{ align16 1Q }};
{e} add(8)          g13<1>.xD       g10<4>.{first_add}D        5D             {{ align16 1Q }};
{e} add(8)          g23<1>.xD       g20<4>.yD        7D             {{ align16 1Q }};
{e} mul(8)          g24<1>.xD       g13<4>.xD       g23<4>.xD       {{ align16 1Q }};
"
        )
    }

    fn dump() -> Shader {
        let name = DumpName::parse("TCS-GLSL1-90-90-pre_register_allocate").unwrap();
        import_mesa_dump(DUMP, &name, "", Gen::Gen75).unwrap()
    }

    #[test]
    fn reordered_vec4_reads_pair_by_data_flow() {
        let text = listing("x");
        let lines: Vec<&str> = text.lines().collect();
        // The dump's first read is the listing's second URB decode, and so on.
        assert_eq!(
            read_candidates(&dump(), &lines),
            Some(vec![vec![1], vec![0]])
        );
    }

    #[test]
    fn channels_are_part_of_the_data_flow() {
        // Reading y where the dump reads x is another computation: nothing is paired.
        let text = listing("y");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(read_candidates(&dump(), &lines), None);
    }

    /// The allocator spilled the first `add`'s value and filled it before the `mul`: a
    /// move of the value through slot 0x12, as the dump (which has no spill) sees it.
    #[test]
    fn spills_and_fills_are_moves_of_their_value() {
        let e = "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00";
        let text = listing("x");
        let spilled = text.replace(
            &format!("{e} mul(8)"),
            &format!(
                "\
{e} mov(8)          g125<1>UD       g0<4>UD                         {{ align16 WE_all 1Q }};
{e} mov(1)          g126<1>UD       0x00000012UD                    {{ align1 WE_all 1N }};
{e} mov(1)          g126.4<1>UD     0x00000013UD                    {{ align1 WE_all 1N }};
{e} mov(8)          g127<1>D        g13<4>.xD                       {{ align16 1Q }};
{e} send(8)         g0<1>.xF        g125<4>F        0x060a80ff
                            data MsgDesc: (DC OWORD dual block write, bti 255, 0) mlen 3 rlen 0 {{ align16 1Q }};
{e} mov(8)          g13<1>.xD       0D                              {{ align16 1Q }};
{e} mov(8)          g126<1>UD       g0<4>UD                         {{ align16 WE_all 1Q }};
{e} mov(1)          g127<1>UD       0x00000012UD                    {{ align1 WE_all 1N }};
{e} mov(1)          g127.4<1>UD     0x00000013UD                    {{ align1 WE_all 1N }};
{e} send(8)         g30<1>D         g126<4>F        0x041880ff
                            data MsgDesc: (DC OWORD dual block read, bti 255, 0) mlen 2 rlen 1 {{ align16 1Q }};
{e} mul(8)"
            ),
        );
        let spilled = spilled.replace("g13<4>.xD       g23<4>.xD", "g30<4>.xD       g23<4>.xD");
        // The allocator reused g13 before the fill: the fill's value is still the
        // spilled one.
        let lines: Vec<&str> = spilled.lines().collect();
        assert_eq!(
            read_candidates(&dump(), &lines),
            Some(vec![vec![1], vec![0]])
        );
        // A fill of another slot is not that value: nothing pairs.
        let other = spilled.replacen(
            "g127<1>UD       0x00000012UD",
            "g127<1>UD       0x00000014UD",
            1,
        );
        let lines: Vec<&str> = other.lines().collect();
        assert_eq!(read_candidates(&dump(), &lines), None);
        // Read without spills (a dump with scratch messages of its own), the spill is a
        // message the dump does not have.
        let lines: Vec<&str> = spilled.lines().collect();
        let (g, _) = listing_graph(&lines, false).unwrap();
        assert!(g.labels.iter().any(|l| l.starts_with("msg write")));
    }

    #[test]
    fn swizzles_read_the_channels_of_the_writemask() {
        assert_eq!(swizzled(Region::XYZW, 0b0011), vec![0, 1]);
        // `.yyyy` for x and z: y only.
        assert_eq!(swizzled(0b01_01_01_01, 0b0101), vec![1]);
        assert_eq!(writemask_of("g13<1>.xzD"), 0b0101);
        assert_eq!(writemask_of("g13<1>D"), 0xf);
    }
}
