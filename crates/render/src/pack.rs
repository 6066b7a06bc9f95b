//! Stored renders packed into one solid archive, `NAME.tar.zst`: a tar of
//! `.render.json` files compressed as a single zstd stream with a long window.
//!
//! Why: renders of near-identical pages (a page and its copies, a site's pages
//! with one template) repeat each other, which one stream with a 128 MiB window
//! finds and a file per render cannot. The training data's renders (305 MB of JSON
//! in tars) take 64 MB as gzipped files and 8.4 MB as packs (lab/RESULTS.md), so a
//! re-render adds a few megabytes to the repository's history, not sixty.
//!
//! A pair file names a render inside a pack as a path through it, as Python's
//! zipimport names a module inside a zip: `rendered/test.tar.zst/<hash>.render.json`.
//! A pack is read once per process and kept; its entries are written in name order
//! with fixed metadata, so the same renders always make the same bytes.

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::{bail, Context, Result};

use crate::sync::lock;

/// What a pack's file name ends with.
pub const PACK_SUFFIX: &str = ".tar.zst";

/// The largest render a pack entry may hold, as for a stored render file.
pub const MAX_RENDER_BYTES: u64 = 64 << 20;

/// zstd's window: 2^27 = 128 MiB, the most its command-line tool (and so
/// `tar --zstd -xf`) decompresses without being told to.
const WINDOW_LOG: u32 = 27;
/// zstd level: 19 packs the training data's test split (64 MB of JSON) into 1.7 MB
/// in 13 s; level 9 into 2.1 MB in 0.5 s. Packs are written rarely and kept in git.
const LEVEL: i32 = 19;

/// Whether `path` names a pack (by its suffix).
pub fn is_pack(path: &Path) -> bool {
    path.to_str().is_some_and(|p| p.ends_with(PACK_SUFFIX))
}

/// The pack and entry name of a path that runs through a pack
/// (`rendered/test.tar.zst/<name>`); None for any other path.
pub fn inside(path: &Path) -> Option<(&Path, &str)> {
    let pack = path.parent().filter(|p| is_pack(p) && !p.is_dir())?;
    Some((pack, path.file_name()?.to_str()?))
}

/// The path that names `entry` inside `pack`.
pub fn entry_path(pack: &Path, entry: &str) -> PathBuf {
    pack.join(entry)
}

/// The packs this process has read, by [`key`].
fn opened() -> &'static Mutex<HashMap<PathBuf, Arc<Pack>>> {
    static OPENED: OnceLock<Mutex<HashMap<PathBuf, Arc<Pack>>>> = OnceLock::new();
    OPENED.get_or_init(Default::default)
}

/// One name for a pack however a pair file wrote its path.
fn key(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// The entries of a pack, read whole.
#[derive(Debug, Default, PartialEq)]
pub struct Pack {
    entries: BTreeMap<String, Vec<u8>>,
}

impl Pack {
    /// The pack at `path`, read once per process (later calls share it); an empty
    /// pack when there is no file there.
    pub fn open(path: &Path) -> Result<Arc<Pack>> {
        let key = key(path);
        // Held while a pack is read, so that many threads asking for it read it once.
        let mut opened = lock(opened());
        if let Some(pack) = opened.get(&key) {
            return Ok(Arc::clone(pack));
        }
        let pack = Arc::new(Pack::read(path)?);
        opened.insert(key, Arc::clone(&pack));
        Ok(pack)
    }

    /// Reads the pack at `path` from disk; an empty pack when there is no file there.
    fn read(path: &Path) -> Result<Pack> {
        if !path.exists() {
            return Ok(Pack::default());
        }
        let at = || format!("cannot read the render pack {}", path.display());
        let file = std::fs::File::open(path).with_context(at)?;
        let mut decoder = zstd::stream::read::Decoder::new(file).with_context(at)?;
        decoder.window_log_max(WINDOW_LOG).with_context(at)?;
        let mut archive = tar::Archive::new(decoder);
        let mut entries = BTreeMap::new();
        for entry in archive.entries().with_context(at)? {
            let entry = entry.with_context(at)?;
            let name = entry
                .path()
                .with_context(at)?
                .to_string_lossy()
                .into_owned();
            if entry.size() > MAX_RENDER_BYTES {
                bail!(
                    "{}: entry {name} is {} bytes, over the {MAX_RENDER_BYTES} a render may take",
                    path.display(),
                    entry.size()
                );
            }
            let mut bytes = Vec::with_capacity(entry.size() as usize);
            entry
                .take(MAX_RENDER_BYTES)
                .read_to_end(&mut bytes)
                .with_context(at)?;
            entries.insert(name, bytes);
        }
        Ok(Pack { entries })
    }

    /// Whether the pack holds `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// The bytes of the entry `name`; an error names the pack when it has none.
    pub fn entry(&self, pack: &Path, name: &str) -> Result<&[u8]> {
        self.entries.get(name).map(Vec::as_slice).with_context(|| {
            format!(
                "the render pack {} holds no {name} (was it written by another `render --store`?)",
                pack.display()
            )
        })
    }

    /// Writes `entries` as the pack at `path`, whole or not at all. A pack that
    /// already holds exactly these entries is left as it is.
    pub fn write(path: &Path, entries: BTreeMap<String, Vec<u8>>) -> Result<()> {
        let new = Pack { entries };
        if Pack::read(path).is_ok_and(|old| old == new) {
            return Ok(());
        }
        lock(opened()).remove(&key(path));
        twinpage_util::write_atomically(path, |w| {
            let mut encoder = zstd::stream::write::Encoder::new(w, LEVEL)?;
            encoder.long_distance_matching(true)?;
            encoder.window_log(WINDOW_LOG)?;
            let mut archive = tar::Builder::new(encoder);
            for (name, bytes) in &new.entries {
                let mut header = tar::Header::new_ustar();
                header.set_size(bytes.len() as u64);
                header.set_mode(0o644);
                header.set_mtime(0);
                header.set_entry_type(tar::EntryType::Regular);
                archive.append_data(&mut header, name, bytes.as_slice())?;
            }
            archive.into_inner()?.finish()?;
            Ok(())
        })
        .with_context(|| format!("cannot write the render pack {}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(pairs: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
        pairs
            .iter()
            .map(|(name, text)| (name.to_string(), text.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn a_pack_reads_back_what_was_written_and_the_same_entries_make_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let (one, two) = (
            dir.path().join("one.tar.zst"),
            dir.path().join("two.tar.zst"),
        );
        let written = entries(&[
            ("b.render.json", "{\"failed\":\"x\"}"),
            ("a.render.json", "<p>"),
        ]);
        Pack::write(&one, written.clone()).unwrap();
        Pack::write(&two, written.clone()).unwrap();
        assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
        let pack = Pack::read(&one).unwrap();
        assert_eq!(pack.entries, written);
        assert_eq!(pack.entry(&one, "a.render.json").unwrap(), b"<p>");
        let missing = pack.entry(&one, "c.render.json").unwrap_err().to_string();
        assert!(
            missing.contains("one.tar.zst holds no c.render.json"),
            "{missing}"
        );
    }

    #[test]
    fn a_path_through_a_pack_names_the_pack_and_the_entry() {
        let path = Path::new("rendered/test.tar.zst/abc.render.json");
        assert_eq!(
            inside(path),
            Some((Path::new("rendered/test.tar.zst"), "abc.render.json"))
        );
        assert_eq!(inside(Path::new("rendered/abc.render.json.gz")), None);
    }

    #[test]
    fn a_file_that_is_not_a_pack_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.tar.zst");
        std::fs::write(&path, b"not zstd").unwrap();
        let error = format!("{:#}", Pack::read(&path).unwrap_err());
        assert!(error.contains("bad.tar.zst"), "{error}");
    }
}
