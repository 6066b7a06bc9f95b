//! Candidate generation at crawl scale (not a timed test; `cargo bench --bench candidates`).
//!
//! 1. Fingerprinting rate on real pages: every document under
//!    `training-data/web/docs/` read, parsed and fingerprinted, core content and
//!    visible text, on all cores.
//! 2. A synthetic corpus of N fingerprints (default 1 000 000; `-- --docs N`):
//!    random 64-bit fingerprints with planted near-duplicates at Hamming
//!    distance 0–3 from a random earlier document, and decoys at distance 4
//!    that must not be reported. All pairs within k = 3 by the permuted tables:
//!    time, peak memory (VmHWM), recall of the planted pairs, and a check that
//!    every reported pair is within 3.
//! 3. The same fingerprints stored as an on-disk index: time to write, open
//!    and build the tables, and per-query latency (one thread) for queries that
//!    are planted near-duplicates and for random ones.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use twinpage::candidates::corpus::DocInfo;
use twinpage::candidates::index::{Index, Shard};
use twinpage::candidates::simhash::{self, Layout, Tables};
use twinpage::candidates::simhash::{Simhash, DEFAULT_HAMMING};
use twinpage::candidates::sketch::{sketch_file, TextChoice};
use twinpage::distance::hamming;

const K: u32 = 3;

fn peak_memory_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn arg(name: &str) -> Option<usize> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
}

fn fingerprinting_rate(docs: &Path) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(docs)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.to_string_lossy().ends_with(".html.gz"));
    files.sort();
    if files.is_empty() {
        println!("fingerprinting: no documents under {}", docs.display());
        return;
    }
    let bytes: u64 = files
        .iter()
        .map(|f| twinpage::document::decode::read_body(f).map_or(0, |b| b.raw_len as u64))
        .sum();
    let simhash = Simhash::new(DEFAULT_HAMMING).expect("the default distance");
    for text in [TextChoice::Core, TextChoice::Visible] {
        let start = Instant::now();
        let ok = files
            .par_iter()
            .filter(|f| sketch_file(f, &simhash, text).is_ok())
            .count();
        let secs = start.elapsed().as_secs_f64();
        println!(
            "fingerprinting ({text:?} text): {ok} real pages ({:.1} MB uncompressed, mean {:.0} KB) in {secs:.2} s = {:.0} pages/s, {:.1} MB/s on {} threads",
            bytes as f64 / 1e6,
            bytes as f64 / 1e3 / files.len() as f64,
            ok as f64 / secs,
            bytes as f64 / 1e6 / secs,
            rayon::current_num_threads()
        );
    }
}

/// Random fingerprints; every 100th document is a planted near-duplicate of a
/// random earlier one at distance 0–3, every 100th + 50 a decoy at distance 4.
/// Returns the fingerprints and the planted pairs.
fn synthetic(n: usize) -> (Vec<u64>, Vec<(u32, u32)>) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(42);
    let mut fps: Vec<u64> = Vec::with_capacity(n);
    let mut planted = Vec::new();
    for i in 0..n {
        let f = if i > 0 && i % 100 == 0 {
            let base = rng.random_range(0..i);
            planted.push((base as u32, i as u32));
            flip(&mut rng, fps[base], (i / 100 % 4) as u32)
        } else if i > 0 && i % 100 == 50 {
            let base = fps[rng.random_range(0..i)];
            flip(&mut rng, base, K + 1)
        } else {
            rng.random()
        };
        fps.push(f);
    }
    (fps, planted)
}

fn flip(rng: &mut impl Rng, mut f: u64, bits: u32) -> u64 {
    let mut flipped = 0u64;
    while flipped.count_ones() < bits {
        flipped |= 1 << rng.random_range(0..64);
    }
    f ^= flipped;
    f
}

fn main() {
    let n = arg("--docs").unwrap_or(1_000_000);
    let threads = rayon::current_num_threads();
    fingerprinting_rate(Path::new("training-data/web/docs"));

    let start = Instant::now();
    let (fps, planted) = synthetic(n);
    println!("synthetic corpus: {n} fingerprints, {} planted pairs at distance 0-3, generated in {:.2} s", planted.len(), start.elapsed().as_secs_f64());

    let layout = Layout::new(K).expect("k = 3");
    let start = Instant::now();
    let pairs = simhash::pairs_within(&fps, &layout);
    let secs = start.elapsed().as_secs_f64();
    let within = pairs
        .iter()
        .all(|&(a, b, d)| d <= K && hamming(fps[a as usize], fps[b as usize]) == d);
    let found: std::collections::HashSet<(u32, u32)> =
        pairs.iter().map(|&(a, b, _)| (a, b)).collect();
    let hits = planted
        .iter()
        .filter(|&&(a, b)| found.contains(&(a.min(b), a.max(b))))
        .count();
    println!(
        "all pairs within k = {K}: {} pairs in {secs:.2} s on {threads} threads ({} tables, prefixes {:?}); every pair within k: {within}; recall of planted pairs {hits}/{} = {:.4}; peak memory so far {:.0} MB",
        pairs.len(),
        layout.tables(),
        layout.prefixes(),
        planted.len(),
        hits as f64 / planted.len() as f64,
        peak_memory_mb()
    );

    let dir = tempfile::tempdir().expect("temp dir");
    let docs: Vec<DocInfo> = (0..n)
        .map(|i| DocInfo {
            url: format!("http://site{}.example/{i}", i % 997),
            html: format!("/crawl/{i}.html.gz"),
            rendered: String::new(),
            extra: vec![],
        })
        .collect();
    let start = Instant::now();
    let mut index = Index::open_or_create(dir.path(), TextChoice::Core).expect("index");
    index.add(&docs, &fps, Shard::all()).expect("add");
    drop(index);
    drop(docs);
    let write = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let index = Index::open(dir.path()).expect("open");
    let open = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let tables = Tables::build(index.fingerprints.clone(), layout);
    let build = start.elapsed().as_secs_f64();
    println!("index of {n}: written in {write:.2} s, opened in {open:.2} s, tables built in {build:.2} s; peak memory so far {:.0} MB", peak_memory_mb());

    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let queries = 20_000;
    let near: Vec<u64> = (0..queries)
        .map(|_| {
            let base = fps[rng.random_range(0..n)];
            let d = rng.random_range(0..=K);
            flip(&mut rng, base, d)
        })
        .collect();
    let random: Vec<u64> = (0..queries).map(|_| rng.random()).collect();
    for (what, qs) in [("near-duplicate", &near), ("random", &random)] {
        let mut micros: Vec<f64> = Vec::with_capacity(qs.len());
        let mut matched = 0;
        for &q in qs.iter() {
            let t = Instant::now();
            matched += usize::from(!tables.query(q).is_empty());
            micros.push(t.elapsed().as_secs_f64() * 1e6);
        }
        micros.sort_by(f64::total_cmp);
        let mean = micros.iter().sum::<f64>() / micros.len() as f64;
        println!(
            "query latency ({what}, one thread, {} queries against {n}): mean {mean:.1} µs, median {:.1} µs, p99 {:.1} µs; {matched} with a match",
            qs.len(),
            micros[micros.len() / 2],
            micros[micros.len() * 99 / 100]
        );
    }
    println!(
        "peak memory of the whole run (VmHWM): {:.0} MB",
        peak_memory_mb()
    );
}
