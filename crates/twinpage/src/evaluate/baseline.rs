//! The classic detectors as stand-alone duplicate detectors on labelled pairs,
//! with the figures `evaluate` gives a model: a candidate method says duplicate
//! when it would propose the pair, a signature detector when the two documents
//! share a signature.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{bail, Result};
use rayon::prelude::*;

use super::signatures::{self, Detector, Prepared};
use crate::candidates::method::{self, MethodKind};
use crate::candidates::sketch::{read_text, TextChoice};
use crate::candidates::{method_named, METHODS};
use crate::document::{text, PairFile};
use crate::model::{Confusion, Decision, Metrics, EVEN_CUT};
use twinpage_util::params::ParamValues;
use twinpage_util::Progress;

/// One detector.
#[derive(Clone, Copy)]
pub enum Baseline {
    Candidate(&'static MethodKind),
    Signature(Detector),
}

impl Baseline {
    pub fn name(&self) -> &'static str {
        match self {
            Baseline::Candidate(m) => m.name,
            Baseline::Signature(d) => d.name(),
        }
    }

    /// The detectors a name stands for: a candidate method, a Yandex detector
    /// (`a0` … `a10`, `a12`) or `all` of them.
    pub fn named(name: &str) -> Result<Vec<Baseline>> {
        let candidates = METHODS.iter().map(Baseline::Candidate);
        let detectors = Detector::ALL.into_iter().map(Baseline::Signature);
        if name.eq_ignore_ascii_case("all") {
            return Ok(candidates.chain(detectors).collect());
        }
        if let Ok(kind) = method_named(name) {
            return Ok(vec![Baseline::Candidate(kind)]);
        }
        match Detector::from_code(name) {
            Some(d) => Ok(vec![Baseline::Signature(d)]),
            None => {
                let methods: Vec<&str> = METHODS.iter().map(|m| m.name).collect();
                bail!(
                    "`{name}` is none of {}, a0–a10, a12, all",
                    methods.join(", ")
                )
            }
        }
    }
}

/// Each detector's figures on the labelled pairs.
pub struct Report {
    pub text: TextChoice,
    pub results: Vec<(&'static str, Metrics)>,
    /// Pairs left out because a document could not be read (`skip_bad`).
    pub skipped: usize,
}

/// Runs `baselines` on the labelled pairs of `files`, fingerprinting `text` of
/// each distinct document once; `values` sets the candidate methods' parameters.
/// An unreadable document is an error naming its row, unless `skip_bad`.
pub fn run(
    files: &[PairFile],
    baselines: &[Baseline],
    text: TextChoice,
    values: &ParamValues,
    skip_bad: bool,
) -> Result<Report> {
    let LabelledTexts {
        texts,
        pairs,
        skipped,
    } = labelled_texts(files, text, skip_bad)?;
    let results = baselines
        .iter()
        .map(|baseline| {
            let said = decide(baseline, &texts, &pairs, values)?;
            let mut confusion = Confusion::default();
            for (&(_, _, label), duplicate) in pairs.iter().zip(said) {
                let (p, decision) = if duplicate {
                    (1.0, Decision::Duplicate)
                } else {
                    (0.0, Decision::Distinct)
                };
                confusion.add(label, p, EVEN_CUT, decision);
            }
            Ok((baseline.name(), confusion.metrics()))
        })
        .collect::<Result<_>>()?;
    Ok(Report {
        text,
        results,
        skipped,
    })
}

/// The distinct documents' texts and the labelled pairs over them.
struct LabelledTexts {
    texts: Vec<String>,
    /// Readable pairs as (document, document, label), documents by position in `texts`.
    pairs: Vec<(usize, usize, bool)>,
    /// Pairs left out because a document could not be read.
    skipped: usize,
}

/// Reads the chosen text of every distinct document once, on all cores.
fn labelled_texts(files: &[PairFile], choice: TextChoice, skip_bad: bool) -> Result<LabelledTexts> {
    let paths: BTreeSet<&Path> = files
        .iter()
        .flat_map(|f| &f.pairs)
        .flat_map(|p| [p.a.html.as_path(), p.b.html.as_path()])
        .collect();
    let paths: Vec<&Path> = paths.into_iter().collect();
    let position: BTreeMap<&Path, usize> = paths.iter().enumerate().map(|(i, &p)| (p, i)).collect();
    let progress = Progress::new(paths.len(), "reading documents");
    let texts: Vec<Result<String, String>> = paths
        .par_iter()
        .map(|p| {
            let t = read_text(p, choice).map_err(|e| format!("{e:#}"));
            progress.inc();
            t
        })
        .collect();
    progress.finish();
    let mut pairs = Vec::new();
    let mut skipped = 0;
    for pair in files.iter().flat_map(|f| &f.pairs) {
        let Some(label) = pair.label else {
            bail!(
                "{}: no label; baseline needs a `label` on every row",
                pair.location()
            );
        };
        let ends = [&pair.a.html, &pair.b.html].map(|p| position[p.as_path()]);
        match ends.iter().find_map(|&i| texts[i].as_ref().err()) {
            Some(e) if !skip_bad => {
                bail!(
                    "{}: {e} (use --skip-bad to skip such pairs)",
                    pair.location()
                )
            }
            Some(_) => skipped += 1,
            None => pairs.push((ends[0], ends[1], label)),
        }
    }
    let texts = texts.into_iter().map(Result::unwrap_or_default).collect();
    Ok(LabelledTexts {
        texts,
        pairs,
        skipped,
    })
}

/// The detector's verdict on each pair.
fn decide(
    baseline: &Baseline,
    texts: &[String],
    pairs: &[(usize, usize, bool)],
    values: &ParamValues,
) -> Result<Vec<bool>> {
    match baseline {
        Baseline::Candidate(kind) => {
            let method = (kind.build)(values)?;
            let sketches: Vec<_> = texts
                .par_iter()
                .map(|t| method.sketch(&text::word_ids(t)))
                .collect();
            Ok(pairs
                .iter()
                .map(|&(a, b, _)| {
                    method::judge(method.as_ref(), &sketches[a], &sketches[b]).is_some()
                })
                .collect())
        }
        Baseline::Signature(detector) => {
            let prepared: Vec<Prepared> =
                texts.par_iter().map(|t| signatures::prepare(t)).collect();
            let signatures = signatures::signatures(*detector, &prepared);
            Ok(pairs
                .iter()
                .map(|&(a, b, _)| signatures::duplicates(&signatures[a], &signatures[b]))
                .collect())
        }
    }
}
