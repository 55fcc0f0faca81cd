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
//! reads what each channel read); nothing but those moves writes it. A slot is loaded
//! outside control flow, before the first instruction (in program order) that touches any
//! of its VGRFs — or before the `if`/`do` of the outermost construct around it — so the
//! load runs once, before every reader, on every path: one slot per value serves the
//! whole shader (Mesa loads each constant in the block that dominates all its uses).

use hashbrown::HashMap;

use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::{Builder, Inst, Mods, Opcode, Operand, RegFile, Shader, Type, VgrfLayout};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// Constants per shared register: eight 32-bit slots of 32 bytes.
const SLOTS_PER_REGISTER: usize = 8;

/// Where a load goes: before an instruction, or at the end of a block after its last one
/// (before a `do`, which starts its own block).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Place {
    Before(Inst),
    After(Inst),
}

/// What is known about one VGRF so far.
#[derive(Clone)]
struct Candidate {
    /// The immediate's bits (the moves' one value).
    bits: Option<u32>,
    /// Where a load must go to precede its first touch on every path: the position of that
    /// touch, and the place before it or before the opener of the outermost construct
    /// around it (`None`: no place outside control flow there).
    anchor: Option<(usize, Option<Place>)>,
    read: bool,
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

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, cx: &mut PassCx) -> Changed {
    // It runs once per pipeline: whatever it changed, every analysis is dropped.
    Changed::when(lower_all(shader, cx), Changed::EVERYTHING)
}

fn lower_all(shader: &mut Shader, cx: &mut PassCx) -> bool {
    let nesting = cx.nesting(shader);
    let n = shader.vgrfs.len();
    let mut cands: Vec<Candidate> = vec![
        Candidate {
            bits: None,
            anchor: None,
            read: false,
            negatable: true,
            defs: Vec::new(),
        };
        n
    ];
    let mut bad = vec![false; n];
    let mut pos = 0usize;
    // The `if`/`do` that opened the outermost construct the walk is in.
    let mut opener: Option<Place> = None;
    let mut last: Option<Inst> = None;
    for block in shader.layout.blocks.iter() {
        for &inst in &block.insts {
            pos += 1;
            let op = shader.insts.opcode[inst];
            match op.control_flow() {
                cf @ (ControlFlow::If | ControlFlow::Do) => {
                    // Opening the outermost construct: the one it opens is its only.
                    if nesting.depth(inst) == 1 {
                        // A `do` starts a block: the load goes at the end of the one
                        // before, unless that one ends in control flow too.
                        opener = match cf {
                            ControlFlow::If => Some(Place::Before(inst)),
                            _ => last
                                .filter(|&l| {
                                    !eubatch_ir::cfg::ends_block(
                                        shader.insts.opcode[l].control_flow(),
                                    )
                                })
                                .map(Place::After),
                        };
                    }
                }
                _ => {}
            }
            last = Some(inst);
            let here = Some((
                pos,
                if nesting.nested(inst) {
                    opener
                } else {
                    Some(Place::Before(inst))
                },
            ));
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
                c.anchor = c.anchor.or(here);
                c.read = true;
                if s.ty != Type::F || s.mods.abs() || !crate::copy_prop::takes_modifiers(op) {
                    c.negatable = false;
                }
            }
            let dst = shader.insts.dst[inst];
            if dst.file == RegFile::Vgrf && (dst.nr as usize) < n {
                let v = dst.nr as usize;
                let c = &mut cands[v];
                c.anchor = c.anchor.or(here);
                match constant_move(shader, inst) {
                    Some(bits) if c.bits.is_none_or(|b| b == bits) => {
                        c.bits = Some(bits);
                        c.defs.push(inst);
                    }
                    _ => bad[v] = true,
                }
            }
        }
    }
    // The constants to combine: (VGRF, stored bits, negated, where its load must be).
    let mut chosen: Vec<(usize, u32, bool, (usize, Place))> = Vec::new();
    for (v, c) in cands.iter().enumerate() {
        let (Some(bits), Some((at_pos, Some(at)))) = (c.bits, c.anchor) else {
            continue;
        };
        if bad[v] || !c.read {
            continue;
        }
        let negative_float = bits & 0x8000_0000 != 0 && !f32::from_bits(bits).is_nan();
        let negated = negative_float && c.negatable;
        let stored = if negated { bits & 0x7fff_ffff } else { bits };
        chosen.push((v, stored, negated, (at_pos, at)));
    }
    if chosen.is_empty() {
        return false;
    }
    // One slot per value, loaded at the earliest anchor of its VGRFs.
    let mut slot_of: HashMap<u32, usize> = HashMap::new();
    let mut slots: Vec<(u32, usize, Place)> = Vec::new(); // (bits, position, place)
    let mut vgrf_slot: HashMap<u32, (usize, bool)> = HashMap::new();
    for &(v, stored, negated, (at_pos, at)) in &chosen {
        let k = *slot_of.entry(stored).or_insert_with(|| {
            slots.push((stored, at_pos, at));
            slots.len() - 1
        });
        if at_pos < slots[k].1 {
            slots[k].1 = at_pos;
            slots[k].2 = at;
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
    let mut loads: HashMap<Place, Vec<Inst>> = HashMap::new();
    for (k, &(bits, _, at)) in slots.iter().enumerate() {
        let (reg, offset) = place(k);
        let load = Builder::new(1).exec_all().mov(
            shader,
            Operand::vgrf(reg.index() as u32, offset, Type::UD, 1),
            Operand::imm(Type::UD, bits as u64),
        );
        loads.entry(at).or_default().push(load);
    }
    let removed: hashbrown::HashSet<Inst> = chosen
        .iter()
        .flat_map(|&(v, ..)| cands[v].defs.iter().copied())
        .collect();
    let order: Vec<Inst> = shader.layout.order();
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
    let before = crate::analysis::changed::Snapshot::blocks(shader);
    for block in shader.layout.blocks.iter_mut() {
        let mut insts = Vec::with_capacity(block.insts.len());
        for &i in &block.insts {
            if let Some(l) = loads.get(&Place::Before(i)) {
                insts.extend(l.iter().copied());
            }
            if !removed.contains(&i) {
                insts.push(i);
            }
            if let Some(l) = loads.get(&Place::After(i)) {
                insts.extend(l.iter().copied());
            }
        }
        block.insts = insts;
    }
    // A block whose only instructions were the constants' definitions is gone: the blocks
    // are split again where control flow puts them (the pass claims every change).
    crate::relayout(shader, &before);
    true
}
