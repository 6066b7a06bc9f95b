//! Where rendering is spent: `score --render auto` (the fetched-only model first, the
//! rendered one on what it leaves open) against `--render always`, cold (an empty
//! render cache, Chromium renders) and warm (the same cache again: no browser starts,
//! remembered failures included), on the same pairs.
//!
//! `cargo bench --bench cascade` (optionally `-- PAIRS.csv`, default
//! `training-data/web/test.csv`). The pair file's stored renders are ignored, so that
//! the cold runs really render. Prints wall time, pairs/s, documents rendered and F1
//! at p ≥ 0.5 of each run. Takes about 3 minutes on 2 cores with the headless shell
//! (the cold `always` run renders every document).

mod common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use twinpage::document::PairFile;
use twinpage::model::Model;
use twinpage::pipeline::{self, Batch, Outcome};
use twinpage::render::{RenderOptions, RenderSettings};

fn main() {
    common::run_like_the_binary();
    let file = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .map_or_else(
            || PathBuf::from("training-data/web/test.csv"),
            PathBuf::from,
        );
    let rendered = Model::load(Path::new("models/default.json")).expect("models/default.json");
    let fetched =
        Model::load(Path::new("models/fetched-only.json")).expect("models/fetched-only.json");
    let work = tempfile::tempdir().expect("temporary folder");
    for (when, cache) in [
        ("auto", "auto"),
        ("auto", "auto"),
        ("always", "always"),
        ("always", "always"),
    ] {
        let settings = RenderSettings {
            cache: work.path().join(cache),
            options: RenderOptions::default(),
            retry_failed: false,
            replays: Default::default(),
        };
        let mut pairs = PairFile::read(&file).expect("pair file reads");
        for pair in &mut pairs.pairs {
            pair.a.rendered = None;
            pair.b.rendered = None;
        }
        let start = Instant::now();
        let (outcomes, rendered_documents) = if when == "auto" {
            let mut batch = Batch::of(vec![pairs], None).expect("documents load");
            let (outcomes, report) =
                pipeline::score_cascade(&mut batch, &fetched, &rendered, &settings)
                    .expect("cascade runs");
            (label_outcomes(&batch, outcomes), report.rendered_documents)
        } else {
            let batch = Batch::of(vec![pairs], Some(&settings)).expect("documents load");
            let outcomes = pipeline::score(&batch, &rendered);
            let documents = batch.documents.len();
            (label_outcomes(&batch, outcomes), documents)
        };
        let took = start.elapsed().as_secs_f64();
        println!(
            "--render {when}: {} pairs in {took:.1} s ({:.1} pairs/s), {rendered_documents} documents with a rendered body, F1 {:.4}",
            outcomes.len(),
            outcomes.len() as f64 / took,
            f1(&outcomes)
        );
    }
}

/// (label, p_duplicate) of every scored pair.
fn label_outcomes(batch: &Batch, outcomes: Vec<Option<Outcome>>) -> Vec<(bool, f64)> {
    batch
        .pairs()
        .zip(outcomes)
        .filter_map(|(pair, outcome)| Some((pair.label?, outcome?.p_duplicate)))
        .collect()
}

fn f1(outcomes: &[(bool, f64)]) -> f64 {
    let count = |label: bool, said: bool| {
        outcomes
            .iter()
            .filter(|&&(l, p)| l == label && (p >= 0.5) == said)
            .count() as f64
    };
    let (tp, fp, fn_) = (count(true, true), count(false, true), count(true, false));
    2.0 * tp / (2.0 * tp + fp + fn_)
}
