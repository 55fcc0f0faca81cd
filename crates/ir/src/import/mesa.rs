//! Importing Mesa's back-end IR dumps (`INTEL_DEBUG=optimizer`) as they are:
//! * Mesa 22.3 scalar dumps: `{ 12}   17: add(16) vgrf7:F, ...`, a `Maximum N registers live
//!   at once.` line at the end, null sources printed without the `, ` before them;
//! * Mesa 22.3 vec4 dumps (Haswell VS/GS): no prefix, writemasks and swizzles, `m` registers;
//! * Mesa 25 dumps: `START Bn`/`END Bn` lines, indentation, `%N`/`vN` registers, regions
//!   written out, typed immediates.
//!
//! Blocks are rebuilt from the control flow, VGRF layouts and `size_written` are inferred
//! ([`super::infer`]).

use super::infer::{infer, InstUse};
use super::name::DumpName;
use crate::cfg::split_blocks;
use crate::entities::Inst;
use crate::error::ParseError;
use crate::operand::RegFile;
use crate::shader::{Backend, Shader};
use crate::target::Gen;
use crate::text::cursor::Cursor;
use crate::text::inst::{parse_inst, Dialect, ParsedInst, Syntax};
use crate::text::lines::lines;

/// The largest VGRF the importer accepts: 1024 registers of 32 bytes. A bound in bytes,
/// the same whatever the target's register size (it only keeps layouts in range).
pub const MAX_VGRF_BYTES: u32 = 32 * 1024;

/// The largest VGRF number a dump may use. Every number up to the largest used gets a
/// layout, and the imported shader declares each: a bound keeps that in proportion to
/// real input. Mesa numbers VGRFs densely as it allocates them; the shared corpora stay
/// below 3,000 (shaderdb-skl, dolphin's ubershaders), this is nearly a hundred times that.
pub const MAX_VGRF_NUMBER: u32 = (1 << 18) - 1;

/// Whether a dump is in Mesa 25's syntax (brw_print.cpp, which prints the blocks: its
/// first line is `START B0`) rather than Mesa 22.3's (`dump_instruction`).
pub fn is_mesa25_dump(text: &str) -> bool {
    lines(text)
        .map(str::trim)
        .find(|l| !l.is_empty())
        .is_some_and(|l| l.starts_with("START B"))
}

/// Imports one Mesa dump. `name` becomes the shader's name.
pub fn import_mesa_dump(
    text: &str,
    dump: &DumpName,
    name: &str,
    target: Gen,
) -> Result<Shader, ParseError> {
    let backend = dump.backend();
    let mesa25 = is_mesa25_dump(text);
    let dialect = Dialect {
        syntax: if mesa25 {
            Syntax::Mesa25
        } else {
            Syntax::Mesa22
        },
        align16: backend == Backend::Vec4,
    };
    let width = dump.width.unwrap_or(8);
    let mut shader = Shader::new(name, dump.stage, backend, width, target);
    // Nearly every line is an instruction, with three sources at most but for a few
    // payload builders: the columns are sized once from the line count, with room for
    // the instructions lowering adds (half as many again: growing each column when the
    // first pass adds one copies all of them).
    let line_count = memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1;
    shader.reserve_insts(
        line_count + line_count / 2,
        3 * (line_count + line_count / 2),
    );
    let mut parsed = ParsedInst::default();
    let mut shown: Vec<u64> = Vec::with_capacity(line_count);
    let mut sends: Vec<(u8, u8)> = Vec::with_capacity(line_count);
    let mut max_vgrf: Option<u32> = None;
    let mut ended = false;
    for (i, line) in lines(text).enumerate() {
        let ln = i as u32 + 1;
        let mut c = Cursor::new(line, ln);
        c.skip_spaces();
        if c.at_end() {
            continue;
        }
        if ended {
            return Err(c.error(
                "expected end of file after the `Maximum ... registers live at once.` line",
            ));
        }
        if c.looking_at("Maximum ") && c.rest().trim_end().ends_with("registers live at once.") {
            ended = true;
            continue;
        }
        if mesa25 && (c.looking_at("START B") || c.looking_at("END B")) {
            continue;
        }
        if c.eat("{") {
            // `{ 12}   17: ` : register pressure, then the instruction's index.
            c.skip_spaces();
            c.skip_number("a register pressure")?;
            c.expect("}")?;
            c.skip_spaces();
            c.skip_number("an instruction index")?;
            c.expect(":")?;
        }
        parse_inst(&mut c, dialect, &mut parsed)?;
        // The destination, then the sources (a plain loop: a chained iterator costs more).
        check_vgrf_access(&parsed.dst, &parsed, ln, &mut max_vgrf)?;
        for op in &parsed.srcs {
            check_vgrf_access(op, &parsed, ln, &mut max_vgrf)?;
        }
        shown.push(parsed.offset_shown);
        sends.push((parsed.mlen, parsed.ex_mlen));
        shader.create_inst(parsed.builder());
    }
    if !mesa25 && backend == Backend::Scalar {
        restore_pixel_setup(&mut shader);
        restore_dispatch_mask_setup(&mut shader);
        if dump.is_start() {
            super::payload_scalars::restore(&mut shader);
        }
        word_immediates(&mut shader);
        if dump.is_pre_register_allocate() {
            word_multipliers(&mut shader);
        }
    }
    super::timestamp::restore(&mut shader);
    if mesa25 && dump.is_start() {
        plns_as_linterps(&mut shader);
    }
    let count = max_vgrf.map_or(0, |m| m as usize + 1);
    let uses: Vec<InstUse<'_>> = shader
        .insts
        .opcode
        .indices()
        .map(|inst| InstUse {
            opcode: shader.insts.opcode[inst],
            exec_size: shader.insts.control[inst].exec_size as u32,
            dst: &shader.insts.dst[inst],
            srcs: shader.srcs(inst),
            offset_shown: shown[inst.index()],
            mlen: sends[inst.index()].0,
            ex_mlen: sends[inst.index()].1,
        })
        .collect();
    let (layouts, sizes) = infer(count, &uses, shader.reg_size());
    drop(uses);
    shader.vgrfs = layouts.into_iter().collect();
    shader.insts.size_written = sizes.into_iter().collect();
    let mut order: Vec<Inst> = shader.insts.opcode.indices().collect();
    if mesa25 && backend == Backend::Scalar {
        order = super::scalar_sources::widen(&mut shader, order);
    }
    shader.layout = split_blocks(&order, |i| shader.insts.opcode[i]);
    Ok(shader)
}

/// Checks that a VGRF operand `op` of `parsed` (on line `ln`) is in range, and counts it in
/// `max_vgrf`, the largest VGRF number met. Other operands pass.
#[inline]
fn check_vgrf_access(
    op: &crate::operand::Operand,
    parsed: &ParsedInst,
    ln: u32,
    max_vgrf: &mut Option<u32>,
) -> Result<(), ParseError> {
    if op.file != RegFile::Vgrf {
        return Ok(());
    }
    if op.nr > MAX_VGRF_NUMBER {
        return Err(ParseError::new(
            ln,
            1,
            format!(
                "vgrf{} is out of range: VGRF numbers go up to {MAX_VGRF_NUMBER}",
                op.nr
            ),
        ));
    }
    // Mesa's VGRFs are a few dozen registers at most; bounding them keeps every layout
    // field in range.
    let end = op.offset as u64 + op.span(parsed.control.exec_size as u32) as u64;
    if end > MAX_VGRF_BYTES as u64 {
        return Err(ParseError::new(
            ln,
            parsed.dst_col,
            format!(
                "access of vgrf{} ends at byte {end}, beyond {MAX_VGRF_BYTES} bytes",
                op.nr
            ),
        ));
    }
    *max_vgrf = Some(max_vgrf.map_or(op.nr, |m| m.max(op.nr)));
    Ok(())
}

/// Mesa 25 interpolates with `pln plane, barycentrics` from the start, where Mesa 22.3
/// has `linterp barycentrics, plane`, but its start IR gathers the barycentrics in
/// component order — all u, then all v (`load_payload %3, g2, g4, g3, g5` for SIMD16) —
/// not in the hardware's register pairs: until lowering puts the payload registers in
/// (its pre-RA `pln(16) ..., g2` reads the pairs), such a `pln` is a `linterp`, which the
/// lowering turns into the hardware instruction (`lower::linterp`). Only a `pln` whose
/// barycentrics are a VGRF: one reading fixed registers already reads the pairs.
fn plns_as_linterps(shader: &mut Shader) {
    use crate::opcode::Opcode;
    for inst in shader.insts.opcode.indices() {
        if shader.insts.opcode[inst] != Opcode::Pln {
            continue;
        }
        let srcs = shader.srcs_mut(inst);
        if let [plane, delta] = srcs {
            if delta.file == RegFile::Vgrf {
                std::mem::swap(plane, delta);
                shader.insts.opcode[inst] = Opcode::Linterp;
            }
        }
    }
}

/// Mesa 22.3's printer writes a word immediate as a dword (`fs_visitor::dump_instruction`
/// prints `UW` and `UD` as `%uu`, `W` and `D` as `%dd`), and `brw_imm_uw`/`brw_imm_w`
/// replicate the word into both halves: `add(8) vgrf0+0.16:UW, vgrf0:UW, 524296u` adds the
/// word 8. An immediate of an instruction with a 16-bit integer destination whose halves
/// are equal is taken as that word, so the instruction's execution type is what Mesa's was
/// (a dword immediate would make it a narrowing conversion).
fn word_immediates(shader: &mut Shader) {
    use crate::types::Type;
    for inst in shader.insts.opcode.indices() {
        if shader.insts.opcode[inst].alu_arity().is_none() {
            continue;
        }
        let dst_ty = shader.insts.dst[inst].ty;
        if !matches!(dst_ty, Type::W | Type::UW) {
            continue;
        }
        for s in shader.srcs_mut(inst) {
            let bits = s.imm_bits();
            let replicated = bits >> 32 == 0 && (bits & 0xffff) == (bits >> 16) & 0xffff;
            if s.file == RegFile::Imm && matches!(s.ty, Type::D | Type::UD) && replicated {
                let ty = if s.ty == Type::D { Type::W } else { Type::UW };
                *s = crate::operand::Operand::imm(ty, bits);
            }
        }
    }
}

/// Before gen8 a dword `mul` reads only the low word of its second source, and Mesa's
/// `lower_mul_dword_inst` (brw_fs.cpp, before the pre-RA dump) multiplies by an immediate
/// that fits a word with one `mul dst:D, a:D, brw_imm_w(v)` (`brw_imm_uw` for a UD
/// multiplier): the word replicated in both halves, which the printer writes as a dword
/// (`mul(8) vgrf960:D, vgrf953:D, 196611d` is `3W` in the final code). In a pre-RA dump of
/// a target without a dword multiply, such an immediate of a `mul` whose destination is not
/// the accumulator (`mul acc0:D, a:D, b:D` is Mesa's MULH, which relies on the low-word
/// read as it is) is taken as that word: as a dword, the product would be `a * 0x30003`
/// in the simulator, and the code would not be in hardware form
/// (`Target::has_integer_dword_mul`).
///
/// On gen8+ it is the other way round: `lower_mulh_inst` gives MULH's `mul acc0` a word
/// second source (`brw_imm_uw` for an immediate: `mul(8) acc0:D, vgrf7:D, 1305693651u`
/// is 0x4dd3), as the hardware multiplies whole dwords there; the `mach` keeps the dword.
fn word_multipliers(shader: &mut Shader) {
    use crate::opcode::Opcode;
    use crate::types::Type;
    let dword_mul = shader.target.target().has_integer_dword_mul;
    for inst in shader.insts.opcode.indices() {
        let dst = shader.insts.dst[inst];
        let to_acc = dst.file == RegFile::Arf && dst.nr == crate::operand::arf::ACCUMULATOR;
        if shader.insts.opcode[inst] != Opcode::Mul
            || !matches!(dst.ty, Type::D | Type::UD)
            || to_acc != dword_mul
        {
            continue;
        }
        let srcs = shader.srcs_mut(inst);
        let [a, b] = srcs else { continue };
        if !matches!(a.ty, Type::D | Type::UD) || b.file != RegFile::Imm {
            continue;
        }
        let bits = b.imm_bits() & 0xffff_ffff;
        let low = bits & 0xffff;
        // brw_imm_uw(w): w | w << 16; brw_imm_w(w): w | w << 16 with w sign-extended.
        let uw = low | low << 16;
        let w = (low as u16 as i16 as i32 as u32 as u64) | low << 16;
        let ty = match b.ty {
            Type::UD if bits == uw => Type::UW,
            Type::D if bits == w => Type::W,
            _ => continue,
        };
        *b = crate::operand::Operand::imm(ty, bits);
    }
}

/// Mesa 22.3's scalar printer writes a fixed-register source as `gN<hstride>` only: its
/// sub-register, vertical stride and width are not printed (`g24<0>:F` stands for several
/// push-constant components). Where Mesa's own code fixes the region, the importer puts it
/// back: the pixel-centre setup of `fs_visitor::emit_interpolation_setup_gfx6`
/// (brw_fs_visitor.cpp, gen8+ and SIMD8) adds `0x11001010V` to the subspan X/Y words of the
/// payload, `stride(suboffset(gN_uw, 4), 1, 4, 0)`: printed `gN<0>:UW`, it is `gN.4<1;4,0>`.
/// Before gen8 in SIMD16 and SIMD32 (Haswell's, "the source MUST span two registers"),
/// the same function adds X and Y apart, with the channels' mask: `0x10101010V` to
/// `stride(suboffset(gi_uw, 4), 2, 4, 0)` and `0x11001100V` to
/// `stride(suboffset(gi_uw, 5), 2, 4, 0)`: printed `gN<0>:UW`, they are `gN.4<2;4,0>` and
/// `gN.5<2;4,0>`.
fn restore_pixel_setup(shader: &mut Shader) {
    use crate::opcode::Opcode;
    use crate::operand::Region;
    use crate::types::Type;
    for inst in shader.insts.opcode.indices() {
        if shader.insts.opcode[inst] != Opcode::Add {
            continue;
        }
        let no_mask = shader.insts.control[inst].no_mask();
        let srcs = shader.srcs_mut(inst);
        let [a, b] = srcs else { continue };
        let is_payload_word = a.file == RegFile::FixedGrf
            && a.ty == Type::UW
            && a.offset == 0
            && a.region == Region::for_stride(0)
            && b.file == RegFile::Imm
            && b.ty == Type::V;
        if !is_payload_word {
            continue;
        }
        match (no_mask, b.imm_bits()) {
            (true, 0x1100_1010) => {
                a.offset = 8;
                a.region = Region::new(1, 4, 0);
            }
            (false, 0x1010_1010) => {
                a.offset = 8;
                a.region = Region::new(2, 4, 0);
            }
            (false, 0x1100_1100) => {
                a.offset = 10;
                a.region = Region::new(2, 4, 0);
            }
            _ => {}
        }
    }
}

/// The second region Mesa's code fixes: with `discard`, `fs_visitor::run_fs` (brw_fs.cpp)
/// copies the dispatch mask, `brw_vec1_grf(1 or 2, 7)` retyped UW, into the sample-mask
/// flag: printed `mov(1) f1.0:UW, g1<0>:UW NoMask`, the source is `g1.14<0;1,0>:UW`.
fn restore_dispatch_mask_setup(shader: &mut Shader) {
    use crate::opcode::Opcode;
    use crate::operand::{arf, Region};
    use crate::types::Type;
    for inst in shader.insts.opcode.indices() {
        let dst = shader.insts.dst[inst];
        let ctl = shader.insts.control[inst];
        if shader.insts.opcode[inst] != Opcode::Mov
            || ctl.exec_size != 1
            || !ctl.no_mask()
            || dst.file != RegFile::Arf
            || dst.nr & 0xf0 != arf::FLAG
        {
            continue;
        }
        let [src] = shader.srcs_mut(inst) else {
            continue;
        };
        if src.file == RegFile::FixedGrf
            && matches!(src.nr, 1 | 2)
            && src.ty == Type::UW
            && src.offset == 0
            && src.region == Region::for_stride(0)
        {
            src.offset = 28;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Type;

    /// Haswell's SIMD16 pixel-centre setup adds X and Y apart (brw_fs_visitor.cpp
    /// `emit_interpolation_setup_gfx6`, before gen8): `g1<0>:UW` is `g1.4<2;4,0>` for X
    /// (`0x10101010V`) and `g1.5<2;4,0>` for Y (`0x11001100V`); gen8's single NoMask add
    /// reads `g1.4<1;4,0>`; any other add of a `g1<0>:UW` is left as printed.
    #[test]
    fn gen7_pixel_setup_regions() {
        let dump = "\
{  1}    0: add(16) vgrf2:UW, g1<0>:UW, 10101010V 
{  2}    1: add(16) vgrf3:UW, g1<0>:UW, 11001100V 
{  3}    2: add(32) vgrf4:UW, g1<0>:UW, 11001010V NoMask 
{  4}    3: add(16) vgrf5:UW, g1<0>:UW, 11001100V NoMask 
Maximum 4 registers live at once.
";
        let name = DumpName::parse("FS16-GLSL1-00-00-start").unwrap();
        let s = import_mesa_dump(dump, &name, "t", Gen::Gen75).unwrap();
        let src = |k: usize| {
            let o = s.srcs(Inst::from_usize(k))[0];
            (o.offset, o.region)
        };
        use crate::operand::Region;
        assert_eq!(src(0), (8, Region::new(2, 4, 0)));
        assert_eq!(src(1), (10, Region::new(2, 4, 0)));
        assert_eq!(src(2), (8, Region::new(1, 4, 0)));
        assert_eq!(src(3), (0, Region::for_stride(0)));
    }

    /// Mesa's gen7 `mul` by a word immediate (`brw_imm_w(3)` printed `196611d`,
    /// `brw_imm_w(-2)` printed `-2d`, `brw_imm_uw(5)` printed `327685u`) is imported as the
    /// word in a pre-RA dump of a target without a dword multiply, and passes
    /// verify_hardware; MULH's `mul acc0:D` (which verify_hardware
    /// accepts) and a start dump's `mul` stay dwords.
    #[test]
    fn word_multipliers_of_pre_ra_dumps() {
        let dump = "\
{  4}    0: mul(8) vgrf1:D, vgrf0:D, 196611d 
{  4}    1: mul(8) vgrf2:D, vgrf0:D, -2d 
{  4}    2: mul(8) vgrf3:UD, vgrf0:UD, 327685u 
{  4}    3: mul(8) acc0:D, vgrf0:D, 274877907d 
{  4}    4: mul(8) vgrf4:D, vgrf0:D, 70000d 
Maximum 4 registers live at once.
";
        let imm = |s: &Shader, k: usize| s.srcs(Inst::from_usize(k))[1];
        let pre_ra = DumpName::parse("FS8-GLSL1-90-90-pre_register_allocate").unwrap();
        let s = import_mesa_dump(dump, &pre_ra, "t", Gen::Gen75).unwrap();
        assert_eq!(
            (imm(&s, 0).ty, imm(&s, 0).imm_bits() & 0xffff),
            (Type::W, 3)
        );
        assert_eq!(
            (imm(&s, 1).ty, imm(&s, 1).imm_bits() & 0xffff),
            (Type::W, 0xfffe)
        );
        assert_eq!(
            (imm(&s, 2).ty, imm(&s, 2).imm_bits() & 0xffff),
            (Type::UW, 5)
        );
        assert_eq!(imm(&s, 3).ty, Type::D);
        assert_eq!(imm(&s, 4).ty, Type::D);
        let flagged: Vec<_> = crate::verify::verify_hardware(&s)
            .into_iter()
            .filter(|e| e.msg.contains("has_integer_dword_mul"))
            .filter_map(|e| e.inst)
            .collect();
        assert_eq!(flagged, [Inst::from_usize(4)]);
        // Gen8 multiplies dwords; a start dump is not lowered yet.
        let s = import_mesa_dump(dump, &pre_ra, "t", Gen::Gen8).unwrap();
        assert_eq!(imm(&s, 0).ty, Type::D);
        // Gen8's MULH: `mul acc0` by brw_imm_uw(0x4dd3).
        let mulh = "\
{  4}    0: mul(8) acc0:D, vgrf0:D, 1305693651u 
{  4}    1: mach(8) vgrf1:D, vgrf0:D, 274877907d 
Maximum 4 registers live at once.
";
        let s = import_mesa_dump(mulh, &pre_ra, "t", Gen::Gen9).unwrap();
        assert_eq!(
            (imm(&s, 0).ty, imm(&s, 0).imm_bits() & 0xffff),
            (Type::UW, 0x4dd3)
        );
        assert_eq!(imm(&s, 1).ty, Type::D);
        let start = DumpName::parse("FS8-GLSL1-00-00-start").unwrap();
        let s = import_mesa_dump(dump, &start, "t", Gen::Gen75).unwrap();
        assert_eq!(imm(&s, 0).ty, Type::D);
    }
}
