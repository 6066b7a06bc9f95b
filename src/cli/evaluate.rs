//! `twinpage evaluate`: how a model does on labelled pairs, overall and by group.

use std::path::PathBuf;

use anyhow::Result;

use twinpage::evaluate::grouped::{self, Grouped};
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
    let (model, batch) =
        super::load_model_and_batch(args.model.as_deref(), &args.pairs, &args.render)?;
    let skipped = super::unreadable_rows(&batch, args.skip_bad)?;
    let outcomes = pipeline::score(&batch, &model);
    let Grouped { overall, groups } = grouped::by_column(&batch, &outcomes, args.by.as_deref())?;
    if args.json {
        let report = serde_json::json!({
            "model": model.id,
            "skipped": skipped.len(),
            "overall": overall,
            "by": args.by.as_ref().map(|col| serde_json::json!({"column": col, "groups": groups})),
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
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
