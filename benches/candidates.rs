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
//! 4. A synthetic crawl end to end (sizes 100,000 and 1,000,000; `-- --crawl
//!    N[,N…]` runs this part alone on those sizes):
//!    pages of 150-400 words from a Zipf vocabulary of 50,000 words, 5 % of them
//!    copies of an earlier page with 1-3 % of their words replaced (the recipe of
//!    `scripts/synthetic-corpus.py`, seeded), written once under
//!    `target/synthetic-crawl-N/`; then `twinpage candidates` with its defaults, as
//!    a user runs it, twice (pages as the disk cache has them, then cached): wall
//!    times, peak memory, candidates, and the recall of the planted pairs (all, and
//!    those of word 5-shingle Jaccard >= 0.8).

mod common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use twinpage::candidates::corpus::DocInfo;
use twinpage::candidates::index::{Index, Shard};
use twinpage::candidates::simhash::{self, Layout, Tables};
use twinpage::candidates::simhash::{Simhash, DEFAULT_HAMMING};
use twinpage::candidates::sketch::{sketch_file, TextChoice};
use twinpage::candidates::Sketch;
use twinpage::distance::hamming;
use twinpage::util::hash::mix64;

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
    text_arg(name).and_then(|v| v.parse().ok())
}

fn text_arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
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

/// Words of the synthetic crawl's vocabulary.
const VOCABULARY: usize = 50_000;

/// A synthetic crawl on disk: `docs.csv` (url,html) and `planted.csv`
/// (html_a,html_b,jaccard5), as `scripts/synthetic-corpus.py` writes them.
struct Crawl {
    docs: PathBuf,
    /// Planted pairs (document numbers) and their word 5-shingle Jaccard.
    planted: Vec<(u32, u32, f64)>,
}

fn page_path(dir: &Path, i: usize) -> PathBuf {
    dir.join("pages").join(format!("{i:07}.html"))
}

/// The number of a page from its path ([`page_path`]).
fn page_number(path: &str) -> u32 {
    let stem = Path::new(path).file_stem().and_then(|s| s.to_str());
    stem.unwrap_or("").parse().expect("a page number")
}

/// Writes (or finds, when an earlier run wrote it) the synthetic crawl of `n` pages.
fn synthetic_crawl(n: usize) -> Crawl {
    let dir = std::path::absolute(format!("target/synthetic-crawl-{n}")).expect("cwd");
    let (docs, planted_csv) = (dir.join("docs.csv"), dir.join("planted.csv"));
    if let Ok(text) = std::fs::read_to_string(&planted_csv) {
        if docs.is_file() {
            let planted = text
                .lines()
                .skip(1)
                .map(|l| {
                    let f: Vec<&str> = l.split(',').collect();
                    (
                        page_number(f[0]),
                        page_number(f[1]),
                        f[2].parse().expect("a Jaccard"),
                    )
                })
                .collect();
            return Crawl { docs, planted };
        }
    }
    let start = Instant::now();
    std::fs::create_dir_all(dir.join("pages")).expect("crawl folder");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let zipf: Vec<f64> = (1..=VOCABULARY)
        .scan(0.0, |sum, rank| {
            *sum += 1.0 / rank as f64;
            Some(*sum)
        })
        .collect();
    let word = |rng: &mut rand_chacha::ChaCha8Rng| -> u16 {
        let x = rng.random_range(0.0..zipf[VOCABULARY - 1]);
        zipf.partition_point(|&c| c <= x).min(VOCABULARY - 1) as u16
    };
    let mut texts: Vec<Vec<u16>> = Vec::with_capacity(n);
    let mut planted = Vec::new();
    for i in 0..n {
        let words = if i > 0 && rng.random_bool(0.05) {
            let source = rng.random_range(0..i);
            let mut words = texts[source].clone();
            let edits = ((words.len() as f64 * rng.random_range(0.01..0.03)) as usize).max(1);
            for _ in 0..edits {
                let at = rng.random_range(0..words.len());
                words[at] = word(&mut rng);
            }
            planted.push((source as u32, i as u32, jaccard5(&texts[source], &words)));
            words
        } else {
            let len = rng.random_range(150..=400);
            (0..len).map(|_| word(&mut rng)).collect()
        };
        let body: Vec<String> = words.iter().map(|w| format!("w{w}")).collect();
        let html = format!(
            "<html><head><title>page {i}</title></head><body><p>{}</p></body></html>",
            body.join(" ")
        );
        std::fs::write(page_path(&dir, i), html).expect("write a page");
        texts.push(words);
    }
    let mut csv = String::from("url,html\n");
    for i in 0..n {
        csv += &format!(
            "https://site{}.example/{i},{}\n",
            i % 997,
            page_path(&dir, i).display()
        );
    }
    std::fs::write(&docs, csv).expect("docs.csv");
    let mut csv = String::from("html_a,html_b,jaccard5\n");
    for &(a, b, j) in &planted {
        let (pa, pb) = (page_path(&dir, a as usize), page_path(&dir, b as usize));
        csv += &format!("{},{},{j:.3}\n", pa.display(), pb.display());
    }
    std::fs::write(&planted_csv, csv).expect("planted.csv");
    println!(
        "synthetic crawl: {n} pages, {} planted copies, written to {} in {:.0} s",
        planted.len(),
        dir.display(),
        start.elapsed().as_secs_f64()
    );
    Crawl { docs, planted }
}

/// Jaccard of the word 5-shingle sets of two texts.
fn jaccard5(a: &[u16], b: &[u16]) -> f64 {
    fn set(t: &[u16]) -> std::collections::HashSet<&[u16]> {
        t.windows(5).collect()
    }
    let (a, b) = (set(a), set(b));
    a.intersection(&b).count() as f64 / a.union(&b).count().max(1) as f64
}

/// `twinpage candidates` with its defaults on a synthetic crawl, twice: first with
/// the pages as the disk cache has them (a million small files read cold cost the
/// kernel more than parsing them costs twinpage), then with them cached. Time,
/// memory and recall.
fn crawl_run(n: usize) {
    let crawl = synthetic_crawl(n);
    let out = crawl.docs.with_file_name("candidates.csv");
    let mut walls = Vec::new();
    for _ in 0..2 {
        let start = Instant::now();
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_twinpage"))
            .args(["candidates", "--docs"])
            .arg(&crawl.docs)
            .arg("--out")
            .arg(&out)
            .stderr(std::process::Stdio::null())
            .status()
            .expect("twinpage runs");
        walls.push(start.elapsed().as_secs_f64());
        assert!(status.success(), "twinpage candidates failed");
    }
    let text = std::fs::read_to_string(&out).expect("candidates.csv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let (a, b) = (column("html_a"), column("html_b"));
    let found: std::collections::HashSet<(u32, u32)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let (x, y) = (page_number(f[a]), page_number(f[b]));
            (x.min(y), x.max(y))
        })
        .collect();
    let hit = |min: f64| {
        let wanted: Vec<_> = crawl.planted.iter().filter(|p| p.2 >= min).collect();
        let got = wanted
            .iter()
            .filter(|p| found.contains(&(p.0, p.1)))
            .count();
        (got, wanted.len())
    };
    let ((all, planted), (high, planted_high)) = (hit(0.0), hit(0.8));
    println!(
        "synthetic crawl of {n}: `twinpage candidates` (defaults) in {:.1} s (first run), {:.1} s \
         (again, pages cached), peak memory {:.0} MB; {} candidate pairs ({:.2} per planted pair); \
         recall {all}/{planted} = {:.4} of all planted pairs, {high}/{planted_high} = {:.4} of those \
         with Jaccard >= 0.8",
        walls[0],
        walls[1],
        children_peak_memory_mb(),
        found.len(),
        found.len() as f64 / planted.max(1) as f64,
        all as f64 / planted.max(1) as f64,
        high as f64 / planted_high.max(1) as f64,
    );
}

/// Largest peak resident memory of the child processes that ended so far.
fn children_peak_memory_mb() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    usage.ru_maxrss as f64 / 1024.0
}

fn main() {
    common::run_like_the_binary();
    if let Some(sizes) = text_arg("--crawl") {
        for n in sizes.split(',') {
            crawl_run(n.trim().parse().expect("--crawl N[,N...]"));
        }
        return;
    }
    fingerprints_and_index(arg("--docs").unwrap_or(1_000_000));
    for n in [100_000, 1_000_000] {
        crawl_run(n);
    }
}

/// Parts 1 to 3: real pages fingerprinted, pairs within k among `n` synthetic
/// fingerprints, and an on-disk index of them.
fn fingerprints_and_index(n: usize) {
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
    // Random signatures beside the fingerprints: this part times the fingerprints.
    let len = index.manifest.minhash.signature_len();
    let sketches: Vec<Sketch> = fps
        .iter()
        .map(|&simhash| Sketch {
            words: 1,
            simhash,
            values: (0..len).map(|i| mix64(simhash ^ i as u64)).collect(),
        })
        .collect();
    let no_records = vec![Vec::new(); docs.len()];
    index
        .add(&docs, &sketches, &no_records, Shard::all())
        .expect("add");
    drop(sketches);
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
