//! What every bench shares with the `twinpage` binary, so that it times what users
//! run: the binary's allocator (declared as in `src/main.rs`) and its memory settings.
//! Without them `--bench score -- --fetched-only` ran about 5 % slower than `score`.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Settles the process as the binary does before it starts.
pub fn run_like_the_binary() {
    twinpage_cli::tune_process();
}
