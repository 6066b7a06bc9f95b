//! Metadata tests: what the pair file says about each document beyond its body
//! (clicks, inbound links, an external spam judgement). Present only when the pair
//! file has those columns; otherwise [`MISSING`].

use crate::document::pairs::Metadata;
use crate::document::Pair;

use super::signal::{ratio, MISSING};

/// Prefix of the metadata signals (they belong to neither body).
pub const PREFIX: &str = "meta.";

/// A test on the pair's metadata.
pub struct MetadataSignal {
    pub name: &'static str,
    pub meaning: &'static str,
    pub compute: fn(&Pair) -> f64,
}

pub const SIGNALS: &[MetadataSignal] = &[
    MetadataSignal {
        name: "clicks_ratio",
        meaning: "smaller / larger click count, -1 when either is missing",
        compute: clicks_ratio,
    },
    MetadataSignal {
        name: "inlinks_ratio",
        meaning: "smaller / larger inbound link count, -1 when either is missing",
        compute: inlinks_ratio,
    },
    MetadataSignal {
        name: "spam_max",
        meaning: "larger of the two spam judgements, -1 when both are missing",
        compute: spam_max,
    },
];

fn both(pair: &Pair, field: fn(&Metadata) -> Option<f64>) -> Option<(f64, f64)> {
    Some((field(&pair.a.metadata)?, field(&pair.b.metadata)?))
}

fn clicks_ratio(pair: &Pair) -> f64 {
    both(pair, |m| m.clicks).map_or(MISSING, |(a, b)| ratio(a.max(0.0), b.max(0.0)))
}

fn inlinks_ratio(pair: &Pair) -> f64 {
    both(pair, |m| m.inlinks).map_or(MISSING, |(a, b)| ratio(a.max(0.0), b.max(0.0)))
}

fn spam_max(pair: &Pair) -> f64 {
    match (pair.a.metadata.spam, pair.b.metadata.spam) {
        (None, None) => MISSING,
        (a, b) => a.unwrap_or(0.0).max(b.unwrap_or(0.0)).max(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signals::testing::pair;

    #[test]
    fn ratios_and_missing() {
        let m = |c| Metadata {
            clicks: c,
            inlinks: None,
            spam: None,
        };
        assert_eq!(clicks_ratio(&pair(m(Some(10.0)), m(Some(40.0)))), 0.25);
        assert_eq!(clicks_ratio(&pair(m(Some(10.0)), m(None))), MISSING);
        assert_eq!(inlinks_ratio(&pair(m(None), m(None))), MISSING);
        assert_eq!(spam_max(&pair(m(None), m(None))), MISSING);
        let s = Metadata {
            spam: Some(0.7),
            ..Metadata::default()
        };
        assert_eq!(spam_max(&pair(s, Metadata::default())), 0.7);
    }
}
