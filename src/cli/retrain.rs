//! `twinpage retrain`: the next model, with the reviewers' labels.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use twinpage::model::{LabelledPairs, Metrics, Model};
use twinpage::pipeline;
use twinpage_review::retrain::{self, Frozen};
use twinpage_review::ReviewStore;

/// Retrain a model on its training pairs plus the settled labels of a review
/// queue; compare old and new on a frozen evaluation set; with --promote, replace
/// the model when the new one is at least as good.
#[derive(clap::Args)]
pub struct Args {
    /// The model to retrain [default: models/default.json].
    #[arg(long, value_name = "M.json")]
    model: Option<PathBuf>,
    /// The review database whose labels join training.
    #[arg(long, value_name = "FILE")]
    db: PathBuf,
    /// Original labelled pairs [default: the files the model was trained on].
    #[arg(long, value_name = "T.csv")]
    pairs: Vec<PathBuf>,
    /// Frozen evaluation pairs neither model trained on [default: the model's own
    /// held-out evaluation part of its training pairs].
    #[arg(long, value_name = "E.csv")]
    eval: Vec<PathBuf>,
    /// Where to write the new model.
    #[arg(long, value_name = "NEW.json", value_parser = super::output::file_not_stdout)]
    out: PathBuf,
    /// Copy the new model over --model when its F1 on the frozen set is at least the old one's.
    #[arg(long)]
    promote: bool,
    /// Seed of the fit / calibration split [default: the model's].
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    render: super::inputs::RenderArgs,
}

pub fn run(args: Args) -> Result<()> {
    let model_path = args
        .model
        .clone()
        .unwrap_or_else(|| PathBuf::from(super::model_files::DEFAULT_MODEL));
    let start = Start::read(&model_path, &args.pairs, &args.eval, &args.render)?;
    let parent = &start.parent;
    let store = ReviewStore::open_existing(&args.db)?;
    let settled = store.settled_labels()?;
    let (reviewed, other_layout) = retrain::reviewed_pairs(&settled, &parent.signals);
    if other_layout > 0 {
        eprintln!("twinpage: warning: {other_layout} reviewed label(s) were scored on other signals than this model's and are left out");
    }
    let adjudicated = settled.iter().filter(|l| l.adjudicated).count();
    let awaiting = store.progress("")?.awaiting_adjudication;
    let seed = args.seed.unwrap_or(parent.seed);
    let retrained = retrain::retrain(parent, &start.original, &reviewed, start.frozen, seed)?;
    retrained.model.save(&args.out)?;
    outln!(
        "retrained {} from {} with {} reviewed label(s) ({} left out: they share a document with the frozen set)",
        retrained.model.id, parent.id, retrained.reviewed_used, retrained.reviewed_overlapping
    )?;
    outln!(
        "of the {} settled review label(s), {adjudicated} were settled by an adjudicator; {awaiting} pair(s) the reviewers disagree on await one and are left out",
        settled.len()
    )?;
    outln!("wrote {}", args.out.display())?;
    outln!(
        "\non the frozen evaluation set ({} pairs):",
        retrained.metrics.pairs
    )?;
    print_side_by_side(
        &parent.id,
        &retrained.parent_metrics,
        &retrained.model.id,
        &retrained.metrics,
    )?;
    if args.promote {
        promote(&retrained, &args.out, &model_path)?;
    }
    Ok(())
}

/// What a retraining starts from: the model, its training pairs, the frozen set.
pub(super) struct Start {
    pub parent: Model,
    pub original: LabelledPairs,
    pub frozen: Frozen,
}

impl Start {
    /// The model at `model`, the pairs it was trained on (or `pairs`), and `eval`
    /// as the frozen set (or the model's own held-out part).
    pub fn read(
        model: &Path,
        pairs: &[PathBuf],
        eval: &[PathBuf],
        render: &super::inputs::RenderArgs,
    ) -> Result<Start> {
        let parent = Model::load(model)?;
        super::model_files::check_layout(&parent, render.layout())?;
        if parent.reader.is_some() {
            eprintln!(
                "twinpage: warning: {} also reads record pairs with a cross-encoder; the retrained forest judges them alone (train again with --cross-encoder to fine-tune one on the reviewed labels too)",
                model.display()
            );
        }
        let pairs: Vec<PathBuf> = if pairs.is_empty() {
            parent.training.files.iter().map(PathBuf::from).collect()
        } else {
            pairs.to_vec()
        };
        let (original, fingerprint) = labelled(&pairs, render)
            .context("reading the original training pairs (give them with --pairs)")?;
        let frozen = if eval.is_empty() {
            Frozen::ParentHeldOut { fingerprint }
        } else {
            Frozen::Pairs(labelled(eval, render)?.0)
        };
        Ok(Start {
            parent,
            original,
            frozen,
        })
    }
}

fn labelled(
    pairs: &[PathBuf],
    render: &super::inputs::RenderArgs,
) -> Result<(LabelledPairs, String)> {
    let batch = super::inputs::load_batch(pairs, render)?;
    super::inputs::unreadable_rows(&batch, false)?;
    pipeline::labelled_pairs(&batch)
}

fn promote(retrained: &retrain::Retrained, new: &Path, target: &Path) -> Result<()> {
    if retrained.at_least_as_good() {
        std::fs::copy(new, target)
            .with_context(|| format!("cannot copy {} over {}", new.display(), target.display()))?;
        outln!(
            "promoted: {} now holds model {}",
            target.display(),
            retrained.model.id
        )?;
    } else {
        outln!(
            "not promoted: F1 {:.4} is below the current model's {:.4}; {} is unchanged",
            retrained.metrics.f1,
            retrained.parent_metrics.f1,
            target.display()
        )?;
    }
    Ok(())
}

fn print_side_by_side(
    old_id: &str,
    old: &Metrics,
    new_id: &str,
    new: &Metrics,
) -> std::io::Result<()> {
    outln!("{:<34} {:>18} {:>18}", "", old_id, new_id)?;
    type Figure = fn(&Metrics) -> f64;
    let rows: [(&str, Figure); 6] = [
        ("F1 (each at its F1 cut)", |m| m.f1),
        ("precision", |m| m.precision),
        ("recall", |m| m.recall),
        ("precision of duplicate decisions", |m| {
            m.duplicate_decision_precision
        }),
        ("precision of distinct decisions", |m| {
            m.distinct_decision_precision
        }),
        ("share routed to review", |m| m.review_share),
    ];
    for (name, figure) in rows {
        outln!("{name:<34} {:>18.4} {:>18.4}", figure(old), figure(new))?;
    }
    Ok(())
}
