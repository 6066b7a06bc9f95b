//! Processes by pid: whether one is still there.

/// Whether no process has this pid any more (the owner of a file left behind by a
/// run that was killed). A reused pid reads as alive: the file then stays, which is
/// the safe mistake.
pub fn process_is_gone(pid: i32) -> bool {
    // SAFETY: kill(2) with signal 0 only checks that the process exists.
    pid > 0
        && unsafe { libc::kill(pid, 0) } != 0
        && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}
