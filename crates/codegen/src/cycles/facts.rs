//! The model's input: per-instruction facts, independent of where the code came from
//! (Mesa's listing or eubatch's own allocated code). They are what Mesa's `issue_fs_inst` /
//! `issue_vec4_instruction` (brw_ir_performance.cpp) read of an instruction: its cost
//! class and sizes (`instruction_info`), the registers it reads and writes, the flag bytes,
//! whether it skips the destination dependency check, and its effect on control-flow
//! weights (`calculate_performance`).

use super::desc::{Class, ExecType, Sizes};

/// A register file the model tracks dependencies in.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DepFile {
    /// General registers (on gen7 the message registers are `g112`+, Mesa's
    /// `GFX7_MRF_HACK_START`).
    Grf,
    /// Accumulators (`acc0`, `acc1`, ...), one dependency per 32 bytes.
    Acc,
    /// The address register: one dependency whatever the bytes.
    Addr,
}

/// Bytes `[start, start + len)` of a register file; the model depends on every 32-byte
/// register they touch (Mesa's `reg_dependency_id` over `regs_read`/`regs_written`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Bytes {
    pub file: DepFile,
    pub start: u32,
    pub len: u32,
}

impl Bytes {
    pub fn grf(start: u32, len: u32) -> Bytes {
        Bytes {
            file: DepFile::Grf,
            start,
            len,
        }
    }

    /// The 32-byte registers touched (none when empty).
    pub fn regs(&self) -> std::ops::Range<u32> {
        if self.len == 0 {
            return 0..0;
        }
        self.start / 32..self.start.saturating_add(self.len - 1) / 32 + 1
    }
}

/// How an instruction changes the weight later instructions' time is counted with.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Flow {
    #[default]
    None,
    /// Loop head: later instructions weigh 10 times more.
    Do,
    /// Loop end: back to the weight before the loop.
    While,
    /// A discard jump (`halt`); the first sets the discard weight.
    Halt,
    /// Where halts jump to; restores the weight.
    HaltTarget,
}

/// Everything the model reads of one instruction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstFacts {
    pub class: Option<Class>,
    pub exec_type: ExecType,
    pub sizes: Sizes,
    /// Bytes the instruction waits for before issuing (sources, implicit accumulator).
    pub reads: Vec<Bytes>,
    /// Bytes whose reading completes `ls` cycles after issue (a send's payload): later
    /// writers of them wait for that.
    pub payload: Vec<Bytes>,
    /// Bytes written (destination, implicit accumulator).
    pub writes: Vec<Bytes>,
    /// Flag bytes read and written: bit `i` is byte `i` of `f0`–`f1` (`flags_read` /
    /// `flags_written`; the vec4 back end uses bit 0 for any flag).
    pub flags_read: u8,
    pub flags_written: u8,
    /// `NoDDChk`: the instruction does not wait for earlier writers of what it writes.
    pub no_dd_check: bool,
    pub flow: Flow,
    /// Index of the block the instruction belongs to.
    pub block: u32,
}
