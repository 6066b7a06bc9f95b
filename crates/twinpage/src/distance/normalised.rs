//! Results kept in `[0, 1]`: every normalised distance goes through here.

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
