//! Set and vector similarity: Jaccard distance of sorted hash sets, cosine of
//! sparse weighted vectors, both by merge walks.

use std::cmp::Ordering;

use super::normalised::{ratio, unit};

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

/// Containment of one sorted, deduplicated set in another: `|A ∩ B| / |A|`, or `None`
/// when `A` is empty (nothing to contain). Broder's resemblance asks how alike two
/// sets are; containment asks whether one is (mostly) part of the other.
pub fn containment(a: &[u64], b: &[u64]) -> Option<f64> {
    debug_assert!(is_strictly_sorted(a) && is_strictly_sorted(b));
    (!a.is_empty()).then(|| count_common(a, b) as f64 / a.len() as f64)
}

/// What two texts write in the places they share: `(kept, replaced)` over two lists
/// of `(place, value)` sorted by place then value. In each place both lists have, the
/// values on both sides (a multiset intersection) are kept, and the rest of the side
/// with fewer values there counts as replaced; places only one side has count for
/// nothing.
pub fn kept_and_replaced(a: &[(u64, u32)], b: &[(u64, u32)]) -> (usize, usize) {
    debug_assert!(a.is_sorted() && b.is_sorted());
    let (mut a, mut b) = (a, b);
    let (mut kept, mut replaced) = (0, 0);
    while let (Some(&(pa, _)), Some(&(pb, _))) = (a.first(), b.first()) {
        match pa.cmp(&pb) {
            Ordering::Less => a = &a[a.partition_point(|&(p, _)| p == pa)..],
            Ordering::Greater => b = &b[b.partition_point(|&(p, _)| p == pb)..],
            Ordering::Equal => {
                let (here_a, rest_a) = a.split_at(a.partition_point(|&(p, _)| p == pa));
                let (here_b, rest_b) = b.split_at(b.partition_point(|&(p, _)| p == pb));
                // One place on both sides: the pairs compare as their values.
                let same = count_common(here_a, here_b);
                kept += same;
                replaced += here_a.len().min(here_b.len()) - same;
                (a, b) = (rest_a, rest_b);
            }
        }
    }
    (kept, replaced)
}

/// Number of values present in both sorted slices (with repeats, the size of the
/// multiset intersection).
fn count_common<T: Ord>(a: &[T], b: &[T]) -> usize {
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn containment_is_a_share_of_the_first_set() {
        assert_eq!(containment(&[1, 2, 3, 4], &[2, 4, 9]), Some(0.5));
        assert_eq!(containment(&[2, 4], &[1, 2, 3, 4]), Some(1.0));
        assert_eq!(containment(&[], &[1]), None);
    }

    #[test]
    fn values_in_shared_places_are_kept_or_replaced() {
        assert_eq!(kept_and_replaced(&[], &[]), (0, 0));
        // Place 1: {5, 5, 7} against {5, 8}: one 5 kept, one value replaced.
        // Place 2: only on one side. Place 3: 9 kept.
        let a = [(1, 5), (1, 5), (1, 7), (2, 4), (3, 9)];
        let b = [(1, 5), (1, 8), (3, 9), (4, 1)];
        assert_eq!(kept_and_replaced(&a, &b), (2, 1));
        assert_eq!(kept_and_replaced(&b, &a), (2, 1));
        assert_eq!(kept_and_replaced(&a, &[]), (0, 0));
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
}
