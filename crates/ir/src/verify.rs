//! The verifier: checks a shader's invariants and reports every violation it finds.
//!
//! Invariants checked:
//! 1. **Layout**: every instruction in the layout exists in the columns and appears once;
//!    block boundaries are exactly where structured control flow puts them
//!    ([`crate::cfg::split_blocks`]); control flow nests (`if`/`else`/`endif`,
//!    `do`/`while`, `break`/`cont` inside a loop).
//! 2. **Execution control**: the execution size is 1, 2, 4, 8, 16 or 32 and at most the
//!    target's maximum; the channel group is a multiple of the execution size (or of 8 for
//!    wider groups) and `group + exec_size <= 32`; the flag subregister exists on the target.
//! 3. **Operands**: destinations are not immediates, uniforms or attributes; registers are
//!    in range (VGRFs declared, fixed GRFs below `grf_count` — a message's fixed-register
//!    payload by its first element, its length being the message's —, MRFs below `mrf_count`);
//!    immediates have no source modifiers; types exist on the target (HF and Q/UQ from
//!    gen8, `Target::has_hf`, `Target::has_64bit_int`); vector immediate types (V, UV, VF) appear only as
//!    immediates; hardware regions are legal (width 1, 2, 4, 8 or 16; hstride 0, 1, 2 or 4;
//!    vstride 0, 1, 2, 4, 8, 16 or 32).
//! 4. **VGRF accesses**: every access with a known size stays inside its VGRF, and no access
//!    touches padding bytes (the layout rule of seed 003): a destination covers
//!    the bytes from its first to its last element (`size_written` for messages and
//!    payload builders), a source likewise. Sources of message instructions and payload
//!    builders, whose size depends on the message, are checked for their start only; a
//!    message may read or write whole components, padding included.
//! 5. **Opcodes**: a plain ALU opcode has exactly as many non-null sources as its arity; only
//!    message opcodes carry message fields (mlen, ex_mlen, descriptor); `EOT` only on
//!    messages.
//!
//! 6. **Hardware form** ([`verify_hardware`], for lowered code): every instruction the
//!    target's width rules cover ([`crate::width_rules`]) is no wider than they allow; the
//!    error names the rule, its source and the target; logical messages are held to their
//!    message widths; no 32x32-bit integer `mul` where the target multiplies dwords by
//!    words only; no `send` that ends the thread reads its payload from a fixed register
//!    below [`Target::EOT_PAYLOAD_FIRST_GRF`]; immediates only where the target takes
//!    them (64-bit ones from gen8 or in Haswell's `dim`, none in three-source or — before
//!    gen8 — math instructions, only the second of two sources); every ALU source a
//!    region the instruction may read ([`crate::region_rules`]).
//!
//! Errors are values ([`VerifyError`]) naming the instruction and operand.

use crate::cfg::{split_blocks, Cfg};
use crate::entities::Inst;
use crate::operand::{Operand, RegFile, Region};
use crate::shader::Shader;
use crate::target::Target;

/// Which operand an error is about.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    Dst,
    Src(u32),
}

/// One violated invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    pub inst: Option<Inst>,
    pub slot: Option<Slot>,
    pub msg: String,
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(i) = self.inst {
            write!(f, "{i}")?;
            match self.slot {
                Some(Slot::Dst) => write!(f, " dst")?,
                Some(Slot::Src(s)) => write!(f, " src{s}")?,
                None => {}
            }
            write!(f, ": ")?;
        }
        f.write_str(&self.msg)
    }
}

/// [`verify`], plus the hardware-form rules lowered code must meet (invariant 6).
pub fn verify_hardware(shader: &Shader) -> Vec<VerifyError> {
    let mut errs = verify(shader);
    errs.extend(hardware_form_errors(shader));
    errs
}

/// The hardware-form rules alone, without [`verify`]'s: for a caller that has verified
/// the shader already (the compile driver, which checks the IR and then the hardware form
/// of the same result, and would otherwise walk it through `verify` twice). For vec4
/// code: the width rules and the DF Align16 rules ([`crate::df_align16::broken_rule`]);
/// the Align1 region and immediate rules are the scalar back end's.
pub fn hardware_form_errors(shader: &Shader) -> Vec<VerifyError> {
    let mut errs = Vec::new();
    for inst in shader.layout.insts() {
        let exec = shader.insts.control[inst].exec_size as u32;
        let op = shader.insts.opcode[inst];
        if !op.is_hardware() && crate::generator_expanded::expansion(shader.backend, op).is_none() {
            errs.push(VerifyError {
                inst: Some(inst),
                slot: None,
                msg: format!(
                    "`{}` is still logical: neither an EU instruction nor one the {} code \
                     generator expands (eubatch_ir::generator_expanded)",
                    op.name(),
                    match shader.backend {
                        crate::shader::Backend::Scalar => "scalar",
                        crate::shader::Backend::Vec4 => "vec4",
                    }
                ),
            });
            continue;
        }
        if let (width, Some(rule)) = crate::width_rules::max_width(shader, inst) {
            if width < exec {
                errs.push(VerifyError {
                    inst: Some(inst),
                    slot: None,
                    msg: format!(
                        "`{}` at SIMD{exec} breaks the rule \"{}\" on {}: SIMD{width} at most ({})",
                        shader.insts.opcode[inst].name(),
                        rule.name,
                        shader.target.name(),
                        rule.source
                    ),
                });
            }
        }
        // A 32-bit by 32-bit integer multiply where the hardware only has dword by word
        // (scalar code: vec4 code, not lowered yet, multiplies through the accumulator;
        // so does Mesa's gen7 MULH, `mul acc0:D, a:D, b:D`, which relies on the hardware
        // reading b's low word, as the simulator does).
        let dword = |t: crate::Type| matches!(t, crate::Type::D | crate::Type::UD);
        let srcs = shader.srcs(inst);
        let dst = shader.insts.dst[inst];
        if shader.insts.opcode[inst] == crate::Opcode::Mul
            && shader.backend == crate::shader::Backend::Scalar
            && !shader.target.target().has_integer_dword_mul
            && !(dst.file == RegFile::Arf && dst.nr == crate::operand::arf::ACCUMULATOR)
            && dword(dst.ty)
            && srcs.len() == 2
            && srcs.iter().all(|s| dword(s.ty))
        {
            errs.push(VerifyError {
                inst: Some(inst),
                slot: None,
                msg: format!(
                    "a 32x32-bit integer `mul` on {}, which multiplies dwords by words only \
                     (Target::has_integer_dword_mul; Mesa lower_mul_dword_inst)",
                    shader.target.name()
                ),
            });
        }
        verify_immediates(shader, inst, &mut errs);
        if shader.backend == crate::shader::Backend::Vec4 {
            if let Some(rule) = crate::df_align16::broken_rule(shader, inst) {
                err(
                    &mut errs,
                    inst,
                    None,
                    format!(
                        "`{}` on {}: a DF Align16 rule: {rule}",
                        shader.insts.opcode[inst].name(),
                        shader.target.name()
                    ),
                );
            }
        }
        if shader.backend == crate::shader::Backend::Scalar {
            if let Some(rule) = crate::region_rules::dst_breaks(shader, inst) {
                err(
                    &mut errs,
                    inst,
                    Some(Slot::Dst),
                    format!(
                        "`{}` on {}: the destination breaks the region rule {rule}",
                        shader.insts.opcode[inst].name(),
                        shader.target.name()
                    ),
                );
            }
            for k in 0..srcs.len() {
                if let Some(rule) = crate::region_rules::broken_rule(shader, inst, k) {
                    err(
                        &mut errs,
                        inst,
                        Some(Slot::Src(k as u32)),
                        format!(
                            "`{}` on {}: source {k} breaks the region rule \"{}\" ({})",
                            shader.insts.opcode[inst].name(),
                            shader.target.name(),
                            rule.name,
                            rule.source
                        ),
                    );
                }
            }
        }
        if shader.insts.opcode[inst] == crate::Opcode::Send && shader.insts.control[inst].eot() {
            let (p1, p2) = crate::message::send_payloads(srcs);
            for p in [p1, p2].into_iter().flatten() {
                if p.file == RegFile::FixedGrf && p.nr < Target::EOT_PAYLOAD_FIRST_GRF {
                    errs.push(VerifyError {
                        inst: Some(inst),
                        slot: None,
                        msg: format!(
                            "a thread-ending `send` reads its payload from g{}: it must lie in \
                             g{}-g127 (Target::EOT_PAYLOAD_FIRST_GRF), so it must be a VGRF \
                             before register allocation",
                            p.nr,
                            Target::EOT_PAYLOAD_FIRST_GRF
                        ),
                    });
                }
            }
        }
    }
    errs
}

/// Where an ALU instruction may take an immediate: the target's rules on 64-bit
/// immediates, three-source and math instructions, and the second-source-only rule.
fn verify_immediates(shader: &Shader, inst: Inst, errs: &mut Vec<VerifyError>) {
    use crate::Opcode;
    let t = shader.target.target();
    let op = shader.insts.opcode[inst];
    let Some(arity) = op.alu_arity() else {
        return;
    };
    if shader.backend != crate::shader::Backend::Scalar {
        return;
    }
    let math = op.is_math();
    let srcs = shader.srcs(inst);
    let present = srcs.iter().filter(|s| !s.is_bad()).count();
    for (k, s) in srcs.iter().enumerate() {
        if s.file != RegFile::Imm {
            continue;
        }
        let broken = if s.ty.size() == 8 && !t.has_64bit_immediates && op != Opcode::Dim {
            Some("a 64-bit immediate, which the target has not (Target::has_64bit_immediates; only Haswell's `dim` takes one)")
        } else if s.ty.size() == 8 && Target::WIDE_IMMEDIATE_ONLY_ALONE && present > 1 {
            Some("a 64-bit immediate beside another source (Target::WIDE_IMMEDIATE_ONLY_ALONE)")
        } else if arity == 3 && !t.three_src_takes_immediate {
            Some("an immediate in a three-source instruction (Target::three_src_takes_immediate)")
        } else if math && !t.math_takes_immediate {
            Some("an immediate in a math instruction (Target::math_takes_immediate)")
        } else if Target::IMMEDIATE_ONLY_IN_LAST_OF_TWO && present == 2 && k == 0 {
            Some("an immediate first of two sources (Target::IMMEDIATE_ONLY_IN_LAST_OF_TWO)")
        } else {
            None
        };
        if let Some(why) = broken {
            err(
                errs,
                inst,
                Some(Slot::Src(k as u32)),
                format!("`{}` on {}: {why}", op.name(), shader.target.name()),
            );
        }
    }
}

/// Checks every invariant; returns all violations (empty when the shader is valid).
pub fn verify(shader: &Shader) -> Vec<VerifyError> {
    let mut errs = Vec::new();
    let target = shader.target.target();
    verify_layout(shader, &mut errs);
    for inst in shader.layout.insts() {
        if inst.index() >= shader.insts.opcode.len() {
            continue;
        }
        verify_inst(shader, &target, inst, &mut errs);
        let op = shader.insts.opcode[inst];
        if let Some(why) = crate::message::sampler_counts(op, shader.srcs(inst)) {
            err(&mut errs, inst, None, format!("`{}`: {why}", op.name()));
        }
    }
    errs
}

fn err(errs: &mut Vec<VerifyError>, inst: Inst, slot: Option<Slot>, msg: impl Into<String>) {
    errs.push(VerifyError {
        inst: Some(inst),
        slot,
        msg: msg.into(),
    });
}

fn verify_layout(shader: &Shader, errs: &mut Vec<VerifyError>) {
    let n = shader.insts.opcode.len();
    let mut seen = vec![false; n];
    let mut flat = Vec::with_capacity(n);
    for inst in shader.layout.insts() {
        if inst.index() >= n {
            errs.push(VerifyError {
                inst: Some(inst),
                slot: None,
                msg: "instruction is in the layout but not in the columns".into(),
            });
            continue;
        }
        if std::mem::replace(&mut seen[inst.index()], true) {
            err(errs, inst, None, "instruction appears twice in the layout");
        }
        flat.push(inst);
    }
    if !errs.is_empty() {
        return;
    }
    let expect = split_blocks(&flat, |i| shader.insts.opcode[i]);
    if expect.blocks != shader.layout.blocks {
        // Name the first instruction that sits in a different block than control flow says.
        let position = |l: &crate::shader::Layout| {
            l.blocks
                .iter()
                .enumerate()
                .flat_map(|(b, d)| {
                    d.insts
                        .iter()
                        .enumerate()
                        .map(move |(k, &i)| (i, b, k == 0))
                })
                .collect::<Vec<_>>()
        };
        let (have, want) = (position(&shader.layout), position(&expect));
        let first = have
            .iter()
            .zip(want.iter())
            .find(|(h, w)| h.1 != w.1 || h.2 != w.2);
        match first {
            Some((&(inst, _, starts), _)) => err(
                errs,
                inst,
                None,
                if starts {
                    "starts a block, but control flow does not end one before it".to_string()
                } else {
                    "control flow starts a new block at this instruction, but the layout does not"
                        .to_string()
                },
            ),
            None => errs.push(VerifyError {
                inst: None,
                slot: None,
                msg: format!(
                    "the layout has {} blocks where control flow makes {}",
                    shader.layout.blocks.len(),
                    expect.blocks.len()
                ),
            }),
        }
        return;
    }
    if let Err(e) = Cfg::build(&shader.layout, |i| shader.insts.opcode[i]) {
        err(errs, e.inst, None, e.msg);
    }
}

fn verify_inst(shader: &Shader, target: &Target, inst: Inst, errs: &mut Vec<VerifyError>) {
    let op = shader.insts.opcode[inst];
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    if !matches!(exec, 1 | 2 | 4 | 8 | 16 | 32) || exec > target.max_exec_size {
        err(
            errs,
            inst,
            None,
            format!("execution size {exec} is not 1, 2, 4, 8, 16 or 32"),
        );
    }
    let group = ctl.group as u32;
    if group + exec > 32 || (exec > 0 && !group.is_multiple_of(exec.min(8))) {
        err(
            errs,
            inst,
            None,
            format!("channel group {group} does not fit execution size {exec}"),
        );
    }
    if ctl.flag_subreg as u32 >= target.flag_subregs {
        err(
            errs,
            inst,
            None,
            format!(
                "flag subregister f{}.{} does not exist on {}",
                ctl.flag_subreg / 2,
                ctl.flag_subreg % 2,
                target.gen
            ),
        );
    }
    let is_msg = op.is_message();
    if let Some(s) = shader.send_info(inst) {
        if !is_msg && (s.mlen != 0 || s.ex_mlen != 0 || s.desc != 0 || s.ex_desc != 0) {
            err(
                errs,
                inst,
                None,
                format!(
                    "`{}` is not a message instruction but has message fields",
                    op.name()
                ),
            );
        }
    }
    if ctl.eot() && !is_msg {
        err(
            errs,
            inst,
            None,
            format!("`{}` cannot end the thread (EOT)", op.name()),
        );
    }
    let srcs = shader.srcs(inst);
    if let Some(arity) = op.alu_arity() {
        let used = srcs.iter().filter(|s| !s.is_bad()).count();
        if used != arity {
            err(
                errs,
                inst,
                None,
                format!("`{}` takes {arity} sources, has {used}", op.name()),
            );
        }
    }

    let dst = &shader.insts.dst[inst];
    match dst.file {
        RegFile::Imm | RegFile::Uniform | RegFile::Attr => {
            err(
                errs,
                inst,
                Some(Slot::Dst),
                "destination must be a register",
            );
        }
        _ => {}
    }
    if dst.mods.0 != 0 {
        err(
            errs,
            inst,
            Some(Slot::Dst),
            "destination has a source modifier",
        );
    }
    verify_operand(shader, target, inst, Slot::Dst, dst, errs);
    let free_size = op.has_free_size_written();
    if dst.file == RegFile::Vgrf {
        // What a logical message answers is its own to say (its components and channels):
        // a size written that says otherwise leaves analyses and lowering at odds with what
        // it writes.
        if let Some(n) = crate::message::response_bytes(op, srcs, exec) {
            let sw = shader.insts.size_written[inst];
            if sw != n {
                err(
                    errs,
                    inst,
                    Some(Slot::Dst),
                    format!(
                        "`{}` answers {n} bytes, but its size written is {sw}",
                        op.name()
                    ),
                );
            }
        }
        let len = if free_size {
            shader.insts.size_written[inst]
        } else {
            dst.span(exec)
        };
        verify_vgrf_access(shader, inst, Slot::Dst, dst, len, free_size, errs);
    }
    for (i, src) in srcs.iter().enumerate() {
        let slot = Slot::Src(i as u32);
        if src.file == RegFile::Imm && src.mods.0 != 0 {
            err(errs, inst, Some(slot), "immediate with a source modifier");
        }
        verify_operand(shader, target, inst, slot, src, errs);
        if src.file == RegFile::Vgrf {
            let len = if free_size { 1 } else { src.span(exec) };
            verify_vgrf_access(shader, inst, slot, src, len, free_size, errs);
        }
    }
}

fn verify_operand(
    shader: &Shader,
    target: &Target,
    inst: Inst,
    slot: Slot,
    op: &Operand,
    errs: &mut Vec<VerifyError>,
) {
    if op.ty == crate::types::Type::HF && !target.has_hf {
        err(
            errs,
            inst,
            Some(slot),
            format!("type HF needs gen8 or later, the target is {}", target.gen),
        );
    }
    if matches!(op.ty, crate::types::Type::Q | crate::types::Type::UQ) && !target.has_64bit_int {
        err(
            errs,
            inst,
            Some(slot),
            format!(
                "type {} needs gen8 or later, the target is {}",
                op.ty, target.gen
            ),
        );
    }
    if op.file != RegFile::Imm && op.ty.is_vector_imm() {
        err(
            errs,
            inst,
            Some(slot),
            format!("type {} exists only for immediates", op.ty),
        );
    }
    match op.file {
        RegFile::Vgrf if op.nr as usize >= shader.vgrfs.len() => {
            err(
                errs,
                inst,
                Some(slot),
                format!("vgrf{} is not declared", op.nr),
            );
        }
        RegFile::FixedGrf => {
            // A message's payload is as long as the message says (mlen), whatever region
            // the operand prints with: check its first element only.
            let len = if shader.insts.opcode[inst].is_message() && slot != Slot::Dst {
                op.ty.size()
            } else {
                op.footprint(shader.insts.control[inst].exec_size as u32)
            };
            let end = op.nr as u64 * target.reg_size as u64 + op.offset as u64 + len as u64;
            if op.nr >= target.grf_count || end > (target.grf_count * target.reg_size) as u64 {
                err(
                    errs,
                    inst,
                    Some(slot),
                    format!(
                        "g{} is outside the {}-register file",
                        op.nr, target.grf_count
                    ),
                );
            }
        }
        RegFile::Indirect if op.nr >= 16 => {
            err(
                errs,
                inst,
                Some(slot),
                format!("a0.{} is not an address subregister (a0.0..a0.15)", op.nr),
            );
        }
        RegFile::Mrf if op.nr >= target.mrf_count => {
            err(
                errs,
                inst,
                Some(slot),
                format!(
                    "m{} is outside the {} message registers",
                    op.nr, target.mrf_count
                ),
            );
        }
        _ => {}
    }
    if matches!(
        op.file,
        RegFile::FixedGrf | RegFile::Arf | RegFile::Indirect
    ) {
        let r = op.region;
        let vxh = op.file == RegFile::Indirect && r.vstride == Region::VXH;
        if !matches!(r.width, 1 | 2 | 4 | 8 | 16)
            || !matches!(r.hstride, 0 | 1 | 2 | 4)
            || !(vxh || matches!(r.vstride, 0 | 1 | 2 | 4 | 8 | 16 | 32))
        {
            err(
                errs,
                inst,
                Some(slot),
                format!("illegal region <{},{},{}>", r.vstride, r.width, r.hstride),
            );
        }
    }
}

fn verify_vgrf_access(
    shader: &Shader,
    inst: Inst,
    slot: Slot,
    op: &Operand,
    len: u32,
    message: bool,
    errs: &mut Vec<VerifyError>,
) {
    let Some(layout) = shader.vgrfs.get(op.nr as usize) else {
        return;
    };
    let size = layout.size();
    let end = op.offset as u64 + len as u64;
    if end > size as u64 {
        err(
            errs,
            inst,
            Some(slot),
            format!(
                "access of bytes {}..{} is outside vgrf{} ({} bytes)",
                op.offset, end, op.nr, size
            ),
        );
    } else if layout.touches_padding_as(op.offset, len, message) {
        err(
            errs,
            inst,
            Some(slot),
            format!(
                "access of bytes {}..{} touches padding of vgrf{} (layout {})",
                op.offset, end, op.nr, layout
            ),
        );
    }
}

#[cfg(test)]
mod hardware_form_tests {
    use super::verify_hardware;

    fn errors(text: &str) -> Vec<String> {
        let shader = crate::text::parse_shader(text).unwrap();
        verify_hardware(&shader)
            .into_iter()
            .map(|e| e.msg)
            .collect()
    }

    #[test]
    fn thread_ending_sends_read_their_payload_from_vgrfs() {
        let send = |payload: &str| {
            format!(
                "shader \"t\" stage VS width 8 target skl\nvgrf0 8x32\nvgrf1 1x32\nblock0:\n    \
                 send(8) (mlen: 1) (ex_mlen: 8) (header: 1) (sfid: 6) (desc: 0x02080017) \
                 (ex_desc: 0x00000200) (EOT) (null):UD, 0u, 0u, {payload}, vgrf0:F\n"
            )
        };
        let e = errors(&send("g1<8,8,1>:UD"));
        assert!(
            e.iter().any(|m| m.contains("EOT_PAYLOAD_FIRST_GRF")),
            "{e:?}"
        );
        assert!(errors(&send("vgrf1:UD")).is_empty());
    }

    #[test]
    fn dword_multiplies_need_the_target() {
        let mul = |target: &str| {
            format!(
                "shader \"t\" stage FS width 8 target {target}\nvgrf0 1x32\nblock0:\n    \
                 mul(8) vgrf0:D, g2<8,8,1>:D, g3<8,8,1>:D\n"
            )
        };
        assert!(errors(&mul("hsw"))
            .iter()
            .any(|m| m.contains("has_integer_dword_mul")));
        assert!(errors(&mul("skl")).is_empty());
    }

    #[test]
    fn immediates_where_the_target_takes_them() {
        let shader = |target: &str, inst: &str| {
            format!(
                "shader \"t\" stage FS width 8 target {target}\nvgrf0 1x64\nvgrf1 1x32\nblock0:\n    {inst}\n"
            )
        };
        let has = |target: &str, inst: &str, what: &str| {
            let e = errors(&shader(target, inst));
            e.iter().any(|m| m.contains(what))
        };
        // 64-bit immediates: gen8+, or Haswell's dim.
        assert!(has("hsw", "mov(8) vgrf0:DF, 0.5df", "has_64bit_immediates"));
        assert!(!has(
            "hsw",
            "dim(1) vgrf0:DF, 0.5df NoMask",
            "has_64bit_immediates"
        ));
        assert!(!has(
            "skl",
            "mov(8) vgrf0:DF, 0.5df",
            "has_64bit_immediates"
        ));
        // Three-source instructions: registers only.
        let mad = "mad(8) vgrf1:F, g2<8,8,1>:F, 2f, g3<8,8,1>:F";
        assert!(has("skl", mad, "three_src_takes_immediate"));
        // Math: an immediate from gen8 on.
        let pow = "pow(8) vgrf1:F, g2<8,8,1>:F, 2f";
        assert!(has("hsw", pow, "math_takes_immediate"));
        assert!(errors(&shader("skl", pow)).is_empty());
        // Only the second of two sources.
        assert!(has(
            "skl",
            "add(8) vgrf1:F, 2f, g2<8,8,1>:F",
            "IMMEDIATE_ONLY_IN_LAST_OF_TWO"
        ));
        assert!(errors(&shader("skl", "add(8) vgrf1:F, g2<8,8,1>:F, 2f")).is_empty());
    }

    #[test]
    fn sources_in_regions_the_instruction_can_read() {
        let shader = |target: &str, inst: &str| {
            format!(
                "shader \"t\" stage FS width 8 target {target}\nvgrf0 1x64\nvgrf1 1x32\nvgrf2 1x16\nvgrf3 1x16\nvgrf4 1x128\nblock0:\n    {inst}\n"
            )
        };
        let breaks = |target: &str, inst: &str, rule: &str| {
            errors(&shader(target, inst))
                .iter()
                .any(|m| m.contains(&format!("region rule \"{rule}\"")))
        };
        let mad = "mad(8) vgrf2:HF, vgrf1<2>:HF, vgrf3:HF, vgrf3:HF";
        assert!(breaks("skl", mad, "three-source Align16 regions"));
        assert!(errors(&shader(
            "skl",
            "mad(8) vgrf2:HF, vgrf3:HF, vgrf3:HF, vgrf3<0>:HF"
        ))
        .is_empty());
        assert!(breaks(
            "hsw",
            "rcp(8) vgrf1:F, vgrf0<2>:F",
            "math source stride"
        ));
        assert!(errors(&shader("hsw", "rcp(8) vgrf1:F, vgrf0<0>:F")).is_empty());
        // Strides past 4: a vertical stride with a width of one, inside one register.
        assert!(errors(&shader("skl", "mov(8) vgrf2:W, vgrf0<8>:B")).is_empty());
        assert!(breaks(
            "skl",
            "mov(8) vgrf1:D, vgrf4<16>:D",
            "encodable stride"
        ));
        assert!(breaks(
            "skl",
            "mov(8) vgrf1:D, vgrf4<3>:D",
            "encodable stride"
        ));
    }

    #[test]
    fn narrowing_conversions_write_strided() {
        let shader = |inst: &str| {
            format!(
                "shader \"t\" stage FS width 8 target skl\nvgrf0 1x64\nvgrf1 1x64\nvgrf2 1x16\nblock0:\n    {inst}\n"
            )
        };
        let narrowing = |inst: &str| {
            errors(&shader(inst))
                .iter()
                .any(|m| m.contains("narrowing conversion destination stride"))
        };
        assert!(narrowing("mov(8) vgrf1:F, vgrf0:DF"));
        assert!(!narrowing("mov(8) vgrf1<2>:F, vgrf0:DF"));
        assert!(narrowing("mov(8) vgrf2:HF, g2<8,8,1>:F"));
        assert!(narrowing("mov(8) vgrf2:W, g2<8,8,1>:D"));
        // Same-size and widening moves, and raw byte moves, are free to pack.
        assert!(!narrowing("mov(8) vgrf1:UD, vgrf0<2>:UD"));
        assert!(!narrowing("mov(8) vgrf1:D, vgrf2:W"));
        assert!(!narrowing("mov(8) vgrf2:UB, g2<8,8,1>:UB"));
    }
}

#[cfg(test)]
mod message_size_tests {
    /// A logical read's size written is what it answers: its components times its
    /// channels' dwords. eubatch's text gives it by default; one that says otherwise (the
    /// random generator once wrote a 4-component read as one component) is refused, where
    /// SIMD-width lowering and `split` would each read the VGRF differently.
    #[test]
    fn a_logical_read_writes_what_it_answers() {
        let read = |size: &str| {
            format!(
                "shader \"t\" stage CS width 16 target skl\nvgrf0 1x64\nvgrf1 4x64\nblock0:\n    \
                 untyped_surface_read_logical(16) {size}vgrf1:UD, 2u, (null):UD, vgrf0:UD, \
                 (null):UD, 1u, 4u, 0u\n"
            )
        };
        let errors = |text: &str| -> Vec<String> {
            let shader = crate::text::parse_shader(text).unwrap();
            super::verify(&shader).into_iter().map(|e| e.msg).collect()
        };
        assert!(errors(&read("")).is_empty());
        assert!(errors(&read("(size: 256) ")).is_empty());
        let e = errors(&read("(size: 64) "));
        assert!(
            e.iter()
                .any(|m| m.contains("answers 256 bytes, but its size written is 64")),
            "{e:?}"
        );
    }
}
