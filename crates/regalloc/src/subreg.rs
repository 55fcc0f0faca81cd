//! `subreg`: sub-register allocation. The linear scan of `linear` ([`crate::scan`]: by
//! interval start, end-of-thread payloads pinned at the top first), but the register file
//! is kept in 4-byte slots, so values that fill only part of a register share GRFs:
//! a SIMD8 16-bit value (16 of a register's 32 bytes; Mesa gives it a whole register, seed
//! 003), a scalar, and the bytes a value never accesses (the padding of a padded SIMD8 HF
//! component, `Nx16+16`) hold other values.
//!
//! Placement:
//! - A VGRF of at most one register goes inside one register ([`SUB_REGISTER`]) at an
//!   offset that is a multiple of its size rounded up to a power of two (at least 4 bytes,
//!   the analysis layer's slot). That is at least the size of any type it is accessed with,
//!   as region rules need (PRM Vol. 7 "Register Region Restrictions": a region's
//!   subregister is aligned to its type), 16 bytes for a SIMD8 16-bit value (BDW/SKL PRM
//!   Vol. 7 mixed-float rules: packed HF destinations OWord-aligned, no OWord crossing),
//!   and it keeps the value from straddling two registers. Registers already partly used
//!   are tried first, lowest register and offset first (as IGC's `PhyRegUsage` and ACO's
//!   `aco_register_allocation.cpp` prefer partly used registers); then the lowest free one.
//! - A VGRF a message reads or writes (a send's payload or destination: the SEND
//!   instruction names whole GRFs, PRM Vol. 2a "SEND"), and every VGRF larger than a
//!   register ([`CONTIGUOUS`]), takes whole free consecutive registers at byte 0, as in
//!   `linear`. It holds only the slots it accesses: the slots the analysis layer's
//!   intervals never touch (padding) are left to smaller values.
//! - End-of-thread payloads ([`EOT_PAYLOAD`]) are whole registers, as in `linear`.
//!
//! What sharing costs before gen12: the scoreboard tracks whole registers, so an
//! instruction touching one value of a register waits for outstanding accesses to the
//! others (false dependencies). [`crate::Allocation::shared_registers`] counts, for any
//! allocation, the registers that hold two values live at overlapping times.
//!
//! Limits: the scan's ([`crate::scan`]: linear intervals, no splitting); a value takes the
//! same slots for its whole interval (the union of its slots' intervals); larger values
//! never go into partly used registers, and values never pack closer than their natural
//! alignment; the message rule above is this allocator's, not yet a [`crate::constraints`]
//! rule the checker checks; at most 128 registers of at most 128 bytes.
//!
//! [`SUB_REGISTER`]: crate::constraints::SUB_REGISTER
//! [`CONTIGUOUS`]: crate::constraints::CONTIGUOUS
//! [`EOT_PAYLOAD`]: crate::constraints::EOT_PAYLOAD

use index_vec::Idx;

use eubatch_ir::RegFile;
use eubatch_passes::analysis::access::{Slot, SLOT};

use crate::scan::{lowest_run, scan, Packer};
use crate::{Allocation, Allocator, Input, Reg};

#[derive(Default)]
pub struct Subreg;

/// The register file in slots, and what each VGRF needs.
struct Slots {
    /// Slots per register.
    per_reg: u32,
    /// Per register: its occupied slots (bit `k` for bytes `4k..4k + 4`).
    occ: [u32; 128],
    /// Registers with no slot occupied.
    empty: u128,
    /// Registers with some slots occupied and some free.
    partial: u128,
    /// Per VGRF: registers it takes.
    regs: Vec<u32>,
    /// Per VGRF: its slots (a value of at most a register) or 0 (whole registers).
    span: Vec<u32>,
    /// Per VGRF: the index of its first register's slot mask in `masks`.
    first_mask: Vec<u32>,
    /// Per register of each VGRF: the slots it accesses.
    masks: Vec<u32>,
}

impl Slots {
    fn new(input: &Input<'_>) -> Slots {
        let (shader, p, c) = (input.shader, input.problem, input.constraints);
        assert!(c.reg_size % SLOT == 0 && c.reg_size / SLOT <= 32);
        let per_reg = c.reg_size / SLOT;
        let n = p.live.len();
        // VGRFs a message accesses stay at byte 0 of whole registers.
        let mut whole = vec![false; n];
        for inst in shader.layout.insts() {
            if !shader.insts.opcode[inst].is_message() {
                continue;
            }
            let dst = std::iter::once(&shader.insts.dst[inst]);
            for op in shader.srcs(inst).iter().chain(dst) {
                if op.file == RegFile::Vgrf {
                    if let Some(w) = whole.get_mut(op.vgrf_nr().index()) {
                        *w = true;
                    }
                }
            }
        }
        let mut first_mask = Vec::with_capacity(n);
        let mut span = Vec::with_capacity(n);
        let mut masks = Vec::with_capacity(n);
        let slots = &input.intervals.access.slots;
        for (v, _) in shader.vgrfs.iter_enumerated() {
            first_mask.push(masks.len() as u32);
            let regs = p.regs[v.index()].max(1);
            let small = p.bytes[v.index()] <= c.reg_size && !whole[v.index()];
            span.push(if small {
                // Its data: the padding after it may lie past the register.
                crate::constraints::extent(&shader.vgrfs[v]).div_ceil(SLOT)
            } else {
                0
            });
            let base = masks.len();
            masks.resize(base + regs as usize, 0);
            let r = slots.vgrf(shader, v.index() as u32);
            for (k, s) in (r.start.index()..r.end.index()).enumerate() {
                let s = Slot::from_usize(s);
                if !input.intervals.slots(s..s + 1).is_empty() {
                    masks[base + k / per_reg as usize] |= 1 << (k as u32 % per_reg);
                }
            }
        }
        Slots {
            per_reg,
            occ: [0; 128],
            empty: u128::MAX,
            partial: 0,
            regs: p.regs.clone(),
            span,
            first_mask,
            masks,
        }
    }

    fn full(&self) -> u32 {
        if self.per_reg == 32 {
            u32::MAX
        } else {
            (1 << self.per_reg) - 1
        }
    }

    /// Register `g` now has occupied slots `occ`.
    fn set(&mut self, g: u32, occ: u32) {
        let bit = 1u128 << g;
        self.occ[g as usize] = occ;
        self.empty &= !bit;
        self.partial &= !bit;
        if occ == 0 {
            self.empty |= bit;
        } else if occ != self.full() {
            self.partial |= bit;
        }
    }

    /// The lowest offset (in slots), a multiple of `align`, at which `mask` (a value of
    /// `span` slots) fits in the free slots of register `g`.
    fn fit(&self, g: u32, mask: u32, span: u32, align: u32) -> Option<u32> {
        let occ = self.occ[g as usize];
        (0..=self.per_reg - span)
            .step_by(align as usize)
            .find(|&o| (mask << o) & occ == 0)
    }
}

impl Packer for Slots {
    fn take(&mut self, v: usize, avail: u128) -> Option<Reg> {
        let first = self.first_mask[v] as usize;
        let span = self.span[v];
        let (grf, off) = if span == 0 {
            // Whole registers, as `linear` places them.
            let regs = self.regs[v].max(1);
            (lowest_run(self.empty & avail, regs)?, 0)
        } else {
            let align = span.next_power_of_two();
            let mask = self.masks[first];
            let mut partial = self.partial & avail;
            let mut found = None;
            while partial != 0 {
                let g = partial.trailing_zeros();
                partial &= partial - 1;
                if let Some(o) = self.fit(g, mask, span, align) {
                    found = Some((g, o));
                    break;
                }
            }
            match found {
                Some(f) => f,
                None => (lowest_run(self.empty & avail, 1)?, 0),
            }
        };
        let at = Reg {
            grf,
            offset: off * SLOT,
        };
        self.hold(v, at);
        Some(at)
    }

    fn hold(&mut self, v: usize, at: Reg) {
        let first = self.first_mask[v] as usize;
        let off = at.offset / SLOT;
        for k in 0..self.regs[v].max(1) {
            let g = at.grf + k;
            let occ = self.occ[g as usize] | (self.masks[first + k as usize] << off);
            self.set(g, occ);
        }
    }

    fn release(&mut self, v: usize, at: Reg) {
        let first = self.first_mask[v] as usize;
        let off = at.offset / SLOT;
        for k in 0..self.regs[v].max(1) {
            let g = at.grf + k;
            let occ = self.occ[g as usize] & !(self.masks[first + k as usize] << off);
            self.set(g, occ);
        }
    }
}

impl Allocator for Subreg {
    fn allocate(&mut self, input: &Input<'_>) -> Allocation {
        scan(input, &mut Slots::new(input))
    }
}
