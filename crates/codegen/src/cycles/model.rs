//! The timing simulation of Mesa's static performance model (brw_ir_performance.cpp:
//! `state`, `stall_on_dependency`, `execute_instruction`, `mark_read_dependency`,
//! `mark_write_dependency`, `issue_fs_inst`, `calculate_performance`): instructions issue in
//! program order on the EU front end, wait for the registers and flags they depend on and
//! for their back-end unit, and the front-end time each takes is summed, weighted by loop
//! nesting, into per-block and whole-program cycle counts.

use eubatch_ir::Gen;

use super::desc::{coefficients, perf_desc, NoCost, PerfDesc, Unit};
use super::facts::{Bytes, DepFile, Flow, InstFacts};

/// Factor a loop body's time is counted with (`loop_weight`).
const LOOP_WEIGHT: f32 = 10.0;
/// Factor code after a discard jump is counted with before gen12 (`discard_weight`).
const DISCARD_WEIGHT: f32 = 1.0;

/// Dependency slots (`intel_eu_dependency_id`, gen7–9 part): GRFs, then the address
/// register, accumulators and flag bytes.
const GRFS: usize = 128;
const ADDR: usize = GRFS;
const ACC0: usize = ADDR + 1;
const ACCS: usize = 12;
const FLAG0: usize = ACC0 + ACCS;
const FLAGS: usize = 8;
const DEPS: usize = FLAG0 + FLAGS;

/// The estimate: whole program and per block (indexed by block number), in cycles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Estimate {
    pub cycles: u32,
    pub blocks: Vec<u32>,
    /// The busiest back-end unit's time, weighted as the cycles are (Mesa's `unit_busy`,
    /// a float there too): what bounds the threads per cycle when it exceeds `cycles`.
    pub busiest_unit: f32,
}

impl Estimate {
    /// Mesa's `performance::throughput` for a program of `dispatch_width` channels:
    /// channels per cycle, `dispatch_width / max(cycles, busiest unit)`
    /// (`calculate_thread_throughput`, in Mesa's float and double arithmetic), which
    /// `brw_compile_fs` compares to keep a SIMD32 variant.
    pub fn throughput(&self, dispatch_width: u32) -> f32 {
        let busy = (self.cycles as f32).max(self.busiest_unit);
        dispatch_width as f32 * (1.0f64 / busy as f64) as f32
    }
}

/// Mesa's `state`: when each unit is ready and when each dependency is satisfied.
struct State {
    /// Front end, then the back-end units.
    fe: u32,
    unit_ready: [u32; Unit::COUNT],
    /// Each back-end unit's busy time, weighted (`unit_busy`).
    unit_busy: [f32; Unit::COUNT],
    dep_ready: [u32; DEPS],
    weight: f32,
}

impl State {
    fn stall(&mut self, dep: usize) {
        self.fe = self.fe.max(self.dep_ready[dep]);
    }

    fn execute(&mut self, p: &PerfDesc) {
        self.fe = self.fe.wrapping_add_signed(p.df);
        if let Some(u) = p.unit.index() {
            self.fe = self.fe.max(self.unit_ready[u]);
            self.unit_ready[u] = self.fe.wrapping_add_signed(p.db);
            self.unit_busy[u] += p.db as f32 * self.weight;
        }
    }
}

/// The dependency slots of a byte range; registers beyond the tracked ones are ignored,
/// as Mesa ignores ids past its table.
fn slots(b: &Bytes) -> impl Iterator<Item = usize> {
    let (base, limit, regs) = match b.file {
        DepFile::Grf => (0, GRFS, b.regs()),
        DepFile::Acc => (ACC0, ACCS, b.regs()),
        DepFile::Addr => (ADDR, 1, if b.len == 0 { 0..0 } else { 0..1 }),
    };
    let regs = regs.start.min(limit as u32)..regs.end.min(limit as u32);
    regs.filter(move |r| (*r as usize) < limit)
        .map(move |r| base + r as usize)
}

fn flag_slots(mask: u8) -> impl Iterator<Item = usize> {
    (0..FLAGS)
        .filter(move |i| mask & (1 << i) != 0)
        .map(|i| FLAG0 + i)
}

/// Runs the model over a program's instructions in order. Blocks are numbered by
/// `InstFacts::block`; `blocks` is at least `num_blocks` long.
pub fn estimate(insts: &[InstFacts], gen: Gen, num_blocks: usize) -> Result<Estimate, NoCost> {
    estimate_traced(insts, gen, num_blocks, |_, _| {})
}

/// [`estimate`], telling `trace` each instruction's index and the front-end clock after
/// it issued.
pub fn estimate_traced(
    insts: &[InstFacts],
    gen: Gen,
    num_blocks: usize,
    mut trace: impl FnMut(usize, u32),
) -> Result<Estimate, NoCost> {
    let mut st = State {
        fe: 0,
        unit_ready: [0; Unit::COUNT],
        unit_busy: [0.0; Unit::COUNT],
        dep_ready: [0; DEPS],
        weight: 1.0,
    };
    let mut blocks = vec![0u32; num_blocks];
    let mut elapsed: u32 = 0;
    let mut halts = 0u32;
    let mut block_start = (insts.first().map_or(0, |i| i.block), 0u32);
    for (i, inst) in insts.iter().enumerate() {
        if inst.block != block_start.0 {
            add_block(&mut blocks, block_start.0, elapsed - block_start.1);
            block_start = (inst.block, elapsed);
        }
        let clock0 = st.fe;
        if let Some(class) = inst.class {
            let k = coefficients(class, gen, inst.exec_type)?;
            let perf = perf_desc(&k, inst.sizes);
            issue(&mut st, inst, &perf);
        }
        trace(i, st.fe);
        if inst.flow == Flow::HaltTarget && halts > 0 {
            st.weight /= DISCARD_WEIGHT;
        }
        // Mesa adds a float to an unsigned: the sum is rounded to float, then truncated.
        let spent = st.fe.wrapping_sub(clock0) as f32 * st.weight;
        elapsed = (elapsed as f32 + spent) as u32;
        match inst.flow {
            Flow::Do => st.weight *= LOOP_WEIGHT,
            Flow::While => st.weight /= LOOP_WEIGHT,
            Flow::Halt => {
                if halts == 0 {
                    st.weight *= DISCARD_WEIGHT;
                }
                halts += 1;
            }
            _ => {}
        }
    }
    if !insts.is_empty() {
        add_block(&mut blocks, block_start.0, elapsed - block_start.1);
    }
    Ok(Estimate {
        cycles: elapsed,
        blocks,
        busiest_unit: st.unit_busy.iter().fold(0.0f32, |a, &b| a.max(b)),
    })
}

fn add_block(blocks: &mut Vec<u32>, block: u32, cycles: u32) {
    let b = block as usize;
    if blocks.len() <= b {
        blocks.resize(b + 1, 0);
    }
    blocks[b] += cycles;
}

/// `issue_fs_inst`: stall on sources and flags, then (unless `NoDDChk`) on what the
/// instruction writes; execute; mark the payload read and the destinations written.
fn issue(st: &mut State, inst: &InstFacts, perf: &PerfDesc) {
    for b in &inst.reads {
        for s in slots(b) {
            st.stall(s);
        }
    }
    for s in flag_slots(inst.flags_read) {
        st.stall(s);
    }
    if !inst.no_dd_check {
        for b in &inst.writes {
            for s in slots(b) {
                st.stall(s);
            }
        }
        for s in flag_slots(inst.flags_written) {
            st.stall(s);
        }
    }
    st.execute(perf);
    for b in &inst.payload {
        for s in slots(b) {
            st.dep_ready[s] = st.fe.wrapping_add_signed(perf.ls);
        }
    }
    for b in &inst.writes {
        let lat = if b.file == DepFile::Acc {
            perf.la
        } else {
            perf.ld
        };
        for s in slots(b) {
            st.dep_ready[s] = st.fe.wrapping_add_signed(lat);
        }
    }
    for s in flag_slots(inst.flags_written) {
        st.dep_ready[s] = st.fe.wrapping_add_signed(perf.lf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cycles::desc::{Class, ExecType, Sizes};

    fn alu(class: Class, reads: &[u32], writes: &[u32]) -> InstFacts {
        InstFacts {
            class: Some(class),
            exec_type: ExecType {
                size: 4,
                is_f: true,
            },
            sizes: Sizes {
                dst: 1,
                exec: 1,
                src: 1,
                conflict: 0,
            },
            reads: reads.iter().map(|r| Bytes::grf(r * 32, 32)).collect(),
            writes: writes.iter().map(|r| Bytes::grf(r * 32, 32)).collect(),
            ..InstFacts::default()
        }
    }

    #[test]
    fn independent_instructions_take_their_issue_time() {
        // gen9 `mov`: 2 cycles of front end each.
        let insts = [
            alu(Class::Arith, &[1], &[10]),
            alu(Class::Arith, &[2], &[11]),
        ];
        let e = estimate(&insts, Gen::Gen9, 1).unwrap();
        assert_eq!(e.cycles, 4);
        assert_eq!(e.blocks, vec![4]);
    }

    #[test]
    fn a_reader_waits_for_the_writers_latency() {
        // gen9 ALU: issued at 2, result 8 cycles later; the reader issues at 10, ends at 12.
        let insts = [
            alu(Class::Arith, &[1], &[10]),
            alu(Class::Arith, &[10], &[11]),
        ];
        assert_eq!(estimate(&insts, Gen::Gen9, 1).unwrap().cycles, 12);
        // Haswell: float `mov` latency 12.
        assert_eq!(estimate(&insts, Gen::Gen75, 1).unwrap().cycles, 16);
    }

    #[test]
    fn no_dd_check_skips_the_write_after_write_wait() {
        let mut second = alu(Class::Arith, &[], &[10]);
        let insts = [alu(Class::Arith, &[], &[10]), second.clone()];
        assert_eq!(estimate(&insts, Gen::Gen9, 1).unwrap().cycles, 12);
        second.no_dd_check = true;
        let insts = [alu(Class::Arith, &[], &[10]), second];
        assert_eq!(estimate(&insts, Gen::Gen9, 1).unwrap().cycles, 4);
    }

    #[test]
    fn loop_bodies_weigh_ten_times() {
        let mut body = alu(Class::Arith, &[], &[10]);
        body.block = 1;
        let mut do_ = InstFacts {
            class: Some(Class::Do),
            flow: Flow::Do,
            block: 1,
            ..InstFacts::default()
        };
        do_.exec_type.size = 4;
        let while_ = InstFacts {
            class: Some(Class::Jump),
            flow: Flow::While,
            block: 1,
            ..InstFacts::default()
        };
        let mut after = alu(Class::Arith, &[], &[11]);
        after.block = 2;
        let insts = [alu(Class::Arith, &[], &[9]), do_, body, while_, after];
        let e = estimate(&insts, Gen::Gen9, 3).unwrap();
        // 2, then (2 + 8 for the `while`) × 10, then 2.
        assert_eq!(e.blocks, vec![2, 100, 2]);
        assert_eq!(e.cycles, 104);
    }

    #[test]
    fn a_send_marks_its_payload_read_late() {
        // A sampler message reading g20 (ls = 8 + 2·ss = 10); a later write of g20 waits.
        let send = InstFacts {
            class: Some(Class::Sampler),
            exec_type: ExecType {
                size: 4,
                is_f: false,
            },
            sizes: Sizes {
                dst: 4,
                exec: 1,
                src: 1,
                conflict: 0,
            },
            reads: vec![Bytes::grf(20 * 32, 32)],
            payload: vec![Bytes::grf(20 * 32, 32)],
            writes: vec![Bytes::grf(30 * 32, 128)],
            ..InstFacts::default()
        };
        let insts = [send, alu(Class::Arith, &[], &[20])];
        // The send issues 0 → 2; g20 free at 12; the mov issues 12 → 14.
        assert_eq!(estimate(&insts, Gen::Gen9, 1).unwrap().cycles, 14);
    }

    #[test]
    fn classes_mesa_does_not_price_are_errors() {
        let insts = [alu(Class::LoadLiveChannels, &[], &[1])];
        assert!(estimate(&insts, Gen::Gen75, 1).is_err());
        assert!(estimate(&[alu(Class::Arith, &[], &[1])], Gen::Gen12, 1).is_err());
    }
}
