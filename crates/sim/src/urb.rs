//! URB messages, logical and raw, in one model ([`eubatch_ir::message::urb`]): a read
//! returns, per channel, dwords of the URB entry its handle names, from the global offset
//! plus the channel's per-slot offset on — a seeded function of (handle, dword), the
//! previous stage's outputs; a write is recorded per channel as `urb_write` with its slot
//! offset, its channel mask (when the message has one) and its data dwords. Reads do not
//! see the thread's own writes (no stage in the corpora reads back its outputs).

use eubatch_ir::{Inst, Operand, Type};

use crate::state::Thread;
use crate::{Outputs, Record, SimError};

/// Where one channel's message reads its URB dwords: the handle and the slot offset
/// (global plus per-slot), in 128-bit units.
pub fn slot(
    t: &mut Thread,
    inst: Inst,
    handle: &Operand,
    per_slot: Option<&Operand>,
    global: u32,
    i: u32,
) -> Result<(u32, u32), SimError> {
    let mut h = *handle;
    h.ty = Type::UD;
    let handle = t.read(&h, i).map_err(|e| e.with_inst(inst))? as u32;
    let extra = match per_slot {
        Some(p) => {
            let mut p = *p;
            p.ty = Type::UD;
            t.read(&p, i).map_err(|e| e.with_inst(inst))? as u32
        }
        None => 0,
    };
    Ok((handle, global.wrapping_add(extra)))
}

/// The operands of a logical URB message (`urb_read_logical`, `urb_write_logical`) and
/// its global offset.
pub struct Logical {
    pub handle: Operand,
    pub per_slot: Option<Operand>,
    pub mask: Option<Operand>,
    pub global: u32,
}

impl Logical {
    pub fn of(shader: &eubatch_ir::Shader, inst: Inst) -> Result<Logical, SimError> {
        use eubatch_ir::message::urb::src;
        let srcs = shader.srcs(inst);
        let present = |k: usize| srcs.get(k).filter(|s| !s.is_bad()).copied();
        let handle = present(src::HANDLE).ok_or_else(|| {
            SimError::at(
                inst,
                format!("`{}` without a handle", shader.insts.opcode[inst].name()),
            )
        })?;
        Ok(Logical {
            handle,
            per_slot: present(src::PER_SLOT_OFFSETS),
            mask: present(src::CHANNEL_MASK),
            global: shader
                .send_info(inst)
                .and_then(|s| s.urb_offset)
                .unwrap_or(0) as u32,
        })
    }

    /// [`slot`] for channel `i` of the instruction.
    pub fn slot(&self, t: &mut Thread, inst: Inst, i: u32) -> Result<(u32, u32), SimError> {
        slot(
            t,
            inst,
            &self.handle,
            self.per_slot.as_ref(),
            self.global,
            i,
        )
    }
}

/// Dword `dword` of the URB entry at `slot` (128-bit units) of `handle`.
pub fn input(seed: u64, handle: u32, slot: u32, dword: u32) -> u32 {
    let index = (slot as u64 * 4 + dword as u64) & 0xffff_ffff;
    crate::inputs::word(
        seed,
        crate::inputs::Space::Urb,
        (handle as u64) << 32 | index,
    )
}

/// The record of one channel's write: slot offset, channel mask, then the data.
pub fn record(
    out: &mut Outputs,
    channel: u32,
    slot: u32,
    mask: Option<u32>,
    data: Vec<u64>,
    data_undefined: u64,
) {
    let mut values = vec![slot as u64];
    values.extend(mask.map(|m| m as u64));
    let head = values.len();
    values.extend(data);
    out.records.push(Record {
        message: "urb_write".into(),
        channel,
        values,
        undefined: data_undefined << head,
    });
}
