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
//! Limits: the scalar back end only (vec4 code is refused), the thread layouts
//! `InputLayout` models (VS, FS, CS; GS, TCS and TES without pushed inputs), at most 128
//! registers. Not modelled yet (issue 16): spill
//! addressing registers, gen8/9's r127 rule for SIMD8 send destinations, the interference
//! Mesa forces between a multi-register destination and its sources, and the two payloads
//! of a split send.

use eubatch_ir::{Backend, Inst, RegFile, Shader, Target, Vgrf};

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

/// Every rule, for documentation and the CLI.
pub const RULES: &[Rule] = &[
    REGISTER_FILE,
    THREAD_INPUTS,
    CONTIGUOUS,
    SUB_REGISTER,
    EOT_PAYLOAD,
    NO_SHARED_BYTE,
];

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
}

impl Constraints {
    /// The constraints of lowered scalar shader `shader`; a refusal for what the rules do
    /// not cover yet (vec4 code, stages whose input layout is not modelled).
    pub fn of(shader: &Shader) -> Result<Constraints, Refusal> {
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
        let layout = shader.input_layout().map_err(Refusal)?;
        // The inputs end after the last attribute register read, and after any fixed
        // register the shader names (payload registers Mesa's layout infers as a bound).
        let mut inputs_end = layout.attr_start;
        let mut eot_reads = Vec::new();
        let mut is_eot = vec![false; shader.vgrfs.len()];
        for inst in shader.layout.insts() {
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
        Ok(Constraints {
            grf_count: target.grf_count,
            reg_size: reg,
            first_free_grf: inputs_end.min(target.grf_count),
            eot_first_grf: Target::EOT_PAYLOAD_FIRST_GRF,
            eot_reads,
            is_eot,
        })
    }

    /// Registers a VGRF of `bytes` bytes takes (at byte 0 of its first).
    pub fn regs(&self, bytes: u32) -> u32 {
        bytes.div_ceil(self.reg_size).max(1)
    }
}
