//! How good a model is on labelled pairs: the usual classification figures with
//! each pair labelled at its model's F1 cut (`Thresholds::f1_cut`, half the best
//! F1 training reached), and what the thresholds do (precision of automatic
//! decisions, share routed to review).

use serde::{Deserialize, Serialize};

use super::decision::Decision;

/// Counts of labels against decisions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Confusion {
    /// Label duplicate, by decision.
    pub duplicate_as_duplicate: usize,
    pub duplicate_as_distinct: usize,
    pub duplicate_as_review: usize,
    /// Label distinct, by decision.
    pub distinct_as_duplicate: usize,
    pub distinct_as_distinct: usize,
    pub distinct_as_review: usize,
    /// The same pairs labelled at the F1 cut (no review): true/false positives/negatives.
    pub tp: usize,
    pub fp: usize,
    pub tn: usize,
    pub fn_: usize,
    /// Pairs by tenth of p_duplicate: how many, their summed p, how many are
    /// duplicates (the reliability diagram behind the calibration error).
    #[serde(default)]
    pub bins: [Bin; BINS],
}

/// Tenths of p_duplicate in the calibration error.
pub const BINS: usize = 10;

/// One bin of the reliability diagram.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Bin {
    pub pairs: usize,
    pub p_sum: f64,
    pub duplicates: usize,
}

impl Confusion {
    /// Share of automatic decisions (either way) that are right; `None` when
    /// every pair went to review. Within a group of one label, this is the
    /// precision that matters: the other side's precision is 0 or undefined.
    pub fn automatic_accuracy(&self) -> Option<f64> {
        let right = self.duplicate_as_duplicate + self.distinct_as_distinct;
        let decided = right + self.duplicate_as_distinct + self.distinct_as_duplicate;
        (decided > 0).then(|| right as f64 / decided as f64)
    }

    /// Counts one pair: its label, its p (labelled duplicate at `p ≥ f1_cut`), and
    /// where it was routed.
    pub fn add(&mut self, label: bool, p_duplicate: f64, f1_cut: f64, decision: Decision) {
        let predicted = p_duplicate >= f1_cut;
        match (label, predicted) {
            (true, true) => self.tp += 1,
            (true, false) => self.fn_ += 1,
            (false, true) => self.fp += 1,
            (false, false) => self.tn += 1,
        }
        let cell = match (label, decision) {
            (true, Decision::Duplicate) => &mut self.duplicate_as_duplicate,
            (true, Decision::Distinct) => &mut self.duplicate_as_distinct,
            (true, Decision::Review) => &mut self.duplicate_as_review,
            (false, Decision::Duplicate) => &mut self.distinct_as_duplicate,
            (false, Decision::Distinct) => &mut self.distinct_as_distinct,
            (false, Decision::Review) => &mut self.distinct_as_review,
        };
        *cell += 1;
        let bin = &mut self.bins[((p_duplicate * BINS as f64) as usize).min(BINS - 1)];
        bin.pairs += 1;
        bin.p_sum += p_duplicate;
        bin.duplicates += usize::from(label);
    }

    /// Expected calibration error: the pair-weighted mean, over the bins, of the
    /// gap between the mean confidence and the observed share of duplicates.
    pub fn calibration_error(&self) -> f64 {
        let total = self.total();
        if total == 0 {
            return 0.0;
        }
        let gap = |b: &Bin| (b.p_sum - b.duplicates as f64).abs();
        self.bins.iter().map(gap).sum::<f64>() / total as f64
    }

    /// Adds the counts of `other`.
    pub fn merge(&mut self, other: &Confusion) {
        let counts = [
            (
                &mut self.duplicate_as_duplicate,
                other.duplicate_as_duplicate,
            ),
            (&mut self.duplicate_as_distinct, other.duplicate_as_distinct),
            (&mut self.duplicate_as_review, other.duplicate_as_review),
            (&mut self.distinct_as_duplicate, other.distinct_as_duplicate),
            (&mut self.distinct_as_distinct, other.distinct_as_distinct),
            (&mut self.distinct_as_review, other.distinct_as_review),
            (&mut self.tp, other.tp),
            (&mut self.fp, other.fp),
            (&mut self.tn, other.tn),
            (&mut self.fn_, other.fn_),
        ];
        for (mine, theirs) in counts {
            *mine += theirs;
        }
        for (mine, theirs) in self.bins.iter_mut().zip(&other.bins) {
            mine.pairs += theirs.pairs;
            mine.p_sum += theirs.p_sum;
            mine.duplicates += theirs.duplicates;
        }
    }

    pub fn total(&self) -> usize {
        self.tp + self.fp + self.tn + self.fn_
    }

    pub fn metrics(&self) -> Metrics {
        let div = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let precision = div(self.tp, self.tp + self.fp);
        let recall = div(self.tp, self.tp + self.fn_);
        let f1 = if precision + recall == 0.0 {
            0.0
        } else {
            2.0 * precision * recall / (precision + recall)
        };
        let auto_duplicate = self.duplicate_as_duplicate + self.distinct_as_duplicate;
        let auto_distinct = self.duplicate_as_distinct + self.distinct_as_distinct;
        let review = self.duplicate_as_review + self.distinct_as_review;
        Metrics {
            pairs: self.total(),
            precision,
            recall,
            f1,
            accuracy: div(self.tp + self.tn, self.total()),
            duplicate_decision_precision: div(self.duplicate_as_duplicate, auto_duplicate),
            distinct_decision_precision: div(self.distinct_as_distinct, auto_distinct),
            review_share: div(review, self.total()),
            calibration_error: self.calibration_error(),
            confusion: *self,
        }
    }
}

/// The figures reported by `train`, `evaluate` and stored in model files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    pub pairs: usize,
    /// Each pair labelled at its model's F1 cut (p_duplicate ≥ `f1_cut`).
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub accuracy: f64,
    /// Share of automatic `duplicate` decisions that are right.
    pub duplicate_decision_precision: f64,
    /// Share of automatic `distinct` decisions that are right.
    pub distinct_decision_precision: f64,
    /// Share of pairs routed to review.
    pub review_share: f64,
    /// Expected calibration error over ten bins of p_duplicate.
    #[serde(default)]
    pub calibration_error: f64,
    pub confusion: Confusion,
}

impl Metrics {
    /// A human-readable block (the same for `train`, `evaluate` and `--by` groups).
    pub fn report(&self) -> String {
        let c = &self.confusion;
        format!(
            "pairs {}\n\
             labelled:   precision {:.4}  recall {:.4}  F1 {:.4}  accuracy {:.4}\n\
             decisions:  duplicate precision {:.4}  distinct precision {:.4}  review share {:.4}\n\
             calibration error (10 bins): {:.4}\n\
             confusion (label \\ decision):   duplicate  distinct  review\n\
             \x20 duplicate                      {:>9} {:>9} {:>7}\n\
             \x20 distinct                       {:>9} {:>9} {:>7}",
            self.pairs,
            self.precision,
            self.recall,
            self.f1,
            self.accuracy,
            self.duplicate_decision_precision,
            self.distinct_decision_precision,
            self.review_share,
            self.calibration_error,
            c.duplicate_as_duplicate,
            c.duplicate_as_distinct,
            c.duplicate_as_review,
            c.distinct_as_duplicate,
            c.distinct_as_distinct,
            c.distinct_as_review,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::EVEN_CUT;

    #[test]
    fn figures_by_hand() {
        let mut c = Confusion::default();
        c.add(true, 0.9, EVEN_CUT, Decision::Duplicate); // tp
        c.add(true, 0.6, EVEN_CUT, Decision::Review); // tp
        c.add(true, 0.2, EVEN_CUT, Decision::Distinct); // fn
        c.add(false, 0.7, EVEN_CUT, Decision::Review); // fp
        c.add(false, 0.1, EVEN_CUT, Decision::Distinct); // tn
        let m = c.metrics();
        // precision 2/3, recall 2/3, F1 2/3, accuracy 3/5
        assert!((m.precision - 2.0 / 3.0).abs() < 1e-12);
        assert!((m.recall - 2.0 / 3.0).abs() < 1e-12);
        assert!((m.f1 - 2.0 / 3.0).abs() < 1e-12);
        assert!((m.accuracy - 0.6).abs() < 1e-12);
        // automatic: 1 duplicate decision right of 1; 1 distinct right of 2; 2 of 5 to review
        assert_eq!(m.duplicate_decision_precision, 1.0);
        assert_eq!(m.distinct_decision_precision, 0.5);
        assert!((m.review_share - 0.4).abs() < 1e-12);
        assert!(m.report().contains("F1 0.6667"));
        // Bins: 0.9 (1 dup), 0.6 (1 dup), 0.2 (1 dup), 0.7 (0), 0.1 (0):
        // |0.9-1| + |0.6-1| + |0.2-1| + |0.7-0| + |0.1-0| = 2.1, over 5 pairs.
        assert!((m.calibration_error - 0.42).abs() < 1e-12);
    }

    #[test]
    fn a_pair_is_labelled_at_its_cut_and_routed_as_decided() {
        let mut c = Confusion::default();
        c.add(true, 0.4, 0.35, Decision::Review);
        c.add(false, 0.3, 0.35, Decision::Review);
        assert_eq!((c.tp, c.tn, c.fp, c.fn_), (1, 1, 0, 0));
        assert_eq!(c.duplicate_as_review + c.distinct_as_review, 2);
        c.add(true, 0.4, EVEN_CUT, Decision::Review);
        assert_eq!(c.fn_, 1);
    }

    #[test]
    fn empty_is_zero_not_nan() {
        let m = Confusion::default().metrics();
        assert_eq!(m.f1, 0.0);
        assert_eq!(m.review_share, 0.0);
    }
}
