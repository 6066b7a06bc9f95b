//! Leave-one-group-out: for each value K of a column (a kind of pair), train on
//! the pairs of every other value and measure on the pairs of K.
//!
//! A test split drawn by the same generator as the training pairs flatters a
//! model: it has seen every kind of pair, with every cue that comes with it.
//! Measured on a kind it never trained on, a model shows whether it judges the
//! content or has learned the cues of the kinds it saw.

use std::collections::BTreeSet;

use anyhow::{bail, Result};
use rayon::prelude::*;

use crate::model::train::{train, Trained};
use crate::model::{Confusion, DecisionPolicy, LabelledPairs, Learner, Metrics};

/// Labelled pairs with the group (column value) of each.
pub struct Grouped<'a> {
    pub pairs: &'a LabelledPairs,
    pub groups: &'a [String],
}

impl Grouped<'_> {
    /// The pairs whose group is (`inside`) or is not `group`.
    fn select(&self, group: &str, inside: bool) -> LabelledPairs {
        let mut out = LabelledPairs::default();
        for (i, g) in self.groups.iter().enumerate() {
            if (g == group) == inside {
                out.push_from(self.pairs, i);
            }
        }
        out
    }
}

/// One left-out group: how many pairs the model trained on without it, and its
/// figures on the group.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LeftOut {
    pub group: String,
    pub trained_on: usize,
    pub metrics: Metrics,
}

/// For every group of `measured`: a model trained (by `learner`, `policy`, `seed`)
/// on the pairs of `training` outside that group, measured on the group's pairs
/// in `measured`. Also returns the left-out figures pooled over all groups.
pub fn leave_one_out(
    training: &Grouped,
    measured: &Grouped,
    learner: &dyn Learner,
    policy: &DecisionPolicy,
    seed: u64,
) -> Result<(Vec<LeftOut>, Metrics)> {
    let groups: BTreeSet<&String> = measured.groups.iter().collect();
    if groups.is_empty() {
        bail!("no labelled pairs to measure on");
    }
    // Trainings run one after the other: each already uses every core.
    let results: Vec<(LeftOut, Confusion)> = groups
        .into_iter()
        .map(|group| {
            let rest = training.select(group, false);
            let trained = train(&rest, learner, policy, seed)?;
            let confusion = measure(&trained, &measured.select(group, true));
            let left_out = LeftOut {
                group: group.clone(),
                trained_on: rest.len(),
                metrics: confusion.metrics(),
            };
            Ok((left_out, confusion))
        })
        .collect::<Result<_>>()?;
    let mut pooled = Confusion::default();
    for (_, c) in &results {
        pooled.merge(c);
    }
    Ok((
        results.into_iter().map(|(l, _)| l).collect(),
        pooled.metrics(),
    ))
}

/// A trained model's confusion on labelled pairs.
fn measure(trained: &Trained, pairs: &LabelledPairs) -> Confusion {
    let judgements: Vec<_> = pairs.vectors.par_iter().map(|x| trained.judge(x)).collect();
    let mut confusion = Confusion::default();
    for (judgement, &label) in judgements.into_iter().zip(&pairs.labels) {
        let decision = trained.thresholds.route(judgement);
        confusion.add(label, judgement.p_duplicate, decision);
    }
    confusion
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TreeParams;
    use crate::util::hash::mix64;

    /// Three kinds, each told apart by signal 0: every model is measured on
    /// the kind it did not train on, and still judges it right.
    #[test]
    fn each_group_is_measured_by_a_model_that_never_saw_it() {
        let mut set = LabelledPairs::default();
        let mut groups = Vec::new();
        for i in 0..900u64 {
            let kind = ["a", "b", "c"][(i % 3) as usize];
            let label = (i / 3) % 2 == 0;
            let noise = (mix64(i) % 100) as f64 / 1000.0;
            let content = if label { noise } else { 0.5 + noise };
            let document = |side: u8| {
                let mut hash = [side; 32];
                hash[..8].copy_from_slice(&i.to_le_bytes());
                hash
            };
            set.push(vec![content, noise], label, (document(0), document(1)));
            groups.push(kind.to_string());
        }
        let grouped = Grouped {
            pairs: &set,
            groups: &groups,
        };
        let learner = TreeParams::default().check().unwrap();
        let (left_out, pooled) =
            leave_one_out(&grouped, &grouped, &learner, &DecisionPolicy::default(), 7).unwrap();
        let names: Vec<&str> = left_out.iter().map(|l| l.group.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        for l in &left_out {
            assert_eq!(l.trained_on, 600, "{}: the other two kinds", l.group);
            assert_eq!(l.metrics.pairs, 300);
            assert!(l.metrics.accuracy > 0.99, "{}: {:?}", l.group, l.metrics);
        }
        assert_eq!(pooled.pairs, 900);
    }
}
