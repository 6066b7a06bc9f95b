//! Retraining with the reviewers' labels (the end of step 8 of the method): the next model is
//! trained on the original labelled pairs plus the settled labels of the review
//! queue, and judged against its parent on one frozen evaluation set that neither
//! trained on.
//!
//! The frozen set is either the parent's own held-out evaluation part (the same
//! pairs, split the same way: this needs the very training data the parent was
//! trained on, which the data fingerprint checks) or labelled pairs the caller
//! gives. Reviewed pairs that share a document with a frozen pair are left out
//! of training, so nothing the evaluation sees leaks into the new model.
//!
//! A parent fitted on every pair (`train --every-pair`) learnt from its held-out
//! part too: it is judged by the figures its sibling got there, and the new model,
//! once judged without the part, is fitted again with it, as `train` did.

use std::collections::HashSet;

use anyhow::{bail, Result};

use crate::store::SettledLabel;
use twinpage::model::train::{
    groups_by_shared_document, part_of, train_on_parts, Holdout, Part, Trained,
};
use twinpage::model::{Confusion, LabelledPairs, Metrics, Missing, Model, TrainingInfo};
use twinpage::util::hash::mix64;

/// The reviewed pairs whose signals are the model's (others were scored by a
/// model of another layout and cannot join), with how many were not.
pub fn reviewed_pairs(reviewed: &[SettledLabel], signals: &[String]) -> (LabelledPairs, usize) {
    let mut out = LabelledPairs::default();
    let mut other_layout = 0;
    for label in reviewed {
        let ends = (parse_hash(&label.doc_a), parse_hash(&label.doc_b));
        match ends {
            (Some(a), Some(b)) if label.signal_names == signals => {
                out.push(label.signals.clone(), label.duplicate, (a, b))
            }
            _ => other_layout += 1,
        }
    }
    (out, other_layout)
}

fn parse_hash(hex: &str) -> Option<[u8; 32]> {
    blake3::Hash::from_hex(hex).ok().map(|h| *h.as_bytes())
}

/// Which pairs judge the old and the new model.
#[derive(Clone)]
pub enum Frozen {
    /// The parent's held-out evaluation part of the original pairs; the original
    /// pairs must be the parent's training data (same fingerprint).
    ParentHeldOut { fingerprint: String },
    /// Labelled pairs neither model trained on.
    Pairs(LabelledPairs),
}

/// A retrained model and how it compares with its parent.
pub struct Retrained {
    pub model: Model,
    /// Both models on the frozen set.
    pub parent_metrics: Metrics,
    pub metrics: Metrics,
    /// Reviewed labels used, and left out because they share a document with
    /// the frozen set.
    pub reviewed_used: usize,
    pub reviewed_overlapping: usize,
}

impl Retrained {
    /// At least as good as the parent on the frozen set: F1 (each model at its
    /// F1 cut) no lower.
    pub fn at_least_as_good(&self) -> bool {
        self.metrics.f1 >= self.parent_metrics.f1
    }
}

/// Trains `parent`'s successor on `original` plus `reviewed`, with `parent`'s
/// kind of estimator, parameters and policy and `seed`, and measures both on `frozen`.
pub fn retrain(
    parent: &Model,
    original: &LabelledPairs,
    reviewed: &LabelledPairs,
    frozen: Frozen,
    seed: u64,
) -> Result<Retrained> {
    let mut set = LabelledPairs::default();
    let mut parts = Vec::new();
    let original_groups = groups_by_shared_document(&original.documents);
    // The groups of the parent's held-out pairs, to fit on them at the end.
    let mut held_out_groups = Vec::new();
    let frozen_pairs = match &frozen {
        Frozen::ParentHeldOut { fingerprint } => {
            if *fingerprint != parent.training.fingerprint {
                bail!(
                    "these training pairs are not the ones model {} was trained on (fingerprint {} vs {}), so its held-out part is not known; give the same --pairs it was trained on ({}), or a frozen evaluation set with --eval",
                    parent.id,
                    short(fingerprint),
                    short(&parent.training.fingerprint),
                    parent.training.files.join(", ")
                );
            }
            // The parent's own split: the same groups and seed give the same parts.
            let mut held_out = LabelledPairs::default();
            for (i, &group) in original_groups.iter().enumerate() {
                match part_of(group, parent.seed, Holdout::Evaluation) {
                    Part::Evaluation => {
                        held_out.push_from(original, i);
                        held_out_groups.push(group);
                    }
                    _ => add(&mut set, &mut parts, original, i, group, seed),
                }
            }
            held_out
        }
        Frozen::Pairs(pairs) => {
            for (i, &group) in original_groups.iter().enumerate() {
                add(&mut set, &mut parts, original, i, group, seed);
            }
            pairs.clone()
        }
    };
    if frozen_pairs.is_empty() {
        bail!("the frozen evaluation set has no pairs, so the new model cannot be judged against model {}; give labelled pairs with --eval", parent.id);
    }
    let frozen_documents: HashSet<[u8; 32]> = frozen_pairs
        .documents
        .iter()
        .flat_map(|&(a, b)| [a, b])
        .collect();
    let reviewed_groups = groups_by_shared_document(&reviewed.documents);
    let mut reviewed_used = 0;
    for (i, &group) in reviewed_groups.iter().enumerate() {
        let (a, b) = reviewed.documents[i];
        if frozen_documents.contains(&a) || frozen_documents.contains(&b) {
            continue;
        }
        // Reviewed groups must not collide with original ones by number.
        add(
            &mut set,
            &mut parts,
            reviewed,
            i,
            mix64(group ^ 0x5e71_e3ed),
            seed,
        );
        reviewed_used += 1;
    }
    for i in 0..frozen_pairs.len() {
        set.push_from(&frozen_pairs, i);
        parts.push(Part::Evaluation);
    }
    let learner = parent.estimator.learner()?;
    let words = parent.word_slots();
    let judged = train_on_parts(
        &set,
        words.clone(),
        &parts,
        learner.as_ref(),
        &parent.policy,
        seed,
    )?;
    let parent_metrics = match frozen {
        // The parent learnt from these pairs: its sibling's figures on them stand in.
        Frozen::ParentHeldOut { .. } if parent.training.fitted_on_every_pair => parent.heldout,
        _ => measure(parent, &frozen_pairs),
    };
    // A parent fitted on every pair: its held-out pairs (the last ones of `set`)
    // join the fitting and calibration parts. A frozen set given apart stays apart.
    let refit = parent.training.fitted_on_every_pair && !held_out_groups.is_empty();
    let trained_on = if refit {
        set.len()
    } else {
        set.len() - frozen_pairs.len()
    };
    let kept = if refit {
        let every_part: Vec<Part> = parts[..set.len() - frozen_pairs.len()]
            .iter()
            .copied()
            .chain(
                held_out_groups
                    .iter()
                    .map(|&g| part_of(g, seed, Holdout::Frozen)),
            )
            .collect();
        train_on_parts(
            &set,
            words,
            &every_part,
            learner.as_ref(),
            &parent.policy,
            seed,
        )?
    } else {
        judged.clone()
    };
    let trained = Trained {
        heldout: judged.heldout,
        evaluation_pairs: judged.evaluation_pairs,
        importance: judged.importance,
        fitted_on_every_pair: refit || held_out_groups.is_empty(),
        ..kept
    };
    let mut fingerprint = blake3::Hasher::new();
    fingerprint.update(parent.training.fingerprint.as_bytes());
    for (i, (a, b)) in reviewed.documents.iter().enumerate() {
        fingerprint
            .update(a)
            .update(b)
            .update(&[u8::from(reviewed.labels[i])]);
    }
    let training = TrainingInfo {
        files: parent.training.files.clone(),
        pairs: trained_on,
        duplicates: set.labels[..trained_on].iter().filter(|&&l| l).count(),
        fingerprint: fingerprint.finalize().to_hex().to_string(),
        reviewed_labels: reviewed_used,
        missing: Some(Missing::of(
            &parent.signals,
            set.vectors[..trained_on].iter().map(Vec::as_slice),
        )),
        ..TrainingInfo::default()
    };
    let model = Model::new(
        parent.signals.clone(),
        parent.policy,
        seed,
        training,
        trained,
        Some(parent.id.clone()),
    );
    Ok(Retrained {
        metrics: model.heldout,
        model,
        parent_metrics,
        reviewed_used,
        reviewed_overlapping: reviewed.labels.len() - reviewed_used,
    })
}

/// Adds pair `i` of `from` to the fitting or calibration part, as training's rule
/// splits them when the evaluation pairs are kept apart.
fn add(
    set: &mut LabelledPairs,
    parts: &mut Vec<Part>,
    from: &LabelledPairs,
    i: usize,
    group: u64,
    seed: u64,
) {
    set.push_from(from, i);
    parts.push(part_of(group, seed, Holdout::Frozen));
}

/// A model's figures on labelled pairs.
pub fn measure(model: &Model, pairs: &LabelledPairs) -> Metrics {
    let mut confusion = Confusion::default();
    for (vector, &label) in pairs.vectors.iter().zip(&pairs.labels) {
        let judgement = model.judge(vector);
        confusion.add(
            label,
            judgement.p_duplicate,
            model.thresholds.f1_cut,
            model.decide(judgement),
        );
    }
    confusion.metrics()
}

fn short(fingerprint: &str) -> &str {
    &fingerprint[..fingerprint.len().min(12)]
}
