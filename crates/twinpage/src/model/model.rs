//! A trained model, as stored: what decides pairs, and how it was trained.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::calibration::Calibration;
use super::contrast::{self, Contrast};
use super::decision::{Decision, DecisionPolicy, Judgement, Thresholds};
use super::estimator::{self, Estimator};
use super::explanation::{ExplainedPath, ExplainedStep, Explanation, ScoreParts};
use super::metrics::Metrics;
use super::reader::{self, PairReader, ReaderEntry};
use super::shift::{Missing, Shift};
use super::train;
use crate::signals::{Layout, PairBodies};

/// Version of the model file format this build writes (it reads format 1 too).
pub const FORMAT: u32 = 2;

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
    /// The model was fitted and calibrated on every pair (none kept out for
    /// evaluation); its held-out figures are those of a sibling fitted on fewer,
    /// judged on the `evaluation_pairs` it never saw.
    #[serde(default)]
    pub fitted_on_every_pair: bool,
    /// How often each signal was missing among the training pairs: scoring pages on
    /// which they go missing far more or less often warns that the confidence was
    /// calibrated on other pages ([`super::shift`]). None in models from before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<Missing>,
}

/// A trained model, as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Model {
    pub format: u32,
    /// Content hash of what decides pairs: signals, estimator, calibration, thresholds.
    pub id: String,
    pub twinpage_version: String,
    /// Signal names in vector order.
    pub signals: Vec<String>,
    #[serde(with = "estimator::json")]
    pub estimator: Arc<dyn Estimator>,
    pub calibration: Calibration,
    pub policy: DecisionPolicy,
    pub thresholds: Thresholds,
    pub seed: u64,
    pub training: TrainingInfo,
    /// Metrics on the evaluation split, which neither fitting nor calibration saw.
    pub heldout: Metrics,
    /// The model this one was retrained from, if any.
    #[serde(default)]
    pub parent: Option<String>,
    /// Which signals matter: permutation importance on the evaluation pairs,
    /// most important first.
    #[serde(default)]
    pub importance: Vec<SignalImportance>,
    /// The learned contrast of the differing title words: the estimator reads its
    /// value in their slots' place. None in models from before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contrast: Option<Contrast>,
    /// The second judge of record pairs ([`reader`]), when it was trained with one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reader: Option<ReaderEntry>,
    /// That reader, loaded ([`Model::attach`]): without it the forest judges alone.
    #[serde(skip)]
    pub attached: Option<Arc<dyn PairReader>>,
}

/// One signal's permutation importance: how much the Brier score of the
/// calibrated confidence rises on held-out pairs when its values are shuffled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignalImportance {
    pub signal: String,
    pub brier_increase: f64,
}

impl Model {
    /// A model from what training produced, its id stamped.
    pub fn new(
        signals: Vec<String>,
        policy: DecisionPolicy,
        seed: u64,
        training: TrainingInfo,
        trained: train::Trained,
        parent: Option<String>,
    ) -> Model {
        let names = contrast::feature_names(trained.contrast.as_ref(), &signals);
        let mut importance: Vec<SignalImportance> = names
            .iter()
            .zip(&trained.importance)
            .map(|(signal, &brier_increase)| SignalImportance {
                signal: signal.clone(),
                brier_increase,
            })
            .collect();
        importance.sort_by(|a, b| b.brier_increase.total_cmp(&a.brier_increase));
        let mut model = Model {
            format: FORMAT,
            id: String::new(),
            twinpage_version: env!("CARGO_PKG_VERSION").to_string(),
            signals,
            estimator: trained.estimator,
            calibration: trained.calibration,
            policy,
            thresholds: trained.thresholds,
            seed,
            training: TrainingInfo {
                fit_pairs: trained.fit_pairs,
                calibration_pairs: trained.calibration_pairs,
                evaluation_pairs: trained.evaluation_pairs,
                fitted_on_every_pair: trained.fitted_on_every_pair,
                ..training
            },
            heldout: trained.heldout,
            parent,
            importance,
            contrast: trained.contrast,
            reader: None,
            attached: None,
        };
        model.stamp();
        model
    }

    /// The model with a second judge of record pairs, its id stamped again.
    pub fn with_reader(mut self, entry: ReaderEntry) -> Model {
        self.reader = Some(entry);
        self.stamp();
        self
    }

    /// The id: the content hash of what decides pairs.
    fn stamp(&mut self) {
        let content = serde_json::to_vec(&(
            &self.signals,
            self.estimator.to_json(),
            &self.calibration,
            &self.thresholds,
            &self.contrast,
        ))
        .expect("a model serialises");
        let mut hasher = blake3::Hasher::new();
        hasher.update(&content);
        // Models without a reader keep the ids they had before readers existed.
        if let Some(entry) = &self.reader {
            hasher.update(&serde_json::to_vec(entry).expect("a reader entry serialises"));
        }
        self.id = hasher.finalize().to_hex()[..16].to_string();
    }

    /// Hands the model its reader, loaded from the files its entry names.
    pub fn attach(&mut self, reader: Arc<dyn PairReader>) {
        self.attached = Some(reader);
    }

    /// The signals missing far more or far less often among `vectors` (pairs this model
    /// scores) than among its training pairs ([`Missing::shifts`]); none when the model
    /// keeps no shares (trained before they were kept).
    pub fn shifts<'a>(&self, vectors: impl IntoIterator<Item = &'a [f64]>) -> Vec<Shift> {
        let Some(trained) = &self.training.missing else {
            return Vec::new();
        };
        let width = self.signals.len();
        let here = Missing::of(
            &self.signals,
            vectors.into_iter().filter(|x| x.len() == width),
        );
        trained.shifts(&here, &self.signals)
    }

    /// The layout of vectors this model reads.
    pub fn layout(&self) -> Layout {
        Layout::of(&self.signals)
    }

    /// What the estimator reads of a signal vector: the vector, its differing-word
    /// slots replaced by the learned contrast's value.
    pub fn features<'a>(&self, x: &'a [f64]) -> std::borrow::Cow<'a, [f64]> {
        contrast::features(self.contrast.as_ref(), x)
    }

    /// Where its vectors hold the differing title words, when it learned their
    /// contrast: a model trained like it learns one too.
    pub fn word_slots(&self) -> Option<std::ops::Range<usize>> {
        self.contrast.as_ref().map(|c| c.slots.clone())
    }

    /// The names of what the estimator reads, in its order.
    pub fn feature_names(&self) -> Vec<String> {
        contrast::feature_names(self.contrast.as_ref(), &self.signals)
    }

    /// What the model says of a signal vector: its calibrated confidence and the
    /// disagreement of the estimator's members.
    pub fn judge(&self, x: &[f64]) -> Judgement {
        self.calibration
            .judge(self.estimator.as_ref(), &self.features(x))
    }

    /// Where a pair so judged is routed.
    pub fn decide(&self, judgement: Judgement) -> Decision {
        self.thresholds.route(judgement)
    }

    /// What the model says of a pair and the thresholds that route it: on two record
    /// pages with a reader attached, the mean of the forest's and the reader's
    /// probabilities, with the reader's thresholds; else the forest's alone.
    pub fn judge_pair(&self, x: &[f64], bodies: &PairBodies) -> (Judgement, &Thresholds) {
        let forest = self.judge(x);
        let read = match (&self.reader, &self.attached, bodies.record_sides()) {
            (Some(entry), Some(reader), Some((a, b))) => {
                reader.p_duplicate(a, b).map(|p| (entry, p))
            }
            _ => None,
        };
        match read {
            Some((entry, p)) => (reader::mean(forest, p), &entry.thresholds),
            None => (forest, &self.thresholds),
        }
    }

    /// Why a signal vector gets its confidence.
    pub fn explain(&self, x: &[f64]) -> Explanation {
        let x = &*self.features(x);
        let names = self.feature_names();
        let cell = self.estimator.cell(x);
        let paths = self
            .estimator
            .paths(x)
            .into_iter()
            .map(|path| ExplainedPath {
                tree: path.label,
                steps: path
                    .steps
                    .into_iter()
                    .map(|step| ExplainedStep {
                        signal: names[step.signal].clone(),
                        value: step.value,
                        threshold: step.threshold,
                        went_left: step.went_left,
                    })
                    .collect(),
            });
        let mut paths: Vec<ExplainedPath> = paths.collect();
        let first = if paths.is_empty() {
            ExplainedPath::default()
        } else {
            paths.remove(0)
        };
        Explanation {
            tree: first.tree,
            steps: first.steps,
            more_paths: paths,
            committee: self.estimator.committee(x),
            cell,
            counts: self.calibration.cells[cell].into(),
            p_duplicate: self.calibration.cells[cell].p_duplicate,
            thresholds: self.thresholds,
            contributions: self
                .estimator
                .contributions(x)
                .map(|c| ScoreParts::named(c, &names, x)),
        }
    }
}
