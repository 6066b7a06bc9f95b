//! The distance of two 64-bit Charikar fingerprints (simhashes).

/// Number of differing bits of two 64-bit simhashes.
pub fn hamming(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
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
}
