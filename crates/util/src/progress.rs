//! Progress on stderr for long runs: a bar on a terminal; elsewhere (a log, a pipe)
//! a plain line every [`LINE_EVERY`] at most, so short runs and CI logs stay clean
//! and a long run in a log still says how far it is.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The least time between two plain progress lines.
pub const LINE_EVERY: Duration = Duration::from_secs(15);

/// A counter that draws a bar on a terminal and writes a line now and then
/// elsewhere. Cheap to share between threads.
pub struct Progress {
    bar: ProgressBar,
    lines: Option<Lines>,
}

/// Plain progress lines, for stderr that is not a terminal.
struct Lines {
    what: String,
    started: Instant,
    /// Milliseconds after `started` when the last line was written.
    last: AtomicU64,
}

impl Progress {
    pub fn new(total: usize, what: &str) -> Progress {
        let bar = ProgressBar::new(total as u64);
        let terminal = std::io::stderr().is_terminal();
        if terminal {
            bar.set_style(
                ProgressStyle::with_template(
                    "{msg:>20} [{bar:30}] {pos}/{len} ({per_sec}, {eta} left)",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar.set_message(what.to_string());
        } else {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        let lines = (!terminal).then(|| Lines {
            what: what.to_string(),
            started: Instant::now(),
            last: AtomicU64::new(0),
        });
        Progress { bar, lines }
    }

    pub fn inc(&self) {
        self.bar.inc(1);
        if let Some(lines) = &self.lines {
            lines.maybe_write(self.bar.position(), self.bar.length().unwrap_or(0));
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Lines {
    /// Writes a line when the last one is [`LINE_EVERY`] old; one thread wins.
    fn maybe_write(&self, done: u64, total: u64) {
        let now = self.started.elapsed();
        let now_ms = now.as_millis() as u64;
        let last = self.last.load(Ordering::Relaxed);
        // Another thread may have claimed a later instant than this one's `now`.
        if now_ms.saturating_sub(last) < LINE_EVERY.as_millis() as u64 {
            return;
        }
        let claimed = self
            .last
            .compare_exchange(last, now_ms, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok();
        if claimed {
            let rate = done as f64 / now.as_secs_f64().max(1e-9);
            eprintln!("twinpage: {}: {done} of {total} ({rate:.1}/s)", self.what);
        }
    }
}
