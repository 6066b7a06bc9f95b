//! The run folder: every stage writes its output there, whole or not at all, so a
//! run killed at any moment and started again with the same command goes on from
//! its last finished stage and ends with the outputs an uninterrupted run makes.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use twinpage_util::write_atomically;

/// The file that says which command a run folder belongs to.
const RUN_FILE: &str = "run.json";

/// A run's folder.
pub struct RunFolder {
    dir: PathBuf,
}

impl RunFolder {
    /// Opens (or starts) the run in `dir` for the command described by `command`
    /// (its inputs and options, as JSON). A folder holding another command's run is
    /// refused when any of its stage outputs `finished` is there: they would not be
    /// this command's; a run that finished no stage is started anew.
    pub fn open(dir: &Path, command: &serde_json::Value, finished: &[&str]) -> Result<RunFolder> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let run = RunFolder {
            dir: dir.to_path_buf(),
        };
        let said = serde_json::to_string_pretty(command)?;
        match std::fs::read_to_string(run.path(RUN_FILE)) {
            Ok(earlier) if earlier == said => {}
            Ok(_) if finished.iter().any(|name| run.done(name)) => bail!(
                "{} holds a run of another command (other inputs or options); give another --out, or remove it",
                dir.display()
            ),
            _ => write_atomically(&run.path(RUN_FILE), |w| Ok(w.write_all(said.as_bytes())?))?,
        }
        Ok(run)
    }

    /// A run folder that a command opened before (a driver's, after `dedupe
    /// --until`), as it is.
    pub fn existing(dir: &Path) -> Result<RunFolder> {
        let run = RunFolder {
            dir: dir.to_path_buf(),
        };
        if !run.done(RUN_FILE) {
            bail!(
                "{}: no run of `twinpage dedupe` there (no {RUN_FILE})",
                dir.display()
            );
        }
        Ok(run)
    }

    /// The command the run belongs to, as `open` was given it.
    pub fn command(&self) -> Result<serde_json::Value> {
        let path = self.path(RUN_FILE);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        Ok(serde_json::from_str(&text)?)
    }

    /// A file of the run.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// The folder itself.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether a stage's output is there (it is written last, atomically).
    pub fn done(&self, name: &str) -> bool {
        self.path(name).is_file()
    }
}
