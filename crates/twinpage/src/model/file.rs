//! The model file: JSON, read (format 2, and format 1 of models trained before
//! the estimator seam), checked against the running code, and written whole.
//!
//! Format 1 held one tree whose leaves carried their calibration, the tree's
//! hyperparameters with the precision target among them, and the target inside
//! the thresholds. It is read into today's parts unchanged (same nodes, same
//! confidences, same thresholds, same id), so an old model decides every pair as
//! it did.

use std::path::Path;
use std::sync::Arc;

use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;

use super::calibration::{Calibration, Cell};
use super::decision::{DecisionPolicy, Thresholds, EVEN_CUT};
use super::metrics::Metrics;
use super::model::{Model, TrainingInfo, FORMAT};
use super::tree::{Node, Tree, TreeParams};
use twinpage_util::write_atomically;

impl Model {
    /// Reads a model file and checks that it fits the running code.
    pub fn load(path: &Path) -> Result<Model> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read model {}", path.display()))?;
        Model::from_json(&text).with_context(|| format!("model {}", path.display()))
    }

    /// A model from the text of a model file, checked.
    pub fn from_json(text: &str) -> Result<Model> {
        // The format number alone first (the rest skipped, not built into a tree of
        // values), then the file read straight into the format it names.
        #[derive(serde::Deserialize)]
        struct Format {
            format: Option<serde_json::Value>,
        }
        let format: Format = serde_json::from_str(text).context("not a twinpage model file")?;
        let model = match format.format.as_ref().and_then(serde_json::Value::as_u64) {
            Some(1) => serde_json::from_str::<FormatOne>(text)
                .context("not a twinpage model file")?
                .into_model()?,
            Some(2) => serde_json::from_str(text).context("not a twinpage model file")?,
            other => bail!(
                "model format {} but this twinpage reads formats 1 and {FORMAT}; retrain it with `twinpage train`",
                other.map_or_else(|| "missing".to_string(), |f| f.to_string())
            ),
        };
        model
            .check_signals()
            .context("it does not match this twinpage")?;
        model.validate().map_err(|e| anyhow!("{e}"))?;
        Ok(model)
    }

    /// Writes the model, whole or not at all.
    pub fn save(&self, path: &Path) -> Result<()> {
        // Compact: a forest is thousands of nodes, and nobody reads them by eye.
        let json = serde_json::to_string(self)?;
        write_atomically(path, |w| Ok(w.write_all(json.as_bytes())?))
    }

    /// The model's signals must be the running code's for its layout, in the same order.
    pub fn check_signals(&self) -> Result<()> {
        let running = crate::signals::names(self.layout());
        if self.signals == running {
            return Ok(());
        }
        let first_difference = self
            .signals
            .iter()
            .zip(&running)
            .position(|(m, r)| m != r)
            .unwrap_or(self.signals.len().min(running.len()));
        bail!(
            "the model was trained on {} signals, this twinpage computes {}; first difference at position {}: model has `{}`, code has `{}`. Retrain the model with `twinpage train`.",
            self.signals.len(),
            running.len(),
            first_difference,
            self.signals.get(first_difference).map_or("(nothing)", String::as_str),
            running.get(first_difference).map_or("(nothing)", String::as_str),
        )
    }

    /// The parts agree with each other (a model file can be edited by hand).
    fn validate(&self) -> Result<(), String> {
        if let Some(contrast) = &self.contrast {
            contrast.validate(self.signals.len())?;
        }
        self.estimator.validate(self.feature_names().len())?;
        self.calibration.validate(self.estimator.as_ref())?;
        DecisionPolicy::new(self.policy.precision_target()).map_err(|e| e.to_string())?;
        if let Some(reader) = &self.reader {
            reader.thresholds.validate()?;
        }
        self.thresholds.validate()
    }
}

/// A format 1 model file.
#[derive(Deserialize)]
struct FormatOne {
    id: String,
    twinpage_version: String,
    signals: Vec<String>,
    hyperparameters: TreeParams,
    seed: u64,
    training: TrainingInfo,
    thresholds: ThresholdsOne,
    heldout: Metrics,
    #[serde(default)]
    parent: Option<String>,
    tree: TreeOne,
}

#[derive(Deserialize)]
struct ThresholdsOne {
    duplicate: f64,
    distinct: f64,
    precision_target: f64,
}

#[derive(Deserialize)]
struct TreeOne {
    nodes: Vec<Node>,
    /// The leaves, each with its calibration.
    leaves: Vec<Cell>,
}

impl FormatOne {
    fn into_model(self) -> Result<Model> {
        let tree = Tree {
            params: self.hyperparameters,
            nodes: self.tree.nodes,
        };
        Ok(Model {
            format: FORMAT,
            id: self.id,
            twinpage_version: self.twinpage_version,
            signals: self.signals,
            estimator: Arc::new(tree),
            calibration: Calibration {
                cells: self.tree.leaves,
            },
            policy: DecisionPolicy::new(self.thresholds.precision_target)?,
            thresholds: Thresholds {
                duplicate: self.thresholds.duplicate,
                distinct: self.thresholds.distinct,
                max_spread: 1.0,
                f1_cut: EVEN_CUT,
            },
            seed: self.seed,
            training: self.training,
            heldout: self.heldout,
            contrast: None,
            reader: None,
            attached: None,
            parent: self.parent,
            importance: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A format 1 file (the fetched-only model shipped before the estimator
    /// seam): read, it decides as the tree did. Loading checks the signal names, so
    /// the file's list follows the code: a signal added to the vector is added to it,
    /// and its tree's signal indices shifted to match.
    #[test]
    fn format_one_reads_and_round_trips_through_format_two() {
        let text = include_str!("testdata/format-one.json");
        let old: serde_json::Value = serde_json::from_str(text).unwrap();
        let model = Model::from_json(text).unwrap();
        assert_eq!(model.id, old["id"]);
        assert_eq!(model.thresholds.duplicate, old["thresholds"]["duplicate"]);
        assert_eq!(
            model.policy.precision_target(),
            old["thresholds"]["precision_target"]
        );
        let leaves = old["tree"]["leaves"].as_array().unwrap();
        assert_eq!(model.calibration.cells.len(), leaves.len());
        assert_eq!(
            model.calibration.cells[3].p_duplicate,
            leaves[3]["p_duplicate"]
        );

        let saved = serde_json::to_string(&model).unwrap();
        let again = Model::from_json(&saved).unwrap();
        assert_eq!(again.format, FORMAT);
        assert_eq!(again.estimator.to_json(), model.estimator.to_json());
        assert_eq!(again.calibration, model.calibration);
        let x = vec![0.5; model.signals.len()];
        assert_eq!(again.judge(&x), model.judge(&x));
    }

    #[test]
    fn broken_files_say_what_is_wrong() {
        let text = include_str!("testdata/format-one.json");
        let mut value: serde_json::Value = serde_json::from_str(text).unwrap();
        value["format"] = 9.into();
        let e = format!("{:#}", Model::from_json(&value.to_string()).unwrap_err());
        assert!(e.contains("model format 9"), "{e}");
        value["format"] = 1.into();
        for (field, wrong) in [("duplicate", 0.15), ("duplicate", 1.5), ("distinct", 0.6)] {
            let mut edited = value.clone();
            edited["thresholds"][field] = wrong.into();
            let e = format!("{:#}", Model::from_json(&edited.to_string()).unwrap_err());
            assert!(e.contains(&format!("thresholds.{field} is {wrong}")), "{e}");
        }
        value["tree"]["leaves"].as_array_mut().unwrap().pop();
        let e = format!("{:#}", Model::from_json(&value.to_string()).unwrap_err());
        assert!(e.contains("cells"), "{e}");
    }
}
