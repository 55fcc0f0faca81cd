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

/// The repository's own corpora (`corpora/` at the workspace root: small archives made by
/// `scripts/make-corpus/`, committed with their README and licence).
pub fn repo_corpora_dir() -> PathBuf {
    workspace_root().join("corpora")
}

/// The directory of corpus `name`: the repository's own (`corpora/NAME` or
/// `corpora/NAME.tar.xz`, always there), else plain in `../shared/corpora`, or unpacked
/// once from `NAME.tar.xz` into `target/corpora/`. `None` (with a message) when `../shared`
/// is absent, a failure instead under [`REQUIRE_CORPORA`].
pub fn corpus(name: &str) -> Option<PathBuf> {
    let own = repo_corpora_dir();
    if own.join(name).is_dir() {
        return Some(own.join(name));
    }
    if own.join(format!("{name}.tar.xz")).is_file() {
        return Some(unpack(&own, name, true));
    }
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
    assert!(
        dir.join(format!("{name}.tar.xz")).is_file(),
        "corpus {name} is neither a directory nor an archive in {}",
        dir.display()
    );
    Some(unpack(&dir, name, false))
}

/// `DIR/NAME.tar.xz` unpacked once into `target/corpora/NAME`. With `versioned` (the
/// repository's own archives, which change with commits) the marker holds the archive's
/// size, and an archive of another size is unpacked again.
fn unpack(dir: &Path, name: &str, versioned: bool) -> PathBuf {
    // One unpacking at a time in a process: tests of one binary run in its threads.
    static UNPACKING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = UNPACKING.lock().unwrap_or_else(|e| e.into_inner());
    let archive = dir.join(format!("{name}.tar.xz"));
    let stamp = if versioned {
        format!("{}\n", std::fs::metadata(&archive).unwrap().len())
    } else {
        String::new()
    };
    let dest_root = workspace_root().join("target/corpora");
    let dest = dest_root.join(name);
    let done = dest_root.join(format!("{name}.unpacked"));
    let current = |done: &Path| {
        done.is_file() && (!versioned || std::fs::read_to_string(done).ok() == Some(stamp.clone()))
    };
    if current(&done) {
        return dest;
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
    if !current(&done) {
        let _ = std::fs::remove_file(&done);
        let _ = std::fs::remove_dir_all(&dest);
        std::fs::rename(tmp.join(name), &dest).unwrap();
        std::fs::write(&done, &stamp).unwrap();
    }
    let _ = std::fs::remove_dir_all(&tmp);
    dest
}
