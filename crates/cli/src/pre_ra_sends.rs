//! The message descriptors of the `send`s of Mesa's pre-RA dumps, recovered from Mesa's
//! final code, so that the simulator can run them (`compile --from pre-ra --verify`).
//!
//! Mesa 22.3's `fs_visitor::dump_instruction` prints a lowered SHADER_OPCODE_SEND as
//! `send(16) (mlen: 4) vgrf151:F, 0u, 0u, vgrf202:F`: the shared function (`inst->sfid`),
//! the descriptor (`inst->desc`) and the response length (in `size_written`) are fields
//! it does not show, and `0u, 0u` are the descriptor sources left at zero by
//! brw_lower_logical_sends.cpp (`setup_*`: the immediate parts live in `inst->desc`).
//! Mesa 25's brw_print.cpp prints the descriptor (`send(8) (mlen: 1) %12, 37879809u, 0u,
//! %11`) but not the SFID. The variant's final code (`asm.txt`, written by
//! `fs_generator::generate_code` with brw_disasm.c) has all of them: `send(8) g21<1>UW
//! g24<0,1,0>UD 0x04120102` and the decode line `sampler MsgDesc: ...`.
//!
//! The pre-RA dump is written before scheduling (at the start of
//! `fs_visitor::allocate_registers`), and both schedulers (`schedule_instructions`
//! SCHEDULE_PRE and SCHEDULE_POST) may reorder sends that have no side effects, so the
//! k-th send of the dump is not the k-th of the listing. The rule for when a descriptor
//! is trusted:
//! 1. The listing holds the variant's own code (same stage, program and SIMD width; a
//!    variant Mesa dropped has none), and its sends, less the scratch messages register
//!    allocation added when the program spilled, have exactly the dump's signatures
//!    (execution size, channel group, `mlen`, `ex_mlen`, EOT) as a multiset.
//! 2. Each dump send, in program order, takes a descriptor of the listing's sends of its
//!    signature not taken yet, among those whose response (`rlen` registers) covers what
//!    the dump's uses show of the destination (a lower bound) and, for Mesa 25, equal to
//!    the printed descriptor. If one distinct descriptor is left, it is the send's: every
//!    choice is the same message.
//! 3. If several are left, eubatch's own lowering of the variant's start dump
//!    (`--stop-after lower`, whose sends are in program order) names the message: when
//!    it has as many sends of that signature as the dump, its k-th one's SFID and
//!    descriptor without the response length (which Mesa trims to the components read)
//!    must match exactly one of them.
//!
//! Otherwise nothing is guessed: [`recover`] fails naming the send and why, and the
//! shader is counted as not run by the simulator with that reason.
//!
//! Two more things Mesa 22.3's printer leaves out are put back here before a pre-RA dump
//! runs: the sub-registers of fixed-register scalars ([`fixed_scalars`]: from the start
//! dump's reads, the final code's reads by opcode, or its dataflow), and the payload
//! order of `linterp`'s barycentrics ([`linterps_as_plns`]); float immediates rounded to
//! six digits are taken from the start dump (`eubatch_ir::import::float_immediates`).

use eubatch_codegen::asm::AsmProgram;
use eubatch_ir::message::sfid;
use eubatch_ir::{Control, Inst, Opcode, RegFile, Shader};

/// What identifies a send in both the dump and the listing: execution size, channel
/// group, message and extended message lengths, end of thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Signature {
    pub exec: u8,
    pub group: u8,
    pub mlen: u8,
    pub ex_mlen: u8,
    pub eot: bool,
}

impl std::fmt::Display for Signature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "send({}) group{} mlen {} ex_mlen {}{}",
            self.exec,
            self.group,
            self.mlen,
            self.ex_mlen,
            if self.eot { " EOT" } else { "" }
        )
    }
}

/// A message as the hardware takes it: shared function, descriptor (without the EOT bit),
/// extended descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Message {
    pub sfid: u8,
    pub desc: u32,
    pub ex_desc: u32,
}

/// Bit 31 of an immediate descriptor as the disassembly prints it is the instruction's
/// EOT bit (brw_inst.h `eot`: bit 127, the top bit of the 32-bit immediate source);
/// Mesa's `inst->desc` does not hold it, EOT is its own field.
const EOT_BIT: u32 = 1 << 31;
/// The response length field (PRM Vol. 2a "Message Descriptor", bits 24:20).
const RLEN_FIELD: u32 = 0x1f << 20;
/// Data-port category bit of gen7+ scratch messages (brw_inst.h `dp_category`, set by
/// brw_eu_emit.c `gfx7_set_dp_scratch_message`).
const DP_SCRATCH_CATEGORY: u32 = 1 << 18;

fn is_send(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Send | Opcode::Sendc | Opcode::Sends | Opcode::Sendsc
    )
}

fn signature(shader: &Shader, inst: Inst) -> Signature {
    let ctl = shader.insts.control[inst];
    let info = shader.send_info(inst).copied().unwrap_or_default();
    Signature {
        exec: ctl.exec_size,
        group: ctl.group,
        mlen: info.mlen,
        ex_mlen: info.ex_mlen,
        eot: ctl.eot(),
    }
}

/// The sends of `shader` in program order, with their signatures.
fn sends(shader: &Shader) -> Vec<(Inst, Signature)> {
    shader
        .layout
        .insts()
        .filter(|&i| is_send(shader.insts.opcode[i]))
        .map(|i| (i, signature(shader, i)))
        .collect()
}

/// The sends of a program's final code with their messages, less the scratch messages
/// Mesa's register allocator added (`spill_reg`: the pre-RA dump has none of them) when
/// the program spilled.
fn listed_sends(p: &AsmProgram) -> Vec<(Signature, Message)> {
    let spilled = p.stats.spills + p.stats.fills > 0;
    let s = &p.shader;
    s.layout
        .insts()
        .filter(|&i| is_send(s.insts.opcode[i]))
        .filter_map(|i| {
            let info = s.send_info(i).copied().unwrap_or_default();
            let scratch = info.sfid == sfid::DATA_CACHE
                && (eubatch_ir::message::scratch::is_scratch_block(info.desc)
                    || info.desc & DP_SCRATCH_CATEGORY != 0);
            (!(spilled && scratch)).then(|| {
                (
                    signature(s, i),
                    Message {
                        sfid: info.sfid,
                        desc: info.desc & !EOT_BIT,
                        ex_desc: info.ex_desc,
                    },
                )
            })
        })
        .collect()
}

/// Why a shader's sends were not recovered: `reason`, one of a few fixed phrases (what the
/// driver counts shaders by), and `detail`, which send and what was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotRecovered {
    pub reason: &'static str,
    pub detail: String,
}

impl std::fmt::Display for NotRecovered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.reason, self.detail)
    }
}

/// The fixed phrases of [`NotRecovered::reason`].
pub mod reason {
    pub const NO_LISTING: &str =
        "pre-RA send descriptors not recovered: Mesa kept no final code for the variant (asm.txt)";
    pub const SIGNATURES: &str =
        "pre-RA send descriptors not recovered: the final code's sends are not the dump's";
    pub const NO_FIT: &str =
        "pre-RA send descriptors not recovered: no send of the final code fits one of the dump's";
    pub const AMBIGUOUS: &str = "pre-RA send descriptors not recovered: several messages of the final code fit a send, and eubatch's lowering does not tell which";
    pub const SUBREGISTER: &str = "Mesa 22.3's pre-RA printer drops the sub-register of a fixed-register scalar (`g24<0>` for g24.4: push constants, interpolation planes), and the start dump reads several places of that register: what is read is not known";
    pub const FLOAT_IMMEDIATE: &str = "Mesa's printer writes a float immediate with six digits (`%g`), and no constant of the start dump, or several, prints as it: its value is not known";
    pub const RESPONSE: &str = "pre-RA send descriptors not recovered: a response is larger than its destination as the dump shows it";
}

/// Is `o` a fixed-register scalar as Mesa 22.3's printer writes it: `gN<0>`, sub-register
/// not shown.
fn fixed_scalar(o: &eubatch_ir::Operand) -> bool {
    o.file == RegFile::FixedGrf && o.region.vstride == 0 && o.region.hstride == 0
}

/// Puts back the sub-registers of the fixed-register scalars of `pre_ra` (a Mesa 22.3
/// pre-RA dump as imported) where the variant's start dump `start` (its input layout
/// frozen) leaves one choice; how many sources it changed.
///
/// Mesa 22.3's `fs_visitor::dump_instruction` prints a FIXED_GRF source as `gN<hstride>`
/// without its sub-register, so `g24<0>:F` stands for any of the push constants in g24
/// (brw_fs.cpp `assign_curb_setup`), and `g15<0>` for either plane of an interpolated
/// input that shares g15 (`assign_urb_setup`: two components a register on gen6+). (Mesa
/// 25's printer writes the sub-register.) Mesa's optimizer only moves the reads the start
/// dump has (`u`, `attr` and payload operands, placed by [`eubatch_ir::thread_inputs`]), so
/// what a pre-RA `gN<0>` reads is one of the start dump's reads inside gN:
/// - one distinct place read in gN: that is the sub-register;
/// - the start dump reads nothing in gN but a fixed `gN<0>` itself, unplaced in the same
///   way (a payload dword such as a compute shader's `g0<0>`): both are read as `gN.0`,
///   the same input on both sides;
/// - several places: the variant's final code (`listing`, the same stage, program and
///   width: fixed registers are where they were before allocation) decides when its
///   instructions of the same opcode reading gN as a scalar, of the same type in the same
///   source, all read one of those places, the same one (`add(16) g3<1>D g23<8,8,1>D
///   g16.6<0,1,0>D` for `add(16) vgrf1:D, vgrf16:D, g16<0>:D`);
/// - or its dataflow: scheduling and allocation keep what each instruction does and which
///   instructions of its block feed it and read it, so the dump's instructions and the
///   final code's are coloured together by their dataflow inside blocks ([`colours`]);
///   at the deepest round of colouring where the dump has as many instructions of the
///   reader's colour as the final code, those of the final code must all read the source
///   at one place of gN, inside a dword the start dump reads
///   ([`subregisters_by_dataflow`]: `add(16) vgrf2:D, vgrf32:D, g16<0>:D` and
///   `add(16) vgrf3:D, vgrf33:D, g16<0>:D`, the x and y of a compute shader's base
///   workgroup, told apart by the instructions the sums go on to). Two rules that
///   disagree decide nothing;
/// - a read narrower than a dword (`mul(8) vgrf69:D, vgrf14:D, g4<0>:UW`, the high word
///   of a 32x16 multiply: `assign_curb_setup` keeps `offset % 4`) may be anywhere in the
///   dword the start dump reads: only the dataflow rule places it, even where the start
///   dump reads one place in gN;
/// - otherwise which one is read is not known, and the shader cannot be run
///   ([`reason::SUBREGISTER`]).
pub fn fixed_scalars(
    pre_ra: &mut Shader,
    start: &Shader,
    listing: &[AsmProgram],
    program: &str,
) -> Result<usize, NotRecovered> {
    let insts: Vec<Inst> = pre_ra.layout.insts().collect();
    let any = insts
        .iter()
        .any(|&i| pre_ra.srcs(i).iter().any(fixed_scalar));
    if !any {
        return Ok(0);
    }
    let Some(layout) = start.inputs.clone() else {
        return Err(fail(
            reason::SUBREGISTER,
            "the start dump's input layout is not known".into(),
        ));
    };
    let reg = layout.reg_size as u64;
    // Register -> the bytes inside it where the start dump's reads begin.
    let mut places = std::collections::BTreeMap::<u32, std::collections::BTreeSet<u32>>::new();
    for i in start.layout.insts() {
        for o in start.srcs(i) {
            let byte = match o.file {
                RegFile::Uniform => layout.uniform_byte(o.nr, o.offset),
                RegFile::Attr => layout.attr_byte(o.nr, o.offset),
                RegFile::FixedGrf => o.nr as u64 * reg + o.offset as u64,
                _ => continue,
            };
            places
                .entry((byte / reg) as u32)
                .or_default()
                .insert((byte % reg) as u32);
        }
    }
    let final_code = listing
        .iter()
        .find(|p| {
            !p.vec4
                && p.stage == pre_ra.stage
                && p.shader.dispatch_width == pre_ra.dispatch_width
                && p.program == program
        })
        .map(|p| &p.shader);
    // (opcode, source, register, type) -> the bytes the final code reads there as scalars.
    let mut final_reads = std::collections::HashMap::<
        (Opcode, usize, u32, eubatch_ir::Type),
        std::collections::BTreeSet<u32>,
    >::new();
    if let Some(f) = final_code {
        for i in f.layout.insts() {
            for (k, o) in f.srcs(i).iter().enumerate() {
                if o.file == RegFile::FixedGrf && o.region.vstride == 0 && o.region.width <= 1 {
                    final_reads
                        .entry((f.insts.opcode[i], k, o.nr, o.ty))
                        .or_default()
                        .insert(o.offset);
                }
            }
        }
    }
    let mut changed = 0;
    // The dataflow rule, computed when first needed, on the dump as imported.
    let mut by_dataflow: Option<std::collections::HashMap<(Inst, usize), u32>> = None;
    for i in insts {
        for k in 0..pre_ra.srcs(i).len() {
            let o = pre_ra.srcs(i)[k];
            if !fixed_scalar(&o) || o.offset != 0 {
                continue;
            }
            let mut at: Option<Vec<u32>> = places.get(&o.nr).map(|p| p.iter().copied().collect());
            // A read narrower than a dword may be inside one the start dump reads (the
            // high word of a 32x16 multiply's uniform: `offset % 4` in
            // `assign_curb_setup`), which no rule by places alone sees.
            let narrow = o.ty.size() < 4;
            if let Some(subs) = at.clone().filter(|s| s.len() > 1 || narrow) {
                let mut found = std::collections::BTreeSet::new();
                // The final code's reads by opcode, when every one of them is at a place
                // (a read elsewhere, inside a dword, may be this instruction's).
                if let Some(read) = final_reads.get(&(pre_ra.insts.opcode[i], k, o.nr, o.ty)) {
                    if subs.len() > 1 && read.iter().all(|r| subs.contains(r)) && read.len() == 1 {
                        found.extend(read.iter().copied());
                    }
                }
                let by_flow = by_dataflow.get_or_insert_with(|| {
                    final_code
                        .map(|f| subregisters_by_dataflow(pre_ra, f))
                        .unwrap_or_default()
                });
                // The dataflow's, inside a dword the start dump reads.
                if let Some(&sub) = by_flow
                    .get(&(i, k))
                    .filter(|&&s| subs.contains(&(s - s % 4)))
                {
                    found.insert(sub);
                }
                if subs.len() == 1 && !narrow {
                    found.extend(subs.iter().copied());
                }
                match found.len() {
                    1 => at = Some(found.into_iter().collect()),
                    // A narrow read where nothing tells which part of the one dword the
                    // start dump reads there: any of them.
                    0 if subs.len() == 1 => {
                        let size = o.ty.size().max(1) as usize;
                        at = Some((subs[0]..subs[0] + 4).step_by(size).collect());
                    }
                    // Rules that disagree, or none: not known.
                    _ => {
                        at = Some(
                            subs.iter()
                                .copied()
                                .chain(found)
                                .collect::<std::collections::BTreeSet<_>>()
                                .into_iter()
                                .collect(),
                        )
                    }
                }
            }
            match at.as_deref() {
                Some([0]) => {}
                Some([sub]) => {
                    pre_ra.srcs_mut(i)[k].offset = *sub;
                    changed += 1;
                }
                None | Some([]) => {
                    return Err(fail(
                        reason::SUBREGISTER,
                        format!(
                            "ip {}: g{}<0>, where the start dump reads nothing",
                            i.index(),
                            o.nr
                        ),
                    ))
                }
                Some(subs) => {
                    return Err(fail(
                        reason::SUBREGISTER,
                        format!(
                            "ip {}: g{}<0>, where the start dump reads {} places (bytes {:?})",
                            i.index(),
                            o.nr,
                            subs.len(),
                            subs
                        ),
                    ))
                }
            }
        }
    }
    Ok(changed)
}

/// The sources an instruction reads data through, as (slot, operand, bytes read): a
/// send's payloads (slots 0 and 1, `mlen` and `ex_mlen` registers; its descriptor
/// sources, `0u` in the dump and part of the instruction in the final code, are left
/// out), every other source by its index.
fn data_sources(s: &Shader, i: Inst) -> Vec<(u8, eubatch_ir::Operand, u32)> {
    let srcs = s.srcs(i);
    if is_send(s.insts.opcode[i]) {
        let info = s.send_info(i).copied().unwrap_or_default();
        let reg = s.reg_size();
        let (p1, p2) = eubatch_ir::message::send_payloads(srcs);
        return [(p1, info.mlen), (p2, info.ex_mlen)]
            .into_iter()
            .enumerate()
            .filter_map(|(k, (p, len))| {
                p.filter(|_| len > 0)
                    .map(|p| (k as u8, *p, len as u32 * reg))
            })
            .collect();
    }
    (0..srcs.len())
        .map(|k| (k as u8, srcs[k], eubatch_ir::size_read::size_read(s, i, k)))
        .collect()
}

/// The byte address of a register operand in one space for both forms: a VGRF's bytes
/// (pre-RA) above every fixed register's.
fn address(s: &Shader, o: &eubatch_ir::Operand) -> Option<u64> {
    match o.file {
        RegFile::Vgrf => Some((1 << 40) | (o.nr as u64) << 20 | o.offset as u64),
        RegFile::FixedGrf => Some(o.nr as u64 * s.reg_size() as u64 + o.offset as u64),
        _ => None,
    }
}

/// A data source's slot, and the writes that reach it: (where the write begins relative
/// to the read, node).
type Reaching = (u8, Vec<(i64, usize)>);

/// One program's instructions as a dataflow graph inside basic blocks: each node's local
/// label, and for each data source the instructions of its block whose writes reach it.
struct Flow {
    insts: Vec<Inst>,
    label: Vec<Vec<u64>>,
    /// Per data source: its slot, and each reaching write's node with where it begins
    /// relative to the read (a VGRF is allocated contiguously: this survives allocation).
    defs: Vec<Vec<Reaching>>,
}

/// The dataflow graph of `s`; `allocated`: `s` is final code, where a register below
/// `fixed_end` (the first register the pre-RA dump does not read as a fixed register)
/// and written nowhere before the read in program order is read as the dump's fixed
/// register, every other register as a value.
fn flow(s: &Shader, allocated: bool, fixed_end: u32) -> Flow {
    use std::hash::{Hash, Hasher};
    let mut f = Flow {
        insts: Vec::new(),
        label: Vec::new(),
        defs: Vec::new(),
    };
    // The fixed registers written so far in program order (a register of the final code
    // read before any write is the thread's payload or push constants).
    let mut written = std::collections::HashSet::<u32>::new();
    for b in s.layout.blocks.iter() {
        // (first byte, end, node) of each write of the block so far, in order.
        let mut writes: Vec<(u64, u64, usize)> = Vec::new();
        for &i in &b.insts {
            let node = f.insts.len();
            let op = s.insts.opcode[i];
            let ctl = s.insts.control[i];
            let dst = s.insts.dst[i];
            let mut label = vec![
                if is_send(op) {
                    Opcode::Send as u64
                } else {
                    op as u64
                },
                ctl.exec_size as u64,
                ctl.group as u64,
                (ctl.flags & (Control::SATURATE | Control::PRED_INVERT | Control::EOT)) as u64,
            ];
            let mut h = std::collections::hash_map::DefaultHasher::new();
            // A send's types are the disassembler's (`g53<1>UW`, payload `UD`), not Mesa's.
            let send = is_send(op);
            let dst_ty = (!send).then_some(dst.ty);
            (
                ctl.predicate,
                ctl.cmod,
                dst_ty,
                dst.file == RegFile::Vgrf || dst.file == RegFile::FixedGrf,
            )
                .hash(&mut h);
            label.push(h.finish());
            if is_send(op) {
                let sig = signature(s, i);
                label.extend([sig.mlen as u64, sig.ex_mlen as u64]);
            }
            let mut defs = Vec::new();
            for (k, o, size) in data_sources(s, i) {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                (k, (!send).then_some(o.ty), o.mods.0).hash(&mut h);
                let mut reaching = Vec::new();
                if let Some(lo) = address(s, &o).filter(|_| size > 0) {
                    let mut covered = vec![false; size as usize];
                    for &(wlo, whi, w) in writes.iter().rev() {
                        let (a, z) = (wlo.max(lo), whi.min(lo + size as u64));
                        if a >= z {
                            continue;
                        }
                        let new = (a..z).any(|x| !covered[(x - lo) as usize]);
                        if new {
                            (a..z).for_each(|x| covered[(x - lo) as usize] = true);
                            reaching.push((wlo as i64 - lo as i64, w));
                        }
                        if covered.iter().all(|&c| c) {
                            break;
                        }
                    }
                }
                let fixed = match o.file {
                    RegFile::FixedGrf => {
                        !allocated
                            || (reaching.is_empty() && o.nr < fixed_end && !written.contains(&o.nr))
                    }
                    RegFile::Vgrf => false,
                    _ => {
                        (o.file as u8, o.nr, o.offset, o.imm_bits()).hash(&mut h);
                        false
                    }
                };
                if fixed {
                    // The register, and the sub-register unless read as a scalar (which
                    // Mesa 22.3's printer drops).
                    let scalar = o.region.vstride == 0 && o.region.hstride == 0
                        || allocated && o.region.vstride == 0 && o.region.width <= 1;
                    (1u8, o.nr, if scalar { u32::MAX } else { o.offset }).hash(&mut h);
                } else if matches!(o.file, RegFile::Vgrf | RegFile::FixedGrf) {
                    (2u8, reaching.is_empty()).hash(&mut h);
                }
                label.push(h.finish());
                reaching.sort_unstable();
                defs.push((k, reaching));
            }
            if let Some(lo) = address(s, &dst) {
                let size = s.insts.size_written[i] as u64;
                if size > 0 {
                    writes.push((lo, lo + size, node));
                    if dst.file == RegFile::FixedGrf {
                        let reg = s.reg_size() as u64;
                        written.extend((lo / reg..(lo + size).div_ceil(reg)).map(|r| r as u32));
                    }
                }
            }
            f.insts.push(i);
            f.label.push(label);
            f.defs.push(defs);
        }
    }
    f
}

/// Colours the instructions of the pre-RA dump `pre` and its final code `fin` together
/// by dataflow (Weisfeiler-Lehman refinement over the graphs of [`flow`], both
/// directions), until no colour splits: two instructions share a colour only if nothing
/// in their blocks' dataflow around them tells them apart. Register allocation and
/// scheduling keep an instruction's operations and its dataflow inside its block, so an
/// instruction of the dump and its counterpart in the final code share a colour when
/// nothing around them was changed after allocation.
fn colours(pre: &Flow, fin: &Flow) -> Vec<(Vec<u32>, Vec<u32>)> {
    let n = pre.insts.len();
    let graphs = [pre, fin];
    // Uses, from the defs.
    let mut uses: Vec<Vec<(u8, i64, usize)>> = vec![Vec::new(); n + fin.insts.len()];
    for (g, base) in [(pre, 0), (fin, n)] {
        for (u, defs) in g.defs.iter().enumerate() {
            for (k, ds) in defs {
                for &(at, d) in ds {
                    uses[base + d].push((*k, at, base + u));
                }
            }
        }
    }
    let mut intern = std::collections::HashMap::<Vec<u64>, u32>::new();
    let mut colour: Vec<u32> = graphs
        .iter()
        .flat_map(|g| g.label.iter())
        .map(|l| {
            let next = intern.len() as u32;
            *intern.entry(l.clone()).or_insert(next)
        })
        .collect();
    let mut distinct = intern.len();
    let mut rounds = vec![(colour[..n].to_vec(), colour[n..].to_vec())];
    // A relative byte offset as 21 bits (reads and writes are a few registers long).
    let place = |at: i64| (at.clamp(-(1 << 20), (1 << 20) - 1) + (1 << 20)) as u64;
    for _ in 0..64 {
        intern.clear();
        let mut next_colour = Vec::with_capacity(colour.len());
        for (g, base) in [(pre, 0), (fin, n)] {
            for (u, defs) in g.defs.iter().enumerate() {
                let mut sig = vec![colour[base + u] as u64];
                for (k, ds) in defs {
                    let mut cs: Vec<u64> = ds
                        .iter()
                        .map(|&(at, d)| place(at) << 32 | colour[base + d] as u64)
                        .collect();
                    cs.sort_unstable();
                    sig.push(u64::MAX - *k as u64);
                    sig.extend(cs);
                }
                let mut us: Vec<u64> = uses[base + u]
                    .iter()
                    .map(|&(k, at, v)| (k as u64) << 56 | place(at) << 32 | colour[v] as u64)
                    .collect();
                us.sort_unstable();
                sig.push(u64::MAX - 100);
                sig.extend(us);
                let next = intern.len() as u32;
                next_colour.push(*intern.entry(sig).or_insert(next));
            }
        }
        colour = next_colour;
        if intern.len() == distinct {
            break;
        }
        distinct = intern.len();
        rounds.push((colour[..n].to_vec(), colour[n..].to_vec()));
    }
    rounds
}

/// The sub-registers the final code `fin` shows for the fixed-register scalars of `pre`
/// (a Mesa 22.3 pre-RA dump of the same variant): (instruction, source) -> byte offset,
/// where the dump's instructions of the source's colour ([`colours`]) are as many as the
/// final code's, and these all read the source as a scalar of the same register and type
/// at one offset.
fn subregisters_by_dataflow(
    pre: &Shader,
    fin: &Shader,
) -> std::collections::HashMap<(Inst, usize), u32> {
    let fixed_end = pre
        .layout
        .insts()
        .flat_map(|i| {
            pre.srcs(i)
                .iter()
                .filter(|o| o.file == RegFile::FixedGrf)
                .map(|o| o.nr + 1)
                .collect::<Vec<_>>()
        })
        .max()
        .unwrap_or(0);
    let p = flow(pre, false, fixed_end);
    let f = flow(fin, true, fixed_end);
    let rounds = colours(&p, &f);
    // Per round: colour -> (the dump's instructions of it, the final code's).
    let classes: Vec<std::collections::HashMap<u32, (usize, Vec<usize>)>> = rounds
        .iter()
        .map(|(pc, fc)| {
            let mut count = std::collections::HashMap::<u32, (usize, Vec<usize>)>::new();
            for &c in pc {
                count.entry(c).or_default().0 += 1;
            }
            for (j, &c) in fc.iter().enumerate() {
                count.entry(c).or_default().1.push(j);
            }
            count
        })
        .collect();
    let mut out = std::collections::HashMap::new();
    for (u, &i) in p.insts.iter().enumerate() {
        for (k, o) in pre.srcs(i).iter().enumerate() {
            if !fixed_scalar(o) || is_send(pre.insts.opcode[i]) {
                continue;
            }
            // The deepest round where the instruction's class has as many instructions
            // in the dump as in the final code: deeper, something within that distance
            // differs between the two (a virtual opcode the generator expands).
            let Some(finals) = (0..rounds.len()).rev().find_map(|r| {
                let (same, finals) = &classes[r][&rounds[r].0[u]];
                (*same == finals.len() && !finals.is_empty()).then_some(finals)
            }) else {
                continue;
            };
            let offsets: std::collections::BTreeSet<Option<u32>> = finals
                .iter()
                .map(|&j| {
                    let r = fin.srcs(f.insts[j]).get(k)?;
                    (r.file == RegFile::FixedGrf
                        && r.nr == o.nr
                        && r.ty == o.ty
                        && r.region.vstride == 0
                        && r.region.width <= 1)
                        .then_some(r.offset)
                })
                .collect();
            if let [Some(sub)] = offsets.into_iter().collect::<Vec<_>>()[..] {
                out.insert((i, k), sub);
            }
        }
    }
    out
}

/// Mesa 22.3's pre-RA `linterp(16) vgrf2:F, g2:F, g6<0>:F` reads its barycentrics from
/// the payload registers themselves, in the order the hardware delivers them (for
/// channels 8k..8k+7, u in register 2k and v in 2k+1 of the setup: Mesa's `delta_xy` is
/// the payload, and the generator emits one PLN), not in the component order (all u, then
/// all v) of eubatch's `linterp`, whose delta is a VGRF the start dump gathers
/// (`load_payload(8) vgrf3:F, g2:F, g4:F, g3:F, g5:F`). Such a `linterp` of at most 16
/// channels is the `pln` eubatch's own lowering makes of it (passes::lower::linterp):
/// plane first, delta as a region. Returns how many it rewrote.
pub fn linterps_as_plns(pre_ra: &mut Shader) -> usize {
    let insts: Vec<Inst> = pre_ra.layout.insts().collect();
    let mut changed = 0;
    for i in insts {
        if pre_ra.insts.opcode[i] != Opcode::Linterp || pre_ra.insts.control[i].exec_size > 16 {
            continue;
        }
        let &[delta, plane] = pre_ra.srcs(i) else {
            continue;
        };
        if delta.file != RegFile::FixedGrf {
            continue;
        }
        let delta = eubatch_ir::Operand {
            region: eubatch_ir::Region::new(8, 8, 1),
            ..delta
        };
        pre_ra.set_srcs(i, &[plane, delta]);
        pre_ra.insts.opcode[i] = Opcode::Pln;
        changed += 1;
    }
    changed
}

fn fail(reason: &'static str, detail: String) -> NotRecovered {
    NotRecovered { reason, detail }
}

/// How many sends had their descriptors recovered, and by which rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// One distinct descriptor for the send's signature (rule 2).
    pub unique: usize,
    /// Chosen by eubatch's lowering of the start dump (rule 3).
    pub by_lowering: usize,
}

/// Recovers the SFID, descriptor, extended descriptor, header presence and response size
/// of every send of `pre_ra` (a pre-RA dump as imported) from `listing` (the programs of
/// the `asm.txt` beside it; `program` is the dump's program name, `GLSL1`) and, where a signature's sends differ, from `lowered` (called
/// at most once: eubatch's lowering of the variant's start dump, `None` when it cannot be
/// lowered). Nothing is changed unless every send is recovered; the error says which send
/// could not be, and why.
pub fn recover(
    pre_ra: &mut Shader,
    program: &str,
    listing: &[AsmProgram],
    lowered: &mut dyn FnMut() -> Option<Shader>,
) -> Result<Recovered, NotRecovered> {
    let dump = sends(pre_ra);
    if dump.is_empty() {
        return Ok(Recovered::default());
    }
    let program = listing
        .iter()
        .find(|p| {
            !p.vec4
                && p.stage == pre_ra.stage
                && p.shader.dispatch_width == pre_ra.dispatch_width
                && p.program == program
        })
        .ok_or_else(|| {
            fail(
                reason::NO_LISTING,
                format!(
                    "no {} SIMD{} program `{program}`",
                    pre_ra.stage.abbrev(),
                    pre_ra.dispatch_width
                ),
            )
        })?;
    let mut pool = listed_sends(program);
    // Mesa 22.3's dump ends a compute thread with `cs_terminate(16) (EOT) (null):UD,
    // vgrf31:UD`, not yet a send: the generator (`fs_generator::generate_cs_terminate`)
    // makes it the EOT send to the thread spawner the final code lists. It has no
    // descriptor to recover (eubatch runs `cs_terminate` itself), so as many of those
    // sends as the dump has cs_terminates are left out of the matching.
    let terminates = pre_ra
        .layout
        .insts()
        .filter(|&i| pre_ra.insts.opcode[i] == Opcode::CsTerminate)
        .count();
    if terminates > 0 {
        let spawner_eot = |p: &(Signature, Message)| p.0.eot && p.1.sfid == sfid::THREAD_SPAWNER;
        if pool.iter().filter(|p| spawner_eot(p)).count() == terminates {
            pool.retain(|p| !spawner_eot(p));
        }
    }
    // Rule 1: the same signatures, as many of each.
    let mut want: Vec<Signature> = dump.iter().map(|d| d.1).collect();
    let mut have: Vec<Signature> = pool.iter().map(|p| p.0).collect();
    want.sort_unstable();
    have.sort_unstable();
    if want != have {
        let first = want.iter().zip(&have).find(|(w, h)| w != h);
        return Err(fail(
            reason::SIGNATURES,
            format!(
                "{} sends in the final code (less scratch messages), {} in the dump{}",
                have.len(),
                want.len(),
                first.map_or(String::new(), |(w, h)| format!(
                    "; first difference: {w} against {h}"
                ))
            ),
        ));
    }
    pool.sort_unstable();
    let mut taken = vec![false; pool.len()];
    let reg = pre_ra.reg_size();
    // eubatch's lowering, per signature, in program order (rule 3), made when first needed.
    let mut oracle: Option<Option<Vec<(Signature, Message)>>> = None;
    let mut nth = std::collections::HashMap::<Signature, usize>::new();
    let mut chosen = Vec::with_capacity(dump.len());
    let mut out = Recovered::default();
    for (k, &(inst, sig)) in dump.iter().enumerate() {
        let nth_of_sig = {
            let n = nth.entry(sig).or_default();
            *n += 1;
            *n - 1
        };
        // A message with no response writes `null:F` (the ARF null register, which the
        // importer sizes as any destination): nothing to cover.
        let written = if pre_ra.insts.dst[inst].is_null() {
            0
        } else {
            pre_ra.insts.size_written[inst]
        };
        let printed = printed_desc(pre_ra, inst);
        let fits = |m: &Message| {
            let rlen = eubatch_ir::message::rlen(m.desc);
            rlen * reg >= written && printed.is_none_or(|d| d & !EOT_BIT == m.desc)
        };
        let start = pool.partition_point(|p| p.0 < sig);
        let end = pool.partition_point(|p| p.0 <= sig);
        let mut candidates: Vec<usize> = (start..end)
            .filter(|&i| !taken[i] && fits(&pool[i].1))
            .collect();
        candidates.dedup_by_key(|i| pool[*i].1);
        let what = || format!("send {} of the dump (ip {}, {sig})", k + 1, inst.index());
        let pick = match candidates.len() {
            0 => {
                return Err(fail(
                    reason::NO_FIT,
                    format!(
                        "{}: no send of the final code left fits it (signature, response length, printed descriptor)",
                        what()
                    ),
                ))
            }
            1 => {
                out.unique += 1;
                candidates[0]
            }
            n => {
                let lowered = oracle.get_or_insert_with(|| {
                    lowered().map(|s| {
                        sends(&s)
                            .into_iter()
                            .map(|(i, sig)| {
                                let info = s.send_info(i).copied().unwrap_or_default();
                                let m = Message {
                                    sfid: info.sfid,
                                    desc: info.desc,
                                    ex_desc: info.ex_desc,
                                };
                                (sig, m)
                            })
                            .collect()
                    })
                });
                let Some(lowered) = lowered else {
                    return Err(fail(
                        reason::AMBIGUOUS,
                        format!(
                            "{}: {n} different messages of the final code fit it, and eubatch cannot lower the start dump",
                            what()
                        ),
                    ));
                };
                let same_sig: Vec<&Message> = lowered
                    .iter()
                    .filter(|l| l.0 == sig)
                    .map(|l| &l.1)
                    .collect();
                if same_sig.len() != want.iter().filter(|&&s| s == sig).count() {
                    return Err(fail(
                        reason::AMBIGUOUS,
                        format!(
                            "{}: {n} different messages of the final code fit it, and eubatch's lowering has {} sends of its signature (the dump {})",
                            what(),
                            same_sig.len(),
                            want.iter().filter(|&&s| s == sig).count()
                        ),
                    ));
                }
                let l = same_sig[nth_of_sig];
                let matching: Vec<usize> = candidates
                    .iter()
                    .copied()
                    .filter(|&i| {
                        let m = &pool[i].1;
                        m.sfid == l.sfid && m.desc & !RLEN_FIELD == l.desc & !RLEN_FIELD
                    })
                    .collect();
                if matching.len() != 1 {
                    return Err(fail(
                        reason::AMBIGUOUS,
                        format!(
                            "{}: {n} different messages of the final code fit it, and {} of them are eubatch's lowering's ({:#010x} to shared function {})",
                            what(),
                            matching.len(),
                            l.desc,
                            l.sfid
                        ),
                    ));
                }
                out.by_lowering += 1;
                matching[0]
            }
        };
        taken[pick] = true;
        chosen.push((inst, pool[pick].1));
    }
    // Every send recovered; each response must fit its destination as the importer
    // sized it (checked before anything changes).
    let response = |pre_ra: &Shader, inst: Inst, m: &Message| {
        let dst = pre_ra.insts.dst[inst];
        if dst.is_null() {
            0
        } else {
            eubatch_ir::message::rlen(m.desc) * reg
        }
    };
    for &(inst, m) in &chosen {
        let dst = pre_ra.insts.dst[inst];
        let size = response(pre_ra, inst, &m);
        if let Some(v) = dst.as_vgrf() {
            let have = pre_ra.vgrfs.get(v).map_or(0, |l| l.size());
            if dst.offset + size > have {
                return Err(fail(
                    reason::RESPONSE,
                    format!(
                        "the response of the send at ip {} ({size} bytes) is larger than vgrf{} as the dump's uses show it ({have} bytes)",
                        inst.index(),
                        dst.nr
                    ),
                ));
            }
        }
    }
    for (inst, m) in chosen {
        let size = response(pre_ra, inst, &m);
        let mut info = pre_ra.send_info(inst).copied().unwrap_or_default();
        info.sfid = m.sfid;
        info.desc = m.desc;
        info.ex_desc = m.ex_desc;
        // The simulator reads the header from the descriptor (bit 19); Mesa's
        // `header_size` matters only to LOAD_PAYLOAD, which a lowered send is not.
        info.header_size = eubatch_ir::message::header_present(m.desc) as u8;
        pre_ra.set_send_info(inst, info);
        pre_ra.insts.size_written[inst] = size;
    }
    Ok(out)
}

/// The descriptor Mesa 25 prints as the send's first source (`37879809u`); Mesa 22.3
/// prints `0u` there, which says nothing.
fn printed_desc(shader: &Shader, inst: Inst) -> Option<u32> {
    let d = shader.srcs(inst).first()?;
    (d.file == RegFile::Imm && d.imm_bits() != 0).then(|| d.imm_bits() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use eubatch_ir::import::{import_mesa_dump, DumpName};
    use eubatch_ir::Gen;

    /// Two sampler sends of one signature, which the scheduler put the other way round
    /// in the final code: the first's response (three registers, as its use shows) tells
    /// them apart; the render target write has one descriptor. (Hand-written, in the
    /// corpora's syntax; encodings are filler, the reader takes the disassembly.)
    const DUMP: &str = "\
{ 10}    0: send(8) (mlen: 2) vgrf0:F, 0u, 0u, vgrf2:F 
{  7}    1: send(8) (mlen: 2) vgrf1:F, 0u, 0u, vgrf3:F 
{  7}    2: add(8) vgrf4:F, vgrf0+2.0:F, vgrf1:F 
{  4}    3: send(8) (mlen: 4) (EOT) (null):UD, 0u, 0u, vgrf5:F 
Maximum 10 registers live at once.
";
    const ASM: &str = "\
Native code for unnamed fragment shader GLSL1 (sha1 0)
SIMD8 shader: 3 instructions. 0 loops. 10 cycles. 0:0 spills:fills, 3 sends, scheduled with mode top-down. Promoted 0 constants. Compacted 48 to 48 bytes (0%)
   START B0 (10 cycles)
31 00 60 02 48 02 a0 22 00 03 00 06 02 01 12 04 send(8)         g21<1>UW        g24<0,1,0>UD    0x04120102
                            sampler MsgDesc: sample SIMD8 Surface = 2 Sampler = 1 mlen 2 rlen 1 { align1 1Q };
31 00 60 02 48 02 80 22 c0 02 00 06 01 00 32 04 send(8)         g20<1>UW        g22<0,1,0>UD    0x04320001
                            sampler MsgDesc: sample SIMD8 Surface = 1 Sampler = 0 mlen 2 rlen 3 { align1 1Q };
31 00 60 05 10 b0 07 00 81 0f 00 00 00 14 03 86 send(8)         null<1>UW       g124<0,1,0>UD   0x88031400
                            render MsgDesc: RT write SIMD8 LastRT Surface = 0 mlen 4 rlen 0 { align1 1Q EOT };
   END B0
";

    fn pre_ra() -> Shader {
        let name = DumpName::parse("FS8-GLSL1-90-90-pre_register_allocate").unwrap();
        import_mesa_dump(DUMP, &name, "test", Gen::Gen9).unwrap()
    }

    #[test]
    fn descriptors_are_recovered_by_signature_and_response() {
        let listing = eubatch_codegen::asm::read_asm(ASM, "asm.txt", Gen::Gen9).unwrap();
        let mut s = pre_ra();
        let got = recover(&mut s, "GLSL1", &listing, &mut || None).unwrap();
        assert_eq!(got.unique, 3);
        let info = |k: usize| *s.send_info(Inst::from_usize(k)).unwrap();
        assert_eq!((info(0).sfid, info(0).desc), (sfid::SAMPLER, 0x04320001));
        assert_eq!((info(1).sfid, info(1).desc), (sfid::SAMPLER, 0x04120102));
        // The EOT bit of the printed immediate is the instruction's, not the descriptor's.
        assert_eq!(
            (info(3).sfid, info(3).desc),
            (sfid::RENDER_CACHE, 0x08031400)
        );
        assert_eq!(s.insts.size_written[Inst::from_usize(0)], 96);
    }

    /// Two reads of the push-constant register g1 (`u0` and `u1`, bytes 0 and 4) by adds
    /// of the same shape: the final code's adds read both places, so the opcode rule says
    /// nothing; the dataflow does (the first sum is shifted, the second is not).
    #[test]
    fn sub_registers_from_the_final_code_dataflow() {
        let start_text = "\
{  1}    0: mov(8) vgrf0:D, 1d 
{  2}    1: add(8) vgrf1:D, vgrf0:D, u0<0>:D 
{  3}    2: add(8) vgrf2:D, vgrf0:D, u1<0>:D 
{  3}    3: shl(8) vgrf3:D, vgrf1:D, 2u 
{  2}    4: add(8) vgrf4:D, vgrf3:D, vgrf2:D 
Maximum 3 registers live at once.
";
        let pre_text = "\
{  1}    0: mov(8) vgrf0:D, 1d 
{  2}    1: add(8) vgrf1:D, vgrf0:D, g1<0>:D 
{  3}    2: add(8) vgrf2:D, vgrf0:D, g1<0>:D 
{  3}    3: shl(8) vgrf3:D, vgrf1:D, 2u 
{  2}    4: add(8) vgrf4:D, vgrf3:D, vgrf2:D 
Maximum 3 registers live at once.
";
        let asm = "\
Native code for unnamed compute shader (null) (sha1 0)
SIMD8 shader: 5 instructions. 0 loops. 10 cycles. 0:0 spills:fills, 0 sends, scheduled with mode top-down. Promoted 0 constants. Compacted 80 to 80 bytes (0%)
   START B0 (10 cycles)
01 00 60 00 28 0e 40 21 01 00 00 00 00 00 00 00 mov(8)          g10<1>D         1D                              { align1 1Q };
40 00 60 00 28 0a 80 21 40 01 8d 0a 24 00 00 00 add(8)          g12<1>D         g10<8,8,1>D     g1.1<0,1,0>D    { align1 1Q };
40 00 60 00 28 0a 60 21 40 01 8d 0a 20 00 00 00 add(8)          g11<1>D         g10<8,8,1>D     g1<0,1,0>D      { align1 1Q };
09 00 60 00 28 0a a0 21 60 01 8d 06 02 00 00 00 shl(8)          g13<1>D         g11<8,8,1>D     0x00000002UD    { align1 1Q };
40 00 60 00 28 0a c0 21 a0 01 8d 0a 80 01 8d 00 add(8)          g14<1>D         g13<8,8,1>D     g12<8,8,1>D     { align1 1Q };
   END B0
";
        let name = DumpName::parse("CS8-(null)-00-00-start").unwrap();
        let mut start = import_mesa_dump(start_text, &name, "test", Gen::Gen9).unwrap();
        start.freeze_inputs();
        let name = DumpName::parse("CS8-(null)-90-90-pre_register_allocate").unwrap();
        let mut pre = import_mesa_dump(pre_text, &name, "test", Gen::Gen9).unwrap();
        pre.inputs = start.inputs.clone();
        let listing = eubatch_codegen::asm::read_asm(asm, "asm.txt", Gen::Gen9).unwrap();
        // Without the final code: two places, not known.
        let e = fixed_scalars(&mut pre.clone(), &start, &[], "(null)").unwrap_err();
        assert_eq!(e.reason, reason::SUBREGISTER, "{e}");
        assert_eq!(fixed_scalars(&mut pre, &start, &listing, "(null)"), Ok(1));
        let sub = |k: usize| pre.srcs(Inst::from_usize(k))[1].offset;
        assert_eq!((sub(1), sub(2)), (0, 4));
    }

    #[test]
    fn nothing_is_guessed() {
        // Another program's name: no final code for the variant.
        let listing = eubatch_codegen::asm::read_asm(ASM, "asm.txt", Gen::Gen9).unwrap();
        let mut s = pre_ra();
        let e = recover(&mut s, "GLSL2", &listing, &mut || None).unwrap_err();
        assert_eq!(e.reason, reason::NO_LISTING);
        assert!(s.send_info(Inst::from_usize(0)).unwrap().desc == 0);
        // Both sampler responses one register: two messages fit each send and, without
        // eubatch's lowering to tell them apart, none is taken.
        let dump = DUMP.replace("vgrf0+2.0:F", "vgrf0:F");
        let name = DumpName::parse("FS8-GLSL1-90-90-pre_register_allocate").unwrap();
        let mut s = import_mesa_dump(&dump, &name, "test", Gen::Gen9).unwrap();
        let e = recover(&mut s, "GLSL1", &listing, &mut || None).unwrap_err();
        assert_eq!(e.reason, reason::AMBIGUOUS, "{e}");
    }
}
