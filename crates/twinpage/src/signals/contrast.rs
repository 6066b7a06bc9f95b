//! What the titles disagree on: the words one side's title has and the other's
//! lacks, as slots of the vector for the model to weigh.
//!
//! "Vista Business" against "Vista Home Basic", "upgrade" against the full product,
//! "part 1" against "part 2": two records or pages that differ in one meaningful word
//! share nearly all the others, so no overlap measure tells them apart, and which words
//! matter is a fact about the domain (an edition, a platform, a part), not about
//! characters. So the differing words themselves are handed on, hashed, and the model
//! learns a weight for each from its labelled pairs (`model::contrast`); the trees never
//! read these slots as numbers.

use std::sync::OnceLock;

use crate::document::Document;

use super::signal::MISSING;
use super::{names, Layout};

/// Prefix of the differing-word slots.
pub const PREFIX: &str = "contrast.";

/// Slots for differing words. Two names of one product rarely differ in more; when
/// they do, the words kept are the same whichever side is `a` (the smallest hashes).
pub const WORDS: usize = 24;

const MEANING: &str = "a word one record page's name (title) has and the other's lacks (its hash, smallest first; -1 for none, or when either page is no record): read by the model's learned contrast, never as a number";

/// Names and meanings of the slots, in vector order.
pub fn described() -> impl Iterator<Item = (String, &'static str)> {
    (1..=WORDS).map(|i| (format!("{PREFIX}word_{i:02}"), MEANING))
}

/// The slots of a pair: the hashes of the words in one title and not the other,
/// smallest first, then [`MISSING`]; all [`MISSING`] unless both pages are
/// `records`. A page's title is its name only on a record page; on an article it
/// carries a site's name and a headline's wording, and weighing those words sent
/// kinds of web pairs never trained on to review (lab/RESULTS.md).
pub fn values(a: &Document, b: &Document, records: bool) -> Vec<f64> {
    if !records {
        return vec![MISSING; WORDS];
    }
    let (wa, wb) = (&a.title_words, &b.title_words);
    let mut differing: Vec<u32> = wa
        .iter()
        .filter(|w| wb.binary_search(w).is_err())
        .chain(wb.iter().filter(|w| wa.binary_search(w).is_err()))
        .copied()
        .collect();
    differing.sort_unstable();
    differing.truncate(WORDS);
    let mut out: Vec<f64> = differing.into_iter().map(f64::from).collect();
    out.resize(WORDS, MISSING);
    out
}

/// The values of a vector that are numbers: all but the slots (word hashes), for
/// whatever averages, compares or clusters vectors. The slots close the vectors of
/// this build; a vector of another width (an older build's) is all numbers.
pub fn numbers(x: &[f64]) -> &[f64] {
    static WIDTHS: OnceLock<[usize; 2]> = OnceLock::new();
    let widths = WIDTHS
        .get_or_init(|| [Layout::Fetched, Layout::FetchedAndRendered].map(|l| names(l).len()));
    if widths.contains(&x.len()) {
        &x[..x.len() - WORDS]
    } else {
        x
    }
}

/// The range of the slots in a vector of these signal names, if it has them.
pub fn slots(names: &[String]) -> Option<std::ops::Range<usize>> {
    let start = names.iter().position(|n| n.starts_with(PREFIX))?;
    Some(start..start + WORDS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::text;
    use crate::signals::testing::titled;

    #[test]
    fn the_slots_close_the_vector_of_each_layout() {
        for layout in [Layout::Fetched, Layout::FetchedAndRendered] {
            let names = names(layout);
            assert_eq!(slots(&names), Some(names.len() - WORDS..names.len()));
            let x = vec![0.0; names.len()];
            assert_eq!(numbers(&x).len(), names.len() - WORDS);
        }
        assert_eq!(numbers(&[0.5; 3]).len(), 3);
    }

    #[test]
    fn the_slots_hold_the_words_of_one_title_only_whichever_side() {
        let a = titled("Windows Vista Business");
        let b = titled("windows vista home basic");
        let ab = values(&a, &b, true);
        assert_eq!(ab, values(&b, &a, true));
        let expected: Vec<f64> = {
            let mut ids = vec![
                text::word_id("business"),
                text::word_id("home"),
                text::word_id("basic"),
            ];
            ids.sort_unstable();
            ids.into_iter().map(f64::from).collect()
        };
        assert_eq!(ab[..3], expected[..]);
        assert!(ab[3..].iter().all(|&v| v == MISSING));
        assert!(values(&a, &a, true).iter().all(|&v| v == MISSING));
        assert!(values(&a, &b, false).iter().all(|&v| v == MISSING));
    }
}
