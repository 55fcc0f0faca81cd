//! `subreg` on small text shaders: values smaller than a register share one, every
//! allocation passes the checker, a value never straddles two registers, and the shared
//! registers (false dependencies before gen12) are counted.

use eubatch_ir::Shader;
use eubatch_passes::PassCx;
use eubatch_regalloc::checker::check;
use eubatch_regalloc::{allocate, by_name, Allocated, Placement, Reg};

mod common;
use common::{fs, two_hf_values};

/// `allocator`'s allocation of `s`, checked, with its count of shared registers.
fn allocated(s: &Shader, allocator: &str) -> (Allocated, u32) {
    let mut cx = PassCx::default();
    let mut a = by_name(allocator).unwrap();
    let r = allocate(s, &mut cx, a.as_mut()).unwrap();
    check(s, &mut cx, &r.constraints, &r.allocation).unwrap();
    let shared = r.allocation.shared_registers(s, &mut cx, &r.constraints);
    (r, shared)
}

fn place(r: &Allocated, v: usize) -> Reg {
    match r.allocation.placement[v] {
        Placement::At(reg) => reg,
        p => panic!("vgrf{v}: {p:?}"),
    }
}

#[test]
fn two_simd8_hf_values_share_one_register() {
    let s = two_hf_values(["1x16"; 3]);
    let (r, shared) = allocated(&s, "subreg");
    let (a, b) = (place(&r, 0), place(&r, 1));
    assert_eq!(a.grf, b.grf, "{a} {b}");
    assert_eq!([a.offset, b.offset], [0, 16]);
    // vgrf2 is written while both are read: it fits in neither's bytes.
    assert_ne!(place(&r, 2).grf, a.grf);
    assert_eq!(shared, 1);
    let (l, linear_shared) = allocated(&s, "linear");
    assert_eq!(linear_shared, 0);
    // The registers holding the three values: one fewer with subreg. (Counted directly:
    // both allocators may put the values in input registers after their last read, which
    // `registers_taken` counts as the thread's whatever they hold.)
    let holding = |r: &Allocated| {
        let mut g: Vec<u32> = (0..3).map(|v| place(r, v).grf).collect();
        g.sort_unstable();
        g.dedup();
        g.len()
    };
    assert_eq!((holding(&r), holding(&l)), (2, 3));
}

#[test]
fn a_value_that_would_straddle_goes_to_another_register() {
    // vgrf0 (16 bytes) and vgrf1 (a scalar) share a register, leaving bytes 20-31 free:
    // vgrf2 (16 bytes, live with both) would straddle there, so it takes another register.
    let s = fs(
        &["1x16", "1x4", "1x16", "1x16"],
        "block0:
    mov(8) vgrf0:HF, g2<8,8,1>:F
    mov(1) vgrf1:F, g3<0,1,0>:F
    mov(8) vgrf2:HF, g4<8,8,1>:F
    add(8) vgrf3:HF, vgrf0:HF, vgrf2:HF
    mul(8) vgrf3:HF, vgrf3:HF, vgrf1:F
    mov(8) g10<8,8,1>:F, vgrf3:HF
",
    );
    let (r, _) = allocated(&s, "subreg");
    let (a, b, c) = (place(&r, 0), place(&r, 1), place(&r, 2));
    assert_eq!((a.grf, a.offset), (b.grf, 0));
    assert_eq!(b.offset, 16);
    assert_ne!(c.grf, a.grf, "{c}");
    for v in 0..4 {
        let p = place(&r, v);
        let size = s.vgrfs[eubatch_ir::Vgrf::from_usize(v)].size();
        assert!(p.offset + size <= 32, "vgrf{v} at {p} straddles");
        assert_eq!(p.offset % size.next_power_of_two(), 0, "vgrf{v} at {p}");
    }
}

#[test]
fn padding_of_a_padded_hf_value_holds_another_value() {
    // vgrf0 is a padded SIMD8 HF component (16 data bytes, 16 padding): vgrf1 goes in its
    // padding.
    let s = two_hf_values(["1x16+16", "1x16", "1x16"]);
    let (r, shared) = allocated(&s, "subreg");
    let (a, b) = (place(&r, 0), place(&r, 1));
    assert_eq!((b.grf, b.offset), (a.grf, 16), "{a} {b}");
    assert_eq!(shared, 1);
}

/// Padded SIMD8 half-float values (`1x16+16`, as Mesa lays them out: seed 003) share a
/// register too: only their data must lie in it, the padding after it is never accessed.
#[test]
fn padded_simd8_hf_values_share_one_register() {
    let s = two_hf_values(["1x16+16"; 3]);
    let (r, shared) = allocated(&s, "subreg");
    let (a, b) = (place(&r, 0), place(&r, 1));
    assert_eq!(a.grf, b.grf, "{a} {b}");
    assert_eq!([a.offset, b.offset], [0, 16]);
    assert_eq!(shared, 1);
}
