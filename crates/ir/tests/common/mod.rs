//! What the integration tests share: finding `../shared` from the workspace root and
//! unpacking corpus archives once into the build directory.

#![allow(dead_code)]

pub mod fixture;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (two levels above this crate).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// `../shared/corpora` beside the workspace root, if present.
pub fn corpora_dir() -> Option<PathBuf> {
    let p = workspace_root().join("../shared/corpora");
    p.is_dir().then_some(p)
}

/// Set (to anything but empty or `0`) where the corpora must be there, as `.ci/run` does:
/// a missing `../shared` is then a failure, not a skip.
pub const REQUIRE_CORPORA: &str = "EUBATCH_REQUIRE_CORPORA";

/// Says that `what` is missing: a skip (`None` back, with a message), or a failure under
/// [`REQUIRE_CORPORA`].
pub fn missing<T>(what: &str) -> Option<T> {
    let required = std::env::var(REQUIRE_CORPORA).is_ok_and(|v| !v.is_empty() && v != "0");
    missing_when(required, what)
}

/// [`missing`], with whether the corpora are required given.
pub fn missing_when<T>(required: bool, what: &str) -> Option<T> {
    assert!(!required, "{what} not found, and {REQUIRE_CORPORA} is set");
    eprintln!("skipping: {what} not found");
    None
}

/// Every file called `name` under `dir`, in path order.
pub fn files_named(dir: &Path, name: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == name) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The directory of corpus `name`: plain in `../shared/corpora`, or unpacked once from
/// `NAME.tar.xz` into `target/corpora/`. `None` (with a message) when `../shared` is absent,
/// a failure instead under [`REQUIRE_CORPORA`].
pub fn corpus(name: &str) -> Option<PathBuf> {
    let Some(dir) = corpora_dir() else {
        return missing(&format!(
            "../shared/corpora beside {}",
            workspace_root().display()
        ));
    };
    let plain = dir.join(name);
    if plain.is_dir() {
        return Some(plain);
    }
    let archive = dir.join(format!("{name}.tar.xz"));
    assert!(
        archive.is_file(),
        "corpus {name} is neither a directory nor an archive in {}",
        dir.display()
    );
    let dest_root = workspace_root().join("target/corpora");
    let dest = dest_root.join(name);
    let done = dest_root.join(format!("{name}.unpacked"));
    if done.is_file() {
        return Some(dest);
    }
    // Unpack into a private directory, then rename: tests running in parallel never see a
    // half-unpacked corpus.
    let tmp = dest_root.join(format!("{name}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let status = Command::new("tar")
        .arg("xJf")
        .arg(&archive)
        .arg("-C")
        .arg(&tmp)
        .status()
        .expect("running tar");
    assert!(status.success(), "tar failed on {}", archive.display());
    if !done.is_file() {
        let _ = std::fs::remove_dir_all(&dest);
        std::fs::rename(tmp.join(name), &dest).unwrap();
        std::fs::write(&done, "").unwrap();
    }
    let _ = std::fs::remove_dir_all(&tmp);
    Some(dest)
}
