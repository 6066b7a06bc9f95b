//! A document as the renderer reads it: the same bytes the fetched body is made of
//! (so that the cache key, the render and the fetched-body signals agree), and the
//! name it is served under.

use anyhow::{bail, Result};
use std::path::Path;
use twinpage_util::body::MAX_BODY_BYTES;

/// Reads a document as the fetched body is read (decompressed, cut at 4 MB, so a
/// huge page costs the browser no more than a big one). These are the bytes that
/// are rendered and that key the cache.
pub fn read_document(path: &Path) -> Result<Vec<u8>> {
    twinpage_util::body::read_decompressed(path, MAX_BODY_BYTES as u64)
}

/// The document's name in its URL: its file name without a `.gz` ending.
pub(crate) fn served_name(path: &Path) -> Result<String> {
    let Some(name) = path.file_name() else {
        bail!("{} is not a file", path.display());
    };
    let name = name.to_string_lossy();
    Ok(name.strip_suffix(".gz").unwrap_or(&name).to_string())
}
