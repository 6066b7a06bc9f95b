//! The `twinpage` command line as a library: the binary's `main`, and the Python
//! package (`python/`), which runs the same commands in its own process.

mod cli;

pub use cli::{run, run_args};
