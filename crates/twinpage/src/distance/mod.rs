//! Distance algorithms: pure functions on fingerprints, token sequences, sets and
//! bytes, with no idea of what a document or a signal is. The signals
//! (`crate::signals`) feed them attributes of two bodies; the candidate generators
//! use the Hamming distance of fingerprints.
//!
//! Every function is pure and total: it is defined on empty inputs, and every normalised
//! result is a finite `f64` in `[0, 1]`, because a NaN feature crashes the decision-tree
//! fit. Distances read 0 for "same" and 1 for "nothing in common"; [`cosine`] is the one
//! similarity.
//!
//! - [`hamming`], on two 64-bit Charikar simhashes: order-independent and frequency-aware;
//!   Manku et al. call pages near-duplicates when at most 3 bits differ.
//! - [`edit`]: [`levenshtein`], [`damerau_levenshtein`] and [`lcs_distance`] on word
//!   tokens (words hashed to `u32`), bit-parallel.
//! - [`substring`]: [`longest_common_substring`], the longest passage both bodies share
//!   verbatim (an attribute of Table 1), in tokens.
//! - [`sets`]: [`jaccard_distance`] of shingle sets (Broder: local word order, no
//!   frequencies), [`containment`] of one set in another, [`cosine`] of tf-idf vectors, and [`kept_and_replaced`]: the values
//!   two texts write in the places they share (a figure changed in place).
//! - [`length_distance`], on body lengths: the patent's body length distance.
//! - [`compression`]: [`mcd`], the modified compression distance, which sees shared
//!   content at any granularity. It uses zstd with a window spanning both bodies,
//!   because deflate's 32 KiB window stops measuring past ~16 KB.

pub mod compression;
pub mod edit;
pub mod sets;
pub mod substring;

pub use compression::{mcd, Compressor};
pub use edit::{damerau_levenshtein, lcs_distance, levenshtein};
pub use sets::{containment, cosine, jaccard_distance, kept_and_replaced};
pub use substring::longest_common_substring;

/// Number of differing bits of two 64-bit simhashes.
pub fn hamming(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

/// Body length distance: `|la - lb| / max(la, lb)`; two empty bodies are at distance 0.
pub fn length_distance(la: usize, lb: usize) -> f64 {
    ratio(la.abs_diff(lb), la.max(lb))
}

/// `num / den` as a value in `[0, 1]`; an empty comparison (`den = 0`) is no difference.
pub(crate) fn ratio(num: usize, den: usize) -> f64 {
    if den == 0 {
        0.0
    } else {
        unit(num as f64 / den as f64)
    }
}

/// Clamps to `[0, 1]` and maps NaN (which `f64::clamp` passes through) to 0.
pub(crate) fn unit(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

/// The shorter of two token sequences first.
pub(crate) fn shorter_first<'a>(a: &'a [u32], b: &'a [u32]) -> (&'a [u32], &'a [u32]) {
    if a.len() <= b.len() {
        (a, b)
    } else {
        (b, a)
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Seeded inputs the algorithms' tests share.

    /// Seeded linear congruential generator (Knuth's MMIX constants), high bits out.
    pub(crate) struct Lcg(pub(crate) u64);

    impl Lcg {
        pub(crate) fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            self.0 >> 33
        }

        pub(crate) fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }

        pub(crate) fn tokens(&mut self, len: usize, alphabet: u64) -> Vec<u32> {
            (0..len).map(|_| self.below(alphabet) as u32).collect()
        }

        /// Up to `max_len - 1` tokens below `alphabet`, the length drawn too.
        pub(crate) fn sequence(&mut self, max_len: u64, alphabet: u64) -> Vec<u32> {
            let len = self.below(max_len) as usize;
            self.tokens(len, alphabet)
        }
    }

    /// `b` is `a` with about one token in `rate` substituted, deleted or doubled.
    pub(crate) fn mutate(a: &[u32], rng: &mut Lcg, rate: u64, alphabet: u64) -> Vec<u32> {
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn length_distance_of_known_lengths() {
        assert_eq!(length_distance(0, 0), 0.0);
        assert_eq!(length_distance(10, 0), 1.0);
        assert_eq!(length_distance(0, 10), 1.0);
        assert_eq!(length_distance(7, 7), 0.0);
        // |75 - 100| / 100.
        assert_eq!(length_distance(75, 100), 0.25);
        assert_eq!(length_distance(usize::MAX, 0), 1.0);
    }
}
