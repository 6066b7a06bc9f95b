//! Output files are written whole or not at all: into a temporary file beside the
//! target, renamed over it only when everything was written. A run that fails
//! half-way leaves the old file (or no file), never half a file.

use std::io::{BufWriter, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use anyhow::{Context, Result};

/// Writes `path` through `write`, atomically. A target that exists and is not a
/// regular file (`/dev/null`, a FIFO, a terminal) is written to directly: renaming
/// over it would replace the device with a file.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        let mut out = BufWriter::new(file);
        write(&mut out)?;
        return out
            .flush()
            .with_context(|| format!("cannot write {}", path.display()));
    }
    written_beside(path, write)?.persist()
}

/// An output written whole into a temporary file beside its target, not yet in
/// its place: for outputs that go in together with others (see [`Written::persist`]).
pub struct Written {
    temp: tempfile::NamedTempFile,
    path: std::path::PathBuf,
}

impl Written {
    /// Renames the temporary file over the target.
    pub fn persist(self) -> Result<()> {
        let path = self.path;
        self.temp
            .persist(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(())
    }
}

/// Writes what goes to `path` (a regular file) through `write` into a temporary
/// file beside it, synced, as an ordinary file (0644); [`Written::persist`] puts it
/// in place, and dropping it unpersisted removes it.
pub fn written_beside(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<Written> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    sweep_stale_temporaries(dir);
    let temp = tempfile::Builder::new()
        .prefix(&format!("{TEMP_PREFIX}{}-", std::process::id()))
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a file in {}", dir.display()))?;
    let mut out = BufWriter::new(temp);
    write(&mut out)?;
    let temp = out
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(|| format!("cannot write {}", path.display()))?;
    // Temporary files are private (0600); the output is an ordinary file (0644).
    temp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(0o644))
        .and_then(|()| temp.as_file().sync_all())
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(Written {
        temp,
        path: path.to_path_buf(),
    })
}

/// Temporary outputs are `.twinpage-<pid of the writer>-<random>.tmp`.
const TEMP_PREFIX: &str = ".twinpage-";
const TEMP_SUFFIX: &str = ".tmp";

/// Removes the temporary outputs that runs killed mid-write (`kill -9`, a power cut)
/// left in `dir`: those whose writer is gone. Others may be being written right now.
fn sweep_stale_temporaries(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let writer = name
            .to_str()
            .and_then(|n| n.strip_prefix(TEMP_PREFIX)?.strip_suffix(TEMP_SUFFIX))
            .and_then(|rest| rest.split_once('-')?.0.parse::<i32>().ok());
        if writer.is_some_and(crate::process::process_is_gone) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporaries_of_killed_writers_are_swept_and_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        // A child that has exited and been reaped: its pid names no process now.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let gone = child.id();
        child.wait().unwrap();
        let stale = dir.path().join(format!(".twinpage-{gone}-abc.tmp"));
        let live = dir
            .path()
            .join(format!(".twinpage-{}-def.tmp", std::process::id()));
        let other = dir.path().join(".twinpage-notapid.tmp");
        for file in [&stale, &live, &other] {
            std::fs::write(file, "half an output").unwrap();
        }
        write_atomically(&dir.path().join("out.csv"), |w| Ok(w.write_all(b"a")?)).unwrap();
        assert!(!stale.exists(), "a killed writer's temporary stays");
        assert!(live.exists() && other.exists());
        assert_eq!(std::fs::read(dir.path().join("out.csv")).unwrap(), b"a");
    }

    #[test]
    fn devices_are_written_not_replaced() {
        // A FIFO stands for /dev/null and friends without touching the real one.
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        write_atomically(&fifo, |w| Ok(w.write_all(b"through")?)).unwrap();
        assert_eq!(reader.join().unwrap(), b"through");
        assert!(
            !std::fs::metadata(&fifo).unwrap().is_file(),
            "the FIFO must stay a FIFO"
        );
    }

    #[test]
    fn failure_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        write_atomically(&path, |w| Ok(w.write_all(b"old")?)).unwrap();
        let err = write_atomically(&path, |w| {
            w.write_all(b"half")?;
            anyhow::bail!("failed half-way")
        });
        assert!(err.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        // No temporary files left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
