//! Mesa 25's unified memory messages (`memory_load`, `memory_store`, `memory_atomic`:
//! brw_eu_defines.h `enum memory_logical_srcs`, `enum memory_logical_mode`,
//! `enum memory_flags`; LSC enums from brw_eu_defines.h / lsc). Before LSC hardware,
//! brw_lower_logical_sends.cpp `lower_hdc_memory_logical_send` turns them into data-port
//! messages; the block loads of constant buffers (`load const ... transpose`) become
//! constant-cache unaligned OWord block reads with a header holding the byte address.

use crate::operand::{Operand, RegFile};

/// Sources of the memory messages (`enum memory_logical_srcs`).
pub mod src {
    pub const OPCODE: usize = 0;
    pub const MODE: usize = 1;
    pub const BINDING_TYPE: usize = 2;
    pub const BINDING: usize = 3;
    pub const ADDRESS: usize = 4;
    pub const COORD_COMPONENTS: usize = 5;
    pub const ALIGNMENT: usize = 6;
    pub const DATA_SIZE: usize = 7;
    pub const COMPONENTS: usize = 8;
    pub const FLAGS: usize = 9;
    pub const DATA0: usize = 10;
    pub const DATA1: usize = 11;
    pub const COUNT: usize = 12;
}

/// `LSC_OP_LOAD`.
pub const OP_LOAD: u32 = 0;
/// `MEMORY_MODE_CONSTANT`.
pub const MODE_CONSTANT: u32 = 4;
/// `LSC_ADDR_SURFTYPE_BTI`.
pub const SURFTYPE_BTI: u32 = 3;
/// `LSC_DATA_SIZE_D32`.
pub const DATA_SIZE_D32: u32 = 2;
/// `MEMORY_FLAG_TRANSPOSE`: one block for the whole message, not one value per channel.
pub const FLAG_TRANSPOSE: u32 = 1;

/// A block load of a constant buffer: `dwords` consecutive dwords at the byte address
/// `address` (a scalar or an immediate) of binding table entry `surface`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ConstantBlock {
    pub surface: u32,
    pub address: Operand,
    pub dwords: u32,
}

/// The constant block load `srcs` describe, if they describe one.
pub fn constant_block(srcs: &[Operand]) -> Option<ConstantBlock> {
    if srcs.len() != src::COUNT {
        return None;
    }
    let imm = |k: usize| (srcs[k].file == RegFile::Imm).then(|| srcs[k].imm_bits() as u32);
    let ok = imm(src::OPCODE)? == OP_LOAD
        && imm(src::MODE)? == MODE_CONSTANT
        && imm(src::BINDING_TYPE)? == SURFTYPE_BTI
        && imm(src::COORD_COMPONENTS)? == 1
        && imm(src::DATA_SIZE)? == DATA_SIZE_D32
        && imm(src::FLAGS)? & FLAG_TRANSPOSE != 0
        && srcs[src::DATA0].is_bad();
    let dwords = imm(src::COMPONENTS)?;
    let surface = imm(src::BINDING)?;
    (ok && oword_block_size(dwords).is_some()).then_some(ConstantBlock {
        surface,
        address: srcs[src::ADDRESS],
        dwords,
    })
}

/// Data-port message type of an unaligned OWord block read (bits 18:14,
/// `GFX7_DATAPORT_DC_UNALIGNED_OWORD_BLOCK_READ`): the header's dword 2 is a byte address.
pub const UNALIGNED_OWORD_BLOCK_READ: u32 = 1;

/// The OWord block size field (bits 10:8, `BRW_DATAPORT_OWORD_BLOCK_DWORDS`) for a block of
/// `dwords`.
pub fn oword_block_size(dwords: u32) -> Option<u32> {
    match dwords {
        4 => Some(0),
        8 => Some(2),
        16 => Some(3),
        32 => Some(4),
        _ => None,
    }
}

/// The descriptor (without lengths) of the constant-cache read of `block`
/// (`brw_dp_oword_block_rw_desc(devinfo, false, dwords, false)` and the binding table
/// entry).
pub fn constant_block_desc(block: &ConstantBlock) -> Option<u32> {
    Some(
        (block.surface & 0xff)
            | oword_block_size(block.dwords)? << 8
            | UNALIGNED_OWORD_BLOCK_READ << 14,
    )
}

/// `MEMORY_MODE_TYPED`, `MEMORY_MODE_UNTYPED`, `MEMORY_MODE_SHARED_LOCAL`,
/// `MEMORY_MODE_SCRATCH` (`enum memory_logical_mode`).
pub const MODE_TYPED: u32 = 0;
pub const MODE_UNTYPED: u32 = 1;
pub const MODE_SHARED: u32 = 2;
pub const MODE_SCRATCH: u32 = 3;
/// `LSC_ADDR_SURFTYPE_FLAT`: a 64-bit address, no surface.
pub const SURFTYPE_FLAT: u32 = 0;
/// `GFX7_BTI_SLM`: shared local memory's binding table index.
pub const BTI_SLM: u32 = 254;
/// `LSC_OP_STORE`.
pub const OP_STORE: u32 = 4;
/// `LSC_OP_LOAD_CMASK` and `LSC_OP_STORE_CMASK` (image loads and stores): before LSC the
/// same messages as `LSC_OP_LOAD` and `LSC_OP_STORE`, `lower_hdc_memory_logical_send`
/// giving either the message of `components` (`brw_dp_typed_surface_rw_desc`,
/// `brw_dp_untyped_surface_rw_desc`).
pub const OP_LOAD_CMASK: u32 = 2;
pub const OP_STORE_CMASK: u32 = 6;

/// Whether LSC opcode `op` is a load or a store (with or without a channel mask), and
/// which.
pub fn load_or_store(op: u32) -> Option<bool> {
    match op {
        OP_LOAD | OP_LOAD_CMASK => Some(false),
        OP_STORE | OP_STORE_CMASK => Some(true),
        _ => None,
    }
}

/// Bytes a Mesa 25 `memory_load` or `memory_atomic` (with a destination) of dwords
/// (`d32`, or `d8u32`/`d16u32`, the low bits of a dword) answers: `components` dwords per
/// channel, or `components` dwords in all for a block (transposed) load; an atomic one
/// dword per channel. `None` for other data sizes and for stores.
pub fn response_bytes(op: crate::Opcode, srcs: &[Operand], exec: u32) -> Option<u32> {
    if !matches!(
        op,
        crate::Opcode::MemoryLoadLogical | crate::Opcode::MemoryAtomicLogical
    ) || srcs.len() != src::COUNT
    {
        return None;
    }
    let imm = |k: usize| (srcs[k].file == RegFile::Imm).then(|| srcs[k].imm_bits() as u32);
    if !matches!(imm(src::DATA_SIZE)?, DATA_SIZE_D32 | 4 | 5) {
        return None;
    }
    let comps = imm(src::COMPONENTS)?;
    if op == crate::Opcode::MemoryAtomicLogical {
        return (comps == 1).then_some(4 * exec);
    }
    Some(if imm(src::FLAGS)? & FLAG_TRANSPOSE != 0 {
        4 * comps
    } else {
        4 * comps * exec
    })
}

/// A block (transposed) load or store of a buffer or of shared local memory: `dwords`
/// consecutive dwords at the scalar byte address `address` of binding table entry
/// `surface` (254 for shared memory), for the whole message (Mesa 25
/// `lower_hdc_memory_logical_send` with `MEMORY_FLAG_TRANSPOSE`: an OWord block read or
/// write, `brw_dp_oword_block_rw_desc`; unaligned for a buffer, the header's dword 2 a byte
/// address; OWord-aligned for shared memory, the address in OWords).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DataBlock {
    pub surface: u32,
    pub address: Operand,
    pub dwords: u32,
    pub write: bool,
    /// Shared local memory: the 16-byte aligned message.
    pub aligned: bool,
}

/// The block load or store `srcs` describe, if they describe one of a buffer (binding
/// table entry as an immediate) or of shared memory, with 32-bit data.
pub fn data_block(srcs: &[Operand]) -> Option<DataBlock> {
    if srcs.len() != src::COUNT {
        return None;
    }
    let imm = |k: usize| (srcs[k].file == RegFile::Imm).then(|| srcs[k].imm_bits() as u32);
    let write = load_or_store(imm(src::OPCODE)?)?;
    let (surface, aligned) = match (imm(src::MODE)?, imm(src::BINDING_TYPE)?) {
        (MODE_SHARED, _) => (BTI_SLM, true),
        (MODE_UNTYPED, SURFTYPE_BTI) => (imm(src::BINDING)?, false),
        _ => return None,
    };
    let ok = imm(src::COORD_COMPONENTS)? == 1
        && imm(src::DATA_SIZE)? == DATA_SIZE_D32
        && imm(src::FLAGS)? & FLAG_TRANSPOSE != 0
        && srcs[src::DATA0].is_bad() != write
        && srcs[src::DATA1].is_bad();
    let dwords = imm(src::COMPONENTS)?;
    (ok && oword_block_size(dwords).is_some()).then_some(DataBlock {
        surface,
        address: srcs[src::ADDRESS],
        dwords,
        write,
        aligned,
    })
}

/// Where a Mesa 25 memory message goes before LSC hardware (Mesa 25
/// brw_lower_logical_sends.cpp `lower_hdc_memory_logical_send`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A binding table entry (shared local memory: [`BTI_SLM`]).
    Bti(u32),
    /// An image's binding table entry (typed messages).
    Typed(u32),
    /// A 64-bit address (A64 messages).
    Flat,
}

/// What a Mesa 25 memory message does, as the gen9 data-port message
/// `lower_hdc_memory_logical_send` turns it into.
pub type Legacy = super::surface::Op;

/// A per-channel (not block, not scratch) Mesa 25 memory message in its pre-LSC form: the
/// target, what it does, the coordinates per channel.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PerChannel {
    pub target: Target,
    pub op: Legacy,
    pub coord_components: u32,
}

/// The legacy atomic operation of an LSC one (Mesa `lsc_op_to_legacy_atomic`), and
/// whether it is a float one: `None` for operations gen9 has no message for (float add
/// and subtract, atomic load). An atomic store (`LSC_OP_ATOMIC_STORE`, NIR's exchange) is
/// `BRW_AOP_MOV`, returning the old value.
pub fn legacy_atomic(lsc_op: u32) -> Option<(bool, u32)> {
    use super::atomic::op;
    Some(match lsc_op {
        8 => (false, op::INC),
        9 => (false, op::DEC),
        11 => (false, op::MOV),
        12 => (false, op::ADD),
        13 => (false, op::SUB),
        14 => (false, op::IMIN),
        15 => (false, op::IMAX),
        16 => (false, op::UMIN),
        17 => (false, op::UMAX),
        18 => (false, op::CMPWR),
        21 => (true, op::FMIN),
        22 => (true, op::FMAX),
        23 => (true, op::FCMPWR),
        24 => (false, op::AND),
        25 => (false, op::OR),
        26 => (false, op::XOR),
        _ => return None,
    })
}

/// The per-channel message `srcs` (a `memory_load`, `memory_store` or `memory_atomic`)
/// describes, if it is one gen9 has: 32-bit data (8- and 16-bit loads and stores as
/// byte-scattered messages of one component), a binding table entry as an immediate or a
/// flat 64-bit address, not scratch (its header is the scratch one), not a block
/// (transpose) load; `has_dst` says whether an atomic returns its old value.
pub fn per_channel(srcs: &[Operand], has_dst: bool) -> Option<PerChannel> {
    use super::atomic::{Atomic, Kind as AtomicKind};
    use super::surface::{Kind, Shape};
    if srcs.len() != src::COUNT {
        return None;
    }
    let imm = |k: usize| (srcs[k].file == RegFile::Imm).then(|| srcs[k].imm_bits() as u32);
    let (op, mode, surftype) = (imm(src::OPCODE)?, imm(src::MODE)?, imm(src::BINDING_TYPE)?);
    let (coords, align, size, comps) = (
        imm(src::COORD_COMPONENTS)?,
        imm(src::ALIGNMENT)?,
        imm(src::DATA_SIZE)?,
        imm(src::COMPONENTS)?,
    );
    if imm(src::FLAGS)? & FLAG_TRANSPOSE != 0 || !(1..=4).contains(&comps) {
        return None;
    }
    let target = match (mode, surftype) {
        (MODE_SHARED, _) => Target::Bti(BTI_SLM),
        (MODE_TYPED, SURFTYPE_BTI) => Target::Typed(imm(src::BINDING)?),
        (MODE_UNTYPED, SURFTYPE_BTI) => Target::Bti(imm(src::BINDING)?),
        (MODE_UNTYPED, SURFTYPE_FLAT) => Target::Flat,
        _ => return None,
    };
    // Bits of data per component (`lsc_data_size`: d8, d16, d32; d8u32 and d16u32 the
    // low bits of a dword).
    let bits = match size {
        0 | 4 => 8,
        1 | 5 => 16,
        2 => 32,
        _ => return None,
    };
    let typed = matches!(target, Target::Typed(_));
    let legacy = if let Some((float, aop)) = legacy_atomic(op) {
        if bits != 32 || comps != 1 {
            return None;
        }
        let kind = match (typed, float) {
            (true, false) => AtomicKind::Typed,
            (false, false) => AtomicKind::Untyped,
            (false, true) => AtomicKind::UntypedFloat,
            (true, true) => return None,
        };
        Legacy::Atomic(Atomic {
            kind,
            op: aop,
            response: has_dst,
        })
    } else if let Some(write) = load_or_store(op) {
        // `byte_scattered = data_bit_size < 32 || (alignment != 0 && alignment < 4)`.
        let byte = bits < 32 || (align != 0 && align < 4);
        let shape = match (typed, byte) {
            (true, false) => Shape {
                kind: Kind::Typed,
                write,
                comps,
                bytes: 4,
            },
            (false, false) => Shape {
                kind: Kind::Untyped,
                write,
                comps,
                bytes: 4,
            },
            (false, true) if comps == 1 => Shape {
                kind: Kind::ByteScattered,
                write,
                comps: 1,
                bytes: bits / 8,
            },
            _ => return None,
        };
        Legacy::Access(shape)
    } else {
        return None;
    };
    let coords_ok = match target {
        Target::Typed(_) => (1..=4).contains(&coords),
        _ => coords == 1,
    };
    coords_ok.then_some(PerChannel {
        target,
        op: legacy,
        coord_components: coords,
    })
}

#[cfg(test)]
mod per_channel_tests {
    use super::*;
    use crate::types::Type;

    fn srcs(op: u32, mode: u32, surf: u32, size: u32, comps: u32) -> Vec<Operand> {
        let i = |v: u32| Operand::imm(Type::UD, v as u64);
        let addr = Operand::vgrf(1, 0, Type::UD, 1);
        vec![
            i(op),
            i(mode),
            i(surf),
            if surf == SURFTYPE_FLAT {
                Operand::bad(Type::UD)
            } else {
                i(3)
            },
            addr,
            i(1),
            i(4),
            i(size),
            i(comps),
            i(0),
            Operand::bad(Type::UD),
            Operand::bad(Type::UD),
        ]
    }

    #[test]
    fn mesa25_memory_messages_map_to_gen9_ones() {
        use crate::message::surface::Kind;
        let untyped_load = per_channel(&srcs(OP_LOAD, MODE_UNTYPED, SURFTYPE_BTI, 2, 3), true);
        assert!(matches!(
            untyped_load,
            Some(PerChannel {
                target: Target::Bti(3),
                op: Legacy::Access(s),
                ..
            }) if s.kind == Kind::Untyped && s.comps == 3 && !s.write
        ));
        let byte_store = per_channel(&srcs(OP_STORE, MODE_SHARED, SURFTYPE_BTI, 1, 1), false);
        assert!(matches!(
            byte_store,
            Some(PerChannel {
                target: Target::Bti(BTI_SLM),
                op: Legacy::Access(s),
                ..
            }) if s.kind == Kind::ByteScattered && s.bytes == 2 && s.write
        ));
        let cmpxchg = per_channel(&srcs(18, MODE_UNTYPED, SURFTYPE_FLAT, 2, 1), true);
        assert!(matches!(
            cmpxchg,
            Some(PerChannel {
                target: Target::Flat,
                op: Legacy::Atomic(a),
                ..
            }) if a.op == crate::message::atomic::op::CMPWR && a.response
        ));
        // An image store with a channel mask is the typed write of its components; an
        // exchange the atomic move.
        let image_store = per_channel(&srcs(OP_STORE_CMASK, MODE_TYPED, SURFTYPE_BTI, 2, 4), false);
        assert!(matches!(
            image_store,
            Some(PerChannel {
                target: Target::Typed(3),
                op: Legacy::Access(s),
                ..
            }) if s.kind == Kind::Typed && s.comps == 4 && s.write
        ));
        let xchg = per_channel(&srcs(11, MODE_SHARED, SURFTYPE_FLAT, 2, 1), true);
        assert!(matches!(
            xchg,
            Some(PerChannel {
                target: Target::Bti(BTI_SLM),
                op: Legacy::Atomic(a),
                ..
            }) if a.op == crate::message::atomic::op::MOV && a.response
        ));
        // Float add has no gen9 message; scratch has its own header.
        assert_eq!(
            per_channel(&srcs(19, MODE_UNTYPED, SURFTYPE_BTI, 2, 1), true),
            None
        );
        assert_eq!(
            per_channel(&srcs(OP_LOAD, MODE_SCRATCH, SURFTYPE_BTI, 2, 1), true),
            None
        );
    }
}
