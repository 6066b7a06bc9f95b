//! The model a command uses: the one given, or the shipped one, checked against
//! the run's layout.

use std::path::Path;

use anyhow::{Context, Result};

use twinpage::model::{Model, Shift};
use twinpage::pipeline::score::{scored_vectors, Outcome};
use twinpage::signals::Layout;

/// The shipped model, used when no `--model` is given.
pub const DEFAULT_MODEL: &str = "models/default.json";
/// The fetched-only model `score --render auto` starts with, when no other is given.
pub const FETCHED_ONLY_MODEL: &str = "models/fetched-only.json";

/// `--model`, or `models/default.json` in the current folder, or the copy of it
/// built into this binary (so the tool works from any folder).
pub(super) fn load_model(path: Option<&Path>) -> Result<Model> {
    load_shipped(
        path,
        DEFAULT_MODEL,
        include_str!("../../models/default.json"),
    )
}

/// `--fetched-model`, or `models/fetched-only.json`, or its built-in copy.
pub(super) fn load_fetched_model(path: Option<&Path>) -> Result<Model> {
    load_shipped(
        path,
        FETCHED_ONLY_MODEL,
        include_str!("../../models/fetched-only.json"),
    )
}

/// The model at `path`, else the shipped one at `local`, else its copy `built_in`.
fn load_shipped(path: Option<&Path>, local: &str, built_in: &str) -> Result<Model> {
    let local_path = Path::new(local);
    if let Some(p) = path.or(local_path.exists().then_some(local_path)) {
        return load_with_reader(p);
    }
    Model::from_json(built_in).with_context(|| {
        format!("the built-in copy of {local} does not fit this build; retrain it")
    })
}

/// The model file at `path`, with the reader of record pairs it names (its files
/// beside it) loaded and attached.
pub(super) fn load_with_reader(path: &Path) -> Result<Model> {
    let mut model = Model::load(path)?;
    twinpage_semantic::attach_reader(&mut model, path)?;
    Ok(model)
}

/// Refuses a model trained on another layout than the run's, saying how to get a match.
pub(super) fn check_layout(model: &Model, have: Layout) -> Result<()> {
    let wanted = model.layout();
    if wanted == have {
        return Ok(());
    }
    let fix = match wanted {
        Layout::FetchedAndRendered => {
            "drop --no-render, or use a model trained with --no-render \
             (models/fetched-only.json is one)"
        }
        Layout::Fetched => "add --no-render, or use a model trained on rendered bodies",
    };
    anyhow::bail!(
        "model {} was trained on {}, but this run computes {}: {fix}",
        model.id,
        wanted.describe(),
        have.describe()
    )
}

/// Signals named in the warning, at most.
const SHIFTS_NAMED: usize = 3;

/// Says on stderr when the pairs a model scored are unlike its training pairs: some
/// signals missing far more or less often ([`Model::shifts`]). Its confidence was
/// calibrated on other pages, and its p and thresholds may be off even where it still
/// orders pairs well.
pub(super) fn warn_on_shifts(model: &Model, shifts: &[Shift]) {
    if shifts.is_empty() {
        return;
    }
    let named: Vec<String> = shifts
        .iter()
        .take(SHIFTS_NAMED)
        .map(|s| {
            format!(
                "{} missing on {:.0} % of the pairs{} here, {:.0} % in training",
                s.signal,
                100.0 * s.here,
                if s.signal.starts_with(twinpage::signals::record::PREFIX) {
                    " of two records"
                } else {
                    ""
                },
                100.0 * s.trained
            )
        })
        .collect();
    eprintln!(
        "twinpage: warning: these pages are unlike those model {} was trained on ({}{}): its confidence was calibrated on other pages, so check a sample of its decisions (twinpage review) and retrain it with labels from these pages (twinpage retrain)",
        model.id,
        named.join("; "),
        if shifts.len() > SHIFTS_NAMED {
            format!("; {} more signals", shifts.len() - SHIFTS_NAMED)
        } else {
            String::new()
        }
    );
}

/// [`warn_on_shifts`] for the pairs `outcomes` a model scored; the shifts it named.
pub(super) fn warn_if_unlike_training(model: &Model, outcomes: &[Option<Outcome>]) -> Vec<Shift> {
    let shifts = model.shifts(scored_vectors(outcomes));
    warn_on_shifts(model, &shifts);
    shifts
}
