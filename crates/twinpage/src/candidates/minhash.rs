//! Broder's shingles, min-hashes, supershingles and megashingles.
//!
//! A document is its set of k-word shingles (k = 8). Each of m hash functions
//! (m = 84) keeps its smallest value over the set: two documents agree on one
//! such min-value with probability equal to their resemblance r (Jaccard of the
//! shingle sets). The m min-values are cut into m' groups of l (6 of 14), each
//! group fingerprinted into a supershingle; near-duplicates share at least 2
//! supershingles, which happens with probability
//! `1 - (1 - r^l)^m' - m' r^l (1 - r^l)^(m'-1)` ([`p_at_least`]): 0.88 at r = 0.95,
//! 0.026 at r = 0.80 (the Yandex seed rounds the first to 0.90). Every pair of
//! supershingles is a megashingle (15 per page): sharing one megashingle is
//! sharing two supershingles, so the pairs come from sorting megashingles
//! ([`super::sharing::pairs_sharing`]).

use anyhow::{bail, Result};

use super::method::{MethodKind, Sharing};
use crate::document::text;
use twinpage_util::hash::mix64;
use twinpage_util::params::{Param, ParamValues};

/// Broder's supershingles, at least `min-shared` of them shared.
pub const KIND: MethodKind = MethodKind {
    name: "minhash",
    about:
        "Broder: word shingles, min-hashes, supershingles; pairs sharing enough (by megashingles)",
    evidence: &["shared_supershingles"],
    params: &BRODER,
    build: |values| {
        let params = Params::from_values(values)?;
        let values = move |ids: &[u32]| supershingles(ids, &params);
        Ok(Box::new(Sharing::new(&KIND, values, params.min_shared)))
    },
};

/// The flags of Broder's parameters (the combined method takes them too).
pub const BRODER: [Param; 4] = [
    Param {
        name: "shingle-words",
        value_name: "N",
        help: "minhash/combined: words per shingle",
        default: || Some(Params::default().shingle_words.to_string()),
    },
    Param {
        name: "minhashes",
        value_name: "N",
        help: "minhash/combined: min-hash functions",
        default: || Some(Params::default().minhashes.to_string()),
    },
    Param {
        name: "supershingles",
        value_name: "N",
        help: "minhash/combined: supershingles (each of minhashes/supershingles min-values)",
        default: || Some(Params::default().supershingles.to_string()),
    },
    Param {
        name: "min-shared",
        value_name: "N",
        help: "minhash/combined: supershingles a pair must share",
        default: || Some(Params::default().min_shared.to_string()),
    },
];

/// Broder's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Words per shingle (k).
    pub shingle_words: usize,
    /// Min-hash functions (m).
    pub minhashes: usize,
    /// Supershingles (m'); each fingerprints m / m' min-values.
    pub supershingles: usize,
    /// Supershingles two near-duplicates share.
    pub min_shared: usize,
    /// Picks the hash family; 0 in production, varied by the tests.
    pub seed: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            shingle_words: 8,
            minhashes: 84,
            supershingles: 6,
            min_shared: 2,
            seed: 0,
        }
    }
}

impl Params {
    /// The Yandex comparison's A6: 5-word shingles, 36 min-hashes, 6 supershingles of 6.
    pub fn yandex_a6() -> Params {
        Params {
            shingle_words: 5,
            minhashes: 36,
            ..Params::default()
        }
    }

    pub fn check(&self) -> Result<()> {
        if self.shingle_words == 0 || self.supershingles == 0 || self.minhashes == 0 {
            bail!("shingle words, min-hashes and supershingles must be positive");
        }
        if !self.minhashes.is_multiple_of(self.supershingles) {
            bail!(
                "{} min-hashes do not split into {} supershingles of equal size",
                self.minhashes,
                self.supershingles
            );
        }
        if self.min_shared == 0 || self.min_shared > self.supershingles {
            bail!(
                "sharing {} of {} supershingles is not a test",
                self.min_shared,
                self.supershingles
            );
        }
        Ok(())
    }

    /// Broder's parameters from the values given (defaults for the rest), checked.
    pub fn from_values(values: &ParamValues) -> Result<Params> {
        let [shingle_words, minhashes, supershingles, min_shared] = &BRODER;
        let params = Params {
            shingle_words: values.get(shingle_words)?,
            minhashes: values.get(minhashes)?,
            supershingles: values.get(supershingles)?,
            min_shared: values.get(min_shared)?,
            seed: 0,
        };
        params.check()?;
        Ok(params)
    }

    /// Min-values per supershingle (l).
    pub fn group(&self) -> usize {
        self.minhashes / self.supershingles
    }
}

/// The supershingles of a word sequence (empty for a text without words).
pub fn supershingles(ids: &[u32], params: &Params) -> Vec<u64> {
    supershingles_of_set(&text::word_shingles(ids, params.shingle_words), params)
}

/// The supershingles of a set of shingle hashes.
pub fn supershingles_of_set(shingles: &[u64], params: &Params) -> Vec<u64> {
    if shingles.is_empty() {
        return Vec::new();
    }
    let minvalues: Vec<u64> = (0..params.minhashes as u64)
        .map(|i| {
            let salt = mix64(params.seed ^ mix64(i + 1));
            shingles.iter().map(|&s| mix64(s ^ salt)).min().unwrap_or(0)
        })
        .collect();
    minvalues
        .chunks(params.group())
        .enumerate()
        .map(|(g, group)| {
            let h = group.iter().fold(mix64(g as u64), |h, &v| mix64(h ^ v));
            h.max(1) // 0 means "absent" to the pair search
        })
        .collect()
}

/// Megashingles: one fingerprint per pair of supershingles (15 for 6).
pub fn megashingles(supershingles: &[u64]) -> Vec<u64> {
    super::sharing::combinations(supershingles.len(), 2)
        .iter()
        .map(|p| mix64(supershingles[p[0]] ^ mix64(supershingles[p[1]])))
        .collect()
}

/// Probability that two documents of resemblance `r` share at least `min_shared`
/// of `groups` supershingles of `group` min-values each.
pub fn p_at_least(r: f64, group: usize, groups: usize, min_shared: usize) -> f64 {
    let q = r.powi(group as i32);
    let below: f64 = (0..min_shared)
        .map(|j| {
            super::sharing::binomial(groups, j) as f64
                * q.powi(j as i32)
                * (1.0 - q).powi((groups - j) as i32)
        })
        .sum();
    1.0 - below
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::candidates::sharing::agreeing;

    #[test]
    fn probabilities_match_the_seed() {
        // Yandex seed, section 2: r = 0.95 → p^14 ≈ 0.49 and ≥ 2 of 6 ≈ 0.90 (the
        // formula gives 0.88: the seed rounds); r = 0.80 → 0.026.
        let p95 = p_at_least(0.95, 14, 6, 2);
        assert!((0.95f64.powi(14) - 0.49).abs() < 0.005);
        assert!((p95 - 0.90).abs() < 0.025, "{p95}");
        let p80 = p_at_least(0.80, 14, 6, 2);
        assert!((p80 - 0.026).abs() < 0.001, "{p80}");
        // A6 of the seed: 6 groups of 6 at r = 0.80, p^6 ≈ 0.26.
        assert!((0.80f64.powi(6) - 0.26).abs() < 0.005);
    }

    /// Two shingle sets of resemblance `shared / union`.
    fn sets(shared: u64, union: u64) -> (Vec<u64>, Vec<u64>) {
        let only = (union - shared) / 2;
        let a: Vec<u64> = (0..only + shared).map(mix64).collect();
        let b: Vec<u64> = (only..union).map(mix64).collect();
        (a, b)
    }

    #[test]
    fn supershingles_share_as_often_as_the_formula_says() {
        for (r, expected) in [
            (0.95, p_at_least(0.95, 14, 6, 2)),
            (0.80, p_at_least(0.80, 14, 6, 2)),
        ] {
            let (a, b) = sets((r * 1000.0) as u64, 1000);
            let trials = 400;
            let hits = (0..trials)
                .filter(|&t| {
                    let params = Params {
                        seed: t,
                        ..Params::default()
                    };
                    let (sa, sb) = (
                        supershingles_of_set(&a, &params),
                        supershingles_of_set(&b, &params),
                    );
                    agreeing(&sa, &sb) >= 2
                })
                .count();
            let observed = hits as f64 / trials as f64;
            // Binomial standard error at 400 trials is at most 0.025.
            assert!(
                (observed - expected).abs() < 0.06,
                "r {r}: {observed} vs {expected}"
            );
        }
    }

    #[test]
    fn one_minvalue_agrees_with_probability_r() {
        let (a, b) = sets(500, 1000);
        let params = Params {
            minhashes: 2000,
            supershingles: 2000,
            min_shared: 1,
            ..Params::default()
        };
        let (sa, sb) = (
            supershingles_of_set(&a, &params),
            supershingles_of_set(&b, &params),
        );
        let share = agreeing(&sa, &sb) as f64 / 2000.0;
        assert!((share - 0.5).abs() < 0.04, "{share}");
    }

    #[test]
    fn megashingles_are_pairs() {
        let ss = supershingles(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], &Params::default());
        assert_eq!(ss.len(), 6);
        assert_eq!(megashingles(&ss).len(), 15);
        assert!(supershingles(&[], &Params::default()).is_empty());
        assert!(Params {
            minhashes: 80,
            ..Params::default()
        }
        .check()
        .is_err());
    }
}
