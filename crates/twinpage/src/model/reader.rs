//! A second judge of record pairs: a reader of their texts, whose probability is
//! averaged with the forest's.
//!
//! The forest reads signals: characters, words, codes, fields. What it misses on
//! product and bibliographic records is meaning ("vista business" against "vista home
//! basic", a paper against its "extended version"); a transformer fine-tuned on the
//! labelled pairs as a cross-encoder (both records in one input) reads that, and is the
//! weaker judge where names carry codes. The mean of the two beat either alone on the
//! entity-matching benchmarks (lab/RESULTS.md), needs one fine-tune and no out-of-fold
//! models, and leaves the forest's vector untouched. The reader itself lives in
//! `twinpage-semantic` (candle): the core knows it only as [`PairReader`], and the model
//! file only as a [`ReaderEntry`]: its weights' file, their hash, its own thresholds
//! and its held-out figures.

use std::fmt::Debug;

use serde::{Deserialize, Serialize};

use super::decision::{DecisionPolicy, Judgement, Thresholds};
use super::metrics::{Confusion, Metrics};
use crate::document::Document;
use twinpage_util::hash::mix64;

/// Reads two record documents together.
pub trait PairReader: Send + Sync + Debug {
    /// The probability that the two records are one thing; `None` when it cannot
    /// read them (the forest then judges alone).
    fn p_duplicate(&self, a: &Document, b: &Document) -> Option<f64>;
}

/// What a model file says of its reader.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReaderEntry {
    /// What the reader is, for whoever reads the file.
    pub kind: String,
    /// Its weights, a file beside the model file, and their blake3 (checked on load).
    pub weights: String,
    pub weights_blake3: String,
    /// Its tokenizer, a file beside the model file.
    pub tokenizer: String,
    /// Its own settings (how it reads a record), as it wrote them.
    pub settings: serde_json::Value,
    /// Where record pairs are routed on the mean of the two probabilities.
    pub thresholds: Thresholds,
    /// The mean, on the record pairs of the evaluation part (which neither the forest
    /// nor the reader was fitted on), each half routed by thresholds chosen on the other.
    pub heldout: Metrics,
    /// The forest alone on the same pairs, routed by its own thresholds.
    pub forest_heldout: Metrics,
}

/// The judgement of a record pair: the mean of the forest's and the reader's
/// probabilities, with the forest's spread (its trees' doubt still sends a pair to review).
pub fn mean(forest: Judgement, read: f64) -> Judgement {
    Judgement {
        p_duplicate: (forest.p_duplicate + read) / 2.0,
        spread: forest.spread,
    }
}

/// One held-out record pair: the forest's judgement, the reader's probability, the
/// label, and its group of shared documents (which half of the evaluation it is in).
#[derive(Debug, Clone, Copy)]
pub struct HeldOut {
    pub forest: Judgement,
    pub read: f64,
    pub label: bool,
    pub group: u64,
}

/// What the held-out record pairs say of the mean.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// Chosen on every held-out pair: the thresholds the model keeps.
    pub thresholds: Thresholds,
    /// The mean, each half of the pairs (by group) routed by thresholds chosen on the other.
    pub mean: Metrics,
    /// The forest alone on the same pairs, routed by `forest_thresholds`.
    pub forest: Metrics,
}

impl Verdict {
    /// Whether the mean is worth keeping: its F1 on the held-out record pairs (each
    /// judge at its own F1 cut) at least the forest's.
    pub fn mean_helps(&self) -> bool {
        self.mean.f1 >= self.forest.f1
    }
}

/// Judges the mean against the forest alone on held-out record pairs, and chooses
/// the mean's thresholds for `policy`.
pub fn judge_mean(
    pairs: &[HeldOut],
    forest_thresholds: &Thresholds,
    policy: &DecisionPolicy,
) -> Verdict {
    let scored = |keep: &dyn Fn(&HeldOut) -> bool| -> Vec<(Judgement, bool)> {
        pairs
            .iter()
            .filter(|p| keep(p))
            .map(|p| (mean(p.forest, p.read), p.label))
            .collect()
    };
    let half = |p: &HeldOut| mix64(p.group ^ 0x4841_4c46).is_multiple_of(2);
    let thresholds_of_half = [
        Thresholds::choose_on_evidence(&scored(&|p| !half(p)), policy),
        Thresholds::choose_on_evidence(&scored(&|p| half(p)), policy),
    ];
    let (mut mean_confusion, mut forest_confusion) = (Confusion::default(), Confusion::default());
    for p in pairs {
        let judged = mean(p.forest, p.read);
        let other_half = &thresholds_of_half[usize::from(half(p))];
        mean_confusion.add(
            p.label,
            judged.p_duplicate,
            other_half.f1_cut,
            other_half.route(judged),
        );
        forest_confusion.add(
            p.label,
            p.forest.p_duplicate,
            forest_thresholds.f1_cut,
            forest_thresholds.route(p.forest),
        );
    }
    Verdict {
        thresholds: Thresholds::choose_on_evidence(&scored(&|_| true), policy),
        mean: mean_confusion.metrics(),
        forest: forest_confusion.metrics(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held_out(i: u64, forest: f64, read: f64, label: bool) -> HeldOut {
        HeldOut {
            forest: Judgement::certain(forest),
            read,
            label,
            group: i,
        }
    }

    /// The forest is unsure where the reader is not: the mean separates what the
    /// forest alone leaves on the wrong side of 0.5, and decides more of it.
    #[test]
    fn a_reader_that_knows_better_lifts_the_mean_above_the_forest() {
        let mut pairs = Vec::new();
        for i in 0..400u64 {
            let label = i % 2 == 0;
            // The forest says 0.45 on a third of the duplicates and 0.55 on a third of
            // the distinct pairs; the reader is right on all of them.
            let unsure = i % 3 == 0;
            let forest = match (label, unsure) {
                (true, true) => 0.45,
                (false, true) => 0.55,
                (true, false) => 0.9,
                (false, false) => 0.1,
            };
            pairs.push(held_out(i, forest, if label { 0.95 } else { 0.05 }, label));
        }
        let forest_thresholds = Thresholds {
            duplicate: 0.9,
            distinct: 0.1,
            max_spread: 1.0,
            f1_cut: crate::model::EVEN_CUT,
        };
        let verdict = judge_mean(&pairs, &forest_thresholds, &DecisionPolicy::default());
        assert!(verdict.mean_helps());
        assert!(verdict.mean.f1 > 0.99, "{:?}", verdict.mean);
        assert!(verdict.forest.f1 < 0.8, "{:?}", verdict.forest);
        assert!(verdict.mean.review_share < verdict.forest.review_share);
        assert!(verdict.thresholds.duplicate <= 0.75 && verdict.thresholds.distinct >= 0.25);
    }

    /// A reader that guesses drags the mean below the forest: not worth keeping.
    #[test]
    fn a_reader_that_guesses_is_not_kept() {
        let pairs: Vec<HeldOut> = (0..400u64)
            .map(|i| {
                let label = i % 2 == 0;
                let forest = if label { 0.7 } else { 0.3 };
                let read = if mix64(i).is_multiple_of(2) {
                    0.99
                } else {
                    0.01
                };
                held_out(i, forest, read, label)
            })
            .collect();
        let verdict = judge_mean(
            &pairs,
            &Thresholds::choose(
                &pairs
                    .iter()
                    .map(|p| (p.forest, p.label))
                    .collect::<Vec<_>>(),
                &DecisionPolicy::default(),
            ),
            &DecisionPolicy::default(),
        );
        assert!(
            !verdict.mean_helps(),
            "{:?} {:?}",
            verdict.mean,
            verdict.forest
        );
    }

    #[test]
    fn the_mean_keeps_the_forests_doubt() {
        let forest = Judgement {
            p_duplicate: 0.8,
            spread: 0.4,
        };
        let judged = mean(forest, 0.4);
        assert!((judged.p_duplicate - 0.6).abs() < 1e-12);
        assert_eq!(judged.spread, 0.4);
    }
}
