//! The shader: instruction columns (struct of arrays), the operand pool, the VGRF table and
//! the block layout, kept apart from the instruction data (Cranelift's DataFlowGraph vs
//! Layout).

use index_vec::IndexVec;

use crate::entities::{Block, Inst, SendIdx, Vgrf};
use crate::opcode::Opcode;
use crate::operand::Operand;
use crate::target::Gen;
use crate::vgrf::VgrfLayout;

/// Pipeline stage.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    Vs,
    Tcs,
    Tes,
    Gs,
    Fs,
    Cs,
    Task,
    Mesh,
}

impl Stage {
    pub const ALL: [Stage; 8] = [
        Stage::Vs,
        Stage::Tcs,
        Stage::Tes,
        Stage::Gs,
        Stage::Fs,
        Stage::Cs,
        Stage::Task,
        Stage::Mesh,
    ];

    /// Mesa's `_mesa_shader_stage_to_abbrev`, as used in dump file names.
    pub fn abbrev(self) -> &'static str {
        match self {
            Stage::Vs => "VS",
            Stage::Tcs => "TCS",
            Stage::Tes => "TES",
            Stage::Gs => "GS",
            Stage::Fs => "FS",
            Stage::Cs => "CS",
            Stage::Task => "TASK",
            Stage::Mesh => "MESH",
        }
    }

    pub fn from_abbrev(s: &str) -> Option<Stage> {
        Stage::ALL.iter().copied().find(|st| st.abbrev() == s)
    }

    /// Mesa's `_mesa_shader_stage_to_string`, as in the final-code listings' headers
    /// (`Native code for unnamed vertex shader GLSL1`).
    pub fn mesa_name(self) -> &'static str {
        match self {
            Stage::Vs => "vertex",
            Stage::Tcs => "tessellation control",
            Stage::Tes => "tessellation evaluation",
            Stage::Gs => "geometry",
            Stage::Fs => "fragment",
            Stage::Cs => "compute",
            Stage::Task => "task",
            Stage::Mesh => "mesh",
        }
    }
}

/// Which of Mesa's back ends the code belongs to.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The scalar (`fs_visitor`, Align1) back end: one channel per invocation.
    Scalar,
    /// The vec4 (Align16) back end: SIMD4x2, swizzles and writemasks.
    Vec4,
}

/// Predication (`brw_predicate`): normal, or one of the Align16/Align1 group predicates.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Predicate {
    None,
    Normal,
    Align16ReplicateX,
    Align16ReplicateY,
    Align16ReplicateZ,
    Align16ReplicateW,
    Align16Any4h,
    Align16All4h,
    /// `BRW_PREDICATE_ALIGN1_ALLV` (encoded 3 in Align1): a channel is enabled when its
    /// bit is set in both flag registers, f0 and f1 on gen7+ (Mesa 22.3 brw_fs.cpp
    /// `fs_inst::flags_read`: "The vertical predication modes combine corresponding bits
    /// from f0.0 and f1.0 on Gfx7+"), the flag subregister being f0's ([`Self::vertical_flags`]).
    /// Mesa combines a predicate with the fragment's sample mask this way
    /// (`brw_emit_predicate_on_sample_mask`).
    Align1Allv,
    /// Align1 ANY2H/ALL2H, ANY8H/ALL8H, ANY16H/ALL16H, ANY32H/ALL32H (encoded 4-5 and 8-13;
    /// ANY4H/ALL4H share [`Self::Align16Any4h`]'s code 6-7): each channel takes the OR /
    /// AND of the flag bits of its group of 2, 8, 16 or 32 channels (PRM Vol. 7
    /// "Predication"). Mesa's `vote_any`/`vote_all` use the dispatch width's
    /// (brw_fs_nir.cpp, `BRW_PREDICATE_ALIGN1_ANY8H` ...).
    Align1Any2h,
    Align1All2h,
    Align1Any8h,
    Align1All8h,
    Align1Any16h,
    Align1All16h,
    Align1Any32h,
    Align1All32h,
}

impl Predicate {
    /// Suffix after the flag register in Mesa's vec4 printer and disassembler (`pred_ctrl_align16`;
    /// `.allv` of `pred_ctrl_align1`).
    pub fn suffix(self) -> &'static str {
        match self {
            Predicate::None | Predicate::Normal => "",
            Predicate::Align16ReplicateX => ".x",
            Predicate::Align16ReplicateY => ".y",
            Predicate::Align16ReplicateZ => ".z",
            Predicate::Align16ReplicateW => ".w",
            Predicate::Align16Any4h => ".any4h",
            Predicate::Align16All4h => ".all4h",
            Predicate::Align1Allv => ".allv",
            Predicate::Align1Any2h => ".any2h",
            Predicate::Align1All2h => ".all2h",
            Predicate::Align1Any8h => ".any8h",
            Predicate::Align1All8h => ".all8h",
            Predicate::Align1Any16h => ".any16h",
            Predicate::Align1All16h => ".all16h",
            Predicate::Align1Any32h => ".any32h",
            Predicate::Align1All32h => ".all32h",
        }
    }

    /// A horizontal group predicate's group of channels and whether it is ANY (else ALL):
    /// Mesa 22.3 brw_fs.cpp `predicate_width`; `None` for the others.
    pub fn horizontal_group(self) -> Option<(u32, bool)> {
        Some(match self {
            Predicate::Align1Any2h => (2, true),
            Predicate::Align1All2h => (2, false),
            Predicate::Align16Any4h => (4, true),
            Predicate::Align16All4h => (4, false),
            Predicate::Align1Any8h => (8, true),
            Predicate::Align1All8h => (8, false),
            Predicate::Align1Any16h => (16, true),
            Predicate::Align1All16h => (16, false),
            Predicate::Align1Any32h => (32, true),
            Predicate::Align1All32h => (32, false),
            _ => return None,
        })
    }

    /// Whether it is one of the Align1-only codes ([`Self::Align1Allv`] and the group
    /// predicates other than ANY4H/ALL4H), encoded from Mesa's Align1 table.
    pub fn align1_only(self) -> bool {
        matches!(
            self,
            Predicate::Align1Allv
                | Predicate::Align1Any2h
                | Predicate::Align1All2h
                | Predicate::Align1Any8h
                | Predicate::Align1All8h
                | Predicate::Align1Any16h
                | Predicate::Align1All16h
                | Predicate::Align1Any32h
                | Predicate::Align1All32h
        )
    }

    /// The flag subregisters a vertical predicate (ALLV) combines for an instruction whose
    /// own is `flag_subreg`: that one and the one two up (f0.0 with f1.0, f0.1 with f1.1:
    /// gen7+, Mesa's `flags_read` shift of 4 bytes); `None` for other predicates.
    pub fn vertical_flags(self, flag_subreg: u8) -> Option<[u8; 2]> {
        (self == Predicate::Align1Allv).then_some([flag_subreg, flag_subreg + 2])
    }

    pub fn from_suffix(s: &str) -> Option<Predicate> {
        Some(match s {
            "" => Predicate::Normal,
            ".x" => Predicate::Align16ReplicateX,
            ".y" => Predicate::Align16ReplicateY,
            ".z" => Predicate::Align16ReplicateZ,
            ".w" => Predicate::Align16ReplicateW,
            ".any4h" => Predicate::Align16Any4h,
            ".all4h" => Predicate::Align16All4h,
            ".allv" => Predicate::Align1Allv,
            ".any2h" => Predicate::Align1Any2h,
            ".all2h" => Predicate::Align1All2h,
            ".any8h" => Predicate::Align1Any8h,
            ".all8h" => Predicate::Align1All8h,
            ".any16h" => Predicate::Align1Any16h,
            ".all16h" => Predicate::Align1All16h,
            ".any32h" => Predicate::Align1Any32h,
            ".all32h" => Predicate::Align1All32h,
            _ => return None,
        })
    }
}

/// Conditional modifier (`brw_conditional_mod`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CondMod {
    None,
    Z,
    Nz,
    G,
    Ge,
    L,
    Le,
    O,
    U,
}

impl CondMod {
    pub const ALL: [CondMod; 9] = [
        CondMod::None,
        CondMod::Z,
        CondMod::Nz,
        CondMod::G,
        CondMod::Ge,
        CondMod::L,
        CondMod::Le,
        CondMod::O,
        CondMod::U,
    ];

    /// Mesa's `conditional_modifier[]` strings (brw_disasm.c), without the dot.
    pub fn name(self) -> &'static str {
        match self {
            CondMod::None => "",
            CondMod::Z => "z",
            CondMod::Nz => "nz",
            CondMod::G => "g",
            CondMod::Ge => "ge",
            CondMod::L => "l",
            CondMod::Le => "le",
            CondMod::O => "o",
            CondMod::U => "u",
        }
    }

    pub fn from_name(s: &str) -> Option<CondMod> {
        CondMod::ALL.iter().copied().skip(1).find(|c| c.name() == s)
    }
}

/// The per-instruction control record: everything but the opcode and operands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct Control {
    pub exec_size: u8,
    /// First channel this instruction executes for (`group`): quarter/half control.
    pub group: u8,
    pub flags: u8,
    pub predicate: Predicate,
    /// Flag subregister used by the predicate and the conditional modifier: `f(n/2).(n%2)`.
    pub flag_subreg: u8,
    pub cmod: CondMod,
}

const _: () = assert!(std::mem::size_of::<Control>() == 6);

impl Control {
    pub const NO_MASK: u8 = 1;
    pub const SATURATE: u8 = 2;
    pub const PRED_INVERT: u8 = 4;
    pub const EOT: u8 = 8;
    /// Mesa 25's `has_no_mask_send_params`: the message's descriptor sources are uniform.
    pub const NO_MASK_PARAMS: u8 = 16;
    /// Align16 access mode in scalar (hardware-level) code: operands carry swizzles and
    /// writemasks (Mesa emits three-source instructions this way before gen10). Implied
    /// for every instruction of a vec4 shader.
    pub const ALIGN16: u8 = 32;

    pub fn new(exec_size: u8) -> Control {
        Control {
            exec_size,
            group: 0,
            flags: 0,
            predicate: Predicate::None,
            flag_subreg: 0,
            cmod: CondMod::None,
        }
    }
    /// The flag subregister number of `fN.M`, if it names one: gen7 to gen12 have two
    /// flag registers, f0 and f1, of two 16-bit subregisters each (PRM Vol. 7 "Flag
    /// Register"; [`crate::Target::flag_subregs`] is 2 or 4).
    pub fn flag_subreg_of(reg: u8, sub: u8) -> Option<u8> {
        (reg < 2 && sub < 2).then_some(reg * 2 + sub)
    }

    pub fn no_mask(&self) -> bool {
        self.flags & Self::NO_MASK != 0
    }
    pub fn saturate(&self) -> bool {
        self.flags & Self::SATURATE != 0
    }
    pub fn pred_invert(&self) -> bool {
        self.flags & Self::PRED_INVERT != 0
    }
    pub fn eot(&self) -> bool {
        self.flags & Self::EOT != 0
    }
    pub fn align16(&self) -> bool {
        self.flags & Self::ALIGN16 != 0
    }
    pub fn set(&mut self, flag: u8, on: bool) {
        if on {
            self.flags |= flag;
        } else {
            self.flags &= !flag;
        }
    }
}

/// The fields only message instructions have, kept in a side table.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct SendInfo {
    /// Message length in registers.
    pub mlen: u8,
    /// Extended message length in registers.
    pub ex_mlen: u8,
    /// Header registers at the start of the payload (`header_size`).
    pub header_size: u8,
    /// Shared function id, when known (lowered sends).
    pub sfid: u8,
    pub desc: u32,
    pub ex_desc: u32,
    /// The URB global offset of a logical URB read or write, in 128-bit units (Mesa's
    /// `fs_inst::offset`, set by `emit_urb_writes` and the input loads). Neither Mesa
    /// printer writes it; the importer recovers it from the program's final code
    /// ([`crate::import::urb_offsets`]). `None`: not known, and the message cannot be lowered.
    pub urb_offset: Option<u16>,
    /// What a logical sampler message puts in its header's dword 2 (Mesa's `fs_inst::offset`
    /// for texturing, brw_fs_nir.cpp `nir_emit_texture`'s `header_bits`): the gather
    /// channel in bits 17:16, constant texel offsets u/v/r in bits 11:8/7:4/3:0. Neither
    /// printer writes it; the importer recovers it from the final code
    /// ([`crate::import::header_bits`]). `None`: not known — a gather cannot be lowered, and
    /// other messages are taken as the dump shows them (no offsets).
    pub header_bits: Option<u32>,
}

/// A contiguous run of operands in the pool.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct OperandRange {
    pub start: u32,
    pub len: u32,
}

/// The instruction columns. Every column has one entry per instruction ever created; the
/// layout says which are live and in what order.
#[derive(Clone, Debug, Default)]
pub struct InstColumns {
    pub opcode: IndexVec<Inst, Opcode>,
    pub control: IndexVec<Inst, Control>,
    pub dst: IndexVec<Inst, Operand>,
    pub srcs: IndexVec<Inst, OperandRange>,
    /// Bytes the instruction writes at its destination (Mesa's `size_written`).
    pub size_written: IndexVec<Inst, u32>,
    /// Row in `sends`, for message instructions.
    pub send: IndexVec<Inst, Option<SendIdx>>,
}

/// One basic block: its instructions in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockData {
    pub insts: Vec<Inst>,
}

/// Block order and the instruction order inside each block.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    pub blocks: IndexVec<Block, BlockData>,
}

impl Layout {
    /// Every instruction in program order.
    pub fn insts(&self) -> impl Iterator<Item = Inst> + '_ {
        self.blocks.iter().flat_map(|b| b.insts.iter().copied())
    }

    pub fn num_insts(&self) -> usize {
        self.blocks.iter().map(|b| b.insts.len()).sum()
    }

    /// Every instruction in layout order, in a vector of the exact size copied block by
    /// block ([`Layout::insts`] collected grows its vector as it goes: passes take this
    /// order once per run).
    pub fn order(&self) -> Vec<Inst> {
        let mut order = Vec::with_capacity(self.num_insts());
        for b in self.blocks.iter() {
            order.extend_from_slice(&b.insts);
        }
        order
    }
}

/// A shader: the unit eubatch compiles.
#[derive(Clone, Debug)]
pub struct Shader {
    pub name: String,
    pub stage: Stage,
    pub backend: Backend,
    /// Dispatch width (8, 16, 32); 8 for vec4 (SIMD4x2) code.
    pub dispatch_width: u8,
    pub target: Gen,
    pub vgrfs: IndexVec<Vgrf, VgrfLayout>,
    pub insts: InstColumns,
    pub operands: Vec<Operand>,
    pub sends: IndexVec<SendIdx, SendInfo>,
    pub layout: Layout,
    /// Where the thread's push constants and attributes sit, fixed from the shader as it
    /// entered the pipeline ([`Shader::freeze_inputs`]): Mesa lays them out from the
    /// program's parameters, which optimization does not shrink, while eubatch infers
    /// them from what the code reads, which it does. `None`: inferred when asked.
    pub inputs: Option<crate::thread_inputs::InputLayout>,
    /// What the importer had to take without proof, where a value the dumps leave out
    /// has several candidates in the final code (a URB read's global offset among sends
    /// of the same data flow: [`crate::import::dataflow_match`]): one of them is taken, so
    /// that the shader lowers and compiles as Mesa's does, and the cross-check against
    /// Mesa's final code does not compare it (`None`: nothing taken so).
    pub unproven: Option<String>,
}

/// Everything needed to append one instruction.
#[derive(Clone, Debug)]
pub struct InstBuilder<'a> {
    pub opcode: Opcode,
    pub control: Control,
    pub dst: Operand,
    pub srcs: &'a [Operand],
    pub size_written: u32,
    pub send: Option<SendInfo>,
}

impl Shader {
    pub fn new(
        name: impl Into<String>,
        stage: Stage,
        backend: Backend,
        dispatch_width: u8,
        target: Gen,
    ) -> Shader {
        Shader {
            name: name.into(),
            stage,
            backend,
            dispatch_width,
            target,
            vgrfs: IndexVec::new(),
            insts: InstColumns::default(),
            operands: Vec::new(),
            sends: IndexVec::new(),
            layout: Layout::default(),
            inputs: None,
            unproven: None,
        }
    }

    /// Fixes where the thread's inputs sit ([`Shader::inputs`]) from the code as it is
    /// now, unless already fixed: called before anything changes what the shader reads.
    /// A stage whose layout is not modelled stays unfixed.
    pub fn freeze_inputs(&mut self) {
        if self.inputs.is_none() {
            self.inputs = crate::thread_inputs::InputLayout::of(self).ok();
        }
    }

    /// Where the thread's inputs sit: as fixed ([`Shader::freeze_inputs`]), else inferred
    /// from the code as it is now.
    pub fn input_layout(&self) -> Result<crate::thread_inputs::InputLayout, String> {
        match &self.inputs {
            Some(l) => Ok(l.clone()),
            None => crate::thread_inputs::InputLayout::of(self),
        }
    }

    /// Makes room for `insts` more instructions with `operands` more sources in all, so
    /// that a reader which knows about how many it will create (the importer, from the
    /// lines of a dump) grows each column once instead of by doubling.
    pub fn reserve_insts(&mut self, insts: usize, operands: usize) {
        let c = &mut self.insts;
        c.opcode.reserve(insts);
        c.control.reserve(insts);
        c.dst.reserve(insts);
        c.srcs.reserve(insts);
        c.size_written.reserve(insts);
        c.send.reserve(insts);
        self.operands.reserve(operands);
    }

    /// Adds an instruction to the columns (not to the layout).
    pub fn create_inst(&mut self, b: InstBuilder<'_>) -> Inst {
        let start = self.operands.len() as u32;
        self.operands.extend_from_slice(b.srcs);
        let send = b.send.map(|s| self.sends.push(s));
        let c = &mut self.insts;
        c.opcode.push(b.opcode);
        c.control.push(b.control);
        c.dst.push(b.dst);
        c.srcs.push(OperandRange {
            start,
            len: b.srcs.len() as u32,
        });
        c.size_written.push(b.size_written);
        c.send.push(send)
    }

    /// Adds an instruction at the end of `block`.
    pub fn append_inst(&mut self, block: Block, b: InstBuilder<'_>) -> Inst {
        let inst = self.create_inst(b);
        self.layout.blocks[block].insts.push(inst);
        inst
    }

    /// Replaces the sources of `inst` (in place when they fit, else in new storage: an
    /// instruction's operands are a range of one shared array).
    pub fn set_srcs(&mut self, inst: Inst, srcs: &[Operand]) {
        let r = self.insts.srcs[inst];
        let start = if srcs.len() as u32 <= r.len {
            r.start
        } else {
            let start = self.operands.len() as u32;
            self.operands.extend_from_slice(srcs);
            start
        };
        self.operands[start as usize..start as usize + srcs.len()].copy_from_slice(srcs);
        self.insts.srcs[inst] = OperandRange {
            start,
            len: srcs.len() as u32,
        };
    }

    pub fn srcs(&self, inst: Inst) -> &[Operand] {
        let r = self.insts.srcs[inst];
        &self.operands[r.start as usize..(r.start + r.len) as usize]
    }

    pub fn srcs_mut(&mut self, inst: Inst) -> &mut [Operand] {
        let r = self.insts.srcs[inst];
        &mut self.operands[r.start as usize..(r.start + r.len) as usize]
    }

    pub fn send_info(&self, inst: Inst) -> Option<&SendInfo> {
        self.insts.send[inst].map(|s| &self.sends[s])
    }

    /// Replaces (or gives) `inst`'s message fields.
    pub fn set_send_info(&mut self, inst: Inst, info: SendInfo) {
        match self.insts.send[inst] {
            Some(s) => self.sends[s] = info,
            None => self.insts.send[inst] = Some(self.sends.push(info)),
        }
    }

    /// Bytes per register on the shader's target ([`crate::target::Target::reg_size`]).
    pub fn reg_size(&self) -> u32 {
        self.target.target().reg_size
    }

    /// Number of instructions in the layout.
    pub fn num_insts(&self) -> usize {
        self.layout.num_insts()
    }

    /// Whether `inst` runs in Align16 access mode: every instruction of a vec4 shader, and
    /// the ones marked so in scalar code.
    pub fn is_align16(&self, inst: Inst) -> bool {
        self.backend == Backend::Vec4 || self.insts.control[inst].align16()
    }

    /// Whether `inst` is Align16 with a swizzle other than `.xyzw` on a source or a
    /// writemask other than `.xyzw` on its destination: channels move between or skip the
    /// four dwords of a register half, which an element-by-element (Align1) reading of the
    /// operands does not see.
    pub fn has_swizzle_or_writemask(&self, inst: Inst) -> bool {
        if !self.is_align16(inst) {
            return false;
        }
        let dst = &self.insts.dst[inst];
        let masked = !dst.is_bad() && dst.region.swizzle & 0xf != crate::Region::WRITEMASK_XYZW;
        masked
            || self.srcs(inst).iter().any(|s| {
                !matches!(
                    s.file,
                    crate::operand::RegFile::Bad | crate::operand::RegFile::Imm
                ) && s.region.swizzle != crate::Region::XYZW
            })
    }

    /// Mesa's default `size_written` for a destination: `exec_size` elements at its stride.
    /// A logical message whose response Mesa's code sizes ([`crate::message::response_bytes`]:
    /// surface, atomic, A64 and block reads, varying pull constants) writes that, into a VGRF.
    pub fn default_size_written(&self, inst: Inst) -> u32 {
        let dst = &self.insts.dst[inst];
        let exec = self.insts.control[inst].exec_size as u32;
        if dst.is_bad() {
            0
        } else if let Some(n) = (dst.file == crate::operand::RegFile::Vgrf)
            .then(|| crate::message::response_bytes(self.insts.opcode[inst], self.srcs(inst), exec))
            .flatten()
        {
            n
        } else {
            dst.footprint(exec)
        }
    }
}

/// Compares two shaders as IR: header, VGRFs, and instruction by instruction in layout
/// order (column indices may differ). Returns the first difference.
pub fn same_ir(a: &Shader, b: &Shader) -> Result<(), String> {
    if (
        a.name.as_str(),
        a.stage,
        a.backend,
        a.dispatch_width,
        a.target,
    ) != (
        b.name.as_str(),
        b.stage,
        b.backend,
        b.dispatch_width,
        b.target,
    ) {
        return Err("shader headers differ".into());
    }
    if a.vgrfs != b.vgrfs {
        return Err("VGRF layouts differ".into());
    }
    if a.layout.blocks.len() != b.layout.blocks.len() {
        return Err(format!(
            "{} blocks against {}",
            a.layout.blocks.len(),
            b.layout.blocks.len()
        ));
    }
    for (ba, bb) in a.layout.blocks.iter().zip(b.layout.blocks.iter()) {
        if ba.insts.len() != bb.insts.len() {
            return Err("blocks differ in length".into());
        }
        for (&ia, &ib) in ba.insts.iter().zip(bb.insts.iter()) {
            let same = a.insts.opcode[ia] == b.insts.opcode[ib]
                && a.insts.control[ia] == b.insts.control[ib]
                && a.insts.dst[ia] == b.insts.dst[ib]
                && a.srcs(ia) == b.srcs(ib)
                && a.insts.size_written[ia] == b.insts.size_written[ib]
                && a.send_info(ia) == b.send_info(ib);
            if !same {
                let mut sa = String::new();
                let mut sb = String::new();
                crate::text::print::write_inst(a, ia, &mut sa);
                crate::text::print::write_inst(b, ib, &mut sb);
                return Err(format!(
                    "instruction {ia} differs:\n  {sa}\n  {sb}\n  {:?}\n  {:?}",
                    (a.insts.control[ia], a.insts.dst[ia], a.srcs(ia)),
                    (b.insts.control[ib], b.insts.dst[ib], b.srcs(ib))
                ));
            }
        }
    }
    Ok(())
}
