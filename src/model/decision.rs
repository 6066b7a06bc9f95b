//! From a confidence to a decision: the policy (the precision automatic
//! decisions must reach), the two thresholds chosen for it on calibration pairs,
//! and the routing rule, written once.

use anyhow::{ensure, Result};
use serde::{Deserialize, Serialize};

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

/// What the people using the model ask of its automatic decisions: that each
/// (duplicate, distinct) be right this often. Only [`DecisionPolicy::new`] makes
/// one, so a policy is always a sensible target.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DecisionPolicy {
    precision_target: f64,
}

impl DecisionPolicy {
    pub fn new(precision_target: f64) -> Result<DecisionPolicy> {
        ensure!(
            precision_target > 0.5 && precision_target <= 1.0,
            "precision target must be in (0.5, 1]"
        );
        Ok(DecisionPolicy { precision_target })
    }

    pub fn precision_target(&self) -> f64 {
        self.precision_target
    }
}

impl Default for DecisionPolicy {
    fn default() -> Self {
        DecisionPolicy {
            precision_target: 0.98,
        }
    }
}

/// Where automatic decisions start: `p ≥ duplicate` is decided duplicate,
/// `p ≤ distinct` is decided distinct, anything between goes to review.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Thresholds {
    pub duplicate: f64,
    pub distinct: f64,
}

impl Thresholds {
    /// The routing rule.
    pub fn route(&self, p_duplicate: f64) -> Decision {
        if p_duplicate >= self.duplicate {
            Decision::Duplicate
        } else if p_duplicate <= self.distinct {
            Decision::Distinct
        } else {
            Decision::Review
        }
    }

    /// The widest thresholds whose automatic decisions reach the policy's
    /// precision on `scored` (p_duplicate, label) pairs. When no threshold reaches
    /// it, that side decides nothing (duplicate = 1.0 beyond any smoothed p;
    /// distinct = 0.0).
    pub fn choose(scored: &[(f64, bool)], policy: &DecisionPolicy) -> Thresholds {
        let target = policy.precision_target;
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
        }
    }
}

/// Walks pairs from the most to the least confident for one side and returns the
/// p of the last group at which the running precision is still ≥ target. Groups
/// of equal p (one cell) are taken whole: a threshold cannot split a cell.
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

    fn policy(target: f64) -> DecisionPolicy {
        DecisionPolicy::new(target).unwrap()
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
        let t = Thresholds::choose(&scored, &policy(0.95));
        // {>=0.9}: 10/10; {>=0.7}: 19/20 = 0.95 ok; {>=0.5}: 24/30 = 0.8 no -> 0.7
        assert_eq!(t.duplicate, 0.7);
        // {<=0.1}: 20/20; {<=0.5}: 25/30 no -> 0.1
        assert_eq!(t.distinct, 0.1);
        let strict = Thresholds::choose(&scored, &policy(0.999));
        assert_eq!(strict.duplicate, 0.9);
        assert_eq!(t.route(0.7), Decision::Duplicate);
        assert_eq!(t.route(0.5), Decision::Review);
        assert_eq!(t.route(0.1), Decision::Distinct);
    }

    #[test]
    fn unreachable_target_decides_nothing() {
        let scored = vec![(0.6, true), (0.6, false), (0.4, true), (0.4, false)];
        let t = Thresholds::choose(&scored, &policy(0.98));
        assert_eq!((t.duplicate, t.distinct), (1.0, 0.0));
    }

    #[test]
    fn policies_are_checked() {
        assert!(DecisionPolicy::new(0.3).is_err());
        assert!(DecisionPolicy::new(1.01).is_err());
        assert_eq!(DecisionPolicy::new(0.95).unwrap().precision_target(), 0.95);
    }
}
