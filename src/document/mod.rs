//! Documents: reading pair files and bodies, and the attributes of a body.
//!
//! Each distinct document is read and parsed once per run, however many pairs
//! name it ([`DocumentSet::load`]); the tests then compare attributes, never HTML.

pub mod attributes;
pub mod decode;
pub mod idf;
pub mod pairs;
pub mod text;
pub mod url;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

pub use attributes::Document;
pub use idf::IdfTable;
pub use pairs::{Pair, PairFile};

use crate::progress::Progress;
use crate::signals::PairBodies;

/// The documents of a run, by path, each parsed once.
#[derive(Debug, Default)]
pub struct DocumentSet {
    documents: HashMap<PathBuf, Arc<Document>>,
    failures: HashMap<PathBuf, String>,
}

impl DocumentSet {
    /// Reads and parses every distinct fetched body named by `pairs`, on all cores.
    /// Unreadable documents are recorded, not fatal: the caller decides.
    pub fn load(pairs: &[Pair], idf: &IdfTable) -> DocumentSet {
        let paths: BTreeSet<&Path> = pairs
            .iter()
            .flat_map(|p| [p.a.html.as_path(), p.b.html.as_path()])
            .collect();
        let progress = Progress::new(paths.len(), "reading documents");
        let results: Vec<(PathBuf, Result<Document, String>)> = paths
            .into_par_iter()
            .map(|path| {
                let result = decode::read_body(path)
                    .map(|body| Document::from_body(&body, idf))
                    .map_err(|e| format!("{e:#}"));
                progress.inc();
                (path.to_path_buf(), result)
            })
            .collect();
        progress.finish();
        let mut set = DocumentSet::default();
        for (path, result) in results {
            match result {
                Ok(doc) => {
                    set.documents.insert(path, Arc::new(doc));
                }
                Err(e) => {
                    set.failures.insert(path, e);
                }
            }
        }
        set
    }

    /// Both documents of a pair, or the reason one of them could not be read.
    pub fn pair(&self, pair: &Pair) -> Result<(&Document, &Document), String> {
        Ok((self.get(&pair.a.html)?, self.get(&pair.b.html)?))
    }

    /// The bodies a pair's signal vector is computed from.
    pub fn bodies(&self, pair: &Pair) -> Result<PairBodies<'_>, String> {
        Ok(PairBodies {
            fetched: self.pair(pair)?,
            rendered: None,
        })
    }

    fn get(&self, path: &Path) -> Result<&Document, String> {
        match self.documents.get(path) {
            Some(doc) => Ok(doc),
            None => Err(self
                .failures
                .get(path)
                .cloned()
                .unwrap_or_else(|| format!("document {} was not loaded", path.display()))),
        }
    }

    /// Raw bytes of all documents read.
    pub fn total_bytes(&self) -> usize {
        self.documents.values().map(|d| d.body_len).sum()
    }

    pub fn len(&self) -> usize {
        self.documents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }
}
