//! Calibrated confidence and the two thresholds.
//!
//! A leaf's training rows are the rows the tree was grown to separate, so their
//! label share is over-confident. Each leaf's P(duplicate) is instead the label
//! share of held-out calibration pairs that reach it, shrunk toward the (Laplace
//! smoothed) training share when few calibration pairs arrive. The thresholds are
//! then chosen on the same calibration pairs so that automatic decisions reach a
//! precision target; pairs between them go to review.

use serde::{Deserialize, Serialize};

use super::tree::{Leaf, Tree};

/// Weight, in pairs, of the training share in a leaf's calibrated confidence.
pub const PRIOR_PAIRS: f64 = 3.0;

/// Fills every leaf's counts and calibrated confidence.
pub fn calibrate<'a>(
    tree: &mut Tree,
    fit: impl Iterator<Item = (&'a [f64], bool)>,
    calibration: impl Iterator<Item = (&'a [f64], bool)>,
) {
    for leaf in &mut tree.leaves {
        *leaf = Default::default();
    }
    count(
        tree,
        fit,
        |l| &mut l.fit_duplicates,
        |l| &mut l.fit_distinct,
    );
    count(
        tree,
        calibration,
        |l| &mut l.calibration_duplicates,
        |l| &mut l.calibration_distinct,
    );
    for l in &mut tree.leaves {
        let fit_share = (f64::from(l.fit_duplicates) + 1.0)
            / (f64::from(l.fit_duplicates + l.fit_distinct) + 2.0);
        let n = f64::from(l.calibration_duplicates + l.calibration_distinct);
        l.p_duplicate =
            (f64::from(l.calibration_duplicates) + PRIOR_PAIRS * fit_share) / (n + PRIOR_PAIRS);
    }
}

/// Adds each row to the duplicate or distinct counter of the leaf it reaches.
fn count<'a>(
    tree: &mut Tree,
    rows: impl Iterator<Item = (&'a [f64], bool)>,
    duplicates: fn(&mut Leaf) -> &mut u32,
    distinct: fn(&mut Leaf) -> &mut u32,
) {
    for (x, label) in rows {
        let at = tree.leaf_of(x);
        let leaf = &mut tree.leaves[at];
        *if label {
            duplicates(leaf)
        } else {
            distinct(leaf)
        } += 1;
    }
}

/// Where automatic decisions start: `p ≥ duplicate` is decided duplicate,
/// `p ≤ distinct` is decided distinct, anything between goes to review.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Thresholds {
    pub duplicate: f64,
    pub distinct: f64,
    /// The precision each automatic decision was chosen to reach.
    pub precision_target: f64,
}

/// The widest thresholds whose automatic decisions reach `target` precision on
/// `scored` (p_duplicate, label) pairs. When no threshold reaches it, that side
/// decides nothing (duplicate = 1.0 beyond any smoothed p; distinct = 0.0).
pub fn choose_thresholds(scored: &[(f64, bool)], target: f64) -> Thresholds {
    let mut by_p: Vec<(f64, bool)> = scored.to_vec();
    by_p.sort_by(|a, b| a.0.total_cmp(&b.0));
    let duplicate =
        lowest_precise_cut(by_p.iter().rev().map(|&(p, l)| (p, l)), target).unwrap_or(1.0);
    let distinct = lowest_precise_cut(by_p.iter().map(|&(p, l)| (p, !l)), target)
        .filter(|&t| t < duplicate)
        .unwrap_or(0.0);
    Thresholds {
        duplicate,
        distinct,
        precision_target: target,
    }
}

/// Walks pairs from the most to the least confident for one side and returns the
/// p of the last group at which the running precision is still ≥ target. Groups
/// of equal p (one leaf) are taken whole: a threshold cannot split a leaf.
fn lowest_precise_cut(ordered: impl Iterator<Item = (f64, bool)>, target: f64) -> Option<f64> {
    let mut right = 0usize;
    let mut total = 0usize;
    let mut best = None;
    let mut ordered = ordered.peekable();
    while let Some((p, correct)) = ordered.next() {
        total += 1;
        right += usize::from(correct);
        let group_ends = ordered.peek().is_none_or(|&(next, _)| next != p);
        if group_ends && right as f64 >= target * total as f64 {
            best = Some(p);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tree::Node;

    #[test]
    fn leaf_confidence_by_hand() {
        let mut tree = Tree {
            nodes: vec![
                Node::Split {
                    signal: 0,
                    threshold: 0.5,
                    left: 1,
                    right: 2,
                },
                Node::Leaf { leaf: 0 },
                Node::Leaf { leaf: 1 },
            ],
            leaves: vec![Leaf::default(); 2],
        };
        let rows: Vec<(Vec<f64>, bool)> = vec![
            (vec![0.0], false),
            (vec![0.1], false),
            (vec![0.9], true),
            (vec![1.0], true),
        ];
        let cal: Vec<(Vec<f64>, bool)> =
            vec![(vec![0.2], false), (vec![0.8], true), (vec![0.7], false)];
        calibrate(
            &mut tree,
            rows.iter().map(|(x, l)| (x.as_slice(), *l)),
            cal.iter().map(|(x, l)| (x.as_slice(), *l)),
        );
        // Left: fit share (0+1)/(2+2) = 0.25; calibration 0 of 1 -> (0 + 3*0.25) / (1 + 3) = 0.1875
        assert!((tree.leaves[0].p_duplicate - 0.1875).abs() < 1e-12);
        // Right: fit share (2+1)/(2+2) = 0.75; calibration 1 of 2 -> (1 + 2.25) / (2 + 3) = 0.65
        assert!((tree.leaves[1].p_duplicate - 0.65).abs() < 1e-12);
        assert_eq!(tree.leaves[1].calibration_distinct, 1);
    }

    #[test]
    fn thresholds_reach_the_target() {
        // p=0.9: 10 duplicates; p=0.7: 9 dup + 1 distinct; p=0.5: 5/5; p=0.1: 20 distinct
        let mut scored = vec![(0.9, true); 10];
        scored.extend(vec![(0.7, true); 9]);
        scored.push((0.7, false));
        scored.extend(vec![(0.5, true); 5]);
        scored.extend(vec![(0.5, false); 5]);
        scored.extend(vec![(0.1, false); 20]);
        let t = choose_thresholds(&scored, 0.95);
        // {>=0.9}: 10/10; {>=0.7}: 19/20 = 0.95 ok; {>=0.5}: 24/30 = 0.8 no -> 0.7
        assert_eq!(t.duplicate, 0.7);
        // {<=0.1}: 20/20; {<=0.5}: 25/30 no -> 0.1
        assert_eq!(t.distinct, 0.1);
        let strict = choose_thresholds(&scored, 0.999);
        assert_eq!(strict.duplicate, 0.9);
    }

    #[test]
    fn unreachable_target_decides_nothing() {
        let scored = vec![(0.6, true), (0.6, false), (0.4, true), (0.4, false)];
        let t = choose_thresholds(&scored, 0.98);
        assert_eq!((t.duplicate, t.distinct), (1.0, 0.0));
    }
}
