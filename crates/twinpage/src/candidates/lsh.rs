//! MinHash locality-sensitive hashing tuned to a Jaccard threshold, every
//! candidate verified.
//!
//! Broder's supershingles ([`super::minhash`]) are tuned for near-identical pages:
//! sharing 2 of 6 groups of 14 min-values happens for 88 % of pairs of resemblance
//! 0.95 but for 2.6 % at 0.80, so a copy with a few percent of its words edited is
//! missed. Here `h` min-values of a document's word shingles (one-permutation
//! hashing: each shingle hashed once, `one_permutation`) are cut into `b`
//! bands of `r` rows, and two documents are compared when one band agrees in full:
//! that happens with probability `1 - (1 - s^r)^b` at Jaccard `s`, an S-curve whose
//! step is placed at the `--threshold` by choosing `b` and `r` ([`banding`]) as
//! LSH libraries do: the pair minimising the false-positive probability integrated
//! below the threshold plus the false-negative probability integrated above it.
//! A band agreeing is only a reason to look: a pair is a candidate when its
//! estimated Jaccard (the share of the `h` min-values that agree) reaches the
//! threshold, so the list is precise, and its evidence says the estimate.
//!
//! A document keeps the low 16 bits of each min-value (b-bit minwise hashing),
//! four to a `u64`: 256 bytes for 128 values, so a million documents fit in a few
//! hundred megabytes. Two unrelated values agree by chance once in 65,536, which
//! moves an estimate by less than 0.0001.

use anyhow::{ensure, Result};
use rayon::prelude::*;

use super::candidate::Candidate;
use super::method::{drain_sorted, Method, MethodKind, PairStream, Sketch};
use super::sharing::same_key_pairs;
use crate::document::text;
use twinpage_util::hash::mix64;
use twinpage_util::params::{Param, ParamValues};

pub const KIND: MethodKind = MethodKind {
    name: "lsh",
    about: "MinHash LSH for a Jaccard threshold: bands x rows chosen for --threshold, every pair verified by its estimated Jaccard",
    evidence: &["estimated_jaccard"],
    params: &PARAMS,
    build: |values| Ok(Box::new(Lsh::new(Params::from_values(values)?)?)),
};

const PARAMS: [Param; 3] = [
    Param {
        name: "threshold",
        value_name: "J",
        help: "lsh: Jaccard of the word shingles from which two documents are a candidate pair",
        default: || Some(Params::default().threshold.to_string()),
    },
    Param {
        name: "lsh-hashes",
        value_name: "N",
        help: "lsh: min-hash values per document (more: a sharper threshold, more work)",
        default: || Some(Params::default().hashes.to_string()),
    },
    Param {
        name: "lsh-shingle-words",
        value_name: "N",
        help: "lsh: words per shingle",
        default: || Some(Params::default().shingle_words.to_string()),
    },
];

/// What the method is asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub threshold: f64,
    pub hashes: usize,
    pub shingle_words: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            threshold: 0.4,
            hashes: 128,
            shingle_words: 3,
        }
    }
}

impl Params {
    fn from_values(values: &ParamValues) -> Result<Params> {
        let [threshold, hashes, shingle_words] = &PARAMS;
        Ok(Params {
            threshold: values.get(threshold)?,
            hashes: values.get(hashes)?,
            shingle_words: values.get(shingle_words)?,
        })
    }
}

/// Bands and rows per band.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Banding {
    pub bands: usize,
    pub rows: usize,
}

/// The banding of `hashes` min-values whose S-curve best separates pairs below
/// `threshold` from pairs above it (equal weights on both errors).
pub fn banding(threshold: f64, hashes: usize) -> Banding {
    let mut best = (f64::INFINITY, Banding { bands: 1, rows: 1 });
    for bands in 1..=hashes {
        for rows in 1..=hashes / bands {
            let found = |s: f64| 1.0 - (1.0 - s.powi(rows as i32)).powi(bands as i32);
            let false_positive = integrate(found, 0.0, threshold);
            let false_negative = integrate(|s| 1.0 - found(s), threshold, 1.0);
            let error = 0.5 * false_positive + 0.5 * false_negative;
            if error < best.0 {
                best = (error, Banding { bands, rows });
            }
        }
    }
    best.1
}

/// Simpson's rule over 64 intervals: the curves are smooth.
fn integrate(f: impl Fn(f64) -> f64, from: f64, to: f64) -> f64 {
    const STEPS: usize = 64;
    let h = (to - from) / STEPS as f64;
    let inner: f64 = (1..STEPS)
        .map(|i| f(from + i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 })
        .sum();
    (f(from) + inner + f(to)) * h / 3.0
}

/// The method with its banding chosen.
pub struct Lsh {
    params: Params,
    banding: Banding,
}

impl Lsh {
    pub fn new(params: Params) -> Result<Lsh> {
        ensure!(
            params.threshold > 0.0 && params.threshold <= 1.0,
            "the threshold is a Jaccard in (0, 1], not {}",
            params.threshold
        );
        ensure!(
            (1..=1024).contains(&params.hashes),
            "1 to 1024 min-hash values, not {}",
            params.hashes
        );
        ensure!(params.shingle_words > 0, "a shingle has at least one word");
        Ok(Lsh {
            params,
            banding: banding(params.threshold, params.hashes),
        })
    }

    pub fn banding(&self) -> Banding {
        self.banding
    }

    /// The share of min-values two sketches agree on: their estimated Jaccard.
    pub fn estimate(&self, a: &[u64], b: &[u64]) -> f64 {
        let agree = (0..self.params.hashes)
            .filter(|&i| lane(a, i) == lane(b, i))
            .count();
        agree as f64 / self.params.hashes as f64
    }

    /// The fingerprint of band `band` of a sketch's values.
    pub fn band_key(&self, values: &[u64], band: usize) -> u64 {
        let rows = self.banding.rows;
        (band * rows..(band + 1) * rows).fold(mix64(band as u64), |h, i| mix64(h ^ lane(values, i)))
    }

    /// The first band on which two sketches agree in full.
    fn first_shared_band(&self, a: &[u64], b: &[u64]) -> Option<usize> {
        let rows = self.banding.rows;
        (0..self.banding.bands)
            .find(|&band| (band * rows..(band + 1) * rows).all(|i| lane(a, i) == lane(b, i)))
    }

    /// Whether a sketch holds this method's values (a document with words).
    fn usable(&self, sketch: &Sketch) -> bool {
        sketch.words > 0 && sketch.values.len() == self.signature_len()
    }

    fn verified(&self, a: &[u64], b: &[u64]) -> Option<Vec<String>> {
        let estimate = self.estimate(a, b);
        (estimate >= self.params.threshold).then(|| vec![format!("{estimate:.3}")])
    }

    /// `u64`s a document's signature takes.
    pub fn signature_len(&self) -> usize {
        signature_len(self.params.hashes)
    }
}

/// The band keys of stored signatures, sorted per band, so that each new document
/// is looked up (the index's query) instead of sorted in with them.
pub struct BandTables<'a> {
    lsh: &'a Lsh,
    /// The stored signatures, one after the other.
    stored: &'a [u64],
    bands: Vec<Vec<(u64, u32)>>,
}

impl<'a> BandTables<'a> {
    pub fn build(lsh: &'a Lsh, stored: &'a [u64]) -> BandTables<'a> {
        let len = lsh.signature_len();
        let bands = (0..lsh.banding.bands)
            .into_par_iter()
            .map(|band| {
                let mut keys: Vec<(u64, u32)> = stored
                    .chunks_exact(len)
                    .enumerate()
                    .map(|(id, values)| (lsh.band_key(values, band), id as u32))
                    .collect();
                keys.sort_unstable();
                keys
            })
            .collect();
        BandTables { lsh, stored, bands }
    }

    /// The stored documents whose estimated Jaccard with `sketch` reaches the
    /// threshold, with the estimate as evidence, by stored number.
    pub fn query(&self, sketch: &Sketch) -> Vec<(u32, Vec<String>)> {
        if !self.lsh.usable(sketch) {
            return Vec::new();
        }
        let mut seen: Vec<u32> = Vec::new();
        for (band, keys) in self.bands.iter().enumerate() {
            let key = self.lsh.band_key(&sketch.values, band);
            let from = keys.partition_point(|&(k, _)| k < key);
            seen.extend(
                keys[from..]
                    .iter()
                    .take_while(|&&(k, _)| k == key)
                    .map(|&(_, id)| id),
            );
        }
        seen.sort_unstable();
        seen.dedup();
        let len = self.lsh.signature_len();
        seen.into_iter()
            .filter_map(|id| {
                let values = &self.stored[id as usize * len..(id as usize + 1) * len];
                Some((id, self.lsh.verified(&sketch.values, values)?))
            })
            .collect()
    }
}

impl Method for Lsh {
    fn kind(&self) -> &'static MethodKind {
        &KIND
    }

    fn sketch(&self, ids: &[u32]) -> Sketch {
        let shingles = text::word_shingles(ids, self.params.shingle_words);
        Sketch::new(ids, one_permutation(&shingles, self.params.hashes))
    }

    fn judge(&self, a: &Sketch, b: &Sketch) -> Option<Vec<String>> {
        if !self.usable(a) || !self.usable(b) {
            return None;
        }
        let (a, b) = (&a.values, &b.values);
        self.first_shared_band(a, b)?;
        self.verified(a, b)
    }

    fn pairs(&self, sketches: &[Sketch]) -> Result<Vec<Candidate>> {
        Ok(drain_sorted(self.pair_streams(sketches)?))
    }

    /// One stream per band; a band's keys are made when its stream is first read.
    fn pair_streams<'s>(&'s self, sketches: &'s [Sketch]) -> Result<Vec<PairStream<'s>>> {
        let band_pairs = |band: usize| -> PairStream<'s> {
            let keyed = move || {
                let usable = sketches.iter().enumerate().filter(|(_, s)| self.usable(s));
                let keys = usable.map(|(id, s)| (self.band_key(&s.values, band), id as u32));
                same_key_pairs(keys.collect())
            };
            let verified = move |(a, b): (u32, u32)| {
                let (va, vb) = (&sketches[a as usize].values, &sketches[b as usize].values);
                // Each pair is taken by the first band it shares only.
                if self.first_shared_band(va, vb) != Some(band) {
                    return None;
                }
                let evidence = self.verified(va, vb)?;
                Some(Candidate { a, b, evidence })
            };
            Box::new(std::iter::once_with(keyed).flatten().filter_map(verified))
        };
        Ok((0..self.banding.bands).map(band_pairs).collect())
    }
}

/// `bins` min-values of a shingle set by one-permutation hashing: each shingle
/// is hashed once and falls into one bin, which keeps its smallest hash; an empty
/// bin borrows the value of a bin picked by its own hash sequence (optimal
/// densification, Shrivastava 2017), so two sets agree on a bin with probability
/// their Jaccard, as with `bins` independent hash functions, at the cost of one.
fn one_permutation(shingles: &[u64], bins: usize) -> Vec<u64> {
    if shingles.is_empty() {
        return Vec::new();
    }
    let mut values = vec![u64::MAX; bins];
    for &s in shingles {
        let h = mix64(s ^ 0x0e9e_3779_b97f_4a7c);
        // The high bits choose the bin (multiply-shift), the whole hash competes in it.
        let bin = (((h >> 32) * bins as u64) >> 32) as usize;
        values[bin] = values[bin].min(h);
    }
    let filled = values.clone();
    for (bin, value) in values.iter_mut().enumerate() {
        if *value != u64::MAX {
            continue;
        }
        let donor = (0u64..)
            .map(|attempt| (mix64(bin as u64 ^ mix64(attempt + 1)) % bins as u64) as usize)
            .find(|&d| filled[d] != u64::MAX)
            .expect("at least one bin holds a shingle");
        *value = mix64(filled[donor] ^ mix64(bin as u64));
    }
    pack(&values)
}

/// Min-values kept per `u64`.
const LANES: usize = 4;

/// `u64`s a signature of `hashes` min-values takes.
pub fn signature_len(hashes: usize) -> usize {
    hashes.div_ceil(LANES)
}

/// The low 16 bits of each value, [`LANES`] to a `u64` (the last one padded with 0).
fn pack(values: &[u64]) -> Vec<u64> {
    values
        .chunks(LANES)
        .map(|chunk| {
            chunk
                .iter()
                .enumerate()
                .fold(0u64, |packed, (i, &v)| packed | (v & 0xffff) << (16 * i))
        })
        .collect()
}

/// The `i`-th 16-bit min-value of a packed signature.
fn lane(packed: &[u64], i: usize) -> u64 {
    packed[i / LANES] >> (16 * (i % LANES)) & 0xffff
}

/// What a driver that joins documents elsewhere needs (`twinpage sketch`).
impl Lsh {
    /// The key of each band of a sketch's values, in band order: two sketches are
    /// looked at when they share one (band, key); none for a sketch that takes part
    /// in no pair (no words, or no values).
    pub fn band_keys(&self, sketch: &Sketch) -> Vec<u64> {
        if !self.usable(sketch) {
            return Vec::new();
        }
        (0..self.banding.bands)
            .map(|band| self.band_key(&sketch.values, band))
            .collect()
    }

    /// The sketch's (16-bit) min-values, in order; the estimated Jaccard of two
    /// sketches is the share of positions where they are equal.
    pub fn min_values(&self, sketch: &Sketch) -> Vec<u16> {
        (0..self.params.hashes)
            .map(|i| lane(&sketch.values, i) as u16)
            .collect()
    }

    /// Whether two documents known by their min-values (as [`Lsh::min_values`]
    /// gives them) are a candidate pair, as [`Method::pairs`] decides it: the
    /// estimated Jaccard as evidence, or none.
    pub fn judge_min_values(&self, a: &[u16], b: &[u16]) -> Result<Option<Vec<String>>> {
        let sketch = |values: &[u16]| -> Result<Sketch> {
            ensure!(
                values.len() == self.params.hashes,
                "{} min-values where the method takes {}",
                values.len(),
                self.params.hashes
            );
            Ok(Sketch {
                words: 1,
                simhash: 0,
                values: pack(&values.iter().map(|&v| u64::from(v)).collect::<Vec<_>>()),
            })
        };
        Ok(self.judge(&sketch(a)?, &sketch(b)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_banding_puts_the_step_of_the_curve_at_the_threshold() {
        for threshold in [0.5, 0.7, 0.8, 0.9] {
            let Banding { bands, rows } = banding(threshold, 128);
            assert!(bands * rows <= 128);
            // The S-curve's steepest point is near (1/b)^(1/r).
            let step = (1.0 / bands as f64).powf(1.0 / rows as f64);
            assert!(
                (step - threshold).abs() < 0.1,
                "{threshold}: {bands} x {rows}, step {step}"
            );
        }
        // 14 bands of 9 rows for 0.7 (step near (1/14)^(1/9) = 0.75); the default
        // 0.4: 32 bands of 4 rows.
        assert_eq!(banding(0.7, 128), Banding { bands: 14, rows: 9 });
        assert_eq!(
            banding(Params::default().threshold, 128),
            Banding { bands: 32, rows: 4 }
        );
        // Broder's 6 groups of 14 would put it far too high for 0.7.
        assert!((1.0f64 / 6.0).powf(1.0 / 14.0) > 0.85);
    }

    #[test]
    fn integration_is_exact_on_a_cubic() {
        let area = integrate(|s| s * s * s, 0.0, 1.0);
        assert!((area - 0.25).abs() < 1e-12);
    }

    /// Word ids of two texts whose 1-word shingle sets have Jaccard `shared / union`.
    fn texts(shared: u32, union: u32) -> (Vec<u32>, Vec<u32>) {
        let only = (union - shared) / 2;
        ((0..only + shared).collect(), (only..union).collect())
    }

    #[test]
    fn the_estimate_is_near_the_jaccard_and_decides() {
        let lsh = Lsh::new(Params {
            shingle_words: 1,
            ..Params::default()
        })
        .unwrap();
        // Around the default threshold 0.4: Jaccard 0.9 is a pair, 0.2 is not.
        for (shared, expect_pair) in [(900, true), (200, false)] {
            let (a, b) = texts(shared, 1000);
            let (sa, sb) = (lsh.sketch(&a), lsh.sketch(&b));
            let estimate = lsh.estimate(&sa.values, &sb.values);
            let jaccard = f64::from(shared) / 1000.0;
            // Binomial standard error over 128 values is at most 0.045.
            assert!((estimate - jaccard).abs() < 0.15, "{estimate} vs {jaccard}");
            assert_eq!(lsh.judge(&sa, &sb).is_some(), expect_pair, "{shared}");
        }
    }

    #[test]
    fn a_driver_judging_min_values_keeps_the_pairs_judge_keeps() {
        let lsh = Lsh::new(Params {
            shingle_words: 1,
            ..Params::default()
        })
        .unwrap();
        for shared in [100, 350, 400, 450, 900] {
            let (a, b) = texts(shared, 1000);
            let (sa, sb) = (lsh.sketch(&a), lsh.sketch(&b));
            let (va, vb) = (lsh.min_values(&sa), lsh.min_values(&sb));
            assert_eq!(
                lsh.judge_min_values(&va, &vb).unwrap(),
                lsh.judge(&sa, &sb),
                "{shared}"
            );
        }
        let short = lsh.judge_min_values(&[1, 2], &[1, 2]).unwrap_err();
        assert!(short
            .to_string()
            .contains("2 min-values where the method takes 128"));
    }

    #[test]
    fn one_permutation_agrees_as_often_as_the_jaccard_even_on_short_texts() {
        // 20 shared shingles of 40: Jaccard 0.5; 30 shingles a side leave most of
        // the 128 bins empty, so the densification carries the estimate.
        let trials = 300u64;
        let mean: f64 = (0..trials)
            .map(|t| {
                let set = |from: u64| -> Vec<u64> {
                    (from..from + 30).map(|i| mix64(i ^ t << 32)).collect()
                };
                let (a, b) = (
                    one_permutation(&set(0), 128),
                    one_permutation(&set(10), 128),
                );
                (0..128).filter(|&i| lane(&a, i) == lane(&b, i)).count() as f64 / 128.0
            })
            .sum::<f64>()
            / trials as f64;
        assert!((mean - 0.5).abs() < 0.03, "{mean}");
    }

    #[test]
    fn bad_parameters_say_what_is_wrong() {
        let with = |threshold, hashes| {
            Lsh::new(Params {
                threshold,
                hashes,
                ..Params::default()
            })
            .err()
            .map(|e| e.to_string())
        };
        assert!(with(1.5, 128).unwrap().contains("threshold"));
        assert!(with(0.7, 0).unwrap().contains("min-hash"));
        assert!(with(0.7, 128).is_none());
    }
}
