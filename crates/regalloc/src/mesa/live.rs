//! Mesa's live ranges as its allocator sees them (`fs_live_variables`,
//! brw_fs_live_variables.cpp in Mesa 22.3 and 23.0): one variable per 32-byte register of
//! each VGRF, a write defining a register for the block only when it is not a partial write
//! (`fs_inst::is_partial_write`: predicated other than `sel`, fewer than 32 bytes
//! (`exec_size * type size`), a strided destination, or one not starting a register). A
//! read of a register the block has not so defined is a use before definition: the
//! register is live into the block, and, defined in a loop, around the whole loop (live
//! ranges are restricted to where a definition reaches, `defin`/`defout`, as in the analysis
//! layer).
//!
//! The analysis layer's slot model defines each 4-byte slot a write covers, so the scalar
//! chains Mesa's lowering emits, such as an indirect send's descriptor built by `and(1)`,
//! `shl(1)`, `or(1)` into one register inside a loop, live only from their first write to
//! their last read there. In Mesa every `(1)` write is partial, so the second instruction's
//! read is a use before any definition in the block, and the register stays live across
//! the loop: on the dolphin ubershaders of shaderdb-hsw (gen7.5 computes the sampler
//! descriptor in the IR, four such chains in the loop) that is 4 registers over 2,100
//! instructions, the difference between fitting and Mesa's spills.
//!
//! In IR that lost Mesa's UNDEFs (eubatch's pipeline: its `dce` removes those Mesa's
//! keeps), a register written by one instruction alone is defined where it is written,
//! partial write or not: in Mesa it is an SSA value, which an UNDEF of the whole VGRF
//! defines just before ([`undef_defined`]). Mesa's own pre-RA dumps keep their UNDEFs,
//! read as Mesa reads them.
//! Without that, every SIMD8 16-bit temporary of a loop (16 bytes written: partial) was
//! live around the whole loop, and `mesa` spilled the SIMD8 kernels `gemm_sg` and
//! `convolution_packed_gemm` of vulkan-fp16 that Mesa fits.
//!
//! [`widen`] gives each VGRF the union of both: the analysis layer's interval (which also
//! knows where values cross the channel mask, which Mesa's liveness ignores) and Mesa's.
//! A superset of the analysis layer's intervals, so what the checker proves holds.

use eubatch_ir::cfg::Cfg;
use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::shader::Predicate;
use eubatch_ir::{Block, Opcode, RegFile, Shader};
use eubatch_passes::analysis::access_table::AccessTable;
use eubatch_passes::analysis::bitset::BitSet;
use eubatch_passes::analysis::intervals::Interval;
use eubatch_passes::analysis::points::Point;

eubatch_passes::dense_index! {
    /// One register of a VGRF: Mesa's `var` (`var_from_vgrf[v] + reg`).
    struct Var;
}

/// Whether Mesa counts `inst`'s write as partial (`fs_inst::is_partial_write`): it then
/// does not define the registers it writes for the block.
fn partial_write(shader: &Shader, inst: eubatch_ir::Inst, reg_size: u32) -> bool {
    let c = shader.insts.control[inst];
    let d = shader.insts.dst[inst];
    (c.predicate != Predicate::None && shader.insts.opcode[inst] != Opcode::Sel)
        || (c.exec_size as u32 * d.ty.size()) < reg_size
        || d.stride != 1
        || !d.offset.is_multiple_of(reg_size)
}

/// Whether a register written by `writers` instructions (an `undef` aside) is, in Mesa's
/// IR, defined for the block by the UNDEF before its one write, whatever that write is.
///
/// Mesa 22.3 emits an UNDEF before the definition of every SSA value of NIR
/// (brw_fs_nir.cpp `fs_visitor::get_nir_dest`: `bld.UNDEF(...)`), a write of the whole VGRF
/// as UD (brw_fs_builder.h `UNDEF`: `retype(dst, BRW_REGISTER_TYPE_UD)`, `size_written`
/// the VGRF's size), which `is_partial_write` never counts as partial at SIMD8 or wider.
/// Mesa's dead-code elimination (brw_fs_dead_code_eliminate.cpp) keeps it, since the
/// partial write after it does not end the register's liveness. So a SIMD8 16-bit value
/// (`shuffle(8) vgrf160+0.0:W` after `undef(8) vgrf160:UD`, vulkan-fp16's kernels) is
/// defined where it is written, and not live around an enclosing loop. eubatch's `dce`
/// removes such `undef`s (slot-granular, the write after it covers every byte read), so
/// the register written by one instruction stands for the SSA value that had one: a
/// register written more than once (NIR registers, such as loop-carried values, and
/// lowering chains like the `and(1)`/`shl(1)`/`or(1)` descriptor above) has no UNDEF in
/// Mesa and keeps its partial writes' meaning. (A lowering temporary written once, which
/// in Mesa has no UNDEF, is taken as one that has: the approximation this makes.)
fn undef_defined(writers: u8) -> bool {
    writers == 1
}

/// [`widen`]'s per-block sets, kept by the allocator from one shader to the next: they are
/// blocks times registers, megabytes on dolphin's ubershaders, and allocated afresh for
/// every allocation they were returned to the system and faulted in (zeroed) again.
pub struct Scratch {
    /// Per block: defined, used before defined, definitions out, live in, live out,
    /// definitions in.
    sets: [Vec<BitSet<Var>>; 6],
    one: BitSet<Var>,
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch {
            sets: Default::default(),
            one: BitSet::new(0),
        }
    }
}

impl Scratch {
    /// The six families of `blocks` empty sets of room for `bits`, and one more set,
    /// storage reused.
    fn sets(&mut self, blocks: usize, bits: u32) -> ([&mut [BitSet<Var>]; 6], &mut BitSet<Var>) {
        for family in &mut self.sets {
            family.truncate(blocks);
            for set in family.iter_mut() {
                set.reset(bits);
            }
            while family.len() < blocks {
                family.push(BitSet::new(bits));
            }
        }
        self.one.reset(bits);
        let [a, b, c, d, e, f] = &mut self.sets;
        ([a, b, c, d, e, f], &mut self.one)
    }
}

/// Per VGRF, `live[v]` widened to Mesa's live range of `v` (see the module doc); `access`
/// is the access table `live` was computed from; `undefs_removed`: the IR lost Mesa's
/// UNDEFs (eubatch's pipeline), which a register written once stands for
/// ([`undef_defined`]), where Mesa's own IR has them. `live` unchanged when the control flow
/// cannot be followed.
pub fn widen(
    shader: &Shader,
    access: &AccessTable,
    live: &[Interval],
    undefs_removed: bool,
    scratch: &mut Scratch,
) -> Vec<Interval> {
    let mut out = live.to_vec();
    // In one block no definition reaches the start: Mesa's ranges are its accesses, which
    // the analysis layer's intervals hold.
    if shader.layout.blocks.len() < 2 {
        return out;
    }
    let Ok(cfg) = Cfg::build(&shader.layout, |i| shader.insts.opcode[i]) else {
        return out;
    };
    let reg_size = shader.target.target().reg_size;
    let slots = &access.slots;
    let nv = slots.base.len().min(live.len());
    // Mesa's numbering: each VGRF's registers in turn.
    let mut first_var = Vec::with_capacity(nv + 1);
    let mut n = 0u32;
    for v in 0..nv {
        first_var.push(n);
        n += shader.vgrfs[eubatch_ir::Vgrf::from_usize(v)]
            .size()
            .div_ceil(reg_size);
    }
    first_var.push(n);
    // The VGRF of each slot, for the slot runs of the access table.
    let mut owner = vec![u32::MAX; slots.vgrf_slots as usize];
    for v in 0..nv {
        let r = slots.vgrf(shader, v as u32);
        owner[r.start.get() as usize..r.end.get() as usize].fill(v as u32);
    }
    let mut vgrf_end = vec![0u32; nv];
    for (v, end) in vgrf_end.iter_mut().enumerate() {
        *end = slots.vgrf(shader, v as u32).end.get();
    }
    // Mesa's variable of each register a run of slots touches, once per register (every
    // slot of a register is the same variable): a run of a SIMD16 float is two steps, not
    // sixteen.
    let slots_per_reg = reg_size / 4;
    let for_each_var = |r: eubatch_passes::analysis::access::SlotRange, f: &mut dyn FnMut(Var)| {
        let (mut s, end) = (r.start.get(), r.end.get());
        while s < end {
            let Some(&v) = owner.get(s as usize) else {
                // (The flag slots, after every VGRF's.)
                break;
            };
            if v == u32::MAX {
                s += 1;
                continue;
            }
            let v = v as usize;
            let base = slots.base[v].get();
            let reg = (s - base) / slots_per_reg;
            f(Var::new(first_var[v] + reg));
            s = (base + (reg + 1) * slots_per_reg).min(vgrf_end[v]).min(end);
        }
    };
    // Registers one instruction alone writes (an `undef` aside): in Mesa, SSA values, whose
    // definition is preceded by an UNDEF ([`undef_defined`]).
    let mut writers = vec![0u8; n as usize];
    let mut last = vec![u32::MAX; n as usize];
    for (k, inst) in shader.layout.insts().enumerate() {
        if shader.insts.dst[inst].file != RegFile::Vgrf
            || shader.insts.opcode[inst] == Opcode::Undef
        {
            continue;
        }
        for (r, _, _) in access.def_runs(inst) {
            for_each_var(r, &mut |var| {
                let v = var.get() as usize;
                if last[v] != k as u32 {
                    last[v] = k as u32;
                    writers[v] = writers[v].saturating_add(1);
                }
            });
        }
    }
    let nb = shader.layout.blocks.len();
    let (mut start, mut end) = (vec![u32::MAX; n as usize], vec![0u32; n as usize]);
    let mut touch = |var: Var, ip: u32| {
        let k = var.get() as usize;
        start[k] = start[k].min(ip);
        end[k] = end[k].max(ip);
    };
    let ([def, used, defout, live_in, live_out, defin], scratch) = scratch.sets(nb, n);
    let mut bounds = Vec::with_capacity(nb);
    let mut ip = 0u32;
    for (b, block) in shader.layout.blocks.iter().enumerate() {
        let first = ip;
        for &inst in &block.insts {
            for r in access.use_runs(inst) {
                for_each_var(r, &mut |var| {
                    touch(var, ip);
                    if !def[b].contains(var) {
                        used[b].insert(var);
                    }
                });
            }
            if shader.insts.dst[inst].file == RegFile::Vgrf {
                let partial = partial_write(shader, inst, reg_size);
                for (r, _, _) in access.def_runs(inst) {
                    for_each_var(r, &mut |var| {
                        touch(var, ip);
                        let defines = !partial
                            || undefs_removed && undef_defined(writers[var.get() as usize]);
                        if defines && !used[b].contains(var) {
                            def[b].insert(var);
                        }
                        defout[b].insert(var);
                    });
                }
            }
            ip += 1;
        }
        bounds.push((first, ip.saturating_sub(1).max(first)));
    }
    // The halt's jump carries nothing (Mesa's CFG has no such edge), as in the analysis
    // layer's liveness.
    let halt_jump = |b: Block, s: Block| {
        let op = |b: Block, last: bool| {
            let insts = &shader.layout.blocks[b].insts;
            let i = if last { insts.last() } else { insts.first() };
            i.map(|&i| shader.insts.opcode[i].control_flow())
        };
        s.index() != b.index() + 1
            && op(b, true) == Some(ControlFlow::Halt)
            && op(s, false) == Some(ControlFlow::HaltTarget)
    };
    // Backward: live in and out (Mesa's compute_live_variables, to a fixed point).
    for (i, u) in live_in.iter_mut().zip(used.iter()) {
        i.copy_from(u);
    }
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..nb).rev() {
            let bb = Block::from_usize(b);
            for &s in &cfg.succs[bb] {
                if !halt_jump(bb, s) {
                    let (o, i) = (&mut live_out[b], &live_in[s.index()]);
                    changed |= o.union_with(i);
                }
            }
            scratch.copy_from(&live_out[b]);
            scratch.transfer(&used[b], &def[b]);
            changed |= live_in[b].union_with(&scratch);
        }
    }
    // Forward: where a definition may reach (defin, defout).
    changed = true;
    while changed {
        changed = false;
        for b in 0..nb {
            let bb = Block::from_usize(b);
            for &s in &cfg.succs[bb] {
                if !halt_jump(bb, s) {
                    scratch.copy_from(&defout[b]);
                    changed |= defin[s.index()].union_with(&scratch);
                    defout[s.index()].union_with(&scratch);
                }
            }
        }
    }
    // Mesa's compute_start_end.
    for (b, &(first, last)) in bounds.iter().enumerate() {
        if shader.layout.blocks[Block::from_usize(b)].insts.is_empty() {
            continue;
        }
        scratch.copy_from(&live_in[b]);
        scratch.intersect_with(&defin[b]);
        for var in scratch.iter() {
            touch(var, first);
        }
        scratch.copy_from(&live_out[b]);
        scratch.intersect_with(&defout[b]);
        for var in scratch.iter() {
            touch(var, last);
        }
    }
    for (v, iv) in out.iter_mut().enumerate().take(nv) {
        for k in first_var[v]..first_var[v + 1] {
            let (s, e) = (start[k as usize], end[k as usize]);
            if s <= e {
                *iv = iv.union(Interval {
                    start: Point::new(s),
                    end: Point::new(e),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use eubatch_ir::Vgrf;
    use eubatch_passes::PassCx;

    /// A descriptor-like chain in a loop: `and(1)` then `shl(1)` of vgrf1, read by the
    /// `add`. The analysis layer sees vgrf1 defined by the `and` (2..4); Mesa sees the
    /// `shl` read a register no full write defined in the block, so vgrf1 is live into the
    /// loop body and, defined there, out of it: 2..6, to the `while`. vgrf2, written
    /// whole by a SIMD8 `mov` before its read, keeps its interval.
    #[test]
    fn partial_writes_keep_a_register_live_around_the_loop() {
        let s = eubatch_ir::text::parse_shader(
            "shader \"w\" stage FS width 8 target skl
vgrf0 1x32
vgrf1 1x32
vgrf2 1x32
block0:
    mov(8) vgrf0:UD, g2<8,8,1>:UD
block1:
    do(8) (null):UD
block2:
    and(1) vgrf1:UD, vgrf0<0>:UD, 240u NoMask group0
    shl(1) vgrf1:UD, vgrf1:UD, 4u NoMask group0
    mov(8) vgrf2:UD, vgrf1<0>:UD
    add(8) vgrf0:UD, vgrf2:UD, 1u
    while(8) (null):UD
block3:
    mov(8) g10<8,8,1>:UD, vgrf0:UD
",
        )
        .unwrap();
        let mut cx = PassCx::default();
        let iv = cx.intervals(&s).unwrap();
        let live: Vec<Interval> = (0..3).map(|v| iv.vgrf(&s, Vgrf::from_usize(v))).collect();
        assert_eq!(live[1], Interval::between(2, 4));
        let wide = widen(&s, &iv.access, &live, true, &mut Scratch::default());
        assert_eq!(wide[0], live[0]);
        assert_eq!(wide[1], Interval::between(2, 6));
        assert_eq!(wide[2], live[2]);
    }

    /// Intervals of `text`'s VGRFs, then widened with and without the UNDEF rule.
    fn three(text: &str, n: usize) -> [Vec<Interval>; 3] {
        let s = eubatch_ir::text::parse_shader(text).unwrap();
        let mut cx = PassCx::default();
        let iv = cx.intervals(&s).unwrap();
        let live: Vec<Interval> = (0..n).map(|v| iv.vgrf(&s, Vgrf::from_usize(v))).collect();
        let mut scratch = Scratch::default();
        let removed = widen(&s, &iv.access, &live, true, &mut scratch);
        // (The scratch of the call before, reused.)
        let kept = widen(&s, &iv.access, &live, false, &mut scratch);
        [live, removed, kept]
    }

    /// A SIMD8 16-bit value of a loop (16 bytes written: Mesa's partial write), written
    /// once and read after in its block. Without its UNDEF, Mesa's rule makes it live
    /// around the loop (2..4); written once in IR that lost the UNDEFs it stands for an SSA
    /// value, defined where written (2..3); in Mesa's own IR its `undef` defines it.
    #[test]
    fn a_value_written_once_is_defined_as_its_undef_would_define_it() {
        let [live, removed, kept] = three(
            "shader \"u\" stage CS width 8 target skl
vgrf0 1x32
vgrf1 1x16+16
block0:
    mov(8) vgrf0:UD, g2<8,8,1>:UD
block1:
    do(8) (null):UD
block2:
    mov(8) vgrf1:HF, g4<8,8,1>:HF
    add(8) vgrf0:UD, vgrf0:UD, vgrf1:UW
    while(8) (null):UD
block3:
    mov(8) g10<8,8,1>:UD, vgrf0:UD
",
            2,
        );
        assert_eq!(live[1], Interval::between(2, 3));
        assert_eq!(removed[1], live[1]);
        assert_eq!(kept[1], Interval::between(2, 4));
        let [live, _, kept] = three(
            "shader \"u\" stage CS width 8 target skl
vgrf0 1x32
vgrf1 1x16+16
block0:
    mov(8) vgrf0:UD, g2<8,8,1>:UD
block1:
    do(8) (null):UD
block2:
    undef(8) vgrf1:UD
    mov(8) vgrf1:HF, g4<8,8,1>:HF
    add(8) vgrf0:UD, vgrf0:UD, vgrf1:UW
    while(8) (null):UD
block3:
    mov(8) g10<8,8,1>:UD, vgrf0:UD
",
            2,
        );
        assert_eq!(kept[1], live[1]);
    }
}
