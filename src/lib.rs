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

/// Fine-tuning the cross-encoder allocates and frees tensors of tens of megabytes at every
/// step (gradients, the optimiser's moments); mimalloc hands freed memory back to the
/// kernel after 10 ms and has it zeroed again at the next step. Kept instead, a 484-pair
/// probe fine-tuned in 66 s instead of 86 s; the process then holds its peak memory.
pub(crate) fn keep_freed_memory() {
    extern "C" {
        fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    }
    /// `mi_option_purge_delay` in mimalloc 3's `mimalloc.h` (-1: never purge).
    const PURGE_DELAY: std::ffi::c_int = 15;
    // SAFETY: sets one of mimalloc's options, a plain integer it reads when it purges.
    unsafe { mi_option_set(PURGE_DELAY, -1) }
}
