//! How many bytes an instruction reads through one source, from the register the source
//! names onward: Mesa 22.3's `fs_inst::size_read` (brw_fs.cpp), which the register
//! allocator's payload ranges (`calculate_payload_ranges`), interference and spill costs
//! read through `regs_read`. The operand's own region is not the whole story for
//! messages and a few virtual opcodes, which read registers the region does not name:
//!
//! - a raw send's payloads (`send`, `sendc`, `sends`, `sendsc`): `mlen` registers, and
//!   `ex_mlen` of the second ([`payload_len`]);
//! - `pln` (what eubatch lowers `linterp` to) and `linterp`: the plane is 16 bytes (four
//!   floats), and the barycentric source holds two components, u and v, each a register
//!   per 8 channels (Mesa `components_read`: 2 for the delta);
//! - `mov_indirect`: the range its third source gives;
//! - `load_payload`: a header source is a whole register;
//! - `barrier` and `cs_terminate`: a whole register.
//!
//! Every other source reads its region for the instruction's channels
//! ([`crate::Operand::footprint`]); an immediate reads nothing.

use crate::{Inst, Opcode, RegFile, Shader};

/// Bytes `inst` reads through source `k`, from the register the source names onward.
pub fn size_read(shader: &Shader, inst: Inst, k: usize) -> u32 {
    let srcs = shader.srcs(inst);
    let Some(s) = srcs.get(k) else {
        return 0;
    };
    if matches!(s.file, RegFile::Imm | RegFile::Bad) {
        return 0;
    }
    let exec = shader.insts.control[inst].exec_size as u32;
    let reg = shader.reg_size();
    let op = shader.insts.opcode[inst];
    if let Some(len) = payload_len(shader, inst, k) {
        return len;
    }
    match (op, k) {
        // The plane: a, b and c at elements 0, 1 and 3.
        (Opcode::Pln, 0) | (Opcode::Linterp, 1) => 16,
        // The barycentrics: u then v, each `exec` floats.
        (Opcode::Pln, 1) | (Opcode::Linterp, 0) => 2 * s.footprint(exec),
        (Opcode::MovIndirect, 0) => match srcs.get(2) {
            Some(len) if len.file == RegFile::Imm => len.imm_bits() as u32,
            _ => s.footprint(exec),
        },
        (Opcode::LoadPayload, k)
            if k < shader.send_info(inst).map_or(0, |i| i.header_size as usize) =>
        {
            reg
        }
        (Opcode::Barrier | Opcode::CsTerminate, _) => reg,
        _ => s.footprint(exec),
    }
}

/// The bytes a raw send (`send`, `sendc`, `sends`, `sendsc`) reads of source `k` when it is
/// one of its payloads: `mlen` registers of the first, `ex_mlen` of the second, whatever
/// the operand's region says (the hardware reads every register of the payload); `None`
/// for other sources and instructions.
#[inline]
pub fn payload_len(shader: &Shader, inst: Inst, k: usize) -> Option<u32> {
    let op = shader.insts.opcode[inst];
    if !matches!(
        op,
        Opcode::Send | Opcode::Sendc | Opcode::Sends | Opcode::Sendsc
    ) {
        return None;
    }
    let info = shader.send_info(inst)?;
    let srcs = shader.srcs(inst);
    let s = srcs.get(k)?;
    let (p1, p2) = crate::message::send_payloads(srcs);
    let is = |p: Option<&crate::Operand>| p.is_some_and(|p| std::ptr::eq(p, s));
    let reg = shader.reg_size();
    if is(p1) {
        Some(info.mlen as u32 * reg)
    } else if is(p2) {
        Some(info.ex_mlen as u32 * reg)
    } else {
        None
    }
}

/// Registers `inst` reads through source `k`, from the one the source names (its byte
/// offset inside that register included), less a strided VGRF region's tail padding
/// (Mesa's `regs_read` with `reg_padding`).
pub fn regs_read(shader: &Shader, inst: Inst, k: usize) -> u32 {
    let Some(s) = shader.srcs(inst).get(k) else {
        return 0;
    };
    let bytes = size_read(shader, inst, k);
    if bytes == 0 {
        return 0;
    }
    regs_spanned(s, bytes, shader.reg_size())
}

/// Registers `inst` writes from the one its destination names (Mesa's `regs_written`).
pub fn regs_written(shader: &Shader, inst: Inst) -> u32 {
    let bytes = shader.insts.size_written[inst];
    if bytes == 0 {
        return 0;
    }
    regs_spanned(&shader.insts.dst[inst], bytes, shader.reg_size())
}

/// Registers an access of `bytes` bytes at `op` spans. A strided VGRF region's last
/// element is followed by `stride - 1` elements of padding that `size_read` and
/// `size_written` count but no register holds (Mesa's `reg_padding`; fixed registers
/// have Mesa stride 1, so none).
fn regs_spanned(op: &crate::Operand, bytes: u32, reg: u32) -> u32 {
    let (within, padding) = match op.file {
        RegFile::Vgrf => (
            op.offset % reg,
            (op.stride.max(1) as u32 - 1) * op.ty.size(),
        ),
        RegFile::FixedGrf => (op.offset % reg, 0),
        _ => (0, 0),
    };
    (within + bytes - bytes.min(padding)).div_ceil(reg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn barycentrics_plane_and_payloads() {
        let s = crate::text::parse_shader(
            "shader \"s\" stage FS width 16 target skl
vgrf0 2x32
block0:
    pln(16) vgrf0:F, attr1<0>:F, g2<8,8,1>:F
    send(16) (mlen: 3) (sfid: 2) (desc: 0x06420001) (size: 128) g30<8,8,1>:F, 0u, 0u, g20<8,8,1>:F
    add(16) g40<8,8,1>:F, g4.1<0,1,0>:F, 1f
",
        )
        .unwrap();
        let i: Vec<Inst> = s.layout.insts().collect();
        // SIMD16: u in g2-g3, v in g4-g5; the plane is four floats.
        assert_eq!(size_read(&s, i[0], 0), 16);
        assert_eq!(regs_read(&s, i[0], 1), 4);
        // The payload is mlen registers whatever its region; the descriptors read nothing.
        assert_eq!(regs_read(&s, i[1], 2), 3);
        assert_eq!(size_read(&s, i[1], 0), 0);
        // A scalar inside a register; an immediate.
        assert_eq!(regs_read(&s, i[2], 0), 1);
        assert_eq!(size_read(&s, i[2], 1), 0);
    }

    #[test]
    fn a_strided_region_does_not_span_its_padding() {
        let s = crate::text::parse_shader(
            "shader \"s\" stage FS width 16 target skl
vgrf0 2x32
vgrf1 2x32
block0:
    mov(16) vgrf1<2>:W, 1w
    mov(16) vgrf0:F, vgrf1<2>:W
    mov(8) vgrf0:F, vgrf1+0.2<2>:W
",
        )
        .unwrap();
        let i: Vec<Inst> = s.layout.insts().collect();
        // 16 words at stride 2 end 2 bytes before the end of the register's 64 bytes:
        // two registers, not three; from byte 2, 8 strided words end at byte 32: one.
        assert_eq!(size_read(&s, i[1], 0), 64);
        assert_eq!(regs_read(&s, i[1], 0), 2);
        assert_eq!(regs_written(&s, i[0]), 2);
        assert_eq!(regs_read(&s, i[2], 0), 1);
    }
}
