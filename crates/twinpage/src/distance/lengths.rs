//! The patent's body length distance.

use super::normalised::ratio;

/// Body length distance: `|la - lb| / max(la, lb)`; two empty bodies are at distance 0.
pub fn length_distance(la: usize, lb: usize) -> f64 {
    ratio(la.abs_diff(lb), la.max(lb))
}

#[cfg(test)]
mod tests {
    use super::*;

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
