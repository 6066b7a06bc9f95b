//! Query-based tests: how the two bodies answer the same query.
//!
//! A search engine shows a snippet of each result around the query's words; two
//! documents that give the same snippet are redundant to the user. Claim 1 of the
//! seed requires a snippet comparison, so a pair that comes without a query gets
//! one derived from the salient terms the two bodies share.

use crate::document::{text, Document};

use super::signal::{BodyPair, Signal, MISSING};
use crate::distance::levenshtein;

/// Words of context kept on each side of a query word in a snippet.
const SNIPPET_CONTEXT: usize = 12;
/// At most this many query-word occurrences make a snippet (as a results page shows).
const SNIPPET_HITS: usize = 3;
/// Words of a derived query.
const DERIVED_QUERY_WORDS: usize = 3;

pub const SIGNALS: &[Signal] = &[
    Signal {
        name: "snippet_similarity",
        meaning: "1 - normalised Levenshtein distance of the query snippets taken from the visible texts",
        compute: snippet_similarity,
    },
    Signal {
        name: "query_term_frequency_distance",
        meaning: "sum of |fa - fb| over sum of (fa + fb), fa and fb the relative frequencies of the query words in the visible texts, in [0,1]",
        compute: query_term_frequency_distance,
    },
    Signal {
        name: "query_language_match",
        meaning: "share of the two bodies in the query's language; -1 when the query is derived or its language unknown",
        compute: query_language_match,
    },
];

/// The query of a pair: given in the pair file, or derived from shared terms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    /// Word ids of the query, deduplicated.
    pub words: Vec<u32>,
    /// ISO 639-3 language of a given query, when detectable.
    pub language: Option<&'static str>,
    pub derived: bool,
}

impl Query {
    /// The pair's own query when it has one, else the terms of highest combined
    /// tf-idf weight that both bodies share (or, sharing none, those of `a`).
    pub fn for_pair(given: Option<&str>, a: &Document, b: &Document) -> Query {
        if let Some(q) = given.filter(|q| !q.trim().is_empty()) {
            let mut words = text::word_ids(q);
            words.dedup();
            return Query {
                words,
                language: whatlang::detect(q)
                    .filter(|i| i.is_reliable())
                    .map(|i| i.lang().code()),
                derived: false,
            };
        }
        Query {
            words: derive_words(a, b),
            language: None,
            derived: true,
        }
    }
}

fn derive_words(a: &Document, b: &Document) -> Vec<u32> {
    let mut shared: Vec<(u32, f32)> = a
        .top_terms
        .iter()
        .filter_map(|&(w, wa)| {
            b.top_terms
                .binary_search_by_key(&w, |&(id, _)| id)
                .ok()
                .map(|i| (w, wa.min(b.top_terms[i].1)))
        })
        .collect();
    if shared.is_empty() {
        shared = a.top_terms.clone();
    }
    shared.sort_unstable_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    shared
        .into_iter()
        .take(DERIVED_QUERY_WORDS)
        .map(|(w, _)| w)
        .collect()
}

/// The words around the first occurrences of the query's words, in text order,
/// or the opening words when none occurs (as a results page falls back to).
pub fn snippet(words: &[u32], query: &[u32]) -> Vec<u32> {
    let hits: Vec<usize> = words
        .iter()
        .enumerate()
        .filter(|(_, w)| query.contains(w))
        .map(|(i, _)| i)
        .take(SNIPPET_HITS)
        .collect();
    if hits.is_empty() {
        return words.iter().take(2 * SNIPPET_CONTEXT).copied().collect();
    }
    let mut keep = vec![false; words.len()];
    for &hit in &hits {
        let from = hit.saturating_sub(SNIPPET_CONTEXT);
        let to = (hit + SNIPPET_CONTEXT + 1).min(words.len());
        keep[from..to].iter_mut().for_each(|k| *k = true);
    }
    words
        .iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(&w, _)| w)
        .collect()
}

fn snippet_similarity(p: &BodyPair) -> f64 {
    let sa = snippet(&p.a.visible_words, &p.query.words);
    let sb = snippet(&p.b.visible_words, &p.query.words);
    1.0 - levenshtein(&sa, &sb)
}

/// Relative frequency of each query word in a text.
fn query_frequencies(words: &[u32], query: &[u32]) -> Vec<f64> {
    let total = words.len().max(1) as f64;
    query
        .iter()
        .map(|q| words.iter().filter(|w| *w == q).count() as f64 / total)
        .collect()
}

fn query_term_frequency_distance(p: &BodyPair) -> f64 {
    let fa = query_frequencies(&p.a.visible_words, &p.query.words);
    let fb = query_frequencies(&p.b.visible_words, &p.query.words);
    let (diff, sum) = fa
        .iter()
        .zip(&fb)
        .fold((0.0, 0.0), |(d, s), (x, y)| (d + (x - y).abs(), s + x + y));
    if sum == 0.0 {
        0.0
    } else {
        diff / sum
    }
}

fn query_language_match(p: &BodyPair) -> f64 {
    match p.query.language {
        Some(lang) if !p.query.derived => {
            let matches = [p.a.language, p.b.language]
                .iter()
                .filter(|l| **l == Some(lang))
                .count();
            matches as f64 / 2.0
        }
        _ => MISSING,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippet_keeps_context_around_hits() {
        let words: Vec<u32> = (0..100).collect();
        // hit at 50: words 38..=62
        let s = snippet(&words, &[50]);
        assert_eq!(s, (38..63).collect::<Vec<u32>>());
        // no hit: the opening 24 words
        assert_eq!(snippet(&words, &[1000]), (0..24).collect::<Vec<u32>>());
        assert!(snippet(&[], &[1]).is_empty());
    }

    #[test]
    fn query_frequency_distance_by_hand() {
        // a: q appears 2 of 4 words (0.5); b: 1 of 4 (0.25) -> |0.5-0.25| / 0.75 = 1/3
        let fa = query_frequencies(&[9, 1, 9, 2], &[9]);
        let fb = query_frequencies(&[9, 1, 3, 2], &[9]);
        assert_eq!(fa, vec![0.5]);
        assert_eq!(fb, vec![0.25]);
        let a = Document {
            visible_words: vec![9, 1, 9, 2],
            ..Document::default()
        };
        let b = Document {
            visible_words: vec![9, 1, 3, 2],
            ..Document::default()
        };
        let q = Query {
            words: vec![9],
            language: None,
            derived: false,
        };
        let u = crate::document::url::UrlParts::default();
        let p = BodyPair {
            a: &a,
            b: &b,
            url_a: &u,
            url_b: &u,
            query: &q,
        };
        assert!((query_term_frequency_distance(&p) - 1.0 / 3.0).abs() < 1e-12);
        // Snippets: whole texts (short), one substitution of 4 -> 0.75
        assert!((snippet_similarity(&p) - 0.75).abs() < 1e-12);
        assert_eq!(query_language_match(&p), MISSING);
    }

    #[test]
    fn derived_query_prefers_shared_terms() {
        let a = Document {
            top_terms: vec![(1, 5.0), (2, 1.0), (3, 9.0)],
            ..Document::default()
        };
        let b = Document {
            top_terms: vec![(1, 4.0), (2, 2.0), (7, 9.0)],
            ..Document::default()
        };
        let q = Query::for_pair(None, &a, &b);
        assert!(q.derived);
        // shared: 1 (min 4.0), 2 (min 1.0) -> [1, 2]
        assert_eq!(q.words, vec![1, 2]);
        let given = Query::for_pair(Some("red shoes"), &a, &b);
        assert!(!given.derived);
        assert_eq!(given.words.len(), 2);
    }
}
