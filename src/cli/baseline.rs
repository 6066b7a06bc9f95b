//! `twinpage baseline`: a classic detector or a candidate method as a stand-alone
//! duplicate detector on labelled pairs, with the report of `evaluate`.

use std::path::PathBuf;

use anyhow::Result;

use super::candidates::{MethodArgs, CORE_TEXT, VISIBLE_TEXT};
use super::declared::one_of;
use twinpage::candidates::sketch::TextChoice;
use twinpage::document::PairFile;
use twinpage::evaluate::baseline::{self, Baseline};

/// A detector's precision, recall and F1 on labelled pairs (as `evaluate` reports a model's).
#[derive(clap::Args)]
pub struct Args {
    /// A candidate method (simhash, minhash, combined, pugh), a Yandex detector (a0–a10, a12), or all.
    #[arg(long, value_name = "NAME")]
    method: String,
    /// Labelled pair file(s); repeat for several.
    #[arg(long, value_name = "F.csv", required = true)]
    pairs: Vec<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Skip pairs whose documents cannot be read.
    #[arg(long)]
    skip_bad: bool,
    /// Text fingerprinted.
    #[arg(long, default_value = "core", value_parser = one_of::<TextChoice>([CORE_TEXT, VISIBLE_TEXT]))]
    text: TextChoice,
    #[command(flatten)]
    params: MethodArgs,
}

pub fn run(args: Args) -> Result<()> {
    let baselines = Baseline::named(&args.method)?;
    if let [Baseline::Candidate(kind)] = baselines.as_slice() {
        let owner = format!("method {}", kind.name);
        args.params.params.values.check_known(kind.params, &owner)?;
    }
    let files: Vec<PairFile> = args
        .pairs
        .iter()
        .map(|p| PairFile::read(p))
        .collect::<Result<_>>()?;
    let values = &args.params.params.values;
    let report = baseline::run(&files, &baselines, args.text, values, args.skip_bad)?;
    if args.json {
        let json: Vec<serde_json::Value> = report
            .results
            .iter()
            .map(|(name, m)| {
                serde_json::json!({"baseline": name, "text": report.text.name(), "skipped": report.skipped, "overall": m})
            })
            .collect();
        outln!("{}", serde_json::to_string_pretty(&json)?)?;
        return Ok(());
    }
    for (name, m) in &report.results {
        outln!("baseline {name} ({:?} text)", report.text)?;
        outln!("{}\n", m.report())?;
    }
    if report.results.len() > 1 {
        outln!(
            "{:<18} {:>6} {:>9} {:>8} {:>8}",
            "baseline",
            "pairs",
            "precision",
            "recall",
            "F1"
        )?;
        for (name, m) in &report.results {
            outln!(
                "{:<18} {:>6} {:>9.4} {:>8.4} {:>8.4}",
                name,
                m.pairs,
                m.precision,
                m.recall,
                m.f1
            )?;
        }
    }
    if report.skipped > 0 {
        outln!(
            "skipped {} pair(s) with unreadable documents",
            report.skipped
        )?;
    }
    Ok(())
}
