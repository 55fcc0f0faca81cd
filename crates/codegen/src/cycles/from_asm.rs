//! Per-instruction facts of a program read from Mesa's listing ([`AsmProgram`]): what
//! Mesa's `instruction_info` and `issue_fs_inst`/`issue_vec4_instruction`
//! (brw_ir_performance.cpp) would have read of the IR instruction each final instruction
//! came from. Register ranges follow `regs_read`/`regs_written` (brw_ir_fs.h, with
//! `fs_reg::component_size` and `reg_padding`; brw_ir_vec4.h for the vec4 back end),
//! execution types `get_exec_type` (brw_ir_fs.h), flags `fs_inst::flags_read` /
//! `flags_written` (brw_fs.cpp) and the bank conflict `has_bank_conflict`
//! (brw_fs_bank_conflicts.cpp).

use eubatch_ir::operand::arf;
use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::{Control, Gen, Opcode, Operand, RegFile, Shader, Type};

use super::classify::{alu_class, is_3src, is_scratch_block_read, send_class};
use super::desc::{Class, ExecType, Sizes};
use super::expand::{uses_address, writes_address, AddressSetup};
use super::facts::{Bytes, DepFile, Flow, InstFacts};
use super::generated::{
    gen7_find_live_channel, is_implied_header_move, is_scratch_header_and, is_urb_channel_mask_or,
    legacy_scratch,
};
use crate::asm::inst::{is_send, AsmHints};
use crate::asm::AsmProgram;

/// Why a program's facts could not be derived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactsError {
    /// Encoded instruction index.
    pub inst: usize,
    pub msg: String,
}

impl std::fmt::Display for FactsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "instruction {}: {}", self.inst, self.msg)
    }
}

const REG: u32 = 32;

/// One instruction as the deriving functions see it.
pub struct View<'a> {
    pub op: Opcode,
    pub control: Control,
    pub dst: Operand,
    pub srcs: &'a [Operand],
    pub send: Option<eubatch_ir::shader::SendInfo>,
    pub hints: AsmHints,
    pub vec4: bool,
}

/// The facts of every instruction of `p` in program order, NOPs left out (they take no
/// time in Mesa's model: no sources, nothing written), and the number of blocks.
pub fn program_facts(p: &AsmProgram, gen: Gen) -> Result<(Vec<InstFacts>, usize), FactsError> {
    let s: &Shader = &p.shader;
    let mut out = Vec::with_capacity(s.num_insts());
    let mut encoded = 0usize;
    let mut block = 0u32;
    let mut next_block = 0usize;
    let num_blocks = p
        .blocks
        .iter()
        .map(|b| b.num as usize + 1)
        .max()
        .unwrap_or(1);
    let order: Vec<_> = s.layout.insts().collect();
    let mut setup = AddressSetup::default();
    let (scratch_setup, scratch_data) = legacy_scratch(s, &order, p.vec4, |id| {
        s.send_info(id)
            .and_then(|i| super::classify::send_class(gen, i.sfid, i.desc))
    });
    let (flc_setup, flc) = gen7_find_live_channel(s, &order);
    for (k, &id) in order.iter().enumerate() {
        let op = s.insts.opcode[id];
        let pseudo = matches!(op, Opcode::Do | Opcode::HaltTarget);
        // The block holding the instruction: the first not yet ended. (A loop head's
        // `do` falls in the block after its empty one; it takes no time.)
        while next_block < p.blocks.len() && (p.blocks[next_block].end as usize) <= encoded {
            next_block += 1;
        }
        if let Some(b) = p.blocks.get(next_block) {
            block = b.num;
        }
        let hints = if pseudo {
            AsmHints::default()
        } else {
            p.hints.get(encoded).copied().unwrap_or_default()
        };
        let mut send = s.send_info(id).copied();
        if let (Some(info), Some(desc)) = (send.as_mut(), setup.send_desc()) {
            if uses_address(s.srcs(id)) {
                info.desc = desc;
                info.mlen = ((desc >> 25) & 0xf) as u8;
                info.header_size = ((desc >> 19) & 1) as u8;
            }
        }
        let v = View {
            op,
            control: s.insts.control[id],
            dst: s.insts.dst[id],
            srcs: s.srcs(id),
            send,
            hints,
            vec4: p.vec4,
        };
        // The generator ends discard code with an unconditional `halt` to the halt target
        // right after it (fs_generator::patch_halt_jumps); it is not in the IR.
        let final_halt = op == Opcode::Halt
            && v.control.predicate == Predicate::None
            && order
                .get(k + 1)
                .is_some_and(|&n| s.insts.opcode[n] == Opcode::HaltTarget);
        let generated = (p.vec4
            && (is_urb_channel_mask_or(&v) || is_implied_header_move(s, &order[k..], &v)))
            || (!p.vec4 && is_scratch_header_and(s, &order[..k], &v))
            || scratch_setup[k]
            || flc_setup[k];
        if op != Opcode::Nop && !final_halt && !generated {
            let mut f = inst_facts(&v, gen).map_err(|msg| FactsError { inst: encoded, msg })?;
            f.block = block;
            let exec = v.control.exec_size.max(1) as u32;
            if let Some(flag) = flc[k] {
                f.class = Some(Class::FindLiveChannel);
                f.flags_read = 0;
                let c = Control {
                    flag_subreg: flag,
                    ..v.control
                };
                f.flags_written = flag_inst_mask(&c, 32);
            }
            for src in &scratch_data[k] {
                let data_exec = exec.max(8);
                if let Some(b) = operand_bytes(&v, src, data_exec) {
                    f.reads.push(b);
                }
            }
            if !v.vec4 && writes_address(&v.dst) {
                // The generator emits its address setup right before the instruction
                // using it. A setup the scheduler moved away is an IR instruction of its
                // own (Mesa 25 computes send descriptors into `a0` in the IR).
                let next = order.get(k + 1).copied();
                let adjacent = next
                    .is_some_and(|n| writes_address(&s.insts.dst[n]) || uses_address(s.srcs(n)));
                setup.add(op, v.srcs, &f);
                if !adjacent {
                    setup.detach();
                    out.push(f);
                }
            } else {
                if !v.vec4 && setup.pending() && uses_address(v.srcs) {
                    setup.fold(op, v.srcs, exec, &mut f);
                }
                out.push(f);
            }
        }
        if !pseudo {
            encoded += 1;
        }
    }
    Ok((out, num_blocks))
}

/// `get_exec_type(brw_reg_type)`: vector immediates execute as their element type.
fn exec_type_of(t: Type) -> Type {
    match t {
        Type::B | Type::V => Type::W,
        Type::UB | Type::UV => Type::UW,
        Type::VF => Type::F,
        t => t,
    }
}

/// `get_exec_type(const fs_inst *)` (and `get_exec_type(const vec4_instruction *)`,
/// brw_ir_vec4.h, which reads the IR's source types: the 32-bit half of a 64-bit IR source
/// of `PICK_LOW_32BIT`/`PICK_HIGH_32BIT`/`DOUBLE_TO_*`, which vec4_generator.cpp
/// `generate_code` retypes to `UD`/`F`, executes as `DF`).
fn exec_type(v: &View<'_>) -> Type {
    let mut ex = Type::B;
    for s in v.srcs.iter().filter(|s| !s.is_bad() && !s.is_null()) {
        let t = if v.vec4 && is_half_of_64bit(v, s) {
            Type::DF
        } else {
            exec_type_of(s.ty)
        };
        if t.size() > ex.size() || (t.size() == ex.size() && t.is_float()) {
            ex = t;
        }
    }
    if ex == Type::B {
        ex = v.dst.ty;
    }
    if ex.size() == 2 && v.dst.ty != ex {
        if ex == Type::HF {
            ex = Type::F;
        } else if v.dst.ty == Type::HF {
            ex = Type::D;
        }
    }
    ex
}

/// Element stride in elements of an operand's region (`component_size` uses only the
/// horizontal stride of a fixed register).
fn hstride(o: &Operand) -> u32 {
    o.region.hstride as u32
}

/// Bytes `regs_read`/`regs_written` count for a register operand over `exec` channels:
/// from its first byte, `max(exec·stride, 1)` elements less the padding after the last.
fn scalar_backend_bytes(o: &Operand, exec: u32) -> u32 {
    let t = o.ty.size();
    let hs = hstride(o);
    if hs == 0 {
        t
    } else {
        ((exec - 1) * hs + 1) * t
    }
}

/// A register operand's bytes as Mesa's model sees them.
fn operand_bytes(v: &View<'_>, o: &Operand, exec: u32) -> Option<Bytes> {
    let mut start = o.nr.saturating_mul(REG).saturating_add(o.offset);
    let len = if v.vec4 && is_half_of_64bit(v, o) {
        // The 32-bit half of a 64-bit IR operand (`PICK_*_32BIT`, `SET_*_32BIT`,
        // `DOUBLE_TO_*`): the IR operand is the whole 64-bit value.
        start &= !7;
        exec * 8
    } else if v.vec4 {
        // vec4_instruction::size_read: exec_size elements whatever the region.
        exec * o.ty.size()
    } else {
        scalar_backend_bytes(o, exec)
    };
    match o.file {
        RegFile::FixedGrf => Some(Bytes::grf(start, len)),
        RegFile::Arf if (arf::ADDRESS..arf::ACCUMULATOR).contains(&o.nr) => Some(Bytes {
            file: DepFile::Addr,
            start: 0,
            len: 1,
        }),
        RegFile::Arf if (arf::ACCUMULATOR..arf::FLAG).contains(&o.nr) => Some(Bytes {
            file: DepFile::Acc,
            start: (o.nr - arf::ACCUMULATOR) * REG + o.offset,
            len,
        }),
        _ => None,
    }
}

/// In the vec4 back end's Align1 moves (its 64-bit conversion opcodes), a 32-bit operand
/// with stride 2 is one half of a 64-bit IR operand (vec4_generator.cpp retypes it).
fn is_half_of_64bit(v: &View<'_>, o: &Operand) -> bool {
    v.op == Opcode::Mov && !v.control.align16() && o.ty.size() == 4 && o.region.hstride == 2
}

/// `flag_mask(const fs_reg &, unsigned sz)`: the flag bytes a flag-register operand covers.
fn flag_operand_mask(o: &Operand, bytes: u32) -> u8 {
    if o.file != RegFile::Arf || !(arf::FLAG..arf::MASK).contains(&o.nr) {
        return 0;
    }
    let start = (o.nr - arf::FLAG) * 4 + o.offset;
    let end = (start + bytes).min(8);
    bit_range(start.min(8), end)
}

fn bit_range(start: u32, end: u32) -> u8 {
    let mask = |n: u32| if n >= 8 { 0xffu8 } else { (1u8 << n) - 1 };
    mask(end) & !mask(start)
}

/// `flag_mask(const fs_inst *, unsigned width)`: the flag bytes of the instruction's
/// channels in its flag subregister.
fn flag_inst_mask(c: &Control, width: u32) -> u8 {
    let start = (c.flag_subreg as u32 * 16 + c.group as u32) & !(width - 1);
    let end = start + (c.exec_size as u32).div_ceil(width) * width;
    bit_range(start / 8, end.div_ceil(8))
}

/// `accum_reg_of_channel`: the accumulator register channel `i` uses.
fn acc_reg_of_channel(c: &Control, tx: Type, i: u32) -> u32 {
    let factor = if tx.is_float() { 1 } else { 2 };
    (c.group as u32 + i) * tx.size() * factor / REG % 2
}

/// The facts of one instruction.
pub fn inst_facts(v: &View<'_>, gen: Gen) -> Result<InstFacts, String> {
    let c = v.control;
    let exec = c.exec_size.max(1) as u32;
    let mut f = InstFacts {
        no_dd_check: v.hints.no_dd_check,
        flow: match v.op {
            Opcode::Do => Flow::Do,
            Opcode::While => Flow::While,
            Opcode::Halt => Flow::Halt,
            Opcode::HaltTarget => Flow::HaltTarget,
            _ => Flow::None,
        },
        ..InstFacts::default()
    };
    if is_send(v.op) {
        send_facts(v, gen, &mut f)?;
    } else {
        f.class =
            Some(alu_class(v.op).ok_or_else(|| format!("no cost class for `{}`", v.op.name()))?);
        if matches!(v.op, Opcode::Do | Opcode::HaltTarget) {
            return Ok(f);
        }
        let mut tx = exec_type(v);
        f.sizes.exec = (exec * tx.size()).div_ceil(REG);
        // 32x32 integer multiplication counts as 64-bit (half throughput).
        if matches!(v.op, Opcode::Mul | Opcode::Mad)
            && !tx.is_float()
            && tx.size() == 4
            && v.srcs.len() >= 2
            && v.srcs[0].ty.size() == v.srcs[1].ty.size()
        {
            tx = if tx.is_signed_int() {
                Type::Q
            } else {
                Type::UQ
            };
        }
        f.exec_type = ExecType {
            size: tx.size() as u8,
            is_f: tx == Type::F,
        };
        let jump = matches!(
            v.op,
            Opcode::If
                | Opcode::Else
                | Opcode::Endif
                | Opcode::While
                | Opcode::Break
                | Opcode::Continue
                | Opcode::Halt
        );
        if !jump {
            f.sizes.dst = (scalar_backend_bytes_dst(&v.dst, exec)).div_ceil(REG);
            for (i, s) in v.srcs.iter().enumerate() {
                let len = if v.op == Opcode::Pln && i == 1 {
                    // FS_OPCODE_LINTERP's deltas: two components.
                    2 * exec * s.ty.size()
                } else if v.op == Opcode::Pln && i == 0 {
                    // size_read of the interpolation coefficients: 16 bytes.
                    16
                } else {
                    0
                };
                if let Some(mut b) = operand_bytes(v, s, exec) {
                    if len != 0 {
                        b.len = len;
                    }
                    f.reads.push(b);
                }
                if !v.vec4 && c.predicate == Predicate::None {
                    f.flags_read |= flag_operand_mask(s, scalar_backend_bytes(s, exec));
                }
            }
            if let Some(b) = operand_bytes(v, &v.dst, exec) {
                f.writes.push(b);
            }
            if !v.vec4 && is_3src(v.op) && v.srcs.len() == 3 {
                f.sizes.conflict = if eubatch_ir::latency::bank_conflict(
                    gen,
                    eubatch_ir::latency::source_grfs(v.srcs, REG),
                ) {
                    f.sizes.dst
                } else {
                    0
                };
            }
        }
        // Implicit accumulator access.
        let reads_acc = matches!(v.op, Opcode::Mac | Opcode::Mach | Opcode::Sada2);
        if reads_acc || v.hints.acc_wr_enable {
            let first = acc_reg_of_channel(&c, tx, 0);
            let last = acc_reg_of_channel(&c, tx, exec - 1);
            let b = Bytes {
                file: DepFile::Acc,
                start: first * REG,
                len: (last + 1).saturating_sub(first) * REG,
            };
            if reads_acc {
                f.reads.push(b);
            }
            if v.hints.acc_wr_enable {
                f.writes.push(b);
            }
        }
    }
    flags(v, &mut f);
    // The vec4 back end's Align1 moves are its virtual 64-bit conversion and packing
    // opcodes (`VEC4_OPCODE_TO_DOUBLE`, `DOUBLE_TO_F32`, `PICK_LOW_32BIT`, ...,
    // vec4_generator.cpp), priced as logic operations whatever their types.
    if v.vec4 && v.op == Opcode::Mov && !v.control.align16() {
        f.class = Some(Class::Logic);
    }
    // In the scalar back end an Align16 `add` is a derivative (fs_generator::generate_ddx /
    // generate_ddy on gen7, DDY_FINE up to gen10): `FS_OPCODE_DDY_FINE` with swizzles
    // `.xyxy`/`.zwzw`, otherwise a coarse or horizontal derivative (logic class).
    if !v.vec4 && v.op == Opcode::Add && v.control.align16() && v.srcs.len() == 2 {
        const XYXY: u8 = 0b01_00_01_00;
        const ZWZW: u8 = 0b11_10_11_10;
        let fine_y = v.srcs[0].region.swizzle == XYXY && v.srcs[1].region.swizzle == ZWZW;
        f.class = Some(if fine_y { Class::DdyFine } else { Class::Logic });
    }
    // SHADER_OPCODE_FIND_LIVE_CHANNEL on gen8+ (`brw_find_live_channel`): `fbl(1)` of the
    // execution mask. Mesa counts it as writing 32 channels of flags (`flags_written`).
    if v.op == Opcode::Fbl
        && v.srcs
            .first()
            .is_some_and(|s| s.file == RegFile::Arf && s.nr == arf::MASK)
    {
        f.class = Some(Class::FindLiveChannel);
        let c = Control {
            flag_subreg: 0,
            ..v.control
        };
        f.flags_written = flag_inst_mask(&c, 32);
    }
    Ok(f)
}

/// A destination's `size_written` in bytes (`component_size` of its stride).
fn scalar_backend_bytes_dst(dst: &Operand, exec: u32) -> u32 {
    exec * hstride(dst).max(1) * dst.ty.size()
}

/// Flags read and written (`flags_read`/`flags_written`; vec4: `reads_flag` /
/// `writes_flag`, one dependency for the whole flag file).
fn flags(v: &View<'_>, f: &mut InstFacts) {
    let c = &v.control;
    let cmod_writes = c.cmod != CondMod::None
        && !matches!(
            v.op,
            Opcode::Sel | Opcode::Csel | Opcode::If | Opcode::While
        );
    if v.vec4 {
        f.flags_read = (c.predicate != Predicate::None) as u8;
        f.flags_written = cmod_writes as u8;
        return;
    }
    if c.predicate != Predicate::None {
        // `predicate_width`: a group predicate (`.any4h`, `.all8h`, ...) reads its group.
        let width = c.predicate.horizontal_group().map_or(1, |(n, _)| n);
        f.flags_read = flag_inst_mask(c, width);
        // Mesa's `flags_read`: the vertical modes also read the same channels of f1.
        if c.predicate == Predicate::Align1Allv {
            f.flags_read |= f.flags_read << 4;
        }
    }
    if cmod_writes {
        f.flags_written = flag_inst_mask(c, 1);
    } else if !is_send(v.op) {
        let exec = c.exec_size.max(1) as u32;
        f.flags_written = flag_operand_mask(&v.dst, scalar_backend_bytes_dst(&v.dst, exec));
    }
}

/// A send: its class from the shared function, payload and response registers from the
/// descriptor.
fn send_facts(v: &View<'_>, gen: Gen, f: &mut InstFacts) -> Result<(), String> {
    let info = v.send.ok_or("send without descriptor")?;
    let class = send_class(gen, info.sfid, info.desc)
        .ok_or_else(|| format!("no cost class for a send to shared function {}", info.sfid))?;
    f.class = Some(class);
    let exec = v.control.exec_size.max(1) as u32;
    let rlen = (info.desc >> 20) & 0x1f;
    let mlen = info.mlen as u32;
    let ex_mlen = info.ex_mlen as u32;
    // The payload is 32-bit data.
    f.exec_type = ExecType {
        size: 4,
        is_f: false,
    };
    f.sizes = Sizes {
        dst: if v.dst.is_null() { 0 } else { rlen },
        exec: (exec * 4).div_ceil(REG),
        src: mlen + ex_mlen,
        conflict: 0,
    };
    let mut payload = Vec::new();
    for (i, s) in v.srcs.iter().enumerate() {
        match s.file {
            RegFile::FixedGrf => {
                let regs = if i == 0 { mlen } else { ex_mlen };
                payload.push(Bytes::grf(s.nr.saturating_mul(REG), regs * REG));
            }
            RegFile::Arf if (arf::ADDRESS..arf::ACCUMULATOR).contains(&s.nr) => {
                f.reads.push(Bytes {
                    file: DepFile::Addr,
                    start: 0,
                    len: 1,
                });
            }
            _ => {}
        }
    }
    // The vec4 back end's texturing opcodes take the payload from message registers; their
    // own sources are the surface and sampler indices, one register at most
    // (vec4_instruction::size_read of an immediate: 4 components).
    if v.vec4 {
        f.sizes.src = 1;
    }
    // SHADER_OPCODE_GFX7_SCRATCH_READ has no message length in the IR (the generator's
    // scratch-block message reads `g0` implicitly): no payload to wait for or mark.
    if is_scratch_block_read(gen, &info) {
        payload.clear();
        f.sizes.src = 0;
    }
    f.reads.extend(payload.iter().copied());
    f.payload = payload;
    // The vec4 back end's scratch write names `g0` as its destination, to carry the
    // writemask (vec4_visitor::emit_scratch_write); Mesa's model counts it as written.
    if v.vec4 && class == Class::Scratch && rlen == 0 && v.dst.file == RegFile::FixedGrf {
        f.sizes.dst = 1;
        f.writes.push(Bytes::grf(v.dst.nr.saturating_mul(REG), REG));
    }
    if !v.dst.is_null() && v.dst.file == RegFile::FixedGrf && rlen > 0 {
        f.writes
            .push(Bytes::grf(v.dst.nr.saturating_mul(REG), rlen * REG));
    }
    Ok(())
}
