//! A batch: pair files read, and every document they name read and parsed once.

use std::path::PathBuf;

use anyhow::{bail, Result};

use super::documents::DocumentSet;
use crate::document::{IdfTable, Pair, PairFile, Skipped};
use crate::signals::Layout;
use twinpage_render::RenderSettings;

/// Pair files read and their documents parsed, ready for the tests.
pub struct Batch {
    pub files: Vec<PairFile>,
    pub documents: DocumentSet,
}

impl Batch {
    /// Reads the pair files and every distinct document they name, once; with
    /// `rendering`, their rendered bodies too (stored, cached or rendered now).
    pub fn load(paths: &[PathBuf], rendering: Option<&RenderSettings>) -> Result<Batch> {
        if paths.is_empty() {
            bail!("no pair file given (use --pairs FILE)");
        }
        let files = paths
            .iter()
            .map(|p| PairFile::read(p))
            .collect::<Result<Vec<_>>>()?;
        Batch::of(files, rendering)
    }

    /// The batch of pair files already read: every distinct document they name,
    /// read once, and rendered with `rendering`.
    pub fn of(files: Vec<PairFile>, rendering: Option<&RenderSettings>) -> Result<Batch> {
        let all: Vec<Pair> = files.iter().flat_map(|f| f.pairs.iter().cloned()).collect();
        let documents = DocumentSet::load(&all, IdfTable::shipped(), rendering)?;
        Ok(Batch { files, documents })
    }

    /// The layout of this batch's signal vectors.
    pub fn layout(&self) -> Layout {
        self.documents.layout()
    }

    /// The value of column `name` for every pair, in [`Batch::pairs`] order; an
    /// error when a file has no such column.
    pub fn column(&self, name: &str) -> Result<Vec<String>> {
        let mut values = Vec::new();
        for file in &self.files {
            let c = file.column(name)?;
            values.extend(file.pairs.iter().map(|p| p.fields[c].clone()));
        }
        Ok(values)
    }

    pub fn pairs(&self) -> impl Iterator<Item = &Pair> {
        self.files.iter().flat_map(|f| f.pairs.iter())
    }

    /// Rows whose documents could not be read, in file order.
    pub fn unreadable(&self) -> Vec<Skipped> {
        self.pairs()
            .filter_map(|p| {
                self.documents.pair(p).err().map(|reason| Skipped {
                    location: p.location(),
                    reason,
                })
            })
            .collect()
    }
}
