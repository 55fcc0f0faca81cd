//! Operands: one 16-byte record for every destination and source.

use crate::types::Type;

/// Register files (Mesa's `enum brw_reg_file`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum RegFile {
    /// No operand (Mesa's BAD_FILE, printed `(null)`).
    Bad,
    /// Virtual register, allocated later.
    Vgrf,
    /// A fixed general register `gN`, with a hardware region.
    FixedGrf,
    /// Architecture register file: null, address, accumulator, flag, ...
    Arf,
    /// Message register `mN` (gen6 and older, and vec4 dumps of every generation).
    Mrf,
    /// Push constant `uN`, before push constants get their fixed registers.
    Uniform,
    /// Shader input `attrN`, before inputs get their fixed registers.
    Attr,
    /// A general register addressed indirectly, `g[a0.S+IMM]`: the byte address in address
    /// subregister `S` (16-bit units; kept in `nr`) plus the signed byte offset `IMM` (kept
    /// in `offset`), with a hardware region; [`Region::VXH`] as vertical stride marks a VxH
    /// region, one address subregister per row (PRM Vol. 7 "Register Region Restrictions").
    Indirect,
    /// Immediate value.
    Imm,
    /// Virtual address register `vaN.M` (Mesa 25's ADDRESS file with a number other than
    /// 0; `a0` stays an ARF), given a real `a0` subregister late.
    VAddr,
}

/// Architecture register numbers (`BRW_ARF_*`, brw_reg.h; PRM Vol. 7 "ARF Registers").
pub mod arf {
    pub const NULL: u32 = 0x00;
    pub const ADDRESS: u32 = 0x10;
    pub const ACCUMULATOR: u32 = 0x20;
    pub const FLAG: u32 = 0x30;
    pub const MASK: u32 = 0x40;
    pub const MASK_STACK: u32 = 0x50;
    pub const MASK_STACK_DEPTH: u32 = 0x60;
    pub const STATE: u32 = 0x70;
    pub const CONTROL: u32 = 0x80;
    pub const NOTIFICATION_COUNT: u32 = 0x90;
    pub const IP: u32 = 0xA0;
    pub const TDR: u32 = 0xB0;
    pub const TIMESTAMP: u32 = 0xC0;
    /// Not a hardware number: Mesa 22's printer writes ARFs other than null, address,
    /// accumulator and flag as `arfN.M` with only the low nibble of the number, so the
    /// class is lost. eubatch keeps such a register as `UNKNOWN | N`.
    pub const UNKNOWN: u32 = 0xF0;

    /// Short names eubatch's format uses for the ARF classes without a Mesa syntax.
    pub const NAMED: [(u32, &str); 9] = [
        (MASK, "mask"),
        (MASK_STACK, "ms"),
        (MASK_STACK_DEPTH, "msd"),
        (STATE, "sr"),
        (CONTROL, "cr"),
        (NOTIFICATION_COUNT, "n"),
        (IP, "ip"),
        (TDR, "tdr"),
        (TIMESTAMP, "tm"),
    ];
}

/// Source modifiers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Mods(pub u8);

impl Mods {
    pub const NONE: Mods = Mods(0);
    pub const NEGATE: u8 = 1;
    pub const ABS: u8 = 2;

    pub fn negate(self) -> bool {
        self.0 & Self::NEGATE != 0
    }
    pub fn abs(self) -> bool {
        self.0 & Self::ABS != 0
    }
}

/// A hardware region `<vstride;width,hstride>` in elements, for fixed registers, plus the
/// Align16 swizzle (sources) or writemask (destinations), for every file.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Region {
    pub vstride: u8,
    pub width: u8,
    pub hstride: u8,
    /// Sources: Align16 swizzle, two bits per channel, x in the low bits (`BRW_SWIZZLE4`).
    /// Destinations: writemask in the low four bits.
    pub swizzle: u8,
}

impl Region {
    /// Vertical stride of a VxH (Vx1) indirect region: each row has its own address.
    pub const VXH: u8 = 0xff;
    /// The identity swizzle `.xyzw` (`BRW_SWIZZLE_XYZW`).
    pub const XYZW: u8 = 0b11_10_01_00;
    /// All four channels enabled (`WRITEMASK_XYZW`).
    pub const WRITEMASK_XYZW: u8 = 0xF;

    pub const fn new(vstride: u8, width: u8, hstride: u8) -> Region {
        Region {
            vstride,
            width,
            hstride,
            swizzle: Self::XYZW,
        }
    }

    /// The usual region of an element stride `s` over whole registers: `<0;1,0>` for a
    /// scalar, `<8s;8,s>` otherwise (Mesa's `brw_vec8_grf` and `stride()`).
    pub const fn for_stride(s: u8) -> Region {
        if s == 0 {
            Region::new(0, 1, 0)
        } else {
            Region::new(s.saturating_mul(8), 8, s)
        }
    }
}

/// One operand. 16 bytes: hot, stored in the shared operand pool.
///
/// * VGRF/UNIFORM/ATTR/MRF: `nr` is the register, `offset` the byte offset into it, `stride`
///   the element stride.
/// * FIXED_GRF/ARF: `nr` is the register, `offset` the byte sub-register, `region` the
///   hardware region (`stride` mirrors `region.hstride`).
/// * IMM: the 64-bit value is `nr` (low half) and `offset` (high half); 16-bit values are
///   replicated in both 16-bit halves of the low word, as Mesa's `brw_imm_w`/`brw_imm_hf` do.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Operand {
    pub file: RegFile,
    pub ty: Type,
    pub mods: Mods,
    pub stride: u8,
    pub nr: u32,
    pub offset: u32,
    pub region: Region,
}

const _: () = assert!(std::mem::size_of::<Operand>() == 16);

/// Hashed as its [`Operand::key`]'s two words: hashing an operand (CSE's keys hash every
/// source of every candidate, each pass run) costs two writes instead of one per field.
/// Equal operands give equal words, as `Hash` requires.
impl std::hash::Hash for Operand {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let k = self.key();
        h.write_u64(k as u64);
        h.write_u64((k >> 64) as u64);
    }
}

impl Operand {
    pub const NULL: Operand = Operand {
        file: RegFile::Bad,
        ty: Type::UD,
        mods: Mods::NONE,
        stride: 1,
        nr: 0,
        offset: 0,
        region: Region::new(8, 8, 1),
    };

    /// The bits of [`Operand::key`] holding `nr`.
    pub const KEY_NR: u128 = 0xffff_ffff << 32;

    /// Every field in one number, `nr` in bits 32..64 ([`Operand::KEY_NR`]): two operands
    /// are equal exactly when their keys are, and comparing keys is two word comparisons,
    /// not one per field (the access table compares every source of every instruction on
    /// each update).
    #[inline]
    pub fn key(&self) -> u128 {
        let r = self.region;
        let lo = self.file as u64
            | (self.ty as u64) << 8
            | (self.mods.0 as u64) << 16
            | (self.stride as u64) << 24
            | (self.nr as u64) << 32;
        let hi = self.offset as u64
            | (r.vstride as u64) << 32
            | (r.width as u64) << 40
            | (r.hstride as u64) << 48
            | (r.swizzle as u64) << 56;
        lo as u128 | (hi as u128) << 64
    }

    pub fn bad(ty: Type) -> Operand {
        Operand {
            ty,
            ..Operand::NULL
        }
    }

    pub fn vgrf(nr: u32, offset: u32, ty: Type, stride: u8) -> Operand {
        Operand {
            file: RegFile::Vgrf,
            ty,
            nr,
            offset,
            stride,
            ..Operand::NULL
        }
    }

    pub fn fixed(nr: u32, subreg_bytes: u32, ty: Type, region: Region) -> Operand {
        Operand {
            file: RegFile::FixedGrf,
            ty,
            nr,
            offset: subreg_bytes,
            stride: region.hstride,
            region,
            ..Operand::NULL
        }
    }

    pub fn arf(nr: u32, subnr: u32, ty: Type, region: Region) -> Operand {
        Operand {
            file: RegFile::Arf,
            ty,
            nr,
            offset: subnr,
            stride: region.hstride,
            region,
            ..Operand::NULL
        }
    }

    pub fn imm(ty: Type, bits: u64) -> Operand {
        Operand {
            file: RegFile::Imm,
            ty,
            stride: 0,
            nr: bits as u32,
            offset: (bits >> 32) as u32,
            ..Operand::NULL
        }
    }

    /// The VGRF a VGRF operand names (debug builds check that it is one).
    pub fn vgrf_nr(&self) -> crate::Vgrf {
        debug_assert_eq!(
            self.file,
            RegFile::Vgrf,
            "vgrf_nr of a {:?} operand",
            self.file
        );
        crate::Vgrf::from_usize(self.nr as usize)
    }

    /// The VGRF this operand names, if it names one.
    pub fn as_vgrf(&self) -> Option<crate::Vgrf> {
        (self.file == RegFile::Vgrf).then(|| crate::Vgrf::from_usize(self.nr as usize))
    }

    pub fn imm_bits(&self) -> u64 {
        self.nr as u64 | (self.offset as u64) << 32
    }

    pub fn is_null(&self) -> bool {
        self.file == RegFile::Bad || (self.file == RegFile::Arf && self.nr == arf::NULL)
    }

    pub fn is_bad(&self) -> bool {
        self.file == RegFile::Bad
    }

    /// Bytes from the first to the last byte this operand touches for `exec_size` channels:
    /// a strided region ends with its last element, not with its stride.
    pub fn span(&self, exec_size: u32) -> u32 {
        match self.file {
            RegFile::FixedGrf | RegFile::Arf | RegFile::Indirect => self.footprint(exec_size),
            _ if self.stride == 0 || exec_size == 0 => self.ty.size(),
            _ => ((exec_size - 1) * self.stride as u32 + 1) * self.ty.size(),
        }
    }

    /// Mesa's `fs_reg::component_size(width)` as the performance rules read it for a
    /// destination: `width` elements at the operand's stride (a fixed or architecture
    /// register's horizontal stride), at least one element. Issue times and the weight of
    /// a bank conflict are counted in registers of it.
    pub fn component_size(&self, width: u32) -> u32 {
        let stride = match self.file {
            RegFile::FixedGrf | RegFile::Arf => self.region.hstride as u32,
            _ => self.stride as u32,
        };
        (width * stride).max(1) * self.ty.size()
    }

    /// Mesa's size of this operand for `exec_size` channels (`fs_reg::component_size`:
    /// `width * stride * type size`, one element for stride 0): what `size_written` and
    /// `size_read` count, and what decides whether Mesa prints `+R.B`.
    pub fn footprint(&self, exec_size: u32) -> u32 {
        let sz = self.ty.size() as u64;
        let exec = exec_size as u64;
        let bytes = match self.file {
            RegFile::Indirect if self.region.vstride == Region::VXH => exec * sz,
            RegFile::FixedGrf | RegFile::Arf | RegFile::Indirect => {
                let r = self.region;
                if r.width == 0 {
                    sz
                } else {
                    // Fewer channels than a row holds use the row's first `exec_size`
                    // elements (`mov(1) f0.0<8;8,1>:UW` writes one word).
                    let width = (r.width as u64).min(exec.max(1));
                    let rows = (exec / width).max(1);
                    let last = (rows - 1) * r.vstride as u64 + (width - 1) * r.hstride as u64;
                    (last + 1) * sz
                }
            }
            _ if self.stride == 0 => sz,
            _ => exec * self.stride as u64 * sz,
        };
        bytes.min(u32::MAX as u64) as u32
    }
}
