//! Where a command writes: its table to a file or stdout, skipped rows beside it.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;

use twinpage::document::Skipped;
use twinpage::util::{write_atomically, written_beside};

/// Where a command writes its table: a file (atomically) or `-` for stdout. A
/// reader that stops early (`| head`) ends the output quietly, as for any Unix tool.
pub(super) fn write_output(
    out: &str,
    write: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    if out == "-" {
        let stdout = std::io::stdout();
        let mut lock = stdout.lock();
        quiet_if_broken_pipe(write(&mut lock).and_then(|()| Ok(lock.flush()?)))
    } else {
        write_atomically(Path::new(out), write)
    }
}

/// Writes a command's table as [`write_output`] does, together with another output
/// (`alongside`, e.g. a review queue written in one transaction): a file is written
/// beside its place first and put there only once `alongside` succeeded, so that a
/// failure of either leaves neither; stdout (or a device) is written after it.
pub(super) fn write_output_with(
    out: &str,
    write: impl Fn(&mut dyn Write) -> Result<()>,
    alongside: impl FnOnce() -> Result<()>,
) -> Result<()> {
    let regular = out != "-" && !std::fs::metadata(out).is_ok_and(|m| !m.is_file());
    if regular {
        let written = written_beside(Path::new(out), &write)?;
        alongside()?;
        written.persist()
    } else {
        alongside()?;
        write_output(out, write)
    }
}

/// `--out` of a command whose output cannot go to stdout (a folder, a file that
/// others are named relative to, a model): `-` is refused rather than taken for a
/// file called `-`.
pub(super) fn file_not_stdout(out: &str) -> Result<PathBuf, String> {
    match out {
        "-" => Err("this command writes a file (or folder), not stdout: give its path".into()),
        "" => Err("give a path".into()),
        _ => Ok(PathBuf::from(out)),
    }
}

/// Writes one line to stdout (see `outln!`).
pub(super) fn print_line(line: std::fmt::Arguments) -> std::io::Result<()> {
    writeln!(std::io::stdout().lock(), "{line}")
}

/// A command whose stdout was closed by its reader has done all anyone wanted of
/// it: success, and nothing said, as for `grep … | head`.
pub(super) fn quiet_if_broken_pipe(result: Result<()>) -> Result<()> {
    match result {
        Err(e) if is_broken_pipe(&e) => Ok(()),
        other => other,
    }
}

/// Whether an error comes from writing to a pipe nobody reads any more (csv's
/// errors hold the I/O error without giving it as their source).
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    let broken = |io: &std::io::Error| io.kind() == std::io::ErrorKind::BrokenPipe;
    e.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(broken)
            || cause
                .downcast_ref::<csv::Error>()
                .is_some_and(|csv| matches!(csv.kind(), csv::ErrorKind::Io(io) if broken(io)))
    })
}

/// Lists skipped rows in a side file beside the output (or `skipped.csv` when the
/// output is stdout) and says so on stderr.
pub(super) fn write_skipped(out: &str, skipped: &[Skipped]) -> Result<()> {
    if skipped.is_empty() {
        return Ok(());
    }
    let path = if out == "-" {
        PathBuf::from("skipped.csv")
    } else {
        PathBuf::from(format!("{out}.skipped.csv"))
    };
    write_atomically(&path, |w| {
        let mut csv = csv::Writer::from_writer(w);
        csv.write_record(["row", "reason"])?;
        for s in skipped {
            csv.write_record([&s.location, &s.reason])?;
        }
        csv.flush()?;
        Ok(())
    })?;
    eprintln!(
        "twinpage: skipped {} row(s) with unreadable documents; listed in {}",
        skipped.len(),
        path.display()
    );
    Ok(())
}
