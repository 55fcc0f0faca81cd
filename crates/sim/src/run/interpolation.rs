//! Pixel coordinates and attribute interpolation: `pixel_x`/`pixel_y`, `pln` and
//! `linterp`. Their inputs are laid out the way the fragment thread payload holds them
//! (subspans of four pixels, barycentrics in register pairs), so each reads its operands
//! at positions of its own rather than channel by channel as the ALU does.

use eubatch_ir::{Opcode, Operand, RegFile, Region, Type};

use super::{component, Step};
use crate::state::Thread;
use crate::value::{decode, encode, Value};
use crate::SimError;

/// FS_OPCODE_PIXEL_X/Y (gen8+, brw_fs_generator.cpp): the X/Y words built by the
/// pixel-centre setup hold, per subspan, four X then four Y values; pixel i reads element
/// <8;4,1>(i) (+4 for Y), plus the half-pixel offset source.
pub(super) fn pixel_xy(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let src = s
        .srcs
        .first()
        .ok_or_else(|| s.fail("pixel_x/y without a source"))?;
    let mut results = Vec::new();
    for i in s.channels(s.enabled) {
        let k = (i / 4) * 8 + i % 4 + if s.op == Opcode::PixelY { 4 } else { 0 };
        let xy = s.read_f64(t, src, k)?;
        let half = match s.srcs.get(1) {
            Some(h) if !h.is_bad() => s.read_f64(t, h, i)?,
            _ => 0.0,
        };
        results.push((
            i,
            encode(s.dst.ty, Value::Float(xy + half), s.ctl.saturate()),
        ));
    }
    s.write_results(t, results)?;
    Ok(false)
}

/// PLN (gen < 11; PRM Vol. 2a "pln"): dst = a*u + b*v + c, the plane a, b, c at elements
/// 0, 1 and 3 of src0, the barycentrics in src1 register pairs: for channels 8k..8k+7, u in
/// register 2k and v in register 2k+1. The same arithmetic as `linterp`, which Mesa lowers
/// to it.
pub(super) fn pln(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let (setup, delta) = match s.srcs {
        [setup, delta, ..] => (*setup, *delta),
        _ => return Err(s.fail("pln needs a plane and a barycentric source")),
    };
    if !matches!(delta.file, RegFile::FixedGrf | RegFile::Vgrf) {
        return Err(s.fail("pln's barycentrics must be fixed registers or a VGRF"));
    }
    let coef = |t: &mut Thread, e: u32| -> Result<f64, SimError> {
        let mut o = setup;
        o.offset += e * 4;
        o.region = Region::new(0, 1, 0);
        Ok(decode(Type::F, s.read(t, &o, 0)?).as_f64())
    };
    let (a, b, c) = (coef(t, 0)?, coef(t, 1)?, coef(t, 3)?);
    let mut results = Vec::new();
    for i in s.channels(s.enabled & s.pred) {
        // Register `r` of the barycentrics (u and v of 8 channels alternate), lane i % 8: a
        // fixed register or `r` registers into a VGRF (Mesa 25 interpolates from VGRFs in
        // this layout).
        let lane = |t: &mut Thread, r: u32| -> Result<f64, SimError> {
            let o = if delta.file == RegFile::Vgrf {
                let byte = delta.offset + r * s.shader.reg_size() + (i % 8) * 4;
                Operand::vgrf(delta.nr, byte, Type::F, 0)
            } else {
                Operand::fixed(delta.nr + r, (i % 8) * 4, Type::F, Region::new(0, 1, 0))
            };
            Ok(decode(Type::F, s.read(t, &o, 0)?).as_f64())
        };
        let pair = 2 * (i / 8);
        let (u, v) = (lane(t, pair)?, lane(t, pair + 1)?);
        results.push((i, plane(s, a * u + b * v + c)));
    }
    s.write_results_and_flags(t, results)?;
    Ok(false)
}

/// FS_OPCODE_LINTERP = PLN (gen < 11): dst = a*u + b*v + c with the plane coefficients a,
/// b, c at elements 0, 1 and 3 of the setup operand and the barycentrics u, v as two
/// components of the delta operand. Computed in f64, rounded once.
pub(super) fn linterp(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let (delta, setup) = match s.srcs {
        [delta, setup, ..] => (delta, setup),
        _ => return Err(s.fail("linterp needs a delta and a setup source")),
    };
    let coef = |t: &mut Thread, e: u32| -> Result<f64, SimError> {
        let mut o = *setup;
        o.offset += e * 4;
        Ok(decode(Type::F, s.read(t, &o, 0)?).as_f64())
    };
    let (a, b, c) = (coef(t, 0)?, coef(t, 1)?, coef(t, 3)?);
    let mut results = Vec::new();
    for i in s.channels(s.enabled & s.pred) {
        let u = decode(Type::F, s.read(t, delta, i)?).as_f64();
        let v = decode(Type::F, s.read(t, &component(delta, 1, s.exec), i)?).as_f64();
        results.push((i, plane(s, a * u + b * v + c)));
    }
    s.write_results_and_flags(t, results)?;
    Ok(false)
}

/// An interpolated value as the destination's bits (rounded once, from f64).
fn plane(s: &Step, value: f64) -> u64 {
    encode(s.dst.ty, Value::Float(value), s.ctl.saturate())
}

/// FS_OPCODE_INTERPOLATE_AT_SAMPLE / _SHARED_OFFSET / _PER_SLOT_OFFSET: the pixel
/// interpolator's barycentrics ([`crate::pixel_interp`]), the same values the `send`
/// Mesa's generator makes of it gets, laid out as Mesa's IR holds them: planar, the first
/// coordinate of every channel, then the second (the hardware's interleaved answer is
/// converted at SIMD16 by Mesa's `lower_barycentrics`: [`eubatch_ir::message::pixel_interp`]).
pub(super) fn query(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    use eubatch_ir::message::pixel_interp::{location, LOC_PER_SLOT_OFFSET};
    let loc = location(s.op).ok_or_else(|| s.fail("not a pixel-interpolator query"))?;
    let data_src = s
        .srcs
        .get(1)
        .ok_or_else(|| s.fail("an interpolation query without its message data"))?;
    let mut results = Vec::new();
    for i in s.channels(s.enabled & s.pred) {
        // The data is one value for the message (an immediate, or a scalar the generator
        // ORs into the descriptor): the low byte counts.
        let data = s.read(t, data_src, i)? as u32 & 0xff;
        let offsets = if loc == LOC_PER_SLOT_OFFSET {
            let payload = s
                .srcs
                .first()
                .filter(|o| !o.is_bad())
                .ok_or_else(|| s.fail("a per-slot offset query without its offsets"))?;
            [
                s.read(t, &component(payload, 0, s.exec), i)? as u32,
                s.read(t, &component(payload, 1, s.exec), i)? as u32,
            ]
        } else {
            [0, 0]
        };
        for comp in 0..2 {
            let bits =
                crate::pixel_interp::coordinate(t.seed, loc, data, offsets, s.group + i, comp);
            let mut o = s.dst;
            o.offset += (comp * s.exec + i) * 4;
            o.ty = Type::UD;
            o.stride = 0;
            o.region = Region::new(0, 1, 0);
            results.push((o, bits));
        }
    }
    for (o, bits) in results {
        t.write(&o, 0, bits as u64)
            .map_err(|e| e.with_inst(s.inst))?;
    }
    Ok(false)
}
