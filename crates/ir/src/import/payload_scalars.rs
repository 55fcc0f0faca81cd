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
//! Reads Mesa emits with a field known only at compile time are not put back by
//! [`restore`]: a single-patch TCS's or an instanced GS's input-vertex URB handle read by
//! constant index, `MOV(icp_handle, component(icp_handle_start, vertex))`, whose vertex
//! is a NIR constant. The final code shows it (`mov(8) g6<1>UD g1.3<0,1,0>UD` before the
//! URB read send): [`recover_icp_handles`] takes it from there, matching the dump's URB
//! reads to the listing's as the URB offsets are matched, except among reads Mesa's
//! scheduler may have exchanged (between the same two URB writes) that name different
//! handles in the final code: which is which is then not known.

use crate::import::listing::UrbMessage;
use crate::opcode::Opcode;
use crate::operand::{Operand, RegFile, Region};
use crate::shader::{Shader, Stage};
use crate::thread_payload::{
    CS_WORK_GROUP_ID_DWORDS, GS_INSTANCED_ICP_HANDLE_REGS, HELPER_INVOCATION_SHIFTS,
    R0_BARRIER_AND_INSTANCE_DWORD, SAMPLE_ID_SHIFTS, TCS_SINGLE_PATCH_ICP_HANDLE_REGS,
    TESS_PRIMITIVE_ID_DWORD,
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
                if dst.file != RegFile::Vgrf || !dst.offset.is_multiple_of(comp_bytes) {
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

/// Whether Mesa puts input-vertex URB handles, one a dword, in payload register `nr` of a
/// thread of `stage` ([`crate::thread_payload`]).
fn holds_icp_handles(stage: Stage, nr: u32) -> bool {
    match stage {
        Stage::Tcs => TCS_SINGLE_PATCH_ICP_HANDLE_REGS.contains(&nr),
        Stage::Gs => GS_INSTANCED_ICP_HANDLE_REGS.contains(&nr),
        _ => false,
    }
}

/// Puts back the vertex of each input-vertex URB handle a Mesa 22.3 scalar TCS or GS
/// start dump reads by constant index (`mov vgrfH:UD, gN<0>:UD` feeding the handle of a
/// `urb_read_logical`; see the module doc), from `urb`: the URB sends of the program's
/// final code, in the order [`crate::import::listing::recover_urb_offsets`] matched to
/// the dump's logical URB messages. The k-th logical message takes the dword of the k-th
/// send's [`UrbMessage::handle`] where that is a dword of the same register `gN`, and `gN`
/// is one Mesa keeps such handles in. A copy is changed only when it is the handle
/// register's one write, every read it feeds names the same dword, and no read the
/// scheduler may have exchanged with one of them names another handle; otherwise (or
/// when the sequences do not have the same length) it stays as printed, which reads the
/// register's first dword. With `matched` the pairs of `urb` are proven
/// ([`crate::import::dataflow_match`]: each send and whether it is known to be that
/// message): the scheduler's exchanges are then no doubt, and a message not known gives
/// no dword. How many copies it changed.
pub fn recover_icp_handles(shader: &mut Shader, urb: &[UrbMessage]) -> usize {
    let all: Vec<(UrbMessage, bool)> = urb.iter().map(|&m| (m, true)).collect();
    recover_icp_handles_matched(shader, &all, false)
}

/// [`recover_icp_handles`] with the matching's certainty (see there).
pub fn recover_icp_handles_matched(
    shader: &mut Shader,
    matched: &[(UrbMessage, bool)],
    proven: bool,
) -> usize {
    let urb: Vec<UrbMessage> = matched.iter().map(|(m, _)| *m).collect();
    let urb = &urb[..];
    let stage = shader.stage;
    if !matches!(stage, Stage::Tcs | Stage::Gs) || shader.backend != crate::shader::Backend::Scalar
    {
        return 0;
    }
    let logical: Vec<crate::Inst> = shader
        .layout
        .insts()
        .filter(|&i| {
            matches!(
                shader.insts.opcode[i],
                Opcode::UrbReadLogical | Opcode::UrbWriteLogical
            )
        })
        .collect();
    if logical.len() != urb.len() {
        return 0;
    }
    // Mesa's scheduler may exchange URB reads (sends without side effects: the TES of
    // piglit-coverage-skl's tcs-output-array-*-index-wr have theirs reordered in the final
    // code) between its barriers (brw_schedule_instructions.cpp `is_scheduling_barrier`:
    // control flow and instructions with side effects, URB writes among them). So the
    // k-th read of the dump is the k-th send only up to such an exchange: a read is taken
    // only where every read between the same URB writes and control flow (fewer
    // barriers than Mesa's, so runs at least as long) names the same handle in the final
    // code.
    let mut run = 0u32;
    let mut runs = Vec::with_capacity(logical.len());
    for inst in shader.layout.insts() {
        let op = shader.insts.opcode[inst];
        if op == Opcode::UrbWriteLogical || op.control_flow() != crate::opcode::ControlFlow::None {
            run += 1;
        }
        if op == Opcode::UrbReadLogical {
            runs.push(Some(run));
        } else if op == Opcode::UrbWriteLogical {
            runs.push(None);
        }
    }
    let exchangeable = |k: usize| {
        if proven {
            return !matched[k].1;
        }
        runs[k].is_some_and(|r| {
            runs.iter()
                .zip(urb)
                .any(|(x, m)| *x == Some(r) && m.handle != urb[k].handle)
        })
    };
    // Each copy, with the dword its reads name; `None` once two disagree or one does not
    // show it.
    let mut found: Vec<(crate::Inst, Option<u32>)> = Vec::new();
    for (k, (&read, m)) in logical.iter().zip(urb).enumerate() {
        if shader.insts.opcode[read] != Opcode::UrbReadLogical || !m.read {
            continue;
        }
        let Some(&handle) = shader.srcs(read).first() else {
            continue;
        };
        if handle.file != RegFile::Vgrf || handle.offset != 0 {
            continue;
        }
        let mut writers = shader.layout.insts().filter(|&i| {
            let d = shader.insts.dst[i];
            d.file == RegFile::Vgrf && d.nr == handle.nr
        });
        let (Some(copy), None) = (writers.next(), writers.next()) else {
            continue;
        };
        let src = match (shader.insts.opcode[copy], shader.srcs(copy)) {
            (Opcode::Mov, [a]) => *a,
            _ => continue,
        };
        if shader.insts.dst[copy].offset != 0
            || !holds_icp_handles(stage, src.nr)
            || !printed_scalar(&src, src.nr, Type::UD)
        {
            continue;
        }
        let dword = m
            .handle
            .and_then(|(n, dword)| (n == src.nr).then_some(dword))
            .filter(|_| !exchangeable(k));
        match found.iter_mut().find(|(c, _)| *c == copy) {
            Some((_, d)) if *d != dword => *d = None,
            Some(_) => {}
            None => found.push((copy, dword)),
        }
    }
    let mut changed = 0;
    for (copy, dword) in found {
        if let (Some(k), [a]) = (dword, shader.srcs_mut(copy)) {
            a.offset = 4 * k;
            changed += 1;
        }
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

    /// A TCS's input-vertex handles read by constant index take the dword of the copy
    /// before the matching URB read in the final code; the dword stays unknown (as
    /// printed) where that copy is predicated, reads another register than the dump's,
    /// or another write to the payload register may come between (a send's response),
    /// and where reads the scheduler may have exchanged (no URB write between them)
    /// name different handles.
    #[test]
    fn tcs_input_vertex_handles_from_the_listing() {
        let write = "urb_write_logical(8) (mlen: 3) (null):UD, g0<0>:UD(null):UD, 65536u, 0u";
        let read = |copy: u32, nr: u32| {
            format!(
                "mov(8) vgrf{copy}:UD, g{nr}<0>:UD \n\
                 urb_read_logical(8) (mlen: 1) vgrf{}:F, vgrf{copy}:UD(null):UD(null):UD(null):UD \n",
                copy + 1
            )
        };
        let dump_lines = [
            read(0, 1),
            format!("{write} \n"),
            read(2, 2),
            format!("{write} \n"),
            read(4, 1),
            format!("{write} \n"),
            read(6, 1),
            format!("{write} \n"),
            read(8, 1),
            format!("{write} \n"),
            read(10, 1),
            read(12, 1),
            format!("{write} \n"),
            read(14, 1),
            read(16, 1),
        ]
        .concat();
        let dump = dump_lines
            .lines()
            .enumerate()
            .map(|(i, l)| format!("{{  5}} {i:4}: {l}\n"))
            .collect::<String>()
            + "Maximum 5 registers live at once.\n";
        let code = |asm: &str| format!("{}{asm}\n", "00 ".repeat(16));
        let send = |dst: u32, payload: u32| {
            format!(
                "{}                            urb MsgDesc: offset 2 SIMD8 read mlen 1 rlen 3  {{ align1 1Q }};\n",
                code(&format!("send(8) g{dst}<1>UW g{payload}<0,1,0>UD 0x02380028"))
            )
        };
        let sends = format!(
            "{}                            urb MsgDesc: offset 1 SIMD8 write masked mlen 2 ex_mlen 1 rlen 0 {{ align1 1Q }};\n",
            code("sends(8) nullUD g53UD g55UD 0x04088017 0x00000040")
        );
        let copy = |dst: u32, src: &str| {
            code(&format!(
                "mov(8) g{dst}<1>UD {src}<0,1,0>UD {{ align1 1Q }};"
            ))
        };
        let listing = [
            "Native code for unnamed tessellation control shader GLSL1 (sha1 0)\n".to_string(),
            "SIMD8 shader: 30 instructions. 0 loops. 10 cycles. 0:0 spills:fills, 15 sends, ...\n"
                .to_string(),
            "   START B0 (10 cycles)\n".to_string(),
            copy(8, "g1.1"),
            send(30, 8),
            sends.clone(),
            copy(9, "g2.5"),
            send(31, 9),
            sends.clone(),
            copy(10, "g1.3"),
            code("(+f0.0) mov(8) g10<1>UD g1.4<0,1,0>UD { align1 1Q };"),
            send(32, 10),
            sends.clone(),
            copy(11, "g2.2"),
            send(33, 11),
            sends.clone(),
            copy(13, "g1.6"),
            send(12, 4),
            send(34, 13),
            sends.clone(),
            copy(14, "g1.6"),
            copy(15, "g1.7"),
            send(35, 14),
            send(36, 15),
            sends.clone(),
            copy(16, "g1.5"),
            send(37, 16),
            send(38, 16),
            "   END B0\n".to_string(),
        ]
        .concat();
        let programs = crate::import::listing::listed_programs(&listing).unwrap();
        let handles: Vec<_> = programs[0]
            .urb
            .iter()
            .filter(|m| m.read)
            .map(|m| m.handle)
            .collect();
        assert_eq!(
            handles,
            [
                Some((1, 1)),
                Some((2, 5)),
                None,
                Some((2, 2)),
                None,
                None,
                Some((1, 6)),
                Some((1, 7)),
                Some((1, 5)),
                Some((1, 5))
            ]
        );
        // The listing's read of g4 (no copy in the block) is one the dump has not:
        // dropped, the sequences have the same length again.
        let mut urb = programs[0].urb.clone();
        urb.remove(8);
        let name = DumpName::parse("TCS8-GLSL1-00-00-start").unwrap();
        let mut s = import_mesa_dump(&dump, &name, "t", Gen::Gen9).unwrap();
        crate::import::listing::recover_urb_offsets(&mut s, &urb).unwrap();
        assert_eq!(super::recover_icp_handles(&mut s, &urb), 4);
        let offsets: Vec<u32> = s
            .insts
            .opcode
            .indices()
            .filter(|&i| s.insts.opcode[i] == crate::opcode::Opcode::Mov)
            .map(|i| s.srcs(i)[0].offset)
            .collect();
        assert_eq!(offsets, [4, 20, 0, 0, 0, 0, 0, 20, 20]);
        // Sequences of different lengths: nothing is taken.
        let mut s = import_mesa_dump(&dump, &name, "t", Gen::Gen9).unwrap();
        assert_eq!(super::recover_icp_handles(&mut s, &programs[0].urb), 0);
        // In a GS, g1 holds the output URB handles, not input vertices': only the read of
        // g2 is one.
        let gs = DumpName::parse("GS8-GLSL1-00-00-start").unwrap();
        let mut s = import_mesa_dump(&dump, &gs, "t", Gen::Gen9).unwrap();
        crate::import::listing::recover_urb_offsets(&mut s, &urb).unwrap();
        assert_eq!(super::recover_icp_handles(&mut s, &urb), 1);
    }
}
