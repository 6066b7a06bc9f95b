//! Commands: parse arguments, call the library, print.
//!
//! Exit codes scripts can trust: 0 success, 1 a run that failed (bad input, a
//! missing document, a model that does not fit), 2 a usage error (clap's).
/// `println!` that returns its error instead of panicking: a reader that went away
/// (`twinpage explain … | head -1`) ends the command quietly (see
/// [`output::quiet_if_broken_pipe`]).
macro_rules! outln {
    () => {
        $crate::cli::output::print_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::cli::output::print_line(format_args!($($arg)*))
    };
}

mod baseline;
mod candidates;
mod cluster;
mod command_line;
mod declared;
mod dedupe;
mod evaluate;
mod explain;
mod idf;
mod index;
mod inputs;
mod model_files;
mod output;
mod render;
mod report;
mod retrain;
mod review;
mod score;
mod settle;
mod signals;
mod sketch;
mod train;

pub use command_line::{run, run_args};
