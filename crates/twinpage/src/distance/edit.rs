//! Edit distances on token sequences: Levenshtein, Damerau-Levenshtein (optimal
//! string alignment) and the longest common subsequence, bit-parallel.
//!
//! A changed word costs Levenshtein 1 and an inserted block (ads, navigation) its
//! length; Damerau-Levenshtein counts two swapped neighbouring words as 1 instead of 2;
//! the LCS counts a changed word twice (it leaves the common part on both sides), so it
//! measures shared content in order.

use rapidfuzz::distance::{levenshtein as lev, osa};
use std::collections::HashMap;

use super::normalised::ratio;
use super::tokens::shorter_first;

/// Levenshtein distance on token sequences (bit-parallel), normalised by the longer
/// length -> `[0, 1]`. Two empty sequences are at distance 0.
///
/// rapidfuzz first looks for the distance in a diagonal band, doubled while the distance
/// does not fit, up to an eighth of the longer length: near-duplicates, the usual
/// candidate pairs, end there after a few narrow passes (100 000 tokens, 3 % edited:
/// 0.1 s). A larger distance needs the whole matrix, which the Myers walk below computes
/// 2 to 3.5 times faster than rapidfuzz on long token sequences (see `Pattern`).
pub fn levenshtein(a: &[u32], b: &[u32]) -> f64 {
    let longest = a.len().max(b.len());
    let banded = lev::Args::default().score_hint(0).score_cutoff(longest / 8);
    let distance = lev::distance_with_args(a, b, &banded).unwrap_or_else(|| myers_distance(a, b));
    ratio(distance, longest)
}

/// Damerau-Levenshtein distance on token sequences in its optimal string alignment (OSA)
/// form, normalised by the longer cut length -> `[0, 1]`. Both inputs are cut to their
/// first `max_tokens` tokens first; `max_tokens = 0` compares nothing and returns 0.
///
/// OSA, not the unrestricted distance: they differ only when a swapped pair is edited
/// again (`[2, 1]` vs `[1, 3, 2]`: 3 for OSA, 2 unrestricted), which word sequences hardly
/// ever need, while rapidfuzz computes OSA bit-parallel and the unrestricted distance
/// cell by cell: about 40 times slower at 2000 tokens (60 ms against 1.5 ms), 7.5 s at
/// 20 000. OSA is not a metric (no triangle inequality); a decision tree does not need
/// one.
pub fn damerau_levenshtein(a: &[u32], b: &[u32], max_tokens: usize) -> f64 {
    let a = &a[..a.len().min(max_tokens)];
    let b = &b[..b.len().min(max_tokens)];
    ratio(osa::distance(a, b), a.len().max(b.len()))
}

/// Longest common subsequence on tokens, as a distance: `1 - lcs / max(len)` ->
/// `[0, 1]`. Two empty sequences are at distance 0.
pub fn lcs_distance(a: &[u32], b: &[u32]) -> f64 {
    let longest = a.len().max(b.len());
    ratio(longest - lcs_length(a, b), longest)
}

/// Removes the common prefix and suffix, returning what is left of both and how many
/// tokens were removed. Edit distances do not change, and the LCS loses exactly them;
/// near-duplicates that differ in one region (a date, a footer) shrink to that region.
fn trim_common_affixes<'a>(a: &'a [u32], b: &'a [u32]) -> (&'a [u32], &'a [u32], usize) {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (
        &a[..a.len() - suffix],
        &b[..b.len() - suffix],
        prefix + suffix,
    )
}

/// Bit-parallel match table of a token sequence (the "pattern" of the bit-vector
/// algorithms): position `i` is bit `i % 64` of word `i / 64`, and each distinct token
/// keeps only the words it occurs in, as `(word, mask)` pairs in word order.
///
/// rapidfuzz instead keeps a 128-slot hash table per 64-position word and probes one per
/// word and per token of the other text; past a few thousand tokens those probes miss the
/// caches: its LCS ran 4 times slower than the walk over these rows at 1000 tokens, 10
/// times slower at 100 000.
struct Pattern {
    rows: HashMap<u32, usize>,
    /// Row `r` is `entries[starts[r]..starts[r + 1]]`.
    starts: Vec<usize>,
    entries: Vec<(usize, u64)>,
    /// Number of 64-bit words covering the sequence.
    words: usize,
}

impl Pattern {
    fn new(text: &[u32]) -> Self {
        let mut rows = HashMap::with_capacity(text.len());
        let row_of: Vec<usize> = text
            .iter()
            .map(|&token| {
                let next = rows.len();
                *rows.entry(token).or_insert(next)
            })
            .collect();
        // Two passes over the positions, counting then filling, lay the rows out in one
        // vector; a position joins the previous entry of its row when they share a word.
        let mut last_word = vec![usize::MAX; rows.len()];
        let mut counts = vec![0; rows.len()];
        for (i, &row) in row_of.iter().enumerate() {
            if last_word[row] != i / 64 {
                last_word[row] = i / 64;
                counts[row] += 1;
            }
        }
        let mut starts = vec![0; rows.len() + 1];
        for (row, count) in counts.iter().enumerate() {
            starts[row + 1] = starts[row] + count;
        }
        let mut entries = vec![(0, 0); starts[rows.len()]];
        let mut filled = starts.clone();
        for (i, &row) in row_of.iter().enumerate() {
            let (word, bit) = (i / 64, 1u64 << (i % 64));
            if filled[row] > starts[row] && entries[filled[row] - 1].0 == word {
                entries[filled[row] - 1].1 |= bit;
            } else {
                entries[filled[row]] = (word, bit);
                filled[row] += 1;
            }
        }
        Self {
            rows,
            starts,
            entries,
            words: text.len().div_ceil(64),
        }
    }

    /// The words where `token` occurs, with their masks; empty for an unknown token.
    fn row(&self, token: u32) -> &[(usize, u64)] {
        match self.rows.get(&token) {
            Some(&row) => &self.entries[self.starts[row]..self.starts[row + 1]],
            None => &[],
        }
    }
}

/// Length of the longest common subsequence, by Hyyrö's bit-parallel algorithm (2004) on
/// a [`Pattern`] of the shorter sequence.
fn lcs_length(a: &[u32], b: &[u32]) -> usize {
    let (a, b, common) = trim_common_affixes(a, b);
    let (short, long) = shorter_first(a, b);
    if short.is_empty() {
        return common;
    }
    let pattern = Pattern::new(short);
    // The 0 bits of `s` count the LCS of `short` and the tokens read so far (a 0 at bit i:
    // the LCS grows at row i); all 1s is the empty LCS. Bits past the end of `short` stay
    // 1: no mask has them, so `S & !M` keeps them and the update ORs them back.
    let mut s = vec![!0u64; pattern.words];
    for &token in long {
        lcs_column(&mut s, pattern.row(token));
    }
    common
        + s.iter()
            .map(|word| word.count_zeros() as usize)
            .sum::<usize>()
}

/// One column of the LCS: `S = (S + (S & M)) | (S & !M)` over the multi-word `S`, `M`
/// being the token's match mask.
///
/// Where `M` is 0 the update is `S + carry | S`: a word without matches and without an
/// incoming carry does not change, so only the token's words and the carries they start
/// are visited, which makes rare tokens cheap.
fn lcs_column(s: &mut [u64], row: &[(usize, u64)]) {
    let (mut carry, mut from) = (false, 0);
    for &(word, mask) in row {
        if carry {
            carry = carry_through(&mut s[from..word]);
        }
        let matched = s[word] & mask;
        let (sum, overflow) = s[word].overflowing_add(matched);
        let (sum, overflow_carry) = sum.overflowing_add(u64::from(carry));
        s[word] = sum | (s[word] - matched);
        carry = overflow || overflow_carry;
        from = word + 1;
    }
    if carry {
        carry_through(&mut s[from..]);
    }
}

/// Adds a carry into words without matches: a word of all 1s passes it on unchanged
/// (`S + 1` overflows to 0, `| S` restores it), the first other word absorbs it. Returns
/// whether the carry got through all of them.
fn carry_through(words: &mut [u64]) -> bool {
    match words.iter_mut().find(|word| **word != !0) {
        Some(word) => {
            *word |= *word + 1;
            false
        }
        None => true,
    }
}

/// Levenshtein distance by Myers' bit-vector algorithm in Hyyrö's multi-word form, over
/// the whole matrix, on a [`Pattern`] of the shorter sequence.
fn myers_distance(a: &[u32], b: &[u32]) -> usize {
    let (a, b, _) = trim_common_affixes(a, b);
    let (short, long) = shorter_first(a, b);
    if short.is_empty() {
        return long.len();
    }
    let pattern = Pattern::new(short);
    // Vertical deltas (+1 bits, -1 bits) of the current column; column 0 (0, 1, 2, ...
    // down the rows) is all +1.
    let mut deltas = vec![(!0u64, 0u64); pattern.words];
    let (inner, last) = deltas.split_at_mut(pattern.words - 1);
    let bottom = 1u64 << ((short.len() - 1) % 64);
    // The token's match masks, spread over all words for a branch-free inner loop, and
    // cleared again through the row.
    let mut masks = vec![0u64; pattern.words];
    let mut distance = short.len();
    for &token in long {
        let row = pattern.row(token);
        for &(word, mask) in row {
            masks[word] = mask;
        }
        // The top row, 0, 1, 2, ..., grows by 1 per column.
        let (mut hp, mut hn) = (1, 0);
        for (deltas, &mask) in inner.iter_mut().zip(&masks) {
            let (p, n) = myers_word(deltas, mask, hp, hn);
            (hp, hn) = (p >> 63, n >> 63);
        }
        let (p, n) = myers_word(&mut last[0], masks[pattern.words - 1], hp, hn);
        // The bottom cell moves by the horizontal delta of the last row.
        distance = distance + usize::from(p & bottom != 0) - usize::from(n & bottom != 0);
        for &(word, _) in row {
            masks[word] = 0;
        }
    }
    distance
}

/// One 64-row word of one column of Myers' algorithm: updates the word's vertical deltas
/// from the match mask and the horizontal deltas entering from the word above (`hp_in`,
/// `hn_in`), and returns its own horizontal deltas (+1 and -1 bits), unshifted: bit 63
/// goes on to the word below.
fn myers_word(deltas: &mut (u64, u64), mask: u64, hp_in: u64, hn_in: u64) -> (u64, u64) {
    let (vp, vn) = *deltas;
    let x = mask | hn_in;
    let d0 = ((x & vp).wrapping_add(vp) ^ vp) | x | vn;
    let hp = vn | !(d0 | vp);
    let hn = d0 & vp;
    let (hp_shifted, hn_shifted) = ((hp << 1) | hp_in, (hn << 1) | hn_in);
    *deltas = (hn_shifted | !(d0 | hp_shifted), hp_shifted & d0);
    (hp, hn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::substring::longest_common_substring;
    use crate::distance::testing::{mutate, Lcg};

    /// Textbook O(n·m) Levenshtein, the reference for the bit-parallel ones.
    fn naive_levenshtein(a: &[u32], b: &[u32]) -> usize {
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for (i, x) in a.iter().enumerate() {
            let mut cur = vec![i + 1; b.len() + 1];
            for (j, y) in b.iter().enumerate() {
                let substitution = prev[j] + usize::from(x != y);
                cur[j + 1] = substitution.min(prev[j + 1] + 1).min(cur[j] + 1);
            }
            prev = cur;
        }
        prev[b.len()]
    }

    /// Textbook O(n·m) longest common subsequence.
    fn naive_lcs(a: &[u32], b: &[u32]) -> usize {
        let mut prev = vec![0; b.len() + 1];
        for x in a {
            let mut cur = vec![0; b.len() + 1];
            for (j, y) in b.iter().enumerate() {
                cur[j + 1] = if x == y {
                    prev[j] + 1
                } else {
                    prev[j + 1].max(cur[j])
                };
            }
            prev = cur;
        }
        prev[b.len()]
    }

    /// `0, 1, …, n - 1` and the same reversed: only one token (the middle one, for odd
    /// `n`) can stay aligned, so LCS = 1 and Levenshtein = n - 1 when n is odd.
    fn sequence_and_reverse(n: u32) -> (Vec<u32>, Vec<u32>) {
        let a: Vec<u32> = (0..n).collect();
        let b = a.iter().rev().copied().collect();
        (a, b)
    }

    #[test]
    fn levenshtein_small_cases() {
        assert_eq!(levenshtein(&[], &[]), 0.0);
        // Two insertions over a longer length of 2.
        assert_eq!(levenshtein(&[], &[1, 2]), 1.0);
        assert_eq!(levenshtein(&[1, 2, 3, 4], &[1, 2, 3, 4]), 0.0);
        // 123 -> 132: substitute 2->3 and 3->2; no single edit does it: 2 / 3.
        assert_eq!(levenshtein(&[1, 2, 3], &[1, 3, 2]), 2.0 / 3.0);
        // 1234 -> 193: substitute 2->9, delete 4: 2 / 4.
        assert_eq!(levenshtein(&[1, 2, 3, 4], &[1, 9, 3]), 0.5);
        // "kitten" -> "sitting" as tokens: k->s, e->i, insert g: 3 / 7.
        let kitten = [11, 9, 20, 20, 5, 14];
        let sitting = [19, 9, 20, 20, 9, 14, 7];
        assert_eq!(levenshtein(&kitten, &sitting), 3.0 / 7.0);
    }

    #[test]
    fn levenshtein_long_cases() {
        // 100 tokens, one deleted in the middle: 1 / 100 (the banded path).
        let a: Vec<u32> = (0..100).collect();
        let mut b = a.clone();
        b.remove(70);
        assert_eq!(levenshtein(&a, &b), 0.01);
        // 201 distinct tokens against their reverse (the full-matrix path, 4 words):
        // distance >= 201 - LCS = 200, and 200 substitutions around the middle token
        // reach it: 200 / 201.
        let (a, b) = sequence_and_reverse(201);
        assert_eq!(levenshtein(&a, &b), 200.0 / 201.0);
        assert_eq!(myers_distance(&a, &b), 200);
    }

    /// 400 pairs of up to 300 tokens: small alphabets give dense match masks, large
    /// ones sparse masks and long carry runs through words without matches; half the
    /// pairs near (one token in `rate` edited), half unrelated.
    fn random_pairs(seed: u64, rate: u64) -> Vec<(Vec<u32>, Vec<u32>)> {
        let mut rng = Lcg(seed);
        (0..400)
            .map(|case| {
                let alphabet = if case % 4 < 2 {
                    2 + rng.below(6)
                } else {
                    8 + rng.below(300)
                };
                let a = rng.sequence(300, alphabet);
                let b = if case % 2 == 0 {
                    mutate(&a, &mut rng, rate, alphabet)
                } else {
                    rng.sequence(300, alphabet)
                };
                (a, b)
            })
            .collect()
    }

    #[test]
    fn levenshtein_matches_naive_dp() {
        // Near pairs take the banded path, unrelated ones the full matrix.
        for (a, b) in random_pairs(1, 20) {
            let expected = naive_levenshtein(&a, &b);
            assert_eq!(myers_distance(&a, &b), expected, "{a:?} {b:?}");
            let longest = a.len().max(b.len());
            assert_eq!(levenshtein(&a, &b), ratio(expected, longest));
        }
    }

    #[test]
    fn damerau_levenshtein_small_cases() {
        assert_eq!(damerau_levenshtein(&[], &[], 10), 0.0);
        assert_eq!(damerau_levenshtein(&[1], &[], 10), 1.0);
        // 123 -> 132: one transposition of neighbours: 1 / 3.
        assert_eq!(damerau_levenshtein(&[1, 2, 3], &[1, 3, 2], 10), 1.0 / 3.0);
        // 21 -> 132: OSA may not insert between the swapped tokens, so 3 edits (the
        // unrestricted distance would be 2: swap, then insert 3 in between): 3 / 3.
        assert_eq!(damerau_levenshtein(&[2, 1], &[1, 3, 2], 10), 1.0);
        // Cut to 3 tokens: 123 vs 123, equal.
        assert_eq!(
            damerau_levenshtein(&[1, 2, 3, 4, 5], &[1, 2, 3, 9, 9], 3),
            0.0
        );
        // Cut to 4 tokens: 1234 vs 1239, one substitution: 1 / 4.
        assert_eq!(
            damerau_levenshtein(&[1, 2, 3, 4, 5], &[1, 2, 3, 9, 9], 4),
            0.25
        );
        // Cut to 4 tokens of a 2-token input: 12 vs 2134 -> swap, insert 3, insert 4:
        // 3 edits over the longer cut length 4.
        assert_eq!(damerau_levenshtein(&[1, 2], &[2, 1, 3, 4, 5], 4), 0.75);
        assert_eq!(damerau_levenshtein(&[1, 2, 3], &[4, 5, 6], 0), 0.0);
    }

    #[test]
    fn lcs_distance_small_cases() {
        assert_eq!(lcs_distance(&[], &[]), 0.0);
        assert_eq!(lcs_distance(&[], &[1]), 1.0);
        assert_eq!(lcs_distance(&[1, 2, 3], &[1, 2, 3]), 0.0);
        // LCS of 1234 and 245 is 24: 1 - 2 / 4.
        assert_eq!(lcs_distance(&[1, 2, 3, 4], &[2, 4, 5]), 0.5);
        // LCS of 123 and 132 is 12 (or 13): 1 - 2 / 3 = 1 / 3.
        assert_eq!(lcs_distance(&[1, 2, 3], &[1, 3, 2]), 1.0 / 3.0);
        assert_eq!(lcs_distance(&[1, 2], &[3, 4, 5, 6]), 1.0);
        // A sequence and its reverse share one token in order: 1 - 1 / 201 = 200 / 201.
        let (a, b) = sequence_and_reverse(201);
        assert_eq!(lcs_distance(&a, &b), 200.0 / 201.0);
    }

    #[test]
    fn lcs_matches_naive_dp() {
        for (a, b) in random_pairs(2, 10) {
            assert_eq!(lcs_length(&a, &b), naive_lcs(&a, &b), "{a:?} {b:?}");
        }
    }

    #[test]
    fn long_token_sequences_run() {
        // Two 100 000-token texts over a 5000-word vocabulary, the second with about 1 %
        // of its tokens substituted, deleted or doubled (a near-duplicate pair).
        let mut rng = Lcg(5);
        let a = rng.tokens(100_000, 5000);
        let b = mutate(&a, &mut rng, 100, 5000);
        assert!(levenshtein(&a, &b) < 0.02);
        assert!(lcs_distance(&a, &b) < 0.02);
        assert!(longest_common_substring(&a, &b) >= 20);
        assert!(damerau_levenshtein(&a, &b, 2000) < 0.02);
    }
}
