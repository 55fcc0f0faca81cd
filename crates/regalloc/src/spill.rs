//! Spilling: rewrites a lowered VGRF-level shader so that chosen VGRFs live in scratch
//! memory, as Mesa 22.3's `fs_reg_alloc::spill_reg`, `emit_spill` and `emit_unspill` do
//! (src/intel/compiler/brw_fs_reg_allocate.cpp; read in Mesa 23.0-devel, whose code for
//! gen7 to gen12 is 22.3's), per generation:
//! - each spilled VGRF gets `regs × 32` bytes of scratch at Mesa's `last_scratch`, which
//!   grows by that much per VGRF spilled;
//! - each source reading it reads instead a fresh temporary of the registers it reads
//!   (`regs_read`), filled just before from the matching scratch bytes; the fill is NoMask,
//!   in the widest power-of-two block of at most 32 channels (4 registers) that divides
//!   them; the source keeps its offset inside its register;
//! - each definition writes instead a fresh temporary of the registers it writes
//!   (`regs_written`), stored to scratch just after, in messages of `8 × min(registers of one
//!   component, dispatch_width / 8)` channels. The store keeps the instruction's execution
//!   mask when it writes one 32-bit value per channel with exactly that width ("per
//!   channel"); otherwise it is NoMask, and then — as for any partial write (predicated, less
//!   than a register, strided, or not at a register start) — the temporary is first filled
//!   from scratch, so the channels and bytes the instruction leaves keep their old value.
//!   Partial too, where Mesa is not: a send whose header masks its channels (a typed message
//!   before gen9, `writes_conditionally`). Mesa's IR leaves such a channel's result undefined
//!   (a pixel the sample mask leaves out runs no atomic), eubatch's keeps the old value,
//!   which the simulator holds it to. An `undef` of a spilled VGRF stays, as in Mesa, on the
//!   VGRF nothing else reads any more. Where Mesa asserts — a write whose registers are not a
//!   whole number of messages (a SIMD16 float written from the middle of a register) — the
//!   messages are one register each;
//! - messages: gen9 and later, a scratch header made once at the start of the program
//!   (`scratch_header`), whose dword 2 a NoMask `mov(1)` sets to the offset in OWords
//!   before each data-cache OWord block read or write `send`
//!   (`GFX8_BTI_STATELESS_NON_COHERENT`; the write's data is the second payload); gen7 and
//!   gen8, `gfx4_scratch_write` through the spill message registers, and
//!   `gfx7_scratch_read` (`gfx4_scratch_read` past its offset range);
//! - counts: one spill per write message and one fill per read message (Mesa's
//!   `spill_count` / `fill_count`), fills made for partial writes included.
//!
//! The rules that limit it are [`crate::constraints`]' (each with its source):
//! [`SPILL_TEMPORARIES`] (what this makes is never spilled again), [`SPILL_MRFS`] (gen7/8
//! keep the message registers free) and [`SCRATCH_OFFSET`]. The message encodings are
//! [`eubatch_ir::message::scratch`]'s, which the simulator runs.
//!
//! Limits: one [`Spiller`] must see every spill of a shader (it keeps `last_scratch` and
//! the header); a shader spilled elsewhere and read back is not continued. Mesa's check
//! that no other message uses the spill MRFs is moot (eubatch's lowered code has no MRFs).
//!
//! [`SPILL_TEMPORARIES`]: crate::constraints::SPILL_TEMPORARIES
//! [`SPILL_MRFS`]: crate::constraints::SPILL_MRFS
//! [`SCRATCH_OFFSET`]: crate::constraints::SCRATCH_OFFSET

use eubatch_ir::message::{scratch, sfid};
use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::operand::arf;
use eubatch_ir::shader::{InstBuilder, SendInfo};
use eubatch_ir::size_read::payload_len;
use eubatch_ir::{Backend, Control, Gen, Inst, Opcode, Operand, RegFile, Region, Shader, Type};
use eubatch_ir::{Vgrf, VgrfLayout};
use eubatch_passes::analysis::changed::Changed;

use crate::constraints::{Constraints, Refusal};

/// Scratch messages made, as Mesa counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Write messages (`spill_count`).
    pub spills: u32,
    /// Read messages (`fill_count`).
    pub fills: u32,
}

/// Spills the VGRFs of one shader, round after round.
#[derive(Default)]
pub struct Spiller {
    /// Scratch bytes given out so far (Mesa's `last_scratch`).
    pub last_scratch: u32,
    /// The scratch header (gen9+), once made.
    header: Option<Vgrf>,
    pub counts: Counts,
    /// VGRFs spilled so far.
    pub spilled: u32,
    /// Per VGRF: its scratch offset while it is being spilled (`u32::MAX`: not spilled).
    slot: Vec<u32>,
    /// Sources of the instruction being rewritten (kept to reuse its storage).
    srcs: Vec<Operand>,
}

/// The byte range a scratch message moves, and how.
#[derive(Clone, Copy)]
struct Move {
    /// The temporary's first byte (a register start).
    temp: Operand,
    /// Scratch offset of that byte.
    offset: u32,
    /// Registers in all.
    regs: u32,
    /// The messages' execution control (their width is a multiple of 8 channels).
    ctl: Control,
}

impl Spiller {
    pub fn new() -> Spiller {
        Spiller::default()
    }

    /// Rewrites `shader` so that `vgrfs` live in scratch; what changed (for
    /// [`eubatch_passes::PassCx::invalidate`]). An error for vec4 code and for a VGRF that
    /// does not exist or is itself a spill temporary.
    pub fn spill(&mut self, shader: &mut Shader, vgrfs: &[Vgrf]) -> Result<Changed, Refusal> {
        if shader.backend == Backend::Vec4 {
            return Err(Refusal("spilling vec4 code is not modelled".into()));
        }
        let reg = shader.reg_size();
        let temps = Constraints::of(shader)?.unspillable;
        self.slot.clear();
        self.slot.resize(shader.vgrfs.len(), u32::MAX);
        for &v in vgrfs {
            let Some(layout) = shader.vgrfs.get(v) else {
                return Err(Refusal(format!("spilling vgrf{}: no such VGRF", v.index())));
            };
            if temps[v.index()] {
                return Err(Refusal(format!(
                    "spilling vgrf{}: it is a spill temporary, which is never spilled again [{}]",
                    v.index(),
                    crate::constraints::SPILL_TEMPORARIES
                )));
            }
            if self.slot[v.index()] != u32::MAX {
                continue;
            }
            self.slot[v.index()] = self.last_scratch;
            self.last_scratch += layout.size().div_ceil(reg) * reg;
            self.spilled += 1;
        }
        let mut changed = Changed::INSTRUCTIONS.union(Changed::VARIABLES);
        if shader.target >= Gen::Gen9 && self.header.is_none() {
            changed = changed.union(self.make_header(shader));
        }
        for b in shader.layout.blocks.indices() {
            let old = std::mem::take(&mut shader.layout.blocks[b].insts);
            let mut new = Vec::with_capacity(old.len() + 8);
            for &inst in &old {
                self.rewrite(shader, inst, &mut new)?;
            }
            shader.layout.blocks[b].insts = new;
        }
        Ok(changed)
    }

    /// The gen9 scratch header, made at the start of the program (Mesa `spill_reg`:
    /// `SHADER_OPCODE_SCRATCH_HEADER`, `exec_all().group(8, 0)`, before the first
    /// instruction). Changes the blocks too when the first instruction is control flow.
    fn make_header(&mut self, shader: &mut Shader) -> Changed {
        let h = shader.vgrfs.push(VgrfLayout::flat(shader.reg_size()));
        self.header = Some(h);
        let mut ctl = Control::new(8);
        ctl.set(Control::NO_MASK, true);
        let dst = Operand::vgrf(h.index() as u32, 0, Type::UD, 1);
        let inst = shader.create_inst(InstBuilder {
            opcode: Opcode::ScratchHeader,
            control: ctl,
            dst,
            srcs: &[],
            size_written: shader.reg_size(),
            send: None,
        });
        let Some(first) = shader.layout.blocks.iter_mut().next() else {
            shader.layout.blocks.push(Default::default());
            shader.layout.blocks[eubatch_ir::Block::from_usize(0)]
                .insts
                .push(inst);
            return Changed::BLOCKS;
        };
        let opens_with_flow = first
            .insts
            .first()
            .is_some_and(|&i| shader.insts.opcode[i].control_flow() != ControlFlow::None);
        let first = shader.layout.blocks.iter_mut().next().unwrap();
        first.insts.insert(0, inst);
        if opens_with_flow {
            Changed::BLOCKS
        } else {
            Changed::NOTHING
        }
    }

    /// `inst` with its spilled sources filled before it and its spilled destination
    /// stored after it, onto `out`.
    fn rewrite(
        &mut self,
        shader: &mut Shader,
        inst: Inst,
        out: &mut Vec<Inst>,
    ) -> Result<(), Refusal> {
        let reg = shader.reg_size();
        let op = shader.insts.opcode[inst];
        let ctl = shader.insts.control[inst];
        let dst = shader.insts.dst[inst];
        let spilled = |o: &Operand, slot: &[u32]| {
            o.file == RegFile::Vgrf && slot.get(o.nr as usize).is_some_and(|s| *s != u32::MAX)
        };
        // Sources: a fill into a fresh temporary each (Mesa fills per source, even twice
        // for one VGRF read twice).
        self.srcs.clear();
        self.srcs.extend_from_slice(shader.srcs(inst));
        let mut any = false;
        for k in 0..self.srcs.len() {
            let s = self.srcs[k];
            if !spilled(&s, &self.slot) {
                continue;
            }
            let count = regs_read(shader, inst, k);
            let temp = temporary(shader, count);
            let offset = self.slot[s.nr as usize] + s.offset / reg * reg;
            self.srcs[k] = Operand {
                nr: temp.index() as u32,
                offset: s.offset % reg,
                ..s
            };
            any = true;
            // The largest power-of-two divisor of the block in channels, at most 32.
            let width = (count.max(1) * 8).trailing_zeros().min(5);
            let fill_ctl = message_control(ctl, 1 << width, true);
            self.fill(
                shader,
                Move {
                    temp: temp_operand(temp),
                    offset,
                    regs: count,
                    ctl: fill_ctl,
                },
                out,
            )?;
        }
        if any {
            let srcs = std::mem::take(&mut self.srcs);
            shader.set_srcs(inst, &srcs);
            self.srcs = srcs;
        }
        if !spilled(&dst, &self.slot) || op == Opcode::Undef {
            out.push(inst);
            return Ok(());
        }
        let written = shader.insts.size_written[inst];
        let count = (dst.offset % reg + written).div_ceil(reg).max(1);
        let temp = temporary(shader, count);
        let offset = self.slot[dst.nr as usize] + dst.offset / reg * reg;
        shader.insts.dst[inst] = Operand {
            nr: temp.index() as u32,
            offset: dst.offset % reg,
            ..dst
        };
        let exec = ctl.exec_size as u32;
        // Registers one component of the destination takes (Mesa's
        // `dst.component_size(exec_size)`), at most the spill message registers.
        let comp = (exec * dst.stride as u32).max(1) * dst.ty.size();
        let max_regs = (shader.dispatch_width as u32 / 8).max(1);
        let mut width = 8 * comp.div_ceil(reg).min(max_regs);
        if !count.is_multiple_of(width / 8) {
            // Mesa asserts here (and a release build drops the last register): the write
            // straddles registers unevenly. One-register messages cover it.
            width = 8;
        }
        let per_channel = dst.stride == 1 && dst.ty.size() == 4 && exec == width;
        let partial = eubatch_passes::analysis::access::writes_conditionally(shader, inst)
            || exec * dst.ty.size() < 32
            || dst.stride != 1
            || !dst.offset.is_multiple_of(reg);
        let spill_ctl = message_control(ctl, width, !per_channel || ctl.no_mask());
        let m = Move {
            temp: temp_operand(temp),
            offset,
            regs: count,
            ctl: spill_ctl,
        };
        if partial || (!ctl.no_mask() && !per_channel) {
            self.fill(shader, m, out)?;
        }
        out.push(inst);
        self.store(shader, m, out);
        Ok(())
    }

    /// Fills `m.regs` registers of `m.temp` from scratch (`emit_unspill`).
    fn fill(&mut self, shader: &mut Shader, m: Move, out: &mut Vec<Inst>) -> Result<(), Refusal> {
        let reg = shader.reg_size();
        let per = m.ctl.exec_size as u32 / 8;
        for i in 0..m.regs / per {
            self.counts.fills += 1;
            let at = m.offset + i * per * reg;
            let dst = Operand {
                offset: m.temp.offset + i * per * reg,
                ..m.temp
            };
            if shader.target >= Gen::Gen9 {
                out.push(self.set_header_offset(shader, m.ctl, at));
                let header = self.header_operand();
                let srcs = [imm(0), imm(0), header];
                out.push(shader.create_inst(InstBuilder {
                    opcode: Opcode::Send,
                    control: m.ctl,
                    dst,
                    srcs: &srcs,
                    size_written: per * reg,
                    send: Some(SendInfo {
                        mlen: 1,
                        header_size: 1,
                        sfid: sfid::DATA_CACHE,
                        desc: block_desc(false, per)?,
                        ..Default::default()
                    }),
                }));
            } else {
                let gfx7 = at < scratch::GFX7_READ_OFFSET_LIMIT;
                let srcs = [imm(at)];
                out.push(shader.create_inst(InstBuilder {
                    opcode: if gfx7 {
                        Opcode::Gfx7ScratchRead
                    } else {
                        Opcode::Gfx4ScratchRead
                    },
                    control: m.ctl,
                    dst,
                    srcs: &srcs,
                    size_written: per * reg,
                    // The header is one message register (Mesa: `mlen = 1`).
                    send: (!gfx7).then_some(SendInfo {
                        mlen: 1,
                        ..Default::default()
                    }),
                }));
            }
        }
        Ok(())
    }

    /// Stores `m.regs` registers of `m.temp` to scratch (`emit_spill`).
    fn store(&mut self, shader: &mut Shader, m: Move, out: &mut Vec<Inst>) {
        let reg = shader.reg_size();
        let per = m.ctl.exec_size as u32 / 8;
        let null = Operand::arf(arf::NULL, 0, Type::F, Region::new(8, 8, 1));
        for i in 0..m.regs / per {
            self.counts.spills += 1;
            let at = m.offset + i * per * reg;
            let data = Operand {
                offset: m.temp.offset + i * per * reg,
                ..m.temp
            };
            if shader.target >= Gen::Gen9 {
                out.push(self.set_header_offset(shader, m.ctl, at));
                let srcs = [imm(0), imm(0), self.header_operand(), data];
                out.push(shader.create_inst(InstBuilder {
                    opcode: Opcode::Send,
                    control: m.ctl,
                    dst: null,
                    srcs: &srcs,
                    size_written: 0,
                    send: Some(SendInfo {
                        mlen: 1,
                        ex_mlen: per as u8,
                        header_size: 1,
                        sfid: sfid::DATA_CACHE,
                        // (1, 2 or 4 registers: always a block size.)
                        desc: scratch::block_desc(true, per).unwrap_or(0),
                        ..Default::default()
                    }),
                }));
            } else {
                let srcs = [data, imm(at)];
                out.push(shader.create_inst(InstBuilder {
                    opcode: Opcode::Gfx4ScratchWrite,
                    control: m.ctl,
                    dst: null,
                    srcs: &srcs,
                    size_written: 0,
                    // Header and data in the spill message registers (`mlen = 1 + reg_size`).
                    send: Some(SendInfo {
                        mlen: 1 + per as u8,
                        ..Default::default()
                    }),
                }));
            }
        }
    }

    /// `mov(1) header.2:UD, offset / 16` NoMask (Mesa: `exec_all().group(1, 0)` of the
    /// message's builder).
    fn set_header_offset(&self, shader: &mut Shader, ctl: Control, offset: u32) -> Inst {
        let mut c = Control::new(1);
        c.group = ctl.group;
        c.set(Control::NO_MASK, true);
        let dst = Operand {
            offset: 4 * scratch::HEADER_OFFSET_DWORD,
            stride: 0,
            ..self.header_operand()
        };
        shader.create_inst(InstBuilder {
            opcode: Opcode::Mov,
            control: c,
            dst,
            srcs: &[imm(offset / 16)],
            size_written: 4,
            send: None,
        })
    }

    fn header_operand(&self) -> Operand {
        let h = self.header.map_or(0, |h| h.index() as u32);
        Operand::vgrf(h, 0, Type::UD, 1)
    }
}

/// A scratch block descriptor, or why there is none.
fn block_desc(write: bool, regs: u32) -> Result<u32, Refusal> {
    scratch::block_desc(write, regs)
        .ok_or_else(|| Refusal(format!("no OWord block moves {regs} registers")))
}

fn imm(v: u32) -> Operand {
    Operand::imm(Type::UD, v as u64)
}

/// A fresh VGRF of `regs` registers (Mesa `alloc_spill_reg`).
fn temporary(shader: &mut Shader, regs: u32) -> Vgrf {
    let bytes = regs * shader.reg_size();
    shader.vgrfs.push(VgrfLayout::flat(bytes))
}

/// A temporary as scratch messages name it (Mesa's `fs_reg(VGRF, nr)`: float, packed).
fn temp_operand(v: Vgrf) -> Operand {
    Operand::vgrf(v.index() as u32, 0, Type::F, 1)
}

/// The control of scratch messages of `width` channels around an instruction of control
/// `ctl` (Mesa `ibld.exec_all(no_mask).group(width, 0)`: the instruction's group when the
/// width fits in its channels, else 0, which only NoMask allows).
fn message_control(ctl: Control, width: u32, no_mask: bool) -> Control {
    let mut c = Control::new(width as u8);
    c.group = if width <= ctl.exec_size as u32 {
        ctl.group
    } else {
        0
    };
    c.set(Control::NO_MASK, no_mask || ctl.no_mask());
    c
}

/// Registers source `k` of `inst` reads from its register on (Mesa's `regs_read`): a
/// send's payload its message length, an ALU source its region, a virtual opcode's
/// source to the end of its VGRF (what the analysis layer assumes it reads); never past
/// the VGRF's last register.
fn regs_read(shader: &Shader, inst: Inst, k: usize) -> u32 {
    let reg = shader.reg_size();
    let s = shader.srcs(inst)[k];
    let op = shader.insts.opcode[inst];
    let ctl = shader.insts.control[inst];
    let size = shader.vgrfs.get(s.vgrf_nr()).map_or(0, |l| l.size());
    let to_end = size.saturating_sub(s.offset);
    let header = shader.send_info(inst).map_or(0, |m| m.header_size as usize);
    let bytes = if let Some(len) = payload_len(shader, inst, k) {
        len
    } else if op == Opcode::LoadPayload {
        if k < header {
            reg
        } else {
            ctl.exec_size as u32 * s.ty.size()
        }
    } else if op.is_message() || op.alu_arity().is_none() || shader.has_swizzle_or_writemask(inst) {
        to_end
    } else if s.stride == 0 {
        s.ty.size()
    } else {
        s.footprint(ctl.exec_size as u32)
    };
    let regs = (s.offset % reg + bytes.min(to_end)).div_ceil(reg).max(1);
    // Never past the VGRF's last register.
    regs.min(size.div_ceil(reg).saturating_sub(s.offset / reg).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use eubatch_ir::text::parse_shader;

    fn shader(target: &str, backend: &str) -> Shader {
        parse_shader(&format!(
            "shader \"t\" stage FS width 8 target {target}{backend}
vgrf0 1x32
vgrf1 2x32
block0:
    mov(8) vgrf0:F, g2<8,8,1>:F
    add(8) vgrf1:F, vgrf0:F, vgrf0<0>:F
    mov(8) vgrf1+1.0:F, vgrf0:F
    mov(8) g10<8,8,1>:F, vgrf1+1.0:F
"
        ))
        .unwrap()
    }

    #[test]
    fn bad_requests_are_refused_with_a_reason() {
        let mut s = shader("skl", "");
        let mut sp = Spiller::new();
        let e = sp.spill(&mut s, &[Vgrf::from_usize(7)]).unwrap_err();
        assert!(e.0.contains("vgrf7: no such VGRF"), "{e}");
        sp.spill(&mut s, &[Vgrf::from_usize(0)]).unwrap();
        // vgrf2 is the scratch header, vgrf3 the first fill's temporary.
        for t in [2, 3] {
            let e = sp.spill(&mut s, &[Vgrf::from_usize(t)]).unwrap_err();
            assert!(e.0.contains("spill temporary"), "{e}");
        }
        let mut v = shader("hsw", " backend vec4");
        let e = Spiller::new()
            .spill(&mut v, &[Vgrf::from_usize(0)])
            .unwrap_err();
        assert!(e.0.contains("vec4"), "{e}");
    }

    #[test]
    fn counts_and_offsets_follow_mesa() {
        // vgrf0 (1 register) at scratch 0, vgrf1 (2) at 32: one spill per write message,
        // one fill per read message — two fills for the `add`, which reads vgrf0 twice.
        let mut s = shader("bdw", "");
        let mut sp = Spiller::new();
        sp.spill(&mut s, &[Vgrf::from_usize(0), Vgrf::from_usize(1)])
            .unwrap();
        assert_eq!(sp.last_scratch, 96);
        assert_eq!(sp.spilled, 2);
        assert_eq!(
            sp.counts,
            Counts {
                spills: 3,
                fills: 4
            }
        );
        let offsets: Vec<u64> = s
            .layout
            .insts()
            .filter(|&i| s.insts.opcode[i] == Opcode::Gfx4ScratchWrite)
            .map(|i| s.srcs(i)[1].imm_bits())
            .collect();
        assert_eq!(offsets, [0, 32, 64]);
        // Spilling it again (nothing reads it any more) takes a fresh slot, as every call of
        // Mesa's spill_reg grows last_scratch.
        let before = sp.last_scratch;
        sp.spill(&mut s, &[Vgrf::from_usize(0)]).unwrap();
        assert_eq!(sp.last_scratch, before + 32);
    }

    #[test]
    fn sources_read_what_mesa_says() {
        let s = shader("skl", "");
        let insts: Vec<Inst> = s.layout.insts().collect();
        // add(8) vgrf1, vgrf0, vgrf0<0>: a packed float reads one register, a scalar one.
        assert_eq!(regs_read(&s, insts[1], 0), 1);
        assert_eq!(regs_read(&s, insts[1], 1), 1);
    }
}
