//! Small tools every layer uses: stable hashes, disjoint sets, files written
//! whole or not at all, progress on a terminal, declared parameters, and a body's
//! bytes read bounded. Nothing here knows what a document, a signal or a model is;
//! it is its own crate because the renderer, below the core, needs it too.

pub mod body;
pub mod choice;
pub mod hash;
pub mod output;
pub mod params;
pub mod progress;
pub mod union_find;

pub use choice::Choice;
pub use output::write_atomically;

/// Whether no process has this pid any more (the owner of a file left behind by a
/// run that was killed). A reused pid reads as alive: the file then stays, which is
/// the safe mistake.
pub fn process_is_gone(pid: i32) -> bool {
    // SAFETY: kill(2) with signal 0 only checks that the process exists.
    pid > 0
        && unsafe { libc::kill(pid, 0) } != 0
        && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}
pub use progress::Progress;
pub use union_find::UnionFind;
