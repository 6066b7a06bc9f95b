//! Why a model gave a pair its confidence, in the signals' names: the tests on
//! the pair's way to its cell, what that cell learned in calibration, and the
//! thresholds that routed it, and (for a forest) what each signal added to its
//! score. `explain` prints it; the review queue stores it with each pair and the
//! page shows it.

use serde::{Deserialize, Serialize};

use super::calibration::Cell;
use super::decision::{Decision, Judgement, Thresholds};
use super::estimator::{Committee, Contributions};

/// One test on the way: the signal's value against the threshold it met.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExplainedStep {
    pub signal: String,
    pub value: f64,
    pub threshold: f64,
    /// `value < threshold`.
    pub went_left: bool,
}

/// The path of one more tree of a forest, and which tree it is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExplainedPath {
    pub tree: String,
    pub steps: Vec<ExplainedStep>,
}

/// The counts of the cell a pair fell in (the confidence is beside them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CellCounts {
    pub fit_duplicates: u32,
    pub fit_distinct: u32,
    pub calibration_duplicates: u32,
    pub calibration_distinct: u32,
}

impl From<Cell> for CellCounts {
    fn from(cell: Cell) -> CellCounts {
        CellCounts {
            fit_duplicates: cell.fit_duplicates,
            fit_distinct: cell.fit_distinct,
            calibration_duplicates: cell.calibration_duplicates,
            calibration_distinct: cell.calibration_distinct,
        }
    }
}

impl CellCounts {
    pub fn calibration_pairs(&self) -> u32 {
        self.calibration_duplicates + self.calibration_distinct
    }
}

/// A pair's confidence, explained. (Review databases written before the model
/// seam call the cell `leaf` and its counts `leaf_counts`: both are read.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    /// Which tree `steps` walk (of a forest: its most representative one).
    #[serde(default)]
    pub tree: String,
    /// The tests of that tree.
    pub steps: Vec<ExplainedStep>,
    /// A forest's next most representative trees.
    #[serde(default)]
    pub more_paths: Vec<ExplainedPath>,
    /// How a forest's trees voted.
    #[serde(default)]
    pub committee: Option<Committee>,
    /// The calibration cell (a tree's leaf, a bin of a forest's mean).
    #[serde(alias = "leaf")]
    pub cell: usize,
    #[serde(alias = "leaf_counts")]
    pub counts: CellCounts,
    pub p_duplicate: f64,
    pub thresholds: Thresholds,
    /// Each signal's part in the estimator's score, when it can say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contributions: Option<ScoreParts>,
}

/// A score taken apart: `base` plus every signal's contribution is `output`, the
/// estimator's score before calibration (which makes it `p_duplicate`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreParts {
    pub base: f64,
    pub output: f64,
    /// The signals that moved the score, largest move first.
    pub signals: Vec<SignalPart>,
}

/// One signal's value for the pair and how far it moved the score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignalPart {
    pub signal: String,
    pub value: f64,
    pub contribution: f64,
}

impl ScoreParts {
    /// Names the parts of `contributions` by `signals`, for the vector `x`.
    pub fn named(contributions: Contributions, signals: &[String], x: &[f64]) -> ScoreParts {
        let mut parts: Vec<SignalPart> = contributions
            .by_signal
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != 0.0)
            .map(|(i, &contribution)| SignalPart {
                signal: signals[i].clone(),
                value: x[i],
                contribution,
            })
            .collect();
        parts.sort_by(|a, b| {
            b.contribution
                .abs()
                .total_cmp(&a.contribution.abs())
                .then_with(|| a.signal.cmp(&b.signal))
        });
        ScoreParts {
            base: contributions.base,
            output: contributions.output,
            signals: parts,
        }
    }

    /// The `n` largest parts, and the sum of the rest with how many they are.
    pub fn largest(&self, n: usize) -> (&[SignalPart], f64, usize) {
        let shown = &self.signals[..n.min(self.signals.len())];
        let rest = &self.signals[shown.len()..];
        (shown, rest.iter().map(|p| p.contribution).sum(), rest.len())
    }
}

impl Explanation {
    /// The judgement explained.
    pub fn judgement(&self) -> Judgement {
        Judgement {
            p_duplicate: self.p_duplicate,
            spread: self.committee.map_or(0.0, |c| c.spread),
        }
    }

    /// Where the pair was routed.
    pub fn decision(&self) -> Decision {
        self.thresholds.route(self.judgement())
    }
}
