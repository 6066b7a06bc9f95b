//! Pairs found by sorting, never by comparing all pairs: the search step the
//! bucketing methods share. Each sketch emits one key per subset of its
//! positions, equal keys form runs, and the pairs of a run are the candidates.

use super::candidate::Candidate;
use super::method::Sketch;
use twinpage_util::hash::mix64;

/// All `r`-element subsets of `0..n`, in lexicographic order (blocks of a
/// permuted table, pairs of supershingles for megashingles).
pub fn combinations(n: usize, r: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut current = Vec::with_capacity(r);
    fn walk(start: usize, n: usize, r: usize, current: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if current.len() == r {
            out.push(current.clone());
            return;
        }
        for i in start..n {
            current.push(i);
            walk(i + 1, n, r, current, out);
            current.pop();
        }
    }
    walk(0, n, r, &mut current, &mut out);
    out
}

/// Pairs of sketches that agree in at least `min_shared` positions, found by
/// sorting: each sketch emits one key per `min_shared`-subset of its positions
/// (a megashingle when `min_shared` is 2), equal keys form runs, and a pair is
/// reported only by the first subset its sketches agree on, so once. A value of
/// 0 is "absent" and never agrees. Returns `(a, b, positions agreeing)`, sorted.
pub fn pairs_sharing(sketches: &[Vec<u64>], min_shared: usize) -> Vec<(u32, u32, u32)> {
    use rayon::prelude::*;
    let width = sketches.iter().map(Vec::len).max().unwrap_or(0);
    if width < min_shared || min_shared == 0 {
        return Vec::new();
    }
    let subsets = combinations(width, min_shared);
    let mut pairs: Vec<(u32, u32, u32)> = subsets
        .par_iter()
        .enumerate()
        .flat_map_iter(|(s, subset)| {
            let keys: Vec<(u64, u32)> = sketches
                .iter()
                .enumerate()
                .filter_map(|(id, sk)| subset_key(sk, subset).map(|k| (k, id as u32)))
                .collect();
            same_key_pairs(keys)
                .filter_map(|(a, b)| {
                    let (sa, sb) = (&sketches[a as usize], &sketches[b as usize]);
                    (first_agreeing_subset(sa, sb, min_shared) == Some(s))
                        .then(|| (a, b, agreeing(sa, sb) as u32))
                })
                .collect::<Vec<_>>()
        })
        .collect();
    pairs.par_sort_unstable();
    pairs
}

/// Every pair `(a, b)`, `a < b`, of ids given the same key in `keys` (key, id):
/// the search step the bucketing methods share. Made as they are asked for: n ids
/// under one key (a group of near-copies) make n(n-1)/2 pairs, too many to hold.
pub(crate) fn same_key_pairs(mut keys: Vec<(u64, u32)>) -> SameKeyPairs {
    keys.sort_unstable();
    let mut pairs = SameKeyPairs {
        keys,
        first: 0,
        second: 1,
        run_end: 0,
    };
    pairs.run_end = pairs.end_of_run(0);
    pairs
}

/// The pairs of [`same_key_pairs`]: `first` with each id after it in its run of one key.
pub(crate) struct SameKeyPairs {
    keys: Vec<(u64, u32)>,
    first: usize,
    second: usize,
    run_end: usize,
}

impl SameKeyPairs {
    /// Where the run of the key at `start` ends.
    fn end_of_run(&self, start: usize) -> usize {
        let Some(&(key, _)) = self.keys.get(start) else {
            return start;
        };
        start + self.keys[start..].iter().take_while(|k| k.0 == key).count()
    }
}

impl Iterator for SameKeyPairs {
    type Item = (u32, u32);

    fn next(&mut self) -> Option<(u32, u32)> {
        loop {
            if self.second < self.run_end {
                let pair = (self.keys[self.first].1, self.keys[self.second].1);
                self.second += 1;
                return Some(pair);
            }
            self.first += 1;
            if self.first >= self.keys.len() {
                return None;
            }
            if self.first >= self.run_end {
                self.run_end = self.end_of_run(self.first);
            }
            self.second = self.first + 1;
        }
    }
}

/// The key of a subset of positions, or None when one of them is absent.
fn subset_key(sketch: &[u64], subset: &[usize]) -> Option<u64> {
    subset.iter().try_fold(0x51_7cc1_b727_220au64, |h, &p| {
        let v = *sketch.get(p)?;
        (v != 0).then(|| mix64(h ^ v ^ (p as u64) << 56))
    })
}

/// The candidates among `sketches` whose values agree in at least
/// `min_shared` positions (documents without words take part in none), with the
/// number of agreeing positions as evidence.
pub fn sharing(sketches: &[Sketch], min_shared: usize) -> Vec<Candidate> {
    let vectors: Vec<Vec<u64>> = sketches
        .iter()
        .map(|s| {
            if s.words > 0 {
                s.values.clone()
            } else {
                Vec::new()
            }
        })
        .collect();
    pairs_sharing(&vectors, min_shared)
        .into_iter()
        .map(|(a, b, n)| Candidate {
            a,
            b,
            evidence: vec![n.to_string()],
        })
        .collect()
}

/// Positions where two sketches hold the same present (non-zero) value.
pub fn agreeing(a: &[u64], b: &[u64]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x == y && **x != 0).count()
}

/// Index (in [`combinations`] order) of the first `r`-subset of positions on which
/// `a` and `b` agree: the agreeing positions' first `r`, ranked.
fn first_agreeing_subset(a: &[u64], b: &[u64], r: usize) -> Option<usize> {
    let width = a.len().max(b.len());
    let positions: Vec<usize> = (0..a.len().min(b.len()))
        .filter(|&i| a[i] == b[i] && a[i] != 0)
        .take(r)
        .collect();
    (positions.len() == r).then(|| subset_rank(&positions, width))
}

/// Rank of a sorted subset among all subsets of its size of `0..n`, lexicographically.
fn subset_rank(subset: &[usize], n: usize) -> usize {
    let r = subset.len();
    let mut rank = 0;
    let mut prev = 0;
    for (i, &p) in subset.iter().enumerate() {
        for skipped in prev..p {
            rank += binomial(n - skipped - 1, r - i - 1);
        }
        prev = p + 1;
    }
    rank
}

/// n choose k.
pub fn binomial(n: usize, k: usize) -> usize {
    if k > n {
        return 0;
    }
    (0..k).fold(1usize, |acc, i| acc * (n - i) / (i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_and_ranks_agree() {
        let all = combinations(6, 2);
        assert_eq!(all.len(), 15);
        for (rank, subset) in all.iter().enumerate() {
            assert_eq!(subset_rank(subset, 6), rank);
        }
        assert_eq!(combinations(6, 3).len(), 20);
        assert_eq!(binomial(6, 3), 20);
    }

    #[test]
    fn same_key_pairs_are_every_pair_of_one_key_once() {
        assert_eq!(same_key_pairs(Vec::new()).count(), 0);
        assert_eq!(same_key_pairs(vec![(7, 1)]).count(), 0);
        // Keys 3 (ids 0, 2, 5, 6), 9 (id 1) and 4 (ids 3, 4), given out of order.
        let keys = vec![(3, 5), (9, 1), (4, 4), (3, 0), (3, 6), (4, 3), (3, 2)];
        let mut found: Vec<(u32, u32)> = same_key_pairs(keys).collect();
        found.sort_unstable();
        let expected = [(0, 2), (0, 5), (0, 6), (2, 5), (2, 6), (3, 4), (5, 6)];
        assert_eq!(found, expected);
    }

    #[test]
    fn sharing_pairs_match_brute_force() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        // Small alphabet so that agreements are frequent; 0 means absent.
        let sketches: Vec<Vec<u64>> = (0..300)
            .map(|_| (0..6).map(|_| rng.random_range(0..4u64)).collect())
            .collect();
        for min_shared in 1..=3 {
            let found = pairs_sharing(&sketches, min_shared);
            let mut brute = Vec::new();
            for a in 0..sketches.len() {
                for b in a + 1..sketches.len() {
                    let n = agreeing(&sketches[a], &sketches[b]);
                    if n >= min_shared {
                        brute.push((a as u32, b as u32, n as u32));
                    }
                }
            }
            assert_eq!(found, brute, "min_shared {min_shared}");
        }
    }
}
