//! Replay rendering throughput: pages of a crawl rendered with the crawl's own
//! scripts, styles and fonts (every request answered from the archive), as
//! `twinpage dedupe` renders them, against the same pages rendered as lone files.
//!
//! `cargo bench --bench replay -- CRAWL.warc.gz [N]` renders the first N pages of the
//! crawl (default 400), each way with an empty cache. `scripts/bench-dedupe.sh` makes a
//! crawl of real training pages with their subresources (20,915 records for 10,000
//! pages); without an argument the bench uses the one it leaves in /tmp.

mod common;

use std::path::PathBuf;
use std::time::Instant;

use twinpage::dedupe::{read_into, replays, RunFolder, DOCS};
use twinpage::render::{self, RenderOptions, RenderSettings, Replays, Request};

const DEFAULT_CRAWL: &str = "/tmp/twinpage-bench-work/crawl-10000-seed7/crawl.warc.gz";

fn main() {
    common::run_like_the_binary();
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let crawl = PathBuf::from(args.first().map_or(DEFAULT_CRAWL, String::as_str));
    let pages: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(400);
    if !crawl.is_file() {
        eprintln!(
            "no crawl at {}: give one (cargo bench --bench replay -- CRAWL.warc.gz [N]), \
             or make it with scripts/bench-dedupe.sh",
            crawl.display()
        );
        std::process::exit(2);
    }
    let folder = tempfile::tempdir().expect("temporary folder");
    let run = RunFolder::open(folder.path(), &serde_json::json!({"bench": "replay"}), &[])
        .expect("run folder");
    let started = Instant::now();
    let inputs = [crawl.clone()];
    let read = read_into(&inputs, &run).expect("the crawl reads");
    let replays = replays(&inputs, &run).expect("the crawl's index");
    println!(
        "{}: {} records, {} pages read and indexed in {:.1} s",
        crawl.display(),
        read.records,
        read.pages,
        started.elapsed().as_secs_f64()
    );
    let documents = first_pages(&run, pages);
    let options = RenderOptions::default();
    println!(
        "{} pages, {} cores, {} tabs, deadline {:?}",
        documents.len(),
        std::thread::available_parallelism().map_or(1, |c| c.get()),
        options.tabs,
        options.deadline
    );
    let replayed = render_all(&documents, replays, &options);
    let lone = render_all(&documents, Replays::default(), &options);
    println!(
        "replayed:   {:.2} pages/s ({:.1} s; {} rendered, {} failed, {} with no visible text)",
        replayed.rate, replayed.seconds, replayed.rendered, replayed.failed, replayed.empty
    );
    println!(
        "lone files: {:.2} pages/s ({:.1} s; {} rendered, {} failed, {} with no visible text)",
        lone.rate, lone.seconds, lone.rendered, lone.failed, lone.empty
    );
}

/// The first `n` distinct pages of the run's docs.csv.
fn first_pages(run: &RunFolder, n: usize) -> Vec<PathBuf> {
    let mut docs = csv::Reader::from_path(run.path(DOCS)).expect("docs.csv");
    let mut pages: Vec<PathBuf> = Vec::new();
    for row in docs.records() {
        let path = run.dir().join(row.expect("a row").get(1).unwrap_or(""));
        if !pages.contains(&path) {
            pages.push(path);
        }
        if pages.len() == n {
            break;
        }
    }
    pages
}

struct Throughput {
    rate: f64,
    seconds: f64,
    rendered: usize,
    failed: usize,
    empty: usize,
}

/// Renders every page with an empty cache, browser launches included.
fn render_all(documents: &[PathBuf], replays: Replays, options: &RenderOptions) -> Throughput {
    let cache = tempfile::tempdir().expect("temporary cache");
    let settings = RenderSettings {
        cache: cache.path().to_path_buf(),
        options: options.clone(),
        retry_failed: false,
        replays,
    };
    let requests: Vec<Request> = documents
        .iter()
        .map(|document| Request {
            document: document.as_path(),
            stored: None,
            content_hash: None,
        })
        .collect();
    let started = Instant::now();
    let (bodies, report) = render::supply(&requests, &settings).expect("Chromium renders");
    let seconds = started.elapsed().as_secs_f64();
    Throughput {
        rate: documents.len() as f64 / seconds,
        seconds,
        rendered: report.rendered,
        failed: report.failed,
        empty: bodies.iter().filter(|b| visible_words(b) == 0).count(),
    }
}

fn visible_words(body: &render::RenderedBody) -> usize {
    match body {
        render::RenderedBody::Measured(r) => r.visible_text.split_whitespace().count(),
        _ => 0,
    }
}
