//! Lowering to hardware form (issue 7): one file per pass. What exists so far: splitting
//! instructions wider than the target allows ([`simd_width`]), turning `load_payload` into
//! moves ([`load_payload`]), `pack` to strided moves ([`pack`]), interpolation straight from the payload ([`linterp`]), logical
//! messages to `send`s ([`logical_sends`]), constants into shared registers
//! ([`combine_constants`]), 32-bit multiplies as 32x16-bit ones where the target needs it
//! ([`integer_mul`]), narrowing conversions through a strided temporary ([`regioning`]),
//! scalar 64-bit `mad` sources read with stride 1 on gen9 ([`scalar_fp64_mad`]),
//! the optional SIMD8 pair coalescing ([`coalesce_simd8`]), Mesa 25's subgroup opcodes
//! ([`subgroup_ops`]), and vec4 DF swizzle lowering ([`df_swizzles`], seed 000).

pub mod coalesce_simd8;
pub mod combine_constants;
pub mod df_swizzles;
pub mod integer_mul;
pub mod linterp;
pub mod load_payload;
pub mod logical_sends;
pub mod pack;
pub mod regioning;
pub mod scalar_fp64_mad;
pub mod simd_width;
pub mod subgroup_ops;
pub mod three_src_null_dest;
pub mod wide_immediates;
pub mod zero_samples;

/// Rebuilds the blocks that hold an instruction of opcode `op`: each such instruction is
/// replaced by the instructions `f` makes for it, or kept where `f` gives `None`. Whether
/// anything was replaced.
pub fn replace_each(
    shader: &mut eubatch_ir::Shader,
    op: eubatch_ir::Opcode,
    mut f: impl FnMut(&mut eubatch_ir::Shader, eubatch_ir::Inst) -> Option<Vec<eubatch_ir::Inst>>,
) -> bool {
    replace_where(
        shader,
        |shader, block| block.insts.iter().any(|&i| shader.insts.opcode[i] == op),
        |shader, inst| {
            (shader.insts.opcode[inst] == op)
                .then(|| f(shader, inst))
                .flatten()
        },
    )
}

/// [`replace_each`] for any instruction `f` takes, in every block.
pub fn replace_all(
    shader: &mut eubatch_ir::Shader,
    f: impl FnMut(&mut eubatch_ir::Shader, eubatch_ir::Inst) -> Option<Vec<eubatch_ir::Inst>>,
) -> bool {
    replace_where(shader, |_, _| true, f)
}

/// Rebuilds the blocks `visit` picks, replacing each instruction `f` makes others for.
fn replace_where(
    shader: &mut eubatch_ir::Shader,
    visit: impl Fn(&eubatch_ir::Shader, &eubatch_ir::shader::BlockData) -> bool,
    mut f: impl FnMut(&mut eubatch_ir::Shader, eubatch_ir::Inst) -> Option<Vec<eubatch_ir::Inst>>,
) -> bool {
    let mut progress = false;
    for b in 0..shader.layout.blocks.len() {
        let block = eubatch_ir::Block::from_usize(b);
        if !visit(shader, &shader.layout.blocks[block]) {
            continue;
        }
        let old = std::mem::take(&mut shader.layout.blocks[block].insts);
        let mut new = Vec::with_capacity(old.len() + 8);
        for inst in old {
            match f(shader, inst) {
                Some(insts) => {
                    progress = true;
                    new.extend(insts);
                }
                None => new.push(inst),
            }
        }
        shader.layout.blocks[block].insts = new;
    }
    progress
}

/// The channel group `k * width` channels into an operand's region: where the `k`-th
/// piece of an instruction split to `width` channels reads or writes. `None` where the
/// region cannot be cut there (a fixed register region whose rows do not divide the
/// piece, an indirect region, an architecture register other than null or a scalar).
/// Fixed registers are `reg_size` bytes.
pub fn horiz_offset(
    op: &eubatch_ir::Operand,
    channels: u32,
    reg_size: u32,
) -> Option<eubatch_ir::Operand> {
    use eubatch_ir::RegFile;
    let mut o = *op;
    match op.file {
        RegFile::Imm | RegFile::Bad => {}
        RegFile::Vgrf | RegFile::Attr | RegFile::Uniform => {
            o.offset += channels * op.stride as u32 * op.ty.size();
        }
        RegFile::FixedGrf => {
            let r = op.region;
            if r.width == 0 || r.vstride == 0 && r.hstride == 0 {
                // A scalar: every channel reads the same element.
            } else if channels.is_multiple_of(r.width as u32) {
                let byte = op.nr * reg_size
                    + op.offset
                    + channels / r.width as u32 * r.vstride as u32 * op.ty.size();
                o.nr = byte / reg_size;
                o.offset = byte % reg_size;
            } else {
                return None;
            }
        }
        RegFile::Arf if op.is_null() => {}
        // A scalar architecture register (a flag read as a value, `f0.0<0,1,0>`: a ballot's
        // mask) is the same element for every channel group, as Mesa's `horiz_offset`
        // gives for a region without strides. Other architecture-register regions are
        // left whole.
        RegFile::Arf if op.region.vstride == 0 && op.region.hstride == 0 => {}
        _ => return None,
    }
    Some(o)
}

/// Whether `len` bytes from `op` lie inside its VGRF (always true for other files). A
/// message may name more components than were ever written (Mesa 25 writes colours of four
/// components from three-component values): the rest is undefined, and is not copied.
pub fn inside_vgrf(shader: &eubatch_ir::Shader, op: &eubatch_ir::Operand, len: u32) -> bool {
    op.file != eubatch_ir::RegFile::Vgrf
        || shader
            .vgrfs
            .get(op.vgrf_nr())
            .is_some_and(|l| op.offset + len <= l.size())
}
