//! Growth tests: what rendering added to each side. They compare a document's
//! fetched body with its own rendered body, so they exist only when both are
//! there.
//!
//! A script-built shell grows from a few words of chrome into an article; its
//! fetched-body signals then describe the shell, not the content, and a model
//! must know to trust the rendered signals instead. Pages that do not change
//! when rendered give 0 growth and agreement 1, so these tests also tell the
//! model when the fetched signals are as good as the rendered ones.

use super::signal::MISSING;
use super::vector::PairBodies;
use crate::distance::sets::cosine;
use crate::document::Document;

/// Prefix of the growth tests in the vector.
pub const PREFIX: &str = "growth.";

/// A test on the fetched and rendered bodies of both sides.
pub struct GrowthSignal {
    pub name: &'static str,
    pub meaning: &'static str,
    pub compute: fn(&Side, &Side) -> f64,
}

/// One side of a pair: its fetched body and its rendered body.
pub struct Side<'a> {
    pub fetched: &'a Document,
    pub rendered: &'a Document,
}

impl Side<'_> {
    /// The share of the rendered core's words that the fetched core lacks (by count).
    fn growth(&self) -> f64 {
        let (f, r) = (
            self.fetched.core_words.len() as f64,
            self.rendered.core_words.len() as f64,
        );
        (r - f).max(0.0) / r.max(1.0)
    }

    /// Cosine of the fetched and rendered cores' top tf-idf terms: 1 when the
    /// fetched body already says what a reader sees.
    fn agreement(&self) -> f64 {
        if self.rendered.core_words.is_empty() {
            return MISSING;
        }
        cosine(&self.fetched.top_terms, &self.rendered.top_terms)
    }
}

pub const SIGNALS: &[GrowthSignal] = &[
    GrowthSignal {
        name: "core_growth_max",
        meaning: "the larger share, over the two sides, of rendered core words the fetched core lacks (a shell grown into an article)",
        compute: |a, b| a.growth().max(b.growth()),
    },
    GrowthSignal {
        name: "core_growth_difference",
        meaning: "|difference| of the two sides' core growth: one side built by script, the other served whole",
        compute: |a, b| (a.growth() - b.growth()).abs(),
    },
    GrowthSignal {
        name: "fetched_rendered_agreement_min",
        meaning: "the smaller, over the two sides, tf-idf cosine of a side's fetched core with its own rendered core",
        compute: |a, b| match (a.agreement(), b.agreement()) {
            (x, y) if x == MISSING || y == MISSING => MISSING,
            (x, y) => x.min(y),
        },
    },
];

/// The growth tests of a pair whose bodies include rendered ones, in order.
pub fn values(bodies: &PairBodies) -> Vec<f64> {
    let Some((ra, rb)) = bodies.rendered else {
        return Vec::new();
    };
    let (fa, fb) = bodies.fetched;
    let a = Side {
        fetched: fa,
        rendered: ra,
    };
    let b = Side {
        fetched: fb,
        rendered: rb,
    };
    SIGNALS.iter().map(|s| (s.compute)(&a, &b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(words: u32, terms: &[(u32, f32)]) -> Document {
        Document {
            core_words: (0..words).collect(),
            top_terms: terms.to_vec(),
            ..Document::default()
        }
    }

    #[test]
    fn a_shell_grown_into_an_article_shows() {
        let shell = document(10, &[(1, 1.0)]);
        let article = document(200, &[(2, 1.0), (3, 1.0)]);
        let page = document(200, &[(2, 1.0), (3, 1.0)]);
        let bodies = PairBodies {
            fetched: (&shell, &page),
            rendered: Some((&article, &page)),
        };
        let v = values(&bodies);
        assert!((v[0] - 0.95).abs() < 1e-12, "{v:?}");
        assert!((v[1] - 0.95).abs() < 1e-12);
        assert_eq!(
            v[2], 0.0,
            "the shell's fetched core shares no term with its article"
        );
        let unchanged = PairBodies {
            fetched: (&page, &page),
            rendered: Some((&page, &page)),
        };
        let v = values(&unchanged);
        assert_eq!(v[..2], [0.0, 0.0]);
        assert!((v[2] - 1.0).abs() < 1e-9);
        assert!(values(&PairBodies {
            fetched: (&page, &page),
            rendered: None
        })
        .is_empty());
    }
}
