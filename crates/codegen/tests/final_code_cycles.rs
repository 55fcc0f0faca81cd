//! Mesa's static performance model (`eubatch_codegen::cycles`) on eubatch's own final code:
//! the register-form code after the generator's expansion, as `eubatch compile --regalloc
//! NAME --dump-after ra` prints it. A measuring tool more than a test: with
//! `EUBATCH_FINAL_CODE=A.eu[:B.eu]` it prices every shader of each file and prints the
//! total cycles (and, for two files, the shaders helped and hurt from A to B); without it,
//! it does nothing. For example, post-RA scheduling on and off:
//!
//! ```sh
//! E=target/release/eubatch; C=../shared/corpora/shaderdb-skl
//! $E compile $C --target skl --regalloc mesa --dump-after ra > /tmp/on.eu
//! $E compile $C --target skl --regalloc mesa --no-post-ra-schedule --dump-after ra > /tmp/off.eu
//! EUBATCH_FINAL_CODE=/tmp/off.eu:/tmp/on.eu cargo test --release -p eubatch-codegen \
//!     --test final_code_cycles -- --nocapture
//! ```
//!
//! Each block is one of the model's blocks (the IR's blocks, `do` and `halt_target` not
//! encoded), and no instruction has the listing-only options (`NoDDChk`, `AccWrEnable`).

use std::collections::BTreeMap;

use eubatch_codegen::asm::{AsmBlock, AsmProgram, AsmStats};
use eubatch_ir::{Opcode, Shader};

/// Mesa's cycle estimate of `shader` (final code in eubatch's IR).
fn cycles(shader: Shader) -> Result<u32, String> {
    let gen = shader.target;
    let mut blocks = Vec::new();
    let mut encoded = 0u32;
    for (b, block) in shader.layout.blocks.iter().enumerate() {
        let first = encoded;
        let pseudo = |&&i: &&eubatch_ir::Inst| {
            matches!(shader.insts.opcode[i], Opcode::Do | Opcode::HaltTarget)
        };
        encoded += block.insts.iter().filter(|i| !pseudo(i)).count() as u32;
        blocks.push(AsmBlock {
            num: b as u32,
            cycles: None,
            first,
            end: encoded,
        });
    }
    let program = AsmProgram {
        line: 0,
        stage: shader.stage,
        program: String::new(),
        vec4: shader.backend == eubatch_ir::Backend::Vec4,
        stats: AsmStats {
            instructions: 0,
            loops: 0,
            cycles: 0,
            spills: 0,
            fills: 0,
            sends: 0,
        },
        encoded,
        nops: 0,
        hints: vec![Default::default(); encoded as usize],
        blocks,
        shader,
    };
    eubatch_codegen::cycles::program_cycles(&program, gen).map(|e| e.cycles)
}

/// Each shader of a `--dump-after ra` output, by the name on its `# NAME after ra` line.
fn price(path: &str) -> (BTreeMap<String, u32>, BTreeMap<String, u32>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (mut priced, mut not) = (BTreeMap::new(), BTreeMap::<String, u32>::new());
    for part in text.split("\n# ").map(|p| p.trim_start_matches("# ")) {
        let Some((name, body)) = part.split_once('\n') else {
            continue;
        };
        let Some(name) = name.strip_suffix(" after ra") else {
            continue;
        };
        // The shader ends at the first empty line (the summary follows the last one).
        let body = body.split("\n\n").next().unwrap_or(body);
        let shader =
            eubatch_ir::text::parse_shader(body).unwrap_or_else(|e| panic!("{path}: {name}: {e}"));
        match cycles(shader) {
            Ok(c) => {
                priced.insert(name.to_string(), c);
            }
            Err(e) => {
                let why = e.split_once(": ").map_or(e.clone(), |(_, w)| w.to_string());
                *not.entry(why).or_default() += 1;
            }
        }
    }
    (priced, not)
}

#[test]
fn final_code_cycles() {
    let Ok(files) = std::env::var("EUBATCH_FINAL_CODE") else {
        eprintln!("skipping: EUBATCH_FINAL_CODE not set");
        return;
    };
    let sides: Vec<_> = files.split(':').map(|f| (f, price(f))).collect();
    for (f, (priced, not)) in &sides {
        let total: u64 = priced.values().map(|&c| c as u64).sum();
        let n: u32 = not.values().sum();
        println!(
            "{f}: {} shaders priced, {total} cycles; {n} not priced",
            priced.len()
        );
        for (why, k) in not {
            println!("  {k:5}  {why}");
        }
    }
    if let [(fa, (a, _)), (fb, (b, _))] = &sides[..] {
        let (mut ta, mut tb, mut helped, mut hurt, mut same) = (0u64, 0u64, 0, 0, 0);
        for (name, &ca) in a {
            let Some(&cb) = b.get(name) else { continue };
            ta += ca as u64;
            tb += cb as u64;
            match cb.cmp(&ca) {
                std::cmp::Ordering::Less => helped += 1,
                std::cmp::Ordering::Greater => hurt += 1,
                std::cmp::Ordering::Equal => same += 1,
            }
        }
        println!(
            "{fa} -> {fb}, shaders priced in both: {ta} -> {tb} cycles ({:+.2}%); {helped} helped, {hurt} hurt, {same} unchanged",
            (tb as f64 - ta as f64) * 100.0 / (ta as f64).max(1.0)
        );
    }
}
