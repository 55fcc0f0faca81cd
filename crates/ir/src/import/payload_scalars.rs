//! The thread-payload fields of Mesa 22.3's scalar dumps, put back where Mesa's own code
//! fixes them.
//!
//! Mesa 22.3's `fs_visitor::dump_instruction` writes a fixed-register source as
//! `gN<hstride>:T`: neither its sub-register nor its vertical stride and width. A read of
//! a payload dword then looks like a read of `gN.0`, and the simulator, which draws each
//! payload dword from its seed, would run the shader on another input than Mesa's final
//! code. Where the instruction is one that Mesa's code emits with a fixed field, the
//! importer restores the field ([`crate::thread_payload`] says which, with the source):
//! - a compute shader's work-group ID: `mov` of `g0<0>:UD` into component c = 0, 1, 2 of
//!   a VGRF reads r0.1, r0.6, r0.7 (`emit_work_group_id_setup`);
//! - an `and` of `g0<0>:UD` with an immediate in a compute or tessellation control shader
//!   reads r0.2 (the barrier ID, the TCS instance number);
//! - a `mov` of `g0<0>:F` in a tessellation shader reads the primitive ID r0.1 (the
//!   payload register keeps the untyped `F` Mesa gives `brw_vec1_grf`; the URB handle at
//!   r0.0 is always retyped `UD`);
//! - a fragment shader's `shr` of `g1<0>:UB` or `g2<0>:UB` by `0x76543210V` reads the
//!   pixel-mask byte r1.7 (r2.7) with region `<1;8,0>` (`gl_HelperInvocation`), and by
//!   `0x44440000V` the sample-ID bytes r1.0 (r2.0) with that region (gen8+ sample ID).
//!
//! - Haswell's compute shaders with shared memory copy the SLM index into sr0.1
//!   (brw_fs.cpp `fs_visitor::run_cs`: `mov(1) sr0.1:UW, g0.1:UW`, the high word of
//!   r0.0), which the printer writes `mov(1) arf0.4:UW, g0<0>:UW`, the ARF's class lost
//!   with the number's high nibble.
//!
//! Reads Mesa emits with a field known only at compile time (a TCS input vertex's URB
//! handle `component(g1, vertex)`) are left as printed.

use crate::opcode::Opcode;
use crate::operand::{Operand, RegFile, Region};
use crate::shader::{Shader, Stage};
use crate::thread_payload::{
    CS_WORK_GROUP_ID_DWORDS, HELPER_INVOCATION_SHIFTS, R0_BARRIER_AND_INSTANCE_DWORD,
    SAMPLE_ID_SHIFTS, TESS_PRIMITIVE_ID_DWORD,
};
use crate::types::Type;

/// Is `o` printed as the scalar `gN<0>:ty` with its sub-register dropped?
fn printed_scalar(o: &Operand, nr: u32, ty: Type) -> bool {
    o.file == RegFile::FixedGrf
        && o.nr == nr
        && o.ty == ty
        && o.offset == 0
        && o.region == Region::for_stride(0)
        && o.mods == crate::operand::Mods::NONE
}

/// Restores the payload fields of a Mesa 22.3 scalar dump (see the module doc); how many
/// sources it changed.
pub fn restore(shader: &mut Shader) -> usize {
    let stage = shader.stage;
    let shader_is_hsw = shader.target == crate::target::Gen::Gen75;
    let mut changed = 0;
    for inst in shader.insts.opcode.indices() {
        let op = shader.insts.opcode[inst];
        let exec = shader.insts.control[inst].exec_size as u32;
        let dst = shader.insts.dst[inst];
        let srcs = shader.srcs_mut(inst);
        match (stage, op, &mut *srcs) {
            (Stage::Cs, Opcode::Mov, [a]) if printed_scalar(a, 0, Type::UD) => {
                let comp_bytes = exec * 4;
                if dst.file != RegFile::Vgrf || dst.offset % comp_bytes != 0 {
                    continue;
                }
                let Some(&dword) = CS_WORK_GROUP_ID_DWORDS.get((dst.offset / comp_bytes) as usize)
                else {
                    continue;
                };
                a.offset = 4 * dword;
            }
            (Stage::Cs | Stage::Tcs, Opcode::And, [a, b])
                if printed_scalar(a, 0, Type::UD) && b.file == RegFile::Imm =>
            {
                a.offset = 4 * R0_BARRIER_AND_INSTANCE_DWORD;
            }
            (Stage::Tcs | Stage::Tes, Opcode::Mov, [a]) if printed_scalar(a, 0, Type::F) => {
                a.offset = 4 * TESS_PRIMITIVE_ID_DWORD;
            }
            (Stage::Cs, Opcode::Mov, [a])
                if shader_is_hsw
                    && printed_scalar(a, 0, Type::UW)
                    && dst.file == RegFile::Arf
                    && dst.nr == crate::operand::arf::UNKNOWN
                    && dst.offset == 4
                    && dst.ty == Type::UW
                    && exec == 1 =>
            {
                a.offset = 2;
                let mut d = dst;
                d.nr = crate::operand::arf::STATE;
                shader.insts.dst[inst] = d;
            }
            (Stage::Fs, Opcode::Shr, [a, b])
                if (printed_scalar(a, 1, Type::UB) || printed_scalar(a, 2, Type::UB))
                    && b.file == RegFile::Imm
                    && b.ty == Type::V =>
            {
                let dword = match b.imm_bits() {
                    HELPER_INVOCATION_SHIFTS => crate::message::sample_mask::DISPATCH_MASK_DWORD,
                    SAMPLE_ID_SHIFTS => 0,
                    _ => continue,
                };
                a.offset = 4 * dword;
                a.region = Region::new(1, 8, 0);
                a.stride = 0;
            }
            _ => continue,
        }
        changed += 1;
    }
    changed
}

#[cfg(test)]
mod tests {
    use crate::import::{import_mesa_dump, DumpName};
    use crate::operand::Region;
    use crate::target::Gen;

    fn first_src(dump: &str, name: &str, inst: usize) -> crate::operand::Operand {
        let s = import_mesa_dump(dump, &DumpName::parse(name).unwrap(), "t", Gen::Gen9).unwrap();
        let i = s.insts.opcode.indices().nth(inst).unwrap();
        s.srcs(i)[0]
    }

    /// A compute shader's work-group ID components come from r0.1, r0.6 and r0.7, the
    /// barrier ID from r0.2; the EOT header copy `g0:UD` keeps its place.
    #[test]
    fn compute_header_fields() {
        let dump = "\
{  4}    0: mov(16) vgrf1+0.0:UD, g0<0>:UD 
{  4}    1: mov(16) vgrf1+2.0:UD, g0<0>:UD 
{  4}    2: mov(16) vgrf1+4.0:UD, g0<0>:UD 
{  4}    3: and(1) vgrf2<0>:UD, g0<0>:UD, 2399141888u NoMask group0 
{  4}    4: mov(8) vgrf3:UD, g0:UD NoMask 
Maximum 4 registers live at once.
";
        let offsets: Vec<u32> = (0..5)
            .map(|i| first_src(dump, "CS16-GLSL1-00-00-start", i).offset)
            .collect();
        assert_eq!(offsets, [4, 24, 28, 8, 0]);
    }

    /// A TCS's instance number is masked from r0.2 and its primitive ID is r0.1; its
    /// patch URB handle, retyped UD, stays r0.0.
    #[test]
    fn tessellation_header_fields() {
        let dump = "\
{  1}    0: and(8) vgrf0:UD, g0<0>:UD, 16646144u 
{  1}    1: mov(8) vgrf1:F, g0<0>:F 
{  1}    2: mov(8) vgrf2:UD, g0<0>:UD 
Maximum 4 registers live at once.
";
        let offsets: Vec<u32> = (0..3)
            .map(|i| first_src(dump, "TCS8-GLSL1-00-00-start", i).offset)
            .collect();
        assert_eq!(offsets, [8, 4, 0]);
    }

    /// Haswell's compute shader with shared memory: the SLM index copy is sr0.1 from the
    /// high word of r0.0; on Skylake the same line (which Mesa does not emit) is left.
    #[test]
    fn haswell_slm_index() {
        let dump = "\
{  0}    0: mov(1) arf0.4:UW, g0<0>:UW NoMask group0 
Maximum 1 registers live at once.
";
        let name = DumpName::parse("CS16-GLSL1-00-00-start").unwrap();
        let s = import_mesa_dump(dump, &name, "t", Gen::Gen75).unwrap();
        let i = s.insts.opcode.indices().next().unwrap();
        let d = s.insts.dst[i];
        assert_eq!(
            (d.nr, d.offset, s.srcs(i)[0].offset),
            (crate::operand::arf::STATE, 4, 2)
        );
        let s = import_mesa_dump(dump, &name, "t", Gen::Gen9).unwrap();
        assert_eq!(s.insts.dst[i].nr, crate::operand::arf::UNKNOWN);
    }

    /// `gl_HelperInvocation` reads the pixel-mask byte r1.7 (r2.7 for channels 16-31)
    /// with `<1;8,0>`; a shift by another immediate is left as printed.
    #[test]
    fn helper_invocation_mask_bytes() {
        let dump = "\
{  4}    0: shr(16) vgrf1+0.0:UW, g1<0>:UB, 76543210V group0 
{  4}    1: shr(16) vgrf1+1.0:UW, g2<0>:UB, 76543210V group16 
{  4}    2: shr(16) vgrf2:UW, g1<0>:UB, 12345678V group0 
Maximum 4 registers live at once.
";
        let a = first_src(dump, "FS32-GLSL1-00-00-start", 0);
        let b = first_src(dump, "FS32-GLSL1-00-00-start", 1);
        let c = first_src(dump, "FS32-GLSL1-00-00-start", 2);
        assert_eq!((a.nr, a.offset, a.region), (1, 28, Region::new(1, 8, 0)));
        assert_eq!((b.nr, b.offset, b.region), (2, 28, Region::new(1, 8, 0)));
        assert_eq!((c.offset, c.region), (0, Region::for_stride(0)));
    }
}
