//! A forest of decision trees: bagged linfa trees, each grown on a bootstrap
//! sample of the pairs and a random share of the signals.
//!
//! Why a forest: one tree learns the first cue that separates its training pairs
//! (a title, a URL) and never asks the content. Trees that are not offered the
//! title signals must separate the pairs by what the documents say, and the
//! average of many such trees generalises to pairs whose cues mislead. Their
//! disagreement is a second measure of doubt: a pair on which the trees split is
//! sent to review whatever its mean.
//!
//! Each tree's output for a pair is the class-balanced share of duplicates in
//! its leaf (on its bootstrap sample); the forest's score is the mean over
//! trees. Its cells are bins of that score, in order, so calibration (which
//! learns a cell's confidence on held-out pairs) is histogram binning made
//! monotone.

use std::sync::Arc;

use anyhow::{ensure, Result};
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::estimator::{Committee, Contributions, Estimator, FittedOutOfBag, Kind, Learner, Path};
use super::train::is_record_set;
use super::tree::{Node, Tree, TreeParams, MAX_DEPTH, MIN_LEAF_WEIGHT};
use twinpage_util::hash::mix64;
use twinpage_util::params::{Param, ParamValues};

/// The forest as a kind of estimator.
pub const KIND: Kind = Kind {
    name: "forest",
    about: "bagged decision trees on random shares of the signals; binned, calibrated mean",
    params: &[
        TREES,
        SIGNAL_SHARE,
        MAX_SAMPLES,
        MAX_DEPTH,
        MIN_LEAF_WEIGHT,
        CALIBRATION,
    ],
    learner: |values| {
        let tree = TreeParams::from_values(values, ForestParams::default().tree)?;
        let params = ForestParams {
            trees: values.get(&TREES)?,
            signal_share: values.get(&SIGNAL_SHARE)?,
            max_samples: values.get(&MAX_SAMPLES)?,
            tree,
            calibration: values.optional(&CALIBRATION)?.unwrap_or_default(),
        };
        Ok(Box::new(params.check()?))
    },
    read: |fields| Ok(Arc::new(serde_json::from_str::<Forest>(fields)?)),
};

const TREES: Param = Param {
    name: "trees",
    value_name: "N",
    help: "forest: number of trees",
    default: || Some(ForestParams::default().trees.to_string()),
};

const SIGNAL_SHARE: Param = Param {
    name: "signal-share",
    value_name: "S",
    help: "forest: share of the signals each tree is offered (0 < S <= 1)",
    default: || Some(ForestParams::default().signal_share.to_string()),
};

const MAX_SAMPLES: Param = Param {
    name: "max-samples",
    value_name: "N",
    help: "forest: pairs drawn (with replacement) for each tree, at most",
    default: || Some(ForestParams::default().max_samples.to_string()),
};

const CALIBRATION: Param = Param {
    name: "calibration",
    value_name: "FROM",
    help: "forest: what calibration learns from: `held-out` pairs kept apart from fitting, or `out-of-bag`: every training pair, each read by the trees whose sample lacked it (none kept apart) [default: out-of-bag for a set of records (see --fit), else held-out]",
    default: || None,
};

/// `values` with the calibration a forest of `kind` gets from the set it is trained
/// on when `--calibration` is not given: out of bag for a set of records
/// ([`is_record_set`]), held out (the default) otherwise.
///
/// A catalogue's labelled pairs chain its records together, and the pairs to score
/// pair the same records again: held out by group, the calibration pairs hold records
/// the trees never saw, unlike those, and their cells put the F1 cut too high. Out of
/// bag, every pair calibrates, read by the trees whose sample lacked it. On the record
/// benchmarks' valid splits (six seeds, renamed layout) Abt-Buy 0.861 → 0.894,
/// Amazon-Google 0.688 → 0.708, Walmart-Amazon and DBLP-ACM the same; on web pages it
/// made two more automatic decisions on kinds never trained on wrong (lab/RESULTS.md,
/// "Calibration out of bag for a set of records", "Calibration out of bag").
pub fn with_calibration_for_set(
    kind: &Kind,
    values: &ParamValues,
    record_share: f64,
) -> ParamValues {
    let mut values = values.clone();
    let declared = kind.params.iter().any(|p| p.name == CALIBRATION.name);
    if declared && is_record_set(record_share) && !values.given(CALIBRATION.name) {
        values.set(CALIBRATION.name, CalibrationSource::OutOfBag.to_string());
    }
    values
}

/// What a forest's calibration learns from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CalibrationSource {
    /// Pairs kept apart from fitting.
    #[default]
    HeldOut,
    /// The fitted pairs, each read by the trees that never saw it: the forest
    /// fits on every pair, and calibration counts every pair too.
    OutOfBag,
}

impl std::fmt::Display for CalibrationSource {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(match self {
            CalibrationSource::HeldOut => "held-out",
            CalibrationSource::OutOfBag => "out-of-bag",
        })
    }
}

impl std::str::FromStr for CalibrationSource {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "held-out" => Ok(CalibrationSource::HeldOut),
            "out-of-bag" => Ok(CalibrationSource::OutOfBag),
            _ => Err(format!("`{s}`: held-out or out-of-bag")),
        }
    }
}

/// Bins of the forest's mean score: its calibration cells.
pub const BINS: usize = 20;

/// A forest's parameters as given; [`ForestParams::check`] makes the ones that fit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ForestParams {
    pub trees: usize,
    /// Share of the signals offered to each tree.
    pub signal_share: f64,
    /// Bootstrap sample size cap per tree (the whole set when smaller).
    pub max_samples: usize,
    pub tree: TreeParams,
    /// What calibration learns from (files written before it: held out).
    #[serde(default)]
    pub calibration: CalibrationSource,
}

impl Default for ForestParams {
    fn default() -> Self {
        ForestParams {
            trees: 100,
            // Chosen on leave-one-kind-out (0.4: accuracy 0.962, calibration error 0.050;
            // 0.7: 0.971, 0.038; 1.0: 0.930): a tree offered few signals often lacks the
            // rendered ones that decide script-built pages, and trusts the fetched text.
            signal_share: 0.7,
            max_samples: 4000,
            // Trees grown out, as in Breiman's forest: the average, not each tree, is
            // smoothed. Leave-one-kind-out at seeds 7 and 8, against depth 12 and leaves
            // of 2: automatic decisions all right (0.998 before), calibration error
            // 0.049 and 0.043 (0.056, 0.053), for one or two points more review.
            tree: TreeParams::default().max_depth(30).min_leaf_weight(1.0),
            calibration: CalibrationSource::HeldOut,
        }
    }
}

impl ForestParams {
    /// The parameters, if they make sense.
    pub fn check(self) -> Result<ValidForestParams> {
        ensure!(
            (1..=10_000).contains(&self.trees),
            "a forest has 1 to 10000 trees"
        );
        ensure!(
            self.signal_share > 0.0 && self.signal_share <= 1.0,
            "the signal share must be in (0, 1]"
        );
        ensure!(self.max_samples >= 10, "max samples must be at least 10");
        self.tree.check()?;
        Ok(ValidForestParams(self))
    }
}

/// Checked forest parameters: the only way to fit a forest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValidForestParams(ForestParams);

impl Learner for ValidForestParams {
    fn fit(&self, vectors: &[&[f64]], labels: &[bool], seed: u64) -> Result<Arc<dyn Estimator>> {
        Ok(Arc::new(self.grow(vectors, labels, seed)?.0))
    }

    fn out_of_bag(&self) -> bool {
        self.0.calibration == CalibrationSource::OutOfBag
    }

    fn fit_out_of_bag(
        &self,
        vectors: &[&[f64]],
        labels: &[bool],
        seed: u64,
    ) -> Result<FittedOutOfBag> {
        let (forest, samples) = self.grow(vectors, labels, seed)?;
        let readings = (0..vectors.len())
            .into_par_iter()
            .map(|row| {
                let outputs: Vec<f64> = (forest.trees.iter().zip(&forest.shares))
                    .zip(&samples)
                    .filter(|(_, sample)| sample.binary_search(&row).is_err())
                    .map(|((tree, shares), _)| shares[tree.cell(vectors[row])])
                    .collect();
                (!outputs.is_empty()).then(|| {
                    let vote = committee(&outputs);
                    (bin(vote.mean), Some(vote))
                })
            })
            .collect();
        Ok((Arc::new(forest), readings))
    }
}

impl ValidForestParams {
    /// The forest, and each tree's bootstrap sample (row indices, sorted).
    fn grow(
        &self,
        vectors: &[&[f64]],
        labels: &[bool],
        seed: u64,
    ) -> Result<(Forest, Vec<Vec<usize>>)> {
        let params = self.0;
        let width = vectors.first().map_or(0, |v| v.len());
        let tree_learner = params.tree.check()?;
        // Each tree, the rows through its nodes, and its sample.
        type Grown = (Tree, Vec<NodeCounts>, Vec<usize>);
        let grown: Result<Vec<Grown>> = (0..params.trees)
            .into_par_iter()
            .map(|t| {
                let mut rng = ChaCha8Rng::seed_from_u64(mix64(seed ^ mix64(t as u64 + 1)));
                let signals = offered_signals(width, params.signal_share, &mut rng);
                let rows = bootstrap(labels, params.max_samples, &mut rng);
                let columns: Vec<Vec<f64>> = rows
                    .iter()
                    .map(|&r| signals.iter().map(|&s| vectors[r][s]).collect())
                    .collect();
                let slices: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
                let row_labels: Vec<bool> = rows.iter().map(|&r| labels[r]).collect();
                let mut tree = tree_learner.fit_tree(&slices, &row_labels)?;
                tree.rename_signals(&signals);
                let counts = node_counts(&tree, rows.iter().map(|&r| (vectors[r], labels[r])));
                Ok((tree, counts, rows))
            })
            .collect();
        let mut trees = Vec::new();
        let mut node_counts = Vec::new();
        let mut samples = Vec::new();
        for (tree, counts, rows) in grown? {
            trees.push(tree);
            node_counts.push(counts);
            samples.push(rows);
        }
        let shares = trees
            .iter()
            .zip(&node_counts)
            .map(|(tree, counts)| leaf_shares(tree, counts))
            .collect();
        let forest = Forest {
            params,
            trees,
            shares,
            node_counts,
        };
        Ok((forest, samples))
    }
}

/// A random share of `width` signals (at least one), in order.
fn offered_signals(width: usize, share: f64, rng: &mut ChaCha8Rng) -> Vec<usize> {
    let count = ((width as f64 * share).round() as usize).clamp(1, width.max(1));
    let mut chosen = sample(rng, width, count).into_vec();
    chosen.sort_unstable();
    chosen
}

/// Row indices drawn with replacement, balanced by class: half the draws from
/// each label, so a rare class is not lost in a small sample.
fn bootstrap(labels: &[bool], max_samples: usize, rng: &mut ChaCha8Rng) -> Vec<usize> {
    let (positives, negatives): (Vec<usize>, Vec<usize>) =
        (0..labels.len()).partition(|&i| labels[i]);
    let size = labels.len().min(max_samples);
    // With one class only (the caller refuses that, but a sample must not panic), draw from it.
    let classes: Vec<&Vec<usize>> = [&positives, &negatives]
        .into_iter()
        .filter(|c| !c.is_empty())
        .collect();
    let mut rows: Vec<usize> = (0..size)
        .map(|i| {
            let class = classes[i % classes.len()];
            class[rng.random_range(0..class.len())]
        })
        .collect();
    rows.sort_unstable();
    rows
}

/// The (balanced) rows of a tree's bootstrap sample that pass through a node:
/// `[duplicates, distinct]`.
pub type NodeCounts = [u32; 2];

/// How many duplicate and distinct rows pass through each node of `tree`.
fn node_counts<'a>(tree: &Tree, rows: impl Iterator<Item = (&'a [f64], bool)>) -> Vec<NodeCounts> {
    let mut counts = vec![[0u32; 2]; tree.nodes.len()];
    for (x, label) in rows {
        for node in tree.node_path(x) {
            counts[node][usize::from(!label)] += 1;
        }
    }
    counts
}

/// The Laplace-smoothed share of duplicates among a node's rows: a tree's output
/// in a leaf, its expected output at an inner node.
fn smoothed([duplicates, distinct]: NodeCounts) -> f64 {
    (f64::from(duplicates) + 1.0) / (f64::from(duplicates + distinct) + 2.0)
}

/// Each leaf's output, in leaf order.
fn leaf_shares(tree: &Tree, counts: &[NodeCounts]) -> Vec<f64> {
    let mut shares = vec![0.0; tree.cells()];
    for (node, &count) in tree.nodes.iter().zip(counts) {
        if let Node::Leaf { leaf } = *node {
            shares[leaf] = smoothed(count);
        }
    }
    shares
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// Bagged trees; `shares[t][leaf]` is tree `t`'s output in that leaf, and
/// `node_counts[t][node]` the rows of its sample through each of its nodes (what
/// takes a score apart by signal; files written before it lack them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Forest {
    pub params: ForestParams,
    pub trees: Vec<Tree>,
    pub shares: Vec<Vec<f64>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node_counts: Vec<Vec<NodeCounts>>,
}

impl Forest {
    /// Each tree's output for `x`.
    fn outputs(&self, x: &[f64]) -> Vec<f64> {
        self.trees
            .iter()
            .zip(&self.shares)
            .map(|(tree, shares)| shares[tree.cell(x)])
            .collect()
    }

    /// The trees' mean output.
    pub fn score(&self, x: &[f64]) -> f64 {
        mean(&self.outputs(x))
    }
}

/// The cell of a mean tree output.
fn bin(score: f64) -> usize {
    ((score * BINS as f64) as usize).min(BINS - 1)
}

/// How the trees' outputs vote.
fn committee(outputs: &[f64]) -> Committee {
    let mean = mean(outputs);
    let variance = outputs.iter().map(|o| (o - mean).powi(2)).sum::<f64>() / outputs.len() as f64;
    Committee {
        trees: outputs.len(),
        duplicate_votes: outputs.iter().filter(|&&o| o >= 0.5).count(),
        mean,
        spread: variance.sqrt(),
    }
}

impl Estimator for Forest {
    fn kind(&self) -> &'static str {
        KIND.name
    }

    fn trees(&self) -> Vec<&Tree> {
        self.trees.iter().collect()
    }

    fn cells(&self) -> usize {
        BINS
    }

    fn cell(&self, x: &[f64]) -> usize {
        bin(self.score(x))
    }

    fn ordered(&self) -> bool {
        true
    }

    fn paths(&self, x: &[f64]) -> Vec<Path> {
        let outputs = self.outputs(x);
        let mean = mean(&outputs);
        let mut order: Vec<usize> = (0..outputs.len()).collect();
        order.sort_by(|&a, &b| {
            let (da, db) = ((outputs[a] - mean).abs(), (outputs[b] - mean).abs());
            da.total_cmp(&db).then(a.cmp(&b))
        });
        order
            .into_iter()
            .take(3)
            .map(|t| Path {
                label: format!(
                    "tree {} of {} (its output {:.2}; the forest's mean {mean:.2})",
                    t + 1,
                    self.trees.len(),
                    outputs[t]
                ),
                steps: self.trees[t].route(x).1,
            })
            .collect()
    }

    fn committee(&self, x: &[f64]) -> Option<Committee> {
        Some(committee(&self.outputs(x)))
    }

    fn reading(&self, x: &[f64]) -> (usize, Option<Committee>) {
        let committee = committee(&self.outputs(x));
        (bin(committee.mean), Some(committee))
    }

    /// Saabas' contributions: each test on a tree's path moves its expected
    /// output from the node's value to its child's, and the move is the tested
    /// signal's; summed along the path it is the leaf's output less the root's,
    /// and averaged over the trees, the forest's score less its base.
    fn contributions(&self, x: &[f64]) -> Option<Contributions> {
        if self.node_counts.len() != self.trees.len() {
            return None;
        }
        let mut by_signal = vec![0.0; x.len()];
        let mut base = 0.0;
        for (tree, counts) in self.trees.iter().zip(&self.node_counts) {
            let path = tree.node_path(x);
            base += smoothed(counts[path[0]]);
            for step in path.windows(2) {
                if let Node::Split { signal, .. } = tree.nodes[step[0]] {
                    by_signal[signal] += smoothed(counts[step[1]]) - smoothed(counts[step[0]]);
                }
            }
        }
        let trees = self.trees.len() as f64;
        by_signal.iter_mut().for_each(|c| *c /= trees);
        Some(Contributions {
            base: base / trees,
            output: self.score(x),
            by_signal,
        })
    }

    fn validate(&self, signals: usize) -> Result<(), String> {
        if self.trees.is_empty() || self.trees.len() != self.shares.len() {
            return Err("the forest has no trees, or trees without leaf shares".into());
        }
        let counted = |(tree, counts): (&Tree, &Vec<NodeCounts>)| tree.nodes.len() == counts.len();
        if !self.node_counts.is_empty()
            && (self.node_counts.len() != self.trees.len()
                || !self.trees.iter().zip(&self.node_counts).all(counted))
        {
            return Err("the forest's node counts do not match its trees".into());
        }
        for (t, (tree, shares)) in self.trees.iter().zip(&self.shares).enumerate() {
            tree.validate(signals)
                .map_err(|e| format!("tree {}: {e}", t + 1))?;
            if shares.len() != tree.cells() || shares.iter().any(|s| !(0.0..=1.0).contains(s)) {
                return Err(format!("tree {}: bad leaf shares", t + 1));
            }
        }
        Ok(())
    }

    fn summary(&self) -> String {
        let leaves: usize = self.trees.iter().map(Tree::cells).sum();
        let depth = self.trees.iter().map(Tree::depth).max().unwrap_or(0);
        format!(
            "forest: {} trees, {} leaves in all, deepest {depth}, each offered {:.0} % of the signals",
            self.trees.len(),
            leaves,
            100.0 * self.params.signal_share
        )
    }

    fn learner(&self) -> Result<Box<dyn Learner>> {
        Ok(Box::new(self.params.check()?))
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a forest serialises")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Signal 0 decides; signal 1 is noise.
    fn toy() -> (Vec<Vec<f64>>, Vec<bool>) {
        let mut vectors = Vec::new();
        let mut labels = Vec::new();
        for i in 0..400u64 {
            let label = i % 2 == 0;
            let noise = (mix64(i) % 1000) as f64 / 1000.0;
            vectors.push(vec![if label { 0.2 * noise } else { 0.5 + noise }, noise]);
            labels.push(label);
        }
        (vectors, labels)
    }

    #[test]
    fn learns_reproducibly_and_exposes_its_trees() {
        let (vectors, labels) = toy();
        let rows: Vec<&[f64]> = vectors.iter().map(Vec::as_slice).collect();
        let params = ForestParams {
            trees: 15,
            signal_share: 0.5,
            ..ForestParams::default()
        }
        .check()
        .unwrap();
        let forest = params.fit(&rows, &labels, 3).unwrap();
        let again = params.fit(&rows, &labels, 3).unwrap();
        assert_eq!(forest.to_json(), again.to_json(), "same seed, same forest");
        assert_ne!(
            forest.to_json(),
            params.fit(&rows, &labels, 4).unwrap().to_json()
        );
        assert!(forest.cell(&[0.05, 0.5]) > forest.cell(&[0.9, 0.5]));
        let committee = forest.committee(&[0.05, 0.5]).unwrap();
        assert_eq!(committee.trees, 15);
        assert!(committee.mean > 0.5 && committee.spread >= 0.0);
        let paths = forest.paths(&[0.05, 0.5]);
        assert_eq!(paths.len(), 3);
        assert!(forest.validate(2).is_ok());
        assert!(forest.validate(1).is_err(), "a tree splits on signal 1");
        let back = (KIND.read)(&forest.to_json().to_string()).unwrap();
        assert_eq!(back.to_json(), forest.to_json());
    }

    #[test]
    fn contributions_add_up_to_the_score_less_the_base() {
        let (vectors, labels) = toy();
        let rows: Vec<&[f64]> = vectors.iter().map(Vec::as_slice).collect();
        let forest = ForestParams {
            trees: 25,
            ..ForestParams::default()
        }
        .check()
        .unwrap()
        .fit(&rows, &labels, 5)
        .unwrap();
        for x in [[0.05, 0.5], [0.9, 0.1], [0.3, 0.99], [0.55, 0.0]] {
            let c = forest.contributions(&x).unwrap();
            let sum: f64 = c.by_signal.iter().sum();
            assert!((c.base + sum - c.output).abs() < 1e-9, "{c:?}");
            assert_eq!(c.output, forest.committee(&x).unwrap().mean);
        }
        let clear = forest.contributions(&[0.05, 0.5]).unwrap();
        assert!(clear.by_signal[0] > 0.2, "signal 0 decides: {clear:?}");
        assert!(clear.by_signal[0].abs() > 5.0 * clear.by_signal[1].abs());
        assert!(
            (clear.base - 0.5).abs() < 0.05,
            "balanced samples: {clear:?}"
        );
        let mut old_file = forest.to_json();
        old_file.as_object_mut().unwrap().remove("node_counts");
        let old = (KIND.read)(&old_file.to_string()).unwrap();
        assert!(old.validate(2).is_ok());
        assert_eq!(old.contributions(&[0.05, 0.5]), None);
    }

    #[test]
    fn a_set_of_records_is_calibrated_out_of_bag_unless_told_otherwise() {
        let learner = |values: &ParamValues, share: f64| {
            (KIND.learner)(&with_calibration_for_set(&KIND, values, share)).unwrap()
        };
        let given = ParamValues::default();
        assert!(learner(&given, 0.95).out_of_bag());
        assert!(!learner(&given, 0.64).out_of_bag());
        let mut held_out = ParamValues::default();
        held_out.set("calibration", "held-out");
        assert!(!learner(&held_out, 1.0).out_of_bag());
        // An estimator without the parameter gets none.
        let tree = &crate::model::tree::KIND;
        assert!(!with_calibration_for_set(tree, &given, 1.0).given("calibration"));
    }

    #[test]
    fn only_checked_params_fit() {
        let mut values = ParamValues::default();
        values.set("signal-share", "0");
        assert!((KIND.learner)(&values).is_err());
        values.set("signal-share", "0.5").set("trees", "0");
        assert!((KIND.learner)(&values).is_err());
        values.set("trees", "10");
        assert!((KIND.learner)(&values).is_ok());
    }
}
