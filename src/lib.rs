//! The `twinpage` command line as a library: the binary's `main`, and the Python
//! package (`python/`), which runs the same commands in its own process.

mod cli;

pub use cli::{run, run_args};

/// Settles the process before any work: mimalloc asks the kernel for transparent huge
/// pages, and each first touch of one zeroes 2 MB: with pages parsed and freed by the
/// thousand that was 5 % of the CPU time of scoring a pair file, gone with 4 KB pages
/// (and 20 MB less memory). The binary and the benches call it first thing.
pub fn tune_process() {
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and touches no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}
