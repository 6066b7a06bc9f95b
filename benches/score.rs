//! Throughput of `score` on the training corpus: read and parse every document
//! once, compute every signal vector, apply the model, on all cores.
//!
//! `cargo bench --bench score` (optionally `-- [--fetched-only] PAIRS.csv ...`). Prints
//! pairs/s for the whole path and for its two stages. With a model on rendered bodies
//! (the shipped one), the rendered bodies come from the pair files' stored renders or
//! the render cache, as they would in a second run over the same documents; the
//! first run's rendering is measured by `cargo bench --bench render`. With
//! `--fetched-only`, the shipped fetched-only model on the fetched bodies alone (what
//! `score --no-render` does, and issue 41's 500 pairs/s on `web/train.csv`).

mod common;

use std::path::PathBuf;
use std::time::Instant;

use twinpage::model::Model;
use twinpage::pipeline::{self, Batch};
use twinpage::render::{default_cache_dir, RenderOptions, RenderSettings};
use twinpage::signals::Layout;

fn main() {
    common::run_like_the_binary();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let fetched_only = args.iter().any(|a| a == "--fetched-only");
    let args: Vec<PathBuf> = args
        .iter()
        .filter(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .collect();
    let files = if args.is_empty() {
        vec![
            PathBuf::from("training-data/web/train.csv"),
            PathBuf::from("training-data/web/test.csv"),
        ]
    } else {
        args
    };
    let model_file = if fetched_only {
        "models/fetched-only.json"
    } else {
        "models/default.json"
    };
    let model = Model::load(model_file.as_ref()).expect("the shipped model loads");
    let rendering = (model.layout() == Layout::FetchedAndRendered).then(|| RenderSettings {
        cache: default_cache_dir(),
        options: RenderOptions::default(),
        retry_failed: false,
        replays: Default::default(),
    });
    let threads = rayon::current_num_threads();
    for round in 1..=3 {
        let start = Instant::now();
        let batch = Batch::load(&files, rendering.as_ref()).expect("pair files load");
        let loaded = start.elapsed();
        let outcomes = pipeline::score(&batch, &model);
        let total = start.elapsed();
        let pairs = outcomes.iter().filter(|o| o.is_some()).count();
        let bytes: usize = batch.documents.total_bytes();
        println!(
            "round {round}: {pairs} pairs, {} documents ({:.1} MB), {threads} threads: \
             {:.0} pairs/s overall ({:.2} s: documents {:.2} s, signals+model {:.2} s)",
            batch.documents.len(),
            bytes as f64 / 1e6,
            pairs as f64 / total.as_secs_f64(),
            total.as_secs_f64(),
            loaded.as_secs_f64(),
            (total - loaded).as_secs_f64(),
        );
    }
}
