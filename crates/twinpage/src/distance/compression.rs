//! The modified compression distance of the seed, on a long-window compressor.

use zstd::zstd_safe::{compress_bound, CCtx, CParameter, Strategy};

use super::normalised::ratio;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::testing::Lcg;

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
}
