//! Property tests: no input makes the readers panic, and whatever they accept prints and
//! parses back to the same IR. Inputs are real dump lines, mutated.

use eubatch_ir::import::{import_mesa_dump, DumpName};
use eubatch_ir::text::{file::check_round_trip, parse_shader, print_shader};
use eubatch_ir::verify::verify;
use eubatch_ir::Gen;
use proptest::prelude::*;

#[path = "common/mutate.rs"]
mod mutate;
use mutate::apply;

const SCALAR: &str = "{  1}    0: add(32) vgrf2:UW, g1<0>:UW, 11001010V NoMask 
{  2}    1: pixel_x(16) vgrf0:F, vgrf2:UW, 0u 
{  6}    3: cmp.l.f0.0(16) null:F, vgrf0:F, -1e-05f 
{  6}    4: (+f0.0) if(16) (null):UD,  
{  8}    5: mad(16) vgrf3:F, vgrf1:F, g12<0>:F, -vgrf0:F 
{  8}    6: else(16) (null):UD,  
{  8}    7: mov(8) vgrf3+0.0:F, [0F, 1F, 0.5F, -2F] NoMask group0 
{  8}    8: mov(8) vgrf3+1.0<2>:HF, |vgrf1+1.0|:F group8 
{  8}    9: endif(16) (null):UD,  
{  8}   10: do(16) (null):UD,  
{  8}   11: (+f0.0) break(16) (null):UD,  
{  8}   12: while(16) (null):UD,  
{  8}   13: mov(1) vgrf57+0.8<0>:UD, 232u NoMask group0 
{  8}   14: uniform_pull_const_gfx7(16) (mlen: 1) vgrf31:UD, 0u, vgrf57:UD NoMask group0 
{  4}   15: send(16) (mlen: 4) (ex_mlen: 2) (EOT) (null):UD, 0u, 0u, vgrf5:F, vgrf4:F group0 
{  4}   16: fb_write_logical(16) (null):UD, vgrf5:F(null):UD(null):UD, 4u 
{  4}   17: mov(8) vgrf7:DF, 0.000000df 
{  4}   18: mov(8) vgrf8:HF, -infhf 
{  4}   19: mov(1) arf1.0:UW, g1<0>:UW NoMask group0 
Maximum  8 registers live at once.
";

const VEC4: &str = "mov(8) vgrf2.x:D, 1D
mov(8) vgrf11:UD, u65532+1.0.xyzw:UD
(+f0.0.any4h) lrp(8) vgrf12.xy:F, vgrf2.xyyy:F, vgrf11.zwyy:F, vgrf6.xyyy:F
mov(8) m4:F, g1.0.xyzw:F
vs_urb_write(8) (null):UD
";

const MESA25: &str = "START B0
add(16) %2:UW, g1.4<1,4,0>:UW, 11001010V NoMask group0 
memory_load(1) %5:UD load const bti:0u addr: 64d coord_comps:1u align:32u d32 comps:8u transpose data0: (null):UD NoMask group0 NoMaskParams 
send(8) (mlen: 1) v7, 36193024u, 0u, v6, (null) NoMask NoMaskParams 
or(1) va1.0:UD, v1363+0.0<0>:UD, 244056064u NoMask group0 
END B0
";

/// Characters that matter to the grammar, for insertions.
const ALPHABET: &[u8] = b"0123456789+-.,:;<>()[]{}|%vgrfmuatx yzwNoMask group FUDHBQVxl";

/// Whatever imports must verify without panicking and survive a round trip.
fn check_import(text: &str, file: &str, gen: Gen) {
    let dump = DumpName::parse(file).unwrap();
    if let Ok(shader) = import_mesa_dump(text, &dump, file, gen) {
        let _ = verify(&shader);
        if let Err(e) = check_round_trip(&shader) {
            panic!("round trip failed: {e}\ninput:\n{text}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn mutated_scalar_dumps(edits in prop::collection::vec(mutate::edit(ALPHABET), 1..6)) {
        check_import(&apply(SCALAR, &edits), "FS16-GLSL1-00-00-start", Gen::Gen9);
    }

    #[test]
    fn mutated_vec4_dumps(edits in prop::collection::vec(mutate::edit(ALPHABET), 1..6)) {
        check_import(&apply(VEC4, &edits), "VS-GLSL1-00-00-start", Gen::Gen75);
    }

    #[test]
    fn mutated_mesa25_dumps(edits in prop::collection::vec(mutate::edit(ALPHABET), 1..6)) {
        check_import(&apply(MESA25, &edits), "FS8-GLSL1-00-00-start", Gen::Gen9);
    }

    #[test]
    fn mutated_eubatch_text(edits in prop::collection::vec(mutate::edit(ALPHABET), 1..6)) {
        let dump = DumpName::parse("FS16-GLSL1-00-00-start").unwrap();
        let shader = import_mesa_dump(SCALAR, &dump, "x", Gen::Gen9).unwrap();
        let text = apply(&print_shader(&shader), &edits);
        if let Ok(s) = parse_shader(&text) {
            let _ = verify(&s);
            if let Err(e) = check_round_trip(&s) {
                panic!("round trip failed: {e}\ninput:\n{text}");
            }
        }
    }
}

/// Numbers at the edges of their types give errors, not overflows.
#[test]
fn huge_numbers_are_errors() {
    let dump = DumpName::parse("FS8-GLSL1-00-00-start").unwrap();
    for line in [
        "mov(8) vgrf0+4294967295.31:F, 1f",
        "mov(8) vgrf0+134217727.0:F, 1f",
        "mov(8) vgrf4294967295:F, 1f",
        "mov(8) g4294967295:F, 1f",
        "mov(255) vgrf0<255>:DF, 1f",
        "mov(8) vgrf0:F, 99999999999999999999d",
        "mov(8) vgrf0:F, u4294967295+1073741823.3<0>:F",
    ] {
        if let Ok(s) = import_mesa_dump(line, &dump, "x", Gen::Gen9) {
            let _ = verify(&s);
            check_round_trip(&s).unwrap();
        }
    }
    let eu = "shader \"x\" stage FS width 8 target skl\nvgrf0 65535x65535+65535\nblock0:\n    mov(8) vgrf0+4294967295.31:F, 1f\n";
    assert!(parse_shader(eu).is_err());
    let eu = "shader \"x\" stage FS width 8 target skl\nvgrf0 1x32\nblock0:\n    mov(8) vgrf0+134217727.0:F, 1f\n    mov(8) g4294967295<8,8,1>:F, 1f\n";
    let s = parse_shader(eu).unwrap();
    assert_eq!(verify(&s).len(), 2);
}

/// A VGRF number far beyond what Mesa allocates is an error, not millions of layouts (the
/// readers fuzz target found `vgrf10569618` in a start dump: importing, printing and parsing
/// back its ten million declarations took minutes).
#[test]
fn huge_vgrf_numbers_are_errors() {
    let text = "{  1}    0: add(16) vgrf10569618:UW, g1<0>:UW, 10101010V \n";
    let dump = DumpName::parse("FS16-GLSL1-00-00-start").unwrap();
    let e = import_mesa_dump(text, &dump, "FS16-GLSL1-00-00-start", Gen::Gen9).unwrap_err();
    assert!(e.to_string().contains("out of range"), "{e}");
    // The largest number allowed still imports.
    let max = eubatch_ir::import::mesa::MAX_VGRF_NUMBER;
    let ok = text.replace("10569618", &max.to_string());
    assert!(import_mesa_dump(&ok, &dump, "FS16-GLSL1-00-00-start", Gen::Gen9).is_ok());
}

/// Lines of a Haswell vec4 TES's final code (piglit's tcs-tes-max-in-out-components):
/// Align1 header code, spills and a fill, per-slot URB reads.
const VEC4_LISTING: &str = include_str!("common/vec4_listing.txt");

/// The data-flow readers of listings (`dataflow_match`, scalar and vec4, with spills read
/// as moves or as messages): nothing panics, and a graph matched with itself pairs every
/// send with itself.
fn check_data_flow(text: &str) {
    use eubatch_ir::import::dataflow_match::{self, vec4};
    let lines: Vec<&str> = text.lines().collect();
    let _ = dataflow_match::listing_graph(&lines, &dataflow_match::Graph::default());
    for spills in [false, true] {
        if let Some((g, urb)) = vec4::listing_graph(&lines, spills) {
            assert_eq!(urb.len(), g.sends.len());
            let m = dataflow_match::match_sends(&g, &g).expect("a graph is its own computation");
            for (k, class) in m.iter().enumerate() {
                assert!(
                    class.contains(&k),
                    "send {k} is not in its own class\n{text}"
                );
            }
        }
    }
}

#[test]
fn the_vec4_listing_has_a_graph_with_its_spills() {
    let lines: Vec<&str> = VEC4_LISTING.lines().collect();
    let (g, urb) = eubatch_ir::import::dataflow_match::vec4::listing_graph(&lines, true).unwrap();
    // Two URB reads; the spills and the fill are no nodes.
    assert_eq!(urb, vec![0, 1]);
    assert_eq!(g.sends.len(), 2);
    check_data_flow(VEC4_LISTING);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn mutated_listings_through_the_data_flow_readers(
        edits in prop::collection::vec(mutate::edit(ALPHABET), 1..6)
    ) {
        check_data_flow(&apply(VEC4_LISTING, &edits));
    }
}
