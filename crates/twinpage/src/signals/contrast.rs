//! What two records disagree on: the words one side's title has and the other's
//! lacks, then the two venues (when written otherwise), the words of the venues one
//! side has and the other lacks and whether the years differ, as slots of the vector
//! for the model to weigh.
//!
//! "Vista Business" against "Vista Home Basic", "upgrade" against the full product,
//! "part 1" against "part 2": two records or pages that differ in one meaningful word
//! share nearly all the others, so no overlap measure tells them apart, and which words
//! matter is a fact about the domain (an edition, a platform, a part), not about
//! characters. So the differing words themselves are handed on, hashed, and the model
//! learns a weight for each from its labelled pairs (`model::contrast`); the trees never
//! read these slots as numbers. A paper and its journal version share their title and
//! authors; what tells them apart is the venue ("transactions", "journal") and the year,
//! so those are words to weigh too, each marked with its field.

use std::sync::OnceLock;

use crate::document::record::Record;
use crate::document::{text, Document};

use super::signal::MISSING;
use super::{names, Layout};

/// Prefix of the differing-word slots.
pub const PREFIX: &str = "contrast.";

/// Slots for differing words. Two names of one product rarely differ in more; when
/// they do, the words kept are the same whichever side is `a` (the smallest hashes).
pub const WORDS: usize = 24;

const MEANING: &str = "a word one record page's name (title) has and the other's lacks, then the two venues when written otherwise, one word of its venue the other's lacks, or the mark that their years differ (its hash; the name's smallest first; -1 for none, or when either page is no record): read by the model's learned contrast, never as a number";

/// Field marks: a venue word is weighed apart from the same word in a name.
const VENUE_MARK: &str = "venue:";
const VENUE_PAIR_MARK: &str = "venues:";
const YEARS_DIFFER: &str = "year:differs";

/// Names and meanings of the slots, in vector order.
pub fn described() -> impl Iterator<Item = (String, &'static str)> {
    (1..=WORDS).map(|i| (format!("{PREFIX}word_{i:02}"), MEANING))
}

/// The slots of a pair: the hashes of the words in one title and not the other,
/// smallest first, then those of the venues' differing words and of the years'
/// disagreement (as many as fit), then [`MISSING`]; all [`MISSING`] unless both pages
/// are records. A page's title is its name only on a record page; on an article it
/// carries a site's name and a headline's wording, and weighing those words sent
/// kinds of web pairs never trained on to review (lab/RESULTS.md).
pub fn values(a: &Document, b: &Document, records: Option<(&Record, &Record)>) -> Vec<f64> {
    let Some((ra, rb)) = records else {
        return vec![MISSING; WORDS];
    };
    let mut words = differing(&a.title_words, &b.title_words);
    words.extend(field_words(ra, rb));
    let mut out: Vec<f64> = words.into_iter().take(WORDS).map(f64::from).collect();
    out.resize(WORDS, MISSING);
    out
}

/// The marked words of the fields two records disagree on: the two venues as one
/// word ([`venue_pair`]), their differing words, smallest hash first, then the mark
/// of different years.
fn field_words(a: &Record, b: &Record) -> Vec<u32> {
    let (venue_a, venue_b) = (venue_words(a), venue_words(b));
    let marked = |words: &[String]| {
        let mut ids: Vec<u32> = words
            .iter()
            .map(|w| text::word_id(&format!("{VENUE_MARK}{w}")))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    };
    let mut words: Vec<u32> = venue_pair(&venue_a, &venue_b).into_iter().collect();
    words.extend(differing(&marked(&venue_a), &marked(&venue_b)));
    if a.same_year(b) == Some(false) {
        words.push(text::word_id(YEARS_DIFFER));
    }
    words
}

/// The words of a record's venue, in order (none when it has no venue).
fn venue_words(r: &Record) -> Vec<String> {
    text::words(r.venue.as_deref().unwrap_or_default()).collect()
}

/// Two venues written otherwise, as one word (in either order): which venue one
/// source writes for another's is a fact of the two sources, and no weight of single
/// words learns it. DBLP's "vldb" is ACM's "very large data bases" and its "sigmod
/// conference" ACM's "international conference on management of data"; a paper
/// given at VLDB on one side and at SIGMOD on the other is two papers, though each of
/// its venue words also stands in duplicates. None when a venue is missing or both
/// are written alike.
fn venue_pair(a: &[String], b: &[String]) -> Option<u32> {
    if a.is_empty() || b.is_empty() || a == b {
        return None;
    }
    let (x, y) = (a.join(" "), b.join(" "));
    let (first, second) = if x < y { (x, y) } else { (y, x) };
    Some(text::word_id(&format!("{VENUE_PAIR_MARK}{first}|{second}")))
}

/// The ids in one sorted set and not the other, ascending.
fn differing(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out: Vec<u32> = a
        .iter()
        .filter(|w| b.binary_search(w).is_err())
        .chain(b.iter().filter(|w| a.binary_search(w).is_err()))
        .copied()
        .collect();
    out.sort_unstable();
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
        let record = Record::default();
        let records = Some((&record, &record));
        let ab = values(&a, &b, records);
        assert_eq!(ab, values(&b, &a, records));
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
        assert!(values(&a, &a, records).iter().all(|&v| v == MISSING));
        assert!(values(&a, &b, None).iter().all(|&v| v == MISSING));
    }

    #[test]
    fn a_journal_version_differs_in_venue_words_and_year() {
        let paper = titled("Optimization of queries with user-defined predicates");
        let conference = Record {
            venue: Some("VLDB".into()),
            year: Some(1996),
            ..Record::default()
        };
        let journal = Record {
            venue: Some("ACM Transactions on Database Systems (TODS)".into()),
            year: Some(1999),
            ..Record::default()
        };
        let slots = values(&paper, &paper, Some((&conference, &journal)));
        let marked = |w: &str| f64::from(text::word_id(w));
        for word in [
            "venues:acm transactions on database systems tods|vldb",
            "venue:vldb",
            "venue:transactions",
            "venue:tods",
            YEARS_DIFFER,
        ] {
            assert!(
                slots.contains(&marked(word)),
                "{word} missing from {slots:?}"
            );
        }
        assert!(
            !slots.contains(&marked("transactions")),
            "a venue word is marked"
        );
        assert_eq!(slots, values(&paper, &paper, Some((&journal, &conference))));
        let same_year = Record {
            year: Some(1996),
            ..journal.clone()
        };
        let slots = values(&paper, &paper, Some((&conference, &same_year)));
        assert!(!slots.contains(&marked(YEARS_DIFFER)));
        let slots = values(&paper, &paper, Some((&conference, &conference)));
        assert!(slots.iter().all(|&v| v == MISSING));
    }
}
