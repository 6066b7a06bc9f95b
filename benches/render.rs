//! Rendering throughput on the training corpus, three ways, on the same pages:
//!
//! 1. twinpage's tab pool (`render::supply` with an empty cache, as the first
//!    `score` over new documents does): pages/s, failures, cut-offs;
//! 2. `--dump-dom`, one process per page, as many at once as there are cores (the
//!    plain way to get a rendered DOM), with the pool's Chromium and, when it is
//!    another one, with the full browser at `/usr/bin/chromium`: pages/s, and ratios;
//! 3. `score` over pairs of these pages with the cache now warm: pairs/s.
//!
//! `cargo bench --bench render` (optionally `-- N` for the number of pages,
//! default 200, taken in order from `training-data/web/train.csv`).

mod common;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use twinpage::document::PairFile;
use twinpage::model::Model;
use twinpage::pipeline::{self, Batch};
use twinpage::render::{self, read_document, RenderOptions, RenderSettings, RenderedBody, Request};

/// Flags that keep a plain Chromium off the network, as the pool's browsers are.
const DUMP_DOM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    "--proxy-server=http://127.0.0.1:1",
    "--timeout=10000",
    "--dump-dom",
];

fn main() {
    common::run_like_the_binary();
    let pages: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(200);
    let documents = corpus_pages(pages);
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let options = RenderOptions::default();
    println!(
        "{} pages from training-data/web/train.csv, {cores} cores, {} tabs, deadline {:?}",
        documents.len(),
        options.tabs,
        options.deadline
    );

    let cache = tempfile::tempdir().expect("temporary cache");
    let settings = RenderSettings {
        cache: cache.path().to_path_buf(),
        options,
        retry_failed: false,
        replays: Default::default(),
    };
    let requests: Vec<Request> = documents
        .iter()
        .map(|document| Request {
            document,
            stored: None,
            content_hash: None,
        })
        .collect();
    let start = Instant::now();
    let (bodies, report) = render::supply(&requests, &settings).expect("Chromium renders");
    let pool = start.elapsed();
    let cut_off = bodies
        .iter()
        .filter(|b| matches!(b, RenderedBody::Measured(r) if r.cut_off))
        .count();
    let pool_rate = documents.len() as f64 / pool.as_secs_f64();
    println!(
        "tab pool:  {:.2} pages/s ({:.1} s; {} rendered, {} failed, {cut_off} cut off, browser launches included)",
        pool_rate,
        pool.as_secs_f64(),
        report.rendered,
        report.failed
    );

    let pools_chromium = RenderOptions::default().chromium;
    let full_browser = PathBuf::from("/usr/bin/chromium");
    let mut chromiums = vec![pools_chromium];
    if full_browser.is_file() && !chromiums.contains(&full_browser) {
        chromiums.push(full_browser);
    }
    for chromium in chromiums {
        let (dump_time, dump_failed) = dump_dom_all(&chromium, &documents, cores);
        let dump_rate = documents.len() as f64 / dump_time.as_secs_f64();
        println!(
            "--dump-dom with {}: {:.2} pages/s ({:.1} s; one process per page, {cores} at once; \
             {dump_failed} failed or timed out); the pool renders {:.2}x as fast",
            chromium.display(),
            dump_rate,
            dump_time.as_secs_f64(),
            pool_rate / dump_rate
        );
    }

    warm_score(&documents, &settings);
}

/// The first `n` distinct fetched bodies of the training pairs.
fn corpus_pages(n: usize) -> Vec<PathBuf> {
    let file = PairFile::read(Path::new("training-data/web/train.csv")).expect("training pairs");
    let mut seen = BTreeSet::new();
    file.pairs
        .iter()
        .flat_map(|p| [p.a.html.clone(), p.b.html.clone()])
        .filter(|path| seen.insert(path.clone()))
        .take(n)
        .collect()
}

/// Runs `chromium --dump-dom` once per page, `parallel` at a time; the time taken
/// and how many gave no DOM.
fn dump_dom_all(chromium: &Path, documents: &[PathBuf], parallel: usize) -> (Duration, usize) {
    let folder = tempfile::tempdir().expect("temporary folder");
    let pages: Vec<PathBuf> = documents
        .iter()
        .enumerate()
        .map(|(i, document)| {
            let page = folder.path().join(format!("page{i}.html"));
            std::fs::write(&page, read_document(document).expect("readable")).expect("written");
            page
        })
        .collect();
    let (next, failed) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let start = Instant::now();
    std::thread::scope(|scope| {
        for worker in 0..parallel {
            let (next, failed, pages, folder) = (&next, &failed, &pages, folder.path());
            scope.spawn(move || {
                while let Some(page) = pages.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let profile = folder.join(format!("profile{worker}"));
                    if !dump_dom(chromium, page, &profile) {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                    let _ = std::fs::remove_dir_all(&profile);
                }
            });
        }
    });
    (start.elapsed(), failed.load(Ordering::Relaxed))
}

/// One `--dump-dom` run, killed after 20 s; whether it printed a DOM.
fn dump_dom(chromium: &Path, page: &Path, profile: &Path) -> bool {
    let mut child = Command::new(chromium)
        .args(DUMP_DOM_FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium runs");
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut dom = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut dom);
        dom.len()
    });
    let started = Instant::now();
    while child.try_wait().ok().flatten().is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    reader.join().unwrap_or(0) > 0
}

/// `score` on pairs of consecutive pages, every render now in the cache.
fn warm_score(documents: &[PathBuf], settings: &RenderSettings) {
    let folder = tempfile::tempdir().expect("temporary folder");
    let pairs_path = folder.path().join("pairs.csv");
    let mut pairs = std::fs::File::create(&pairs_path).expect("pair file");
    writeln!(pairs, "url_a,url_b,html_a,html_b").expect("written");
    let absolute = |p: &PathBuf| std::fs::canonicalize(p).expect("exists");
    for (i, w) in documents.windows(2).enumerate() {
        let (a, b) = (absolute(&w[0]), absolute(&w[1]));
        writeln!(
            pairs,
            "https://a.example/{i},https://b.example/{i},{},{}",
            a.display(),
            b.display()
        )
        .expect("written");
    }
    drop(pairs);
    let model = Model::load(Path::new("models/default.json")).expect("the shipped model");
    let start = Instant::now();
    let batch = Batch::load(&[pairs_path], Some(settings)).expect("pairs load");
    let outcomes = pipeline::score(&batch, &model);
    let elapsed = start.elapsed();
    let scored = outcomes.iter().filter(|o| o.is_some()).count();
    println!(
        "score, warm cache: {:.0} pairs/s ({scored} pairs in {:.2} s; {} rendered now, {} from the cache)",
        scored as f64 / elapsed.as_secs_f64(),
        elapsed.as_secs_f64(),
        batch.documents.render_report.rendered,
        batch.documents.render_report.cached
    );
}
