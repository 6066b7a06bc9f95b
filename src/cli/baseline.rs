//! `twinpage baseline`: a classic detector or a candidate method as a stand-alone
//! duplicate detector on labelled pairs, with the report of `evaluate`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use rayon::prelude::*;

use crate::candidates::baselines::{self, Detector, Prepared};
use crate::candidates::sketch::{self, Method, Settings, Sketch};
use crate::document::{text, PairFile};
use crate::model::{Confusion, Decision};

/// A detector's precision, recall and F1 on labelled pairs (as `evaluate` reports a model's).
#[derive(clap::Args)]
pub struct Args {
    /// simhash, minhash, combined, pugh, a0–a10, a12 (the Yandex detectors), or all.
    #[arg(long, value_name = "NAME", value_parser = parse_methods)]
    method: Methods,
    /// Labelled pair file(s); repeat for several.
    #[arg(long, value_name = "F.csv", required = true)]
    pairs: Vec<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Skip pairs whose documents cannot be read.
    #[arg(long)]
    skip_bad: bool,
    #[command(flatten)]
    params: super::candidates::MethodArgs,
}

/// One detector to run.
#[derive(Debug, Clone, Copy)]
enum Baseline {
    Candidate(Method),
    Signature(Detector),
}

impl Baseline {
    fn name(&self) -> String {
        match self {
            Baseline::Candidate(m) => m.name().to_string(),
            Baseline::Signature(d) => d.name().to_string(),
        }
    }
}

/// The detectors `--method` names.
#[derive(Debug, Clone)]
struct Methods(Vec<Baseline>);

/// `--method`: a candidate method, a detector (a0, …, a12), or all of them.
fn parse_methods(name: &str) -> Result<Methods, String> {
    use clap::ValueEnum;
    let candidates = Method::value_variants()
        .iter()
        .map(|&m| Baseline::Candidate(m));
    let detectors = Detector::ALL.into_iter().map(Baseline::Signature);
    if name.eq_ignore_ascii_case("all") {
        return Ok(Methods(candidates.chain(detectors).collect()));
    }
    if let Ok(m) = Method::from_str(name, true) {
        return Ok(Methods(vec![Baseline::Candidate(m)]));
    }
    Detector::from_str(name, true)
        .map(|d| Methods(vec![Baseline::Signature(d)]))
        .map_err(|_| {
            format!("`{name}` is none of simhash, minhash, combined, pugh, a0–a10, a12, all")
        })
}

pub fn run(args: Args) -> Result<()> {
    let files: Vec<PairFile> = args
        .pairs
        .iter()
        .map(|p| PairFile::read(p))
        .collect::<Result<_>>()?;
    let paths: BTreeSet<&Path> = files
        .iter()
        .flat_map(|f| &f.pairs)
        .flat_map(|p| [p.a.html.as_path(), p.b.html.as_path()])
        .collect();
    let paths: Vec<&Path> = paths.into_iter().collect();
    let position: BTreeMap<&Path, usize> = paths.iter().enumerate().map(|(i, &p)| (p, i)).collect();
    let progress = crate::util::Progress::new(paths.len(), "reading documents");
    let texts: Vec<Result<String, String>> = paths
        .par_iter()
        .map(|p| {
            let t = sketch::read_text(p, args.params.text).map_err(|e| format!("{e:#}"));
            progress.inc();
            t
        })
        .collect();
    progress.finish();
    let mut pairs: Vec<(usize, usize, bool)> = Vec::new();
    let mut skipped = 0;
    for pair in files.iter().flat_map(|f| &f.pairs) {
        let Some(label) = pair.label else {
            bail!(
                "{}: no label; baseline needs a `label` on every row",
                pair.location()
            );
        };
        let (a, b) = (
            position[pair.a.html.as_path()],
            position[pair.b.html.as_path()],
        );
        for i in [a, b] {
            if let Err(e) = &texts[i] {
                if !args.skip_bad {
                    bail!(
                        "{}: {e} (use --skip-bad to skip such pairs)",
                        pair.location()
                    );
                }
            }
        }
        if texts[a].is_err() || texts[b].is_err() {
            skipped += 1;
            continue;
        }
        pairs.push((a, b, label));
    }
    let texts: Vec<String> = texts.into_iter().map(Result::unwrap_or_default).collect();
    let mut reports = Vec::new();
    for baseline in &args.method.0 {
        let said = decide(baseline, &texts, &pairs, &args.params)?;
        let mut confusion = Confusion::default();
        for (&(_, _, label), &duplicate) in pairs.iter().zip(&said) {
            let (p, decision) = if duplicate {
                (1.0, Decision::Duplicate)
            } else {
                (0.0, Decision::Distinct)
            };
            confusion.add(label, p, decision);
        }
        reports.push((baseline.name(), confusion.metrics()));
    }
    if args.json {
        let report: Vec<serde_json::Value> = reports
            .iter()
            .map(|(name, m)| serde_json::json!({"baseline": name, "text": format!("{:?}", args.params.text).to_lowercase(), "skipped": skipped, "overall": m}))
            .collect();
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    for (name, m) in &reports {
        println!("baseline {name} ({:?} text)", args.params.text);
        println!("{}\n", m.report());
    }
    if reports.len() > 1 {
        println!(
            "{:<18} {:>6} {:>9} {:>8} {:>8}",
            "baseline", "pairs", "precision", "recall", "F1"
        );
        for (name, m) in &reports {
            println!(
                "{:<18} {:>6} {:>9.4} {:>8.4} {:>8.4}",
                name, m.pairs, m.precision, m.recall, m.f1
            );
        }
    }
    if skipped > 0 {
        println!("skipped {skipped} pair(s) with unreadable documents");
    }
    Ok(())
}

/// The detector's verdict on each pair.
fn decide(
    baseline: &Baseline,
    texts: &[String],
    pairs: &[(usize, usize, bool)],
    params: &super::candidates::MethodArgs,
) -> Result<Vec<bool>> {
    match baseline {
        Baseline::Candidate(method) => {
            let settings: Settings = params.settings(*method)?;
            let sketches: Vec<Sketch> = texts
                .par_iter()
                .map(|t| Sketch::of_words(&text::word_ids(t), &settings))
                .collect();
            Ok(pairs
                .iter()
                .map(|&(a, b, _)| sketch::judge(&sketches[a], &sketches[b], &settings).is_some())
                .collect())
        }
        Baseline::Signature(detector) => {
            let prepared: Vec<Prepared> = texts.par_iter().map(|t| baselines::prepare(t)).collect();
            let signatures = baselines::signatures(*detector, &prepared);
            Ok(pairs
                .iter()
                .map(|&(a, b, _)| baselines::duplicates(&signatures[a], &signatures[b]))
                .collect())
        }
    }
}
