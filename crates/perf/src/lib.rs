//! What eubatch's benchmarks share: finding inputs and the parse + verify step they time.

use std::path::{Path, PathBuf};

use eubatch_ir::import::{discover, load_text};
use eubatch_ir::Gen;

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Every shader file under `dir`, read into memory, so that benchmarks time parsing and not
/// the disk.
pub fn load_inputs(dir: &Path) -> Vec<(PathBuf, String)> {
    discover(&[dir.to_path_buf()], |_| true)
        .expect("listing inputs")
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("reading input");
            (p, text)
        })
        .collect()
}

/// Parses and verifies one input; returns its instruction count.
pub fn parse_and_verify(path: &Path, text: &str, target: Option<Gen>) -> usize {
    let shader = load_text(path, text, "bench", target).expect("benchmark input parses");
    let errs = eubatch_ir::verify::verify(&shader);
    assert!(errs.is_empty(), "{}: {}", path.display(), errs[0]);
    shader.num_insts()
}

/// A synthetic fragment shader of about `n` instructions, in the shapes the optimization
/// loop works on: chains of arithmetic over a working set of values, copies (whole,
/// strided halves of 64-bit values, padded half-float components), dead values, and
/// if/else regions every few dozen instructions. Deterministic in `n`.
pub fn synthetic_shader(n: usize) -> eubatch_ir::Shader {
    use std::fmt::Write;
    let values = 64usize;
    let mut text = String::from("shader \"synthetic\" stage FS width 8 target skl\n");
    // vgrf0..values: F values; then HF and DF scratch; then the output.
    for _ in 0..values {
        text.push_str("vgrf 1x32\n");
    }
    let hf = values;
    let df = values + 1;
    let out = values + 2;
    text.push_str("vgrf 1x16+16\nvgrf 1x64\nvgrf 4x32\n");
    // Number the declarations.
    let mut numbered = String::new();
    let mut k = 0;
    for line in text.lines() {
        if line == "vgrf 1x32"
            || line == "vgrf 1x16+16"
            || line == "vgrf 1x64"
            || line == "vgrf 4x32"
        {
            let _ = writeln!(numbered, "vgrf{k} {}", &line[5..]);
            k += 1;
        } else {
            numbered.push_str(line);
            numbered.push('\n');
        }
    }
    let mut body = String::from("block0:\n");
    let mut block = 0;
    for v in 0..values {
        let _ = writeln!(body, "    mov(8) vgrf{v}:F, g{}<8,8,1>:F", 2 + v % 60);
    }
    let mut i = values;
    let mut r = 12345u64;
    let mut rnd = |m: usize| {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        (r % m as u64) as usize
    };
    while i < n {
        if i % 48 == 0 {
            let a = rnd(values);
            let _ = writeln!(body, "    cmp.l.f0.0(8) null<8,8,1>:F, vgrf{a}:F, 0f");
            let _ = writeln!(body, "    (+f0.0) if(8) (null):UD");
            block += 1;
            let _ = writeln!(body, "block{block}:");
            for _ in 0..6 {
                let (d, x) = (rnd(values), rnd(values));
                let _ = writeln!(body, "    mul(8) vgrf{d}:F, vgrf{x}:F, 0.5f");
            }
            let _ = writeln!(body, "    else(8) (null):UD");
            block += 1;
            let _ = writeln!(body, "block{block}:");
            let (d, x) = (rnd(values), rnd(values));
            let _ = writeln!(body, "    add(8) vgrf{d}:F, vgrf{x}:F, 1f");
            block += 1;
            let _ = writeln!(body, "block{block}:");
            let _ = writeln!(body, "    endif(8) (null):UD");
            i += 12;
            continue;
        }
        let (d, x, y) = (rnd(values), rnd(values), rnd(values));
        let _ = match rnd(8) {
            0 => writeln!(body, "    mov(8) vgrf{d}:F, vgrf{x}:F"),
            1 => writeln!(body, "    mov(8) vgrf{hf}:HF, vgrf{x}:F\n    mov(8) vgrf{d}:F, vgrf{hf}:HF"),
            2 => writeln!(body, "    mov(8) vgrf{df}<2>:UD, vgrf{x}:UD\n    mov(8) vgrf{df}+0.4<2>:UD, vgrf{y}:UD\n    mov(8) vgrf{d}:F, vgrf{df}:DF"),
            3 => writeln!(body, "    mul(8) vgrf{d}:F, vgrf{x}:F, 1f"),
            4 => writeln!(body, "    mad(8) vgrf{d}:F, vgrf{x}:F, vgrf{y}:F, vgrf{d}:F"),
            _ => writeln!(body, "    add(8) vgrf{d}:F, vgrf{x}:F, vgrf{y}:F"),
        };
        i += 1;
    }
    for c in 0..4 {
        let _ = writeln!(body, "    mov(8) vgrf{out}+{c}.0:F, vgrf{c}:F");
    }
    let _ = writeln!(
        body,
        "    fb_write_logical(8) (EOT) (null):UD, vgrf{out}:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 4u"
    );
    let text = numbered + &body;
    eubatch_ir::text::parse_shader(&text).unwrap_or_else(|e| panic!("synthetic shader: {e}"))
}
