//! The learned contrast: which differing words (of titles, venues) make two things different.
//!
//! The vector carries the words one title (or venue) has and the other lacks
//! ([`crate::signals::contrast`]). A tree cannot weigh a word, so a logistic
//! regression over them (one weight per word, L2-regularised) is fitted on the
//! training pairs, and its probability stands in the slots' place as one more signal
//! for the trees: "upgrade", "mac", "academic", "part" against nothing learn to pull
//! towards distinct, a shop's name or "new" learn to weigh nothing.
//!
//! The trees must not learn from values the regression made of their own pairs (it
//! has seen their labels): the pairs the estimator is fitted on get the regression's
//! value out of fold (five folds by group of pairs sharing a document); every other
//! pair, and every pair scored later, the regression fitted on all of them.
//! Measured before it was built (scikit-learn, valid splits): Amazon-Google F1 0.577
//! to 0.682, Dirty Walmart-Amazon 0.825 to 0.851, the others and the web kinds
//! left out one at a time no worse (lab/RESULTS.md).

use std::borrow::Cow;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::signals::MISSING;
use twinpage_util::hash::mix64;

/// The name of the learned signal the trees read in the slots' place.
pub const LEARNED: &str = "contrast.learned";

/// Folds of the out-of-fold values.
const FOLDS: u64 = 5;
/// Full-batch AdaGrad steps, and its step size: enough to settle on 10,000 pairs.
const STEPS: usize = 300;
const STEP_SIZE: f64 = 0.5;
/// A word is weighed once it differs in this many training pairs. A rarer one is
/// mostly a name or a model number, which says which product a pair is about, not
/// what makes two products different: weighed, it learns the labels of the few pairs
/// it was in, and pulls the next pair about that product their way.
const MIN_PAIRS: usize = 3;
/// L2 weight, per pair (scikit-learn's `C = 1`): rare words stay small.
const L2_PER_PAIR: f64 = 1.0;

/// A weight for each word seen in the training pairs' differing words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contrast {
    /// Where the differing-word slots sit in the signal vector.
    pub slots: Range<usize>,
    pub bias: f64,
    /// Word hashes, ascending, and their weights.
    pub words: Vec<u32>,
    pub weights: Vec<f32>,
}

impl Contrast {
    /// The regression fitted on `rows` (vectors) and their labels.
    pub fn fit(slots: Range<usize>, rows: &[&[f64]], labels: &[bool]) -> Contrast {
        let pairs: Vec<Vec<u32>> = rows.iter().map(|x| words_of(&x[slots.clone()])).collect();
        let words = common_words(&pairs);
        let index: Vec<Vec<usize>> = pairs
            .iter()
            .map(|p| {
                p.iter()
                    .filter_map(|w| words.binary_search(w).ok())
                    .collect()
            })
            .collect();
        let (bias, weights) = logistic_regression(&index, labels, words.len());
        Contrast {
            slots,
            bias,
            words,
            weights: weights.into_iter().map(|w| w as f32).collect(),
        }
    }

    /// The probability of duplicate the differing words of `x` alone give;
    /// [`MISSING`] when no word differs (or the pages are no records), or when it
    /// learned no word (`train --no-contrast`): nothing to weigh.
    pub fn value(&self, x: &[f64]) -> f64 {
        let words = words_of(&x[self.slots.clone()]);
        if words.is_empty() || self.words.is_empty() {
            return MISSING;
        }
        let score: f64 = words
            .into_iter()
            .filter_map(|w| self.words.binary_search(&w).ok())
            .map(|i| f64::from(self.weights[i]))
            .sum();
        sigmoid(self.bias + score)
    }

    /// What the estimator reads of `x`: the slots replaced by `value`.
    pub fn features_with(&self, x: &[f64], value: f64) -> Vec<f64> {
        let mut out = Vec::with_capacity(x.len() + 1 - self.slots.len());
        out.extend_from_slice(&x[..self.slots.start]);
        out.push(value);
        out.extend_from_slice(&x[self.slots.end..]);
        out
    }

    /// The parts agree with a vector of `signals` values (a model file can be
    /// edited by hand).
    pub fn validate(&self, signals: usize) -> Result<(), String> {
        if self.slots.end > signals || self.slots.is_empty() {
            return Err(format!(
                "the contrast reads slots {:?} of {signals} signals",
                self.slots
            ));
        }
        if self.words.len() != self.weights.len() || !self.words.is_sorted() {
            return Err("the contrast's words and weights do not match".into());
        }
        Ok(())
    }
}

/// What an estimator reads of `x`: `x` itself, or with a `contrast`, its value in
/// the slots' place.
pub fn features<'a>(contrast: Option<&Contrast>, x: &'a [f64]) -> Cow<'a, [f64]> {
    match contrast {
        Some(c) => c.features_with(x, c.value(x)).into(),
        None => x.into(),
    }
}

/// The names of what an estimator reads, from the vector's `signals`.
pub fn feature_names(contrast: Option<&Contrast>, signals: &[String]) -> Vec<String> {
    let Some(c) = contrast else {
        return signals.to_vec();
    };
    let mut out = signals[..c.slots.start].to_vec();
    out.push(LEARNED.to_string());
    out.extend_from_slice(&signals[c.slots.end..]);
    out
}

/// The contrast fitted on the rows `fit` of `vectors`, and the value each vector
/// gets: out of fold for the rows of `fit` (by `groups`, so no pair's value comes
/// from a regression that saw a pair sharing its documents), from the whole fit for
/// the others.
pub fn learn(
    slots: Range<usize>,
    vectors: &[Vec<f64>],
    labels: &[bool],
    fit: &[usize],
    groups: &[u64],
    seed: u64,
) -> (Contrast, Vec<f64>) {
    let rows = |idx: &[usize]| -> (Vec<&[f64]>, Vec<bool>) {
        idx.iter()
            .map(|&i| (vectors[i].as_slice(), labels[i]))
            .unzip()
    };
    let (x, y) = rows(fit);
    let whole = Contrast::fit(slots.clone(), &x, &y);
    let mut values: Vec<f64> = vectors.iter().map(|v| whole.value(v)).collect();
    let fold = |i: usize| mix64(groups[i] ^ mix64(seed ^ 0xc0a7)) % FOLDS;
    for k in 0..FOLDS {
        let (inside, outside): (Vec<usize>, Vec<usize>) = fit.iter().partition(|&&i| fold(i) == k);
        if inside.is_empty() {
            continue;
        }
        let (x, y) = rows(&outside);
        let part = Contrast::fit(slots.clone(), &x, &y);
        for i in inside {
            values[i] = part.value(&vectors[i]);
        }
    }
    (whole, values)
}

/// The words that differ in at least [`MIN_PAIRS`] pairs, ascending.
fn common_words(pairs: &[Vec<u32>]) -> Vec<u32> {
    let mut all: Vec<u32> = pairs.iter().flatten().copied().collect();
    all.sort_unstable();
    all.chunk_by(|a, b| a == b)
        .filter(|run| run.len() >= MIN_PAIRS)
        .map(|run| run[0])
        .collect()
}

/// The word hashes in a vector's slots.
fn words_of(slots: &[f64]) -> Vec<u32> {
    slots
        .iter()
        .filter(|&&v| v >= 0.0) // MISSING is -1
        .map(|&v| v as u32)
        .collect()
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// L2-regularised logistic regression on binary features (each row the indices of
/// its words), fitted by full-batch AdaGrad: deterministic, and on a few thousand
/// rows of a few words each, milliseconds. The bias is not regularised.
fn logistic_regression(rows: &[Vec<usize>], labels: &[bool], width: usize) -> (f64, Vec<f64>) {
    let n = rows.len().max(1) as f64;
    let l2 = L2_PER_PAIR / n;
    let (mut bias, mut weights) = (0.0, vec![0.0; width]);
    let (mut bias_sum, mut sums) = (0.0, vec![0.0; width]);
    let mut gradient = vec![0.0; width];
    for _ in 0..STEPS {
        gradient.iter_mut().for_each(|g| *g = 0.0);
        let mut bias_gradient = 0.0;
        for (row, &label) in rows.iter().zip(labels) {
            let z = bias + row.iter().map(|&j| weights[j]).sum::<f64>();
            let error = (sigmoid(z) - f64::from(u8::from(label))) / n;
            bias_gradient += error;
            row.iter().for_each(|&j| gradient[j] += error);
        }
        bias_sum += bias_gradient * bias_gradient;
        bias -= STEP_SIZE * bias_gradient / (bias_sum.sqrt() + 1e-12);
        for j in 0..width {
            let g = gradient[j] + l2 * weights[j];
            sums[j] += g * g;
            weights[j] -= STEP_SIZE * g / (sums[j].sqrt() + 1e-12);
        }
    }
    (bias, weights)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vectors of one signal, then two slots.
    fn row(signal: f64, words: &[u32]) -> Vec<f64> {
        let mut x = vec![signal];
        x.extend(words.iter().map(|&w| f64::from(w)));
        x.resize(3, MISSING);
        x
    }

    #[test]
    fn a_word_that_marks_different_things_pulls_towards_distinct() {
        // Word 7 ("upgrade") is in the difference of every distinct pair; word 9 (a
        // shop's name) in half of each kind.
        let mut vectors = Vec::new();
        let mut labels = Vec::new();
        for i in 0..200 {
            let duplicate = i % 2 == 0;
            let shop: &[u32] = if i % 4 < 2 { &[9] } else { &[] };
            let words: Vec<u32> = if duplicate {
                shop.to_vec()
            } else {
                [&[7], shop].concat()
            };
            vectors.push(row(0.5, &words));
            labels.push(duplicate);
        }
        let rows: Vec<&[f64]> = vectors.iter().map(Vec::as_slice).collect();
        let contrast = Contrast::fit(1..3, &rows, &labels);
        let upgrade = contrast.value(&row(0.5, &[7]));
        let shop = contrast.value(&row(0.5, &[9]));
        let nothing = contrast.value(&row(0.5, &[]));
        assert!(upgrade < 0.1, "{upgrade}");
        assert!(shop > 0.8, "{shop}");
        assert_eq!(nothing, MISSING);
        assert_eq!(
            features(Some(&contrast), &row(0.5, &[7])).into_owned(),
            vec![0.5, upgrade]
        );
        assert_eq!(
            feature_names(Some(&contrast), &["a".into(), "w1".into(), "w2".into()]),
            vec!["a".to_string(), LEARNED.to_string()]
        );
    }

    #[test]
    fn pairs_fitted_on_get_values_from_folds_that_never_saw_them() {
        // A word in three duplicate pairs, one group: out of fold nothing is known of it.
        let mut vectors = vec![row(0.0, &[42]); 3];
        let mut labels = vec![true; 3];
        for i in 0..100 {
            vectors.push(row(0.0, &[1000 + i % 10]));
            labels.push(i % 2 == 0);
        }
        let fit: Vec<usize> = (0..vectors.len()).collect();
        let groups: Vec<u64> = (0..vectors.len() as u64).map(|g| g.max(2)).collect();
        let (whole, values) = learn(1..3, &vectors, &labels, &fit, &groups, 7);
        let unknown = whole.value(&row(0.0, &[5]));
        assert!(whole.value(&vectors[0]) > values[0] + 0.05);
        assert!(
            (values[0] - unknown).abs() < 0.15,
            "{} {unknown}",
            values[0]
        );
    }
}
