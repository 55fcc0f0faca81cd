//! `load_payload` becomes moves: each header source a `mov(8)` of one register with
//! NoMask, each other source a `mov` of the instruction's width into its component of
//! the payload (Mesa: brw_fs.cpp `lower_load_payload`). The optimization loop that runs
//! after it (copy propagation, register coalescing, dead-code elimination) then removes
//! the copies whose source can be written or read in place.
//!
//! Rules that limit it: header registers are copied as whole 32-bit registers with the
//! execution mask off, as the hardware reads them; missing (`(null)`) sources leave their
//! part of the payload unwritten, and the layout (header registers of 32 bytes, then
//! components of `exec_size` elements of the source's type) is the one the simulator and
//! the message lowering use. A payload whose `size_written` is smaller than that layout
//! (Mesa 25's packed scalar payloads) is left as it is.

use eubatch_ir::{Builder, Opcode, Operand, Shader, Type};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, cx: &mut PassCx) -> Changed {
    // It runs once per pipeline: whatever it changed, every analysis is dropped.
    Changed::when(lower_all(shader, cx), Changed::EVERYTHING)
}

fn lower_all(shader: &mut Shader, _cx: &mut PassCx) -> bool {
    super::replace_each(shader, Opcode::LoadPayload, |shader, inst| {
        let ctl = shader.insts.control[inst];
        let exec = ctl.exec_size as u32;
        let header = shader.send_info(inst).map_or(0, |s| s.header_size as usize);
        // A header source is one whole register.
        let reg = shader.reg_size();
        let dst = shader.insts.dst[inst];
        let srcs: Vec<Operand> = shader.srcs(inst).to_vec();
        let total: u32 = srcs
            .iter()
            .enumerate()
            .map(|(k, s)| if k < header { reg } else { exec * s.ty.size() })
            .sum();
        // Mesa 25 packs scalar (`<0>`) sources into a payload smaller than this layout (its
        // `is_scalar` registers); such payloads stay whole until that layout is modelled.
        if total > shader.insts.size_written[inst] {
            return None;
        }
        let mut moves = Vec::with_capacity(srcs.len());
        let mut offset = 0u32;
        for (k, s) in srcs.iter().enumerate() {
            let is_header = k < header;
            let bytes = if is_header { reg } else { exec * s.ty.size() };
            if !s.is_bad() {
                let mut d = dst;
                d.offset += offset;
                d.stride = 1;
                let mut src = *s;
                let mut b = Builder::with_control(ctl);
                if is_header {
                    d.ty = Type::UD;
                    src.ty = Type::UD;
                    b = Builder::new(8).exec_all();
                } else {
                    d.ty = s.ty;
                }
                // The size is the payload layout's part (a register per header, `exec`
                // elements per component), whatever file and region the destination has.
                moves.push(b.alu_sized(shader, Opcode::Mov, d, &[src], bytes));
            }
            offset += bytes;
        }
        Some(moves)
    })
}
