//! Helpers on token sequences (words hashed to `u32`).

/// The shorter of two token sequences first.
pub(crate) fn shorter_first<'a>(a: &'a [u32], b: &'a [u32]) -> (&'a [u32], &'a [u32]) {
    if a.len() <= b.len() {
        (a, b)
    } else {
        (b, a)
    }
}
