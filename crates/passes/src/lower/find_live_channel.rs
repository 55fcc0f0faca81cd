//! `find_live_channel` on gen8+: the first live channel is the first bit set in the
//! channel-enable register, `fbl(1) dst, mask0:UD` (NoMask, one channel), after an `undef`
//! of the destination when the instruction wrote it whole (Mesa: brw_fs.cpp
//! `fs_visitor::lower_find_live_channel`, the last lowering of `optimize`). Gen7 keeps the
//! opcode: its `mask0` reads back as all ones under NoMask, and the generator expands it
//! through the flag register (`eubatch_codegen::generate`).
//!
//! Rules that limit it: `mask0` does not consider the thread's dispatch mask; Mesa reads
//! `sr0.2`/`sr0.3` and ANDs it in unless the dispatch is packed (every stage but fragment
//! shaders with per-sample dispatch, `brw_stage_has_packed_dispatch`) and the first channel
//! is wanted. Per-sample dispatch is not in the dumps and eubatch has no `sr0` read: only
//! `find_live_channel` is lowered, taking every stage's dispatch as packed (what every
//! gen8+ pre-RA dump of the corpora shows); `find_last_live_channel` stays, and the
//! generator counts it as not expanded.

use eubatch_ir::operand::arf;
use eubatch_ir::shader::Predicate;
use eubatch_ir::{Builder, Control, Gen, Opcode, Operand, Region, Shader, Type};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> Changed {
    if shader.target < Gen::Gen8 {
        return Changed::NOTHING;
    }
    let reg = shader.reg_size();
    let changed = super::replace_each(shader, Opcode::FindLiveChannel, |shader, inst| {
        let ctl = shader.insts.control[inst];
        let dst = shader.insts.dst[inst];
        let mut out = Vec::with_capacity(2);
        // fs_inst::is_partial_write.
        let partial = ctl.predicate != Predicate::None
            || ctl.exec_size as u32 * dst.ty.size() < reg
            || dst.stride != 1
            || dst.offset % reg != 0;
        if !partial {
            let size = shader.insts.size_written[inst];
            let undef = Builder::with_control(ctl).alu(
                shader,
                Opcode::Undef,
                Operand { ty: Type::UD, ..dst },
                &[],
            );
            shader.insts.size_written[undef] = size;
            out.push(undef);
        }
        let mask = Operand::arf(arf::MASK, 0, Type::UD, Region::new(0, 1, 0));
        let one = Builder::new(1).exec_all().control();
        let one = Control { group: 0, ..one };
        out.push(Builder::with_control(one).alu(shader, Opcode::Fbl, dst, &[mask]));
        Some(out)
    });
    Changed::when(changed, Changed::EVERYTHING)
}
