//! Everything a plot of a model's evaluation needs, computed once: the
//! precision–recall and ROC curves, the reliability bins, the trade-off between
//! the precision of automatic decisions and the share sent to review as the
//! precision target moves, the worst mistakes, and what the model itself says
//! of its signals (importance, most used splits). `evaluate --json` prints it and
//! `report` draws it.

use std::collections::BTreeMap;

use anyhow::{bail, Result};
use serde::Serialize;

use crate::model::estimator::Estimator;
use crate::model::metrics::BINS;
use crate::model::tree::Node;
use crate::model::{Decision, DecisionPolicy, Judgement, Metrics, Model, Thresholds};
use crate::pipeline::{Batch, Outcome};

use super::grouped::{self, Grouped};

/// One labelled pair as the model judged it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    pub p_duplicate: f64,
    pub spread: f64,
    pub decision: Decision,
    /// Decided before the model (identical bodies): no threshold moves it.
    pub screened: bool,
    pub label: bool,
}

/// A point of the precision–recall and ROC curves: the pairs with
/// `p_duplicate ≥ threshold` called duplicate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CurvePoint {
    pub threshold: f64,
    pub precision: f64,
    pub recall: f64,
    /// False positive rate (the ROC's x; recall is its y).
    pub false_positive_rate: f64,
}

/// The curves of a confidence against labels.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Curves {
    /// From the highest threshold (few pairs called duplicate) to the lowest.
    pub points: Vec<CurvePoint>,
    /// Area under the ROC curve (trapezoids).
    pub roc_auc: f64,
    /// Average precision: the precision at each threshold weighted by the recall it adds.
    pub average_precision: f64,
}

/// One bin of the reliability diagram: pairs with `p_duplicate` in `[lower, upper)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ReliabilityBin {
    pub lower: f64,
    pub upper: f64,
    pub pairs: usize,
    /// Mean `p_duplicate` of its pairs; `None` for an empty bin.
    pub predicted_mean: Option<f64>,
    /// Share of duplicates among its pairs; `None` for an empty bin.
    pub observed_share: Option<f64>,
}

/// The model's decisions had it been trained with another precision target.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TradeOffPoint {
    pub precision_target: f64,
    pub duplicate_threshold: f64,
    pub distinct_threshold: f64,
    /// Share of automatic decisions (either way) that are right; `None` when
    /// every pair went to review.
    pub automatic_precision: Option<f64>,
    pub review_share: f64,
}

/// A pair the model got wrong.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mistake {
    /// `file:line`.
    pub location: String,
    pub file: String,
    /// 1 = the file's first data row (what `explain --row` takes).
    pub row: usize,
    pub label: bool,
    pub p_duplicate: f64,
    pub spread: f64,
    pub decision: Decision,
    /// The value of the `--by` column, if any.
    pub group: Option<String>,
    /// Wrong automatic decision (else: routed to review, on the wrong side of 0.5).
    pub automatic: bool,
}

/// How often the estimator tests a signal.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SplitUse {
    pub signal: String,
    /// Splits on it over all trees.
    pub splits: usize,
    /// Of them, at a tree's root.
    pub at_root: usize,
    /// Of them, within the first three levels.
    pub near_root: usize,
    /// Σ 2^-depth over its splits: a split near the root decides for more pairs.
    pub weight: f64,
    /// Median threshold of its splits.
    pub median_threshold: f64,
}

/// The first levels of a tree, for drawing.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TreeNode {
    Split {
        signal: String,
        threshold: f64,
        /// `value < threshold`.
        left: Box<TreeNode>,
        right: Box<TreeNode>,
    },
    Leaf {
        cell: usize,
    },
    /// Deeper levels, not drawn.
    More {
        splits: usize,
    },
}

/// The figures per value of a column.
#[derive(Debug, Clone, Serialize)]
pub struct ByColumn {
    pub column: String,
    pub groups: BTreeMap<String, Metrics>,
}

/// Every figure of one model on one set of labelled pairs.
#[derive(Debug, Clone, Serialize)]
pub struct Figures {
    pub model: String,
    pub estimator: String,
    pub precision_target: f64,
    pub thresholds: Thresholds,
    pub overall: Metrics,
    /// `--by COLUMN`: the column and its per-value figures.
    pub by: Option<ByColumn>,
    pub curves: Curves,
    /// The model's two thresholds on the curves.
    pub at_duplicate_threshold: CurvePoint,
    pub at_distinct_threshold: CurvePoint,
    pub reliability: Vec<ReliabilityBin>,
    pub trade_off: Vec<TradeOffPoint>,
    /// The same with no spread limit: what the precision target alone does.
    pub trade_off_without_spread_limit: Vec<TradeOffPoint>,
    /// Most confident first.
    pub mistakes: Vec<Mistake>,
    pub importance: Vec<crate::model::SignalImportance>,
    pub splits: Vec<SplitUse>,
    /// A single tree's first levels (not drawn for a forest: see `splits`).
    pub tree: Option<TreeNode>,
}

/// Mistakes kept in [`Figures`].
pub const MISTAKES: usize = 20;
/// Levels of splits of a single tree kept for drawing.
pub const TREE_LEVELS: usize = 3;

impl Figures {
    /// The figures of `model` on a scored batch (`outcomes` in [`Batch::pairs`] order).
    pub fn of(
        model: &Model,
        batch: &Batch,
        outcomes: &[Option<Outcome>],
        by: Option<&str>,
    ) -> Result<Figures> {
        let Grouped { overall, groups } = grouped::by_column(batch, outcomes, by)?;
        let values = by.map(|name| batch.column(name)).transpose()?;
        let mut scored = Vec::new();
        let mut mistakes = Vec::new();
        let mut index = 0;
        for file in &batch.files {
            for (row, pair) in file.pairs.iter().enumerate() {
                let outcome = &outcomes[index];
                let group = values.as_ref().map(|v| v[index].clone());
                index += 1;
                let Some(o) = outcome else { continue };
                let Some(label) = pair.label else {
                    bail!("{}: no label", pair.location());
                };
                let s = Scored {
                    p_duplicate: o.p_duplicate,
                    spread: o.spread,
                    decision: o.decision,
                    screened: o.vector.is_none(),
                    label,
                };
                scored.push(s);
                if let Some(automatic) = wrong(&s) {
                    mistakes.push(Mistake {
                        location: pair.location(),
                        file: file.path.display().to_string(),
                        row: row + 1,
                        label,
                        p_duplicate: o.p_duplicate,
                        spread: o.spread,
                        decision: o.decision,
                        group,
                        automatic,
                    });
                }
            }
        }
        // Wrong automatic decisions first, then the most confidently wrong.
        let off = |m: &Mistake| (f64::from(u8::from(m.label)) - m.p_duplicate).abs();
        mistakes.sort_by(|a, b| {
            b.automatic
                .cmp(&a.automatic)
                .then(off(b).total_cmp(&off(a)))
        });
        mistakes.truncate(MISTAKES);
        let curves = curves(&scored);
        let feature_names = model.feature_names();
        Ok(Figures {
            model: model.id.clone(),
            estimator: model.estimator.kind().to_string(),
            precision_target: model.policy.precision_target(),
            thresholds: model.thresholds,
            by: by.map(|column| ByColumn {
                column: column.to_string(),
                groups,
            }),
            at_duplicate_threshold: operating_point(&scored, model.thresholds.duplicate, false),
            at_distinct_threshold: operating_point(&scored, model.thresholds.distinct, true),
            curves,
            reliability: reliability(&overall),
            trade_off: trade_off(&scored, model.thresholds.max_spread),
            trade_off_without_spread_limit: trade_off(&scored, 1.0),
            overall,
            mistakes,
            importance: model.importance.clone(),
            splits: split_uses(model.estimator.as_ref(), &feature_names),
            tree: tree_levels(model.estimator.as_ref(), &feature_names, TREE_LEVELS),
        })
    }
}

/// `Some(automatic)` when the pair is a mistake: a wrong automatic decision
/// (`true`), or a pair routed to review whose confidence leans the wrong way.
fn wrong(s: &Scored) -> Option<bool> {
    match (s.decision, s.label) {
        (Decision::Duplicate, false) | (Decision::Distinct, true) => Some(true),
        (Decision::Review, label) if (s.p_duplicate >= 0.5) != label => Some(false),
        _ => None,
    }
}

/// Precision, recall and false positive rate with the pairs at `p ≥ threshold`
/// (`p > threshold` when `strict`) called duplicate.
pub fn operating_point(scored: &[Scored], threshold: f64, strict: bool) -> CurvePoint {
    let (mut tp, mut fp) = (0usize, 0usize);
    for s in scored {
        let called = if strict {
            s.p_duplicate > threshold
        } else {
            s.p_duplicate >= threshold
        };
        if called {
            if s.label {
                tp += 1;
            } else {
                fp += 1;
            }
        }
    }
    let positives = scored.iter().filter(|s| s.label).count();
    point(threshold, tp, fp, positives, scored.len() - positives)
}

fn point(threshold: f64, tp: usize, fp: usize, positives: usize, negatives: usize) -> CurvePoint {
    let div = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    CurvePoint {
        threshold,
        // No pair called duplicate: precision 1 by convention (the curve's start).
        precision: if tp + fp == 0 { 1.0 } else { div(tp, tp + fp) },
        recall: div(tp, positives),
        false_positive_rate: div(fp, negatives),
    }
}

/// The precision–recall and ROC curves: one point per distinct confidence, from
/// the highest down, after a first point where nothing is called duplicate.
pub fn curves(scored: &[Scored]) -> Curves {
    let mut by_p: Vec<(f64, bool)> = scored.iter().map(|s| (s.p_duplicate, s.label)).collect();
    by_p.sort_by(|a, b| b.0.total_cmp(&a.0));
    let positives = by_p.iter().filter(|(_, l)| *l).count();
    let negatives = by_p.len() - positives;
    let mut points = vec![point(f64::INFINITY, 0, 0, positives, negatives)];
    let (mut tp, mut fp) = (0, 0);
    let mut i = 0;
    while i < by_p.len() {
        let p = by_p[i].0;
        while i < by_p.len() && by_p[i].0 == p {
            if by_p[i].1 {
                tp += 1;
            } else {
                fp += 1;
            }
            i += 1;
        }
        points.push(point(p, tp, fp, positives, negatives));
    }
    let mut roc_auc = 0.0;
    let mut average_precision = 0.0;
    for w in points.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        roc_auc += (b.false_positive_rate - a.false_positive_rate) * (a.recall + b.recall) / 2.0;
        average_precision += (b.recall - a.recall) * b.precision;
    }
    // The first point's threshold is infinite: JSON has no such number.
    points[0].threshold = 1.0 + f64::EPSILON.max(1e-9);
    Curves {
        points,
        roc_auc,
        average_precision,
    }
}

/// The ten bins of the reliability diagram, from the counts `metrics` keeps.
pub fn reliability(metrics: &Metrics) -> Vec<ReliabilityBin> {
    metrics
        .confusion
        .bins
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let share = |x: f64| (b.pairs > 0).then(|| x / b.pairs as f64);
            ReliabilityBin {
                lower: i as f64 / BINS as f64,
                upper: (i + 1) as f64 / BINS as f64,
                pairs: b.pairs,
                predicted_mean: share(b.p_sum),
                observed_share: share(b.duplicates as f64),
            }
        })
        .collect()
}

/// Precision targets of the trade-off curve: 0.80 to 1 by 0.005.
pub fn targets() -> impl Iterator<Item = f64> {
    (0..=40).map(|i| 0.8 + f64::from(i) * 0.005)
}

/// For each precision target, the thresholds training's rule
/// ([`Thresholds::choose`], with the spread limit `max_spread`: the model's, or
/// 1 for none) picks on these very pairs, and what the pairs get with them: the precision of the automatic
/// decisions and the share sent to review. The model's own thresholds were
/// chosen on its calibration pairs, so it sits near, not on, this curve; a pair
/// the screen decided (identical bodies) keeps its decision whatever the target.
pub fn trade_off(scored: &[Scored], max_spread: f64) -> Vec<TradeOffPoint> {
    let judged: Vec<(Judgement, bool)> = scored
        .iter()
        .filter(|s| !s.screened)
        .map(|s| {
            let j = Judgement {
                p_duplicate: s.p_duplicate,
                spread: s.spread,
            };
            (j, s.label)
        })
        .collect();
    targets()
        .filter_map(|target| {
            let policy = DecisionPolicy::new(target)
                .and_then(|p| p.with_max_spread(max_spread))
                .ok()?;
            let thresholds = Thresholds::choose(&judged, &policy);
            let (mut right, mut decided) = (0usize, 0usize);
            for s in scored {
                let decision = if s.screened {
                    s.decision
                } else {
                    thresholds.route(Judgement {
                        p_duplicate: s.p_duplicate,
                        spread: s.spread,
                    })
                };
                if decision != Decision::Review {
                    decided += 1;
                    right += usize::from((decision == Decision::Duplicate) == s.label);
                }
            }
            Some(TradeOffPoint {
                precision_target: target,
                duplicate_threshold: thresholds.duplicate,
                distinct_threshold: thresholds.distinct,
                automatic_precision: (decided > 0).then(|| right as f64 / decided as f64),
                review_share: if scored.is_empty() {
                    0.0
                } else {
                    (scored.len() - decided) as f64 / scored.len() as f64
                },
            })
        })
        .collect()
}

/// A split node's (signal, threshold, left, right), if it is a well-formed split
/// (its children come after it, as every tree built here and every model file
/// that validates has them).
fn split(nodes: &[Node], i: usize) -> Option<(usize, f64, usize, usize)> {
    match *nodes.get(i)? {
        Node::Split {
            signal,
            threshold,
            left,
            right,
        } if left > i && right > i && left < nodes.len() && right < nodes.len() => {
            Some((signal, threshold, left, right))
        }
        _ => None,
    }
}

/// How often each signal is tested, over every tree of the estimator; the most
/// weighty first.
pub fn split_uses(estimator: &dyn Estimator, signals: &[String]) -> Vec<SplitUse> {
    let mut uses: BTreeMap<usize, (SplitUse, Vec<f64>)> = BTreeMap::new();
    for tree in estimator.trees() {
        let mut stack = vec![(0usize, 0usize)];
        while let Some((i, depth)) = stack.pop() {
            let Some((signal, threshold, left, right)) = split(&tree.nodes, i) else {
                continue;
            };
            let Some(name) = signals.get(signal) else {
                continue;
            };
            let (u, thresholds) = uses.entry(signal).or_insert_with(|| {
                (
                    SplitUse {
                        signal: name.clone(),
                        splits: 0,
                        at_root: 0,
                        near_root: 0,
                        weight: 0.0,
                        median_threshold: 0.0,
                    },
                    Vec::new(),
                )
            });
            u.splits += 1;
            u.at_root += usize::from(depth == 0);
            u.near_root += usize::from(depth < 3);
            u.weight += 0.5f64.powi(depth as i32);
            thresholds.push(threshold);
            stack.push((left, depth + 1));
            stack.push((right, depth + 1));
        }
    }
    let mut out: Vec<SplitUse> = uses
        .into_values()
        .map(|(mut u, mut t)| {
            t.sort_by(f64::total_cmp);
            u.median_threshold = t[t.len() / 2];
            u
        })
        .collect();
    out.sort_by(|a, b| b.weight.total_cmp(&a.weight));
    out
}

/// The first `levels` levels of an estimator that is a single tree; `None` for an
/// ensemble, whose splits [`split_uses`] counts instead.
pub fn tree_levels(
    estimator: &dyn Estimator,
    signals: &[String],
    levels: usize,
) -> Option<TreeNode> {
    let [tree] = estimator.trees()[..] else {
        return None;
    };
    fn walk(nodes: &[Node], signals: &[String], i: usize, level: usize, levels: usize) -> TreeNode {
        match split(nodes, i) {
            Some(_) if level == levels => TreeNode::More {
                splits: count_splits(nodes, i),
            },
            Some((signal, threshold, left, right)) => TreeNode::Split {
                signal: signals.get(signal).cloned().unwrap_or_default(),
                threshold,
                left: Box::new(walk(nodes, signals, left, level + 1, levels)),
                right: Box::new(walk(nodes, signals, right, level + 1, levels)),
            },
            None => TreeNode::Leaf {
                cell: match nodes[i] {
                    Node::Leaf { leaf } => leaf,
                    Node::Split { .. } => 0,
                },
            },
        }
    }
    (!tree.nodes.is_empty()).then(|| walk(&tree.nodes, signals, 0, 0, levels))
}

/// Splits in the subtree under node `i`.
fn count_splits(nodes: &[Node], i: usize) -> usize {
    let mut count = 0;
    let mut stack = vec![i];
    while let Some(i) = stack.pop() {
        if let Some((_, _, left, right)) = split(nodes, i) {
            count += 1;
            stack.extend([left, right]);
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::forest::Forest;
    use crate::model::tree::Tree;
    use crate::model::ForestParams;

    fn s(p: f64, label: bool) -> Scored {
        Scored {
            p_duplicate: p,
            spread: 0.0,
            decision: Decision::Review,
            screened: false,
            label,
        }
    }

    #[test]
    fn curves_by_hand() {
        // p: 0.9 dup, 0.8 distinct, 0.6 dup, 0.6 distinct, 0.2 dup, 0.1 distinct.
        let scored = [
            s(0.9, true),
            s(0.8, false),
            s(0.6, true),
            s(0.6, false),
            s(0.2, true),
            s(0.1, false),
        ];
        let c = curves(&scored);
        let pr: Vec<(f64, f64)> = c.points.iter().map(|p| (p.precision, p.recall)).collect();
        // Ties at 0.6 are one point.
        assert_eq!(c.points.len(), 6);
        assert_eq!(pr[0], (1.0, 0.0));
        assert_eq!(pr[1], (1.0, 1.0 / 3.0));
        assert_eq!(pr[2], (0.5, 1.0 / 3.0));
        assert_eq!(pr[3], (0.5, 2.0 / 3.0));
        assert_eq!(pr[5], (0.5, 1.0));
        // ROC: (0,0) (0,1/3) (1/3,1/3) (2/3,2/3) (2/3,1) (1,1):
        // trapezoids 0 + 1/9 + 1/6 + 0 + 1/3 = 11/18.
        assert!((c.roc_auc - 11.0 / 18.0).abs() < 1e-12);
        // AP: 1/3·1 + 1/3·0.5 + 1/3·0.6 = 0.7.
        assert!((c.average_precision - 0.7).abs() < 1e-12);
        assert!(c.points[0].threshold.is_finite());
        let at = operating_point(&scored, 0.6, false);
        assert_eq!((at.precision, at.recall), (0.5, 2.0 / 3.0));
        let strict = operating_point(&scored, 0.6, true);
        assert_eq!((strict.precision, strict.recall), (0.5, 1.0 / 3.0));
    }

    #[test]
    fn a_stricter_target_sends_more_to_review() {
        // 20 duplicates at 0.9 with one distinct among them, 20 distinct at 0.1, 4 pairs at 0.5.
        let mut scored: Vec<Scored> = (0..20).map(|_| s(0.9, true)).collect();
        scored.push(s(0.9, false));
        scored.extend((0..20).map(|_| s(0.1, false)));
        scored.extend([s(0.5, true), s(0.5, false), s(0.5, true), s(0.5, false)]);
        let points = trade_off(&scored, 0.3);
        assert_eq!(points.len(), 41);
        let at = |t: f64| {
            *points
                .iter()
                .find(|p| (p.precision_target - t).abs() < 1e-9)
                .unwrap()
        };
        // 0.90: both sides decide (20/21 = 0.952 on the duplicate side), only the 0.5s wait.
        let loose = at(0.9);
        assert_eq!(
            (loose.duplicate_threshold, loose.distinct_threshold),
            (0.9, 0.1)
        );
        assert!((loose.review_share - 4.0 / 45.0).abs() < 1e-12);
        assert!((loose.automatic_precision.unwrap() - 40.0 / 41.0).abs() < 1e-12);
        // 0.96: the duplicate side can no longer decide.
        let strict = at(0.96);
        assert_eq!(strict.duplicate_threshold, 1.0);
        assert!((strict.review_share - 25.0 / 45.0).abs() < 1e-12);
        assert_eq!(strict.automatic_precision, Some(1.0));
        // A pair the trees disagree on goes to review under the limit, not without it.
        let mut doubted = scored.clone();
        doubted[0].spread = 0.4;
        let limited = trade_off(&doubted, 0.3)[20];
        let free = trade_off(&doubted, 1.0)[20];
        assert!((limited.review_share - free.review_share - 1.0 / 45.0).abs() < 1e-12);
    }

    #[test]
    fn mistakes_are_wrong_decisions_or_leanings() {
        let mut d = s(0.95, false);
        d.decision = Decision::Duplicate;
        assert_eq!(wrong(&d), Some(true));
        assert_eq!(wrong(&s(0.7, false)), Some(false));
        assert_eq!(wrong(&s(0.7, true)), None);
        let mut right = s(0.05, false);
        right.decision = Decision::Distinct;
        assert_eq!(wrong(&right), None);
    }

    #[test]
    fn splits_and_levels_of_a_small_tree() {
        let split = |signal, threshold, left, right| Node::Split {
            signal,
            threshold,
            left,
            right,
        };
        let leaf = |leaf| Node::Leaf { leaf };
        let tree = Tree {
            nodes: vec![
                split(1, 0.5, 1, 2),
                leaf(0),
                split(0, 3.0, 3, 4),
                leaf(1),
                leaf(2),
            ],
            ..Tree::default()
        };
        let names = vec!["a".to_string(), "b".to_string()];
        let uses = split_uses(&tree, &names);
        assert_eq!(uses[0].signal, "b");
        assert_eq!((uses[0].at_root, uses[0].weight), (1, 1.0));
        assert_eq!((uses[1].signal.as_str(), uses[1].weight), ("a", 0.5));
        let forest = Forest {
            params: ForestParams::default(),
            trees: vec![tree.clone(), tree.clone()],
            shares: vec![vec![0.0; 3]; 2],
            node_counts: Vec::new(),
        };
        assert_eq!(split_uses(&forest, &names)[0].splits, 2);
        assert_eq!(
            tree_levels(&forest, &names, 1),
            None,
            "a forest is not drawn"
        );
        match tree_levels(&tree, &names, 1).unwrap() {
            TreeNode::Split { left, right, .. } => {
                assert_eq!(*left, TreeNode::Leaf { cell: 0 });
                assert_eq!(*right, TreeNode::More { splits: 1 });
            }
            other => panic!("{other:?}"),
        }
    }
}
