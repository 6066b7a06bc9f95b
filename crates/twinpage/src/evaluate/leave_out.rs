//! Leave-one-group-out: for each value K of a column (a kind of pair), train on
//! the pairs of every other value and measure on the pairs of K.
//!
//! A test split drawn by the same generator as the training pairs flatters a
//! model: it has seen every kind of pair, with every cue that comes with it.
//! Measured on a kind it never trained on, a model shows whether it judges the
//! content or has learned the cues of the kinds it saw.

use std::collections::BTreeSet;
use std::ops::Range;

use anyhow::{bail, Result};
use rayon::prelude::*;

use crate::model::train::{train, Trained};
use crate::model::{
    Confusion, Decision, DecisionPolicy, Judgement, LabelledPairs, Learner, Metrics, EVEN_CUT,
};
use crate::pipeline::{rendered_stage_decides, Guarded, Guards, Staged};

/// Labelled pairs with the group (column value) of each.
pub struct Grouped<'a> {
    pub pairs: &'a LabelledPairs,
    pub groups: &'a [String],
}

impl Grouped<'_> {
    /// The pairs whose group is not `group`: what a model that never saw it trains on.
    fn without(&self, group: &str) -> LabelledPairs {
        let mut out = LabelledPairs::default();
        for (i, g) in self.groups.iter().enumerate() {
            if g != group {
                out.push_from(self.pairs, i);
            }
        }
        out
    }
}

/// Where `group` is among `groups`.
fn members<'g>(groups: &'g [String], group: &'g str) -> impl Iterator<Item = usize> + 'g {
    (0..groups.len()).filter(move |&i| groups[i] == group)
}

/// One left-out group: how many pairs the model trained on without it, and its
/// figures on the group.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LeftOut {
    pub group: String,
    pub trained_on: usize,
    pub metrics: Metrics,
    /// Judging the cascade: which stage took the group's automatic decisions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stages: Option<StageTally>,
}

/// For every group of `measured`: a model trained (as `stage` says, with `seed`)
/// on the pairs of `training` outside that group, measured on the group's pairs
/// in `measured`, each decision as the pair's guards (`measured_guards`, in the
/// order of `measured`) leave it. Also returns the left-out figures pooled over all
/// groups.
pub fn leave_one_out(
    training: &Grouped,
    measured: &Grouped,
    measured_guards: &[Guards],
    stage: StageLearner,
    seed: u64,
) -> Result<(Vec<LeftOut>, Metrics)> {
    each_group(measured.groups, |group| {
        let rest = training.without(group);
        let trained = stage.train(&rest, seed)?;
        let inside: Vec<usize> = members(measured.groups, group).collect();
        let judgements: Vec<Judgement> = inside
            .par_iter()
            .map(|&i| trained.judge(&measured.pairs.vectors[i]))
            .collect();
        let mut confusion = Confusion::default();
        for (&i, judgement) in inside.iter().zip(judgements) {
            let guarded = measured_guards[i].judge(judgement, &trained.thresholds);
            confusion.add(
                measured.pairs.labels[i],
                guarded.judgement.p_duplicate,
                trained.thresholds.f1_cut,
                guarded.decision,
            );
        }
        Ok((rest.len(), confusion, None))
    })
}

/// How a model (one stage of the cascade) is trained.
pub struct StageLearner<'a> {
    pub learner: &'a dyn Learner,
    pub policy: &'a DecisionPolicy,
    /// Where its vectors hold the differing title words.
    pub words: Option<Range<usize>>,
}

impl StageLearner<'_> {
    fn train(&self, set: &LabelledPairs, seed: u64) -> Result<Trained> {
        train(set, self.words.clone(), self.learner, self.policy, seed)
    }
}

/// [`leave_one_out`] for the cascade that `twinpage score` runs by default: for
/// every group, a fetched-only model (`fetched`) and a fetched-and-rendered one
/// (`rendered`) trained without it; each of the group's pairs is screened, then
/// judged by the fetched-only model, and by the rendered one when the cascade's
/// rule ([`rendered_stage_decides`]) sends it on, as `score --render auto` would.
pub fn leave_one_out_cascade(
    training: &Staged,
    measured: &Staged,
    fetched: StageLearner,
    rendered: StageLearner,
    seed: u64,
) -> Result<(Vec<LeftOut>, Metrics)> {
    each_group(&measured.groups, |group| {
        let rest = |pairs| {
            Grouped {
                pairs,
                groups: &training.groups,
            }
            .without(group)
        };
        let first_set = rest(&training.fetched);
        let first = fetched.train(&first_set, seed)?;
        let second = rendered.train(&rest(&training.rendered), seed)?;
        let mut confusion = Confusion::default();
        let mut stages = StageTally::default();
        for i in members(&measured.groups, group) {
            let (stage, guarded, f1_cut) = cascade(&first, &second, measured, i);
            let label = measured.rendered.labels[i];
            let decision = guarded.decision;
            confusion.add(label, guarded.judgement.p_duplicate, f1_cut, decision);
            stages.add(stage, label, decision);
        }
        Ok((first_set.len(), confusion, Some(stages)))
    })
}

/// What the cascade of `first` (fetched-only) and `second` (fetched and rendered)
/// makes of pair `i` of `measured`: the stage that decided it, its judgement and
/// decision there as the guards leave them, and that stage's F1 cut.
fn cascade(
    first: &Trained,
    second: &Trained,
    measured: &Staged,
    i: usize,
) -> (Stage, Guarded, f64) {
    let guards = measured.guards[i];
    if measured.screened[i] {
        // Walls the fetched bodies show send the pair on; the rendered ones decide.
        let decision = match guards.fetched.route(Decision::Duplicate) {
            (Decision::Duplicate, None) => Decision::Duplicate,
            _ => guards.rendered.route(Decision::Duplicate).0,
        };
        let screen = Guarded {
            judgement: Judgement::certain(1.0),
            decision,
            guard: None,
        };
        return (Stage::Screen, screen, EVEN_CUT);
    }
    let fetched = guards
        .fetched
        .judge(first.judge(&measured.fetched.vectors[i]), &first.thresholds);
    if !rendered_stage_decides(fetched.decision, measured.evidence[i]) {
        return (Stage::Fetched, fetched, first.thresholds.f1_cut);
    }
    let rendered = guards.rendered.judge(
        second.judge(&measured.rendered.vectors[i]),
        &second.thresholds,
    );
    (Stage::Rendered, rendered, second.thresholds.f1_cut)
}

/// Runs `judge` on every group of `groups` (sorted) and pools the figures. Each
/// judgement returns the pairs trained on, the confusion on the group, and the
/// stages' tally when a cascade is judged.
fn each_group(
    groups: &[String],
    judge: impl Fn(&str) -> Result<(usize, Confusion, Option<StageTally>)>,
) -> Result<(Vec<LeftOut>, Metrics)> {
    let names: BTreeSet<&String> = groups.iter().collect();
    if names.is_empty() {
        bail!("no labelled pairs to measure on");
    }
    // Trainings run one after the other: each already uses every core.
    let mut pooled = Confusion::default();
    let mut left_out = Vec::new();
    for group in names {
        let (trained_on, confusion, stages) = judge(group)?;
        pooled.merge(&confusion);
        left_out.push(LeftOut {
            group: group.clone(),
            trained_on,
            metrics: confusion.metrics(),
            stages,
        });
    }
    Ok((left_out, pooled.metrics()))
}

/// The stage of the cascade that decided a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Byte-identical bodies, before any model.
    Screen,
    Fetched,
    Rendered,
}

/// Right and wrong automatic decisions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct RightWrong {
    pub right: usize,
    pub wrong: usize,
}

/// The automatic decisions each stage of the cascade took; pairs routed to review
/// count in none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct StageTally {
    pub screen: RightWrong,
    pub fetched: RightWrong,
    pub rendered: RightWrong,
}

impl StageTally {
    fn add(&mut self, stage: Stage, label: bool, decision: Decision) {
        if decision == Decision::Review {
            return;
        }
        let tally = match stage {
            Stage::Screen => &mut self.screen,
            Stage::Fetched => &mut self.fetched,
            Stage::Rendered => &mut self.rendered,
        };
        if (decision == Decision::Duplicate) == label {
            tally.right += 1;
        } else {
            tally.wrong += 1;
        }
    }

    /// The tallies of several groups, summed.
    pub fn sum<'a>(tallies: impl Iterator<Item = &'a StageTally>) -> StageTally {
        let mut total = StageTally::default();
        for t in tallies {
            for (mine, theirs) in [
                (&mut total.screen, t.screen),
                (&mut total.fetched, t.fetched),
                (&mut total.rendered, t.rendered),
            ] {
                mine.right += theirs.right;
                mine.wrong += theirs.wrong;
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TreeParams;
    use crate::pipeline::{FetchedEvidence, StageGuards};
    use twinpage_util::hash::mix64;

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
        let stage = StageLearner {
            learner: &learner,
            policy: &DecisionPolicy::default(),
            words: None,
        };
        let unguarded = vec![Guards::default(); groups.len()];
        let (left_out, pooled) = leave_one_out(&grouped, &grouped, &unguarded, stage, 7).unwrap();
        let names: Vec<&str> = left_out.iter().map(|l| l.group.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        for l in &left_out {
            assert_eq!(l.trained_on, 600, "{}: the other two kinds", l.group);
            assert_eq!(l.metrics.pairs, 300);
            assert!(l.metrics.accuracy > 0.99, "{}: {:?}", l.group, l.metrics);
        }
        assert_eq!(pooled.pairs, 900);
    }

    /// Kind `c`'s fetched bodies all look alike (shells) and its pages are shown
    /// by script; kind `b`'s duplicates are byte-identical.
    fn staged(c_shown_by_script: bool) -> Staged {
        let mut staged = Staged {
            fetched: LabelledPairs::default(),
            rendered: LabelledPairs::default(),
            groups: Vec::new(),
            screened: Vec::new(),
            evidence: Vec::new(),
            guards: Vec::new(),
        };
        for i in 0..900u64 {
            let kind = ["a", "b", "c"][(i % 3) as usize];
            let label = (i / 3) % 2 == 0;
            let noise = (mix64(i) % 100) as f64 / 1000.0;
            let content = |duplicate: bool| if duplicate { noise } else { 0.5 + noise };
            let document = |side: u8| {
                let mut hash = [side; 32];
                hash[..8].copy_from_slice(&i.to_le_bytes());
                hash
            };
            let documents = (document(0), document(1));
            let fetched = if kind == "c" {
                0.3 + noise
            } else {
                content(label)
            };
            staged.fetched.push(vec![fetched, noise], label, documents);
            staged
                .rendered
                .push(vec![content(label), noise], label, documents);
            staged.groups.push(kind.to_string());
            staged.screened.push(kind == "b" && label);
            staged.evidence.push(FetchedEvidence {
                shown_by_script: kind == "c" && c_shown_by_script,
                share_text: true,
                hidden_by_script: false,
            });
            staged.guards.push(StageGuards::default());
        }
        staged
    }

    /// A stage trained as the default forest is, with the default policy.
    fn default_stage<'a>(learner: &'a dyn Learner, policy: &'a DecisionPolicy) -> StageLearner<'a> {
        StageLearner {
            learner,
            policy,
            words: None,
        }
    }

    /// Each stage decides what the cascade's rule gives it: the screen the
    /// identical bodies, the rendered model the pages a script shows (which the
    /// fetched-only model, trained on other kinds, would get wrong), the
    /// fetched-only model the rest.
    #[test]
    fn the_cascade_is_judged_stage_by_stage() {
        let (learner, policy) = (
            TreeParams::default().check().unwrap(),
            DecisionPolicy::default(),
        );
        let stage = || default_stage(&learner, &policy);
        let data = staged(true);
        let (left_out, pooled) = leave_one_out_cascade(&data, &data, stage(), stage(), 7).unwrap();
        let tally = |group: &str| {
            let l = left_out.iter().find(|l| l.group == group).unwrap();
            assert_eq!(l.trained_on, 600);
            l.stages.unwrap()
        };
        let none = RightWrong::default();
        let (a, b, c) = (tally("a"), tally("b"), tally("c"));
        // Kind a goes on to the rendered model only where the fetched-only one,
        // unsure after training among kind c's shells, leaves it for review.
        assert!(
            a.fetched.right >= 140 && a.fetched.wrong + a.rendered.wrong == 0,
            "{a:?}"
        );
        assert_eq!(a.screen, none);
        assert_eq!(
            b.screen,
            RightWrong {
                right: 150,
                wrong: 0
            }
        );
        assert!(b.fetched.right >= 140 && b.fetched.wrong == 0, "{b:?}");
        assert!(c.rendered.right >= 290 && c.rendered.wrong == 0, "{c:?}");
        assert_eq!((c.screen, c.fetched), (none, none));
        assert_eq!(pooled.pairs, 900);
        assert!(pooled.accuracy > 0.99, "{pooled:?}");
        // Without the script flag, kind c stays with the fetched-only model, which
        // never saw a shell and calls them all the same.
        let (left_out, _) =
            leave_one_out_cascade(&data, &staged(false), stage(), stage(), 7).unwrap();
        let c = left_out[2].stages.unwrap();
        assert!(c.fetched.wrong >= 140 && c.rendered == none, "{c:?}");
    }

    /// A duplicate call on two pages that share no core is held for review by the
    /// guard at either stage, as `score` holds it: the left-out figures count it there,
    /// not as a decision. Kind `a`'s distinct pairs here read as duplicates (pages 1
    /// and 2 of one article to a model that never saw one) but share no core.
    #[test]
    fn the_guards_hold_the_left_out_duplicate_calls_as_score_does() {
        let (learner, policy) = (
            TreeParams::default().check().unwrap(),
            DecisionPolicy::default(),
        );
        let stage = || default_stage(&learner, &policy);
        let mut data = staged(true);
        let apart = Guards {
            cores_apart: true,
            ..Guards::default()
        };
        for i in 0..data.groups.len() {
            if data.groups[i] == "a" && !data.rendered.labels[i] {
                for pairs in [&mut data.fetched, &mut data.rendered] {
                    pairs.vectors[i][0] = pairs.vectors[i][1];
                }
                data.guards[i] = StageGuards {
                    fetched: apart,
                    rendered: apart,
                };
            }
        }
        // The fetched-only model, unable to tell kind c's shells apart, decides no
        // duplicate: it leaves a's distinct pairs open, and the guard decides them.
        let (left_out, _) = leave_one_out_cascade(&data, &data, stage(), stage(), 7).unwrap();
        let tally = left_out[0].stages.unwrap();
        let guarded = RightWrong {
            right: 150,
            wrong: 0,
        };
        assert_eq!(tally.fetched, guarded, "{tally:?}");
        assert_eq!(tally.rendered.wrong, 0, "{tally:?}");
        // The rendered model calls them duplicates: held for review.
        let guards: Vec<Guards> = data.guards.iter().map(|g| g.rendered).collect();
        let grouped = Grouped {
            pairs: &data.rendered,
            groups: &data.groups,
        };
        let (left_out, _) = leave_one_out(&grouped, &grouped, &guards, stage(), 7).unwrap();
        let confusion = &left_out[0].metrics.confusion;
        assert_eq!(confusion.distinct_as_duplicate, 0, "{confusion:?}");
        assert!(confusion.distinct_as_review >= 140, "{confusion:?}");
    }
}
