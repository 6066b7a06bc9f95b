//! Training: fit a linfa-trees decision tree on one part of the labelled pairs,
//! calibrate its leaves and choose thresholds on a second, measure on a third.
//!
//! Pairs are split by *group*, not one by one: pairs that share a document (a page
//! and its mirror, its print version, its syndicated copy) land in the same part,
//! so calibration and evaluation measure pages the tree never saw.

use anyhow::{bail, ensure, Result};
use linfa::prelude::*;
use linfa_trees::{DecisionTree, SplitQuality};
use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};

use super::calibration::{calibrate, choose_thresholds, Thresholds};
use super::metrics::{Confusion, Metrics};
use super::tree::Tree;
use super::Decision;
use crate::util::hash::mix64;
use crate::util::UnionFind;

/// Parameters of the tree, checked before fitting.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TreeParams {
    /// "gini" or "entropy".
    pub split_quality: Quality,
    pub max_depth: usize,
    /// Smallest (class-weighted) number of pairs in a leaf.
    pub min_leaf_weight: f32,
    pub min_impurity_decrease: f64,
    /// Precision each automatic decision must reach on calibration pairs.
    pub precision_target: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Quality {
    Gini,
    Entropy,
}

impl Default for TreeParams {
    fn default() -> Self {
        TreeParams {
            split_quality: Quality::Gini,
            max_depth: 10,
            min_leaf_weight: 5.0,
            min_impurity_decrease: 1e-4,
            precision_target: 0.98,
        }
    }
}

impl TreeParams {
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }

    pub fn min_leaf_weight(mut self, weight: f32) -> Self {
        self.min_leaf_weight = weight;
        self
    }

    pub fn precision_target(mut self, target: f64) -> Self {
        self.precision_target = target;
        self
    }

    /// Rejects values linfa would reject later, or that make no sense.
    pub fn check(&self) -> Result<()> {
        ensure!(self.max_depth >= 1, "max depth must be at least 1");
        ensure!(
            self.min_leaf_weight.is_finite() && self.min_leaf_weight >= 1.0,
            "min leaf weight must be at least 1"
        );
        ensure!(
            self.min_impurity_decrease > 0.0,
            "min impurity decrease must be > 0 (linfa-trees requires it)"
        );
        ensure!(
            self.precision_target > 0.5 && self.precision_target <= 1.0,
            "precision target must be in (0.5, 1]"
        );
        Ok(())
    }
}

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

/// Which part of the data a pair serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Fit,
    Calibration,
    Evaluation,
}

/// 60 % fit, 20 % calibration, 20 % evaluation, by group, reproducible by seed.
pub fn part_of(group: u64, seed: u64) -> Part {
    match mix64(group ^ mix64(seed)) % 10 {
        0..=5 => Part::Fit,
        6 | 7 => Part::Calibration,
        _ => Part::Evaluation,
    }
}

/// What training produced.
#[derive(Debug, Clone)]
pub struct Trained {
    pub tree: Tree,
    pub thresholds: Thresholds,
    pub heldout: Metrics,
    pub fit_pairs: usize,
    pub calibration_pairs: usize,
    pub evaluation_pairs: usize,
}

/// Fits, calibrates and evaluates, on parts split by group of shared documents.
pub fn train(set: &LabelledPairs, params: &TreeParams, seed: u64) -> Result<Trained> {
    let parts: Vec<Part> = groups_by_shared_document(&set.documents)
        .into_iter()
        .map(|g| part_of(g, seed))
        .collect();
    train_on_parts(set, &parts, params)
}

/// Fits on the pairs marked [`Part::Fit`], calibrates on [`Part::Calibration`] and
/// measures on [`Part::Evaluation`], as the caller split them (retraining keeps
/// its evaluation pairs frozen).
pub fn train_on_parts(set: &LabelledPairs, parts: &[Part], params: &TreeParams) -> Result<Trained> {
    params.check()?;
    let select = |part: Part| -> Vec<usize> {
        (0..set.labels.len())
            .filter(|&i| parts[i] == part)
            .collect()
    };
    let (fit, cal, eval) = (
        select(Part::Fit),
        select(Part::Calibration),
        select(Part::Evaluation),
    );
    let positives = fit.iter().filter(|&&i| set.labels[i]).count();
    if positives == 0 || positives == fit.len() {
        bail!(
            "training needs both duplicate and distinct pairs (the fitting part has {} pairs, {positives} duplicates); give more labelled pairs",
            fit.len()
        );
    }
    if cal.is_empty() || eval.is_empty() {
        bail!("too few groups of pairs to hold some out for calibration and evaluation; give more labelled pairs");
    }
    let fitted = fit_tree(set, &fit, params)?;
    let mut tree = Tree::from_linfa(&fitted);
    let rows = |idx: &[usize]| -> Vec<(&[f64], bool)> {
        idx.iter()
            .map(|&i| (set.vectors[i].as_slice(), set.labels[i]))
            .collect()
    };
    calibrate(&mut tree, rows(&fit).into_iter(), rows(&cal).into_iter());
    let scored: Vec<(f64, bool)> = cal
        .iter()
        .map(|&i| (tree.p_duplicate(&set.vectors[i]), set.labels[i]))
        .collect();
    let thresholds = choose_thresholds(&scored, params.precision_target);
    let mut confusion = Confusion::default();
    for &i in &eval {
        let p = tree.p_duplicate(&set.vectors[i]);
        confusion.add(set.labels[i], p, route(p, &thresholds));
    }
    Ok(Trained {
        tree,
        thresholds,
        heldout: confusion.metrics(),
        fit_pairs: fit.len(),
        calibration_pairs: cal.len(),
        evaluation_pairs: eval.len(),
    })
}

/// The routing rule of [`super::Model::decide`], for a model still being built.
pub fn route(p: f64, t: &Thresholds) -> Decision {
    if p >= t.duplicate {
        Decision::Duplicate
    } else if p <= t.distinct {
        Decision::Distinct
    } else {
        Decision::Review
    }
}

fn fit_tree(
    set: &LabelledPairs,
    rows: &[usize],
    params: &TreeParams,
) -> Result<DecisionTree<f64, usize>> {
    let width = set.vectors[rows[0]].len();
    let mut x = Array2::<f64>::zeros((rows.len(), width));
    for (r, &i) in rows.iter().enumerate() {
        for (c, &v) in set.vectors[i].iter().enumerate() {
            // The vector is sanitised upstream; this is the last guard (NaN aborts linfa).
            x[[r, c]] = if v.is_finite() {
                v
            } else {
                crate::signals::MISSING
            };
        }
    }
    let y: Array1<usize> = rows.iter().map(|&i| usize::from(set.labels[i])).collect();
    let weights = class_weights(&y);
    let dataset = Dataset::new(x, y).with_weights(weights);
    let quality = match params.split_quality {
        Quality::Gini => SplitQuality::Gini,
        Quality::Entropy => SplitQuality::Entropy,
    };
    Ok(DecisionTree::params()
        .split_quality(quality)
        .max_depth(Some(params.max_depth))
        .min_weight_leaf(params.min_leaf_weight)
        .min_weight_split(2.0 * params.min_leaf_weight)
        .min_impurity_decrease(params.min_impurity_decrease)
        .fit(&dataset)?)
}

/// Balances the classes. The duplicate weight is nudged by one part in 10⁴ so
/// that no leaf ever holds exactly equal weights: linfa breaks such ties by hash
/// map order, which would make two fits of the same data differ.
fn class_weights(y: &Array1<usize>) -> Array1<f32> {
    let n = y.len() as f32;
    let positives = y.iter().filter(|&&l| l == 1).count() as f32;
    let w_pos = n / (2.0 * positives) * 1.0001;
    let w_neg = n / (2.0 * (n - positives));
    y.mapv(|l| if l == 1 { w_pos } else { w_neg })
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
        let parts: Vec<Part> = (0..10_000u64).map(|g| part_of(g, 7)).collect();
        let again: Vec<Part> = (0..10_000u64).map(|g| part_of(g, 7)).collect();
        assert_eq!(parts, again);
        let fit = parts.iter().filter(|&&p| p == Part::Fit).count();
        assert!((5700..6300).contains(&fit), "{fit}");
        let other_seed: Vec<Part> = (0..10_000u64).map(|g| part_of(g, 8)).collect();
        assert_ne!(parts, other_seed);
    }

    #[test]
    fn params_are_checked() {
        assert!(TreeParams::default().check().is_ok());
        assert!(TreeParams::default().max_depth(0).check().is_err());
        assert!(TreeParams::default().precision_target(0.3).check().is_err());
        assert!(TreeParams::default().min_leaf_weight(0.0).check().is_err());
    }

    /// A separable toy problem: the tree learns it, and two trainings agree.
    #[test]
    fn trains_reproducibly_on_a_separable_problem() {
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
        let params = TreeParams::default();
        let first = train(&set, &params, 1).unwrap();
        let second = train(&set, &params, 1).unwrap();
        assert_eq!(first.tree, second.tree);
        assert!(first.heldout.f1 > 0.99, "{:?}", first.heldout);
        assert!(
            first.thresholds.duplicate <= 1.0
                && first.thresholds.distinct < first.thresholds.duplicate
        );
    }
}
