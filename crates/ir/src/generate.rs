//! Random shaders, valid by construction: the one generator behind the property tests and
//! the cargo-fuzz targets (as regalloc2 shares one `Arbitrary` test case between both).
//!
//! Every choice is read from an [`arbitrary::Unstructured`], so a fuzzer's bytes and a
//! proptest byte vector drive the same code and a failing input shrinks to a small shader.
//! The shader is written in eubatch's text format and parsed: the syntax is the interface
//! every test already reads, and a generated shader shows up in a failure message as text.
//!
//! What a shader holds (a fragment shader for SKL, SIMD8, SIMD16 or SIMD32):
//! - values of the classes F, D, UD, HF and DF with 1 to 4 components; SIMD8 HF values are
//!   half-register components with padding (`Nx16+16`, seed 003);
//! - a prologue that defines every value from the payload, push constants or immediates, so
//!   later reads are defined in the channels that run;
//! - ALU instructions of one type, conversions between classes, source modifiers,
//!   saturate, conditional modifiers writing the flag, predication, NoMask;
//! - partial writes: one component of a value, or one channel group (SIMD8 quarters,
//!   SIMD16 halves) of it;
//! - structured control flow nested up to three deep: `if`/`else`/`endif` on a comparison,
//!   counted loops (the count a small immediate, so every run ends) with predicated
//!   `break` and `cont`;
//! - buffer memory through logical data-port messages at the instruction's execution size
//!   and group: untyped surface reads into a value's components, writes of them, and
//!   untyped atomics (with none, one or two data operands, returning a value or not);
//!   byte- and dword-scattered reads and writes; typed (image) reads, writes and atomics at
//!   one- or two-dimensional texels; varying pull-constant loads of four components; all
//!   on a few binding-table surfaces (an immediate index, or one computed at run time) at
//!   dword addresses from a small range, so that reads,
//!   writes and atomics of one run meet at the same addresses (the order of the messages
//!   is observable: a write is an output record, a read returns what was written before);
//!   writes and atomics allow the sample mask or not, at random (a fragment shader's are
//!   then predicated on it, [`crate::message::sample_mask`]);
//! - one `fb_write_logical` at the end whose colour is an XOR of every value's bits (so any
//!   change to any value is observable) and raw copies of three values.

use std::fmt::Write;

use arbitrary::{Result, Unstructured};

use crate::cfg::{ends_block, starts_block};
use crate::opcode::Opcode;
use crate::shader::Shader;

/// A value's class: one type for all its components.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Class {
    F,
    D,
    UD,
    HF,
    DF,
}

const CLASSES: [Class; 5] = [Class::F, Class::D, Class::UD, Class::HF, Class::DF];

impl Class {
    fn size(self) -> u32 {
        match self {
            Class::HF => 2,
            Class::DF => 8,
            _ => 4,
        }
    }
    fn letters(self) -> &'static str {
        match self {
            Class::F => "F",
            Class::D => "D",
            Class::UD => "UD",
            Class::HF => "HF",
            Class::DF => "DF",
        }
    }
    fn is_float(self) -> bool {
        matches!(self, Class::F | Class::HF | Class::DF)
    }
    /// Immediates spelled as the printer spells them.
    fn immediates(self) -> &'static [&'static str] {
        match self {
            Class::F => &["0f", "1f", "-1f", "0.5f", "2f", "-3.25f", "inff", "1e-30f"],
            Class::HF => &["0hf", "1hf", "-2hf", "0.5hf", "1.5hf"],
            Class::DF => &["0df", "1df", "-0.5df", "3df", "0.1df"],
            Class::D => &["0d", "1d", "-1d", "7d", "-100d", "31d"],
            Class::UD => &["0u", "1u", "5u", "255u", "4294967295u", "16u"],
        }
    }
}

#[derive(Copy, Clone, Debug)]
struct Value {
    nr: u32,
    class: Class,
    comps: u32,
}

struct Gen<'a, 'b> {
    u: &'a mut Unstructured<'b>,
    width: u32,
    /// Bytes per register on [`TARGET`]: the unit of `vgrfN+R.B` and of value padding.
    reg_size: u32,
    values: Vec<Value>,
    /// VGRF declarations, in order.
    decls: Vec<String>,
    /// Instructions, with `block` markers where control flow starts or ends a block.
    body: String,
    /// Instructions emitted, and how many to stop at (so shaders stay small).
    insts: u32,
    budget: u32,
    loop_depth: u32,
}

/// Instructions a generated shader holds at most, beyond its prologue and output (a
/// statement under way may finish past it).
const MAX_INSTS: u32 = 120;

/// The target every generated shader is for.
const TARGET: &str = "skl";

/// `len` bytes for [`shader`] that depend only on `seed`: the fixed samples that tests run
/// beside their property tests, so that a property that must not be vacuous (some shader
/// changed, some compared in the simulator) is checked on the same inputs every run.
pub fn fixed_sample(seed: u64, len: u64) -> Vec<u8> {
    (0..len)
        .map(|i| {
            (i.wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .wrapping_add(seed * 7919)
                >> 13) as u8
        })
        .collect()
}

/// A random valid shader in eubatch's text format.
pub fn shader_text(u: &mut Unstructured<'_>) -> Result<String> {
    let width = *u.choose(&[8u32, 16, 32])?;
    let target = crate::target::Gen::from_name(TARGET).expect("the generator's target");
    let mut g = Gen {
        u,
        width,
        reg_size: target.target().reg_size,
        values: Vec::new(),
        decls: Vec::new(),
        body: String::new(),
        insts: 0,
        budget: 0,
        loop_depth: 0,
    };
    let n = g.u.int_in_range(2..=8)?;
    for _ in 0..n {
        let class = *g.u.choose(&CLASSES)?;
        let comps = g.u.int_in_range(1..=4)?;
        g.new_value(class, comps);
    }
    // Always one of each 32-bit integer class and F, so every operation has operands.
    for class in [Class::F, Class::D, Class::UD] {
        if !g.values.iter().any(|v| v.class == class) {
            g.new_value(class, 1);
        }
    }
    g.prologue()?;
    g.budget = g.insts + g.u.int_in_range(4..=MAX_INSTS)?;
    while g.insts < g.budget && !g.u.is_empty() {
        g.statements(0)?;
    }
    g.output()?;
    let mut text = format!("shader \"generated\" stage FS width {width} target {TARGET}\n");
    for d in &g.decls {
        text.push_str(d);
        text.push('\n');
    }
    text.push_str("block0:\n");
    // Number the blocks in order.
    let mut block = 0;
    let body = g.body.strip_suffix("BLOCK\n").unwrap_or(&g.body);
    for line in body.lines() {
        if line == "BLOCK" {
            block += 1;
            let _ = writeln!(text, "block{block}:");
        } else {
            text.push_str(line);
            text.push('\n');
        }
    }
    Ok(text)
}

/// A random valid shader.
pub fn shader(u: &mut Unstructured<'_>) -> Result<Shader> {
    let text = shader_text(u)?;
    Ok(crate::text::parse_shader(&text).unwrap_or_else(|e| {
        panic!("the generator wrote a shader that does not parse: {e}\n{text}")
    }))
}

/// ` groupN` after an instruction of channel group `group`, or nothing for group 0.
fn group_suffix(group: u32) -> String {
    if group != 0 {
        format!(" group{group}")
    } else {
        String::new()
    }
}

impl Gen<'_, '_> {
    /// `vgrfN+R.B`: byte `off` of VGRF `nr`, as register `R` and byte `B` in it.
    fn at(&self, nr: u32, off: u32) -> String {
        let reg = self.reg_size;
        if off == 0 {
            format!("vgrf{nr}")
        } else {
            format!("vgrf{nr}+{}.{}", off / reg, off % reg)
        }
    }

    fn new_value(&mut self, class: Class, comps: u32) -> Value {
        let nr = self.decls.len() as u32;
        let data = self.width * class.size();
        // A SIMD8 16-bit value fills half a register: pad each component to the register.
        let decl = if data < self.reg_size {
            format!("vgrf{nr} {comps}x{data}+{}", self.reg_size - data)
        } else {
            format!("vgrf{nr} {comps}x{data}")
        };
        self.decls.push(decl);
        let v = Value { nr, class, comps };
        self.values.push(v);
        v
    }

    /// Bytes from one component of a value of `class` to the next: its data, or a whole
    /// register when the data fills less.
    fn pitch(&self, class: Class) -> u32 {
        (self.width * class.size()).max(self.reg_size)
    }

    /// `vgrfN+R.B` for component `comp`, channel `first` on.
    fn reg(&self, v: Value, comp: u32, first: u32) -> String {
        self.at(v.nr, comp * self.pitch(v.class) + first * v.class.size())
    }

    /// Appends an instruction, starting and ending blocks where control flow does
    /// ([`crate::cfg::split_blocks`]'s rule).
    fn emit(&mut self, line: &str) {
        let op = line
            .strip_prefix('(')
            .map_or(line, |l| &l[l.find(") ").unwrap() + 2..]);
        let name = &op[..op.find(['(', '.']).unwrap()];
        let cf = Opcode::from_name(name)
            .unwrap_or_else(|| panic!("generator opcode {name}"))
            .control_flow();
        if starts_block(cf) && !self.body.is_empty() && !self.body.ends_with("BLOCK\n") {
            self.body.push_str("BLOCK\n");
        }
        self.body.push_str("    ");
        self.body.push_str(line);
        self.body.push('\n');
        if ends_block(cf) {
            self.body.push_str("BLOCK\n");
        }
        self.insts += 1;
    }

    fn pick_value(&mut self, class: Option<Class>) -> Result<Value> {
        let candidates: Vec<Value> = self
            .values
            .iter()
            .copied()
            .filter(|v| class.is_none_or(|c| v.class == c))
            .collect();
        Ok(*self.u.choose(&candidates)?)
    }

    /// Defines every component of every value at full width.
    fn prologue(&mut self) -> Result<()> {
        let w = self.width;
        for v in self.values.clone() {
            for c in 0..v.comps {
                let dst = format!("{}:{}", self.reg(v, c, 0), v.class.letters());
                let src = match self.u.int_in_range(0..=3)? {
                    // A payload register, read as F or D and converted.
                    0 | 1 => {
                        let g = self.u.int_in_range(2..=40)?;
                        let ty = if v.class.is_float() { "F" } else { "D" };
                        format!("g{g}<8,8,1>:{ty}")
                    }
                    2 => {
                        let k = self.u.int_in_range(0..=15)?;
                        let ty = if v.class.is_float() { "F" } else { "UD" };
                        format!("u{k}<0>:{ty}")
                    }
                    _ => self.u.choose(v.class.immediates())?.to_string(),
                };
                self.emit(&format!("mov({w}) {dst}, {src}"));
            }
        }
        Ok(())
    }

    fn statements(&mut self, depth: u32) -> Result<()> {
        let n = self.u.int_in_range(1..=6)?;
        for _ in 0..n {
            if self.insts >= self.budget || self.u.is_empty() {
                break;
            }
            match self.u.int_in_range(0..=12)? {
                0..=5 => self.alu()?,
                6 => self.convert()?,
                7 => self.predicated()?,
                8 if depth < 3 => self.if_else(depth)?,
                9 if depth < 3 => self.counted_loop(depth)?,
                10 if self.loop_depth > 0 => self.break_or_continue()?,
                11 => self.memory()?,
                _ => self.alu()?,
            }
        }
        Ok(())
    }

    /// Execution size, channel group and first channel of an instruction: the whole width,
    /// or one channel group of it (a partial write).
    fn exec(&mut self) -> Result<(u32, u32)> {
        if self.width > 8 && self.u.ratio(1, 4)? {
            let size = if self.width == 32 && self.u.arbitrary()? {
                16
            } else {
                8
            };
            let group = self.u.int_in_range(0..=(self.width / size - 1))? * size;
            Ok((size, group))
        } else {
            Ok((self.width, 0))
        }
    }

    /// A source of `class` read at channel `first`: a value's component or, where
    /// `constants` allows, an immediate or (for F) a push constant; with a random source
    /// modifier where `mods` allows.
    fn source(&mut self, class: Class, first: u32, mods: bool, constants: bool) -> Result<String> {
        let kind = if constants {
            self.u.int_in_range(0..=9)?
        } else {
            9
        };
        if kind == 0 {
            return Ok(self.u.choose(class.immediates())?.to_string());
        }
        let (reg, region) = if kind == 1 && class == Class::F {
            (format!("u{}", self.u.int_in_range(0..=15)?), "<0>")
        } else {
            let v = self.pick_value(Some(class))?;
            let c = self.u.int_in_range(0..=v.comps - 1)?;
            (self.reg(v, c, first), "")
        };
        let ty = class.letters();
        let m = if mods { self.u.int_in_range(0..=5)? } else { 5 };
        Ok(match m {
            0 => format!("-{reg}{region}:{ty}"),
            1 if class.is_float() => format!("|{reg}|{region}:{ty}"),
            2 if class.is_float() => format!("-|{reg}|{region}:{ty}"),
            _ => format!("{reg}{region}:{ty}"),
        })
    }

    fn dst(&mut self, class: Class, first: u32) -> Result<String> {
        let v = self.pick_value(Some(class))?;
        let c = self.u.int_in_range(0..=v.comps - 1)?;
        Ok(format!("{}:{}", self.reg(v, c, first), class.letters()))
    }

    fn suffix(&mut self, group: u32) -> Result<String> {
        let mut s = String::new();
        if self.u.ratio(1, 12)? {
            s.push_str(" NoMask");
        }
        if group != 0 {
            let _ = write!(s, " group{group}");
        }
        Ok(s)
    }

    fn alu(&mut self) -> Result<()> {
        let class = self.pick_value(None)?.class;
        let (exec, group) = self.exec()?;
        let float_ops: &[(&str, u32)] = &[
            ("add", 2),
            ("mul", 2),
            ("mad", 3),
            ("sel.l", 2),
            ("sel.ge", 2),
            ("mov", 1),
            ("frc", 1),
            ("rndd", 1),
            ("rnde", 1),
        ];
        let int_ops: &[(&str, u32)] = &[
            ("add", 2),
            ("mul", 2),
            ("and", 2),
            ("or", 2),
            ("xor", 2),
            ("not", 1),
            ("shl", 2),
            ("shr", 2),
            ("asr", 2),
            ("sel.l", 2),
            ("sel.ge", 2),
            ("mov", 1),
        ];
        let math_ops: &[(&str, u32)] = &[
            ("rcp", 1),
            ("rsq", 1),
            ("sqrt", 1),
            ("exp2", 1),
            ("log2", 1),
            ("sin", 1),
            ("pow", 2),
        ];
        let (op, arity) = if class == Class::F && self.u.ratio(1, 5)? {
            *self.u.choose(math_ops)?
        } else if class.is_float() {
            *self.u.choose(float_ops)?
        } else {
            *self.u.choose(int_ops)?
        };
        // DF has no rounding of its own on every generation; keep DF to exact operations.
        let op = if class == Class::DF && matches!(op, "frc" | "rndd" | "rnde") {
            "mov"
        } else {
            op
        };
        let logic = matches!(op, "and" | "or" | "xor" | "not" | "shl" | "shr" | "asr");
        let sat = class.is_float() && self.u.ratio(1, 6)?;
        let math = math_ops.iter().any(|(m, _)| *m == op);
        let cmod = if !op.starts_with("sel") && !math && self.u.ratio(1, 8)? {
            let m = *self.u.choose(&["z", "nz", "l", "ge"])?;
            format!(".{m}.f0.0")
        } else {
            String::new()
        };
        let dst = self.dst(class, group)?;
        let mut srcs = Vec::new();
        for k in 0..arity {
            // Constants where the hardware takes them: the last source of a one- or
            // two-source instruction, none in three-source ones (Mesa's IR keeps to this
            // before lowering; brw_fs_copy_propagation.cpp commutes to get there).
            srcs.push(self.source(class, group, !logic, k + 1 == arity && arity < 3)?);
        }
        let sat = if sat { ".sat" } else { "" };
        let suffix = self.suffix(group)?;
        self.emit(&format!(
            "{op_base}{sat}{sel}{cmod}({exec}) {dst}, {}{suffix}",
            srcs.join(", "),
            op_base = op.split('.').next().unwrap(),
            sel = op.find('.').map(|i| &op[i..]).unwrap_or(""),
        ));
        Ok(())
    }

    fn convert(&mut self) -> Result<()> {
        let from = self.pick_value(None)?.class;
        let to = self.pick_value(None)?.class;
        let (exec, group) = self.exec()?;
        let src = self.source(from, group, true, true)?;
        let dst = self.dst(to, group)?;
        let sat = if to.is_float() && self.u.ratio(1, 6)? {
            ".sat"
        } else {
            ""
        };
        let suffix = self.suffix(group)?;
        self.emit(&format!("mov{sat}({exec}) {dst}, {src}{suffix}"));
        Ok(())
    }

    /// A comparison writing f0.0 (and sometimes a value), then an instruction predicated
    /// on it.
    fn compare(&mut self, exec: u32, group: u32) -> Result<()> {
        let class = self.pick_value(None)?.class;
        let m = *self.u.choose(&["z", "nz", "l", "le", "g", "ge"])?;
        let a = self.source(class, group, true, false)?;
        let b = self.source(class, group, true, true)?;
        // DF comparisons write only the flag (their destination would be 64-bit booleans).
        let dst = if class != Class::DF && self.u.arbitrary()? {
            self.dst(class, group)?
        } else {
            format!("null<8,8,1>:{}", class.letters())
        };
        let g = if group != 0 {
            format!(" group{group}")
        } else {
            String::new()
        };
        self.emit(&format!("cmp.{m}.f0.0({exec}) {dst}, {a}, {b}{g}"));
        Ok(())
    }

    fn predicated(&mut self) -> Result<()> {
        let (exec, group) = self.exec()?;
        self.compare(exec, group)?;
        let class = self.pick_value(None)?.class;
        let inv = if self.u.arbitrary()? { '-' } else { '+' };
        let dst = self.dst(class, group)?;
        let sel: bool = self.u.arbitrary()?;
        let a = self.source(class, group, true, !sel)?;
        let b = self.source(class, group, true, true)?;
        let g = if group != 0 {
            format!(" group{group}")
        } else {
            String::new()
        };
        if sel {
            self.emit(&format!("({inv}f0.0) sel({exec}) {dst}, {a}, {b}{g}"));
        } else {
            self.emit(&format!("({inv}f0.0) mov({exec}) {dst}, {a}{g}"));
        }
        Ok(())
    }

    fn if_else(&mut self, depth: u32) -> Result<()> {
        let w = self.width;
        self.compare(w, 0)?;
        self.emit(&format!("(+f0.0) if({w}) (null):UD"));
        self.statements(depth + 1)?;
        if self.u.arbitrary()? {
            self.emit(&format!("else({w}) (null):UD"));
            self.statements(depth + 1)?;
        }
        self.emit(&format!("endif({w}) (null):UD"));
        Ok(())
    }

    /// `for (i = 0; i < n; i++)` with a fresh counter, `n` at most 4.
    fn counted_loop(&mut self, depth: u32) -> Result<()> {
        let w = self.width;
        let counter = self.new_counter();
        let n = self.u.int_in_range(0..=4)?;
        let c = format!("{}:D", self.reg(counter, 0, 0));
        self.emit(&format!("mov({w}) {c}, 0d"));
        self.emit(&format!("do({w}) (null):UD"));
        self.emit(&format!("cmp.ge.f0.0({w}) null<8,8,1>:D, {c}, {n}d"));
        self.emit(&format!("(+f0.0) break({w}) (null):UD"));
        self.emit(&format!("add({w}) {c}, {c}, 1d"));
        self.loop_depth += 1;
        self.statements(depth + 1)?;
        self.loop_depth -= 1;
        self.emit(&format!("while({w}) (null):UD"));
        Ok(())
    }

    /// A data-port message on buffer memory ([`crate::message::surface`],
    /// [`crate::message::atomic`]): an untyped surface read into a `UD` value, a write of
    /// one, or an untyped atomic, at a dword address computed just before (the low bits
    /// of a value, so that messages of a run share addresses). A message at part of the
    /// width moves one component: a value's components are a whole width apart, a
    /// message's an execution size apart.
    fn memory(&mut self) -> Result<()> {
        let (exec, group) = self.exec()?;
        let g = group_suffix(group);
        let addr = self.new_value(Class::UD, 1);
        self.values.pop();
        let a = format!("{}:UD", self.reg(addr, 0, group));
        let from = self.source(Class::UD, group, false, false)?;
        self.emit(&format!("and({exec}) {a}, {from}, 60u{g}"));
        let surface = self.surface_index(1..=3)?;
        let v = self.pick_value(Some(Class::UD))?;
        let most = if exec == self.width { v.comps } else { 1 };
        let comps = self.u.int_in_range(1..=most)?;
        let data = format!("{}:UD", self.reg(v, 0, group));
        match self.u.int_in_range(0..=5)? {
            3 => return self.scattered(exec, group, &surface, &a),
            4 => return self.typed(exec, group, &surface, &a),
            5 => return self.pull_constants(exec, group, &a),
            // (Its size written is what it answers: eubatch's text gives it by default.)
            0 => self.emit(&format!(
                "untyped_surface_read_logical({exec}) {data}, {surface}, (null):UD, {a}, (null):UD, 1u, {comps}u, 0u{g}"
            )),
            1 => {
                let m = self.sample_mask()?;
                self.emit(&format!(
                    "untyped_surface_write_logical({exec}) (null):UD, {surface}, (null):UD, {a}, {data}, 1u, {comps}u, {m}u{g}"
                ))
            }
            _ => {
                use crate::message::atomic::op;
                let ops = [op::ADD, op::AND, op::OR, op::XOR, op::UMAX, op::IMIN, op::INC, op::CMPWR];
                let mut aop = *self.u.choose(&ops)?;
                if aop == op::CMPWR && most < 2 {
                    aop = op::ADD;
                }
                let operand = match aop {
                    op::INC => "(null):UD".to_string(),
                    _ => data,
                };
                let dst = if self.u.arbitrary()? {
                    self.dst(Class::UD, group)?
                } else {
                    "(null):UD".to_string()
                };
                let m = self.sample_mask()?;
                self.emit(&format!(
                    "untyped_atomic_logical({exec}) {dst}, {surface}, (null):UD, {a}, {operand}, 1u, {aop}u, {m}u{g}"
                ));
            }
        }
        Ok(())
    }

    /// A binding table index in `range`: an immediate, or one time in four an index computed
    /// at run time, as a UBO or SSBO array indexed by a uniform value gives: a scalar made
    /// by an `and(1)` NoMask from channel 0 of a value and an `add(1)` of the range's start
    /// (Mesa makes such an index uniform before the message, `emit_uniformize`).
    fn surface_index(&mut self, range: std::ops::RangeInclusive<u32>) -> Result<String> {
        let (lo, hi) = (*range.start(), *range.end());
        let n = self.u.int_in_range(lo..=hi)?;
        if !self.u.ratio(1, 4)? {
            return Ok(format!("{n}u"));
        }
        let nr = self.decls.len() as u32;
        self.decls.push(format!("vgrf{nr} 1x4"));
        let from = self.source(Class::UD, 0, false, false)?;
        // (Ranges here start at 0 or 1 and span at most 4: a mask, then the start.)
        let mask = (hi - lo + 1).next_power_of_two() / 2;
        let mask = mask.max(1) - 1;
        self.emit(&format!("and(1) vgrf{nr}:UD, {from}, {mask}u NoMask"));
        self.emit(&format!("add(1) vgrf{nr}:UD, vgrf{nr}:UD, {lo}u NoMask"));
        Ok(format!("vgrf{nr}<0>:UD"))
    }

    /// Whether a write or atomic allows the sample mask (Mesa's last surface operand,
    /// `SURFACE_LOGICAL_SRC_ALLOW_SAMPLE_MASK`: set for a shader's own SSBO and image
    /// writes and atomics), as the operand: 0 or 1.
    fn sample_mask(&mut self) -> Result<u32> {
        Ok(self.u.arbitrary::<bool>()? as u32)
    }

    /// A byte- or dword-scattered read or write of one component at address `a` (`bits`
    /// 8, 16 or 32 of each channel's dword for a byte-scattered one).
    fn scattered(&mut self, exec: u32, group: u32, surface: &str, a: &str) -> Result<()> {
        let g = group_suffix(group);
        let which: u32 = self.u.int_in_range(0..=3)?;
        let (kind, bits) = if which < 2 {
            ("dword", 32)
        } else {
            ("byte", *self.u.choose(&[8u32, 16, 32])?)
        };
        if which.is_multiple_of(2) {
            let dst = self.dst(Class::UD, group)?;
            self.emit(&format!(
                "{kind}_scattered_read_logical({exec}) {dst}, {surface}, (null):UD, {a}, (null):UD, 1u, {bits}u, 0u{g}"
            ));
        } else {
            let data = self.source(Class::UD, group, false, false)?;
            let m = self.sample_mask()?;
            self.emit(&format!(
                "{kind}_scattered_write_logical({exec}) (null):UD, {surface}, (null):UD, {a}, {data}, 1u, {bits}u, {m}u{g}"
            ));
        }
        Ok(())
    }

    /// A typed (image) read, write or atomic of `surface` at a texel whose one or two
    /// coordinates are small values computed just before (the first from address `a`).
    /// The width rules split it into SIMD8 messages.
    fn typed(&mut self, exec: u32, group: u32, surface: &str, a: &str) -> Result<()> {
        let g = group_suffix(group);
        let dims = self.u.int_in_range(1..=2)?;
        let coords = self.new_value(Class::UD, dims);
        self.values.pop();
        let x = format!("{}:UD", self.reg(coords, 0, group));
        self.emit(&format!("shr({exec}) {x}, {a}, 2u{g}"));
        if dims == 2 && exec == self.width {
            let y = format!("{}:UD", self.reg(coords, 1, group));
            let from = self.source(Class::UD, group, false, false)?;
            self.emit(&format!("and({exec}) {y}, {from}, 3u{g}"));
        }
        // (A message at part of the width reads its coordinates an execution size apart:
        // one coordinate there.)
        let dims = if exec == self.width { dims } else { 1 };
        let c = format!("{}:UD", self.reg(coords, 0, group));
        let v = self.pick_value(Some(Class::UD))?;
        let most = if exec == self.width { v.comps } else { 1 };
        let comps = self.u.int_in_range(1..=most)?;
        let data = format!("{}:UD", self.reg(v, 0, group));
        match self.u.int_in_range(0..=2)? {
            0 => self.emit(&format!(
                "typed_surface_read_logical({exec}) {data}, {surface}, (null):UD, {c}, (null):UD, {dims}u, {comps}u, 0u{g}"
            )),
            1 => {
                let m = self.sample_mask()?;
                self.emit(&format!(
                    "typed_surface_write_logical({exec}) (null):UD, {surface}, (null):UD, {c}, {data}, {dims}u, {comps}u, {m}u{g}"
                ))
            }
            _ => {
                use crate::message::atomic::op;
                let aop = *self.u.choose(&[op::ADD, op::UMAX, op::INC])?;
                let operand = if aop == op::INC {
                    "(null):UD".to_string()
                } else {
                    self.source(Class::UD, group, false, false)?
                };
                let dst = self.dst(Class::UD, group)?;
                let m = self.sample_mask()?;
                self.emit(&format!(
                    "typed_atomic_logical({exec}) {dst}, {surface}, (null):UD, {c}, {operand}, {dims}u, {aop}u, {m}u{g}"
                ));
            }
        }
        Ok(())
    }

    /// A varying pull-constant load (a sampler `ld` of the constant buffer) of four
    /// components at each channel's address `a`, into a value of four components; at the
    /// whole width only (the components are a whole width apart).
    fn pull_constants(&mut self, exec: u32, group: u32, a: &str) -> Result<()> {
        let fours: Vec<Value> = self
            .values
            .iter()
            .copied()
            .filter(|v| v.comps == 4 && v.class.size() == 4)
            .collect();
        if exec != self.width || fours.is_empty() {
            return Ok(());
        }
        let v = *self.u.choose(&fours)?;
        let dst = format!("{}:F", self.reg(v, 0, group));
        let surface = self.surface_index(0..=2)?;
        self.emit(&format!(
            "varying_pull_const_logical({exec}) {dst}, {surface}, {a}, 4u{}",
            group_suffix(group)
        ));
        Ok(())
    }

    /// A loop counter: a VGRF of its own that no other instruction writes.
    fn new_counter(&mut self) -> Value {
        let v = self.new_value(Class::D, 1);
        // Not a value other instructions may pick.
        self.values.pop();
        v
    }

    fn break_or_continue(&mut self) -> Result<()> {
        let w = self.width;
        self.compare(w, 0)?;
        let op = if self.u.arbitrary()? { "break" } else { "cont" };
        self.emit(&format!("(+f0.0) {op}({w}) (null):UD"));
        Ok(())
    }

    /// The colour: component 0 the XOR of every value's bits, 1..3 raw copies of values.
    fn output(&mut self) -> Result<()> {
        let w = self.width;
        let color = self.new_value(Class::UD, 4);
        self.values.pop();
        let acc = format!("{}:UD", self.reg(color, 0, 0));
        self.emit(&format!("mov({w}) {acc}, 0u"));
        for v in self.values.clone() {
            for c in 0..v.comps {
                let r = self.reg(v, c, 0);
                match v.class {
                    Class::HF => {
                        self.emit(&format!("xor({w}) {acc}, {acc}, {r}:UW"));
                    }
                    Class::DF => {
                        // The low and high halves, as strided 32-bit views.
                        let hi = self.at(v.nr, c * self.pitch(v.class) + 4);
                        self.emit(&format!("xor({w}) {acc}, {acc}, {r}<2>:UD"));
                        self.emit(&format!("xor({w}) {acc}, {acc}, {hi}<2>:UD"));
                    }
                    _ => self.emit(&format!("xor({w}) {acc}, {acc}, {r}:UD")),
                }
            }
        }
        for k in 1..4 {
            let v = self.pick_value(None)?;
            let dst = format!("{}:UD", self.reg(color, k, 0));
            let src = match v.class {
                Class::HF => format!("{}:UW", self.reg(v, 0, 0)),
                Class::DF => format!("{}<2>:UD", self.reg(v, 0, 0)),
                _ => format!("{}:UD", self.reg(v, 0, 0)),
            };
            self.emit(&format!("mov({w}) {dst}, {src}"));
        }
        let color = format!("vgrf{}:F", color.nr);
        self.emit(&format!(
            "fb_write_logical({w}) (EOT) (null):UD, {color}, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 4u"
        ));
        Ok(())
    }
}
