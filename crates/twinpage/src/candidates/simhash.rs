//! Charikar fingerprints and Manku's permuted tables: every pair of 64-bit
//! fingerprints within Hamming distance k, without comparing all pairs.
//!
//! The 64 bits are split into `k + 3` blocks (6 blocks of 11,11,11,11,10,10 for
//! k = 3). Two fingerprints within distance k differ in at most k blocks, so some
//! choice of `3` blocks agrees exactly. For each of the C(k+3, 3) choices (20 for
//! k = 3) a table holds every fingerprint permuted so that the chosen blocks lead,
//! sorted; fingerprints sharing the leading p bits (31–33 for k = 3) form runs,
//! and only those are checked for Hamming distance. A pair found by several tables
//! is reported by the first one whose leading blocks it agrees on, so exactly once.
//!
//! The fingerprint is [`crate::document::text::simhash`]: each distinct word votes
//! on every bit with its frequency as weight (features weighted, as the seed
//! says). [`wide`] concatenates independent 64-bit slices for Henzinger's 384-bit
//! fingerprint.

use anyhow::{bail, Result};
use rayon::prelude::*;

use super::candidate::Candidate;
use super::method::{Method, MethodKind, Sketch};
use super::sharing::combinations;
use crate::distance::hamming;
use crate::document::text;
use twinpage_util::hash::mix64;
use twinpage_util::params::Param;

/// Charikar fingerprints within Hamming distance k, found by permuted tables.
pub const KIND: MethodKind = MethodKind {
    name: "simhash",
    about: "64-bit Charikar fingerprints within Hamming distance k (Manku's permuted tables)",
    evidence: &["hamming"],
    params: &[HAMMING, SHINGLE_WORDS],
    build: |values| {
        Ok(Box::new(
            Simhash::new(values.get(&HAMMING)?)?.with_shingles(values.get(&SHINGLE_WORDS)?),
        ))
    },
};

/// Manku's k: near-duplicates differ in at most 3 of 64 bits.
pub const DEFAULT_HAMMING: u32 = 3;

const HAMMING: Param = Param {
    name: "hamming",
    value_name: "K",
    help: "simhash: largest Hamming distance between 64-bit fingerprints",
    default: || Some(DEFAULT_HAMMING.to_string()),
};

const SHINGLE_WORDS: Param = Param {
    name: "simhash-shingle-words",
    value_name: "N",
    help: "simhash: features are runs of N words (1: words, as Charikar; more keeps the \
           words common to every page from making all fingerprints alike)",
    default: || Some("1".into()),
};

/// The simhash method at one Hamming distance.
pub struct Simhash {
    layout: Layout,
    /// Words per feature (1: words).
    shingle_words: usize,
}

impl Simhash {
    pub fn new(hamming: u32) -> Result<Simhash> {
        Ok(Simhash {
            layout: Layout::new(hamming)?,
            shingle_words: 1,
        })
    }

    /// Fingerprints of runs of `words` words instead of single words.
    pub fn with_shingles(self, words: usize) -> Simhash {
        Simhash {
            shingle_words: words.max(1),
            ..self
        }
    }
}

/// The fingerprint a [`Simhash`] sketch is compared by: its shingled one when the
/// method made one, else the word fingerprint every sketch carries.
fn fingerprint_of(sketch: &Sketch) -> u64 {
    sketch.values.first().copied().unwrap_or(sketch.simhash)
}

impl Method for Simhash {
    fn kind(&self) -> &'static MethodKind {
        &KIND
    }

    fn sketch(&self, ids: &[u32]) -> Sketch {
        let shingled = (self.shingle_words > 1).then(|| {
            let shingles = text::word_shingles(ids, self.shingle_words);
            text::simhash_of_hashes(shingles.into_iter())
        });
        Sketch::new(ids, shingled.into_iter().collect())
    }

    fn judge(&self, a: &Sketch, b: &Sketch) -> Option<Vec<String>> {
        let d = hamming(fingerprint_of(a), fingerprint_of(b));
        (d <= self.layout.hamming).then(|| vec![d.to_string()])
    }

    fn pairs(&self, sketches: &[Sketch]) -> Result<Vec<Candidate>> {
        Ok(sketch_pairs(sketches, &self.layout, fingerprint_of)
            .into_iter()
            .map(|(a, b, d)| Candidate {
                a,
                b,
                evidence: vec![d.to_string()],
            })
            .collect())
    }

    /// The fewer bits apart, the closer.
    fn closeness(&self, evidence: &[String]) -> f64 {
        let distance = evidence.first().and_then(|d| d.parse::<f64>().ok());
        distance.map_or(f64::NEG_INFINITY, |d| -d)
    }
}

/// Pairs within the layout's distance among the sketches with words, by the
/// fingerprint `fingerprint` takes of a sketch: `(a, b, distance)`, sorted.
pub fn sketch_pairs(
    sketches: &[Sketch],
    layout: &Layout,
    fingerprint: impl Fn(&Sketch) -> u64,
) -> Vec<(u32, u32, u32)> {
    let live: Vec<u32> = (0..sketches.len() as u32)
        .filter(|&i| sketches[i as usize].words > 0)
        .collect();
    let fingerprints: Vec<u64> = live
        .iter()
        .map(|&i| fingerprint(&sketches[i as usize]))
        .collect();
    pairs_within(&fingerprints, layout)
        .into_iter()
        .map(|(a, b, d)| (live[a as usize], live[b as usize], d))
        .collect()
}

/// Blocks that must agree exactly in every table (the leading ones).
const LEADING_BLOCKS: usize = 3;

/// Largest Hamming distance supported: k + 3 blocks must leave leading prefixes
/// long enough (about 3 · 64 / (k + 3) bits) to keep runs short.
pub const MAX_HAMMING: u32 = 12;

/// The 64-bit fingerprint of a word sequence.
pub fn fingerprint(ids: &[u32]) -> u64 {
    text::simhash(ids)
}

/// A `64 · words`-bit Charikar fingerprint: independent 64-bit slices (seed 0 is
/// [`fingerprint`]). Henzinger used 384 bits (6 words).
pub fn wide(ids: &[u32], words: usize) -> Vec<u64> {
    (0..words as u64)
        .map(|w| {
            let seed = if w == 0 { 0 } else { mix64(w) };
            text::simhash_seeded(ids, seed)
        })
        .collect()
}

/// Agreeing bits of two wide fingerprints.
pub fn agreeing_bits(a: &[u64], b: &[u64]) -> u32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| 64 - (x ^ y).count_ones())
        .sum()
}

/// One permuted table's recipe: which bit ranges lead, and how many bits they are.
#[derive(Debug, Clone)]
struct Permutation {
    /// `(shift, len)` of each block in its new order (chosen blocks first).
    blocks: Vec<(u32, u32)>,
    /// Leading bits compared for equality (the chosen blocks' total length).
    prefix: u32,
    /// The chosen blocks' bits, in the original positions.
    mask: u64,
}

impl Permutation {
    fn apply(&self, x: u64) -> u64 {
        let mut out = 0u64;
        let mut filled = 0;
        for &(shift, len) in &self.blocks {
            let block = (x >> shift) & low_bits(len);
            filled += len;
            out |= block << (64 - filled);
        }
        out
    }

    fn key(&self, permuted: u64) -> u64 {
        permuted >> (64 - self.prefix)
    }
}

fn low_bits(len: u32) -> u64 {
    if len == 64 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    }
}

/// The tables for one Hamming distance.
#[derive(Debug, Clone)]
pub struct Layout {
    pub hamming: u32,
    permutations: Vec<Permutation>,
}

impl Layout {
    pub fn new(hamming: u32) -> Result<Layout> {
        if hamming > MAX_HAMMING {
            bail!("Hamming distance {hamming} is too large for permuted tables (at most {MAX_HAMMING})");
        }
        let count = hamming as usize + LEADING_BLOCKS;
        let blocks = split_bits(count);
        let permutations = combinations(count, LEADING_BLOCKS)
            .into_iter()
            .map(|chosen| {
                let rest = (0..count).filter(|b| !chosen.contains(b));
                let order: Vec<(u32, u32)> = chosen
                    .iter()
                    .copied()
                    .chain(rest)
                    .map(|b| blocks[b])
                    .collect();
                let prefix = chosen.iter().map(|&b| blocks[b].1).sum();
                let mask = chosen
                    .iter()
                    .fold(0, |m, &b| m | low_bits(blocks[b].1) << blocks[b].0);
                Permutation {
                    blocks: order,
                    prefix,
                    mask,
                }
            })
            .collect();
        Ok(Layout {
            hamming,
            permutations,
        })
    }

    pub fn tables(&self) -> usize {
        self.permutations.len()
    }

    /// Leading bits of each table (31–33 for k = 3).
    pub fn prefixes(&self) -> Vec<u32> {
        self.permutations.iter().map(|p| p.prefix).collect()
    }

    /// The first table whose leading blocks two fingerprints agree on: the one
    /// that reports the pair.
    fn owner(&self, a: u64, b: u64) -> Option<usize> {
        let diff = a ^ b;
        self.permutations.iter().position(|p| diff & p.mask == 0)
    }
}

/// 64 bits in `count` blocks, larger blocks first: `(shift, len)` from the top.
fn split_bits(count: usize) -> Vec<(u32, u32)> {
    let base = 64 / count as u32;
    let extra = 64 % count as u32;
    let mut top = 64;
    (0..count as u32)
        .map(|i| {
            let len = base + u32::from(i < extra);
            top -= len;
            (top, len)
        })
        .collect()
}

/// Every pair of `fingerprints` (indexed by document number) within the layout's
/// Hamming distance: `(a, b, distance)` with `a < b`, sorted.
pub fn pairs_within(fingerprints: &[u64], layout: &Layout) -> Vec<(u32, u32, u32)> {
    let mut pairs: Vec<(u32, u32, u32)> = (0..layout.tables())
        .into_par_iter()
        .flat_map_iter(|t| {
            let table = Table::build(layout, t, fingerprints.iter().copied().enumerate());
            table.self_pairs(fingerprints, layout)
        })
        .collect();
    pairs.par_sort_unstable();
    pairs
}

/// Every pair within distance `k` by comparing all pairs: the reference the tests
/// hold the tables to.
pub fn brute_force(fingerprints: &[u64], k: u32) -> Vec<(u32, u32, u32)> {
    let mut out = Vec::new();
    for (a, &x) in fingerprints.iter().enumerate() {
        for (b, &y) in fingerprints.iter().enumerate().skip(a + 1) {
            if hamming(x, y) <= k {
                out.push((a as u32, b as u32, hamming(x, y)));
            }
        }
    }
    out
}

/// One table: `(permuted fingerprint, document)` sorted.
#[derive(Debug, Clone)]
pub struct Table {
    number: usize,
    entries: Vec<(u64, u32)>,
}

impl Table {
    fn build(
        layout: &Layout,
        number: usize,
        fingerprints: impl Iterator<Item = (usize, u64)>,
    ) -> Table {
        let permutation = &layout.permutations[number];
        let mut entries: Vec<(u64, u32)> = fingerprints
            .map(|(id, f)| (permutation.apply(f), id as u32))
            .collect();
        entries.sort_unstable();
        Table { number, entries }
    }

    /// Pairs inside this table's runs that it owns.
    fn self_pairs(&self, fingerprints: &[u64], layout: &Layout) -> Vec<(u32, u32, u32)> {
        let permutation = &layout.permutations[self.number];
        let mut out = Vec::new();
        for run in self
            .entries
            .chunk_by(|x, y| permutation.key(x.0) == permutation.key(y.0))
        {
            for (i, &(_, a)) in run.iter().enumerate() {
                for &(_, b) in &run[i + 1..] {
                    let (fa, fb) = (fingerprints[a as usize], fingerprints[b as usize]);
                    let d = hamming(fa, fb);
                    if d <= layout.hamming && layout.owner(fa, fb) == Some(self.number) {
                        out.push((a.min(b), a.max(b), d));
                    }
                }
            }
        }
        out
    }

    /// Stored documents whose fingerprint this table owns a match with `query` for.
    fn probe(&self, query: u64, stored: &[u64], layout: &Layout, out: &mut Vec<(u32, u32)>) {
        let permutation = &layout.permutations[self.number];
        let key = permutation.key(permutation.apply(query));
        let start = self.entries.partition_point(|e| permutation.key(e.0) < key);
        for &(permuted, id) in &self.entries[start..] {
            if permutation.key(permuted) != key {
                break;
            }
            let f = stored[id as usize];
            let d = hamming(f, query);
            if d <= layout.hamming && layout.owner(f, query) == Some(self.number) {
                out.push((id, d));
            }
        }
    }
}

/// Stored fingerprints in all tables of a layout, for queries (the index).
#[derive(Debug, Clone)]
pub struct Tables {
    layout: Layout,
    fingerprints: Vec<u64>,
    tables: Vec<Table>,
}

impl Tables {
    /// Builds the tables of `fingerprints` (document number = position), in parallel.
    pub fn build(fingerprints: Vec<u64>, layout: Layout) -> Tables {
        let tables = (0..layout.tables())
            .into_par_iter()
            .map(|t| Table::build(&layout, t, fingerprints.iter().copied().enumerate()))
            .collect();
        Tables {
            layout,
            fingerprints,
            tables,
        }
    }

    pub fn len(&self) -> usize {
        self.fingerprints.len()
    }

    pub fn is_empty(&self) -> bool {
        self.fingerprints.is_empty()
    }

    /// Stored documents within the Hamming distance of `query`: `(document, distance)`, sorted.
    pub fn query(&self, query: u64) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for table in &self.tables {
            table.probe(query, &self.fingerprints, &self.layout, &mut out);
        }
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Random fingerprints plus, for each of some of them, copies at distance
    /// exactly `k` and `k + 1` (and a few at smaller distances).
    fn corpus(seed: u64, n: usize, k: u32) -> Vec<u64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut out: Vec<u64> = (0..n).map(|_| rng.random()).collect();
        let flip = |rng: &mut rand_chacha::ChaCha8Rng, mut f: u64, bits: u32| {
            let mut flipped = 0;
            while flipped < bits {
                let bit = 1u64 << rng.random_range(0..64);
                if f & bit == 0 {
                    f |= bit;
                    flipped += 1;
                }
            }
            f
        };
        for i in 0..n / 4 {
            let base = out[i];
            for d in [k, k + 1, k.saturating_sub(1), 0] {
                // Flip bits that are 0 so the distance is exactly d.
                out.push(flip(&mut rng, base, d));
            }
        }
        out
    }

    #[test]
    fn manku_layout_for_k3() {
        let layout = Layout::new(3).unwrap();
        assert_eq!(layout.tables(), 20);
        let prefixes = layout.prefixes();
        assert!(
            prefixes.iter().all(|p| (31..=33).contains(p)),
            "{prefixes:?}"
        );
        assert_eq!(
            split_bits(6).iter().map(|b| b.1).collect::<Vec<_>>(),
            [11, 11, 11, 11, 10, 10]
        );
    }

    #[test]
    fn permutation_keeps_hamming_distance() {
        let layout = Layout::new(3).unwrap();
        let (a, b) = (0x0123_4567_89ab_cdefu64, 0x0123_4567_89ab_cdeeu64 ^ 1 << 40);
        for p in &layout.permutations {
            assert_eq!(hamming(p.apply(a), p.apply(b)), hamming(a, b));
            assert_eq!(p.apply(u64::MAX), u64::MAX);
        }
    }

    #[test]
    fn tables_find_exactly_the_brute_force_pairs() {
        for k in 0..=5 {
            let fps = corpus(k as u64 + 1, 400, k);
            let layout = Layout::new(k).unwrap();
            assert_eq!(pairs_within(&fps, &layout), brute_force(&fps, k), "k = {k}");
        }
    }

    #[test]
    fn queries_find_exactly_the_brute_force_matches() {
        let k = 3;
        let fps = corpus(9, 300, k);
        let (stored, queries) = fps.split_at(200);
        let tables = Tables::build(stored.to_vec(), Layout::new(k).unwrap());
        for &q in queries {
            let brute: Vec<(u32, u32)> = stored
                .iter()
                .enumerate()
                .filter(|(_, &f)| hamming(f, q) <= k)
                .map(|(i, &f)| (i as u32, hamming(f, q)))
                .collect();
            assert_eq!(tables.query(q), brute);
        }
    }

    #[test]
    fn wide_fingerprint_starts_with_the_narrow_one() {
        let ids = [1, 2, 3, 3, 9];
        let w = wide(&ids, 6);
        assert_eq!(w.len(), 6);
        assert_eq!(w[0], fingerprint(&ids));
        assert_ne!(w[1], w[0]);
        assert_eq!(agreeing_bits(&w, &w), 384);
    }

    #[test]
    fn shingled_features_part_pages_of_common_words_and_keep_near_copies() {
        // Pages drawn from a skewed vocabulary, where a few words fill every page,
        // and near copies (3 words of 300 changed) of the first ten.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let word =
            |rng: &mut rand_chacha::ChaCha8Rng| (1.0 / rng.random_range(0.0005f64..1.0)) as u32;
        let mut pages: Vec<Vec<u32>> = (0..300)
            .map(|_| (0..300).map(|_| word(&mut rng)).collect())
            .collect();
        for i in 0..10 {
            let mut copy = pages[i].clone();
            for _ in 0..3 {
                let at = rng.random_range(0..copy.len());
                copy[at] = word(&mut rng);
            }
            pages.push(copy);
        }
        let found = |method: &Simhash| {
            let sketches: Vec<Sketch> = pages.iter().map(|p| method.sketch(p)).collect();
            let pairs = method.pairs(&sketches).unwrap();
            let judged = (0..sketches.len())
                .flat_map(|a| (a + 1..sketches.len()).map(move |b| (a, b)))
                .filter(|&(a, b)| method.judge(&sketches[a], &sketches[b]).is_some())
                .count();
            assert_eq!(pairs.len(), judged, "the tables find what judge accepts");
            let copies = (0..10)
                .filter(|&i| pairs.iter().any(|p| (p.a, p.b) == (i, i + 300)))
                .count();
            (pairs.len(), copies)
        };
        let (by_words, _) = found(&Simhash::new(3).unwrap());
        let (by_shingles, copies) = found(&Simhash::new(9).unwrap().with_shingles(2));
        assert_eq!(copies, 10, "every near copy is found");
        assert!(
            by_shingles < by_words / 4,
            "{by_shingles} pairs by shingles vs {by_words} by words"
        );
    }
}
