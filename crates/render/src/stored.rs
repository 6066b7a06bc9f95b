//! Stored renders: what `twinpage render --store` writes and pair files name
//! (`rendered_a`, `rendered_b`), so that a run over them needs no browser.
//!
//! A store is a folder of gzipped JSON files, one per document
//! (`<hash>.render.json.gz`), or a pack (`NAME.tar.zst`, see `pack.rs`) whose
//! entries are named `<hash>.render.json`; the hash is the document's content
//! hash, so a store is also a cache that travels with its pair files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use flate2::write::GzEncoder;
use rayon::prelude::*;

use crate::cache::write_bytes;
use crate::pack::{self, Pack, MAX_RENDER_BYTES};
use crate::rendered::StoredRender;
use crate::supply::{RenderedBody, Request};

/// Reads a stored render: the JSON that `twinpage render --store` writes (gzipped
/// or not, in a folder or a pack; a render or a failure), or a bare synthetic body (HTML).
pub fn read_stored(path: &Path) -> Result<RenderedBody> {
    match pack::inside(path) {
        Some((pack, name)) => parse(Pack::open(pack)?.entry(pack, name)?, path),
        None => parse(&read_file(path)?, path),
    }
}

/// The bytes of a stored render as they are kept (JSON, or a bare synthetic body).
pub fn stored_bytes(path: &Path) -> Result<Vec<u8>> {
    match pack::inside(path) {
        Some((pack, name)) => Ok(Pack::open(pack)?.entry(pack, name)?.to_vec()),
        None => read_file(path),
    }
}

fn read_file(path: &Path) -> Result<Vec<u8>> {
    twinpage_util::body::read_decompressed(path, MAX_RENDER_BYTES)
}

fn parse(bytes: &[u8], path: &Path) -> Result<RenderedBody> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'{') {
        return Ok(RenderedBody::SyntheticOnly(bytes.to_vec()));
    }
    let stored: StoredRender = serde_json::from_slice(bytes)
        .with_context(|| format!("{} is not a stored render", path.display()))?;
    Ok(RenderedBody::from(stored))
}

/// Where renders are stored: a folder of files, or a pack.
enum Store<'a> {
    Folder(&'a Path),
    Pack(&'a Path),
}

impl<'a> Store<'a> {
    /// A pack when `path` ends with `.tar.zst`, else a folder.
    fn at(path: &'a Path) -> Store<'a> {
        if pack::is_pack(path) {
            Store::Pack(path)
        } else {
            Store::Folder(path)
        }
    }

    /// Where the render of a document with this content hash is (or goes).
    fn path_of(&self, content_hash: &[u8; 32]) -> PathBuf {
        let hash = blake3::Hash::from(*content_hash).to_hex();
        match self {
            Store::Folder(folder) => folder.join(format!("{}.render.json.gz", &hash[..20])),
            Store::Pack(pack) => pack::entry_path(pack, &format!("{}.render.json", &hash[..20])),
        }
    }

    /// Whether the store holds the render at `path` (one of its [`Store::path_of`]).
    fn holds(&self, path: &Path) -> bool {
        match (self, pack::inside(path)) {
            (Store::Pack(pack), Some((_, name))) => {
                Pack::open(pack).is_ok_and(|pack| pack.contains(name))
            }
            _ => path.is_file(),
        }
    }
}

/// Writes each render (or its failure) into the store at `to` (a folder, or a pack
/// when it ends with `.tar.zst`); the stored render of each document. Documents that
/// cannot be read get none; in a folder, renders already there are not written
/// again; a pack is written whole, with the renders of these requests only.
pub fn store_all(
    requests: &[Request],
    bodies: &[RenderedBody],
    to: &Path,
) -> Result<BTreeMap<PathBuf, PathBuf>> {
    let store = Store::at(to);
    let folder = match store {
        Store::Folder(folder) => folder,
        Store::Pack(pack) => pack.parent().unwrap_or(Path::new("")),
    };
    if !folder.as_os_str().is_empty() {
        std::fs::create_dir_all(folder)
            .with_context(|| format!("cannot create {}", folder.display()))?;
    }
    let mut stored = BTreeMap::new();
    let mut packed = BTreeMap::new();
    for (request, body) in requests.iter().zip(bodies) {
        let document = request.document.to_path_buf();
        let render = match body {
            RenderedBody::Measured(rendered) => {
                let mut rendered = rendered.clone();
                rendered.cap_bodies();
                StoredRender::Rendered(rendered)
            }
            RenderedBody::Failed(reason) => StoredRender::Failed {
                failed: reason.clone(),
            },
            RenderedBody::SyntheticOnly(_) => {
                if let Some(given) = request.stored {
                    stored.insert(document, given.to_path_buf());
                }
                continue;
            }
        };
        let Ok(hash) = request.hash() else {
            continue;
        };
        let path = store.path_of(&hash);
        match store {
            Store::Folder(_) if request.stored != Some(path.as_path()) => {
                write_gzipped(&render, &path)?
            }
            Store::Folder(_) => {}
            Store::Pack(_) => {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                packed.insert(name.unwrap_or_default(), serde_json::to_vec(&render)?);
            }
        }
        stored.insert(document, path);
    }
    if let Store::Pack(pack) = store {
        Pack::write(pack, packed)?;
    }
    Ok(stored)
}

/// For each request the pair file gives no render for, the render an earlier
/// [`store_all`] into `to` wrote, if there is one: a store is then a cache that
/// travels with the pair files. Fills in the requests' content hashes on the way.
pub fn already_stored(requests: &mut [Request], to: &Path) -> Vec<Option<PathBuf>> {
    let store = Store::at(to);
    requests
        .par_iter_mut()
        .map(|request| {
            let hash = request.hash().ok()?;
            request.content_hash = Some(hash);
            let path = store.path_of(&hash);
            (request.stored.is_none() && store.holds(&path)).then_some(path)
        })
        .collect()
}

/// Writes a render (or failure) as gzipped JSON to `path`.
fn write_gzipped(stored: &StoredRender, path: &Path) -> Result<()> {
    let mut gzip = GzEncoder::new(Vec::new(), flate2::Compression::best());
    serde_json::to_writer(&mut gzip, stored)?;
    write_bytes(path, &gzip.finish()?)
}
