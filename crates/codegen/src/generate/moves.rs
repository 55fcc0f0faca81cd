//! Cross-channel moves the generator writes as plain `mov`s (brw_fs_generator.cpp
//! `generate_code`): `sel_exec` is a NoMask `mov dst, src1` then a masked `mov dst, src0`
//! (live channels get `src0`, the others `src1`); `cluster_broadcast` is one `mov` from
//! `src` at channel `component` of each cluster of `cluster_size`, through the region
//! `<cluster_size * s; cluster_size, 0>` (`<0;1,0>` when the cluster is the whole
//! instruction).

use eubatch_ir::{Control, Inst, Opcode, RegFile, Region};

use super::{byte_offset, with_region, Emit};

pub(super) fn sel_exec(e: &mut Emit<'_>, inst: Inst) -> bool {
    let s = &*e.shader;
    let (ctl, dst) = (s.insts.control[inst], s.insts.dst[inst]);
    let srcs = s.srcs(inst);
    let (Some(&a), Some(&b)) = (srcs.first(), srcs.get(1)) else {
        return false;
    };
    let mut all = ctl;
    all.set(Control::NO_MASK, true);
    let mut live = ctl;
    live.set(Control::NO_MASK, false);
    e.push(Opcode::Mov, all, dst, &[b], None);
    e.push(Opcode::Mov, live, dst, &[a], None);
    true
}

pub(super) fn cluster_broadcast(e: &mut Emit<'_>, inst: Inst) -> bool {
    let s = &*e.shader;
    let (ctl, dst) = (s.insts.control[inst], s.insts.dst[inst]);
    let srcs = s.srcs(inst);
    let (Some(&src), Some(&comp), Some(&cluster)) = (srcs.first(), srcs.get(1), srcs.get(2)) else {
        return false;
    };
    if src.file != RegFile::FixedGrf || comp.file != RegFile::Imm || cluster.file != RegFile::Imm {
        return false;
    }
    let (component, size) = (comp.imm_bits() as u32, cluster.imm_bits() as u32);
    let stride = src.region.hstride as u32;
    let (mut v, mut w) = (size * stride, size);
    if ctl.exec_size as u32 == w {
        (v, w) = (0, 1);
    }
    let from = with_region(
        byte_offset(src, component * stride * src.ty.size(), e.reg_size()),
        Region::new(v as u8, w as u8, 0),
    );
    e.push(Opcode::Mov, ctl, dst, &[from], None);
    true
}

#[cfg(test)]
mod tests {
    use super::super::expand;
    use super::super::test_util::{opcodes, parse};
    use eubatch_ir::Opcode::*;

    #[test]
    fn sel_exec_is_two_moves_cluster_broadcast_one() {
        let mut s = parse(
            "skl",
            8,
            "CS",
            "    sel_exec(8) g10<8,8,1>:UD, g11<8,8,1>:UD, g12<8,8,1>:UD NoMask\n    cluster_broadcast(8) g13<8,8,1>:UD, g11<8,8,1>:UD, 1u, 4u\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s), [Mov, Mov, Mov]);
    }
}
