//! `twinpage evaluate`: how a model does on labelled pairs, overall and by group.

use std::path::PathBuf;

use anyhow::{bail, Result};

use twinpage::evaluate::figures::Figures;
use twinpage::evaluate::grouped::{self, Grouped};
use twinpage::evaluate::leave_out;
use twinpage::model::Metrics;
use twinpage::pipeline;

/// Precision, recall, F1, accuracy, confusion matrix and review share on labelled pairs.
#[derive(clap::Args)]
pub struct Args {
    /// Labelled pair file(s); repeat for several.
    #[arg(long, value_name = "F.csv", required = true)]
    pairs: Vec<PathBuf>,
    /// Model file [default: models/default.json, else the built-in copy].
    #[arg(long, value_name = "M.json")]
    model: Option<PathBuf>,
    /// Also break the figures down by the values of this column (e.g. kind).
    #[arg(long, value_name = "COLUMN")]
    by: Option<String>,
    /// Leave-one-group-out instead: for each value K of this column (e.g. kind),
    /// train a model like --model's (same estimator, parameters, policy, seed) on
    /// the training pairs whose column is not K, and measure it on the --pairs
    /// whose column is K.
    #[arg(long, value_name = "COLUMN", conflicts_with = "by")]
    leave_out: Option<String>,
    /// With --leave-out: the labelled pairs to train on [default: the files the
    /// model was trained on].
    #[arg(long, value_name = "T.csv", requires = "leave_out")]
    train: Vec<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Skip rows whose documents cannot be read.
    #[arg(long)]
    skip_bad: bool,
    #[command(flatten)]
    render: super::RenderArgs,
}

pub fn run(args: Args) -> Result<()> {
    if let Some(column) = &args.leave_out {
        return leave_out(&args, column);
    }
    let (model, batch) =
        super::load_model_and_batch(args.model.as_deref(), &args.pairs, &args.render)?;
    let skipped = super::unreadable_rows(&batch, args.skip_bad)?;
    let outcomes = pipeline::score(&batch, &model);
    if args.json {
        // model, overall (with its confusion), by {column, groups}, then the
        // curves, bins, trade-off, mistakes, importance and splits.
        let figures = Figures::of(&model, &batch, &outcomes, args.by.as_deref())?;
        let mut report = serde_json::to_value(&figures)?;
        report["skipped"] = skipped.len().into();
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        let Grouped { overall, groups } =
            grouped::by_column(&batch, &outcomes, args.by.as_deref())?;
        println!("model {}", model.id);
        println!("{}", overall.report());
        if let Some(col) = &args.by {
            println!("\nby {col}:");
            println!(
                "{:<28} {:>6} {:>9} {:>8} {:>8} {:>8} {:>8}",
                col, "pairs", "precision", "recall", "F1", "accuracy", "review"
            );
            for (value, m) in &groups {
                let c = &m.confusion;
                // Undefined figures (a group with no duplicate, or none predicted) show as "-".
                let figure = |defined: bool, x: f64| {
                    if defined {
                        format!("{x:.4}")
                    } else {
                        "-".into()
                    }
                };
                println!(
                    "{:<28} {:>6} {:>9} {:>8} {:>8} {:>8.4} {:>8.4}",
                    value,
                    m.pairs,
                    figure(c.tp + c.fp > 0, m.precision),
                    figure(c.tp + c.fn_ > 0, m.recall),
                    figure(c.tp + c.fn_ > 0, m.f1),
                    m.accuracy,
                    m.review_share
                );
            }
        }
        if !skipped.is_empty() {
            println!("skipped {} row(s) with unreadable documents", skipped.len());
        }
    }
    Ok(())
}

/// `--leave-out COLUMN`: a model per left-out group, measured on that group.
fn leave_out(args: &Args, column: &str) -> Result<()> {
    let (model, measured) =
        super::load_model_and_batch(args.model.as_deref(), &args.pairs, &args.render)?;
    let train_files: Vec<PathBuf> = if args.train.is_empty() {
        model.training.files.iter().map(PathBuf::from).collect()
    } else {
        args.train.clone()
    };
    if train_files.is_empty() {
        bail!("model {} records no training files: give --train", model.id);
    }
    let training = super::load_batch(&train_files, &args.render)?;
    super::unreadable_rows(&measured, args.skip_bad)?;
    super::unreadable_rows(&training, args.skip_bad)?;
    let (train_set, train_groups, _) = pipeline::labelled_by(&training, Some(column))?;
    let (measured_set, measured_groups, _) = pipeline::labelled_by(&measured, Some(column))?;
    let learner = model.estimator.learner()?;
    let (left_out, pooled) = leave_out::leave_one_out(
        &leave_out::Grouped {
            pairs: &train_set,
            groups: &train_groups,
        },
        &leave_out::Grouped {
            pairs: &measured_set,
            groups: &measured_groups,
        },
        learner.as_ref(),
        &model.policy,
        model.seed,
    )?;
    if args.json {
        let report = serde_json::json!({
            "model": model.id,
            "estimator": model.estimator.kind(),
            "leave_out": column,
            "pooled": pooled,
            "groups": left_out,
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!(
        "leave one {column} out: {} models like {} ({}), each trained without the {column} it is measured on",
        left_out.len(),
        model.id,
        model.estimator.kind()
    );
    println!(
        "{:<22} {:>6} {:>8} {:>8} {:>10} {:>9} {:>9} {:>7} {:>7}",
        column,
        "pairs",
        "trained",
        "accuracy",
        "auto.right",
        "dup.prec",
        "dist.prec",
        "review",
        "ECE"
    );
    let row = |name: &str, trained: String, m: &Metrics| {
        let c = &m.confusion;
        // A share of no decisions is shown as "-", not as 0.
        let share = |decided: usize, x: f64| (decided > 0).then_some(x);
        let shown = |x: Option<f64>| x.map_or_else(|| "-".to_string(), |x| format!("{x:.4}"));
        println!(
            "{:<22} {:>6} {:>8} {:>8.4} {:>10} {:>9} {:>9} {:>7.4} {:>7.4}",
            name,
            m.pairs,
            trained,
            m.accuracy,
            shown(c.automatic_accuracy()),
            shown(share(
                c.duplicate_as_duplicate + c.distinct_as_duplicate,
                m.duplicate_decision_precision
            )),
            shown(share(
                c.duplicate_as_distinct + c.distinct_as_distinct,
                m.distinct_decision_precision
            )),
            m.review_share,
            m.calibration_error
        );
    };
    for l in &left_out {
        row(&l.group, l.trained_on.to_string(), &l.metrics);
    }
    row("(all, pooled)", String::new(), &pooled);
    Ok(())
}
