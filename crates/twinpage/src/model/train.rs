//! Training: fit an estimator on one part of the labelled pairs, calibrate its
//! cells and choose thresholds on a second, measure on a third; on request, fit the
//! model that is kept again on the first two parts together with the third, so that
//! no label is spent on measuring alone.
//!
//! Pairs are split by *group*, not one by one: pairs that share a document (a page
//! and its mirror, its print version, its syndicated copy) land in the same part,
//! so calibration and evaluation measure pages the estimator never saw.

use std::ops::Range;
use std::sync::Arc;

use anyhow::{bail, Result};
use rayon::prelude::*;

use super::calibration::Calibration;
use super::contrast::{self, Contrast};
use super::decision::{DecisionPolicy, Judgement, Thresholds, EVEN_CUT};
use super::estimator::{Estimator, Learner, Reading};
use super::metrics::{Confusion, Metrics};
use crate::signals::{PairBodies, MISSING};
use twinpage_util::hash::mix64;
use twinpage_util::UnionFind;

/// Labelled signal vectors, with the content hashes of each pair's two documents
/// (pairs that share a document are kept in one part of every split).
#[derive(Debug, Clone, Default)]
pub struct LabelledPairs {
    pub vectors: Vec<Vec<f64>>,
    pub labels: Vec<bool>,
    pub documents: Vec<([u8; 32], [u8; 32])>,
}

impl LabelledPairs {
    pub fn push(&mut self, vector: Vec<f64>, label: bool, documents: ([u8; 32], [u8; 32])) {
        self.vectors.push(vector);
        self.labels.push(label);
        self.documents.push(documents);
    }

    /// Pair `i` of `other`, added to these.
    pub fn push_from(&mut self, other: &LabelledPairs, i: usize) {
        self.push(
            other.vectors[i].clone(),
            other.labels[i],
            other.documents[i],
        );
    }

    pub fn len(&self) -> usize {
        self.labels.len()
    }

    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }
}

/// Which model training writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// The model judged on the evaluation part: fitted on 60 % of the pairs,
    /// calibrated on 20 % ([`train`]).
    Judged,
    /// Fitted again on every pair once that training is judged
    /// ([`Fit::train`]).
    EveryPair,
}

/// The share of record pairs from which a set is a set of records (a catalogue,
/// papers), fitted on every pair unless asked otherwise: on the record benchmarks
/// every pair gains up to 4 points of F1 (mean of three seeds), on web pages it moved
/// review and the clusters of `dedupe` for the worse (lab/RESULTS.md, "Every label
/// fitted"), so a set must be records nearly throughout (the shipped web and record
/// mix has 64 %).
pub const RECORD_SET_SHARE: f64 = 0.9;

/// Whether a set of which `record_share` are pairs of two records is a set of records.
pub fn is_record_set(record_share: f64) -> bool {
    record_share >= RECORD_SET_SHARE
}

impl Fit {
    /// The fit for a set of which `record_share` are pairs of two records.
    pub fn for_record_share(record_share: f64) -> Fit {
        if is_record_set(record_share) {
            Fit::EveryPair
        } else {
            Fit::Judged
        }
    }

    /// Trains as this fit asks: the model judged on the evaluation part, and the one
    /// fitted on every pair when that is the fit.
    pub fn train(
        self,
        set: &LabelledPairs,
        words: Option<Range<usize>>,
        learner: &dyn Learner,
        policy: &DecisionPolicy,
        seed: u64,
    ) -> Result<(Trained, Option<Trained>)> {
        Ok(match self {
            Fit::EveryPair => {
                let (judged, kept) =
                    train_judged_then_every_pair(set, words, learner, policy, seed)?;
                (judged, Some(kept))
            }
            Fit::Judged => (train(set, words, learner, policy, seed)?, None),
        })
    }
}

/// The share of pairs whose two pages are both records
/// ([`PairBodies::record_sides`], the pairs a second judge reads too).
pub fn record_pair_share(bodies: &[PairBodies]) -> f64 {
    if bodies.is_empty() {
        return 0.0;
    }
    let records = bodies.iter().filter(|b| b.record_sides().is_some()).count();
    records as f64 / bodies.len() as f64
}

/// Which part of the data a pair serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Fit,
    Calibration,
    Evaluation,
}

/// Where the pairs a model is judged on come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holdout {
    /// Held out of the labelled pairs: 60 % fit, 20 % calibration, 20 % evaluation.
    Evaluation,
    /// Kept elsewhere (retraining's frozen set) or not needed: 75 % fit, 25 %
    /// calibration.
    Frozen,
}

/// The one rule that splits labelled pairs into parts, for training and
/// retraining alike: by group of pairs sharing a document (no document on both
/// sides), reproducible by seed, fit and calibration three to one either way.
pub fn part_of(group: u64, seed: u64, holdout: Holdout) -> Part {
    let slots = match holdout {
        Holdout::Evaluation => 10,
        Holdout::Frozen => 8,
    };
    match mix64(group ^ mix64(seed)) % slots {
        0..=5 => Part::Fit,
        6 | 7 => Part::Calibration,
        _ => Part::Evaluation,
    }
}

/// What training produced.
#[derive(Debug, Clone)]
pub struct Trained {
    pub estimator: Arc<dyn Estimator>,
    pub calibration: Calibration,
    pub thresholds: Thresholds,
    pub heldout: Metrics,
    pub fit_pairs: usize,
    pub calibration_pairs: usize,
    pub evaluation_pairs: usize,
    /// Whether the fitting and calibration parts hold every training pair: the
    /// held-out figures are then those of a sibling fitted on fewer (see
    /// [`Fit::train`]).
    pub fitted_on_every_pair: bool,
    /// Each of the estimator's signals' permutation importance on the evaluation
    /// pairs, in its order.
    pub importance: Vec<f64>,
    /// The learned contrast of the differing title words, when the vectors have them.
    pub contrast: Option<Contrast>,
}

impl Trained {
    /// The calibrated confidence of a signal vector, and the members' disagreement.
    pub fn judge(&self, x: &[f64]) -> Judgement {
        self.judge_features(&contrast::features(self.contrast.as_ref(), x))
    }

    /// [`Trained::judge`] of what the estimator reads.
    fn judge_features(&self, features: &[f64]) -> Judgement {
        self.calibration.judge(self.estimator.as_ref(), features)
    }
}

/// Fits on 60 % of the pairs, calibrates on 20 % and judges on the last 20 %, split
/// by group of shared documents. `words`: where the vectors hold the differing
/// title words (see [`contrast`]).
pub fn train(
    set: &LabelledPairs,
    words: Option<Range<usize>>,
    learner: &dyn Learner,
    policy: &DecisionPolicy,
    seed: u64,
) -> Result<Trained> {
    let parts = split(set, seed, Holdout::Evaluation);
    if !parts.contains(&Part::Evaluation) {
        bail!("too few groups of pairs to hold some out for calibration and evaluation; give more labelled pairs");
    }
    train_on_parts(set, words, &parts, learner, policy, seed)
}

/// [`train`], then fitted again on 75 % of every pair and calibrated on 25 % (out of
/// bag: fitted on all): the judged model, and the one kept, which learns from a quarter
/// more pairs (up to 4 points of F1 on the entity-matching benchmarks) and carries the
/// judged one's figures and signal importance, a little pessimistic for it.
fn train_judged_then_every_pair(
    set: &LabelledPairs,
    words: Option<Range<usize>>,
    learner: &dyn Learner,
    policy: &DecisionPolicy,
    seed: u64,
) -> Result<(Trained, Trained)> {
    let judged = train(set, words.clone(), learner, policy, seed)?;
    let every_part = split(set, seed, Holdout::Frozen);
    let kept = train_on_parts(set, words, &every_part, learner, policy, seed)?;
    let kept = Trained {
        heldout: judged.heldout,
        evaluation_pairs: judged.evaluation_pairs,
        importance: judged.importance.clone(),
        fitted_on_every_pair: true,
        ..kept
    };
    Ok((judged, kept))
}

/// Each pair's part, by its group of shared documents: the split [`train`] makes
/// with `Holdout::Evaluation`.
pub fn split(set: &LabelledPairs, seed: u64, holdout: Holdout) -> Vec<Part> {
    groups_by_shared_document(&set.documents)
        .into_iter()
        .map(|g| part_of(g, seed, holdout))
        .collect()
}

/// Fits on the pairs marked [`Part::Fit`], calibrates on [`Part::Calibration`] and
/// measures on [`Part::Evaluation`] (when there are some), as the caller split them
/// (retraining keeps its evaluation pairs frozen); `seed` seeds the learner. With
/// `words`, the contrast of the differing title words is learned on the fitted
/// pairs first.
pub fn train_on_parts(
    set: &LabelledPairs,
    words: Option<Range<usize>>,
    parts: &[Part],
    learner: &dyn Learner,
    policy: &DecisionPolicy,
    seed: u64,
) -> Result<Trained> {
    let select =
        |part: Part| -> Vec<usize> { (0..set.len()).filter(|&i| parts[i] == part).collect() };
    let (mut fit, mut cal, eval) = (
        select(Part::Fit),
        select(Part::Calibration),
        select(Part::Evaluation),
    );
    // Out of bag, the calibration pairs are fitted too: each is read by the trees
    // that never saw it.
    let out_of_bag = learner.out_of_bag();
    if out_of_bag {
        fit.append(&mut cal);
        fit.sort_unstable();
    }
    let positives = fit.iter().filter(|&&i| set.labels[i]).count();
    if positives == 0 || positives == fit.len() {
        bail!(
            "training needs both duplicate and distinct pairs (the fitting part has {} pairs, {positives} duplicates); give more labelled pairs",
            fit.len()
        );
    }
    if cal.is_empty() && !out_of_bag {
        bail!("too few groups of pairs to hold some out for calibration; give more labelled pairs");
    }
    let (contrast, with_contrast) = match words {
        Some(slots) => {
            let (contrast, set) = with_learned_contrast(set, slots, &fit, seed);
            (Some(contrast), Some(set))
        }
        None => (None, None),
    };
    let set = with_contrast.as_ref().unwrap_or(set);
    // The vectors are sanitised upstream; this is the last guard (a NaN aborts linfa).
    let finite: Vec<Vec<f64>> = fit
        .iter()
        .map(|&i| {
            let v = &set.vectors[i];
            v.iter()
                .map(|&x| if x.is_finite() { x } else { MISSING })
                .collect()
        })
        .collect();
    let vectors: Vec<&[f64]> = finite.iter().map(Vec::as_slice).collect();
    let labels: Vec<bool> = fit.iter().map(|&i| set.labels[i]).collect();
    let rows = |idx: &'_ [usize]| {
        idx.iter()
            .map(|&i| (set.vectors[i].as_slice(), set.labels[i]))
            .collect::<Vec<_>>()
    };
    let (estimator, calibration, scored) = if out_of_bag {
        let (estimator, readings) = learner.fit_out_of_bag(&vectors, &labels, seed)?;
        let read: Vec<(Reading, bool)> = readings
            .into_iter()
            .zip(labels.iter().copied())
            .filter_map(|(reading, label)| Some((reading?, label)))
            .collect();
        let calibration = Calibration::of_cells(
            estimator.as_ref(),
            vectors
                .iter()
                .map(|x| estimator.cell(x))
                .zip(labels.iter().copied()),
            read.iter().map(|&((cell, _), label)| (cell, label)),
        );
        let scored: Vec<(Judgement, bool)> = read
            .iter()
            .map(|&((cell, vote), label)| {
                let judgement = Judgement {
                    p_duplicate: calibration.cells[cell].p_duplicate,
                    spread: vote.map_or(0.0, |v| v.spread),
                };
                (judgement, label)
            })
            .collect();
        (estimator, calibration, scored)
    } else {
        let estimator = learner.fit(&vectors, &labels, seed)?;
        let calibration = Calibration::learn(
            estimator.as_ref(),
            rows(&fit).into_iter(),
            rows(&cal).into_iter(),
        );
        let scored = rows(&cal)
            .into_iter()
            .map(|(x, label)| (calibration.judge(estimator.as_ref(), x), label))
            .collect();
        (estimator, calibration, scored)
    };
    let mut trained = Trained {
        estimator,
        calibration,
        thresholds: Thresholds {
            duplicate: 1.0,
            distinct: 0.0,
            max_spread: 1.0,
            f1_cut: EVEN_CUT,
        },
        heldout: Metrics::default(),
        fit_pairs: fit.len(),
        calibration_pairs: scored.len(),
        evaluation_pairs: eval.len(),
        fitted_on_every_pair: false,
        importance: Vec::new(),
        contrast,
    };
    trained.thresholds = Thresholds::choose(&scored, policy);
    if eval.is_empty() {
        return Ok(trained);
    }
    let mut confusion = Confusion::default();
    for (x, label) in rows(&eval) {
        let judgement = trained.judge_features(x);
        confusion.add(
            label,
            judgement.p_duplicate,
            trained.thresholds.f1_cut,
            trained.thresholds.route(judgement),
        );
    }
    trained.heldout = confusion.metrics();
    trained.importance = permutation_importance(&trained, &rows(&eval));
    Ok(trained)
}

/// The contrast of the differing title words in `slots`, learned on the pairs `fit`,
/// and the pairs as the estimator reads them: each with the contrast's value in the
/// slots' place (out of fold for the pairs of `fit`).
fn with_learned_contrast(
    set: &LabelledPairs,
    slots: Range<usize>,
    fit: &[usize],
    seed: u64,
) -> (Contrast, LabelledPairs) {
    let groups = groups_by_shared_document(&set.documents);
    let (contrast, values) = contrast::learn(slots, &set.vectors, &set.labels, fit, &groups, seed);
    let vectors = set
        .vectors
        .iter()
        .zip(values)
        .map(|(x, value)| contrast.features_with(x, value))
        .collect();
    let features = LabelledPairs {
        vectors,
        labels: set.labels.clone(),
        documents: set.documents.clone(),
    };
    (contrast, features)
}

/// Held-out pairs permutation importance is measured on, at most: plenty for a
/// stable ranking, and each shuffled signal judges every one of them again (on
/// 100,000 pairs, 20,000 held out, that had taken most of the training time).
const IMPORTANCE_PAIRS: usize = 5_000;

/// How much worse the calibrated confidence gets on held-out pairs when one
/// signal's values are shuffled among them (its link to the pair broken): the
/// rise in Brier score, per signal. Measured on pairs the estimator never saw,
/// so a signal it leans on only to fit its training pairs scores little.
fn permutation_importance(trained: &Trained, held_out: &[(&[f64], bool)]) -> Vec<f64> {
    let Some(width) = held_out.first().map(|(x, _)| x.len()) else {
        return Vec::new();
    };
    // A fixed sample (by hash rank) when there are more: reproducible.
    let mut sample: Vec<usize> = (0..held_out.len()).collect();
    sample.sort_by_key(|&i| mix64(i as u64 ^ 0x5a3e));
    sample.truncate(IMPORTANCE_PAIRS);
    sample.sort_unstable();
    let pairs: Vec<(&[f64], bool)> = sample.into_iter().map(|i| held_out[i]).collect();
    let brier = |p: f64, label: bool| (p - f64::from(u8::from(label))).powi(2);
    let p = |x: &[f64]| trained.calibration.cells[trained.estimator.cell(x)].p_duplicate;
    let base: f64 = pairs.iter().map(|&(x, l)| brier(p(x), l)).sum::<f64>();
    // A fixed shuffle (by hash rank), the same for every signal: reproducible.
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by_key(|&i| mix64(i as u64 ^ 0x5eed));
    (0..width)
        .into_par_iter()
        .map(|signal| {
            let mut x = Vec::with_capacity(width);
            let shuffled: f64 = pairs
                .iter()
                .zip(&order)
                .map(|(&(row, label), &other)| {
                    x.clear();
                    x.extend_from_slice(row);
                    x[signal] = pairs[other].0[signal];
                    brier(p(&x), label)
                })
                .sum();
            (shuffled - base) / pairs.len() as f64
        })
        .collect()
}

/// Groups pairs that share a document (by content hash): union-find over documents.
pub fn groups_by_shared_document(documents: &[([u8; 32], [u8; 32])]) -> Vec<u64> {
    use std::collections::HashMap;
    let mut index: HashMap<[u8; 32], u32> = HashMap::new();
    let mut number = |h: [u8; 32]| {
        let next = index.len() as u32;
        *index.entry(h).or_insert(next)
    };
    let ends: Vec<(u32, u32)> = documents
        .iter()
        .map(|&(a, b)| (number(a), number(b)))
        .collect();
    let mut sets = UnionFind::new(index.len());
    for &(a, b) in &ends {
        sets.union(a, b);
    }
    let roots: Vec<u32> = ends.iter().map(|&(a, _)| sets.find(a)).collect();
    // A component holding most pairs (cross-page pairs can chain everything) would
    // put everything in one part; then group by the first document alone.
    let largest = {
        let mut counts: HashMap<u32, usize> = HashMap::new();
        roots
            .iter()
            .for_each(|r| *counts.entry(*r).or_default() += 1);
        counts.values().copied().max().unwrap_or(0)
    };
    if largest * 5 > roots.len() && roots.len() > 50 {
        return documents.iter().map(|(a, _)| key(a)).collect();
    }
    // Name each component by the smallest document hash in it: stable across runs.
    let mut names: HashMap<u32, [u8; 32]> = HashMap::new();
    for (hash, &doc) in &index {
        let name = names.entry(sets.find(doc)).or_insert(*hash);
        *name = (*name).min(*hash);
    }
    roots.iter().map(|r| key(&names[r])).collect()
}

fn key(hash: &[u8; 32]) -> u64 {
    u64::from_le_bytes(hash[..8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tree::TreeParams;

    fn h(n: u8) -> [u8; 32] {
        [n; 32]
    }

    #[test]
    fn pairs_sharing_documents_share_a_group() {
        let g =
            groups_by_shared_document(&[(h(1), h(2)), (h(2), h(3)), (h(4), h(5)), (h(3), h(1))]);
        assert_eq!(g[0], g[1]);
        assert_eq!(g[0], g[3]);
        assert_ne!(g[0], g[2]);
    }

    #[test]
    fn parts_are_reproducible_and_balanced() {
        let split = |seed, holdout| -> Vec<Part> {
            (0..10_000u64).map(|g| part_of(g, seed, holdout)).collect()
        };
        let parts = split(7, Holdout::Evaluation);
        assert_eq!(parts, split(7, Holdout::Evaluation));
        let count = |parts: &[Part], part| parts.iter().filter(|&&p| p == part).count();
        assert!((5700..6300).contains(&count(&parts, Part::Fit)));
        assert_ne!(parts, split(8, Holdout::Evaluation));
        let frozen = split(7, Holdout::Frozen);
        assert_eq!(count(&frozen, Part::Evaluation), 0);
        assert!((7200..7800).contains(&count(&frozen, Part::Fit)));
    }

    #[test]
    fn a_set_of_records_is_fitted_on_every_pair() {
        use crate::document::{record::Record, Document};
        let record = Document {
            record: Some(Record::default()),
            ..Document::default()
        };
        let article = Document::default();
        let sides = [
            (&record, &record),
            (&record, &record),
            (&record, &article),
            (&record, &record),
            (&article, &article),
            (&record, &record),
            (&record, &record),
            (&record, &record),
            (&record, &record),
            (&record, &record),
        ];
        let bodies: Vec<PairBodies> = sides
            .iter()
            .map(|&fetched| PairBodies {
                fetched,
                rendered: None,
            })
            .collect();
        let share = record_pair_share(&bodies);
        assert_eq!(share, 0.8);
        assert_eq!(Fit::for_record_share(share), Fit::Judged);
        assert_eq!(Fit::for_record_share(0.9), Fit::EveryPair);
        // No pair of two records, or no pair at all: nothing to fit on every pair.
        assert_eq!(record_pair_share(&bodies[4..5]), 0.0);
        assert_eq!(record_pair_share(&[]), 0.0);
    }

    /// A separable toy problem (signal 0 decides, signal 1 is noise).
    fn separable() -> LabelledPairs {
        let mut set = LabelledPairs::default();
        for i in 0..600u64 {
            let label = i % 2 == 0;
            let noise = (mix64(i) % 1000) as f64 / 1000.0;
            let x = if label {
                0.1 * noise
            } else {
                0.5 + 0.5 * noise
            };
            let document = |side: u8| {
                let mut hash = [side; 32];
                hash[..8].copy_from_slice(&i.to_le_bytes());
                hash
            };
            set.push(vec![x, noise], label, (document(0), document(1)));
        }
        set
    }

    /// The tree learns it, and two trainings agree.
    #[test]
    fn trains_reproducibly_on_a_separable_problem() {
        let set = separable();
        let learner = TreeParams::default().check().unwrap();
        let policy = DecisionPolicy::default();
        let every_pair = || {
            let (_, kept) = Fit::EveryPair
                .train(&set, None, &learner, &policy, 1)
                .unwrap();
            kept.expect("fitted on every pair")
        };
        let (first, second) = (every_pair(), every_pair());
        assert_eq!(first.estimator.to_json(), second.estimator.to_json());
        assert!(first.heldout.f1 > 0.99, "{:?}", first.heldout);
        // Judged on a fifth it never saw, then fitted on every pair.
        assert!(first.fitted_on_every_pair);
        assert_eq!(first.fit_pairs + first.calibration_pairs, set.len());
        assert!(first.evaluation_pairs > 0);
        assert_eq!(first.heldout.pairs, first.evaluation_pairs);
        let judged = train(&set, None, &learner, &policy, 1).unwrap();
        assert!(!judged.fitted_on_every_pair);
        assert_eq!(
            judged.fit_pairs + judged.calibration_pairs + judged.evaluation_pairs,
            set.len()
        );
        assert_eq!(
            judged.heldout, first.heldout,
            "the figures are the judged one's"
        );
        assert!(
            first.thresholds.duplicate <= 1.0
                && first.thresholds.distinct < first.thresholds.duplicate
        );
    }

    /// Out of bag, calibration counts every fitted pair, each read by the trees
    /// that never saw it, and nothing is held out for it.
    #[test]
    fn a_forest_calibrates_out_of_bag_on_the_pairs_it_fits() {
        use crate::model::forest::{CalibrationSource, ForestParams};
        let set = separable();
        let forest = |calibration| {
            ForestParams {
                trees: 20,
                calibration,
                ..ForestParams::default()
            }
            .check()
            .unwrap()
        };
        let policy = DecisionPolicy::default();
        let held_out = train(&set, None, &forest(CalibrationSource::HeldOut), &policy, 1).unwrap();
        let learner = forest(CalibrationSource::OutOfBag);
        assert!(learner.out_of_bag() && !forest(CalibrationSource::HeldOut).out_of_bag());
        let oob = train(&set, None, &learner, &policy, 1).unwrap();
        assert_eq!(oob.evaluation_pairs, held_out.evaluation_pairs);
        assert_eq!(
            oob.fit_pairs,
            held_out.fit_pairs + held_out.calibration_pairs,
            "the calibration pairs are fitted too"
        );
        // A row is in one tree's sample with probability about 0.63, in all 20
        // about 0.63^20 = 1e-4: nearly every row has trees to read it.
        assert!(
            oob.calibration_pairs * 10 >= oob.fit_pairs * 9,
            "{}",
            oob.calibration_pairs
        );
        let counted: u32 = oob
            .calibration
            .cells
            .iter()
            .map(|c| c.calibration_pairs())
            .sum();
        assert_eq!(counted as usize, oob.calibration_pairs);
        assert!(oob.heldout.f1 > 0.99, "{:?}", oob.heldout);
        assert_eq!(
            train(&set, None, &learner, &policy, 1)
                .unwrap()
                .estimator
                .to_json(),
            oob.estimator.to_json()
        );
    }
}
