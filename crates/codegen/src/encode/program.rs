//! A whole program in hardware-form IR → Mesa's bytes: every instruction by
//! [`super::from_ir`], jump targets as Mesa's emitter sets them, and the layout with Mesa's
//! compaction ([`super::line::lay_out`]).
//!
//! Jump targets (Mesa 23.0 brw_eu_emit.c, gen7+):
//! - `if`: JIP just past its `else`, or its `endif`; UIP its `endif` (`patch_IF_ELSE`);
//! - `else`: JIP its `endif`; UIP its `endif` on gen8+, 0 on gen7 (`patch_IF_ELSE`); Mesa
//!   25 on gen8–10 sets BranchCtrl and points JIP at the instruction before the `endif`
//!   (the NOP it puts there, Wa_220160235);
//! - `while`: JIP the loop's first instruction (`brw_WHILE`);
//! - `break`, `cont`: JIP the next block end, UIP the loop's `while` (`brw_set_uip_jip`);
//! - `endif`: JIP the next block end, or the next instruction when there is none;
//! - `halt`: UIP the instruction after the final `halt` Mesa emits at the halt target
//!   (`fs_generator::patch_halt_jumps`); JIP the next block end, or the UIP.
//!
//! The next block end is `brw_find_next_block_end`: the first `endif`, `else`, `halt` or
//! enclosing loop's `while` after the instruction at the same `if` depth. It is found by
//! scanning forward from each jump, as Mesa does (cost: jumps × distance).
//!
//! The IR's `do` and `halt_target` encode nothing ([`crate::generate::encodes_nothing`]):
//! they mark where a loop starts and where halts go.

use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::{Gen, Opcode, Shader};

use super::field::Col;
use super::inst::Form;
use super::line::{lay_out, AssembleError, Encoded};
use super::print::{jump_unit, Dialect};
use crate::asm::inst::AsmHints;

/// An encoded program.
#[derive(Clone, Debug)]
pub struct Program {
    /// Each instruction as Mesa emits it, in order.
    pub encoded: Vec<Encoded>,
    /// The IR instruction each encoded one comes from.
    pub insts: Vec<eubatch_ir::Inst>,
    /// The instructions jumps land on (indices; `encoded.len()` for the end), in order,
    /// each once: where a listing puts its labels.
    pub jump_targets: Vec<usize>,
}

impl Program {
    /// Byte offset of each instruction, and the end.
    pub fn offsets(&self) -> Vec<u32> {
        let mut at = Vec::with_capacity(self.encoded.len() + 1);
        let mut total = 0;
        for e in &self.encoded {
            at.push(total);
            total += e.len();
        }
        at.push(total);
        at
    }

    /// The program's size in bytes.
    pub fn byte_len(&self) -> usize {
        self.encoded.iter().map(|e| e.len() as usize).sum()
    }

    /// The program's bytes.
    pub fn bytes(&self) -> Vec<u8> {
        // Whole instructions at a time: a byte iterator over them cost a hundred machine
        // instructions an instruction.
        let mut out = Vec::with_capacity(self.byte_len());
        for e in &self.encoded {
            out.extend_from_slice(e.bytes());
        }
        out
    }

    /// Instructions compacted to 8 bytes.
    pub fn compacted(&self) -> usize {
        self.encoded.iter().filter(|e| e.compacted()).count()
    }
}

/// Why a program does not encode: the encoded instruction's index and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError {
    pub inst: usize,
    pub msg: String,
}

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "instruction {}: {}", self.inst, self.msg)
    }
}

impl From<AssembleError> for String {
    fn from(e: AssembleError) -> String {
        e.to_string()
    }
}

/// Where a jump goes: an instruction index (`n`: the end), or a raw 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    At(usize),
    Zero,
}

/// Encodes `s` (hardware form). `hints(i)`: the dependency and accumulator hints of
/// encoded instruction `i` (a listing's; default for eubatch's own code).
pub fn encode_shader(
    s: &Shader,
    gen: Gen,
    dialect: Dialect,
    hints: &dyn Fn(usize) -> AsmHints,
) -> Result<Program, EncodeError> {
    let col = super::codec::col_of(gen).map_err(|e| EncodeError { inst: 0, msg: e.0 })?;
    let mut insts = Vec::with_capacity(s.num_insts());
    // Per encoded instruction its control flow, and for a `while` the index of its loop's
    // first instruction; loop heads and the halt target as the next encoded instruction.
    let mut flow = Vec::with_capacity(s.num_insts());
    let mut while_start = Vec::with_capacity(s.num_insts());
    let mut do_at = Vec::new();
    let mut halt_target = None;
    for id in s.layout.insts() {
        let op = s.insts.opcode[id];
        match op {
            Opcode::Do => do_at.push(insts.len()),
            Opcode::HaltTarget => halt_target = Some(insts.len()),
            _ => {
                let f = op.control_flow();
                let start = if f == ControlFlow::While {
                    do_at.pop().ok_or_else(|| EncodeError {
                        inst: insts.len(),
                        msg: "`while` without its `do`".into(),
                    })?
                } else {
                    usize::MAX
                };
                insts.push(id);
                flow.push(f);
                while_start.push(start);
            }
        }
    }
    debug_assert!(insts
        .iter()
        .all(|&i| !crate::generate::encodes_nothing(s.insts.opcode[i])));
    let n = insts.len();
    let branch_ctrl_else = dialect == Dialect::Mesa25;
    let targets = jump_targets(&flow, &while_start, halt_target, col, branch_ctrl_else)
        .map_err(|(inst, msg)| EncodeError { inst, msg })?;
    let mut base = Vec::with_capacity(n);
    for (k, &id) in insts.iter().enumerate() {
        let mut i = super::from_ir::inst(col, s, id, hints(k))
            .map_err(|msg| EncodeError { inst: k, msg })?;
        if branch_ctrl_else && col.gen8_plus() && flow[k] == ControlFlow::Else {
            i.ctrl.acc_wr_control = 1;
        }
        base.push(i);
    }
    let unit = jump_unit(col);
    let mut native = |k: usize, at: &dyn Fn(usize) -> u32| -> Result<_, String> {
        let mut i = base[k];
        let jump = matches!(i.form, Form::Jump { .. });
        if let (Form::Jump { jip, uip, .. }, Some((j, u))) = (&mut i.form, targets[k]) {
            let delta = |t: Target| match t {
                Target::At(t) => ((at(t) as i64 - at(k) as i64) / unit) as i32,
                Target::Zero => 0,
            };
            *jip = delta(j);
            if let Some(u) = u {
                *uip = delta(u);
            }
        }
        let w = super::encode(&i, gen).map_err(|e| e.0)?;
        Ok((w, jump))
    };
    let encoded =
        lay_out(n, gen, dialect, &mut native).map_err(|(inst, msg)| EncodeError { inst, msg })?;
    let mut jump_targets: Vec<usize> = targets
        .iter()
        .flatten()
        .flat_map(|&(j, u)| [Some(j), u])
        .flatten()
        .filter_map(|t| match t {
            Target::At(i) => Some(i),
            Target::Zero => None,
        })
        .collect();
    jump_targets.sort_unstable();
    jump_targets.dedup();
    Ok(Program {
        encoded,
        insts,
        jump_targets,
    })
}

/// JIP and UIP (`None`: the field is left as the policy set it) of each jump.
type Jumps = Vec<Option<(Target, Option<Target>)>>;

fn jump_targets(
    flow: &[ControlFlow],
    while_start: &[usize],
    halt_target: Option<usize>,
    col: Col,
    branch_ctrl_else: bool,
) -> Result<Jumps, (usize, String)> {
    let n = flow.len();
    let mut out: Jumps = vec![None; n];
    let mut ifs: Vec<(usize, Option<usize>)> = Vec::new();
    let block_end = |start: usize| -> Option<usize> {
        let mut depth = 0u32;
        for (j, f) in flow.iter().enumerate().skip(start + 1) {
            match f {
                ControlFlow::If => depth += 1,
                ControlFlow::Endif => {
                    if depth == 0 {
                        return Some(j);
                    }
                    depth -= 1;
                }
                // A `while` of a sibling loop (starting after `start`) is not an end.
                ControlFlow::While if while_start[j] > start => {}
                ControlFlow::While | ControlFlow::Else | ControlFlow::Halt if depth == 0 => {
                    return Some(j)
                }
                _ => {}
            }
        }
        None
    };
    let loop_end = |start: usize| -> Option<usize> {
        (start + 1..n).find(|&j| flow[j] == ControlFlow::While && while_start[j] <= start)
    };
    for k in 0..n {
        let err = |m: &str| (k, m.to_string());
        match flow[k] {
            ControlFlow::If => ifs.push((k, None)),
            ControlFlow::Else => {
                let top = ifs
                    .last_mut()
                    .ok_or_else(|| err("`else` outside an `if`"))?;
                top.1 = Some(k);
            }
            ControlFlow::Endif => {
                let (i, e) = ifs.pop().ok_or_else(|| err("`endif` outside an `if`"))?;
                let end = Target::At(k);
                match e {
                    None => out[i] = Some((end, Some(end))),
                    Some(e) => {
                        out[i] = Some((Target::At(e + 1), Some(end)));
                        let uip = if col.gen8_plus() { end } else { Target::Zero };
                        // Mesa 25 on gen8–10 (Wa_220160235): the `else` joins at the NOP
                        // its generator puts right before the `endif`, with BranchCtrl.
                        let jip = if branch_ctrl_else && col.gen8_plus() {
                            Target::At(k - 1)
                        } else {
                            end
                        };
                        out[e] = Some((jip, Some(uip)));
                    }
                }
                let j = block_end(k).map_or(Target::At(k + 1), Target::At);
                out[k] = Some((j, None));
            }
            ControlFlow::While => {
                out[k] = Some((Target::At(while_start[k]), None));
            }
            ControlFlow::Break | ControlFlow::Continue => {
                let j = block_end(k).ok_or_else(|| err("a loop jump without a block end"))?;
                let u = loop_end(k).ok_or_else(|| err("a loop jump outside a loop"))?;
                out[k] = Some((Target::At(j), Some(Target::At(u))));
            }
            ControlFlow::Halt => {
                let u = halt_target.ok_or_else(|| err("`halt` without a halt target"))?;
                let j = block_end(k).unwrap_or(u);
                out[k] = Some((Target::At(j), Some(Target::At(u))));
            }
            _ => {}
        }
    }
    if !ifs.is_empty() {
        return Err((n, "`if` without its `endif`".into()));
    }
    Ok(out)
}
