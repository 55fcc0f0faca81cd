//! The instruction builder: what every pass that emits code uses to make instructions.
//!
//! A [`Builder`] is the execution control new instructions run in — how many channels,
//! from which channel (`group`), with or without the execution mask (`exec_all`) — in the
//! spirit of Mesa's `fs_builder` (brw_fs_builder.h: `group(n, i)`, `exec_all()`,
//! `half(i)`). Its methods are named like the opcodes they emit and derive `size_written`
//! from the destination region, type and execution size ([`size_written`], Mesa's
//! `dst.component_size(exec_size)`), so a pass says what it emits and not how many bytes
//! that writes. Where an instruction writes something else (a share of the instruction it
//! replaces, a message's response, a payload's own layout) the `_sized` forms take the
//! size, and the call says why.
//!
//! A builder is a plain value: it creates instructions in the shader's columns and returns
//! them; where they go in the layout stays with the pass. Unlike Mesa's builder, it has no
//! insertion point on purpose: a block's layout is one `Vec<Inst>`, so inserting each new
//! instruction where it goes would move the rest of the block every time (quadratic in a
//! block that lowering rewrites throughout). A pass instead returns, per instruction it
//! replaces, the instructions that take its place, and the block is rebuilt once
//! (`eubatch_passes::lower::replace_each` and its kin).

use crate::shader::{InstBuilder, SendInfo};
use crate::{Control, Inst, Opcode, Operand, Shader};

/// Bytes an instruction of `exec_size` channels writes at `dst`: `exec_size` elements at
/// the destination's stride (or region, for a fixed register).
pub fn size_written(dst: &Operand, exec_size: u32) -> u32 {
    dst.footprint(exec_size)
}

/// The execution control of the instructions it makes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Builder {
    control: Control,
}

impl Builder {
    /// `exec_size` channels from channel 0, under the execution mask, nothing else set.
    pub fn new(exec_size: u8) -> Builder {
        Builder {
            control: Control::new(exec_size),
        }
    }

    /// The channels `ctl` runs in (size, group, NoMask), without its other controls
    /// (predicate, conditional modifier, saturate, EOT...): what helper moves run in.
    pub fn channels_of(ctl: Control) -> Builder {
        Builder::new(ctl.exec_size)
            .at(ctl.group)
            .exec_all_if(ctl.no_mask())
    }

    /// All of `ctl`: instructions made with the controls of the one they replace.
    pub fn with_control(control: Control) -> Builder {
        Builder { control }
    }

    /// The execution mask off (Mesa's `exec_all()`).
    pub fn exec_all(self) -> Builder {
        self.exec_all_if(true)
    }

    /// The execution mask off when `on`, on otherwise.
    pub fn exec_all_if(mut self, on: bool) -> Builder {
        self.control.set(Control::NO_MASK, on);
        self
    }

    /// `n` channels, the `i`-th group of `n` of this builder's channels (Mesa's
    /// `group(n, i)`).
    pub fn group(mut self, n: u8, i: u8) -> Builder {
        debug_assert!(n as u32 * (i as u32 + 1) <= self.control.exec_size as u32);
        self.control.group += n * i;
        self.control.exec_size = n;
        self
    }

    /// Half `i` of this builder's channels (Mesa's `half(i)`).
    pub fn half(self, i: u8) -> Builder {
        self.group(self.control.exec_size / 2, i)
    }

    /// The same number of channels, starting at channel `first`.
    pub fn at(mut self, first: u8) -> Builder {
        self.control.group = first;
        self
    }

    pub fn control(&self) -> Control {
        self.control
    }

    pub fn exec_size(&self) -> u32 {
        self.control.exec_size as u32
    }

    /// The fields of `op dst, srcs`, its size derived.
    pub fn build<'a>(&self, op: Opcode, dst: Operand, srcs: &'a [Operand]) -> InstBuilder<'a> {
        self.build_sized(op, dst, srcs, size_written(&dst, self.exec_size()))
    }

    /// The fields of `op dst, srcs` writing `size_written` bytes.
    pub fn build_sized<'a>(
        &self,
        op: Opcode,
        dst: Operand,
        srcs: &'a [Operand],
        size_written: u32,
    ) -> InstBuilder<'a> {
        InstBuilder {
            opcode: op,
            control: self.control,
            dst,
            srcs,
            size_written,
            send: None,
        }
    }

    /// `op dst, srcs`, its size derived.
    pub fn alu(&self, shader: &mut Shader, op: Opcode, dst: Operand, srcs: &[Operand]) -> Inst {
        shader.create_inst(self.build(op, dst, srcs))
    }

    /// `op dst, srcs` writing `size_written` bytes.
    pub fn alu_sized(
        &self,
        shader: &mut Shader,
        op: Opcode,
        dst: Operand,
        srcs: &[Operand],
        size_written: u32,
    ) -> Inst {
        shader.create_inst(self.build_sized(op, dst, srcs, size_written))
    }

    /// A message instruction `op dst, srcs` with its message fields, writing
    /// `size_written` bytes (a response's size is the message's, not the region's).
    pub fn message(
        &self,
        shader: &mut Shader,
        op: Opcode,
        dst: Operand,
        srcs: &[Operand],
        size_written: u32,
        send: Option<SendInfo>,
    ) -> Inst {
        shader.create_inst(InstBuilder {
            send,
            ..self.build_sized(op, dst, srcs, size_written)
        })
    }

    pub fn mov(&self, shader: &mut Shader, dst: Operand, src: Operand) -> Inst {
        self.alu(shader, Opcode::Mov, dst, &[src])
    }

    pub fn sel(&self, shader: &mut Shader, dst: Operand, a: Operand, b: Operand) -> Inst {
        self.alu(shader, Opcode::Sel, dst, &[a, b])
    }

    pub fn add(&self, shader: &mut Shader, dst: Operand, a: Operand, b: Operand) -> Inst {
        self.alu(shader, Opcode::Add, dst, &[a, b])
    }

    pub fn mul(&self, shader: &mut Shader, dst: Operand, a: Operand, b: Operand) -> Inst {
        self.alu(shader, Opcode::Mul, dst, &[a, b])
    }

    pub fn and(&self, shader: &mut Shader, dst: Operand, a: Operand, b: Operand) -> Inst {
        self.alu(shader, Opcode::And, dst, &[a, b])
    }

    pub fn or(&self, shader: &mut Shader, dst: Operand, a: Operand, b: Operand) -> Inst {
        self.alu(shader, Opcode::Or, dst, &[a, b])
    }

    pub fn shl(&self, shader: &mut Shader, dst: Operand, a: Operand, b: Operand) -> Inst {
        self.alu(shader, Opcode::Shl, dst, &[a, b])
    }

    pub fn shr(&self, shader: &mut Shader, dst: Operand, a: Operand, b: Operand) -> Inst {
        self.alu(shader, Opcode::Shr, dst, &[a, b])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Type;

    #[test]
    fn group_and_half_take_a_share_of_the_channels() {
        let b = Builder::new(16).at(16).exec_all();
        let h = b.half(1);
        assert_eq!((h.control().exec_size, h.control().group), (8, 24));
        assert!(h.control().no_mask());
        let q = Builder::new(32).group(8, 3);
        assert_eq!((q.control().exec_size, q.control().group), (8, 24));
    }

    #[test]
    fn channels_of_keeps_only_the_channels() {
        let mut c = Control::new(16);
        c.group = 16;
        c.set(Control::NO_MASK, true);
        c.set(Control::SATURATE, true);
        c.cmod = crate::shader::CondMod::Z;
        let b = Builder::channels_of(c).control();
        let mut want = Control::new(16);
        want.group = 16;
        want.set(Control::NO_MASK, true);
        assert_eq!(b, want);
    }

    #[test]
    fn sizes_are_derived_from_the_destination() {
        let b = Builder::new(16);
        let d = Operand::vgrf(3, 0, Type::F, 2);
        assert_eq!(b.build(Opcode::Mov, d, &[]).size_written, 16 * 2 * 4);
        let one = Builder::new(1).exec_all();
        let d = Operand::vgrf(3, 4, Type::UD, 1);
        assert_eq!(one.build(Opcode::Mov, d, &[]).size_written, 4);
    }
}
