//! Debug aid: encode a shader in register form (eubatch text, as `--dump-after ra` prints
//! it), decode it back and print each instruction whose decoded IR differs from the input.
fn main() {
    let path = std::env::args().nth(1).expect("usage: binary_diff FILE.eu");
    let text = std::fs::read_to_string(&path).unwrap();
    let s = eubatch_ir::text::parse_shader(&text).unwrap();
    let f = eubatch_codegen::final_code::final_code(
        &s,
        s.target,
        "unnamed fragment shader x",
        0,
        (0, 0),
        false,
    )
    .unwrap();
    let d = &f.decoded.shader;
    let ours: Vec<_> = s
        .layout
        .insts()
        .filter(|&i| !eubatch_codegen::generate::encodes_nothing(s.insts.opcode[i]))
        .collect();
    let theirs: Vec<_> = d
        .layout
        .insts()
        .filter(|&i| !eubatch_codegen::generate::encodes_nothing(d.insts.opcode[i]))
        .collect();
    for (k, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        let (mut x, mut y) = (String::new(), String::new());
        eubatch_ir::text::print::write_inst(&s, *a, &mut x);
        eubatch_ir::text::print::write_inst(d, *b, &mut y);
        if x != y {
            println!("{k}:\n  ir   {x}\n  bin  {y}");
        }
    }
}
