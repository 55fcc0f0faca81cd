//! `find_live_channel` / `find_last_live_channel`.
//!
//! Gen7 (brw_eu_emit.c `brw_find_live_channel`, Align1): the flag register cleared by
//! `mov(1) fN.M:UD 0`, then `mov.z(n) null:UW 0` with execution masking, in pieces of at
//! most 16 channels, sets the flag bit of each live channel, and `fbl(1)` (first live) or
//! `lzd(1)` + `add(1)` (last live: 31 minus the leading zeros) reads it.
//!
//! Gen8+: the first live channel is the first bit of the channel-enable register,
//! `fbl(1) dst, mask0:UD` (NoMask). Mesa 22.3 lowers the opcode so before register
//! allocation (brw_fs.cpp `fs_visitor::lower_find_live_channel`, behind an `undef` of the
//! destination); eubatch keeps it to the generator, where its one instruction is the same,
//! so that liveness knows what the index of a `broadcast` is (the first live channel:
//! `passes::analysis::access`). Mesa ANDs in the dispatch mask read from `sr0` unless the
//! dispatch is packed — every stage but fragment shaders dispatched per sample
//! (`brw_stage_has_packed_dispatch`), which the dumps do not say and eubatch takes as
//! packed — and always for the last live channel: `find_last_live_channel` is not
//! expanded on gen8+ (eubatch has no `sr0` read).

use eubatch_ir::operand::arf;
use eubatch_ir::shader::CondMod;
use eubatch_ir::{Control, Inst, Mods, Opcode, Operand, Region, Type};

use super::{no_mask, rules, scalar_dst, unsigned_of_size, with_region, Emit};

pub(super) fn expand(e: &mut Emit<'_>, inst: Inst) -> bool {
    let s = &*e.shader;
    if !rules::find_live_channel_in_generator(s.target) {
        if s.insts.opcode[inst] != Opcode::FindLiveChannel {
            return false;
        }
        let (ctl, dst) = (s.insts.control[inst], s.insts.dst[inst]);
        let mut one = no_mask(ctl, 1);
        one.group = 0;
        let mask = Operand::arf(arf::MASK, 0, Type::UD, Region::new(0, 1, 0));
        e.push(Opcode::Fbl, one, scalar_dst(dst), &[mask], None);
        return true;
    }
    let (ctl, dst) = (s.insts.control[inst], s.insts.dst[inst]);
    let last = s.insts.opcode[inst] == Opcode::FindLastLiveChannel;
    let exec = ctl.exec_size as u32;
    let qtr = ctl.group as u32 / 8;
    let sub = ctl.flag_subreg as u32;
    let flag = |ty: Type, byte: u32| {
        Operand::arf(
            arf::FLAG | (sub / 2),
            (sub % 2) * 2 + byte,
            ty,
            Region::new(0, 1, 0),
        )
    };
    let one = no_mask(ctl, 1);
    e.push(
        Opcode::Mov,
        one,
        with_region(flag(Type::UD, 0), Region::new(1, 1, 1)),
        &[Operand::imm(Type::UD, 0)],
        None,
    );
    let lower = exec.min(16);
    for i in 0..exec / lower {
        let mut c = Control::new(lower as u8);
        c.group = (lower * i + 8 * qtr) as u8;
        c.cmod = CondMod::Z;
        c.flag_subreg = ctl.flag_subreg;
        let null = Operand::arf(arf::NULL, 0, Type::UW, Region::new(8, 8, 1));
        e.push(Opcode::Mov, c, null, &[Operand::imm(Type::UW, 0)], None);
    }
    let bits = flag(unsigned_of_size((exec / 8).max(1)), qtr);
    let d = scalar_dst(dst);
    if last {
        e.push(Opcode::Lzd, one, d, &[bits], None);
        let mut neg = with_region(dst, Region::new(0, 1, 0));
        neg.mods = Mods(Mods::NEGATE);
        e.push(
            Opcode::Add,
            one,
            d,
            &[neg, Operand::imm(Type::UW, 31)],
            None,
        );
    } else {
        e.push(Opcode::Fbl, one, d, &[bits], None);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{opcodes, parse};
    use super::super::{expand, NotExpanded};
    use eubatch_ir::Opcode::*;

    #[test]
    fn gen7_fills_the_flag_in_sixteen_channel_pieces() {
        let mut s = parse(
            "hsw",
            32,
            "FS",
            "    find_live_channel(32) g10<0,1,0>:UD NoMask\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s), [Mov, Mov, Mov, Fbl]);
    }

    #[test]
    fn gen9_reads_the_channel_enables_but_not_for_the_last_channel() {
        let mut s = parse(
            "skl",
            8,
            "FS",
            "    find_live_channel(8) g10<0,1,0>:UD NoMask\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s), [Fbl]);
        let mut s = parse(
            "skl",
            8,
            "FS",
            "    find_last_live_channel(8) g10<0,1,0>:UD NoMask\n",
        );
        assert_eq!(
            expand(&mut s),
            Err(NotExpanded::Opcodes(vec![FindLastLiveChannel]))
        );
    }
}
