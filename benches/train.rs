//! Training time: a forest (and, for comparison, the single tree) fitted,
//! calibrated and measured on 100,000 labelled pairs × 80 signals.
//!
//! `cargo bench --bench train` (optionally `-- PAIRS SIGNALS`). The pairs are
//! synthetic: every fifth signal leans toward the label, the rest are noise, so
//! the trees grow to their full depth. Prints seconds per estimator kind.

mod common;

use std::time::Instant;

use twinpage::model::train::train;
use twinpage::model::{estimator_named, DecisionPolicy, LabelledPairs};
use twinpage::util::hash::mix64;
use twinpage::util::params::ParamValues;

fn main() {
    common::run_like_the_binary();
    let numbers: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let pairs = numbers.first().copied().unwrap_or(100_000);
    let signals = numbers.get(1).copied().unwrap_or(80);
    let set = synthetic(pairs, signals);
    let threads = rayon::current_num_threads();
    for kind in ["forest", "tree"] {
        let learner = (estimator_named(kind).unwrap().learner)(&ParamValues::default()).unwrap();
        let start = Instant::now();
        let trained = train(&set, None, learner.as_ref(), &DecisionPolicy::default(), 7).unwrap();
        let seconds = start.elapsed().as_secs_f64();
        println!(
            "train {kind}: {pairs} pairs x {signals} signals in {seconds:.1} s on {threads} threads; held-out F1 {:.4}",
            trained.heldout.f1
        );
    }
}

/// Uniform noise in [0, 1) from a pair and a signal index.
fn noise(i: usize, j: usize) -> f64 {
    (mix64((i as u64) << 8 ^ j as u64) % 1_000_000) as f64 / 1_000_000.0
}

fn synthetic(pairs: usize, signals: usize) -> LabelledPairs {
    let mut set = LabelledPairs::default();
    for i in 0..pairs {
        let label = mix64(i as u64).is_multiple_of(3);
        let vector: Vec<f64> = (0..signals)
            .map(|j| {
                let x = noise(i, j);
                // Every fifth signal leans a little toward the label: no
                // signal decides alone, so the trees grow deep.
                if j % 5 == 0 {
                    if label {
                        0.9 * x
                    } else {
                        0.1 + 0.9 * x
                    }
                } else {
                    x
                }
            })
            .collect();
        let mut a = [0u8; 32];
        a[..8].copy_from_slice(&(i as u64).to_le_bytes());
        let mut b = a;
        b[31] = 1;
        set.push(vector, label, (a, b));
    }
    set
}
