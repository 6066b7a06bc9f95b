//! A batch of pairs through the stages: documents → attributes → signals → model
//! → decisions. The commands are thin wrappers around these functions.

use std::path::PathBuf;

use anyhow::{bail, Result};
use rayon::prelude::*;

use crate::document::{DocumentSet, IdfTable, Pair, PairFile};
use crate::model::{Decision, Model, TrainingSet};
use crate::render::RenderSettings;
use crate::retrain::LabelledPairs;
use crate::signals::{self, Layout};
use crate::util::Progress;

/// Says on stderr where rendered bodies came from and which renders failed.
fn report_renders(documents: &DocumentSet) {
    let report = &documents.render_report;
    if report.rendered > 0 || report.failed > 0 {
        eprintln!(
            "twinpage: rendered bodies: {} rendered now, {} from the cache, {} from the pair file, {} failed",
            report.rendered, report.cached, report.stored, report.failed
        );
    }
    if let Some(first) = report.not_cached.first() {
        eprintln!(
            "twinpage: warning: {} render(s) could not be written to the cache (first: {first})",
            report.not_cached.len()
        );
    }
    if let Some((path, reason)) = documents.render_failures.first() {
        eprintln!(
            "twinpage: warning: {} document(s) have no rendered body; their fetched body stands in \
             (first: {}: {reason})",
            documents.render_failures.len(),
            path.display()
        );
    }
}

/// Pair files read and their documents parsed, ready for the tests.
pub struct Batch {
    pub files: Vec<PairFile>,
    pub documents: DocumentSet,
}

/// A row that could not be scored, and why.
#[derive(Debug, Clone)]
pub struct Skipped {
    pub location: String,
    pub reason: String,
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
        let all: Vec<Pair> = files.iter().flat_map(|f| f.pairs.iter().cloned()).collect();
        let documents = DocumentSet::load(&all, IdfTable::shipped(), rendering)?;
        report_renders(&documents);
        Ok(Batch { files, documents })
    }

    /// The layout of this batch's signal vectors.
    pub fn layout(&self) -> Layout {
        self.documents.layout()
    }

    pub fn pairs(&self) -> impl Iterator<Item = &Pair> {
        self.files.iter().flat_map(|f| f.pairs.iter())
    }

    /// Rows whose documents could not be read. Without `skip_bad` the first one is
    /// an error; with it they are returned for the side file.
    pub fn unreadable(&self, skip_bad: bool) -> Result<Vec<Skipped>> {
        let skipped: Vec<Skipped> = self
            .pairs()
            .filter_map(|p| {
                self.documents.pair(p).err().map(|reason| Skipped {
                    location: p.location(),
                    reason,
                })
            })
            .collect();
        match skipped.first() {
            Some(first) if !skip_bad => bail!(
                "{}: {} ({} row(s) affected; --skip-bad skips them and lists them in a side file)",
                first.location,
                first.reason,
                skipped.len()
            ),
            _ => Ok(skipped),
        }
    }
}

/// Refuses a model trained on another layout than `have`, saying how to get a match.
pub fn check_layout(model: &Model, have: Layout) -> Result<()> {
    let wanted = model.layout();
    if wanted == have {
        return Ok(());
    }
    let fix = match wanted {
        Layout::FetchedAndRendered => {
            "drop --no-render, or use a model trained with --no-render \
             (models/fetched-only.json is one)"
        }
        Layout::Fetched => "add --no-render, or use a model trained on rendered bodies",
    };
    bail!(
        "model {} was trained on {}, but this run computes {}: {fix}",
        model.id,
        wanted.describe(),
        have.describe()
    )
}

/// What the model made of one pair.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub p_duplicate: f64,
    pub decision: Decision,
    /// `model`, or the screening test that decided the pair before the full suite.
    pub decided_by: &'static str,
    pub vector: Option<Vec<f64>>,
}

impl Outcome {
    /// Confidence in the decision taken: p for duplicate, 1 - p for distinct, and
    /// for review the larger of the two.
    pub fn confidence(&self) -> f64 {
        match self.decision {
            Decision::Duplicate => self.p_duplicate,
            Decision::Distinct => 1.0 - self.p_duplicate,
            Decision::Review => self.p_duplicate.max(1.0 - self.p_duplicate),
        }
    }
}

/// Name of the screening test that decides byte-identical bodies.
pub const SCREEN_IDENTICAL: &str = "screen:identical-bodies";

/// Scores every pair on all cores. `None` for a pair whose documents are missing.
pub fn score(batch: &Batch, model: &Model) -> Vec<Option<Outcome>> {
    let pairs: Vec<&Pair> = batch.pairs().collect();
    let progress = Progress::new(pairs.len(), "scoring pairs");
    let outcomes = pairs
        .par_iter()
        .map(|pair| {
            let outcome = batch.documents.bodies(pair).ok().map(|bodies| {
                let (a, b) = bodies.fetched;
                if a.body_hash == b.body_hash && !a.binary {
                    return Outcome {
                        p_duplicate: 1.0,
                        decision: Decision::Duplicate,
                        decided_by: SCREEN_IDENTICAL,
                        vector: None,
                    };
                }
                let vector = signals::vector(pair, &bodies);
                let p = model.p_duplicate(&vector);
                Outcome {
                    p_duplicate: p,
                    decision: model.decide(p),
                    decided_by: "model",
                    vector: Some(vector),
                }
            });
            progress.inc();
            outcome
        })
        .collect();
    progress.finish();
    outcomes
}

/// Signal vectors of every pair (no screening: every test runs), on all cores.
pub fn vectors(batch: &Batch) -> Vec<Option<Vec<f64>>> {
    let pairs: Vec<&Pair> = batch.pairs().collect();
    let progress = Progress::new(pairs.len(), "computing signals");
    let out = pairs
        .par_iter()
        .map(|pair| {
            let v = batch
                .documents
                .bodies(pair)
                .ok()
                .map(|bodies| signals::vector(pair, &bodies));
            progress.inc();
            v
        })
        .collect();
    progress.finish();
    out
}

/// The labelled pairs of a batch as a training set, with the fingerprint of the
/// data (document hashes and labels, in order). Unlabelled rows are an error.
pub fn training_set(batch: &Batch) -> Result<(TrainingSet, String)> {
    let (pairs, fingerprint) = labelled_pairs(batch)?;
    let set = TrainingSet {
        groups: crate::model::train::groups_by_shared_document(&pairs.documents),
        vectors: pairs.vectors,
        labels: pairs.labels,
    };
    Ok((set, fingerprint))
}

/// The labelled pairs of a batch: signal vectors, labels and document hashes,
/// with the fingerprint of the data. Unlabelled rows are an error.
pub fn labelled_pairs(batch: &Batch) -> Result<(LabelledPairs, String)> {
    let vectors = vectors(batch);
    let mut out = LabelledPairs::default();
    let mut fingerprint = blake3::Hasher::new();
    for (pair, vector) in batch.pairs().zip(vectors) {
        let Some(label) = pair.label else {
            bail!(
                "{}: no label; training needs a `label` on every row",
                pair.location()
            );
        };
        let Some(vector) = vector else { continue };
        let (a, b) = batch
            .documents
            .pair(pair)
            .expect("vector computed, so documents loaded");
        fingerprint.update(&a.body_hash);
        fingerprint.update(&b.body_hash);
        fingerprint.update(&[u8::from(label)]);
        out.vectors.push(vector);
        out.labels.push(label);
        out.documents.push((a.body_hash, b.body_hash));
    }
    Ok((out, fingerprint.finalize().to_hex().to_string()))
}
