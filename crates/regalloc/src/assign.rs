//! Applying an allocation: the shader in register form, every virtual register (VGRF) and
//! every thread input (push constant `uN`, attribute `attrN`) a fixed general register
//! with a hardware region, as Mesa 22.3's `fs_reg_alloc::assign_regs`
//! (brw_fs_reg_allocate.cpp) places VGRFs, `assign_curb_setup` / `assign_urb_setup`
//! (brw_fs.cpp) place inputs, and the generator's `brw_reg_from_fs_reg`
//! (brw_fs_generator.cpp) turns each into a region. The result is what Mesa's final code
//! is before its generator expands virtual opcodes: the simulator runs it on the thread's
//! register file, so it can be compared with the start IR as Mesa's own final code is
//! (`eubatch_sim::crosscheck`).
//!
//! Regions are element regions, as eubatch's IR keeps them everywhere: a stride of 0 is
//! `<0;1,0>`; a stride `s` past 4 is `<s;1,0>`; otherwise `<w*s;w,s>` with `w` the widest
//! width the rules allow ([`hardware_region`]). Ivy Bridge's doubled regions for 64-bit
//! operands are an encoding of the same region and belong to the encoder, not here.
//!
//! Limits: every VGRF an instruction touches must be placed (an allocation that left a
//! VGRF without a register needs spills first: an error here); other files (ARF, MRF,
//! immediates, indirect and fixed registers) are kept as they are.

use eubatch_ir::{Inst, Operand, RegFile, Region, Shader, Vgrf};

use crate::{Allocation, Placement};

/// Why an allocation cannot be applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AssignError {
    /// An instruction reads or writes a VGRF the allocation gave no register.
    Unplaced { vgrf: Vgrf, inst: Inst },
    /// The thread's input layout is not modelled for this shader.
    Layout(String),
}

impl std::fmt::Display for AssignError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AssignError::Unplaced { vgrf, inst } => write!(
                f,
                "instruction {} accesses vgrf{} which has no register (it needs spills)",
                inst.index(),
                vgrf.index()
            ),
            AssignError::Layout(e) => write!(f, "thread inputs: {e}"),
        }
    }
}

/// The largest width Mesa gives a region (brw_fs_generator.cpp `brw_reg_from_fs_reg`:
/// `max_hw_width`, the widest width the region encoding holds; PRM Vol. 2a "Region
/// Parameters").
const MAX_HW_WIDTH: u32 = 16;

/// The region of an operand of element `stride` and `size` bytes read or written by an
/// instruction of `exec_size` channels, `compressed` when its destination spans more than
/// one register: Mesa's `brw_reg_from_fs_reg`. A width never crosses a register
/// ("VertStride must be used to cross GRF register boundaries", HSW PRM Vol. 2d "Register
/// Region Restrictions"), nor half of a compressed instruction (the hardware splits a
/// region only at a whole multiple of its width).
pub fn hardware_region(
    stride: u32,
    size: u32,
    exec_size: u32,
    compressed: bool,
    reg_size: u32,
) -> Region {
    if stride == 0 {
        return Region::new(0, 1, 0);
    }
    if stride > 4 {
        // <stride;1,0>: a stride the horizontal field cannot hold, one element a row.
        return Region::new(stride as u8, 1, 0);
    }
    let reg_width = (reg_size / (stride * size.max(1))).max(1);
    let phys_width = if compressed { exec_size / 2 } else { exec_size }.max(1);
    let width = reg_width.min(phys_width).min(MAX_HW_WIDTH);
    Region::new((width * stride) as u8, width as u8, stride as u8)
}

/// Whether `inst`'s destination spans more than one register (Mesa 22.3's generator:
/// `inst->dst.component_size(inst->exec_size) > REG_SIZE`).
fn compressed(shader: &Shader, inst: Inst) -> bool {
    let d = &shader.insts.dst[inst];
    let exec = shader.insts.control[inst].exec_size as u32;
    let stride = match d.file {
        RegFile::FixedGrf | RegFile::Arf => d.region.hstride as u32,
        _ => d.stride as u32,
    };
    (stride * exec).max(1) * d.ty.size() > shader.reg_size()
}

/// `shader` with every VGRF and thread-input operand in the register file, by
/// `allocation` and the thread's input layout. The VGRF table of the result is empty.
pub fn assign(shader: &Shader, allocation: &Allocation) -> Result<Shader, AssignError> {
    let layout = shader.input_layout().map_err(AssignError::Layout)?;
    let reg = shader.reg_size();
    let mut out = shader.clone();
    for inst in shader.layout.insts() {
        let exec = shader.insts.control[inst].exec_size as u32;
        let comp = compressed(shader, inst);
        let place = |o: &Operand| -> Result<Operand, AssignError> {
            let byte = match o.file {
                RegFile::Vgrf => {
                    let v = o.vgrf_nr();
                    match allocation.get(v) {
                        Placement::At(at) => (at.grf * reg + at.offset + o.offset) as u64,
                        _ => return Err(AssignError::Unplaced { vgrf: v, inst }),
                    }
                }
                RegFile::Uniform => layout.uniform_byte(o.nr, o.offset),
                RegFile::Attr => layout.attr_byte(o.nr, o.offset),
                _ => return Ok(*o),
            };
            let region = Region {
                swizzle: o.region.swizzle,
                ..hardware_region(o.stride as u32, o.ty.size(), exec, comp, reg)
            };
            Ok(Operand {
                mods: o.mods,
                ..Operand::fixed(
                    (byte / reg as u64) as u32,
                    (byte % reg as u64) as u32,
                    o.ty,
                    region,
                )
            })
        };
        out.insts.dst[inst] = place(&shader.insts.dst[inst])?;
        for (k, s) in shader.srcs(inst).iter().enumerate() {
            let placed = place(s)?;
            out.srcs_mut(inst)[k] = placed;
        }
    }
    out.vgrfs = Default::default();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_as_mesa_gives_them() {
        // A SIMD8 float: <8;8,1>; a SIMD16 float (compressed): two rows of 8.
        assert_eq!(hardware_region(1, 4, 8, false, 32), Region::new(8, 8, 1));
        assert_eq!(hardware_region(1, 4, 16, true, 32), Region::new(8, 8, 1));
        // A SIMD16 word into a word destination (one register, not compressed): <16;16,1>.
        assert_eq!(hardware_region(1, 2, 16, false, 32), Region::new(16, 16, 1));
        // A stride-2 word (a half-float with padding): <16;8,2>.
        assert_eq!(hardware_region(2, 2, 8, false, 32), Region::new(16, 8, 2));
        // A scalar, and a stride the horizontal field cannot hold.
        assert_eq!(hardware_region(0, 4, 8, false, 32), Region::new(0, 1, 0));
        assert_eq!(hardware_region(8, 4, 8, false, 32), Region::new(8, 1, 0));
        // A double: 4 to a register.
        assert_eq!(hardware_region(1, 8, 8, true, 32), Region::new(4, 4, 1));
    }
}
