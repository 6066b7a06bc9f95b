//! Distance tests between attributes of two documents (the distance-based tests of the
//! patent's Table 2).
//!
//! Every function is pure and total: it is defined on empty inputs, and every normalised
//! result is a finite `f64` in `[0, 1]`, because a NaN feature crashes the decision-tree
//! fit. Distances read 0 for "same" and 1 for "nothing in common"; [`cosine`] is the one
//! similarity.
//!
//! What each test is for, and what the caller feeds it:
//! - [`hamming`], on two 64-bit Charikar simhashes: order-independent and frequency-aware;
//!   Manku et al. call pages near-duplicates when at most 3 bits differ.
//! - [`levenshtein`], on word tokens (words hashed to `u32`): the order-aware edit
//!   distance; a changed word costs 1, an inserted block (ads, navigation) its length.
//! - [`damerau_levenshtein`], on word tokens: the same, except that two swapped
//!   neighbouring words cost 1 instead of 2. On the first `max_tokens` tokens only.
//! - [`lcs_distance`], on word tokens: longest common subsequence. A changed word costs 2
//!   (it leaves the common part on both sides), so it measures shared content in order.
//! - [`longest_common_substring`], on word tokens: the longest passage both bodies share
//!   verbatim (an attribute of Table 1), in tokens.
//! - [`jaccard_distance`], on sets of shingle hashes (Broder): local word order, no
//!   frequencies.
//! - [`cosine`], on tf-idf vectors (e.g. the top 100 terms of each body).
//! - [`length_distance`], on body lengths: the patent's body length distance.
//! - [`mcd`], on raw bytes (markup included, or extracted text): the modified compression
//!   distance, which sees shared content at any granularity. It uses zstd with a window
//!   spanning both bodies, because deflate's 32 KiB window stops measuring past ~16 KB.

use super::{BodyPair, Signal};

use std::cmp::Ordering;
use std::collections::hash_map::{Entry, HashMap};

use rapidfuzz::distance::{levenshtein as lev, osa};
use zstd::zstd_safe::{compress_bound, CCtx, CParameter, Strategy};

/// Number of differing bits of two 64-bit simhashes.
pub fn hamming(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

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

/// Length in tokens of the longest common substring (contiguous run of tokens).
///
/// A suffix automaton of the shorter sequence, walked by the longer one: O(n + m) time
/// and O(min(n, m)) memory. Sequences must be shorter than 2^31 tokens.
pub fn longest_common_substring(a: &[u32], b: &[u32]) -> usize {
    let (short, long) = shorter_first(a, b);
    SuffixAutomaton::new(short).longest_match(long)
}

/// Jaccard distance of two sorted, deduplicated sets of `u64` (shingle hashes):
/// `1 - |A ∩ B| / |A ∪ B|`, by a merge walk. Two empty sets are at distance 0.
pub fn jaccard_distance(a: &[u64], b: &[u64]) -> f64 {
    debug_assert!(is_strictly_sorted(a) && is_strictly_sorted(b));
    let common = count_common(a, b);
    let union = a.len() + b.len() - common;
    ratio(union - common, union)
}

/// Cosine similarity of two sparse vectors given as `(term, weight)` slices sorted by
/// term, each term once -> `[0, 1]`. A negative cosine (only possible with negative
/// weights) reads as 0, and so does a NaN or infinite weight.
///
/// A vector whose weights are all zero, an empty one in particular, stands for a text
/// without terms: two such texts are identical (1.0), and such a text has nothing in
/// common with one that has terms (0.0).
pub fn cosine(a: &[(u32, f32)], b: &[(u32, f32)]) -> f64 {
    debug_assert!(is_strictly_sorted_by_term(a) && is_strictly_sorted_by_term(b));
    let (norm_a, norm_b) = (norm(a), norm(b));
    if norm_a == 0.0 || norm_b == 0.0 {
        return if norm_a == norm_b { 1.0 } else { 0.0 };
    }
    unit(dot(a, b) / (norm_a * norm_b))
}

/// Body length distance: `|la - lb| / max(la, lb)`; two empty bodies are at distance 0.
pub fn length_distance(la: usize, lb: usize) -> f64 {
    ratio(la.abs_diff(lb), la.max(lb))
}

/// zstd parameters of every [`Compressor`].
///
/// The window must cover the whole concatenation, or the second body cannot be matched
/// against the first: 2^27 bytes at most, which zstd shrinks to the input's size, so
/// memory follows the input. Long-distance matching finds repeats of 64+ bytes anywhere
/// in that window; without it the regular match finder loses more of a long copy the
/// longer it is (mcd of a text against itself with 1 % of words changed: 0.05, 0.09, 0.25
/// at 200 KB, 1 MB, 3 MB without; 0.04, 0.05, 0.06 with).
///
/// Level 1 is zstd's fastest regular level. Its remaining parameters are pinned because
/// zstd otherwise picks them by input size: c(AB) and c(AA) straddling a size class
/// (128 KB, 256 KB) would be compressed differently, which showed as jumps of mcd with
/// size.
fn compression_parameters() -> [CParameter; 6] {
    [
        CParameter::CompressionLevel(1),
        CParameter::WindowLog(27),
        CParameter::EnableLongDistanceMatching(true),
        CParameter::Strategy(Strategy::ZSTD_fast),
        CParameter::HashLog(17),
        CParameter::MinMatch(6),
    ]
}

/// Compressed lengths for the modified compression distance: one reusable zstd context
/// and reusable buffers, so that a call allocates nothing once they have grown.
pub struct Compressor {
    cctx: CCtx<'static>,
    /// Compressed output, only measured.
    out: Vec<u8>,
    /// The concatenation `xy`, rebuilt in place on each call: as fast as streaming both
    /// parts through zstd (measured), and simpler.
    joined: Vec<u8>,
}

impl Compressor {
    pub fn new() -> Self {
        let mut cctx = CCtx::create();
        for parameter in compression_parameters() {
            // Constant values inside zstd's documented bounds: setting them cannot fail.
            let set = cctx.set_parameter(parameter);
            debug_assert!(set.is_ok(), "zstd rejected {parameter:?}");
        }
        Self {
            cctx,
            out: Vec::new(),
            joined: Vec::new(),
        }
    }

    /// c(x): compressed length of `x` in bytes.
    pub fn len(&mut self, x: &[u8]) -> usize {
        compressed_len(&mut self.cctx, &mut self.out, x)
    }

    /// c(xy): compressed length of the concatenation of `x` and `y`. `len_concat(x, x)`
    /// is the c(xx) that [`mcd`] takes precomputed.
    pub fn len_concat(&mut self, x: &[u8], y: &[u8]) -> usize {
        self.joined.clear();
        self.joined.extend_from_slice(x);
        self.joined.extend_from_slice(y);
        compressed_len(&mut self.cctx, &mut self.out, &self.joined)
    }
}

impl Default for Compressor {
    fn default() -> Self {
        Self::new()
    }
}

/// Modified compression distance, clamped to `[0, 1]`:
/// `max(c(AB) - c(AA), c(BA) - c(BB)) / max(c(AA), c(BB))`.
///
/// Self-compression is per document, so callers cache it and pass it in:
/// `c_aa = c.len_concat(a, a)`, `c_bb = c.len_concat(b, b)`, from any [`Compressor`] (they
/// all compress alike). Two empty inputs are at distance 0, and an empty input is at
/// distance 1 from a non-empty one: c(empty) would be zstd's frame header, a few bytes
/// that mean nothing.
pub fn mcd(c: &mut Compressor, a: &[u8], b: &[u8], c_aa: usize, c_bb: usize) -> f64 {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => return 0.0,
        (true, false) | (false, true) => return 1.0,
        (false, false) => {}
    }
    let b_after_a = c.len_concat(a, b).saturating_sub(c_aa);
    let a_after_b = c.len_concat(b, a).saturating_sub(c_bb);
    ratio(b_after_a.max(a_after_b), c_aa.max(c_bb))
}

/// Compressed length of `src`, written into the reusable buffer `out`.
fn compressed_len(cctx: &mut CCtx<'static>, out: &mut Vec<u8>, src: &[u8]) -> usize {
    out.clear();
    out.reserve(compress_bound(src.len()));
    // With compress_bound bytes of output and valid parameters, zstd only fails when it
    // cannot allocate its tables. Reading that as "incompressible" (the raw length) keeps
    // a batch of pairs running instead of aborting it on one huge body.
    cctx.compress2(out, src).unwrap_or(src.len())
}

/// `num / den` as a value in `[0, 1]`; an empty comparison (`den = 0`) is no difference.
fn ratio(num: usize, den: usize) -> f64 {
    if den == 0 {
        0.0
    } else {
        unit(num as f64 / den as f64)
    }
}

/// Clamps to `[0, 1]` and maps NaN (which `f64::clamp` passes through) to 0.
fn unit(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

fn shorter_first<'a>(a: &'a [u32], b: &'a [u32]) -> (&'a [u32], &'a [u32]) {
    if a.len() <= b.len() {
        (a, b)
    } else {
        (b, a)
    }
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

/// Number of values present in both sorted, deduplicated slices.
fn count_common(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            Ordering::Less => i += 1,
            Ordering::Greater => j += 1,
            Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    common
}

/// Euclidean norm of a sparse vector, summed in f64 so that f32 weights cannot overflow.
fn norm(v: &[(u32, f32)]) -> f64 {
    v.iter()
        .map(|&(_, w)| f64::from(w) * f64::from(w))
        .sum::<f64>()
        .sqrt()
}

/// Dot product of two sparse vectors sorted by term, by a merge walk.
fn dot(a: &[(u32, f32)], b: &[(u32, f32)]) -> f64 {
    let (mut i, mut j, mut sum) = (0, 0, 0.0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            Ordering::Less => i += 1,
            Ordering::Greater => j += 1,
            Ordering::Equal => {
                sum += f64::from(a[i].1) * f64::from(b[j].1);
                i += 1;
                j += 1;
            }
        }
    }
    sum
}

fn is_strictly_sorted(v: &[u64]) -> bool {
    v.windows(2).all(|w| w[0] < w[1])
}

fn is_strictly_sorted_by_term(v: &[(u32, f32)]) -> bool {
    v.windows(2).all(|w| w[0].0 < w[1].0)
}

/// Suffix automaton over `u32` tokens: the smallest automaton accepting every substring
/// of a text, at most 2n states and 3n transitions, built online (Blumer et al. 1985).
///
/// Tokens are arbitrary hashes, so states cannot hold arrays indexed by token: all
/// transitions live in one hash map keyed by (state, token). Cloning a state copies its
/// transitions, which the map cannot list, so each state also keeps its outgoing tokens.
struct SuffixAutomaton {
    /// Length of the longest substring that ends in each state.
    len: Vec<usize>,
    /// Suffix link of each state; the root's is `NO_STATE`.
    link: Vec<usize>,
    /// Outgoing tokens of each state; the targets are in `next`.
    tokens: Vec<Vec<u32>>,
    next: HashMap<u64, usize>,
    /// State of the whole text read so far.
    last: usize,
}

const ROOT: usize = 0;
const NO_STATE: usize = usize::MAX;

impl SuffixAutomaton {
    fn new(text: &[u32]) -> Self {
        let states = 2 * text.len() + 1;
        let mut automaton = Self {
            len: Vec::with_capacity(states),
            link: Vec::with_capacity(states),
            tokens: Vec::with_capacity(states),
            next: HashMap::with_capacity(2 * text.len()),
            last: ROOT,
        };
        automaton.add_state(0, NO_STATE);
        for &token in text {
            automaton.extend(token);
        }
        automaton
    }

    fn add_state(&mut self, len: usize, link: usize) -> usize {
        self.len.push(len);
        self.link.push(link);
        self.tokens.push(Vec::new());
        self.len.len() - 1
    }

    /// Appends one token to the text.
    fn extend(&mut self, token: u32) {
        let cur = self.add_state(self.len[self.last] + 1, ROOT);
        // Each suffix of the old text without a `token` transition gets one to `cur`. The
        // first suffix that already has one ends the walk, and its target (split if it
        // also holds longer substrings) is `cur`'s suffix link; without one, the root is.
        let mut p = self.last;
        while p != NO_STATE {
            match self.next.entry(key(p, token)) {
                Entry::Occupied(target) => {
                    let q = *target.get();
                    self.link[cur] = if self.len[p] + 1 == self.len[q] {
                        q
                    } else {
                        self.split(p, q, token)
                    };
                    break;
                }
                Entry::Vacant(target) => {
                    target.insert(cur);
                    self.tokens[p].push(token);
                }
            }
            p = self.link[p];
        }
        self.last = cur;
    }

    /// `q` also holds substrings longer than `len[p] + 1`: moves the shorter ones, which
    /// `p` and its suffixes reach through `token`, into a clone of `q`, and returns it.
    fn split(&mut self, mut p: usize, q: usize, token: u32) -> usize {
        let clone = self.add_state(self.len[p] + 1, self.link[q]);
        let tokens = self.tokens[q].clone();
        for &t in &tokens {
            let target = self.next[&key(q, t)];
            self.next.insert(key(clone, t), target);
        }
        self.tokens[clone] = tokens;
        while p != NO_STATE {
            match self.next.get_mut(&key(p, token)) {
                Some(target) if *target == q => *target = clone,
                _ => break,
            }
            p = self.link[p];
        }
        self.link[q] = clone;
        clone
    }

    /// Longest substring of the automaton's text that also occurs in `other`. Walks
    /// `other`, keeping the longest suffix of what was read that is still a substring;
    /// when the next token cannot extend it, shortens it along suffix links.
    fn longest_match(&self, other: &[u32]) -> usize {
        let (mut state, mut matched, mut best) = (ROOT, 0, 0);
        for &token in other {
            loop {
                if let Some(&target) = self.next.get(&key(state, token)) {
                    state = target;
                    matched += 1;
                    break;
                }
                if state == ROOT {
                    matched = 0;
                    break;
                }
                state = self.link[state];
                matched = self.len[state];
            }
            best = best.max(matched);
        }
        best
    }
}

/// Packs (state, token) into one map key; states stay below 2^32 for texts shorter than
/// 2^31 tokens.
fn key(state: usize, token: u32) -> u64 {
    ((state as u64) << 32) | u64::from(token)
}

/// Distance tests in vector order. Content distances run on the core content
/// (boilerplate and ads removed), so that a shared template does not make two pages
/// look alike and a changed template does not make a copy look different.
pub const SIGNALS: &[Signal] = &[
    Signal {
        name: "simhash_hamming_core",
        meaning: "bits differing between the 64-bit Charikar fingerprints of the core contents",
        compute: |p| f64::from(hamming(p.a.core_simhash, p.b.core_simhash)),
    },
    Signal {
        name: "simhash_hamming_text",
        meaning: "bits differing between the fingerprints of the whole visible texts",
        compute: |p| f64::from(hamming(p.a.visible_simhash, p.b.visible_simhash)),
    },
    Signal {
        name: "levenshtein_core",
        meaning: "word-level Levenshtein distance of the core contents / longer length",
        compute: |p| levenshtein(&p.a.core_words, &p.b.core_words),
    },
    Signal {
        name: "damerau_levenshtein_core",
        meaning: "word-level Damerau-Levenshtein (optimal string alignment) distance of the first 2000 core words / longer length",
        compute: |p| damerau_levenshtein(&p.a.core_words, &p.b.core_words, DAMERAU_MAX_WORDS),
    },
    Signal {
        name: "tfidf_cosine_core",
        meaning: "cosine similarity of the top-100 tf-idf terms of the core contents",
        compute: |p| cosine(&p.a.top_terms, &p.b.top_terms),
    },
    Signal {
        name: "lcs_core",
        meaning: "1 - longest common word subsequence / longer core length",
        compute: |p| lcs_distance(&p.a.core_words, &p.b.core_words),
    },
    Signal {
        name: "longest_common_substring_core",
        meaning: "longest common run of words / shorter core length (1 when both are empty)",
        compute: longest_common_run_share,
    },
    Signal {
        name: "jaccard_shingles_core",
        meaning: "Jaccard distance of the 4-word shingles of the core contents",
        compute: |p| jaccard_distance(&p.a.core_shingles, &p.b.core_shingles),
    },
    Signal {
        name: "jaccard_shingles_text",
        meaning: "Jaccard distance of the 4-word shingles of the visible texts",
        compute: |p| jaccard_distance(&p.a.visible_shingles, &p.b.visible_shingles),
    },
    Signal {
        name: "word_set_jaccard_text",
        meaning: "Jaccard distance of the sets of words of the visible texts (order ignored; strong on short records)",
        compute: |p| jaccard_distance(&p.a.visible_vocabulary, &p.b.visible_vocabulary),
    },
    Signal {
        name: "levenshtein_chars_core_head",
        meaning: "character Levenshtein distance of the first 1000 characters of the core contents, lower-cased / longer length",
        compute: char_levenshtein_of_heads,
    },
    Signal {
        name: "compression_distance_core",
        meaning: "modified compression distance of the core contents (long-window zstd)",
        compute: compression_distance,
    },
    Signal {
        name: "numbers_jaccard_core",
        meaning: "Jaccard distance of the numbers in the core contents (prices, model numbers, dates)",
        compute: |p| jaccard_distance(&p.a.core_numbers, &p.b.core_numbers),
    },
];

/// Damerau-Levenshtein is quadratic: it sees this many words of each side.
const DAMERAU_MAX_WORDS: usize = 2000;

/// Characters of core content compared by [`char_levenshtein_of_heads`].
const HEAD_CHARS: usize = 1000;

/// Edit distance on characters catches what word ids cannot: `dp5` vs `dp 5`,
/// spelling variants, punctuation. Only on the head of the text, where titles and
/// leads sit, to stay cheap on long bodies.
fn char_levenshtein_of_heads(p: &BodyPair) -> f64 {
    let head = |t: &str| -> Vec<u32> {
        t.chars()
            .flat_map(char::to_lowercase)
            .filter(|c| !c.is_whitespace())
            .take(HEAD_CHARS)
            .map(u32::from)
            .collect()
    };
    levenshtein(&head(&p.a.core_text), &head(&p.b.core_text))
}

fn longest_common_run_share(p: &BodyPair) -> f64 {
    let shorter = p.a.core_words.len().min(p.b.core_words.len());
    if shorter == 0 {
        return if p.a.core_words.len() == p.b.core_words.len() {
            1.0
        } else {
            0.0
        };
    }
    longest_common_substring(&p.a.core_words, &p.b.core_words) as f64 / shorter as f64
}

fn compression_distance(p: &BodyPair) -> f64 {
    thread_local! {
        static COMPRESSOR: std::cell::RefCell<Compressor> = std::cell::RefCell::new(Compressor::new());
    }
    COMPRESSOR.with_borrow_mut(|c| {
        let (a, b) = (p.a.core_text.as_bytes(), p.b.core_text.as_bytes());
        let c_aa = *p.a.core_self_compressed.get_or_init(|| c.len_concat(a, a));
        let c_bb = *p.b.core_self_compressed.get_or_init(|| c.len_concat(b, b));
        mcd(c, a, b, c_aa, c_bb)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seeded linear congruential generator (Knuth's MMIX constants), high bits out.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            self.0 >> 33
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }

        fn tokens(&mut self, len: usize, alphabet: u64) -> Vec<u32> {
            (0..len).map(|_| self.below(alphabet) as u32).collect()
        }

        /// Up to `max_len - 1` tokens below `alphabet`, the length drawn too.
        fn sequence(&mut self, max_len: u64, alphabet: u64) -> Vec<u32> {
            let len = self.below(max_len) as usize;
            self.tokens(len, alphabet)
        }
    }

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

    /// Textbook O(n·m) longest common substring: longest common suffix of every prefix
    /// pair.
    fn naive_longest_common_substring(a: &[u32], b: &[u32]) -> usize {
        let mut best = 0;
        let mut prev = vec![0; b.len() + 1];
        for x in a {
            let mut cur = vec![0; b.len() + 1];
            for (j, y) in b.iter().enumerate() {
                if x == y {
                    cur[j + 1] = prev[j] + 1;
                    best = best.max(cur[j + 1]);
                }
            }
            prev = cur;
        }
        best
    }

    /// `b` is `a` with about one token in `rate` substituted, deleted or doubled.
    fn mutate(a: &[u32], rng: &mut Lcg, rate: u64, alphabet: u64) -> Vec<u32> {
        let mut b = Vec::with_capacity(a.len());
        for &t in a {
            match rng.below(3 * rate) {
                0 => b.push(rng.below(alphabet) as u32),
                1 => {}
                2 => b.extend([t, t]),
                _ => b.push(t),
            }
        }
        b
    }

    /// `0, 1, …, n - 1` and the same reversed: only one token (the middle one, for odd
    /// `n`) can stay aligned, so LCS = 1 and Levenshtein = n - 1 when n is odd.
    fn sequence_and_reverse(n: u32) -> (Vec<u32>, Vec<u32>) {
        let a: Vec<u32> = (0..n).collect();
        let b = a.iter().rev().copied().collect();
        (a, b)
    }

    #[test]
    fn hamming_counts_differing_bits() {
        assert_eq!(hamming(0, 0), 0);
        assert_eq!(hamming(u64::MAX, u64::MAX), 0);
        assert_eq!(hamming(0, u64::MAX), 64);
        // 1011 ^ 0110 = 1101: three bits.
        assert_eq!(hamming(0b1011, 0b0110), 3);
        // Top bit and bottom bit.
        assert_eq!(hamming(1 << 63, 1), 2);
        // 0xFF00 ^ 0x0FF0 = 0xF0F0: eight bits.
        assert_eq!(hamming(0xFF00, 0x0FF0), 8);
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

    #[test]
    fn levenshtein_matches_naive_dp() {
        let mut rng = Lcg(1);
        for case in 0..400 {
            // Small alphabets give dense match masks, large ones sparse masks and long
            // carry runs through words without matches.
            let alphabet = if case % 4 < 2 {
                2 + rng.below(6)
            } else {
                8 + rng.below(300)
            };
            let a = rng.sequence(300, alphabet);
            // Half the pairs near (the banded path), half unrelated (the full matrix).
            let b = if case % 2 == 0 {
                mutate(&a, &mut rng, 20, alphabet)
            } else {
                rng.sequence(300, alphabet)
            };
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
        let mut rng = Lcg(2);
        for case in 0..400 {
            // Small alphabets give dense match masks, large ones sparse masks and long
            // carry runs through words without matches.
            let alphabet = if case % 4 < 2 {
                2 + rng.below(6)
            } else {
                8 + rng.below(300)
            };
            let a = rng.sequence(300, alphabet);
            let b = if case % 2 == 0 {
                mutate(&a, &mut rng, 10, alphabet)
            } else {
                rng.sequence(300, alphabet)
            };
            assert_eq!(lcs_length(&a, &b), naive_lcs(&a, &b), "{a:?} {b:?}");
        }
    }

    #[test]
    fn longest_common_substring_small_cases() {
        assert_eq!(longest_common_substring(&[], &[]), 0);
        assert_eq!(longest_common_substring(&[1, 2], &[]), 0);
        assert_eq!(longest_common_substring(&[1, 2], &[3, 4]), 0);
        assert_eq!(longest_common_substring(&[5], &[5]), 1);
        // 1234 and 92347 share 234.
        assert_eq!(longest_common_substring(&[1, 2, 3, 4], &[9, 2, 3, 4, 7]), 3);
        // 12121 and 21213 share 2121 (a clone state is needed to find it).
        assert_eq!(
            longest_common_substring(&[1, 2, 1, 2, 1], &[2, 1, 2, 1, 3]),
            4
        );
        // 1112 and 1111: the run 111.
        assert_eq!(longest_common_substring(&[1, 1, 1, 2], &[1, 1, 1, 1]), 3);
        // Symmetric: the automaton is built on the shorter input either way.
        assert_eq!(
            longest_common_substring(&[9, 2, 3, 4, 7, 8], &[1, 2, 3, 4]),
            3
        );
    }

    #[test]
    fn longest_common_substring_matches_brute_force() {
        let mut rng = Lcg(3);
        for _ in 0..2000 {
            let alphabet = 1 + rng.below(4);
            let a = rng.sequence(40, alphabet);
            let b = rng.sequence(40, alphabet);
            let expected = naive_longest_common_substring(&a, &b);
            assert_eq!(longest_common_substring(&a, &b), expected, "{a:?} {b:?}");
        }
    }

    #[test]
    fn jaccard_distance_of_known_sets() {
        assert_eq!(jaccard_distance(&[], &[]), 0.0);
        assert_eq!(jaccard_distance(&[1, 2], &[]), 1.0);
        assert_eq!(jaccard_distance(&[1, 2, 3], &[1, 2, 3]), 0.0);
        assert_eq!(jaccard_distance(&[1, 2], &[3, 4]), 1.0);
        // {1,2,3,4} and {3,4,5}: intersection {3,4}, union {1,2,3,4,5}: 1 - 2 / 5.
        assert_eq!(jaccard_distance(&[1, 2, 3, 4], &[3, 4, 5]), 0.6);
        // {1, u64::MAX} and {u64::MAX}: 1 - 1 / 2.
        assert_eq!(jaccard_distance(&[1, u64::MAX], &[u64::MAX]), 0.5);
    }

    #[test]
    fn cosine_of_known_vectors() {
        // (1, 2, 0) . (0, 2, 1) = 4; both norms sqrt(5): 4 / 5.
        let a = [(1, 1.0), (2, 2.0)];
        let b = [(2, 2.0), (3, 1.0)];
        assert!((cosine(&a, &b) - 0.8).abs() < 1e-12);
        // (3, 4) . (4, 3) = 24; both norms 5: 24 / 25.
        let a = [(1, 3.0), (2, 4.0)];
        let b = [(1, 4.0), (2, 3.0)];
        assert!((cosine(&a, &b) - 0.96).abs() < 1e-12);
        // Parallel vectors: (1, 2) and (2, 4).
        assert!((cosine(&[(7, 1.0), (9, 2.0)], &[(7, 2.0), (9, 4.0)]) - 1.0).abs() < 1e-12);
        assert_eq!(cosine(&[(1, 1.0)], &[(2, 1.0)]), 0.0);
    }

    #[test]
    fn cosine_edge_cases_stay_finite() {
        assert_eq!(cosine(&[], &[]), 1.0);
        assert_eq!(cosine(&[(1, 1.0)], &[]), 0.0);
        assert_eq!(cosine(&[], &[(1, 1.0)]), 0.0);
        // All-zero weights carry no text, like an empty vector.
        assert_eq!(cosine(&[(1, 0.0)], &[]), 1.0);
        assert_eq!(cosine(&[(1, 0.0)], &[(1, 2.0)]), 0.0);
        // Opposite vectors: cosine -1 reads as 0.
        assert_eq!(cosine(&[(1, 1.0)], &[(1, -1.0)]), 0.0);
        assert_eq!(cosine(&[(1, f32::NAN)], &[(1, 1.0)]), 0.0);
        assert_eq!(cosine(&[(1, f32::INFINITY)], &[(1, 1.0)]), 0.0);
        // f32::MAX squared overflows f32 but not f64: parallel vectors, cosine 1.
        let big = cosine(&[(1, f32::MAX)], &[(1, f32::MAX)]);
        assert!((big - 1.0).abs() < 1e-12);
    }

    #[test]
    fn length_distance_of_known_lengths() {
        assert_eq!(length_distance(0, 0), 0.0);
        assert_eq!(length_distance(10, 0), 1.0);
        assert_eq!(length_distance(0, 10), 1.0);
        assert_eq!(length_distance(7, 7), 0.0);
        // |75 - 100| / 100.
        assert_eq!(length_distance(75, 100), 0.25);
        assert_eq!(length_distance(usize::MAX, 0), 1.0);
    }

    /// Text of about `bytes` bytes: words of a fixed 2000-word vocabulary (2 to 9
    /// letters), drawn by `seed`. Compresses like text (about 2.6:1 with zstd).
    fn text(seed: u64, bytes: usize) -> Vec<u8> {
        let mut vocabulary_rng = Lcg(7);
        let vocabulary: Vec<Vec<u8>> = (0..2000)
            .map(|_| {
                let len = 2 + vocabulary_rng.below(8);
                (0..len)
                    .map(|_| b'a' + vocabulary_rng.below(26) as u8)
                    .collect()
            })
            .collect();
        let mut rng = Lcg(seed);
        let mut text = Vec::with_capacity(bytes + 10);
        while text.len() < bytes {
            text.extend_from_slice(&vocabulary[rng.below(2000) as usize]);
            text.push(b' ');
        }
        text
    }

    /// `x` with about one word in 100 replaced by a word of the same length.
    fn change_one_percent(x: &[u8]) -> Vec<u8> {
        let mut rng = Lcg(13);
        let mut y = x.to_vec();
        for word in y.split_mut(|&b| b == b' ') {
            if rng.below(100) == 0 {
                word.fill(b'q');
            }
        }
        y
    }

    #[test]
    fn mcd_of_empty_inputs() {
        let mut c = Compressor::new();
        assert_eq!(mcd(&mut c, b"", b"", 0, 0), 0.0);
        let c_xx = c.len_concat(b"some text", b"some text");
        assert_eq!(mcd(&mut c, b"", b"some text", 0, c_xx), 1.0);
        assert_eq!(mcd(&mut c, b"some text", b"", c_xx, 0), 1.0);
        // Wrong cached lengths still give a finite value in [0, 1].
        let odd = mcd(&mut c, b"abc", b"xyz", 0, 0);
        assert!((0.0..=1.0).contains(&odd));
    }

    #[test]
    fn compressor_window_spans_long_inputs() {
        // With deflate's 32 KiB window c(xx) would be about 2·c(x) at this size.
        let mut c = Compressor::default();
        let x = text(11, 200_000);
        let (c_x, c_xx) = (c.len(&x), c.len_concat(&x, &x));
        assert!(c_x < x.len() / 2, "text-like input should compress: {c_x}");
        assert!(c_xx < c_x + c_x / 10, "c(x) = {c_x}, c(xx) = {c_xx}");
        assert_eq!(c.len(&x), c_x, "a reused context must compress alike");
    }

    #[test]
    fn mcd_of_long_texts() {
        let mut c = Compressor::new();
        let x = text(11, 200_000);
        let unrelated = text(12, 200_000);
        let near = change_one_percent(&x);
        let c_xx = c.len_concat(&x, &x);
        let c_uu = c.len_concat(&unrelated, &unrelated);
        let c_nn = c.len_concat(&near, &near);

        // Zero by construction when c_aa = c(xx) comes from the same compressor.
        let same = mcd(&mut c, &x, &x, c_xx, c_xx);
        assert!(same < 0.05, "mcd(x, x) = {same}");
        let far = mcd(&mut c, &x, &unrelated, c_xx, c_uu);
        assert!(far > 0.5, "mcd(x, unrelated) = {far}");
        let close = mcd(&mut c, &x, &near, c_xx, c_nn);
        assert!(close > same && close < 0.1, "mcd(x, near) = {close}");
        // Measured: 0.0, 0.96 and 0.04.
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

    /// The signal wrappers, on documents built by hand.
    mod signals {
        use crate::document::url::UrlParts;
        use crate::document::Document;
        use crate::signals::{BodyPair, Query};

        fn run(a: &Document, b: &Document, name: &str) -> f64 {
            let u = UrlParts::default();
            let q = Query::default();
            let p = BodyPair {
                a,
                b,
                url_a: &u,
                url_b: &u,
                query: &q,
            };
            let s = super::super::SIGNALS
                .iter()
                .find(|s| s.name == name)
                .unwrap();
            (s.compute)(&p)
        }

        fn words(ids: &[u32]) -> Document {
            Document {
                core_words: ids.to_vec(),
                ..Document::default()
            }
        }

        #[test]
        fn longest_common_run_is_a_share_of_the_shorter_core() {
            // common run [2, 3, 4] = 3 words; shorter core has 4 words -> 0.75
            let (a, b) = (words(&[1, 2, 3, 4, 5, 6]), words(&[9, 2, 3, 4]));
            assert_eq!(run(&a, &b, "longest_common_substring_core"), 0.75);
            assert_eq!(
                run(&words(&[]), &words(&[]), "longest_common_substring_core"),
                1.0
            );
            assert_eq!(run(&words(&[]), &b, "longest_common_substring_core"), 0.0);
        }

        #[test]
        fn character_heads_ignore_case_and_spaces() {
            let text = |t: &str| Document {
                core_text: t.into(),
                ..Document::default()
            };
            // "dp5" vs "dp 5": equal once spaces are dropped
            assert_eq!(
                run(
                    &text("Motu DP5"),
                    &text("motu dp 5"),
                    "levenshtein_chars_core_head"
                ),
                0.0
            );
            // "abcd" vs "abxd": one substitution of 4
            assert_eq!(
                run(&text("abcd"), &text("abxd"), "levenshtein_chars_core_head"),
                0.25
            );
        }

        #[test]
        fn compression_distance_caches_self_compression() {
            let text = |t: &str| Document {
                core_text: t.into(),
                ..Document::default()
            };
            // Two 60 KB texts of the same vocabulary in different orders.
            let words = |step: u64| -> String {
                (0..8000u64)
                    .map(|i| format!("w{} ", i * step % 10007))
                    .collect()
            };
            let (a, b) = (text(&words(7919)), text(&words(7919)));
            assert!(run(&a, &b, "compression_distance_core") < 0.01);
            assert!(a.core_self_compressed.get().is_some());
            let other = text(&words(104729));
            assert!(run(&a, &other, "compression_distance_core") > 0.5);
        }

        #[test]
        fn simhash_signals_count_bits() {
            let a = Document {
                core_simhash: 0b1011,
                visible_simhash: 0,
                ..Document::default()
            };
            let b = Document {
                core_simhash: 0b0001,
                visible_simhash: u64::MAX,
                ..Document::default()
            };
            assert_eq!(run(&a, &b, "simhash_hamming_core"), 2.0);
            assert_eq!(run(&a, &b, "simhash_hamming_text"), 64.0);
        }
    }
}
