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
