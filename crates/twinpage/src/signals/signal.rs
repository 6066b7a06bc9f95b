//! What a test is: a name, a meaning and a function of two bodies, giving one
//! number, or [`MISSING`].

use super::query::Query;
use crate::document::url::UrlParts;
use crate::document::Document;

/// The value of a signal that cannot be computed for this pair.
pub const MISSING: f64 = -1.0;

/// One test.
pub struct Signal {
    pub name: &'static str,
    pub meaning: &'static str,
    pub compute: fn(&BodyPair) -> f64,
}

/// Two bodies of one kind (fetched, later rendered) with what the tests need
/// besides their attributes.
pub struct BodyPair<'a> {
    pub a: &'a Document,
    pub b: &'a Document,
    pub url_a: &'a UrlParts,
    pub url_b: &'a UrlParts,
    pub query: &'a Query,
}

/// Ratio of the smaller to the larger of two counts; both zero is "the same" (1).
pub(crate) fn ratio(x: f64, y: f64) -> f64 {
    let (lo, hi) = if x < y { (x, y) } else { (y, x) };
    if hi <= 0.0 {
        1.0
    } else {
        lo / hi
    }
}

/// 1.0 or 0.0.
pub(crate) fn flag(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}
