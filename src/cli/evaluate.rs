//! `twinpage evaluate`: how a model does on labelled pairs, overall and by group.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use crate::model::{Confusion, Metrics};
use crate::pipeline;

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
    let by_columns: Vec<Option<usize>> = match &args.by {
        None => vec![None; batch.files.len()],
        Some(col) => batch
            .files
            .iter()
            .map(|f| {
                f.headers
                    .iter()
                    .position(|h| h == col)
                    .map(Some)
                    .with_context(|| format!("{}: no column `{col}` to group by", f.path.display()))
            })
            .collect::<Result<_>>()?,
    };
    let outcomes = pipeline::score(&batch, &model);
    let mut overall = Confusion::default();
    let mut groups: BTreeMap<String, Confusion> = BTreeMap::new();
    let rows = batch
        .files
        .iter()
        .zip(&by_columns)
        .flat_map(|(f, col)| f.pairs.iter().map(move |p| (p, *col)));
    for ((pair, col), outcome) in rows.zip(&outcomes) {
        let Some(o) = outcome else { continue };
        let Some(label) = pair.label else {
            bail!(
                "{}: no label; evaluate needs a `label` on every row",
                pair.location()
            );
        };
        overall.add(label, o.p_duplicate, o.decision);
        if let Some(c) = col {
            groups
                .entry(pair.fields[c].clone())
                .or_default()
                .add(label, o.p_duplicate, o.decision);
        }
    }
    let overall = overall.metrics();
    let groups: BTreeMap<String, Metrics> =
        groups.into_iter().map(|(k, c)| (k, c.metrics())).collect();
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
