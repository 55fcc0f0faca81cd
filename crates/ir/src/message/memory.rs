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
/// `address` (a scalar or an immediate) of binding table entry `surface` (an immediate, or
/// a scalar computed at run time: a UBO array indexed by a uniform value).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ConstantBlock {
    pub surface: Operand,
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
    let surface = srcs[src::BINDING];
    if surface.file != RegFile::Imm && !super::surface::is_scalar_index(&surface) {
        return None;
    }
    (ok && oword_block_size(dwords).is_some()).then_some(ConstantBlock {
        surface,
        address: srcs[src::ADDRESS],
        dwords,
    })
}

/// Bytes per component in registers of LSC data size `size` (Mesa 25 brw_eu.h
/// `lsc_data_size_bytes`: D8 1, D16 2; D32, D8U32, D16U32 and D16BF32 a dword; D64 8).
pub fn data_size_bytes(size: u32) -> Option<u32> {
    match size {
        0 => Some(1),
        1 => Some(2),
        2 | 4 | 5 | 6 => Some(4),
        3 => Some(8),
        _ => None,
    }
}

/// Bytes the response of a `memory_load` or `memory_atomic` (sources `srcs`, `exec`
/// channels) fills, as Mesa 25's brw_fs_nir.cpp `fs_nir_emit_memory_access` sizes it: a
/// per-channel message `size_written *= components` on a destination of the data size's
/// type (every channel of each component), a block (transpose) load `block_bytes`, the
/// components once. `None` when the sources are not a memory message's (or not
/// immediates where Mesa puts immediates).
pub fn response_bytes(srcs: &[Operand], exec: u32) -> Option<u32> {
    if srcs.len() != src::COUNT {
        return None;
    }
    let imm = |k: usize| (srcs[k].file == RegFile::Imm).then(|| srcs[k].imm_bits() as u32);
    let bytes = data_size_bytes(imm(src::DATA_SIZE)?)?;
    let comps = imm(src::COMPONENTS)?;
    if imm(src::FLAGS)? & FLAG_TRANSPOSE != 0 {
        Some(comps * bytes)
    } else {
        Some(comps * exec * bytes)
    }
}

/// A block (transpose) load of a buffer or of shared local memory that is not a constant
/// buffer's (`load_ssbo_uniform_block_intel`, `load_shared_uniform_block_intel`): before
/// LSC hardware, Mesa 25's `lower_hdc_memory_logical_send` sends a data-cache OWord block
/// read whose header is zero but for dword 2, the address — a byte address (the unaligned
/// read) for a buffer, in OWords (the aligned read: "SLM block reads must use the
/// 16B-aligned OWord Block Read messages") for shared memory ([`super::block`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BlockLoad {
    pub block: super::block::Block,
    /// The binding table entry: an immediate or a scalar ([`BTI_SLM`] for shared memory).
    pub surface: Operand,
    pub address: Operand,
}

/// The block load `srcs` describe, if they describe one (32-bit data, one coordinate, a
/// block of 4, 8, 16 or 32 dwords).
pub fn block_load(srcs: &[Operand]) -> Option<BlockLoad> {
    if srcs.len() != src::COUNT || constant_block(srcs).is_some() {
        return None;
    }
    let imm = |k: usize| (srcs[k].file == RegFile::Imm).then(|| srcs[k].imm_bits() as u32);
    let ok = imm(src::OPCODE)? == OP_LOAD
        && imm(src::COORD_COMPONENTS)? == 1
        && imm(src::DATA_SIZE)? == DATA_SIZE_D32
        && imm(src::FLAGS)? & FLAG_TRANSPOSE != 0
        && srcs[src::DATA0].is_bad();
    let dwords = imm(src::COMPONENTS)?;
    if !ok || oword_block_size(dwords).is_none() {
        return None;
    }
    let binding = srcs[src::BINDING];
    let (surface, aligned) = match (imm(src::MODE)?, imm(src::BINDING_TYPE)?) {
        (MODE_SHARED, _) => (Operand::imm(crate::Type::UD, BTI_SLM as u64), true),
        (MODE_UNTYPED, SURFTYPE_BTI)
            if binding.file == RegFile::Imm || super::surface::is_scalar_index(&binding) =>
        {
            (binding, false)
        }
        _ => return None,
    };
    Some(BlockLoad {
        block: super::block::Block {
            a64: false,
            write: false,
            aligned,
            dwords,
        },
        surface,
        address: srcs[src::ADDRESS],
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

/// The descriptor (without lengths) of the constant-cache read of `block` from binding
/// table entry `bti` (`brw_dp_oword_block_rw_desc(devinfo, false, dwords, false)` and the
/// entry's low 8 bits; 0 for one ORed in from a register at run time).
pub fn constant_block_desc(block: &ConstantBlock, bti: u32) -> Option<u32> {
    Some((bti & 0xff) | oword_block_size(block.dwords)? << 8 | UNALIGNED_OWORD_BLOCK_READ << 14)
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
/// `LSC_OP_LOAD_CMASK`, `LSC_OP_STORE_CMASK`: loads and stores of the components a mask
/// names (what Mesa 25 gives image loads and stores); before LSC hardware the mask is the
/// component count, and lower_hdc_memory_logical_send builds them as it builds
/// `LSC_OP_LOAD` and `LSC_OP_STORE` (a typed or untyped surface read or write of
/// `components`).
pub const OP_LOAD_CMASK: u32 = 2;
pub const OP_STORE_CMASK: u32 = 6;

/// Where a Mesa 25 memory message goes before LSC hardware (Mesa 25
/// brw_lower_logical_sends.cpp `lower_hdc_memory_logical_send`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A binding table entry (shared local memory: [`BTI_SLM`]): an immediate, or a scalar
    /// computed at run time ([`super::surface::is_scalar_index`]; Mesa 25 masks it with
    /// `and(1) tmp, binding, 0xff` into the descriptor register).
    Bti(Operand),
    /// An image's binding table entry (typed messages), the same way.
    Typed(Operand),
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
/// and subtract, atomic load).
pub fn legacy_atomic(lsc_op: u32) -> Option<(bool, u32)> {
    use super::atomic::op;
    Some(match lsc_op {
        8 => (false, op::INC),
        9 => (false, op::DEC),
        // LSC_OP_ATOMIC_STORE: BRW_AOP_MOV.
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
/// scalar, or a flat 64-bit address, not scratch (its header is the scratch one), not a block
/// (transpose) load; loads and stores of a component mask (`LSC_OP_LOAD_CMASK`,
/// `LSC_OP_STORE_CMASK`) as loads and stores of that many components, as Mesa 25's
/// `lower_hdc_memory_logical_send` builds them; `has_dst` says whether an atomic returns
/// its old value.
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
    let binding = || {
        let b = srcs[src::BINDING];
        (b.file == RegFile::Imm || super::surface::is_scalar_index(&b)).then_some(b)
    };
    let target = match (mode, surftype) {
        (MODE_SHARED, _) => Target::Bti(Operand::imm(crate::Type::UD, BTI_SLM as u64)),
        (MODE_TYPED, SURFTYPE_BTI) => Target::Typed(binding()?),
        (MODE_UNTYPED, SURFTYPE_BTI) => Target::Bti(binding()?),
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
    } else if matches!(op, OP_LOAD | OP_STORE | OP_LOAD_CMASK | OP_STORE_CMASK) {
        let write = op == OP_STORE || op == OP_STORE_CMASK;
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
                target: Target::Bti(b),
                op: Legacy::Access(s),
                ..
            }) if b.imm_bits() == 3 && s.kind == Kind::Untyped && s.comps == 3 && !s.write
        ));
        let byte_store = per_channel(&srcs(OP_STORE, MODE_SHARED, SURFTYPE_BTI, 1, 1), false);
        assert!(matches!(
            byte_store,
            Some(PerChannel {
                target: Target::Bti(b),
                op: Legacy::Access(s),
                ..
            }) if b.imm_bits() == BTI_SLM as u64 && s.kind == Kind::ByteScattered
                && s.bytes == 2 && s.write
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
