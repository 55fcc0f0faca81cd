//! The placement rules every allocator and the checker obey, as one table of [`Rule`]s,
//! each with its source (PRM volume or Mesa 22.3 file and function), and
//! [`Constraints::of`], which reads from a lowered shader what those rules say about it:
//! the first register a VGRF may take and which VGRFs an end-of-thread send reads.
//!
//! Each rule is stated once, here; where a rule already lives elsewhere in eubatch it is
//! used from there, not restated: the register file's size is [`eubatch_ir::Target`]'s,
//! the EOT range is [`eubatch_ir::Target::EOT_PAYLOAD_FIRST_GRF`], and where the thread
//! payload, push constants and attributes sit is the simulator's
//! [`eubatch_ir::thread_inputs::InputLayout`] (Mesa's `assign_curb_setup` / `assign_urb_setup`).
//!
//! Spilling's rules are read from the shader too, so that a spilled shader printed and read
//! back allocates the same: a VGRF a scratch message reads or writes is a spill temporary
//! and must get a register ([`SPILL_TEMPORARIES`]), and before gen9 a shader with scratch
//! messages keeps the registers they use as message registers free ([`SPILL_MRFS`]).
//! [`Options`] narrows the file on request ([`REGISTER_BUDGET`]), to make spills happen.
//!
//! Limits: the scalar back end only (vec4 code is refused), the thread layouts
//! `InputLayout` models (VS, FS, CS; GS, TCS and TES without pushed inputs), at most 128
//! registers. Not modelled yet (issue 16): spill addressing registers.

use eubatch_ir::thread_inputs::InputLayout;
use eubatch_ir::{Backend, Gen, Inst, Opcode, Operand, RegFile, Shader, Target, Type, Vgrf};

/// One placement rule: what it says and where it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// Short name, used in error messages.
    pub name: &'static str,
    pub text: &'static str,
    pub source: &'static str,
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "rule `{}`: {} ({})", self.name, self.text, self.source)
    }
}

/// Every VGRF lies inside the general register file.
pub const REGISTER_FILE: Rule = Rule {
    name: "register-file",
    text: "a VGRF lies inside the general register file (Target::grf_count registers of Target::reg_size bytes)",
    source: "PRM Vol. 7 \"GRF Registers\"; Mesa BRW_MAX_GRF",
};

/// Registers holding the thread's inputs are not allocated while the inputs are needed.
pub const THREAD_INPUTS: Rule = Rule {
    name: "thread-inputs",
    text: "registers below the first free one hold the thread payload, the push constants, the attributes and the fixed registers the shader names; a VGRF takes one only if its live range starts after the register's last access in layout order (an access inside a loop counting at the end of the outermost loop; an end-of-thread send reads g0-g1); a register never accessed is free",
    source: "Mesa 22.3 brw_fs.cpp fs_visitor::assign_curb_setup, assign_urb_setup, assign_vs_urb_setup (first_non_payload_grf), as eubatch_ir::thread_inputs::InputLayout lays them out; brw_fs_reg_allocate.cpp calculate_payload_ranges and setup_live_interference (node_start_ip <= payload_last_use_ip)",
};

/// A value larger than a register takes whole consecutive registers.
pub const CONTIGUOUS: Rule = Rule {
    name: "contiguous",
    text: "a VGRF larger than one register takes consecutive whole GRFs, from byte 0 of the first",
    source: "Mesa 22.3 brw_fs_reg_allocate.cpp: one ra_alloc_contig_reg_class per VGRF size in registers",
};

/// A value of at most a register stays in one register, at a slot boundary.
pub const SUB_REGISTER: Rule = Rule {
    name: "sub-register",
    text: "a VGRF of at most one register lies inside one GRF up to the end of its data (the padding after its last component, never accessed, may lie past it), at a byte offset that is a multiple of 4",
    source: "PRM Vol. 7 \"Register Region Restrictions\" (a region spans at most two registers, so a value in one stays addressable); 4 bytes is the analysis layer's slot (eubatch_passes::analysis::access::SLOT)",
};

/// Bytes from a VGRF's start to the end of its last component's data: what must lie in
/// the register file. The padding after the last component (a SIMD8 half-float value's
/// upper 16 bytes) is never read or written (the slot model's definitions treat the data
/// slots as the whole value), so it may hang past the register a small value sits in.
pub fn extent(layout: &eubatch_ir::VgrfLayout) -> u32 {
    layout.size() - layout.padding as u32
}

/// The payload of an end-of-thread send sits at the top of the register file.
pub const EOT_PAYLOAD: Rule = Rule {
    name: "eot-payload",
    text: "every VGRF an end-of-thread send reads lies in g112-g127",
    source: "PRM Vol. 2a \"SEND\"; Mesa brw_eu_validate.c, brw_fs_reg_allocate.cpp; eubatch_ir::Target::EOT_PAYLOAD_FIRST_GRF",
};

/// Simultaneously live values do not share storage.
pub const NO_SHARED_BYTE: Rule = Rule {
    name: "no-shared-byte",
    text: "two values live at one program point occupy distinct bytes, and a write never lands on the bytes of another live value",
    source: "the meaning of an allocation (regalloc2 checker.rs), at byte granularity; liveness from eubatch_passes::analysis::liveness",
};

/// Gen8+ SIMD8 send destinations stay off g127.
pub const SEND_DST_NOT_R127: Rule = Rule {
    name: "send-dst-r127",
    text: "on gen8 and later, the destination of a message of fewer than 16 channels does not touch g127 (r127 must not be a send's return address when its source and destination overlap; Mesa keeps every such destination off g127, as here)",
    source: "BDW PRM Vol. 7 \"EUISA Instructions\", Send Message; Mesa 22.3 brw_fs_reg_allocate.cpp setup_inst_interference (grf127_send_hack_node)",
};

/// Instructions that write their destination before reading all their sources.
pub const SOURCE_DESTINATION_HAZARD: Rule = Rule {
    name: "src-dst-hazard",
    text: "an instruction that may write part of its destination before it has read all its sources shares no byte between its destination and its sources: a destination of more than one register (a compressed instruction runs as two halves), a SIMD16 instruction reading a scalar or a byte or word integer region, and the virtual opcodes expanded into several instructions (pack_half_2x16_split, shuffle, sel_exec, quad_swizzle of a non-uniform value)",
    source: "Mesa 22.3 brw_fs.cpp fs_inst::has_source_and_destination_hazard; brw_fs_reg_allocate.cpp setup_inst_interference",
};

/// The two payloads of a split send lie in different registers.
pub const SPLIT_SEND_PAYLOADS: Rule = Rule {
    name: "split-send-payloads",
    text: "on gen9 and later, the two payloads of a split send share no register (the second block of GRFs must not overlap the first), even when one of them is an undefined value",
    source: "SKL PRM Vol. 2a \"SENDS\"; Mesa 22.3 brw_fs_reg_allocate.cpp setup_inst_interference",
};

/// Spill temporaries are never spilled again: they must have a register.
pub const SPILL_TEMPORARIES: Rule = Rule {
    name: "spill-temporaries",
    text: "a VGRF a scratch message writes or reads (a fill's destination, a spill's source, the scratch header) is never spilled: it must be placed",
    source: "Mesa 22.3 brw_fs_reg_allocate.cpp fs_reg_alloc::set_spill_costs (\"don't spill anything we generated while spilling\": no_spill)",
};

/// Before gen9, the registers standing in for the spill message registers stay free.
pub const SPILL_MRFS: Rule = Rule {
    name: "spill-mrfs",
    text: "before gen9, once a shader spills, the registers g(112 + 16 - dispatch_width/8 - 1) to g127 (the message registers m13/m14-m15 of gfx4_scratch_write and gfx4_scratch_read, on the GRFs gen7 maps MRFs to) hold no VGRF; the end-of-thread payload moves below them",
    source: "Mesa 22.3 brw_fs_reg_allocate.cpp spill_max_size, spill_base_mrf, get_used_mrfs, setup_live_interference (MRF hack nodes) and setup_inst_interference (EOT \"push the EOT send register early enough\"); GFX7_MRF_HACK_START = 112 (brw_reg.h)",
};

/// Scratch offsets each message form can address.
pub const SCRATCH_OFFSET: Rule = Rule {
    name: "scratch-offset",
    text: "gfx7_scratch_read addresses scratch below 128 KiB (12 bits of 32-byte units in its descriptor); fills past that use gfx4_scratch_read with a header, and every scratch offset is a multiple of 16 bytes (OWords)",
    source: "Mesa 22.3 brw_fs_reg_allocate.cpp emit_unspill (spill_offset < (1 << 12) * REG_SIZE) and spill_reg (ALIGN(spill_offset, 16)); PRM Vol. 2d \"OWord Block Read/Write\"",
};

/// A register budget asked for: fewer registers than the file has.
pub const REGISTER_BUDGET: Rule = Rule {
    name: "register-budget",
    text: "with a budget of N registers (Options::registers), the registers from the first free one + N on hold no VGRF but end-of-thread payloads, which keep g112-g127, and the thread's input registers below the first free one hold none either (not even after their last read)",
    source: "eubatch: an option to make shaders spill on purpose (issue 16 spilling tests), not a hardware rule",
};

/// Every rule, for documentation and the CLI.
pub const RULES: &[Rule] = &[
    REGISTER_FILE,
    THREAD_INPUTS,
    CONTIGUOUS,
    SUB_REGISTER,
    EOT_PAYLOAD,
    NO_SHARED_BYTE,
    SEND_DST_NOT_R127,
    SOURCE_DESTINATION_HAZARD,
    SPLIT_SEND_PAYLOADS,
    SPILL_TEMPORARIES,
    SPILL_MRFS,
    SCRATCH_OFFSET,
    REGISTER_BUDGET,
];

/// Two VGRFs one instruction accesses that must not overlap whatever their liveness says
/// ([`SOURCE_DESTINATION_HAZARD`]: no shared byte; [`SPLIT_SEND_PAYLOADS`]: no shared
/// register).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Apart {
    pub inst: Inst,
    pub a: Vgrf,
    pub b: Vgrf,
    pub rule: &'static Rule,
}

/// What may be asked of the rules beyond the hardware's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// At most this many registers above the thread's inputs (besides the end-of-thread
    /// range) for VGRFs ([`REGISTER_BUDGET`]); `None`: the whole file.
    pub registers: Option<u32>,
    /// The IR is Mesa 25's (its pre-RA dumps): the `mesa` allocator keeps the analysis
    /// layer's live intervals, not widened to Mesa 22.3's register-granular ranges
    /// ([`crate::mesa::live`]), which are that version's liveness (Mesa 25's is not
    /// modelled).
    pub mesa25_ir: bool,
    /// The IR holds Mesa's UNDEFs (Mesa 22.3's own pre-RA dumps): Mesa 22.3's liveness
    /// reads them as they are. Otherwise (eubatch's pipeline, whose `dce` removes them) a
    /// register written by one instruction stands for an SSA value and its UNDEF
    /// ([`crate::mesa::live`]).
    pub mesa_undefs: bool,
}

/// The first register of the message registers a spill uses before gen9, for a shader of
/// `dispatch_width` channels ([`SPILL_MRFS`]: `GFX7_MRF_HACK_START + spill_base_mrf`).
pub fn spill_mrf_first_grf(dispatch_width: u32) -> u32 {
    const MRF_HACK_START: u32 = 112;
    const MAX_MRF: u32 = 16;
    MRF_HACK_START + MAX_MRF - (dispatch_width / 8).max(1) - 1
}

/// Whether `inst` is a scratch message: the VGRFs it names are spill temporaries.
fn is_scratch_message(shader: &Shader, inst: Inst) -> bool {
    match shader.insts.opcode[inst] {
        Opcode::Gfx4ScratchRead
        | Opcode::Gfx4ScratchWrite
        | Opcode::Gfx7ScratchRead
        | Opcode::ScratchHeader => true,
        Opcode::Send | Opcode::Sends => shader.send_info(inst).is_some_and(|m| {
            m.sfid == eubatch_ir::message::sfid::DATA_CACHE
                && eubatch_ir::message::scratch::is_scratch_block(m.desc)
        }),
        _ => false,
    }
}

/// Why a shader cannot be given to an allocator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal(pub String);

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What the rules say about one shader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constraints {
    /// Registers in the file ([`REGISTER_FILE`]).
    pub grf_count: u32,
    /// Bytes per register.
    pub reg_size: u32,
    /// The first register a VGRF may take ([`THREAD_INPUTS`]).
    pub first_free_grf: u32,
    /// The first register an end-of-thread payload may take ([`EOT_PAYLOAD`]).
    pub eot_first_grf: u32,
    /// Each VGRF an end-of-thread send reads, with the send, in layout order.
    pub eot_reads: Vec<(Inst, Vgrf)>,
    /// Per VGRF: whether an end-of-thread send reads it.
    pub is_eot: Vec<bool>,
    /// Per register below `first_free_grf`: its last access ([`THREAD_INPUTS`]: a program
    /// point, in a loop the end of the outermost loop), or none if never accessed.
    pub input_last_use: Vec<Option<u32>>,
    /// Per VGRF: whether it must not touch g127 ([`SEND_DST_NOT_R127`]).
    pub not_r127: Vec<bool>,
    /// Pairs that must not overlap ([`Apart`]), in layout order.
    pub apart: Vec<Apart>,
    /// Registers no VGRF may take (bit `g` for `gN`): the spill message registers before
    /// gen9 ([`SPILL_MRFS`]) and what a register budget leaves out ([`REGISTER_BUDGET`]).
    pub reserved: u128,
    /// Registers only end-of-thread payloads may take (what a register budget leaves of
    /// g112-g127).
    pub eot_only: u128,
    /// Per VGRF: a spill temporary, which must be placed ([`SPILL_TEMPORARIES`]).
    pub unspillable: Vec<bool>,
    /// Whether the `mesa` allocator widens live intervals to Mesa 22.3's
    /// ([`crate::mesa::live`]; not for Mesa 25's IR, [`Options::mesa25_ir`]).
    pub mesa22_liveness: bool,
    /// With `mesa22_liveness`: the IR lost Mesa's UNDEFs ([`Options::mesa_undefs`]).
    pub undefs_removed: bool,
}

impl Constraints {
    /// Why code of `backend` is not allocated, if it is not: known before lowering, so that
    /// a driver can leave such a shader out whole rather than lower it for nothing.
    pub fn refuses_backend(backend: Backend) -> Option<&'static str> {
        (backend == Backend::Vec4)
            .then_some("vec4 (Align16) shaders are not allocated: scalar back end only")
    }

    /// The constraints of lowered scalar shader `shader`; a refusal for what the rules do
    /// not cover yet (vec4 code, stages whose input layout is not modelled).
    pub fn of(shader: &Shader) -> Result<Constraints, Refusal> {
        Constraints::with(shader, &Options::default())
    }

    /// [`Constraints::of`] under `options`.
    pub fn with(shader: &Shader, options: &Options) -> Result<Constraints, Refusal> {
        if let Some(why) = Constraints::refuses_backend(shader.backend) {
            return Err(Refusal(why.into()));
        }
        let target: Target = shader.target.target();
        if target.grf_count > 128 {
            return Err(Refusal(format!(
                "{} registers: allocation handles at most 128",
                target.grf_count
            )));
        }
        let reg = target.reg_size;
        let layout = shader.input_layout().map_err(Refusal)?;
        // The inputs end after the last attribute register read, and after any fixed
        // register the shader names (payload registers Mesa's layout infers as a bound).
        let mut inputs_end = layout.attr_start;
        let mut eot_reads = Vec::new();
        let mut is_eot = vec![false; shader.vgrfs.len()];
        let mut unspillable = vec![false; shader.vgrfs.len()];
        let mut scratch = false;
        for inst in shader.layout.insts() {
            if is_scratch_message(shader, inst) {
                scratch = true;
                let d = shader.insts.dst[inst];
                for op in shader.srcs(inst).iter().chain([&d]) {
                    if let Some(u) = op.as_vgrf().and_then(|v| unspillable.get_mut(v.index())) {
                        *u = true;
                    }
                }
            }
            let exec = shader.insts.control[inst].exec_size as u32;
            let eot = shader.insts.control[inst].eot();
            for (k, op) in shader.srcs(inst).iter().enumerate() {
                let read = eubatch_ir::size_read::size_read(shader, inst, k);
                match op.file {
                    RegFile::Attr => {
                        let last = layout.attr_byte(op.nr, op.offset + read.max(1) - 1);
                        inputs_end = inputs_end.max((last / reg as u64) as u32 + 1);
                    }
                    RegFile::FixedGrf => {
                        let end = op.offset + read.max(1);
                        inputs_end = inputs_end.max(op.nr + end.div_ceil(reg));
                    }
                    RegFile::Vgrf if eot => {
                        let v = op.vgrf_nr();
                        match is_eot.get_mut(v.index()) {
                            Some(e) if !*e => {
                                *e = true;
                                eot_reads.push((inst, v));
                            }
                            Some(_) => {}
                            None => {
                                return Err(Refusal(format!(
                                    "{inst} reads vgrf{}, which the VGRF table does not hold",
                                    op.nr
                                )))
                            }
                        }
                    }
                    _ => {}
                }
            }
            let d = shader.insts.dst[inst];
            if d.file == RegFile::FixedGrf {
                let end = d.offset + d.footprint(exec).max(1);
                inputs_end = inputs_end.max(d.nr + end.div_ceil(reg));
            }
        }
        let (not_r127, apart) = instruction_rules(shader)?;
        let first_free_grf = inputs_end.min(target.grf_count);
        let eot_first_grf = Target::EOT_PAYLOAD_FIRST_GRF;
        let mut reserved = 0u128;
        if scratch && shader.target < Gen::Gen9 {
            let first = spill_mrf_first_grf(shader.dispatch_width as u32);
            reserved |= registers(first, target.grf_count);
        }
        let mut eot_only = 0u128;
        if let Some(n) = options.registers {
            let end = first_free_grf.saturating_add(n);
            reserved |= registers(end, eot_first_grf);
            // The thread's input registers too: the budget is all the VGRFs get, whatever
            // inputs their last reads free (which every allocator may take otherwise).
            reserved |= registers(0, first_free_grf);
            eot_only = registers(end.max(eot_first_grf), target.grf_count) & !reserved;
        }
        Ok(Constraints {
            grf_count: target.grf_count,
            reg_size: reg,
            first_free_grf,
            input_last_use: input_last_use(shader, &layout, first_free_grf),
            eot_first_grf,
            eot_reads,
            is_eot,
            not_r127,
            apart,
            reserved,
            eot_only,
            unspillable,
            mesa22_liveness: !options.mesa25_ir,
            undefs_removed: !options.mesa_undefs,
        })
    }

    /// Whether VGRF `v` may not take register `g` ([`SPILL_MRFS`], [`REGISTER_BUDGET`]).
    pub fn is_reserved(&self, v: Vgrf, g: u32) -> bool {
        let eot = self.is_eot.get(v.index()) == Some(&true);
        g < 128 && (self.reserved | if eot { 0 } else { self.eot_only }) & (1u128 << g) != 0
    }

    /// Registers a VGRF of `bytes` bytes takes (at byte 0 of its first).
    pub fn regs(&self, bytes: u32) -> u32 {
        bytes.div_ceil(self.reg_size).max(1)
    }

    /// Whether a VGRF whose live range starts at `start` may take register `g`
    /// ([`THREAD_INPUTS`]).
    pub fn input_free(&self, g: u32, start: u32) -> bool {
        match self.input_last_use.get(g as usize) {
            None => g >= self.first_free_grf,
            Some(None) => true,
            Some(Some(last)) => start > *last,
        }
    }
}

/// Mesa's `calculate_payload_ranges` over the registers below `first_free`: per register
/// the last point a source or destination touches it (a fixed register, an attribute, a
/// push constant), a point inside a loop counting as the end of the outermost loop (the
/// inputs are defined once, at thread start), and an end-of-thread send touching g0 and g1
/// (Mesa reserves the header registers there, as the simulator and driver developers
/// expect them untouched).
fn input_last_use(shader: &Shader, layout: &InputLayout, first_free: u32) -> Vec<Option<u32>> {
    let reg = layout.reg_size;
    let mut last = vec![None; first_free as usize];
    // The end of each outermost loop, by the point of its `do`.
    let insts: Vec<Inst> = shader.layout.insts().collect();
    let mut loop_end = vec![0u32; insts.len()];
    let mut depth = 0u32;
    let mut open = 0usize;
    for (p, &inst) in insts.iter().enumerate() {
        match shader.insts.opcode[inst] {
            Opcode::Do => {
                if depth == 0 {
                    open = p;
                }
                depth += 1;
            }
            Opcode::While if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    loop_end[open] = p as u32;
                }
            }
            _ => {}
        }
    }
    let mut depth = 0u32;
    let mut end = 0u32;
    let touch = |last: &mut [Option<u32>], first: u64, bytes: u32, at: u32| {
        let lo = first / reg as u64;
        let hi = (first + bytes.max(1) as u64).div_ceil(reg as u64);
        for g in lo..hi.min(last.len() as u64) {
            last[g as usize] = Some(at);
        }
    };
    for (p, &inst) in insts.iter().enumerate() {
        match shader.insts.opcode[inst] {
            Opcode::Do => {
                if depth == 0 {
                    end = loop_end[p].max(p as u32);
                }
                depth += 1;
            }
            Opcode::While => depth = depth.saturating_sub(1),
            _ => {}
        }
        // (As Mesa: the `do` counts inside its loop, the outermost `while` at its own point,
        // which is the loop's end.)
        let at = if depth > 0 { end } else { p as u32 };
        let exec = shader.insts.control[inst].exec_size as u32;
        let d = &shader.insts.dst[inst];
        // Sources over what they read (a barycentric source's u and v registers, a
        // payload's mlen: eubatch_ir::size_read), the destination over its region.
        let srcs = shader.srcs(inst).iter().enumerate();
        let ops = srcs
            .map(|(k, op)| (op, eubatch_ir::size_read::size_read(shader, inst, k)))
            .chain(std::iter::once((d, d.footprint(exec))));
        for (op, bytes) in ops {
            match op.file {
                RegFile::FixedGrf => touch(
                    &mut last,
                    op.nr as u64 * reg as u64 + op.offset as u64,
                    bytes,
                    at,
                ),
                RegFile::Attr => touch(&mut last, layout.attr_byte(op.nr, op.offset), bytes, at),
                RegFile::Uniform => {
                    touch(&mut last, layout.uniform_byte(op.nr, op.offset), bytes, at)
                }
                _ => {}
            }
        }
        if shader.insts.control[inst].eot() {
            touch(&mut last, 0, 2 * reg, at);
        }
    }
    last
}

/// What [`SEND_DST_NOT_R127`], [`SOURCE_DESTINATION_HAZARD`] and [`SPLIT_SEND_PAYLOADS`]
/// say about `shader`'s instructions: per VGRF whether it must stay off g127, and the
/// pairs that must not overlap. A refusal when an instruction names a VGRF the table does
/// not hold.
fn instruction_rules(shader: &Shader) -> Result<(Vec<bool>, Vec<Apart>), Refusal> {
    let n = shader.vgrfs.len();
    let reg = shader.target.target().reg_size;
    let mut not_r127 = vec![false; n];
    let mut apart = Vec::new();
    let vgrf = |inst: Inst, op: &Operand| -> Result<Option<Vgrf>, Refusal> {
        if op.file != RegFile::Vgrf {
            return Ok(None);
        }
        if op.nr as usize >= n {
            return Err(Refusal(format!(
                "{inst} names vgrf{}, which the VGRF table does not hold",
                op.nr
            )));
        }
        Ok(Some(op.vgrf_nr()))
    };
    for inst in shader.layout.insts() {
        let op = shader.insts.opcode[inst];
        let exec = shader.insts.control[inst].exec_size as u32;
        let srcs = shader.srcs(inst);
        let dst_op = &shader.insts.dst[inst];
        let dst = vgrf(inst, dst_op)?;
        if let Some(d) = dst {
            if keeps_dst_off_r127(shader, inst) {
                not_r127[d.index()] = true;
            }
            // Mesa's component_size: exec_size elements at the stride, one for stride 0.
            let compressed = dst_op.footprint(exec) > reg;
            if compressed || has_source_and_destination_hazard(op, exec, srcs) {
                for s in srcs {
                    if let Some(v) = vgrf(inst, s)? {
                        if v != d {
                            apart.push(Apart {
                                inst,
                                a: d,
                                b: v,
                                rule: &SOURCE_DESTINATION_HAZARD,
                            });
                        }
                    }
                }
            }
        }
        if shader.target >= Gen::Gen9
            && matches!(
                op,
                Opcode::Send | Opcode::Sendc | Opcode::Sends | Opcode::Sendsc
            )
        {
            let ex_mlen = shader.send_info(inst).map_or(0, |i| i.ex_mlen);
            if let (Some(p1), Some(p2)) = eubatch_ir::message::send_payloads(srcs) {
                if let (Some(a), Some(b)) = (vgrf(inst, p1)?, vgrf(inst, p2)?) {
                    if ex_mlen > 0 && a != b {
                        apart.push(Apart {
                            inst,
                            a,
                            b,
                            rule: &SPLIT_SEND_PAYLOADS,
                        });
                    }
                }
            }
        }
    }
    Ok((not_r127, apart))
}

/// Whether [`SEND_DST_NOT_R127`] applies to `inst`'s destination: a message of fewer
/// than 16 channels on gen8+.
pub fn keeps_dst_off_r127(shader: &Shader, inst: Inst) -> bool {
    shader.target >= Gen::Gen8
        && shader.insts.control[inst].exec_size < 16
        && shader.insts.opcode[inst].is_message()
}

/// Mesa's `fs_inst::has_source_and_destination_hazard` (brw_fs.cpp, 22.3): opcodes the
/// generator expands into several instructions that write the destination before reading
/// every source, and SIMD16 instructions whose second half reads a scalar or a byte/word
/// region the first half may have overwritten.
fn has_source_and_destination_hazard(op: Opcode, exec: u32, srcs: &[Operand]) -> bool {
    match op {
        Opcode::PackHalf2x16Split | Opcode::Shuffle | Opcode::SelExec => true,
        Opcode::QuadSwizzle => {
            // Swizzles one Align1 region implements (generate_quad_swizzle): XXXX, YYYY,
            // ZZZZ, WWWW, XXZZ, YYWW, XYXY, ZWZW.
            let single_region = srcs.get(1).is_some_and(|s| {
                s.file == RegFile::Imm
                    && [0x00, 0x55, 0xaa, 0xff, 0xa0, 0xf5, 0x44, 0xee].contains(&s.nr)
            });
            !single_region && srcs.first().is_some_and(|s| s.stride != 0)
        }
        _ => {
            exec == 16
                && srcs.iter().any(|s| {
                    s.file == RegFile::Vgrf
                        && (s.stride == 0
                            || matches!(s.ty, Type::UW | Type::W | Type::UB | Type::B))
                })
        }
    }
}

/// Registers `first..end` as a mask (bit `g` for `gN`, at most 128).
fn registers(first: u32, end: u32) -> u128 {
    (first.min(128)..end.min(128)).fold(0, |m, g| m | 1u128 << g)
}
