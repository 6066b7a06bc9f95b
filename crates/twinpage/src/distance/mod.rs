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
pub mod fingerprint;
pub mod lengths;
mod normalised;
pub mod sets;
pub mod substring;
#[cfg(test)]
pub(crate) mod testing;
mod tokens;

pub use compression::{mcd, Compressor};
pub use edit::{damerau_levenshtein, lcs_distance, levenshtein};
pub use fingerprint::hamming;
pub use lengths::length_distance;
pub use sets::{containment, cosine, jaccard_distance, kept_and_replaced};
pub use substring::longest_common_substring;
