//! GRF bank-conflict mitigation after allocation: Mesa's `opt_bank_conflicts`
//! (brw_fs_bank_conflicts.cpp), which `fs_visitor::allocate_registers` runs once registers
//! are allocated, before post-RA scheduling. On gen7–gen9 a three-source instruction whose
//! second and third sources sit in the same register bank costs about a cycle more per
//! register of its destination ([`eubatch_ir::latency::bank_of`],
//! [`eubatch_ir::latency::bank_conflict`]); the pass moves allocated values around the
//! register file, whole and without changing what any instruction computes, so that fewer
//! such pairs share a bank.
//!
//! As Mesa does it, on the register-form code (`code`, from [`crate::assign::assign`]) with
//! the shader it was assigned from (`allocated`, same instructions) telling which operands
//! were virtual registers:
//! 1. **Atoms**: the finest partition of the 128 registers in which every register
//!    operand's registers (`regs_read` / `regs_written`: a send's whole payloads included)
//!    lie in one atom (`shader_reg_partitioning`). Moving atoms whole keeps every operand
//!    contiguous and every two operands that share a register sharing it.
//! 2. **Constraints** (`shader_reg_constraints`): atoms that stay where they are — g0 and
//!    g1 (read implicitly by some messages), g127 from gen8 (a send whose source and
//!    destination overlap must not write it; allocation made sure), anything an operand
//!    that was not a virtual register touches (payload, push constants, inputs: fixed
//!    function), the sources of an end-of-thread send, and on gen7/gen8 the message
//!    registers (on g112–g127) a `gfx4_scratch_*` message writes implicitly.
//! 3. **Weights** (`shader_conflict_weight_matrix`): for every three-source instruction
//!    with two register sources in different atoms whose conflict the hardware does not
//!    optimize out ([`eubatch_ir::latency::conflict_optimized_out`]), the cost of a conflict
//!    (registers of its destination, times 10 per enclosing loop) added between the two
//!    atoms, by the parity of their registers within the atoms.
//! 4. **Permutation** (`optimize_reg_permutation`): each unconstrained atom in turn is
//!    swapped with the unconstrained atom of the same size, in another bank, that gains the
//!    most, if any gains; then every operand that was a virtual register is renumbered.
//!
//! Mesa keeps the weights in 16-bit lanes that saturate (SSE2, `_mm_adds_epi16`), and its
//! choices follow from those sums: where a row of weights could saturate (its total above
//! 32767, deep loops) the lanes are replayed exactly; otherwise each atom's cost per bank
//! is kept as a plain sum and updated per swap, which gives the same numbers in time
//! quadratic in the atoms instead of Mesa's cubic.
//!
//! Limits: the scalar back end on gen7–gen9 (Mesa teaches it nothing of gen10+'s rules
//! either); registers past g127 are not moved. Cost: linear in the instructions, plus
//! quadratic in the atoms (at most 128).

use eubatch_ir::latency::{bank_conflict, bank_of, conflict_optimized_out, source_grfs};
use eubatch_ir::size_read::size_read;
use eubatch_ir::{Gen, Inst, Opcode, Operand, RegFile, Shader};

/// Mesa's `BRW_MAX_GRF`: the register space partitioned.
const MAX_GRF: usize = 128;
/// Bytes per register (gen7–gen9).
const REG: u32 = 32;
/// Mesa's `max_scalar`: weights are 16-bit and saturate there.
const MAX_WEIGHT: i32 = i16::MAX as i32;
/// Lanes of Mesa's weight vectors (two SSE2 registers of 16-bit lanes).
const LANES: usize = 16;

/// What the pass did to one shader.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Atoms moved to another register.
    pub moved: u32,
    /// Three-source instructions incurring a bank conflict, before and after.
    pub conflicts_before: u32,
    pub conflicts_after: u32,
}

/// One register operand of `code`: where, how many registers, and whether it was a
/// virtual register in `allocated` (only those move).
struct Access {
    inst: Inst,
    /// 0: the destination; k + 1: source k.
    slot: usize,
    reg: u32,
    regs: u32,
    virtual_reg: bool,
}

/// Runs Mesa's `opt_bank_conflicts` on `code`, the register form of `allocated`.
pub fn opt_bank_conflicts(allocated: &Shader, code: &mut Shader) -> Outcome {
    let gen = code.target;
    let conflicts_before = count_conflicts(code);
    let accesses = accesses(allocated, code);
    let atoms = Atoms::new(&accesses);
    let constrained = constraints(code, &accesses, &atoms);
    let weights = Weights::new(code, &atoms, gen);
    let map = weights.permutation(&atoms, &constrained);
    let moved = (0..atoms.count())
        .filter(|&r| map[r] != atoms.start[r])
        .count() as u32;
    if moved > 0 {
        for a in accesses.iter().filter(|a| a.virtual_reg) {
            let r = atoms.of[a.reg as usize] as usize;
            let to = map[r] + a.reg - atoms.start[r];
            let op = match a.slot {
                0 => &mut code.insts.dst[a.inst],
                k => &mut code.srcs_mut(a.inst)[k - 1],
            };
            // Register form keeps the byte offset within the register (`assign`).
            op.nr = to;
        }
    }
    Outcome {
        moved,
        conflicts_before,
        conflicts_after: if moved > 0 {
            count_conflicts(code)
        } else {
            conflicts_before
        },
    }
}

/// Three-source instructions of register-form `code` incurring a bank conflict (Mesa's
/// `has_bank_conflict`).
pub fn count_conflicts(code: &Shader) -> u32 {
    let gen = code.target;
    code.layout
        .insts()
        .filter(|&i| {
            let srcs = code.srcs(i);
            code.insts.opcode[i].alu_arity() == Some(3)
                && srcs.len() == 3
                && bank_conflict(gen, source_grfs(srcs, REG))
        })
        .count() as u32
}

/// The register a register-form operand starts in (`None`: not a general register).
fn reg_of(o: &Operand) -> Option<u32> {
    (o.file == RegFile::FixedGrf).then(|| o.nr + o.offset / REG)
}

/// Every general-register operand of `code`, with its registers as Mesa's `regs_read` /
/// `regs_written` count them on the operand `allocated` had there (a virtual register's
/// strided tail padding is not in any register).
fn accesses(allocated: &Shader, code: &Shader) -> Vec<Access> {
    let mut out = Vec::with_capacity(code.layout.insts().count() * 3);
    for inst in code.layout.insts() {
        let mut add = |slot: usize, was: &Operand, now: &Operand, bytes: u32| {
            let Some(reg) = reg_of(now) else { return };
            let padding = match was.file {
                RegFile::Vgrf => (was.stride.max(1) as u32 - 1) * was.ty.size(),
                _ => 0,
            };
            let regs = (now.offset % REG + bytes - bytes.min(padding)).div_ceil(REG);
            out.push(Access {
                inst,
                slot,
                reg,
                regs,
                virtual_reg: was.file == RegFile::Vgrf,
            });
        };
        add(
            0,
            &allocated.insts.dst[inst],
            &code.insts.dst[inst],
            allocated.insts.size_written[inst],
        );
        for (k, (was, now)) in allocated.srcs(inst).iter().zip(code.srcs(inst)).enumerate() {
            add(k + 1, was, now, size_read(allocated, inst, k));
        }
    }
    out
}

/// Mesa's `partitioning`: atoms numbered in register order, with a terminator atom at
/// register 128 so that every atom's size is the next one's start less its own.
struct Atoms {
    /// Per register (and the terminator), its atom.
    of: [u16; MAX_GRF + 1],
    /// Per atom (and the terminator), its first register.
    start: Vec<u32>,
}

impl Atoms {
    /// The finest partition in which each access's registers are in one atom: registers
    /// `b - 1` and `b` are apart unless some access spans both (Mesa's
    /// `require_contiguous`, whose merging gives the same partition in any order).
    fn new(accesses: &[Access]) -> Atoms {
        let mut joined = [false; MAX_GRF];
        for a in accesses {
            let end = (a.reg + a.regs).min(MAX_GRF as u32);
            for b in a.reg + 1..end {
                joined[b as usize] = true;
            }
        }
        let mut of = [0u16; MAX_GRF + 1];
        let mut start = vec![0u32];
        for reg in 1..MAX_GRF {
            if !joined[reg] {
                start.push(reg as u32);
            }
            of[reg] = (start.len() - 1) as u16;
        }
        of[MAX_GRF] = start.len() as u16;
        start.push(MAX_GRF as u32);
        Atoms { of, start }
    }

    /// Atoms, the terminator not counted.
    fn count(&self) -> usize {
        self.start.len() - 1
    }

    fn size(&self, r: usize) -> u32 {
        self.start[r + 1] - self.start[r]
    }

    fn of_reg(&self, reg: u32) -> Option<usize> {
        ((reg as usize) < MAX_GRF).then(|| self.of[reg as usize] as usize)
    }
}

/// Mesa's `shader_reg_constraints`: the atoms left where they are.
fn constraints(code: &Shader, accesses: &[Access], atoms: &Atoms) -> Vec<bool> {
    let mut fixed = vec![false; atoms.count()];
    let mut pin = |reg: u32| {
        if let Some(r) = atoms.of_reg(reg) {
            fixed[r] = true;
        }
    };
    // Read implicitly by some messages, with nothing in the IR saying so.
    pin(0);
    pin(1);
    // Broadwell PRM vol. 7 "Send Message": r127 must not be the return address of a send
    // whose source and destination overlap; allocation keeps it so.
    if code.target >= Gen::Gen8 {
        pin(127);
    }
    for a in accesses {
        let eot_source = a.slot > 0 && code.insts.control[a.inst].eot();
        if !a.virtual_reg || eot_source {
            pin(a.reg);
        }
    }
    // The message registers a gen7/gen8 scratch message writes without naming them
    // (`implied_mrf_writes`: the header of a read, header and data of a write), from
    // the spill message registers on (`spill_base_mrf`).
    if code.target < Gen::Gen9 {
        let base = crate::constraints::spill_mrf_first_grf(code.dispatch_width as u32);
        for inst in code.layout.insts() {
            let implied = match code.insts.opcode[inst] {
                Opcode::Gfx4ScratchRead => 1,
                Opcode::Gfx4ScratchWrite => code.send_info(inst).map_or(0, |m| m.mlen as u32),
                _ => 0,
            };
            for i in 0..implied {
                pin(base + i);
            }
        }
    }
    fixed
}

/// Mesa's conflict weight matrix: per atom `r`, per atom `s` and parity `p`, the cycles
/// lost when `r` and `s` are in banks `b` and `b ^ p` — flat, row `r` at `r * width`,
/// entry `2 * s + p`, rows padded to whole vectors of [`LANES`]. Most atoms are in no
/// three-source instruction, so the entries that are not zero are also listed per row
/// (`nonzero`, CSR), and the permutation walks those.
struct Weights {
    w: Vec<i16>,
    width: usize,
    atoms: usize,
    /// Per row `r`, its entries `(s, p)` that are not zero: `nonzero[first[r]..first[r + 1]]`.
    first: Vec<u32>,
    nonzero: Vec<(u32, u32)>,
}

impl Weights {
    fn new(code: &Shader, atoms: &Atoms, gen: Gen) -> Weights {
        let n = atoms.count();
        let width = (2 * n).div_ceil(LANES) * LANES;
        let mut w = vec![0i16; n * width];
        // Entries (r, s, p) as they first become non-zero, both halves of the symmetry.
        let mut entries: Vec<(u32, u32, u32)> = Vec::new();
        // A crude count of how often the block runs (C `unsigned` arithmetic, as Mesa's).
        let mut block_scale: u32 = 1;
        for inst in code.layout.insts() {
            match code.insts.opcode[inst] {
                Opcode::Do => block_scale = block_scale.wrapping_mul(10),
                Opcode::While => block_scale /= 10,
                op if op.alu_arity() == Some(3) => {
                    let srcs = code.srcs(inst);
                    let regs = source_grfs(srcs, REG);
                    let (Some(r1), Some(r2)) = (regs[1], regs[2]) else {
                        continue;
                    };
                    let (Some(r), Some(s)) = (atoms.of_reg(r1), atoms.of_reg(r2)) else {
                        continue;
                    };
                    // Same-atom conflicts cannot be helped without splitting the atom.
                    if r == s || conflict_optimized_out(gen, regs) {
                        continue;
                    }
                    let exec = code.insts.control[inst].exec_size as u32;
                    let dst_regs = code.insts.dst[inst].component_size(exec).div_ceil(REG);
                    let cycles = block_scale.wrapping_mul(dst_regs);
                    // Whether the conflict needs the same bank (even) or opposite parity.
                    let p = ((r1 - atoms.start[r]) ^ (r2 - atoms.start[s])) & 1;
                    let at = r * width + 2 * s + p as usize;
                    let new = (w[at] as u32).wrapping_add(cycles).min(MAX_WEIGHT as u32) as i16;
                    if w[at] == 0 && new != 0 {
                        entries.push((r as u32, s as u32, p));
                        entries.push((s as u32, r as u32, p));
                    }
                    w[at] = new;
                    w[s * width + 2 * r + p as usize] = new;
                }
                _ => {}
            }
        }
        entries.sort_unstable();
        let mut first = vec![0u32; n + 1];
        for &(r, _, _) in &entries {
            first[r as usize + 1] += 1;
        }
        for r in 0..n {
            first[r + 1] += first[r];
        }
        Weights {
            w,
            width,
            atoms: n,
            first,
            nonzero: entries.into_iter().map(|(_, s, p)| (s, p)).collect(),
        }
    }

    fn row(&self, r: usize) -> &[i16] {
        &self.w[r * self.width..(r + 1) * self.width]
    }

    /// Row `r`'s non-zero entries: `(s, p, weight)`.
    fn entries(&self, r: usize) -> impl Iterator<Item = (usize, u32, i32)> + '_ {
        self.nonzero[self.first[r] as usize..self.first[r + 1] as usize]
            .iter()
            .map(move |&(s, p)| {
                let w = self.w[r * self.width + 2 * s as usize + p as usize];
                (s as usize, p, w as i32)
            })
    }

    /// Mesa's `optimize_reg_permutation` from the identity: the register each atom starts
    /// at afterwards.
    fn permutation(&self, atoms: &Atoms, constrained: &[bool]) -> Vec<u32> {
        let n = self.atoms;
        let mut map: Vec<u32> = atoms.start[..n].to_vec();
        // `have_any_conflicts`, and the atoms that have some, in order.
        let any: Vec<bool> = (0..n).map(|r| self.first[r] < self.first[r + 1]).collect();
        let conflicting: Vec<usize> = (0..n).filter(|&r| any[r]).collect();
        if conflicting.is_empty() {
            return map;
        }
        // Per row, whether no lane can saturate (its total fits), and then its weight per
        // bank: the sum of the entries (s, p) with `b ^ p` the bank of atom s.
        let mut exact = vec![true; n];
        let mut per_bank = vec![[0i32; 4]; n];
        for &r in &conflicting {
            exact[r] = self.entries(r).map(|e| e.2).sum::<i32>() <= MAX_WEIGHT;
            for (s, p, w) in self.entries(r) {
                per_bank[r][(bank_of(map[s]) ^ p) as usize] += w;
            }
        }
        // Mesa's `delta_conflicts`: the gain of moving atom r from bank `from` to `to`.
        let delta = |r: usize, from: u32, to: u32, map: &[u32], per_bank: &[[i32; 4]]| {
            if exact[r] {
                per_bank[r][from as usize] - per_bank[r][to as usize]
            } else {
                saturating_delta(self.row(r), map, from, to)
            }
        };
        let all: Vec<usize> = (0..n).collect();
        for r in 0..n {
            if constrained[r] {
                continue;
            }
            let bank_r = bank_of(map[r]);
            let (mut best, mut best_gain) = (r, 0);
            // Mesa tries every s, in order; only those with conflicts on one side can gain.
            let candidates = if any[r] { &all } else { &conflicting };
            for &s in candidates {
                let bank_s = bank_of(map[s]);
                if bank_r != bank_s && !constrained[s] && atoms.size(r) == atoms.size(s) {
                    let gain = delta(r, bank_r, bank_s, &map, &per_bank)
                        + delta(s, bank_s, bank_r, &map, &per_bank);
                    if gain > best_gain {
                        best = s;
                        best_gain = gain;
                    }
                }
            }
            if best != r {
                // Columns r and best change banks in the rows that have them.
                for (column, old, new) in [
                    (r, bank_r, bank_of(map[best])),
                    (best, bank_of(map[best]), bank_r),
                ] {
                    for (x, p, w) in self.entries(column) {
                        per_bank[x][(old ^ p) as usize] -= w;
                        per_bank[x][(new ^ p) as usize] += w;
                    }
                }
                map.swap(r, best);
            }
        }
        map
    }
}

/// `delta_conflicts` lane by lane as Mesa's SSE2 code computes it, saturating: the
/// entries of `row` in bank `from` summed per lane, less those in bank `to`, then the
/// lanes reduced pairwise (`sums`).
fn saturating_delta(row: &[i16], map: &[u32], from: u32, to: u32) -> i32 {
    let (mut s_from, mut s_to) = ([0i16; LANES], [0i16; LANES]);
    for (k, &w) in row.iter().enumerate().take(2 * map.len()) {
        let bank = bank_of(map[k / 2]) ^ (k as u32 & 1);
        if bank == from {
            s_from[k % LANES] = s_from[k % LANES].saturating_add(w);
        }
        if bank == to {
            s_to[k % LANES] = s_to[k % LANES].saturating_add(w);
        }
    }
    let d: [i16; LANES] = std::array::from_fn(|l| s_from[l].saturating_sub(s_to[l]));
    // `sums`: the two halves added, then 64-bit halves swapped, then 32-bit pairs, then
    // the low two lanes.
    let v8: [i16; 8] = std::array::from_fn(|l| d[l].saturating_add(d[l + 8]));
    let v4: [i16; 8] = std::array::from_fn(|l| v8[l].saturating_add(v8[l ^ 4]));
    let v2: [i16; 8] = std::array::from_fn(|l| v4[l].saturating_add(v4[l ^ 2]));
    v2[0].saturating_add(v2[1]) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(reg: u32, regs: u32) -> Access {
        Access {
            inst: Inst::from_usize(0),
            slot: 0,
            reg,
            regs,
            virtual_reg: true,
        }
    }

    #[test]
    fn atoms_are_the_finest_partition_keeping_each_access_whole() {
        // g2-g3 and g3-g4 overlap: one atom g2-g4; g10-g11 another; the rest singletons.
        let atoms = Atoms::new(&[access(2, 2), access(3, 2), access(10, 2), access(20, 1)]);
        assert_eq!(atoms.of_reg(2), atoms.of_reg(4));
        assert_ne!(atoms.of_reg(4), atoms.of_reg(5));
        assert_eq!(atoms.size(atoms.of_reg(2).unwrap()), 3);
        assert_eq!(atoms.size(atoms.of_reg(10).unwrap()), 2);
        assert_eq!(atoms.size(atoms.of_reg(127).unwrap()), 1);
        assert_eq!(atoms.count(), 128 - 2 - 1);
        assert_eq!(atoms.of_reg(128), None);
    }

    #[test]
    fn saturating_lanes_agree_with_plain_sums_below_saturation() {
        // Two atoms at g2 (bank 0) and g3 (bank 1): row entries for (s, p).
        let map = [2u32, 3];
        let mut row = vec![0i16; LANES];
        row[2 * 1] = 7; // s = 1, even parity: conflicts when both in one bank
        row[2 * 0 + 1] = 5; // s = 0, odd parity
        let plain = |from: u32, to: u32| -> i32 {
            let mut sum = [0i32; 4];
            for s in 0..2 {
                for p in 0..2 {
                    sum[(bank_of(map[s]) ^ p as u32) as usize] += row[2 * s + p] as i32;
                }
            }
            sum[from as usize] - sum[to as usize]
        };
        for (from, to) in [(0, 1), (1, 0), (0, 2), (3, 1)] {
            assert_eq!(saturating_delta(&row, &map, from, to), plain(from, to));
        }
    }

    #[test]
    fn saturation_is_mesas() {
        // Lanes 0 and 8 both at the maximum: their sum saturates in the first step.
        let map: Vec<u32> = (0..8).map(|k| 2 * k).collect(); // all bank 0
        let mut row = vec![0i16; LANES];
        row[0] = i16::MAX; // s = 0, p = 0: bank 0
        row[8] = i16::MAX; // s = 4, p = 0: bank 0
        assert_eq!(saturating_delta(&row, &map, 0, 1), i16::MAX as i32);
    }
}
