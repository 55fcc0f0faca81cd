//! The message descriptors of the `send`s of Mesa's pre-RA dumps, recovered from Mesa's
//! final code, so that the simulator can run them (`compile --from pre-ra --verify`).
//!
//! Mesa 22.3's `fs_visitor::dump_instruction` prints a lowered SHADER_OPCODE_SEND as
//! `send(16) (mlen: 4) vgrf151:F, 0u, 0u, vgrf202:F`: the shared function (`inst->sfid`),
//! the descriptor (`inst->desc`) and the response length (in `size_written`) are fields
//! it does not show, and `0u, 0u` are the descriptor sources left at zero by
//! brw_lower_logical_sends.cpp (`setup_*`: the immediate parts live in `inst->desc`).
//! Mesa 25's brw_print.cpp prints the descriptor (`send(8) (mlen: 1) %12, 37879809u, 0u,
//! %11`) but not the SFID. The variant's final code (`asm.txt`, written by
//! `fs_generator::generate_code` with brw_disasm.c) has all of them: `send(8) g21<1>UW
//! g24<0,1,0>UD 0x04120102` and the decode line `sampler MsgDesc: ...`.
//!
//! The pre-RA dump is written before scheduling (at the start of
//! `fs_visitor::allocate_registers`), and both schedulers (`schedule_instructions`
//! SCHEDULE_PRE and SCHEDULE_POST) may reorder sends that have no side effects, so the
//! k-th send of the dump is not the k-th of the listing. The rule for when a descriptor
//! is trusted:
//! 1. The listing holds the variant's own code (same stage, program and SIMD width; a
//!    variant Mesa dropped has none), and its sends, less the scratch messages register
//!    allocation added when the program spilled, have exactly the dump's signatures
//!    (execution size, channel group, `mlen`, `ex_mlen`, EOT) as a multiset.
//! 2. Each dump send, in program order, takes a descriptor of the listing's sends of its
//!    signature not taken yet, among those whose response (`rlen` registers) covers what
//!    the dump's uses show of the destination (a lower bound) and, for Mesa 25, equal to
//!    the printed descriptor. If one distinct descriptor is left, it is the send's: every
//!    choice is the same message.
//! 3. If several are left, eubatch's own lowering of the variant's start dump
//!    (`--stop-after lower`, whose sends are in program order) names the message: when
//!    it has as many sends of that signature as the dump, its k-th one's SFID and
//!    descriptor without the response length (which Mesa trims to the components read)
//!    must match exactly one of them.
//!
//! Otherwise nothing is guessed: [`recover`] fails naming the send and why, and the
//! shader is counted as not run by the simulator with that reason.

use eubatch_codegen::asm::AsmProgram;
use eubatch_ir::message::sfid;
use eubatch_ir::{Inst, Opcode, RegFile, Shader};

use super::{fail, reason, NotRecovered};

/// What identifies a send in both the dump and the listing: execution size, channel
/// group, message and extended message lengths, end of thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Signature {
    pub exec: u8,
    pub group: u8,
    pub mlen: u8,
    pub ex_mlen: u8,
    pub eot: bool,
}

impl std::fmt::Display for Signature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "send({}) group{} mlen {} ex_mlen {}{}",
            self.exec,
            self.group,
            self.mlen,
            self.ex_mlen,
            if self.eot { " EOT" } else { "" }
        )
    }
}

/// A message as the hardware takes it: shared function, descriptor (without the EOT bit),
/// extended descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Message {
    pub sfid: u8,
    pub desc: u32,
    pub ex_desc: u32,
}

/// Bit 31 of an immediate descriptor as the disassembly prints it is the instruction's
/// EOT bit (brw_inst.h `eot`: bit 127, the top bit of the 32-bit immediate source);
/// Mesa's `inst->desc` does not hold it, EOT is its own field.
const EOT_BIT: u32 = 1 << 31;
/// The response length field (PRM Vol. 2a "Message Descriptor", bits 24:20).
const RLEN_FIELD: u32 = 0x1f << 20;
/// Data-port category bit of gen7+ scratch messages (brw_inst.h `dp_category`, set by
/// brw_eu_emit.c `gfx7_set_dp_scratch_message`).
const DP_SCRATCH_CATEGORY: u32 = 1 << 18;

pub(super) fn is_send(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Send | Opcode::Sendc | Opcode::Sends | Opcode::Sendsc
    )
}

pub(super) fn signature(shader: &Shader, inst: Inst) -> Signature {
    let ctl = shader.insts.control[inst];
    let info = shader.send_info(inst).copied().unwrap_or_default();
    Signature {
        exec: ctl.exec_size,
        group: ctl.group,
        mlen: info.mlen,
        ex_mlen: info.ex_mlen,
        eot: ctl.eot(),
    }
}

/// The sends of `shader` in program order, with their signatures.
fn sends(shader: &Shader) -> Vec<(Inst, Signature)> {
    shader
        .layout
        .insts()
        .filter(|&i| is_send(shader.insts.opcode[i]))
        .map(|i| (i, signature(shader, i)))
        .collect()
}

/// The sends of a program's final code with their messages, less the scratch messages
/// Mesa's register allocator added (`spill_reg`: the pre-RA dump has none of them) when
/// the program spilled.
fn listed_sends(p: &AsmProgram) -> Vec<(Signature, Message)> {
    let spilled = p.stats.spills + p.stats.fills > 0;
    let s = &p.shader;
    let order: Vec<Inst> = s.layout.insts().collect();
    order
        .iter()
        .enumerate()
        .filter(|&(_, &i)| is_send(s.insts.opcode[i]))
        .filter_map(|(k, &i)| {
            let mut info = s.send_info(i).copied().unwrap_or_default();
            let mut signature = signature(s, i);
            if let Some(desc) = k.checked_sub(1).and_then(|j| indirect_desc(s, order[j], i)) {
                info.desc = desc;
                signature.mlen = ((desc >> 25) & 0xf) as u8;
            }
            let scratch = info.sfid == sfid::DATA_CACHE
                && (eubatch_ir::message::scratch::is_scratch_block(info.desc)
                    || info.desc & DP_SCRATCH_CATEGORY != 0);
            (!(spilled && scratch)).then(|| {
                (
                    signature,
                    Message {
                        sfid: info.sfid,
                        desc: info.desc & !EOT_BIT,
                        ex_desc: info.ex_desc,
                    },
                )
            })
        })
        .collect()
}

/// The immediate part of `send`'s descriptor when it is in the address register, set by
/// `prev` (the instruction before it): `brw_send_indirect_message` (brw_eu_emit.c) emits
/// `or(1) a0.0<1>:UD, <descriptor register>, <immediate descriptor>` and the send right
/// after, so the lengths and the header bit are the immediate's (the register holds the
/// dynamic part, a surface or sampler index). The disassembly prints the send's
/// descriptor as `a0<0,1,0>UD` ("MsgDesc: indirect").
fn indirect_desc(s: &Shader, prev: Inst, send: Inst) -> Option<u32> {
    use eubatch_ir::operand::arf::ADDRESS;
    let is_a0 =
        |o: &eubatch_ir::Operand| o.file == RegFile::Arf && o.nr == ADDRESS && o.offset == 0;
    if !s.srcs(send).iter().any(is_a0) || s.insts.opcode[prev] != Opcode::Or {
        return None;
    }
    if !is_a0(&s.insts.dst[prev]) {
        return None;
    }
    s.srcs(prev)
        .iter()
        .find(|o| o.file == RegFile::Imm)
        .map(|o| o.imm_bits() as u32)
}

/// Leaves out of `pool` the sends `made` picks when there are exactly as many as the
/// dump has instructions of `op` (otherwise the pool stays, and rule 1 says what differs).
fn leave_out(
    pre_ra: &Shader,
    pool: &mut Vec<(Signature, Message)>,
    op: Opcode,
    made: impl Fn(&(Signature, Message)) -> bool,
) {
    let count = pre_ra
        .layout
        .insts()
        .filter(|&i| pre_ra.insts.opcode[i] == op)
        .count();
    if count > 0 && pool.iter().filter(|p| made(p)).count() == count {
        pool.retain(|p| !made(p));
    }
}

/// The sends of a SIMD32 fragment variant Mesa dropped (`pre_ra`, whose SIMD16 variant
/// Mesa kept), from the SIMD16 final code: none when the variant is not one.
///
/// Mesa lowers a SIMD32 fragment shader's logical sends to the widths it lowers the
/// SIMD16 one's (`get_lowered_simd_width` bounds them at 16 or 8), so
/// `lower_simd_width` makes of each a copy for channels 0-15 and one for channels 16-31
/// of every send of the SIMD16 code, with the same message except where the descriptor
/// depends on the channel group (brw_lower_logical_sends.cpp):
/// - a render target write sets the slot group, bit 11, to `group / 16`
///   (`lower_fb_write_logical_send`; the SIMD32 final code has `0x0c031000` then
///   `0x0c031800`, both "last render target");
/// - typed surface messages take `(group / 8) % 2` (`brw_dp_typed_surface_rw_desc`):
///   the same in both halves; sampler, constant and data cache messages take the width
///   only;
/// - EOT stays on the last piece only (`split_inst.eot = inst->eot && i == n - 1`).
///
/// A message of another shared function, or of the render cache other than a render
/// target write, is not known to follow these: [`reason::SIMD32`].
fn simd32_from_simd16(
    listing: &[AsmProgram],
    pre_ra: &Shader,
    program: &str,
) -> Option<Result<Vec<(Signature, Message)>, NotRecovered>> {
    if pre_ra.stage != eubatch_ir::Stage::Fs || pre_ra.dispatch_width != 32 {
        return None;
    }
    let simd16 = super::code_at(listing, pre_ra, program, 16)?;
    let mut pool = Vec::new();
    for (sig, m) in listed_sends(simd16) {
        let rt_write = m.sfid == sfid::RENDER_CACHE
            && (m.desc >> 14) & 0xf == eubatch_ir::message::render_target::WRITE;
        let same = matches!(
            m.sfid,
            sfid::SAMPLER | sfid::CONSTANT_CACHE | sfid::DATA_CACHE | sfid::DATA_CACHE_1
        );
        if !(rt_write || same) || sig.group >= 16 {
            return Some(Err(fail(
                reason::SIMD32,
                format!("{sig} to shared function {} ({:#010x})", m.sfid, m.desc),
            )));
        }
        pool.push((Signature { eot: false, ..sig }, m));
        let high = Message {
            desc: m.desc | (rt_write as u32) << 11,
            ..m
        };
        pool.push((
            Signature {
                group: sig.group + 16,
                ..sig
            },
            high,
        ));
    }
    Some(Ok(pool))
}

/// The sends of a SIMD8 compute variant Mesa dropped (`pre_ra`, whose SIMD16 variant
/// Mesa kept), from the SIMD16 final code: none when the variant is not one.
///
/// Each SIMD16 message is the SIMD8 variant's at 8 channels, as Mesa's lowering sets
/// the width-dependent fields (brw_eu.h):
/// - untyped surface read and write (data cache 1, message types 1 and 9): the SIMD
///   mode, bits 13:12, 1 (SIMD16) becomes 2 (SIMD8) (`brw_dp_untyped_surface_rw_desc`);
/// - byte scattered read and write (data cache 0, types 4 and 12): bit 8, `exec_size ==
///   16`, cleared (`brw_dp_byte_scattered_rw_desc`);
/// - for both, headerless, one register per 8 channels of each address, datum and
///   response component: message, extended message and response lengths halved;
/// - the thread spawner's end of thread and the gateway's barrier, one register of
///   payload whatever the width: the same message at 8 channels;
/// - a send of at most 8 channels (a SIMD8 piece of a message Mesa splits, a fence):
///   the same send, its piece for channels 8-15 having no SIMD8 counterpart.
///
/// Any other message is not narrowed: [`reason::SIMD8`].
fn simd8_from_simd16(
    listing: &[AsmProgram],
    pre_ra: &Shader,
    program: &str,
) -> Option<Result<Vec<(Signature, Message)>, NotRecovered>> {
    if pre_ra.stage != eubatch_ir::Stage::Cs || pre_ra.dispatch_width != 8 {
        return None;
    }
    let simd16 = super::code_at(listing, pre_ra, program, 16)?;
    let mut pool = Vec::new();
    for (sig, m) in listed_sends(simd16) {
        if sig.exec <= 8 {
            if sig.group < 8 {
                pool.push((sig, m));
            }
            continue;
        }
        let msg_type = (m.desc >> 14) & 0x1f;
        let header = eubatch_ir::message::header_present(m.desc);
        let narrowed = match (m.sfid, msg_type) {
            (sfid::THREAD_SPAWNER, _) | (sfid::GATEWAY, _) => Some(m),
            (sfid::DATA_CACHE_1, 1 | 9) if (m.desc >> 12) & 3 == 1 && !header => Some(Message {
                desc: m.desc & !(3 << 12) | 2 << 12,
                ..m
            }),
            (sfid::DATA_CACHE, 4 | 12) if m.desc & 1 << 8 != 0 && !header => Some(Message {
                desc: m.desc & !(1 << 8),
                ..m
            }),
            _ => None,
        };
        let Some(mut n) = narrowed.filter(|_| sig.group == 0 && sig.exec == 16) else {
            return Some(Err(fail(
                reason::SIMD8,
                format!("{sig} to shared function {} ({:#010x})", m.sfid, m.desc),
            )));
        };
        let mut narrow = Signature { exec: 8, ..sig };
        if !matches!(m.sfid, sfid::THREAD_SPAWNER | sfid::GATEWAY) {
            let mlen = eubatch_ir::message::mlen(n.desc);
            let rlen = eubatch_ir::message::rlen(n.desc);
            let ex_mlen = eubatch_ir::message::ex_mlen(n.ex_desc);
            if (mlen | rlen | ex_mlen) & 1 != 0 {
                return Some(Err(fail(
                    reason::SIMD8,
                    format!("{sig}: odd lengths ({:#010x})", m.desc),
                )));
            }
            n.desc = n.desc & !(0xf << 25 | 0x1f << 20)
                | eubatch_ir::message::message_desc(mlen / 2, rlen / 2, false);
            n.ex_desc = n.ex_desc & !(0xf << 6) | eubatch_ir::message::ex_desc(ex_mlen / 2);
            narrow.mlen = sig.mlen / 2;
            narrow.ex_mlen = sig.ex_mlen / 2;
        }
        pool.push((narrow, n));
    }
    Some(Ok(pool))
}

/// How many sends had their descriptors recovered, and by which rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// One distinct descriptor for the send's signature (rule 2).
    pub unique: usize,
    /// Chosen by eubatch's lowering of the start dump (rule 3).
    pub by_lowering: usize,
}

/// Recovers the SFID, descriptor, extended descriptor, header presence and response size
/// of every send of `pre_ra` (a pre-RA dump as imported) from `listing` (the programs of
/// the `asm.txt` beside it; `program` is the dump's program name, `GLSL1`) and, where a signature's sends differ, from `lowered` (called
/// at most once: eubatch's lowering of the variant's start dump, `None` when it cannot be
/// lowered). Nothing is changed unless every send is recovered; the error says which send
/// could not be, and why.
pub fn recover(
    pre_ra: &mut Shader,
    program: &str,
    listing: &[AsmProgram],
    lowered: &mut dyn FnMut() -> Option<Shader>,
) -> Result<Recovered, NotRecovered> {
    let dump = sends(pre_ra);
    if dump.is_empty() {
        return Ok(Recovered::default());
    }
    let mut pool = match super::own_code(listing, pre_ra, program) {
        Some(code) => listed_sends(code),
        None => simd32_from_simd16(listing, pre_ra, program)
            .or_else(|| simd8_from_simd16(listing, pre_ra, program))
            .ok_or_else(|| {
                fail(
                    reason::NO_LISTING,
                    format!(
                        "no {} SIMD{} program `{program}`",
                        pre_ra.stage.abbrev(),
                        pre_ra.dispatch_width
                    ),
                )
            })??,
    };
    // Virtual opcodes of the dump that the generator makes sends of, with no descriptor
    // to recover (eubatch runs the virtual opcode itself): as many of those sends as the
    // dump has of the opcode are left out of the matching.
    // - Mesa 22.3's dump ends a compute thread with `cs_terminate(16) (EOT) (null):UD,
    //   vgrf31:UD`: `fs_generator::generate_cs_terminate` makes it the EOT send to the
    //   thread spawner.
    // - `uniform_pull_const_gfx7`: `generate_uniform_pull_constant_load_gfx7` makes it
    //   an OWord block read of the constant cache, the only constant-cache message the
    //   scalar back end sends (varying pull loads go to the sampler).
    leave_out(pre_ra, &mut pool, Opcode::CsTerminate, |p| {
        p.0.eot && p.1.sfid == sfid::THREAD_SPAWNER
    });
    leave_out(pre_ra, &mut pool, Opcode::UniformPullConstGfx7, |p| {
        !p.0.eot && p.1.sfid == sfid::CONSTANT_CACHE
    });
    // Rule 1: the same signatures, as many of each.
    let mut want: Vec<Signature> = dump.iter().map(|d| d.1).collect();
    let mut have: Vec<Signature> = pool.iter().map(|p| p.0).collect();
    want.sort_unstable();
    have.sort_unstable();
    if want != have {
        let first = want.iter().zip(&have).find(|(w, h)| w != h);
        return Err(fail(
            reason::SIGNATURES,
            format!(
                "{} sends in the final code (less scratch messages), {} in the dump{}",
                have.len(),
                want.len(),
                first.map_or(String::new(), |(w, h)| format!(
                    "; first difference: {w} against {h}"
                ))
            ),
        ));
    }
    pool.sort_unstable();
    let mut taken = vec![false; pool.len()];
    let reg = pre_ra.reg_size();
    // eubatch's lowering, per signature, in program order (rule 3), made when first needed.
    let mut oracle: Option<Option<Vec<(Signature, Message)>>> = None;
    let mut nth = std::collections::HashMap::<Signature, usize>::new();
    let mut chosen = Vec::with_capacity(dump.len());
    let mut out = Recovered::default();
    for (k, &(inst, sig)) in dump.iter().enumerate() {
        let nth_of_sig = {
            let n = nth.entry(sig).or_default();
            *n += 1;
            *n - 1
        };
        // A message with no response writes `null:F` (the ARF null register, which the
        // importer sizes as any destination): nothing to cover.
        let written = if pre_ra.insts.dst[inst].is_null() {
            0
        } else {
            pre_ra.insts.size_written[inst]
        };
        let printed = printed_desc(pre_ra, inst);
        let fits = |m: &Message| {
            let rlen = eubatch_ir::message::rlen(m.desc);
            rlen * reg >= written && printed.is_none_or(|d| d & !EOT_BIT == m.desc)
        };
        let start = pool.partition_point(|p| p.0 < sig);
        let end = pool.partition_point(|p| p.0 <= sig);
        let mut candidates: Vec<usize> = (start..end)
            .filter(|&i| !taken[i] && fits(&pool[i].1))
            .collect();
        candidates.dedup_by_key(|i| pool[*i].1);
        let what = || format!("send {} of the dump (ip {}, {sig})", k + 1, inst.index());
        let pick = match candidates.len() {
            0 => {
                return Err(fail(
                    reason::NO_FIT,
                    format!(
                        "{}: no send of the final code left fits it (signature, response length, printed descriptor)",
                        what()
                    ),
                ))
            }
            1 => {
                out.unique += 1;
                candidates[0]
            }
            n => {
                let lowered = oracle.get_or_insert_with(|| {
                    lowered().map(|s| {
                        sends(&s)
                            .into_iter()
                            .map(|(i, sig)| {
                                let info = s.send_info(i).copied().unwrap_or_default();
                                let m = Message {
                                    sfid: info.sfid,
                                    desc: info.desc,
                                    ex_desc: info.ex_desc,
                                };
                                (sig, m)
                            })
                            .collect()
                    })
                });
                let Some(lowered) = lowered else {
                    return Err(fail(
                        reason::AMBIGUOUS,
                        format!(
                            "{}: {n} different messages of the final code fit it, and eubatch cannot lower the start dump",
                            what()
                        ),
                    ));
                };
                let same_sig: Vec<&Message> = lowered
                    .iter()
                    .filter(|l| l.0 == sig)
                    .map(|l| &l.1)
                    .collect();
                if same_sig.len() != want.iter().filter(|&&s| s == sig).count() {
                    return Err(fail(
                        reason::AMBIGUOUS,
                        format!(
                            "{}: {n} different messages of the final code fit it, and eubatch's lowering has {} sends of its signature (the dump {})",
                            what(),
                            same_sig.len(),
                            want.iter().filter(|&&s| s == sig).count()
                        ),
                    ));
                }
                let l = same_sig[nth_of_sig];
                let matching: Vec<usize> = candidates
                    .iter()
                    .copied()
                    .filter(|&i| {
                        let m = &pool[i].1;
                        m.sfid == l.sfid && m.desc & !RLEN_FIELD == l.desc & !RLEN_FIELD
                    })
                    .collect();
                if matching.len() != 1 {
                    return Err(fail(
                        reason::AMBIGUOUS,
                        format!(
                            "{}: {n} different messages of the final code fit it, and {} of them are eubatch's lowering's ({:#010x} to shared function {})",
                            what(),
                            matching.len(),
                            l.desc,
                            l.sfid
                        ),
                    ));
                }
                out.by_lowering += 1;
                matching[0]
            }
        };
        taken[pick] = true;
        chosen.push((inst, pool[pick].1));
    }
    // Every send recovered; each response must fit its destination as the importer
    // sized it (checked before anything changes).
    let response = |pre_ra: &Shader, inst: Inst, m: &Message| {
        let dst = pre_ra.insts.dst[inst];
        if dst.is_null() {
            0
        } else {
            eubatch_ir::message::rlen(m.desc) * reg
        }
    };
    // A destination smaller than the response is one whose registers past what the dump's
    // uses show were never read: Mesa's VGRF held the whole response (the destination of
    // a send is sized for it, brw_fs_nir.cpp and brw_lower_logical_sends.cpp), and so is
    // the grown one here, when its layout is whole components with no padding.
    let mut grow = Vec::new();
    for &(inst, m) in &chosen {
        let dst = pre_ra.insts.dst[inst];
        let size = response(pre_ra, inst, &m);
        if let Some(v) = dst.as_vgrf() {
            let layout = pre_ra.vgrfs.get(v).copied();
            let have = layout.map_or(0, |l| l.size());
            if dst.offset + size <= have {
                continue;
            }
            if let Some(l) = layout.and_then(|l| grown(l, dst.offset + size)) {
                grow.push((v, l));
            } else {
                return Err(fail(
                    reason::RESPONSE,
                    format!(
                        "the response of the send at ip {} ({size} bytes) is larger than vgrf{} as the dump's uses show it ({have} bytes), whose layout does not grow",
                        inst.index(),
                        dst.nr
                    ),
                ));
            }
        }
    }
    for (v, l) in grow {
        if pre_ra.vgrfs[v].size() < l.size() {
            pre_ra.vgrfs[v] = l;
        }
    }
    for (inst, m) in chosen {
        let size = response(pre_ra, inst, &m);
        let mut info = pre_ra.send_info(inst).copied().unwrap_or_default();
        info.sfid = m.sfid;
        info.desc = m.desc;
        info.ex_desc = m.ex_desc;
        // The simulator reads the header from the descriptor (bit 19); Mesa's
        // `header_size` matters only to LOAD_PAYLOAD, which a lowered send is not.
        info.header_size = eubatch_ir::message::header_present(m.desc) as u8;
        pre_ra.set_send_info(inst, info);
        pre_ra.insts.size_written[inst] = size;
    }
    Ok(out)
}

/// `l` grown to at least `bytes`, if it is whole components without padding (one flat
/// component, or components of a whole number of which `bytes` is).
fn grown(l: eubatch_ir::VgrfLayout, bytes: u32) -> Option<eubatch_ir::VgrfLayout> {
    if l.padding != 0 {
        return None;
    }
    if l.components == 1 {
        return Some(eubatch_ir::VgrfLayout::flat(bytes));
    }
    let pitch = l.pitch();
    (pitch > 0 && bytes % pitch == 0).then(|| eubatch_ir::VgrfLayout {
        components: (bytes / pitch) as u16,
        ..l
    })
}

/// The descriptor Mesa 25 prints as the send's first source (`37879809u`); Mesa 22.3
/// prints `0u` there, which says nothing.
fn printed_desc(shader: &Shader, inst: Inst) -> Option<u32> {
    let d = shader.srcs(inst).first()?;
    (d.file == RegFile::Imm && d.imm_bits() != 0).then(|| d.imm_bits() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use eubatch_ir::import::{import_mesa_dump, DumpName};
    use eubatch_ir::Gen;

    /// Two sampler sends of one signature, which the scheduler put the other way round
    /// in the final code: the first's response (three registers, as its use shows) tells
    /// them apart; the render target write has one descriptor. (Hand-written, in the
    /// corpora's syntax; encodings are filler, the reader takes the disassembly.)
    const DUMP: &str = "\
{ 10}    0: send(8) (mlen: 2) vgrf0:F, 0u, 0u, vgrf2:F 
{  7}    1: send(8) (mlen: 2) vgrf1:F, 0u, 0u, vgrf3:F 
{  7}    2: add(8) vgrf4:F, vgrf0+2.0:F, vgrf1:F 
{  4}    3: send(8) (mlen: 4) (EOT) (null):UD, 0u, 0u, vgrf5:F 
Maximum 10 registers live at once.
";
    const ASM: &str = "\
Native code for unnamed fragment shader GLSL1 (sha1 0)
SIMD8 shader: 3 instructions. 0 loops. 10 cycles. 0:0 spills:fills, 3 sends, scheduled with mode top-down. Promoted 0 constants. Compacted 48 to 48 bytes (0%)
   START B0 (10 cycles)
31 00 60 02 48 02 a0 22 00 03 00 06 02 01 12 04 send(8)         g21<1>UW        g24<0,1,0>UD    0x04120102
                            sampler MsgDesc: sample SIMD8 Surface = 2 Sampler = 1 mlen 2 rlen 1 { align1 1Q };
31 00 60 02 48 02 80 22 c0 02 00 06 01 00 32 04 send(8)         g20<1>UW        g22<0,1,0>UD    0x04320001
                            sampler MsgDesc: sample SIMD8 Surface = 1 Sampler = 0 mlen 2 rlen 3 { align1 1Q };
31 00 60 05 10 b0 07 00 81 0f 00 00 00 14 03 86 send(8)         null<1>UW       g124<0,1,0>UD   0x88031400
                            render MsgDesc: RT write SIMD8 LastRT Surface = 0 mlen 4 rlen 0 { align1 1Q EOT };
   END B0
";

    fn pre_ra() -> Shader {
        let name = DumpName::parse("FS8-GLSL1-90-90-pre_register_allocate").unwrap();
        import_mesa_dump(DUMP, &name, "test", Gen::Gen9).unwrap()
    }

    #[test]
    fn descriptors_are_recovered_by_signature_and_response() {
        let listing = eubatch_codegen::asm::read_asm(ASM, "asm.txt", Gen::Gen9).unwrap();
        let mut s = pre_ra();
        let got = recover(&mut s, "GLSL1", &listing, &mut || None).unwrap();
        assert_eq!(got.unique, 3);
        let info = |k: usize| *s.send_info(Inst::from_usize(k)).unwrap();
        assert_eq!((info(0).sfid, info(0).desc), (sfid::SAMPLER, 0x04320001));
        assert_eq!((info(1).sfid, info(1).desc), (sfid::SAMPLER, 0x04120102));
        // The EOT bit of the printed immediate is the instruction's, not the descriptor's.
        assert_eq!(
            (info(3).sfid, info(3).desc),
            (sfid::RENDER_CACHE, 0x08031400)
        );
        assert_eq!(s.insts.size_written[Inst::from_usize(0)], 96);
    }

    #[test]
    fn nothing_is_guessed() {
        // Another program's name: no final code for the variant.
        let listing = eubatch_codegen::asm::read_asm(ASM, "asm.txt", Gen::Gen9).unwrap();
        let mut s = pre_ra();
        let e = recover(&mut s, "GLSL2", &listing, &mut || None).unwrap_err();
        assert_eq!(e.reason, reason::NO_LISTING);
        assert!(s.send_info(Inst::from_usize(0)).unwrap().desc == 0);
        // Both sampler responses one register: two messages fit each send and, without
        // eubatch's lowering to tell them apart, none is taken.
        let dump = DUMP.replace("vgrf0+2.0:F", "vgrf0:F");
        let name = DumpName::parse("FS8-GLSL1-90-90-pre_register_allocate").unwrap();
        let mut s = import_mesa_dump(&dump, &name, "test", Gen::Gen9).unwrap();
        let e = recover(&mut s, "GLSL1", &listing, &mut || None).unwrap_err();
        assert_eq!(e.reason, reason::AMBIGUOUS, "{e}");
    }

    /// A destination the dump's uses show as one register, whose recovered response is
    /// three: the VGRF grows to hold the response, as Mesa's did.
    #[test]
    fn a_destination_grows_to_its_response() {
        let dump = "\
{ 10}    0: send(8) (mlen: 2) vgrf0:F, 0u, 0u, vgrf2:F 
{  7}    1: add(8) vgrf4:F, vgrf0:F, vgrf0:F 
{  4}    2: send(8) (mlen: 4) (EOT) (null):UD, 0u, 0u, vgrf5:F 
Maximum 10 registers live at once.
";
        let asm: String = ASM
            .lines()
            .filter(|l| !l.contains("g21<1>UW") && !l.contains("Surface = 2 Sampler = 1"))
            .map(|l| format!("{l}\n"))
            .collect();
        let listing = eubatch_codegen::asm::read_asm(&asm, "asm.txt", Gen::Gen9).unwrap();
        let name = DumpName::parse("FS8-GLSL1-90-90-pre_register_allocate").unwrap();
        let mut s = import_mesa_dump(dump, &name, "test", Gen::Gen9).unwrap();
        assert_eq!(s.vgrfs[eubatch_ir::Vgrf::from_usize(0)].size(), 32);
        recover(&mut s, "GLSL1", &listing, &mut || None).unwrap();
        assert_eq!(s.vgrfs[eubatch_ir::Vgrf::from_usize(0)].size(), 96);
        assert_eq!(s.insts.size_written[Inst::from_usize(0)], 96);
    }

    /// A SIMD32 fragment variant Mesa dropped: its two halves of the render target write
    /// take the SIMD16 final code's message, the high half with the slot group bit (11),
    /// the low half without EOT; a sampler message the same in both halves.
    #[test]
    fn simd32_sends_from_the_simd16_final_code() {
        let dump = "\
{  8}    0: send(16) (mlen: 4) vgrf2:F, 0u, 0u, vgrf4:F group0 
{  8}    1: send(16) (mlen: 4) vgrf3:F, 0u, 0u, vgrf5:F group16 
{  8}    2: send(16) (mlen: 8) (null):UD, 0u, 0u, vgrf0:F group0 
{  8}    3: send(16) (mlen: 8) (EOT) (null):UD, 0u, 0u, vgrf1:F group16 
Maximum 8 registers live at once.
";
        let asm = "\
Native code for unnamed fragment shader GLSL1 (sha1 0)
SIMD16 shader: 2 instructions. 0 loops. 10 cycles. 0:0 spills:fills, 2 sends, scheduled with mode top-down. Promoted 0 constants. Compacted 32 to 32 bytes (0%)
   START B0 (10 cycles)
31 00 80 02 48 02 a0 22 00 03 00 06 01 00 42 08 send(16)        g21<1>UW        g24<0,1,0>UD    0x08420001
                            sampler MsgDesc: sample SIMD16 Surface = 1 Sampler = 0 mlen 4 rlen 4 { align1 1H };
31 00 80 05 10 b0 07 00 81 0f 00 00 00 10 03 90 send(16)        null<1>UW       g120<0,1,0>UD   0x90031000
                            render MsgDesc: RT write SIMD16 LastRT Surface = 0 mlen 8 rlen 0 { align1 1H EOT };
   END B0
";
        let listing = eubatch_codegen::asm::read_asm(asm, "asm.txt", Gen::Gen9).unwrap();
        let name = DumpName::parse("FS32-GLSL1-90-90-pre_register_allocate").unwrap();
        let mut s = import_mesa_dump(dump, &name, "test", Gen::Gen9).unwrap();
        recover(&mut s, "GLSL1", &listing, &mut || None).unwrap();
        let info = |k: usize| *s.send_info(Inst::from_usize(k)).unwrap();
        assert_eq!((info(0).sfid, info(0).desc), (sfid::SAMPLER, 0x08420001));
        assert_eq!((info(1).sfid, info(1).desc), (sfid::SAMPLER, 0x08420001));
        assert_eq!(info(2).desc, 0x10031000);
        assert_eq!(info(3).desc, 0x10031800);
    }

    /// A SIMD8 compute variant Mesa dropped: its untyped surface read and write are the
    /// SIMD16 final code's at SIMD8 (mode 2, lengths halved); the thread spawner's EOT
    /// goes with its `cs_terminate`. (Lines from vulkan-fp16-skl absval's asm.txt.)
    #[test]
    fn simd8_compute_sends_from_the_simd16_final_code() {
        let dump = "\
{  2}    0: shl(8) vgrf18:D, vgrf7:D, 3u 
{  3}    1: send(8) (mlen: 1) vgrf9:UD, 0u, 0u, vgrf18:D, null:UD 
{  3}    2: send(8) (mlen: 1) (ex_mlen: 2) (null):UD, 0u, 0u, vgrf18:D, vgrf9:UD 
{  1}    3: mov(8) vgrf15:UD, g0:UD NoMask 
{  1}    4: cs_terminate(8) (EOT) (null):UD, vgrf15:UD NoMask 
Maximum   5 registers live at once.
";
        let asm = "\
Native code for unnamed compute shader (null) (sha1 0)
SIMD16 shader: 4 instructions. 0 loops. 258 cycles. 0:0 spills:fills, 3 sends, scheduled with mode top-down. Promoted 0 constants. Compacted 64 to 64 bytes (0%)
   START B0 (94 cycles)
31 00 80 0c 48 02 20 22 20 03 00 06 02 5c 40 04 send(16)        g17<1>UW        g25<0,1,0>UD    0x04405c02
                            dp data 1 MsgDesc: (untyped surface read, Surface = 2, SIMD16, Mask = 0xc) mlen 2 rlen 4 { align1 1H };
33 00 80 0c 10 b0 01 00 24 03 00 00 02 5c 02 04 sends(16)       nullUD          g25UD           g27UD           0x04025c02                0x00000100
                            dp data 1 MsgDesc: (DC untyped surface write, Surface = 2, SIMD16, Mask = 0xc) mlen 2 ex_mlen 4 rlen 0 { align1 1H };
01 4d 00 20 07 7e 00 00                         mov(8)          g126<1>UD       g0<8,8,1>UD                     { align1 WE_all 1Q compacted };
31 00 80 07 44 12 00 20 c0 0f 8d 06 10 00 00 82 send(16)        null<1>UW       g126<8,8,1>UW   0x82000010
                            thread_spawner MsgDesc: mlen 1 rlen 0           { align1 WE_all 1H EOT };
   END B0
";
        let listing = eubatch_codegen::asm::read_asm(asm, "asm.txt", Gen::Gen9).unwrap();
        let name = DumpName::parse("CS8-(null)-90-90-pre_register_allocate").unwrap();
        let mut s = import_mesa_dump(dump, &name, "test", Gen::Gen9).unwrap();
        recover(&mut s, "(null)", &listing, &mut || None).unwrap();
        let info = |k: usize| *s.send_info(Inst::from_usize(k)).unwrap();
        // mlen 1, rlen 2, SIMD8 (bits 13:12 = 2).
        assert_eq!(
            (info(1).sfid, info(1).desc),
            (sfid::DATA_CACHE_1, 0x0220_6c02)
        );
        assert_eq!(
            (info(2).desc, info(2).ex_desc & 0x3c0),
            (0x0202_6c02, 2 << 6)
        );
        assert_eq!(s.insts.size_written[Inst::from_usize(1)], 64);
    }
}
