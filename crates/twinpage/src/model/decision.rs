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
    /// Pairs on which an ensemble's members disagree more than this (standard
    /// deviation of their outputs) go to review whatever their confidence.
    #[serde(default = "no_spread_limit")]
    max_spread: f64,
}

fn no_spread_limit() -> f64 {
    1.0
}

/// The default limit on the members' disagreement. Chosen on leave-one-kind-out
/// (lab/RESULTS.md): at 0.4 automatic duplicate decisions on left-out kinds were 94 %
/// right, at 0.3 97 %, for a review share of 32 % instead of 15 % there.
pub const MAX_SPREAD: f64 = 0.3;

/// The least calibrated confidence a pair needs to be decided duplicate, whatever
/// the running precision above it. The precision target counts every pair above a
/// cut, so a large sure cell can carry a mixed one below it: a retrain put its cut
/// on a cell of p 0.75 (12 duplicates and 5 distinct pairs among its calibration
/// pairs), and on a crawl that cell held distinct articles of one template, which
/// clustering joined (lab/RESULTS.md, "A core's phrases are those its page
/// writes"). Only the duplicate side has a floor: a crawl's candidate pairs hold
/// fewer duplicates than training pairs, so a cell's distinct share grows there,
/// which makes a mixed duplicate cell worse and a mixed distinct cell better; and
/// a wrong duplicate decision joins two groups of pages, where a wrong distinct
/// one leaves one page out of its group.
pub const MIN_DUPLICATE_CONFIDENCE: f64 = 0.85;

impl DecisionPolicy {
    pub fn new(precision_target: f64) -> Result<DecisionPolicy> {
        ensure!(
            precision_target > 0.5 && precision_target <= 1.0,
            "precision target must be in (0.5, 1]"
        );
        Ok(DecisionPolicy {
            precision_target,
            ..DecisionPolicy::default()
        })
    }

    /// The same policy with another limit on the members' disagreement (1: none).
    pub fn with_max_spread(self, max_spread: f64) -> Result<DecisionPolicy> {
        ensure!(
            max_spread > 0.0 && max_spread <= 1.0,
            "the spread limit must be in (0, 1]"
        );
        Ok(DecisionPolicy { max_spread, ..self })
    }

    pub fn precision_target(&self) -> f64 {
        self.precision_target
    }

    pub fn max_spread(&self) -> f64 {
        self.max_spread
    }
}

impl Default for DecisionPolicy {
    fn default() -> Self {
        DecisionPolicy {
            precision_target: 0.98,
            max_spread: MAX_SPREAD,
        }
    }
}

/// What a model says of one pair: its calibrated confidence, and how much the
/// members of an ensemble disagree on it (0 for a single model).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Judgement {
    pub p_duplicate: f64,
    pub spread: f64,
}

impl Judgement {
    /// A confidence no committee doubts.
    pub fn certain(p_duplicate: f64) -> Judgement {
        Judgement {
            p_duplicate,
            spread: 0.0,
        }
    }
}

/// Where automatic decisions start: `p ≥ duplicate` is decided duplicate,
/// `p ≤ distinct` is decided distinct, anything between goes to review.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Thresholds {
    pub duplicate: f64,
    pub distinct: f64,
    /// Beyond this disagreement of its members, a pair goes to review.
    #[serde(default = "no_spread_limit")]
    pub max_spread: f64,
    /// Where a pair that must be labelled one way (precision, recall, F1) counts
    /// as duplicate: `p ≥ f1_cut`. It does not route: see [`best_f1_cut`].
    /// Not written when even, so the files (and ids) of such models stay as they were.
    #[serde(default = "even_cut", skip_serializing_if = "is_even")]
    pub f1_cut: f64,
}

/// The cut of models trained before [`Thresholds::f1_cut`], and of most: the
/// most likely label.
pub const EVEN_CUT: f64 = 0.5;

fn even_cut() -> f64 {
    EVEN_CUT
}

fn is_even(cut: &f64) -> bool {
    *cut == EVEN_CUT
}

impl Thresholds {
    /// The cuts agree with the rule [`Thresholds::choose`] keeps: a duplicate cut
    /// above p 0.5 (1 decides nothing), a distinct cut below it (0 decides nothing),
    /// a spread limit in (0, 1]. A model file edited by hand could otherwise decide
    /// `duplicate` at p 0.15.
    pub fn validate(&self) -> Result<(), String> {
        let Thresholds {
            duplicate,
            distinct,
            max_spread,
            f1_cut,
        } = *self;
        if !(duplicate > 0.5 && duplicate <= 1.0) {
            return Err(format!(
                "thresholds.duplicate is {duplicate}; it must be above 0.5 and at most 1"
            ));
        }
        if !(0.0..0.5).contains(&distinct) {
            return Err(format!(
                "thresholds.distinct is {distinct}; it must be at least 0 and below 0.5"
            ));
        }
        if !(max_spread > 0.0 && max_spread <= 1.0) {
            return Err(format!(
                "thresholds.max_spread is {max_spread}; it must be above 0 and at most 1"
            ));
        }
        if !(f1_cut > 0.0 && f1_cut <= EVEN_CUT) {
            return Err(format!(
                "thresholds.f1_cut is {f1_cut}; it must be above 0 and at most 0.5"
            ));
        }
        Ok(())
    }

    /// The routing rule.
    pub fn route(&self, judgement: Judgement) -> Decision {
        let p_duplicate = judgement.p_duplicate;
        if judgement.spread > self.max_spread {
            Decision::Review
        } else if p_duplicate >= self.duplicate {
            Decision::Duplicate
        } else if p_duplicate <= self.distinct {
            Decision::Distinct
        } else {
            Decision::Review
        }
    }

    /// The widest thresholds whose automatic decisions reach the policy's
    /// precision on `scored` (judgement, label) pairs, among those the spread
    /// limit lets through. When no threshold reaches it, that side decides
    /// nothing (duplicate = 1.0 beyond any smoothed p; distinct = 0.0).
    ///
    /// For a calibrated p: it takes few values (cells), each already shrunk toward
    /// the training share where few pairs reached it, so a cut has few places to go.
    /// Its cut never falls below [`MIN_DUPLICATE_CONFIDENCE`].
    pub fn choose(scored: &[(Judgement, bool)], policy: &DecisionPolicy) -> Thresholds {
        Self::choose_counting(scored, policy, 0.0, MIN_DUPLICATE_CONFIDENCE)
    }

    /// [`Thresholds::choose`] for a p that no calibration smoothed, where each pair
    /// has its own value: among hundreds of places to cut, the deepest one whose
    /// running precision still reaches the target is where luck ran longest. Its
    /// running precision counts one right and one wrong decision more (Laplace's
    /// rule), so a side decides only on evidence: at target 0.98, 48 right decisions
    /// with no wrong one (Amazon-Google's mean of forest and reader, chosen without
    /// it on 17 right decisions, was 22 of 25 right on the valid split).
    ///
    /// Such a p is not a calibrated confidence, so [`MIN_DUPLICATE_CONFIDENCE`] does
    /// not hold it; the even cut does.
    pub fn choose_on_evidence(scored: &[(Judgement, bool)], policy: &DecisionPolicy) -> Thresholds {
        Self::choose_counting(scored, policy, 1.0, EVEN_CUT)
    }

    /// `unseen`: decisions of each outcome counted beyond those `scored` holds;
    /// `floor`: the p a duplicate decision needs at least (above it when even).
    fn choose_counting(
        scored: &[(Judgement, bool)],
        policy: &DecisionPolicy,
        unseen: f64,
        floor: f64,
    ) -> Thresholds {
        let target = policy.precision_target;
        let precise = |right: usize, total: usize| {
            right as f64 + unseen >= target * (total as f64 + 2.0 * unseen)
        };
        let by_p = by_p_within(scored, policy.max_spread);
        // A decision never goes against the confidence: whatever the running
        // precision, a pair more likely distinct is not called duplicate, nor the
        // reverse. (Without this floor, a few low-spread duplicates at p = 0.2 could
        // pull the duplicate cut down to them.) A calibrated p also needs `floor`.
        let duplicate = lowest_precise_cut(
            by_p.iter()
                .rev()
                .take_while(|&&(p, _)| p > EVEN_CUT && p >= floor)
                .copied(),
            precise,
        )
        .unwrap_or(1.0);
        // The distinct side is chosen among pairs below the duplicate threshold:
        // the two ranges never overlap.
        let below = by_p.iter().take_while(|&&(p, _)| p < duplicate.min(0.5));
        let distinct = lowest_precise_cut(below.map(|&(p, l)| (p, !l)), precise).unwrap_or(0.0);
        Thresholds {
            duplicate,
            distinct,
            max_spread: policy.max_spread,
            // Every pair is labelled, whatever its spread.
            f1_cut: best_f1_cut(&by_p_within(scored, f64::INFINITY)),
        }
    }
}

/// (p, label) of the pairs whose spread is at most `max_spread`, by ascending p.
fn by_p_within(scored: &[(Judgement, bool)], max_spread: f64) -> Vec<(f64, bool)> {
    let mut by_p: Vec<(f64, bool)> = scored
        .iter()
        .filter(|(j, _)| j.spread <= max_spread)
        .map(|&(j, label)| (j.p_duplicate, label))
        .collect();
    by_p.sort_by(|a, b| a.0.total_cmp(&b.0));
    by_p
}

/// The cut at which to label pairs of `by_p` (ascending p, label) for F1: half the
/// best F1 reachable on them, at most [`EVEN_CUT`]. F1 weighs a missed duplicate as
/// much as a wrong one, so where duplicates are few, labelling the pairs of p 0.3–0.5
/// duplicate finds more than it costs; for a calibrated p the best cut is half the
/// best F1 (Lipton et al. 2014). The best F1 is a sum over many pairs and holds on
/// others; the cut that reaches it on few pairs does not: chosen on one half of a
/// record benchmark's valid split and judged on the other (`lab/f1-cut-halves.py`),
/// half the best F1 is as good as the cut of best F1 or better on 13 of 14 benchmarks
/// (Walmart-Amazon 0.863 to 0.870, Abt-Buy 0.870 to 0.879) and 0.003 worse on one.
/// [`EVEN_CUT`] when no pair is a duplicate.
pub fn best_f1_cut(by_p: &[(f64, bool)]) -> f64 {
    let duplicates = by_p.iter().filter(|&&(_, l)| l).count();
    // Walking down from p 1: pairs at or above the cut labelled duplicate.
    let (mut tp, mut fp) = (0usize, 0usize);
    let mut best_f1 = 0.0f64;
    let mut ordered = by_p.iter().rev().peekable();
    while let Some(&(p, label)) = ordered.next() {
        if label {
            tp += 1;
        } else {
            fp += 1;
        }
        let group_ends = ordered.peek().is_none_or(|&&(next, _)| next != p);
        if group_ends && p > 0.0 {
            best_f1 = best_f1.max(2.0 * tp as f64 / (tp + fp + duplicates) as f64);
        }
    }
    if best_f1 > 0.0 {
        (best_f1 / 2.0).min(EVEN_CUT)
    } else {
        EVEN_CUT
    }
}

/// Walks pairs from the most to the least confident for one side and returns the
/// p of the last group at which the running (right, total) is still `precise`.
/// Groups of equal p (one cell) are taken whole: a threshold cannot split a cell.
fn lowest_precise_cut(
    ordered: impl Iterator<Item = (f64, bool)>,
    precise: impl Fn(usize, usize) -> bool,
) -> Option<f64> {
    let mut right = 0usize;
    let mut total = 0usize;
    let mut best = None;
    let mut ordered = ordered.peekable();
    while let Some((p, correct)) = ordered.next() {
        total += 1;
        right += usize::from(correct);
        let group_ends = ordered.peek().is_none_or(|&(next, _)| next != p);
        if group_ends && precise(right, total) {
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

    fn sure(scored: Vec<(f64, bool)>) -> Vec<(Judgement, bool)> {
        scored
            .into_iter()
            .map(|(p, l)| (Judgement::certain(p), l))
            .collect()
    }

    #[test]
    fn a_decision_never_goes_against_the_confidence() {
        // Confident duplicates at 0.95, a few duplicates at 0.2, distinct pairs at 0.1:
        // the running precision down to 0.2 is still 100 %, yet p = 0.2 says distinct.
        let mut scored = vec![(0.95, true); 100];
        scored.extend(vec![(0.2, true); 3]);
        scored.extend(vec![(0.1, false); 50]);
        let t = Thresholds::choose(&sure(scored), &policy(0.95));
        assert_eq!((t.duplicate, t.distinct), (0.95, 0.1));
    }

    #[test]
    fn thresholds_reach_the_target() {
        // p=0.9: 10 duplicates; p=0.87: 9 dup + 1 distinct; p=0.5: 5/5; p=0.1: 20 distinct
        let mut scored = vec![(0.9, true); 10];
        scored.extend(vec![(0.87, true); 9]);
        scored.push((0.87, false));
        scored.extend(vec![(0.5, true); 5]);
        scored.extend(vec![(0.5, false); 5]);
        scored.extend(vec![(0.1, false); 20]);
        let scored = sure(scored);
        let t = Thresholds::choose(&scored, &policy(0.95));
        // {>=0.9}: 10/10; {>=0.87}: 19/20 = 0.95 ok; {>=0.5}: 24/30 = 0.8 no -> 0.87
        assert_eq!(t.duplicate, 0.87);
        // {<=0.1}: 20/20; {<=0.5}: 25/30 no -> 0.1
        assert_eq!(t.distinct, 0.1);
        let strict = Thresholds::choose(&scored, &policy(0.999));
        assert_eq!(strict.duplicate, 0.9);
        assert_eq!(t.route(Judgement::certain(0.87)), Decision::Duplicate);
        assert_eq!(t.route(Judgement::certain(0.5)), Decision::Review);
        assert_eq!(t.route(Judgement::certain(0.1)), Decision::Distinct);
        let doubted = Judgement {
            p_duplicate: 0.9,
            spread: MAX_SPREAD + 0.01,
        };
        assert_eq!(t.route(doubted), Decision::Review, "the trees disagree");
    }

    #[test]
    fn a_mixed_cell_never_sets_the_duplicate_cut() {
        // As in the retrain of lab/RESULTS.md: a cell of p 0.75 holding 12 duplicates
        // and 5 distinct pairs, below a sure cell large enough that the running
        // precision still reaches 0.97 there (412 of 423).
        let mut scored = vec![(0.99, true); 400];
        scored.extend(vec![(0.99, false); 6]);
        scored.extend(vec![(0.75, true); 12]);
        scored.extend(vec![(0.75, false); 5]);
        scored.extend(vec![(0.05, false); 300]);
        let scored = sure(scored);
        assert_eq!(Thresholds::choose(&scored, &policy(0.97)).duplicate, 0.99);
        // A p no calibration made is held only by the even cut.
        assert_eq!(
            Thresholds::choose_on_evidence(&scored, &policy(0.97)).duplicate,
            0.75
        );
    }

    #[test]
    fn unreachable_target_decides_nothing() {
        let scored = sure(vec![(0.6, true), (0.6, false), (0.4, true), (0.4, false)]);
        let t = Thresholds::choose(&scored, &policy(0.98));
        assert_eq!((t.duplicate, t.distinct), (1.0, 0.0));
    }

    #[test]
    fn a_cut_on_evidence_needs_enough_right_decisions() {
        // Each pair its own p: 20 right duplicates, then a wrong one, then 60 right.
        let mut scored: Vec<(f64, bool)> =
            (0..20).map(|i| (0.99 - 0.001 * i as f64, true)).collect();
        scored.push((0.95, false));
        scored.extend((0..60).map(|i| (0.94 - 0.001 * i as f64, true)));
        scored.extend((0..100).map(|i| (0.01 + 0.001 * i as f64, false)));
        let scored = sure(scored);
        // Without counting unseen decisions, 20 of 20 already reach 0.98.
        assert!(Thresholds::choose(&scored, &policy(0.98)).duplicate < 0.95);
        // On evidence: 20 right is not enough for 0.98, nor 80 of 81 ((80+1)/(81+2) < 0.98),
        // but at target 0.95 it is.
        let strict = Thresholds::choose_on_evidence(&scored, &policy(0.98));
        assert_eq!(strict.duplicate, 1.0, "{strict:?}");
        let loose = Thresholds::choose_on_evidence(&scored, &policy(0.95));
        assert!((loose.duplicate - 0.881).abs() < 1e-9, "{loose:?}");
        // 100 right distinct decisions are evidence enough for 0.98.
        assert!((strict.distinct - 0.109).abs() < 1e-9, "{strict:?}");
        let few = sure((0..10).map(|i| (0.01 * i as f64, false)).collect());
        assert_eq!(
            Thresholds::choose_on_evidence(&few, &policy(0.98)).distinct,
            0.0
        );
    }

    #[test]
    fn the_f1_cut_is_half_the_best_f1() {
        // 10 % duplicates: 60 sure ones at 0.9, 27 more among 60 pairs at 0.45.
        let mut by_p: Vec<(f64, bool)> = vec![(0.9, true); 60];
        by_p.extend(vec![(0.45, true); 27]);
        by_p.extend(vec![(0.45, false); 33]);
        by_p.extend(vec![(0.05, false); 780]);
        by_p.sort_by(|a, b| a.0.total_cmp(&b.0));
        // At 0.5: 60 of 87 found, F1 0.816; at 0.45: 87 found, 33 wrong, F1 0.841.
        let best = 2.0 * 87.0 / (87.0 + 33.0 + 87.0);
        assert!((best_f1_cut(&by_p) - best / 2.0).abs() < 1e-12);
        // Pairs whose p is right: F1 1 is reachable, the even cut stays.
        let mut even: Vec<(f64, bool)> = vec![(0.1, false); 50];
        even.extend(vec![(0.45, true); 1]);
        even.extend(vec![(0.9, true); 50]);
        even.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert_eq!(best_f1_cut(&even), EVEN_CUT);
        assert_eq!(best_f1_cut(&[(0.2, false), (0.7, false)]), EVEN_CUT);
        let t = Thresholds::choose(&sure(by_p), &policy(0.95));
        assert!(t.f1_cut < 0.45, "the pairs at 0.45 are labelled duplicate");
        assert!(Thresholds { f1_cut: 0.6, ..t }.validate().is_err());
    }

    #[test]
    fn policies_are_checked() {
        assert!(DecisionPolicy::new(0.3).is_err());
        assert!(DecisionPolicy::new(1.01).is_err());
        assert_eq!(DecisionPolicy::new(0.95).unwrap().precision_target(), 0.95);
        assert!(DecisionPolicy::default().with_max_spread(0.0).is_err());
    }
}
