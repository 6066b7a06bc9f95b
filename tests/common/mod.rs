//! What the end-to-end test files share.

use std::path::Path;

use assert_cmd::Command;

/// The binary, run from the repository, with its render cache under the test
/// target folder (never the user's).
pub fn twinpage() -> Command {
    let mut cmd = Command::cargo_bin("twinpage").unwrap();
    cmd.current_dir(env!("CARGO_MANIFEST_DIR")).env(
        "XDG_CACHE_HOME",
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("cache"),
    );
    cmd
}
