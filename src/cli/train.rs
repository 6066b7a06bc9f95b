//! `twinpage train`: fit, calibrate and store a model.

use std::path::PathBuf;

use anyhow::Result;

use crate::model::{train, Model, TrainingInfo, TreeParams};

/// Train a model from labelled pair files; prints held-out precision, recall, F1 and the tree's size.
#[derive(clap::Args)]
pub struct Args {
    /// Labelled pair file(s) (CSV with a `label` column); repeat for several.
    #[arg(long, value_name = "F.csv", required = true)]
    pairs: Vec<PathBuf>,
    /// Where to write the model (JSON).
    #[arg(long, value_name = "models/NAME.json")]
    out: PathBuf,
    /// Seed of the fit / calibration / evaluation split.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Deepest level of the tree.
    #[arg(long, default_value_t = TreeParams::default().max_depth)]
    max_depth: usize,
    /// Smallest class-weighted number of pairs in a leaf.
    #[arg(long, default_value_t = TreeParams::default().min_leaf_weight)]
    min_leaf_weight: f32,
    /// Precision each automatic decision (duplicate, distinct) must reach on held-out pairs.
    #[arg(long, default_value_t = TreeParams::default().precision_target)]
    precision_target: f64,
    /// Skip rows whose documents cannot be read (listed in OUT.skipped.csv).
    #[arg(long)]
    skip_bad: bool,
    #[command(flatten)]
    render: super::RenderArgs,
}

pub fn run(args: Args) -> Result<()> {
    let params = TreeParams::default()
        .max_depth(args.max_depth)
        .min_leaf_weight(args.min_leaf_weight)
        .precision_target(args.precision_target);
    params.check()?;
    let batch = super::load_batch(&args.pairs, &args.render)?;
    let skipped = super::unreadable_rows(&batch, args.skip_bad)?;
    let (set, fingerprint) = batch.labelled_pairs()?;
    let trained = train::train(&set, &params, args.seed)?;
    let training = TrainingInfo {
        files: args.pairs.iter().map(|p| p.display().to_string()).collect(),
        pairs: set.labels.len(),
        duplicates: set.labels.iter().filter(|&&l| l).count(),
        fingerprint,
        ..TrainingInfo::default()
    };
    let model = Model::new(
        crate::signals::names(batch.layout()),
        params,
        args.seed,
        training,
        trained,
        None,
    );
    model.save(&args.out)?;
    super::write_skipped(&args.out.display().to_string(), &skipped)?;
    println!(
        "trained {} on {} pairs ({} fit, {} calibration, {} evaluation)",
        model.id,
        model.training.pairs,
        model.training.fit_pairs,
        model.training.calibration_pairs,
        model.training.evaluation_pairs
    );
    println!(
        "tree: {} nodes, {} leaves, depth {}",
        model.tree.nodes.len(),
        model.tree.leaves.len(),
        model.tree.depth()
    );
    println!(
        "thresholds: duplicate at p >= {:.4}, distinct at p <= {:.4} (precision target {})",
        model.thresholds.duplicate, model.thresholds.distinct, model.thresholds.precision_target
    );
    println!("held-out evaluation:\n{}", model.heldout.report());
    println!("wrote {}", args.out.display());
    Ok(())
}
