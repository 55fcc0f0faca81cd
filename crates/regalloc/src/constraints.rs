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
//! Limits: the scalar back end only (vec4 code is refused), VS and FS threads only (what
//! `InputLayout` models), at most 128 registers. Not modelled yet (issue 16): gen8/9's r127
//! rule for SIMD8 send destinations, the interference Mesa forces between a
//! multi-register destination and its sources, and the two payloads of a split send.

use eubatch_ir::thread_inputs::InputLayout;
use eubatch_ir::{Backend, Gen, Inst, Opcode, RegFile, Shader, Target, Vgrf};

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

/// Registers holding the thread's inputs are not allocated.
pub const THREAD_INPUTS: Rule = Rule {
    name: "thread-inputs",
    text: "registers below the first free one hold the thread payload, the push constants and the attributes; no VGRF takes them",
    source: "Mesa 22.3 brw_fs.cpp fs_visitor::assign_curb_setup, assign_urb_setup, assign_vs_urb_setup (first_non_payload_grf), as eubatch_ir::thread_inputs::InputLayout lays them out",
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
    text: "with a budget of N registers (Options::registers), the registers from the first free one + N on hold no VGRF but end-of-thread payloads, which keep g112-g127",
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
    SPILL_TEMPORARIES,
    SPILL_MRFS,
    SCRATCH_OFFSET,
    REGISTER_BUDGET,
];

/// What may be asked of the rules beyond the hardware's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// At most this many registers above the thread's inputs (besides the end-of-thread
    /// range) for VGRFs ([`REGISTER_BUDGET`]); `None`: the whole file.
    pub registers: Option<u32>,
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
    /// Registers no VGRF may take (bit `g` for `gN`): the spill message registers before
    /// gen9 ([`SPILL_MRFS`]) and what a register budget leaves out ([`REGISTER_BUDGET`]).
    pub reserved: u128,
    /// Registers only end-of-thread payloads may take (what a register budget leaves of
    /// g112-g127).
    pub eot_only: u128,
    /// Per VGRF: a spill temporary, which must be placed ([`SPILL_TEMPORARIES`]).
    pub unspillable: Vec<bool>,
}

impl Constraints {
    /// The constraints of lowered scalar shader `shader`; a refusal for what the rules do
    /// not cover yet (vec4 code, stages whose input layout is not modelled).
    pub fn of(shader: &Shader) -> Result<Constraints, Refusal> {
        Constraints::with(shader, &Options::default())
    }

    /// [`Constraints::of`] under `options`.
    pub fn with(shader: &Shader, options: &Options) -> Result<Constraints, Refusal> {
        if shader.backend == Backend::Vec4 {
            return Err(Refusal(
                "vec4 (Align16) shaders are not allocated: scalar back end only".into(),
            ));
        }
        let target: Target = shader.target.target();
        if target.grf_count > 128 {
            return Err(Refusal(format!(
                "{} registers: allocation handles at most 128",
                target.grf_count
            )));
        }
        let reg = target.reg_size;
        let layout = InputLayout::of(shader).map_err(Refusal)?;
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
            for op in shader.srcs(inst) {
                match op.file {
                    RegFile::Attr => {
                        let last =
                            layout.attr_byte(op.nr, op.offset + op.footprint(exec).max(1) - 1);
                        inputs_end = inputs_end.max((last / reg as u64) as u32 + 1);
                    }
                    RegFile::FixedGrf => {
                        let end = op.offset + op.footprint(exec).max(1);
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
            eot_only = registers(end.max(eot_first_grf), target.grf_count) & !reserved;
        }
        Ok(Constraints {
            grf_count: target.grf_count,
            reg_size: reg,
            first_free_grf,
            eot_first_grf,
            eot_reads,
            is_eot,
            reserved,
            eot_only,
            unspillable,
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
}

/// Registers `first..end` as a mask (bit `g` for `gN`, at most 128).
fn registers(first: u32, end: u32) -> u128 {
    (first.min(128)..end.min(128)).fold(0, |m, g| m | 1u128 << g)
}
