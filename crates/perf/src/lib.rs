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
