//! Constants in registers, once each: a VGRF that only ever holds one 32-bit immediate
//! (every write is an unpredicated `mov` of it, in whatever channel groups SIMD-width
//! lowering left) exists because its readers cannot take an immediate there — three-source
//! instructions, the math box, a non-commutative first source. Each distinct value is
//! instead loaded once, by a `mov(1)` NoMask into one 4-byte slot of a shared register (8
//! per register), and every reader reads that slot as a scalar region (`<0>`). A SIMD32
//! constant costs one instruction instead of two and a slot instead of four registers.
//! A negative float read only by instructions that take source modifiers is stored as its
//! absolute value and read negated, so `2.0` and `-2.0` share a slot. (Mesa:
//! brw_fs_combine_constants.cpp, `opt_combine_constants`, which does this for immediates
//! its own copy propagation put where the hardware does not take them.)
//!
//! Rules that limit it: the VGRF's readers are ALU instructions reading 32-bit elements
//! with a stride of one or zero (all channels read the same value, so a scalar region
//! reads what each channel read); nothing but those moves writes it. The slot is loaded
//! where the VGRF's first move was, which must reach every reader: the first move is
//! outside control flow and every reader after it, or every move and reader is in the
//! first move's block. Slots are shared only between constants of the whole shader, or of
//! one block.

use hashbrown::HashMap;

use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::shader::{CondMod, InstBuilder, Predicate};
use eubatch_ir::{Control, Inst, Mods, Opcode, Operand, RegFile, Shader, Type, VgrfLayout};

use crate::PassCx;

/// Constants per shared register: eight 32-bit slots of 32 bytes.
const SLOTS_PER_REGISTER: usize = 8;

/// What is known about one VGRF so far.
#[derive(Clone)]
struct Candidate {
    /// The immediate's bits; None once the VGRF is disqualified.
    bits: Option<u32>,
    first_def: Option<(usize, eubatch_ir::Block, u32)>,
    /// Blocks of every write and read, and the positions of the reads.
    blocks: Vec<eubatch_ir::Block>,
    read_positions: Vec<usize>,
    /// Whether every read is of a float, by an instruction taking source modifiers,
    /// without an absolute value (so a negated slot can serve it).
    negatable: bool,
    defs: Vec<Inst>,
}

fn constant_move(shader: &Shader, inst: Inst) -> Option<u32> {
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let src = *shader.srcs(inst).first()?;
    (shader.insts.opcode[inst] == Opcode::Mov
        && ctl.predicate == Predicate::None
        && ctl.cmod == CondMod::None
        && !ctl.saturate()
        && dst.ty.size() == 4
        && dst.stride == 1
        && src.file == RegFile::Imm
        && src.ty.size() == 4
        // A raw move: a conversion (`mov dst:F, 1d`) writes other bits than its source's.
        && (src.ty == dst.ty || (!src.ty.is_float() && !dst.ty.is_float()))
        && src.mods == Mods::NONE)
        .then(|| src.imm_bits() as u32)
}

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> bool {
    let n = shader.vgrfs.len();
    let mut cands: Vec<Candidate> = vec![
        Candidate {
            bits: None,
            first_def: None,
            blocks: Vec::new(),
            read_positions: Vec::new(),
            negatable: true,
            defs: Vec::new(),
        };
        n
    ];
    let mut seen_def = vec![false; n];
    let mut bad = vec![false; n];
    let mut depth = 0u32;
    let mut pos = 0usize;
    for (b, block) in shader.layout.blocks.iter_enumerated() {
        for &inst in &block.insts {
            pos += 1;
            let op = shader.insts.opcode[inst];
            match op.control_flow() {
                ControlFlow::If | ControlFlow::Do => depth += 1,
                ControlFlow::Endif | ControlFlow::While => depth = depth.saturating_sub(1),
                _ => {}
            }
            let alu = op.alu_arity().is_some();
            for s in shader.srcs(inst) {
                if s.file != RegFile::Vgrf || s.nr as usize >= n {
                    continue;
                }
                let v = s.nr as usize;
                if !alu || s.ty.size() != 4 || s.stride > 1 {
                    bad[v] = true;
                    continue;
                }
                let c = &mut cands[v];
                c.blocks.push(b);
                c.read_positions.push(pos);
                if s.ty != Type::F || s.mods.abs() || !crate::copy_prop::takes_modifiers(op) {
                    c.negatable = false;
                }
            }
            let dst = shader.insts.dst[inst];
            if dst.file == RegFile::Vgrf && (dst.nr as usize) < n {
                let v = dst.nr as usize;
                let c = &mut cands[v];
                match constant_move(shader, inst) {
                    Some(bits) if !seen_def[v] || c.bits == Some(bits) => {
                        if !seen_def[v] {
                            c.first_def = Some((pos, b, depth));
                        }
                        seen_def[v] = true;
                        c.bits = Some(bits);
                        c.blocks.push(b);
                        c.defs.push(inst);
                    }
                    _ => bad[v] = true,
                }
            }
        }
    }
    // The constants to combine: (VGRF, scope, stored bits, negated).
    let mut chosen: Vec<(usize, Option<eubatch_ir::Block>, u32, bool)> = Vec::new();
    for (v, c) in cands.iter().enumerate() {
        let (Some(bits), Some((first, block, depth))) = (c.bits, c.first_def) else {
            continue;
        };
        if bad[v] || c.read_positions.is_empty() {
            continue;
        }
        let scope = if depth == 0 && c.read_positions.iter().all(|&p| p > first) {
            None
        } else if c.blocks.iter().all(|&b| b == block)
            && c.read_positions.iter().all(|&p| p > first)
        {
            Some(block)
        } else {
            continue;
        };
        let negative_float = bits & 0x8000_0000 != 0 && !f32::from_bits(bits).is_nan();
        let negated = negative_float && c.negatable;
        let stored = if negated { bits & 0x7fff_ffff } else { bits };
        chosen.push((v, scope, stored, negated));
    }
    if chosen.is_empty() {
        return false;
    }
    // One slot per (scope, value), loaded where the first of its VGRFs was first written.
    let mut slot_of: HashMap<(Option<eubatch_ir::Block>, u32), usize> = HashMap::new();
    let mut slots: Vec<(u32, usize, Inst)> = Vec::new(); // (bits, position, first move)
    let mut vgrf_slot: HashMap<u32, (usize, bool)> = HashMap::new();
    for &(v, scope, stored, negated) in &chosen {
        let c = &cands[v];
        let (first, _, _) = c.first_def.unwrap();
        let first_inst = c.defs[0];
        let k = *slot_of.entry((scope, stored)).or_insert_with(|| {
            slots.push((stored, first, first_inst));
            slots.len() - 1
        });
        if first < slots[k].1 {
            slots[k].1 = first;
            slots[k].2 = first_inst;
        }
        vgrf_slot.insert(v as u32, (k, negated));
    }
    // The shared registers, and each slot's load.
    let mut regs = Vec::new();
    for chunk in 0..slots.len().div_ceil(SLOTS_PER_REGISTER) {
        let count = (slots.len() - chunk * SLOTS_PER_REGISTER).min(SLOTS_PER_REGISTER);
        regs.push(shader.vgrfs.push(VgrfLayout {
            components: count as u16,
            data: 4,
            padding: 0,
        }));
    }
    let place = |k: usize| {
        (
            regs[k / SLOTS_PER_REGISTER],
            (k % SLOTS_PER_REGISTER) as u32 * 4,
        )
    };
    let mut loads: HashMap<Inst, Inst> = HashMap::new();
    for (k, &(bits, _, at)) in slots.iter().enumerate() {
        let (reg, offset) = place(k);
        let mut c = Control::new(1);
        c.set(Control::NO_MASK, true);
        let load = shader.create_inst(InstBuilder {
            opcode: Opcode::Mov,
            control: c,
            dst: Operand::vgrf(reg.index() as u32, offset, Type::UD, 1),
            srcs: &[Operand::imm(Type::UD, bits as u64)],
            size_written: 4,
            send: None,
        });
        loads.insert(at, load);
    }
    let removed: hashbrown::HashSet<Inst> = chosen
        .iter()
        .flat_map(|&(v, ..)| cands[v].defs.iter().copied())
        .collect();
    let order: Vec<Inst> = shader.layout.insts().collect();
    for inst in order {
        for s in shader.srcs_mut(inst) {
            if s.file != RegFile::Vgrf {
                continue;
            }
            if let Some(&(k, negated)) = vgrf_slot.get(&s.nr) {
                let (reg, offset) = place(k);
                let mut mods = s.mods;
                if negated {
                    mods.0 ^= Mods::NEGATE;
                }
                *s = Operand::vgrf(reg.index() as u32, offset, s.ty, 0);
                s.mods = mods;
            }
        }
    }
    for block in shader.layout.blocks.iter_mut() {
        let mut insts = Vec::with_capacity(block.insts.len());
        for &i in &block.insts {
            if let Some(&load) = loads.get(&i) {
                insts.push(load);
            }
            if !removed.contains(&i) {
                insts.push(i);
            }
        }
        block.insts = insts;
    }
    true
}
