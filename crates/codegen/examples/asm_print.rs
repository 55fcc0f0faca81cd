fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    for p in eubatch_codegen::asm::read_asm(&text, &path, eubatch_ir::Gen::Gen9).unwrap() {
        println!("# {:?} vec4={} {:?} encoded={}", p.stage, p.vec4, p.stats, p.encoded);
        print!("{}", eubatch_ir::text::print_shader(&p.shader));
    }
}
