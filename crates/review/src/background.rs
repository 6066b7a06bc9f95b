//! Retraining while the page serves (`review --retrain-every N`): after every N
//! new labels a thread trains the successor of the starting model on its
//! training pairs plus every settled label so far, judges both on the frozen set,
//! and, when the new one is at least as good, scores the queue again with it, so
//! the order the page serves follows the new model. Until then the old queue and
//! its order stay as they are: nothing waits for the training.
//!
//! Each retraining starts from the starting model (not from the last successor),
//! so a successor's own reviewed labels are never counted twice and the frozen
//! set stays the one the starting model was judged on.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::retrain::{self, Frozen};
use crate::store::{Rescored, ReviewStore};
use twinpage::model::{LabelledPairs, Model};

/// What a background retraining starts from (it retrains with the parent's seed).
pub struct Retraining {
    /// Retrain after this many new labels.
    pub every: usize,
    pub parent: Model,
    /// The parent's training pairs.
    pub original: LabelledPairs,
    pub frozen: Frozen,
    /// Where each successor is written, as `<model id>.json`.
    pub models: PathBuf,
}

/// Where retraining stands, for the page.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RetrainStatus {
    pub every: usize,
    /// Labels given when the last retraining started.
    pub labels_at_last: usize,
    pub running: bool,
    pub last: Option<RetrainOutcome>,
    /// Why the last retraining failed, if it did.
    pub error: Option<String>,
}

/// One finished retraining.
#[derive(Debug, Clone, Serialize)]
pub struct RetrainOutcome {
    pub model_id: String,
    pub file: String,
    /// Settled labels it trained with, and how many of them an adjudicator settled.
    pub labels: usize,
    pub adjudicated: usize,
    /// F1 of the starting model and of this one on the frozen set.
    pub parent_f1: f64,
    pub f1: f64,
    /// The queue was scored again with it (it is at least as good).
    pub adopted: bool,
    /// What scoring the queue again changed (when adopted).
    pub change: Option<Rescored>,
}

/// A running server's retraining: its inputs, and where it stands.
pub struct Retrainer {
    inputs: Retraining,
    status: Mutex<RetrainStatus>,
}

impl Retrainer {
    pub fn new(inputs: Retraining) -> Arc<Retrainer> {
        let status = RetrainStatus {
            every: inputs.every,
            ..RetrainStatus::default()
        };
        Arc::new(Retrainer {
            inputs,
            status: Mutex::new(status),
        })
    }

    pub fn status(&self) -> RetrainStatus {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, RetrainStatus> {
        self.status.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts a retraining in the background when `labels` (given so far) are at
    /// least `every` more than at the last one and none is running; true if it
    /// started.
    pub fn maybe_start(self: &Arc<Self>, db: &Path, labels: usize) -> bool {
        {
            let mut status = self.lock();
            if status.running || labels < status.labels_at_last + self.inputs.every {
                return false;
            }
            status.running = true;
            status.labels_at_last = labels;
        }
        let me = self.clone();
        let db = db.to_path_buf();
        std::thread::spawn(move || {
            let outcome = me.retrain(&db);
            let mut status = me.lock();
            status.running = false;
            match outcome {
                Ok(outcome) => {
                    status.last = Some(outcome);
                    status.error = None;
                }
                Err(e) => status.error = Some(format!("{e:#}")),
            }
        });
        true
    }

    /// Trains on every settled label, writes the model, and scores the queue again
    /// with it when it is at least as good as the starting model.
    pub fn retrain(&self, db: &Path) -> Result<RetrainOutcome> {
        let inputs = &self.inputs;
        let settled = ReviewStore::connect(db)?.settled_labels()?;
        let (reviewed, _) = retrain::reviewed_pairs(&settled, &inputs.parent.signals);
        let retrained = retrain::retrain(
            &inputs.parent,
            &inputs.original,
            &reviewed,
            inputs.frozen.clone(),
            inputs.parent.seed,
        )?;
        std::fs::create_dir_all(&inputs.models)
            .with_context(|| format!("cannot make {}", inputs.models.display()))?;
        let file = inputs.models.join(format!("{}.json", retrained.model.id));
        retrained.model.save(&file)?;
        let adopted = retrained.at_least_as_good();
        let change = match adopted {
            true => Some(ReviewStore::connect(db)?.rescore(&retrained.model)?),
            false => None,
        };
        Ok(RetrainOutcome {
            model_id: retrained.model.id.clone(),
            file: file.display().to_string(),
            labels: settled.len(),
            adjudicated: settled.iter().filter(|l| l.adjudicated).count(),
            parent_f1: retrained.parent_metrics.f1,
            f1: retrained.metrics.f1,
            adopted,
            change,
        })
    }
}
