//! Hashes that must not change between runs, machines or versions: a fingerprint
//! stored today (an index segment, a word id, a data split) must match the one
//! computed tomorrow, which rules out std's randomly keyed hasher.

/// 64-bit FNV-1a of a byte string.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_continue(0xcbf2_9ce4_8422_2325, bytes)
}

/// FNV-1a of `bytes` continued from `hash`: `fnv1a(ab)` is
/// `fnv1a_continue(fnv1a(a), b)`, so a string can be hashed in parts.
pub fn fnv1a_continue(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// A well-mixed 64-bit value from any 64-bit value (the splitmix64 finaliser):
/// word ids, seeds and groups become independent-looking hash values.
pub fn mix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_matches_reference() {
        // Reference values of FNV-1a 64.
        assert_eq!(fnv1a(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a(b"a"), 0xaf63dc4c8601ec8c);
    }

    #[test]
    fn mix64_is_the_splitmix_finaliser() {
        // splitmix64's first output for seed 0.
        assert_eq!(mix64(0), 0xe220_a839_7b1d_cdaf);
    }
}
