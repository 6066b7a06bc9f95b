//! The model: a decision tree over the signal vector, its calibrated confidence,
//! its two thresholds, and the JSON file that keeps them.
//!
//! A model file records the signal names in vector order; loading one whose names
//! differ from the running code's is an error, because a tree applied to a vector
//! laid out differently gives confident nonsense.

pub mod calibration;
pub mod metrics;
pub mod train;
pub mod tree;

use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

pub use calibration::Thresholds;
pub use metrics::{Confusion, Metrics};
pub use train::{LabelledPairs, TreeParams};
pub use tree::Tree;

use crate::signals::Layout;
use crate::util::write_atomically;

/// Version of the model file format.
pub const FORMAT: u32 = 1;

/// Where a pair is routed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Duplicate,
    Distinct,
    Review,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Duplicate => "duplicate",
            Decision::Distinct => "distinct",
            Decision::Review => "review",
        }
    }
}

/// How the model was trained, for whoever reads the file later.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TrainingInfo {
    /// The pair files, as given.
    pub files: Vec<String>,
    /// Labelled pairs used, and how they were split.
    pub pairs: usize,
    pub duplicates: usize,
    pub fit_pairs: usize,
    pub calibration_pairs: usize,
    pub evaluation_pairs: usize,
    /// blake3 of every pair's two document hashes and label, in order: the same
    /// fingerprint means the same training data.
    pub fingerprint: String,
    /// Labels from the review queue among the pairs (retrained models).
    #[serde(default)]
    pub reviewed_labels: usize,
}

/// A trained model, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    pub format: u32,
    /// Content hash of the tree and thresholds.
    pub id: String,
    pub twinpage_version: String,
    /// Signal names in vector order.
    pub signals: Vec<String>,
    pub hyperparameters: TreeParams,
    pub seed: u64,
    pub training: TrainingInfo,
    pub thresholds: Thresholds,
    /// Metrics on the evaluation split, which neither fitting nor calibration saw.
    pub heldout: Metrics,
    /// The model this one was retrained from, if any.
    #[serde(default)]
    pub parent: Option<String>,
    pub tree: Tree,
}

impl Model {
    /// A model from what training produced, its id stamped.
    pub fn new(
        signals: Vec<String>,
        hyperparameters: TreeParams,
        seed: u64,
        training: TrainingInfo,
        trained: train::Trained,
        parent: Option<String>,
    ) -> Model {
        let mut model = Model {
            format: FORMAT,
            id: String::new(),
            twinpage_version: env!("CARGO_PKG_VERSION").to_string(),
            signals,
            hyperparameters,
            seed,
            training: TrainingInfo {
                fit_pairs: trained.fit_pairs,
                calibration_pairs: trained.calibration_pairs,
                evaluation_pairs: trained.evaluation_pairs,
                ..training
            },
            thresholds: trained.thresholds,
            heldout: trained.heldout,
            parent,
            tree: trained.tree,
        };
        model.stamp_id();
        model
    }

    /// Reads a model file and checks that it fits the running code.
    pub fn load(path: &Path) -> Result<Model> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read model {}", path.display()))?;
        let model: Model = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a twinpage model file", path.display()))?;
        if model.format != FORMAT {
            bail!(
                "{}: model format {} but this twinpage reads format {FORMAT}; retrain it with `twinpage train`",
                path.display(),
                model.format
            );
        }
        model
            .check_signals()
            .with_context(|| format!("{} does not match this twinpage", path.display()))?;
        model
            .tree
            .validate(model.signals.len())
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok(model)
    }

    /// The layout of vectors this model reads.
    pub fn layout(&self) -> Layout {
        Layout::of(&self.signals)
    }

    /// The model's signals must be the running code's for its layout, in the same order.
    pub fn check_signals(&self) -> Result<()> {
        let running = crate::signals::names(self.layout());
        if self.signals == running {
            return Ok(());
        }
        let first_difference = self
            .signals
            .iter()
            .zip(&running)
            .position(|(m, r)| m != r)
            .unwrap_or(self.signals.len().min(running.len()));
        bail!(
            "the model was trained on {} signals, this twinpage computes {}; first difference at position {}: model has `{}`, code has `{}`. Retrain the model with `twinpage train`.",
            self.signals.len(),
            running.len(),
            first_difference,
            self.signals.get(first_difference).map_or("(nothing)", String::as_str),
            running.get(first_difference).map_or("(nothing)", String::as_str),
        )
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        let json = serde_json::to_string_pretty(self)?;
        write_atomically(path, |w| Ok(std::io::Write::write_all(w, json.as_bytes())?))
    }

    /// Calibrated P(duplicate) of a signal vector.
    pub fn p_duplicate(&self, vector: &[f64]) -> f64 {
        self.tree.p_duplicate(vector)
    }

    pub fn decide(&self, p_duplicate: f64) -> Decision {
        if p_duplicate >= self.thresholds.duplicate {
            Decision::Duplicate
        } else if p_duplicate <= self.thresholds.distinct {
            Decision::Distinct
        } else {
            Decision::Review
        }
    }

    /// Sets `id` from the content that decides pairs.
    pub(crate) fn stamp_id(&mut self) {
        let content = serde_json::to_vec(&(&self.signals, &self.tree, &self.thresholds))
            .expect("a model serialises");
        self.id = blake3::hash(&content).to_hex()[..16].to_string();
    }
}
