//! Sequences the generator expands one IR instruction into, folded back into that one
//! instruction's facts (Mesa prices the IR: brw_ir_performance.cpp runs before
//! fs_generator::generate_code). All of them go through the address register, which IR
//! instructions of the scalar back end never name:
//! * `SHADER_OPCODE_BROADCAST` with a register index (`generate_broadcast`): `shl(1) a0 idx`
//!   [`add(1) a0 a0 imm`] then `mov dst g[a0 off]<0,1,0>`;
//! * `SHADER_OPCODE_SHUFFLE` (`generate_shuffle`): per group of channels `shl a0 idx`,
//!   `add a0 a0 start`, `mov dst g[a0]<VxH>`;
//! * `SHADER_OPCODE_MOV_INDIRECT` with a register offset (`generate_mov_indirect`):
//!   `add a0 offset imm` then `mov dst g[a0]<VxH>`;
//! * a send with a descriptor in a register (`brw_send_indirect_message`,
//!   `brw_send_indirect_split_message`): `or(1) a0 desc imm` (and `a0.2` for the extended
//!   descriptor) then the send.
//!
//! The setup instructions take no time of their own; their register sources become
//! sources of the folded instruction, the address register disappears, and the indirect
//! source becomes the register it addresses.

use eubatch_ir::operand::arf;
use eubatch_ir::{Opcode, Operand, RegFile, Region};

use super::desc::Class;
use super::facts::{Bytes, DepFile, InstFacts};

/// Address-register setup seen since the last instruction that used it.
#[derive(Default)]
pub struct AddressSetup {
    /// Register bytes the setup instructions read.
    reads: Vec<Bytes>,
    /// Known constant part of the address (byte offset into the GRF file).
    base: u32,
    /// The descriptor bits known at compile time (`or a0.0 desc imm`'s immediate).
    desc: Option<u32>,
    /// A channel index was shifted into the address (`shl a0 idx`): a shuffle or a
    /// broadcast, not a `mov_indirect`.
    shifted: bool,
    /// The setup is an IR instruction of its own: the user reads `a0` and nothing else.
    detached: bool,
    active: bool,
}

fn is_addr(o: &Operand) -> bool {
    o.file == RegFile::Arf && (arf::ADDRESS..arf::ACCUMULATOR).contains(&o.nr)
}

/// Whether the instruction only sets up the address register.
pub fn writes_address(dst: &Operand) -> bool {
    is_addr(dst)
}

/// Whether the instruction uses the address register (an indirect source, or a send's
/// descriptor in `a0`).
pub fn uses_address(srcs: &[Operand]) -> bool {
    srcs.iter()
        .any(|s| s.file == RegFile::Indirect || is_addr(s))
}

impl AddressSetup {
    /// Takes in a setup instruction `op dst=a0, srcs` with its facts.
    pub fn add(&mut self, op: Opcode, srcs: &[Operand], facts: &InstFacts) {
        if !self.active || self.detached {
            *self = AddressSetup {
                active: true,
                ..AddressSetup::default()
            };
        }
        self.reads.extend(
            facts
                .reads
                .iter()
                .filter(|b| b.file != DepFile::Addr)
                .copied(),
        );
        // 16-bit immediates are kept replicated in both halves of the word.
        let imm = srcs.iter().find(|s| s.file == RegFile::Imm).map(|s| {
            if s.ty.size() == 2 {
                s.nr & 0xffff
            } else {
                s.nr
            }
        });
        let from_addr = srcs.iter().any(is_addr);
        if let (Opcode::Or, Some(i)) = (op, imm) {
            if facts.writes.iter().all(|b| b.start == 0) {
                self.desc = Some(i);
            }
        }
        match (op, imm) {
            (Opcode::Shl, _) => {
                self.shifted = true;
                self.base = 0;
            }
            (Opcode::Mov, Some(i)) => self.base = i,
            // `add a0 a0 imm`: the part of the offset beyond the indirect immediate's range;
            // `add a0 offset imm` (mov_indirect): the base register's byte address.
            (Opcode::Add, Some(i)) if from_addr => self.base = self.base.wrapping_add(i),
            (Opcode::Add, Some(i)) => self.base = i & 0xffff,
            _ => {}
        }
    }

    /// Marks the setup as an IR instruction of its own (see [`AddressSetup::detached`]).
    pub fn detach(&mut self) {
        self.detached = true;
        self.reads.clear();
    }

    /// Folds the pending setup into the instruction that uses the address register.
    pub fn fold(&mut self, op: Opcode, srcs: &[Operand], exec: u32, facts: &mut InstFacts) {
        if self.detached {
            *self = AddressSetup::default();
            return;
        }
        facts.reads.retain(|b| b.file != DepFile::Addr);
        if let Some(ind) = srcs.iter().find(|s| s.file == RegFile::Indirect) {
            if op == Opcode::Mov {
                let vxh = ind.region.vstride == Region::VXH;
                facts.class = Some(match (vxh, self.shifted) {
                    (true, true) => Class::Shuffle,
                    (true, false) => Class::MovIndirect,
                    (false, _) => Class::Broadcast,
                });
                let start = self.base.wrapping_add(ind.offset);
                let len = if vxh {
                    exec * ind.ty.size()
                } else {
                    ind.ty.size()
                };
                facts.reads.push(Bytes::grf(start, len));
            }
        }
        facts.reads.append(&mut self.reads);
        *self = AddressSetup::default();
    }

    /// The descriptor a send through `a0` will use, as far as it is known: what
    /// `brw_send_indirect_message` ORs into the register part (message and response
    /// lengths, header bit, function control).
    pub fn send_desc(&self) -> Option<u32> {
        self.desc.filter(|_| self.active)
    }

    pub fn pending(&self) -> bool {
        self.active
    }
}
