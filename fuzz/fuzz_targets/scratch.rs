//! The entry points under test read files, so each input is written to one file
//! per process first (in TMPDIR, which `scripts/fuzz.sh` points at a folder it
//! removes afterwards).

use std::path::PathBuf;

/// Writes `data` to the file `name` in this process's scratch folder.
pub fn file(name: &str, data: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("twinpage-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let path = dir.join(name);
    std::fs::write(&path, data).expect("scratch file");
    path
}
