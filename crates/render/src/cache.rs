//! Renders on disk, so that scoring the same documents again does not render again.
//!
//! An entry is `<dir>/<first two hex digits>/<key>.json` (the [`Rendered`] fields)
//! with its screenshot beside it as `<key>.png`. The key hashes the document's bytes
//! with the renderer's and Chromium's versions, so a changed document, renderer or
//! browser simply misses. Files are written whole or not at all (temporary file +
//! rename), the PNG (when a screenshot was taken) first. A
//! document that failed to render (twice: see `supply`) is remembered as
//! `<key>.failed.json` with the reason, so a warm run starts no browser for it.

use crate::options::ServePolicy;
use crate::process;
use crate::rendered::{Rendered, StoredRender, RENDERER_VERSION};
use anyhow::{Context, Result};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use twinpage_util::Choice;

/// The render cache of one run: renders made under one [`ServePolicy`].
pub struct RenderCache {
    dir: PathBuf,
    serve: ServePolicy,
    /// The names of the files in the cache when it was listed ([`RenderCache::listed`]).
    listing: Option<HashSet<String>>,
}

impl RenderCache {
    /// Opens (creating it if needed) the cache in `dir` for renders whose pages were
    /// served as `serve` says; callers default to [`crate::default_cache_dir`].
    pub fn open(dir: &Path, serve: ServePolicy) -> Result<RenderCache> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the render cache {}", dir.display()))?;
        Ok(RenderCache {
            dir: dir.to_path_buf(),
            serve,
            listing: None,
        })
    }

    /// The cache as it is on disk now, listed once: lookups ask the listing before
    /// the disk. A run that only looks renders up (fingerprinting a crawl, where most
    /// documents were never rendered) would otherwise pay two failed opens a
    /// document; renders stored after the listing are not seen.
    pub fn listed(mut self) -> Result<RenderCache> {
        let mut names = HashSet::new();
        for shard in read_dir(&self.dir)? {
            let shard = shard.with_context(|| format!("cannot list {}", self.dir.display()))?;
            if shard.file_type().is_ok_and(|t| t.is_dir()) {
                for entry in read_dir(&shard.path())? {
                    let entry =
                        entry.with_context(|| format!("cannot list {}", shard.path().display()))?;
                    names.insert(entry.file_name().to_string_lossy().into_owned());
                }
            }
        }
        self.listing = Some(names);
        Ok(self)
    }

    /// The bytes of the cache file at `path`; None when missing, which a listed
    /// cache knows without asking the disk.
    fn read(&self, path: &Path) -> Option<Vec<u8>> {
        let name = path.file_name()?.to_str()?;
        let listed = self
            .listing
            .as_ref()
            .is_none_or(|names| names.contains(name));
        listed.then(|| std::fs::read(path).ok()).flatten()
    }

    /// The key of a document: blake3 of its content hash (blake3 of its
    /// decompressed bytes, as the core's `Document::body_hash` holds it),
    /// [`RENDERER_VERSION`], what the page was served besides itself (a page may
    /// render otherwise without its siblings) and the version of the Chromium that
    /// renders (`RenderOptions::default().chromium`).
    pub fn key(&self, content_hash: &[u8; 32]) -> String {
        let mut hasher = blake3::Hasher::new();
        let serve = self.serve.name();
        for part in [RENDERER_VERSION, serve, process::installed_version()] {
            // Length-prefixed, so that no two (version, version) pairs hash alike.
            hasher.update(&(part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
        hasher.update(content_hash);
        hasher.finalize().to_hex().to_string()
    }

    /// The stored render for `key`, without its screenshot (which signals do not
    /// need; see [`RenderCache::screenshot`]); None when missing or unreadable.
    pub fn get(&self, key: &str) -> Option<Rendered> {
        serde_json::from_slice(&self.read(&self.paths(key).0)?).ok()
    }

    /// The screenshot (PNG) stored with the render for `key`, if it was taken.
    pub fn screenshot(&self, key: &str) -> Option<Vec<u8>> {
        self.read(&self.paths(key).1).filter(|png| !png.is_empty())
    }

    /// Why the document of `key` failed to render, if the cache remembers it failing.
    pub fn failure(&self, key: &str) -> Option<String> {
        match serde_json::from_slice(&self.read(&self.failure_path(key))?).ok()? {
            StoredRender::Failed { failed } => Some(failed),
            StoredRender::Rendered(_) => None,
        }
    }

    /// Stores `rendered` under `key`, atomically, and forgets an earlier failure.
    pub fn put(&self, key: &str, rendered: &Rendered) -> Result<()> {
        let (json, png) = self.paths(key);
        self.make_shard(&json)?;
        if !rendered.screenshot_png.is_empty() {
            write_bytes(&png, &rendered.screenshot_png)?;
        }
        write_bytes(&json, &serde_json::to_vec(rendered)?)?;
        let _ = std::fs::remove_file(self.failure_path(key));
        Ok(())
    }

    /// Remembers that the document of `key` failed to render and why, so that later
    /// runs do not spend a deadline on it again (`--retry-failed` does).
    pub fn put_failure(&self, key: &str, reason: &str) -> Result<()> {
        let path = self.failure_path(key);
        self.make_shard(&path)?;
        let failure = StoredRender::Failed {
            failed: reason.to_string(),
        };
        write_bytes(&path, &serde_json::to_vec(&failure)?)
    }

    fn make_shard(&self, path: &Path) -> Result<()> {
        let shard = path.parent().unwrap_or(&self.dir);
        std::fs::create_dir_all(shard).with_context(|| format!("cannot create {}", shard.display()))
    }

    fn shard(&self, key: &str) -> PathBuf {
        self.dir.join(key.get(..2).unwrap_or("__"))
    }

    fn paths(&self, key: &str) -> (PathBuf, PathBuf) {
        let shard = self.shard(key);
        (
            shard.join(format!("{key}.json")),
            shard.join(format!("{key}.png")),
        )
    }

    fn failure_path(&self, key: &str) -> PathBuf {
        self.shard(key).join(format!("{key}.failed.json"))
    }
}

fn read_dir(dir: &Path) -> Result<std::fs::ReadDir> {
    std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))
}

/// Writes a whole file or nothing.
pub(crate) fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    twinpage_util::write_atomically(path, |w| Ok(w.write_all(bytes)?))
}
