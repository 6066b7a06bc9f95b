//! Progress on stderr for long runs, silent when stderr is not a terminal (so
//! scripts and CI logs stay clean).

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A counter that draws a bar on a terminal and nothing elsewhere. Cheap to share
/// between threads.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    pub fn new(total: usize, what: &str) -> Progress {
        let bar = ProgressBar::new(total as u64);
        if std::io::stderr().is_terminal() {
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
        Progress { bar }
    }

    pub fn inc(&self) {
        self.bar.inc(1);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
