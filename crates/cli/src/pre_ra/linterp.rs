//! Mesa 22.3's pre-RA `linterp` reading the payload itself: the `pln` it is.

use eubatch_ir::{Inst, Opcode, RegFile, Shader};

/// Mesa 22.3's pre-RA `linterp(16) vgrf2:F, g2:F, g6<0>:F` reads its barycentrics from
/// the payload registers themselves, in the order the hardware delivers them (for
/// channels 8k..8k+7, u in register 2k and v in 2k+1 of the setup: Mesa's `delta_xy` is
/// the payload, and the generator emits one PLN), not in the component order (all u, then
/// all v) of eubatch's `linterp`, whose delta is a VGRF the start dump gathers
/// (`load_payload(8) vgrf3:F, g2:F, g4:F, g3:F, g5:F`). Such a `linterp` of at most 16
/// channels is the `pln` eubatch's own lowering makes of it (passes::lower::linterp):
/// plane first, delta as a region. Returns how many it rewrote.
pub fn linterps_as_plns(pre_ra: &mut Shader) -> usize {
    let insts: Vec<Inst> = pre_ra.layout.insts().collect();
    let mut changed = 0;
    for i in insts {
        if pre_ra.insts.opcode[i] != Opcode::Linterp || pre_ra.insts.control[i].exec_size > 16 {
            continue;
        }
        let &[delta, plane] = pre_ra.srcs(i) else {
            continue;
        };
        if delta.file != RegFile::FixedGrf {
            continue;
        }
        let delta = eubatch_ir::Operand {
            region: eubatch_ir::Region::new(8, 8, 1),
            ..delta
        };
        pre_ra.set_srcs(i, &[plane, delta]);
        pre_ra.insts.opcode[i] = Opcode::Pln;
        changed += 1;
    }
    changed
}
