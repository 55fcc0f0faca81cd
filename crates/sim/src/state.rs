//! The thread's registers and how operands address them, element by element.

use eubatch_ir::operand::arf;
use eubatch_ir::{Operand, RegFile, Shader, Type};

use crate::inputs::{integer_word, word, Space};
use crate::layout::InputLayout;
use crate::profile::Profile;
use crate::SimError;

/// Input word `index` of `space`, typed by the shader's [`Profile`]: counts are small.
pub(crate) fn counted_word(profile: &Profile, seed: u64, space: Space, index: u64) -> u32 {
    match profile.kind(space, index) {
        Some(crate::profile::Kind::Integer) => integer_word(seed, space, index),
        Some(crate::profile::Kind::FloatCount) => {
            crate::inputs::float_count_word(seed, space, index)
        }
        None => word(seed, space, index),
    }
}

/// The register file at thread start: every word from the seed, but the header word the
/// hardware clears: g0.2 is 0 for vertex and fragment threads (Mesa's sampler lowering
/// copies g0 into message headers relying on it; brw_lower_logical_sends.cpp).
fn payload(shader: &Shader, seed: u64) -> Vec<u8> {
    let target = shader.target.target();
    let mut grf = vec![0u8; (target.grf_count * target.reg_size) as usize];
    for (i, chunk) in grf.chunks_mut(4).enumerate() {
        chunk.copy_from_slice(&word(seed, Space::Payload, i as u64).to_le_bytes());
    }
    grf[8..12].fill(0);
    // A fragment thread's dispatch (pixel) mask, g1.7 and for SIMD32 g2.7: the lit pixels
    // of its subspans, the ones messages with side effects act on
    // (`eubatch_ir::message::sample_mask`).
    if shader.stage == eubatch_ir::shader::Stage::Fs
        && shader.backend == eubatch_ir::Backend::Scalar
    {
        use eubatch_ir::message::sample_mask::{dispatch_mask_reg, DISPATCH_MASK_DWORD};
        let width = shader.dispatch_width as u32;
        for half in 0..width.div_ceil(16) {
            let reg = dispatch_mask_reg(16 * half);
            let at = (reg * target.reg_size + 4 * DISPATCH_MASK_DWORD) as usize;
            let mask = crate::inputs::pixel_mask(seed, half, width.min(16));
            if at + 4 <= grf.len() {
                grf[at..at + 4].copy_from_slice(&mask.to_le_bytes());
            }
        }
    }
    grf
}

/// What storage never written holds: every byte of a fresh VGRF, and scratch bytes no
/// spill stored (so a fill of a VGRF the program only `undef`s reads what the VGRF held).
pub const FRESH_BYTE: u8 = 0xAA;

/// Register state of one thread.
pub struct Thread {
    pub seed: u64,
    pub vgrfs: Vec<Vec<u8>>,
    /// Which VGRF bytes were written: reading others is reported (poison reads).
    pub defined: Vec<Vec<bool>>,
    pub grf: Vec<u8>,
    /// Bytes per register of `grf` (the target's [`eubatch_ir::Target::reg_size`]).
    pub reg_size: u32,
    /// Flag subregisters f0.0, f0.1, f1.0, f1.1: 16 channel bits each.
    pub flags: u64,
    pub acc: [u8; 128],
    /// The exact integer each element of acc0 last received, before it was cut to the
    /// operand's type: the accumulator keeps the bits of a 32x16-bit product that MACH
    /// then adds to (PRM Vol. 7 "Accumulator Registers", "MACH"; Mesa `lower_mulh_inst`).
    pub acc_exact: [i128; 16],
    /// The thread's scratch memory (register spills), by byte address: each byte's value
    /// and whether what was stored there was defined (a spill of a value never written
    /// fills back as undefined, as the value was); a byte never stored reads as
    /// [`FRESH_BYTE`], undefined.
    pub scratch: hashbrown::HashMap<u64, (u8, bool)>,
    /// The channels that are live (enabled by control flow) at the current instruction:
    /// what the channel-enable register `mask0` (ce0) reads.
    pub live: u32,
    /// The address register a0: sixteen 16-bit subregisters holding register-file byte
    /// addresses for indirect operands.
    pub addr: [u8; 32],
    /// Poisoned reads seen (first few kept for the report).
    pub poison_reads: u64,
    /// Buffer memory written by surface messages.
    pub memory: crate::memory::Memory,
    /// Which input words are integers.
    pub profile: Profile,
    /// Where push constants and attributes are in `grf`, when the run reads them there.
    pub layout: Option<InputLayout>,
    /// What raw render-target writes carry, when the run is of final code.
    pub fb: Option<crate::layout::FbLayout>,
    /// SIMD4x2 execution ([`crate::vec4`]).
    pub vec4: crate::vec4::State,
    /// A fragment shader that discards: its sample mask is in the flag f1, not the
    /// payload's dispatch mask ([`eubatch_ir::message::sample_mask::in_flag`]).
    pub sample_mask_in_flag: bool,
    /// A fragment thread's dispatch masks as the payload delivered them (g1.7, g2.7), kept
    /// from thread start: final code may reuse those registers once it has read them.
    pub dispatch_mask: u32,
    /// The channels the thread was dispatched with: all of its dispatch width.
    pub dispatched: u32,
}

/// Inputs placed in the register file as Mesa's hardware thread receives them, shared by a
/// logical shader and its final code so both run on the same values.
#[derive(Clone, Debug)]
pub struct HardwareInputs {
    pub layout: InputLayout,
    /// What render-target writes carry (fragment shaders).
    pub fb: Option<crate::layout::FbLayout>,
    /// The register file at thread start.
    pub grf: Vec<u8>,
    /// The thread runs vec4 (SIMD4x2) code: the start shader is a vec4 one, and so is its
    /// final code, which the listing does not mark.
    pub vec4: bool,
}

impl HardwareInputs {
    /// The inputs of `start` (a logical shader) for `seed`: every payload word from the
    /// seed, and the push constants and attributes it reads as integers replaced by
    /// integer words at their registers (as [`Profile`] does for logical runs).
    pub fn of(start: &Shader, seed: u64) -> Result<HardwareInputs, SimError> {
        if start.backend == eubatch_ir::Backend::Vec4 {
            return crate::vec4::layout::hardware_inputs(start, seed, payload(start, seed));
        }
        let layout = start.input_layout().map_err(SimError::msg)?;
        let mut grf = payload(start, seed);
        let profile = Profile::of(start);
        for (space, w, _) in profile.words() {
            let (nr, offset) = crate::inputs::input_of_byte(space, w * 4);
            let byte = match space {
                Space::Uniform => layout.uniform_byte(nr, offset),
                Space::Attr => layout.attr_byte(nr, offset),
                _ => continue,
            } as usize;
            if byte + 4 <= grf.len() {
                grf[byte..byte + 4]
                    .copy_from_slice(&counted_word(&profile, seed, space, w).to_le_bytes());
            }
        }
        Ok(HardwareInputs {
            layout,
            fb: crate::layout::FbLayout::of(start),
            grf,
            vec4: false,
        })
    }
}

impl Thread {
    pub fn new(shader: &Shader, seed: u64) -> Thread {
        let vgrfs: Vec<Vec<u8>> = shader
            .vgrfs
            .iter()
            .map(|l| vec![FRESH_BYTE; l.size() as usize])
            .collect();
        let defined = vgrfs.iter().map(|v| vec![false; v.len()]).collect();
        let grf = payload(shader, seed);
        let mut t = Thread {
            seed,
            vgrfs,
            defined,
            grf,
            reg_size: shader.reg_size(),
            flags: 0,
            acc: [0; 128],
            acc_exact: [0; 16],
            addr: [0; 32],
            live: 0,
            scratch: Default::default(),
            poison_reads: 0,
            memory: Default::default(),
            profile: Profile::of(shader),
            layout: None,
            fb: None,
            vec4: Default::default(),
            sample_mask_in_flag: eubatch_ir::message::sample_mask::in_flag(shader),
            dispatch_mask: 0,
            dispatched: u32::MAX >> (32 - (shader.dispatch_width as u32).clamp(1, 32)),
        };
        t.keep_dispatch_mask();
        t
    }

    /// Takes [`Thread::dispatch_mask`] from the register file as it is at thread start.
    pub fn keep_dispatch_mask(&mut self) {
        use eubatch_ir::message::sample_mask::dispatch_mask;
        let half = |group: u32| {
            let m = dispatch_mask(group);
            let at = (m.nr * self.reg_size + m.offset) as usize;
            self.grf
                .get(at..at + 2)
                .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]) as u32)
        };
        self.dispatch_mask = half(0) | half(16) << 16;
    }

    /// The sample mask of a fragment thread, bit `c` for channel `c`: the flag f1 in a
    /// shader that discards, else the dispatch masks of the payload (g1.7 for channels
    /// 0-15, g2.7 for 16-31, as at thread start), where Mesa's lowered messages read it
    /// ([`eubatch_ir::message::sample_mask`]).
    pub fn sample_mask(&self) -> u32 {
        use eubatch_ir::message::sample_mask::FLAG_SUBREG;
        if self.sample_mask_in_flag {
            return (self.flags >> (16 * FLAG_SUBREG as u32)) as u32;
        }
        self.dispatch_mask
    }

    /// Input word `index` of `space`, typed by the shader's [`Profile`].
    pub fn input_word(&self, space: Space, index: u64) -> u32 {
        counted_word(&self.profile, self.seed, space, index)
    }

    /// Register-file byte of element `i` of an indirect operand: the address subregister's
    /// value plus the immediate offset and the element's place in the region; in a VxH
    /// region each row takes the next address subregister.
    fn indirect_byte(&self, op: &Operand, i: u32) -> Result<usize, SimError> {
        let r = op.region;
        let (sub, within) = if r.vstride == eubatch_ir::Region::VXH {
            let w = r.width.max(1) as u32;
            (
                op.nr + i / w,
                (i % w) as u64 * r.hstride as u64 * op.ty.size() as u64,
            )
        } else {
            (op.nr, Self::element_addr(op, i))
        };
        let k = 2 * sub as usize;
        let a = self
            .addr
            .get(k..k + 2)
            .ok_or_else(|| SimError::msg(format!("a0.{sub} is not an address subregister")))?;
        let base = u16::from_le_bytes([a[0], a[1]]) as i64;
        Ok((base + op.offset as i32 as i64 + within as i64).max(0) as usize)
    }

    /// [`Thread::element_addr`] of an Align16 source read with a swizzle (a region four
    /// elements wide whose swizzle is not `.xyzw`): channel `i` is component `i % 4` of row
    /// `i / 4`, and the swizzle picks the element of the row it reads (PRM Vol. 7 "Align16
    /// Access Mode"; Mesa's gen7 derivatives, brw_fs_generator.cpp `generate_ddx`). 64-bit
    /// elements, whose Align16 swizzles select pairs of dwords, keep the plain region.
    fn swizzled_addr(op: &Operand, i: u32) -> u64 {
        let r = op.region;
        let sz = op.ty.size() as u64;
        if r.width != 4 || r.swizzle == eubatch_ir::Region::XYZW || sz > 4 {
            return Self::element_addr(op, i);
        }
        let (row, comp) = (i as u64 / 4, i % 4);
        let sel = (r.swizzle >> (2 * comp)) & 3;
        (row * r.vstride as u64 + sel as u64 * r.hstride as u64) * sz
    }

    /// Byte address of element `i` of `op` (its `i`-th channel of the instruction).
    fn element_addr(op: &Operand, i: u32) -> u64 {
        let sz = op.ty.size() as u64;
        match op.file {
            RegFile::FixedGrf | RegFile::Arf | RegFile::Indirect => {
                let r = op.region;
                let w = r.width.max(1) as u64;
                let (row, col) = (i as u64 / w, i as u64 % w);
                (row * r.vstride as u64 + col * r.hstride as u64) * sz
            }
            _ => i as u64 * op.stride as u64 * sz,
        }
    }

    /// The bytes `off..off+sz` of `op`'s VGRF, checked against its size.
    pub(crate) fn vgrf_range(
        &self,
        op: &Operand,
        off: u64,
        sz: usize,
        what: &str,
    ) -> Result<std::ops::Range<usize>, SimError> {
        let v = self
            .vgrfs
            .get(op.nr as usize)
            .ok_or_else(|| SimError::msg(format!("vgrf{} does not exist", op.nr)))?;
        let end = off as usize + sz;
        if end > v.len() {
            return Err(SimError::msg(format!(
                "{what} of vgrf{} bytes {off}..{end} is out of bounds ({} bytes)",
                op.nr,
                v.len()
            )));
        }
        Ok(off as usize..end)
    }

    /// [`Thread::read`] for what a message sends: bytes past the end of the VGRF are
    /// undefined rather than an error. Mesa 25 sends four colour components from VGRFs that
    /// hold three (brw_from_nir.cpp builds the colour from the output's components only),
    /// so the message reads whatever register follows.
    pub fn read_message_part(&mut self, op: &Operand, i: u32) -> Result<u64, SimError> {
        if op.file == RegFile::Vgrf {
            let end = op.offset as u64 + Self::element_addr(op, i) + op.ty.size() as u64;
            if self
                .vgrfs
                .get(op.nr as usize)
                .is_some_and(|v| end > v.len() as u64)
            {
                self.poison_reads += 1;
                return Ok(0);
            }
        }
        self.read(op, i)
    }

    /// Reads element `i` of a source as raw bits, and whether they were defined (no byte
    /// of them was never written: a poison read, [`Thread::poison_reads`]). A copy of it
    /// keeps that with [`Thread::write_copy`].
    pub fn read_defined(&mut self, op: &Operand, i: u32) -> Result<(u64, bool), SimError> {
        let poison = self.poison_reads;
        let bits = self.read(op, i)?;
        Ok((bits, self.poison_reads == poison))
    }

    /// A binding-table index given by an operand in channel `i`: an immediate as it is,
    /// or a value computed at run time, read as UD, of which only the index's bits count,
    /// as a lowered send's descriptor takes them
    /// ([`eubatch_ir::message::surface::BINDING_TABLE_INDEX_MASK`]).
    pub fn binding_table_index(&mut self, op: &Operand, i: u32) -> Result<u64, SimError> {
        if op.file == RegFile::Imm {
            return Ok(op.imm_bits());
        }
        let ud = Operand {
            ty: Type::UD,
            ..*op
        };
        Ok(self.read(&ud, i)? & eubatch_ir::message::surface::BINDING_TABLE_INDEX_MASK as u64)
    }

    /// Reads element `i` of a source as raw bits.
    pub fn read(&mut self, op: &Operand, i: u32) -> Result<u64, SimError> {
        let sz = op.ty.size() as usize;
        if op.file == RegFile::Imm {
            let bits = op.imm_bits();
            return Ok(match op.ty {
                Type::V | Type::UV => {
                    let nib = (bits >> (4 * (i % 8))) & 0xf;
                    if op.ty == Type::V && nib & 8 != 0 {
                        (nib | !0xf) & 0xffff
                    } else {
                        nib
                    }
                }
                Type::VF => {
                    let b = (bits >> (8 * (i % 4))) as u8;
                    eubatch_ir::text::imm::vf_to_f32(b).to_bits() as u64
                }
                _ => bits,
            });
        }
        if self.vec4.active() && crate::vec4::regs::is_vec4_file(op) {
            return crate::vec4::read(self, op, i);
        }
        let off = op.offset as u64 + Self::element_addr(op, i);
        let mut buf = [0u8; 8];
        match op.file {
            RegFile::Vgrf => {
                let r = self.vgrf_range(op, off, sz, "read")?;
                let v = &self.vgrfs[op.nr as usize];
                buf[..sz].copy_from_slice(&v[r.clone()]);
                if self.defined[op.nr as usize][r].iter().any(|d| !d) {
                    self.poison_reads += 1;
                }
            }
            RegFile::FixedGrf => {
                let off = op.offset as u64 + Self::swizzled_addr(op, i);
                let a = op.nr as u64 * self.reg_size as u64 + off;
                let end = a as usize + sz;
                if end > self.grf.len() {
                    return Err(SimError::msg(format!(
                        "read of g{} is outside the register file",
                        op.nr
                    )));
                }
                buf[..sz].copy_from_slice(&self.grf[a as usize..end]);
            }
            RegFile::Uniform | RegFile::Attr if self.layout.is_some() => {
                // Inputs at their registers (a run compared against Mesa's final code).
                let l = self.layout.as_ref().unwrap();
                let base = if op.file == RegFile::Uniform {
                    l.uniform_byte(op.nr, op.offset)
                } else {
                    l.attr_byte(op.nr, op.offset)
                };
                let a = (base + Self::element_addr(op, i)) as usize;
                if a + sz > self.grf.len() {
                    return Err(SimError::msg(format!(
                        "{} is outside the register file in the hardware layout",
                        if op.file == RegFile::Uniform {
                            "push constant"
                        } else {
                            "attribute"
                        }
                    )));
                }
                buf[..sz].copy_from_slice(&self.grf[a..a + sz]);
            }
            RegFile::Uniform | RegFile::Attr => {
                let space = if op.file == RegFile::Uniform {
                    Space::Uniform
                } else {
                    Space::Attr
                };
                let base = crate::inputs::input_byte(space, op.nr, 0);
                for (k, b) in buf[..sz].iter_mut().enumerate() {
                    let a = base + off + k as u64;
                    *b = self.input_word(space, a / 4).to_le_bytes()[(a % 4) as usize];
                }
            }
            RegFile::Arf => match op.nr & 0xf0 {
                arf::NULL => {}
                arf::FLAG => {
                    let bit = (op.nr & 0xf) as u64 * 32
                        + op.offset as u64 * 8
                        + Self::element_addr(op, i) * 8;
                    let v = self.flags.checked_shr(bit as u32).unwrap_or(0);
                    buf[..8].copy_from_slice(&v.to_le_bytes());
                }
                arf::ACCUMULATOR => {
                    let a = (op.nr & 0xf) as usize * 64 + off as usize;
                    if a + sz > self.acc.len() {
                        return Err(SimError::msg("accumulator read out of range"));
                    }
                    buf[..sz].copy_from_slice(&self.acc[a..a + sz]);
                }
                arf::ADDRESS if op.nr == arf::ADDRESS => {
                    let a = off as usize;
                    if a + sz > self.addr.len() {
                        return Err(SimError::msg("address register read out of range"));
                    }
                    buf[..sz].copy_from_slice(&self.addr[a..a + sz]);
                }
                // mask0 / ce0: the channel enables of the live channels (PRM Vol. 7
                // "Channel Enable Register"); Mesa's find-live-channel reads it with `fbl`.
                arf::MASK if op.offset == 0 => {
                    buf[..4].copy_from_slice(&self.live.to_le_bytes());
                }
                // sr0.2 and sr0.3, the dispatch and vector masks: the channels the thread
                // was dispatched with (PRM Vol. 7 "State Register"; Mesa's
                // find-live-channel ANDs one of them into ce0 where dispatch is not
                // packed: brw_eu_emit.c `brw_find_live_channel`, brw_fs_generator.cpp
                // `brw_dmask_reg`, `brw_vmask_reg`). Every channel of a dispatch runs
                // here, a fragment's helper invocations too.
                arf::STATE if op.nr == arf::STATE && matches!(off, 8 | 12) => {
                    buf[..4].copy_from_slice(&self.dispatched.to_le_bytes());
                }
                // tm0 (PRM Vol. 7 "Timestamp Register"): dwords 0 and 1 the 64-bit count,
                // dword 2 whose bit 0 says the count was reset since the last read, 3
                // reserved. The count is drawn from the seed and does not advance while a
                // thread runs: a short thread may see that on hardware (the count ticks
                // at a fixed frequency far below the EU clock's), and any program
                // transformation keeps it, so the start IR and its compiled code read
                // the same values. No reset happens.
                arf::TIMESTAMP if op.nr == arf::TIMESTAMP && off + sz as u64 <= 16 => {
                    let mut tm = [0u8; 16];
                    for dword in 0..2u64 {
                        let w = word(self.seed, Space::Timestamp, dword);
                        tm[4 * dword as usize..][..4].copy_from_slice(&w.to_le_bytes());
                    }
                    buf[..sz].copy_from_slice(&tm[off as usize..off as usize + sz]);
                }
                _ => {
                    return Err(SimError::msg(format!(
                        "reading this architecture register (nr 0x{:x}) is not modelled",
                        op.nr
                    )))
                }
            },
            RegFile::Indirect => {
                let a = self.indirect_byte(op, i)?;
                if a + sz > self.grf.len() {
                    return Err(SimError::msg(format!(
                        "indirect read of byte {a} is outside the register file"
                    )));
                }
                buf[..sz].copy_from_slice(&self.grf[a..a + sz]);
            }
            RegFile::Bad => return Err(SimError::msg("read of a null source")),
            RegFile::Mrf | RegFile::VAddr => {
                return Err(SimError::msg(format!(
                    "{:?} registers are not modelled",
                    op.file
                )))
            }
            RegFile::Imm => unreachable!(),
        }
        Ok(u64::from_le_bytes(buf))
    }

    /// Writes element `i` of a destination.
    /// Writes element `i` as a copy of a source element that was `defined` or not: an
    /// undefined source leaves the destination undefined (copies of never-written bytes stay
    /// "don't care" through payload building, so outputs made of them match anything).
    pub fn write_copy(
        &mut self,
        op: &Operand,
        i: u32,
        bits: u64,
        defined: bool,
    ) -> Result<(), SimError> {
        self.write(op, i, bits)?;
        if !defined && self.vec4.active() {
            return crate::vec4::undefine(self, op, i);
        }
        if !defined && op.file == RegFile::Vgrf {
            let sz = op.ty.size() as usize;
            let off = op.offset as u64 + Self::element_addr(op, i);
            let r = self.vgrf_range(op, off, sz, "write")?;
            self.defined[op.nr as usize][r]
                .iter_mut()
                .for_each(|d| *d = false);
        }
        Ok(())
    }

    pub fn write(&mut self, op: &Operand, i: u32, bits: u64) -> Result<(), SimError> {
        if self.vec4.active() && crate::vec4::write(self, op, i, bits)? {
            return Ok(());
        }
        let sz = op.ty.size() as usize;
        let off = op.offset as u64 + Self::element_addr(op, i);
        let bytes = bits.to_le_bytes();
        match op.file {
            RegFile::Vgrf => {
                let r = self.vgrf_range(op, off, sz, "write")?;
                self.vgrfs[op.nr as usize][r.clone()].copy_from_slice(&bytes[..sz]);
                self.defined[op.nr as usize][r]
                    .iter_mut()
                    .for_each(|d| *d = true);
            }
            RegFile::FixedGrf => {
                let a = (op.nr as u64 * self.reg_size as u64 + off) as usize;
                if a + sz > self.grf.len() {
                    return Err(SimError::msg(format!(
                        "write of g{} is outside the register file",
                        op.nr
                    )));
                }
                self.grf[a..a + sz].copy_from_slice(&bytes[..sz]);
            }
            RegFile::Arf => match op.nr & 0xf0 {
                arf::NULL => {}
                arf::FLAG => {
                    // f0 and f1 are 32 bits each: bit = register * 32 + byte offset * 8.
                    let bit = (op.nr & 0xf) as u64 * 32 + off * 8;
                    let width = (sz * 8) as u64;
                    if bit + width > 64 {
                        return Err(SimError::msg(format!(
                            "flag write f{}.{} out of range",
                            op.nr & 0xf,
                            op.offset
                        )));
                    }
                    let mask = if width == 64 {
                        u64::MAX
                    } else {
                        (1u64 << width) - 1
                    } << bit;
                    self.flags = (self.flags & !mask) | ((bits << bit) & mask);
                }
                arf::ACCUMULATOR => {
                    let a = (op.nr & 0xf) as usize * 64 + off as usize;
                    if a + sz > self.acc.len() {
                        return Err(SimError::msg("accumulator write out of range"));
                    }
                    self.acc[a..a + sz].copy_from_slice(&bytes[..sz]);
                }
                arf::ADDRESS if op.nr == arf::ADDRESS => {
                    let a = off as usize;
                    if a + sz > self.addr.len() {
                        return Err(SimError::msg("address register write out of range"));
                    }
                    self.addr[a..a + sz].copy_from_slice(&bytes[..sz]);
                }
                // sr0.1 bits 11:8, Haswell's shared-local-memory index, which a compute
                // thread copies from g0.0 (brw_fs.cpp `fs_visitor::run_cs`): it says which
                // block of shared memory is the workgroup's; the one simulated thread has
                // its shared memory to itself, so it changes nothing here.
                arf::STATE if op.nr == arf::STATE && (4..8).contains(&off) => {}
                _ => {
                    return Err(SimError::msg(format!(
                        "writing this architecture register (nr 0x{:x}) is not modelled",
                        op.nr
                    )))
                }
            },
            RegFile::Indirect => {
                let a = self.indirect_byte(op, i)?;
                if a + sz > self.grf.len() {
                    return Err(SimError::msg(format!(
                        "indirect write of byte {a} is outside the register file"
                    )));
                }
                self.grf[a..a + sz].copy_from_slice(&bytes[..sz]);
            }
            RegFile::Bad => {}
            _ => {
                return Err(SimError::msg(format!(
                    "{:?} registers cannot be written",
                    op.file
                )))
            }
        }
        Ok(())
    }

    /// Marks a whole VGRF defined (`undef` says its old contents do not matter).
    pub fn define_all(&mut self, nr: u32) {
        if let Some(d) = self.defined.get_mut(nr as usize) {
            d.iter_mut().for_each(|b| *b = true);
        }
    }

    pub fn flag(&self, subreg: u8, channel: u32) -> bool {
        (self.flags >> (subreg as u32 * 16 + channel)) & 1 != 0
    }

    pub fn set_flag(&mut self, subreg: u8, channel: u32, v: bool) {
        let bit = subreg as u32 * 16 + channel;
        if bit < 64 {
            if v {
                self.flags |= 1 << bit;
            } else {
                self.flags &= !(1 << bit);
            }
        }
    }
}
