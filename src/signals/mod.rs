//! Signals: the tests of Table 2, each comparing one attribute of two bodies and
//! giving one number, gathered into the signal vector the model reads.
//!
//! A signal is a name, a one-line meaning and a function of a [`BodyPair`]. The
//! lists in [`distance`], [`simple`], [`query`] and [`metadata`] fix the order of the
//! vector; [`names`] is that order, and a model file records it so that a model is
//! never applied to a vector laid out differently.
//!
//! Missing values (no title, unparseable URL, no metadata) are [`MISSING`] = -1:
//! every real value is ≥ 0, so the tree can send "missing" its own way, and no NaN
//! ever reaches it (linfa-trees aborts on NaN).

pub mod distance;
pub mod metadata;
pub mod query;
pub mod simple;

use crate::document::url::UrlParts;
use crate::document::{Document, Pair};

pub use query::Query;

/// The value of a signal that cannot be computed for this pair.
pub const MISSING: f64 = -1.0;

/// Prefix of the signals computed on the fetched body.
pub const FETCHED: &str = "fetched.";

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

/// The tests run on a body, in vector order.
fn body_signals() -> impl Iterator<Item = &'static Signal> {
    distance::SIGNALS
        .iter()
        .chain(simple::SIGNALS)
        .chain(query::SIGNALS)
}

/// Names of the signal vector, in order, with their meaning.
pub fn described() -> Vec<(String, &'static str)> {
    body_signals()
        .map(|s| (format!("{FETCHED}{}", s.name), s.meaning))
        .chain(
            metadata::SIGNALS
                .iter()
                .map(|s| (format!("{}{}", metadata::PREFIX, s.name), s.meaning)),
        )
        .collect()
}

/// Names of the signal vector, in order.
pub fn names() -> Vec<String> {
    described().into_iter().map(|(n, _)| n).collect()
}

/// The signal vector of a pair whose fetched bodies are `a` and `b`.
pub fn vector(pair: &Pair, a: &Document, b: &Document) -> Vec<f64> {
    let url_a = UrlParts::parse(&pair.a.url);
    let url_b = UrlParts::parse(&pair.b.url);
    let query = Query::for_pair(pair.query.as_deref(), a, b);
    let bodies = BodyPair {
        a,
        b,
        url_a: &url_a,
        url_b: &url_b,
        query: &query,
    };
    body_signals()
        .map(|s| (s.compute)(&bodies))
        .chain(metadata::SIGNALS.iter().map(|s| (s.compute)(pair)))
        .map(sanitise)
        .collect()
}

/// The last guard before the tree: anything not finite becomes [`MISSING`].
fn sanitise(value: f64) -> f64 {
    if value.is_finite() {
        value
    } else {
        MISSING
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_prefixed() {
        let names = names();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        assert!(names
            .iter()
            .all(|n| n.starts_with(FETCHED) || n.starts_with(metadata::PREFIX)));
    }

    #[test]
    fn ratio_and_sanitise() {
        assert_eq!(ratio(2.0, 8.0), 0.25);
        assert_eq!(ratio(0.0, 0.0), 1.0);
        assert_eq!(sanitise(f64::NAN), MISSING);
        assert_eq!(sanitise(0.5), 0.5);
    }
}
