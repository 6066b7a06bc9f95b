//! `twinpage explain`: the way a pair took through the tree.

use std::path::PathBuf;

use anyhow::{bail, Result};

use crate::model::Model;
use crate::signals;

/// Show the tree path of a pair: each signal's value, the threshold it met, the leaf's counts.
#[derive(clap::Args)]
pub struct Args {
    /// Pair file (CSV).
    #[arg(long, value_name = "F.csv")]
    pairs: PathBuf,
    /// Data row to explain (1 = the first row after the header); all rows when omitted.
    #[arg(long, value_name = "N")]
    row: Option<usize>,
    /// Model file [default: models/default.json, else the built-in copy].
    #[arg(long, value_name = "M.json")]
    model: Option<PathBuf>,
    #[command(flatten)]
    render: super::RenderArgs,
}

pub fn run(args: Args) -> Result<()> {
    let (model, batch) = super::load_model_and_batch(
        args.model.as_deref(),
        std::slice::from_ref(&args.pairs),
        &args.render,
    )?;
    let pairs = &batch.files[0].pairs;
    let rows: Vec<usize> = match args.row {
        Some(n) if n == 0 || n > pairs.len() => {
            bail!("--row {n}: the file has rows 1 to {}", pairs.len())
        }
        Some(n) => vec![n - 1],
        None => (0..pairs.len()).collect(),
    };
    let names = model.signals.clone();
    for i in rows {
        let pair = &pairs[i];
        println!(
            "row {} ({}): {} vs {}",
            i + 1,
            pair.location(),
            pair.a.url,
            pair.b.url
        );
        match batch.documents.bodies(pair) {
            Err(reason) => println!("  cannot explain: {reason}"),
            Ok(bodies) => print_path(&model, &names, &signals::vector(pair, &bodies)),
        }
        println!();
    }
    Ok(())
}

fn print_path(model: &Model, names: &[String], vector: &[f64]) {
    let (leaf, steps) = model.tree.route(vector);
    for step in &steps {
        let (op, side) = if step.went_left {
            ("<", "left")
        } else {
            (">=", "right")
        };
        println!(
            "  {:<45} = {:>10.4}  {op:>2} {:<10.4} -> {side}",
            names[step.signal], step.value, step.threshold
        );
    }
    let l = &model.tree.leaves[leaf];
    let p = l.p_duplicate;
    println!(
        "  leaf {leaf}: training {} duplicate / {} distinct, calibration {} duplicate / {} distinct",
        l.fit_duplicates, l.fit_distinct, l.calibration_duplicates, l.calibration_distinct
    );
    println!(
        "  p_duplicate {p:.4} -> {} (duplicate at >= {:.4}, distinct at <= {:.4})",
        model.decide(p).as_str(),
        model.thresholds.duplicate,
        model.thresholds.distinct
    );
}
