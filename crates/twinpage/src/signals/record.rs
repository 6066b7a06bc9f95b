//! Record tests: what decides whether two record pages (see
//! [`crate::document::record`]) describe the same thing.
//!
//! Two product pages match when they name the same model ("Sony DSC-W55 7.2MP" and
//! "Sony DSCW55/B camera"), not when their words overlap; "… DSC-W55" and "… DSC-W35"
//! are different cameras with nearly the same words. So these tests compare
//! identifiers, quantities with their units, prices and fields side by side, and compare
//! short texts by character n-grams, which survive spacing and punctuation that split
//! words differently. They are computed once per pair, on each side's fetched record (its
//! rendered one when the fetched body has none); a pair where either page is not a
//! record gets [`MISSING`] (but `both_records`).

use crate::distance::longest_common_substring;
use crate::document::record::{self, Quantity, Record};
use crate::document::{text, Document, IdfTable};

use super::signal::{flag, ratio, MISSING};

/// Prefix of the record signals.
pub const PREFIX: &str = "record.";

/// A test on two records.
pub struct RecordSignal {
    pub name: &'static str,
    pub meaning: &'static str,
    pub compute: fn(&Record, &Record) -> f64,
}

/// Character n-grams of this length are compared.
const GRAM: usize = 3;

pub const SIGNALS: &[RecordSignal] = &[
    RecordSignal {
        name: "code_match",
        meaning: "1 when the identifiers (letters with digits, or 5+ digits, normalised) of the names and model fields share one, 0 when both have some and share none",
        compute: code_match,
    },
    RecordSignal {
        name: "code_jaccard",
        meaning: "Jaccard similarity of the two sets of identifiers, when both have some",
        compute: code_jaccard,
    },
    RecordSignal {
        name: "code_in_other_text",
        meaning: "the larger, over the two sides, share of a side's identifiers written anywhere in the other's text (spacing and punctuation ignored)",
        compute: code_in_other_text,
    },
    RecordSignal {
        name: "code_part_in_other_text",
        meaning: "the larger, over the two sides, share of an identifier's characters that the other's text writes in one run (spacing and punctuation ignored): `pe222604` against `EDGDM-222604-PE` is 0.75",
        compute: code_part_in_other_text,
    },
    RecordSignal {
        name: "code_conflict",
        meaning: "1 when both sides have identifiers and none of either appears in the other's text, else 0",
        compute: code_conflict,
    },
    RecordSignal {
        name: "model_match",
        meaning: "model fields: 1 equal, 0.5 one contains the other, 0 different; with one model field, 1 when the other's text contains it",
        compute: model_match,
    },
    RecordSignal {
        name: "brand_match",
        meaning: "brand fields: 1 equal, 0.5 one contains the other, 0 different; with one brand field, 1 when the other's text contains it",
        compute: brand_match,
    },
    RecordSignal {
        name: "price_ratio",
        meaning: "smaller / larger price, when both records have one",
        compute: price_ratio,
    },
    RecordSignal {
        name: "quantity_jaccard",
        meaning: "Jaccard similarity of the quantities (number and unit, normalised: 2 TB = 2000 GB) of the two texts",
        compute: quantity_jaccard,
    },
    RecordSignal {
        name: "quantity_conflicts",
        meaning: "how many units both texts measure with no value in common (16 GB against 32 GB)",
        compute: quantity_conflicts,
    },
    RecordSignal {
        name: "name_numbers_jaccard",
        meaning: "Jaccard similarity of the words with digits of the two names (versions, sizes, years), when either has some",
        compute: name_numbers_jaccard,
    },
    RecordSignal {
        name: "name_words_missing_idf",
        meaning: "the larger, over the two sides, idf-weighted share of a side's name words that the other's text never writes (another edition, colour or series)",
        compute: name_words_missing_idf,
    },
    RecordSignal {
        name: "name_char_cosine",
        meaning: "cosine similarity of the names' character 3-grams, each word's weighted by its idf",
        compute: name_char_cosine,
    },
    RecordSignal {
        name: "text_char_cosine",
        meaning: "cosine similarity of the character 3-grams of the records' texts, weighted by idf",
        compute: text_char_cosine,
    },
    RecordSignal {
        name: "authors_jaccard",
        meaning: "Jaccard similarity of the words of the author fields, when both have one",
        compute: authors_jaccard,
    },
    RecordSignal {
        name: "authors_contained",
        meaning: "share of the shorter author list's surnames (each author's longest word) written in the other's author field, spacing and initials ignored",
        compute: authors_contained,
    },
    RecordSignal {
        name: "venue_similarity",
        meaning: "Jaccard similarity of the words of the venue fields, when both have one; 1 when one is the other's initials (VLDB, Very Large Data Bases)",
        compute: venue_similarity,
    },
    RecordSignal {
        name: "year_equal",
        meaning: "1 when both records give the same year, 0 when they differ",
        compute: year_equal,
    },
];

/// The meaning of `both_records`, the first record signal.
pub const BOTH_RECORDS: (&str, &str) = (
    "both_records",
    "1 when both pages are records (fields such as brand, model, price, authors), 0.5 when one is, 0 when none",
);

/// The record of a side: its rendered body's when rendering added words (a
/// script-built page: its fetched shell is short enough to pass for a record of its
/// title, though a reader sees an article), else its fetched body's, else its
/// rendered body's.
pub fn of<'a>(fetched: &'a Document, rendered: Option<&'a Document>) -> Option<&'a Record> {
    side(fetched, rendered)?.record.as_ref()
}

/// The body [`of`] reads a side's record from, when it has one.
pub fn side<'a>(fetched: &'a Document, rendered: Option<&'a Document>) -> Option<&'a Document> {
    match rendered {
        Some(r) if r.visible_words.len() > fetched.visible_words.len() => {
            r.record.is_some().then_some(r)
        }
        _ if fetched.record.is_some() => Some(fetched),
        _ => rendered.filter(|r| r.record.is_some()),
    }
}

/// The record signals of a pair, `both_records` first, in [`names`](super::vector::names) order.
pub fn values(a: Option<&Record>, b: Option<&Record>) -> Vec<f64> {
    let both = f64::from(u8::from(a.is_some()) + u8::from(b.is_some())) / 2.0;
    let tests = SIGNALS.iter().map(|s| match (a, b) {
        (Some(a), Some(b)) => (s.compute)(a, b),
        _ => MISSING,
    });
    std::iter::once(both).chain(tests).collect()
}

/// Names and meanings of the record signals, in vector order.
pub fn described() -> impl Iterator<Item = (String, &'static str)> {
    std::iter::once(BOTH_RECORDS)
        .chain(SIGNALS.iter().map(|s| (s.name, s.meaning)))
        .map(|(name, meaning)| (format!("{PREFIX}{name}"), meaning))
}

fn has_codes(a: &Record, b: &Record) -> bool {
    !a.codes.is_empty() && !b.codes.is_empty()
}

fn code_match(a: &Record, b: &Record) -> f64 {
    if !has_codes(a, b) {
        return MISSING;
    }
    flag(a.codes.iter().any(|c| b.codes.binary_search(c).is_ok()))
}

fn code_jaccard(a: &Record, b: &Record) -> f64 {
    if !has_codes(a, b) {
        return MISSING;
    }
    let shared = a
        .codes
        .iter()
        .filter(|c| b.codes.binary_search(c).is_ok())
        .count();
    shared as f64 / (a.codes.len() + b.codes.len() - shared) as f64
}

/// Share of `codes` written in `text` (compact).
fn found_in(codes: &[String], text: &str) -> Option<f64> {
    (!codes.is_empty()).then(|| {
        codes.iter().filter(|c| text.contains(c.as_str())).count() as f64 / codes.len() as f64
    })
}

fn code_in_other_text(a: &Record, b: &Record) -> f64 {
    larger_over_sides(a, b, found_in)
}

fn code_part_in_other_text(a: &Record, b: &Record) -> f64 {
    larger_over_sides(a, b, longest_run_in)
}

/// The larger of a side's codes read against the other side's text and the reverse;
/// a side without codes counts 0, and [`MISSING`] when neither has any.
fn larger_over_sides(a: &Record, b: &Record, side: fn(&[String], &str) -> Option<f64>) -> f64 {
    match (
        side(&a.codes, &b.compact_text),
        side(&b.codes, &a.compact_text),
    ) {
        (None, None) => MISSING,
        (x, y) => x.unwrap_or(0.0).max(y.unwrap_or(0.0)),
    }
}

/// The largest share of a code's characters (bytes) that `text` (compact) writes in one
/// run: the longest common substring of the two, over the code's length.
fn longest_run_in(codes: &[String], text: &str) -> Option<f64> {
    if codes.is_empty() {
        return None;
    }
    let bytes = |s: &str| s.bytes().map(u32::from).collect::<Vec<_>>();
    let text = bytes(text);
    codes
        .iter()
        .map(|c| longest_common_substring(&bytes(c), &text) as f64 / c.len() as f64)
        .reduce(f64::max)
}

fn code_conflict(a: &Record, b: &Record) -> f64 {
    if !has_codes(a, b) {
        return MISSING;
    }
    let none = found_in(&a.codes, &b.compact_text) == Some(0.0)
        && found_in(&b.codes, &a.compact_text) == Some(0.0);
    flag(none)
}

/// Two fields compared as compact text: 1 equal, 0.5 one contains the other, 0 else;
/// with one side's field only, 1 when the other's text contains it.
fn field_match(a: &Record, b: &Record, field: fn(&Record) -> Option<&String>) -> f64 {
    let compact = |r: &Record| {
        field(r)
            .map(|v| record::compact(v))
            .filter(|v| !v.is_empty())
    };
    match (compact(a), compact(b)) {
        (Some(x), Some(y)) if x == y => 1.0,
        (Some(x), Some(y)) if x.contains(&y) || y.contains(&x) => 0.5,
        (Some(_), Some(_)) => 0.0,
        (Some(x), None) => flag(b.compact_text.contains(&x)),
        (None, Some(y)) => flag(a.compact_text.contains(&y)),
        (None, None) => MISSING,
    }
}

fn model_match(a: &Record, b: &Record) -> f64 {
    field_match(a, b, |r| r.model.as_ref())
}

fn brand_match(a: &Record, b: &Record) -> f64 {
    field_match(a, b, |r| r.brand.as_ref())
}

fn price_ratio(a: &Record, b: &Record) -> f64 {
    match (a.price, b.price) {
        (Some(x), Some(y)) if x > 0.0 && y > 0.0 => ratio(x, y),
        _ => MISSING,
    }
}

/// Quantities compared with a relative tolerance (7.2 MP = 7.20 MP, 1 TB = 1000 GB).
fn same_quantity(x: &Quantity, y: &Quantity) -> bool {
    x.unit == y.unit && (x.value - y.value).abs() <= 1e-6 * x.value.abs().max(y.value.abs())
}

fn quantity_jaccard(a: &Record, b: &Record) -> f64 {
    let (qa, qb) = (&a.quantities, &b.quantities);
    if qa.is_empty() && qb.is_empty() {
        return MISSING;
    }
    let shared = qa
        .iter()
        .filter(|x| qb.iter().any(|y| same_quantity(x, y)))
        .count();
    shared as f64 / (qa.len() + qb.len() - shared) as f64
}

fn quantity_conflicts(a: &Record, b: &Record) -> f64 {
    let mut units: Vec<&str> = a.quantities.iter().map(|q| q.unit).collect();
    units.dedup();
    units
        .into_iter()
        .filter(|unit| {
            let of = |r: &'_ Record| -> Vec<Quantity> {
                r.quantities
                    .iter()
                    .filter(|q| q.unit == *unit)
                    .copied()
                    .collect()
            };
            let (x, y) = (of(a), of(b));
            !y.is_empty() && !x.iter().any(|p| y.iter().any(|q| same_quantity(p, q)))
        })
        .count() as f64
}

/// Character n-grams of a text's words (each padded with a space on both sides),
/// every n-gram of a word weighted by the word's idf, summed by n-gram: sorted by
/// n-gram, so that sums come out the same on every run (training is reproducible to
/// the bit). Arrays of chars sort as the strings they spell.
fn char_grams(text: &str) -> Vec<([char; GRAM], f64)> {
    let idf = IdfTable::shipped();
    let mut grams: Vec<([char; GRAM], f64)> = Vec::new();
    let mut padded: Vec<char> = Vec::new();
    for word in text::words(text) {
        let weight = f64::from(idf.idf(text::word_id(&word)));
        padded.clear();
        padded.push(' ');
        padded.extend(word.chars());
        padded.push(' ');
        grams.extend(padded.array_windows::<GRAM>().map(|gram| (*gram, weight)));
    }
    // Stable: the weights of one n-gram are added in the order of their words.
    grams.sort_by_key(|&(gram, _)| gram);
    grams.dedup_by(|next, kept| {
        let same = next.0 == kept.0;
        if same {
            kept.1 += next.1;
        }
        same
    });
    grams
}

fn cosine(x: &[([char; GRAM], f64)], y: &[([char; GRAM], f64)]) -> f64 {
    let dot: f64 = x
        .iter()
        .filter_map(|(gram, wx)| {
            let at = y.binary_search_by(|(other, _)| other.cmp(gram)).ok()?;
            Some(wx * y[at].1)
        })
        .sum();
    let norm = |v: &[([char; GRAM], f64)]| v.iter().map(|(_, w)| w * w).sum::<f64>().sqrt();
    let norms = norm(x) * norm(y);
    if norms > 0.0 {
        dot / norms
    } else {
        MISSING
    }
}

fn name_numbers_jaccard(a: &Record, b: &Record) -> f64 {
    let numbers = |r: &Record| -> Vec<String> {
        let mut out: Vec<String> = r
            .name
            .iter()
            .flat_map(|name| text::words(name))
            .filter(|w| w.chars().any(|c| c.is_ascii_digit()))
            .map(|w| record::compact(&w))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    };
    let (x, y) = (numbers(a), numbers(b));
    if x.is_empty() && y.is_empty() {
        return MISSING;
    }
    let shared = x.iter().filter(|n| y.binary_search(n).is_ok()).count();
    shared as f64 / (x.len() + y.len() - shared) as f64
}

/// Idf-weighted share of the words of `name` missing from `words` (sorted ids).
fn missing_share(name: &str, words: &[u32]) -> Option<f64> {
    let idf = IdfTable::shipped();
    let (mut missing, mut all) = (0.0, 0.0);
    for id in text::word_set(name) {
        let weight = f64::from(idf.idf(id));
        all += weight;
        if words.binary_search(&id).is_err() {
            missing += weight;
        }
    }
    (all > 0.0).then(|| missing / all)
}

fn name_words_missing_idf(a: &Record, b: &Record) -> f64 {
    let (Some(name_a), Some(name_b)) = (&a.name, &b.name) else {
        return MISSING;
    };
    let ab = missing_share(name_a, &text::word_set(&b.text));
    let ba = missing_share(name_b, &text::word_set(&a.text));
    match (ab, ba) {
        (None, None) => MISSING,
        (x, y) => x.unwrap_or(0.0).max(y.unwrap_or(0.0)),
    }
}

fn name_char_cosine(a: &Record, b: &Record) -> f64 {
    match (&a.name, &b.name) {
        (Some(x), Some(y)) => cosine(&char_grams(x), &char_grams(y)),
        _ => MISSING,
    }
}

fn text_char_cosine(a: &Record, b: &Record) -> f64 {
    cosine(&char_grams(&a.text), &char_grams(&b.text))
}

fn word_jaccard(x: Option<&String>, y: Option<&String>) -> f64 {
    let (Some(x), Some(y)) = (x, y) else {
        return MISSING;
    };
    let (x, y) = (text::word_set(x), text::word_set(y));
    if x.is_empty() && y.is_empty() {
        return MISSING;
    }
    let shared = x.iter().filter(|w| y.binary_search(w).is_ok()).count();
    shared as f64 / (x.len() + y.len() - shared) as f64
}

fn authors_jaccard(a: &Record, b: &Record) -> f64 {
    word_jaccard(a.authors.as_ref(), b.authors.as_ref())
}

/// The surname of each author of a list: the longest word of each comma- or
/// `and`-separated name, compacted (initials and broken accents fall away).
fn surnames(authors: &str) -> Vec<String> {
    authors
        .split(',')
        .flat_map(|part| part.split(" and "))
        .filter_map(|author| {
            author
                .split_whitespace()
                .map(record::compact)
                .max_by_key(|word| word.chars().count())
                .filter(|word| word.chars().count() > 1)
        })
        .collect()
}

fn authors_contained(a: &Record, b: &Record) -> f64 {
    let (Some(x), Some(y)) = (&a.authors, &b.authors) else {
        return MISSING;
    };
    let (sx, sy) = (surnames(x), surnames(y));
    let (short, other) = if sx.len() <= sy.len() {
        (sx, y)
    } else {
        (sy, x)
    };
    if short.is_empty() {
        return MISSING;
    }
    let other = record::compact(other);
    short.iter().filter(|s| other.contains(s.as_str())).count() as f64 / short.len() as f64
}

fn venue_similarity(a: &Record, b: &Record) -> f64 {
    let similarity = word_jaccard(a.venue.as_ref(), b.venue.as_ref());
    let (Some(x), Some(y)) = (&a.venue, &b.venue) else {
        return similarity;
    };
    let acronym = |venue: &str| -> String {
        text::words(venue)
            .filter_map(|word| word.chars().next())
            .collect()
    };
    let (cx, cy) = (record::compact(x), record::compact(y));
    let abbreviated = cx.len() > 1 && cx == acronym(y) || cy.len() > 1 && cy == acronym(x);
    if abbreviated {
        1.0
    } else {
        similarity
    }
}

fn year_equal(a: &Record, b: &Record) -> f64 {
    a.same_year(b).map_or(MISSING, flag)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn product(name: &str, model: Option<&str>, text: &str) -> Record {
        let named = [Some(name), model]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        Record {
            name: Some(name.into()),
            model: model.map(Into::into),
            codes: record::codes(&named),
            compact_text: record::compact(text),
            quantities: record::quantities(text),
            text: text.into(),
            ..Record::default()
        }
    }

    fn value(name: &str, a: Option<&Record>, b: Option<&Record>) -> f64 {
        let names: Vec<String> = described().map(|(n, _)| n).collect();
        values(a, b)[names
            .iter()
            .position(|n| n == &format!("{PREFIX}{name}"))
            .unwrap()]
    }

    #[test]
    fn the_same_camera_by_its_identifier_and_another_by_a_conflict() {
        let w55 = product(
            "Sony Cyber-shot DSC-W55 7.2MP",
            None,
            "Sony Cyber-shot DSC-W55 7.2MP digital camera, 3x zoom",
        );
        let w55b = product(
            "Sony DSCW55/B digital camera",
            None,
            "Sony DSCW55/B digital camera 7.2 MP",
        );
        let w35 = product(
            "Sony Cyber-shot DSC-W35 7.2MP",
            None,
            "Sony Cyber-shot DSC-W35 7.2MP digital camera, 3x zoom",
        );
        let (same, other) = ((Some(&w55), Some(&w55b)), (Some(&w55), Some(&w35)));
        // {dscw55} and {dscw55, dscw55b}: one of three shared.
        assert_eq!(value("code_match", same.0, same.1), 1.0);
        assert!((value("code_jaccard", same.0, same.1) - 0.5).abs() < 1e-12);
        assert_eq!(value("code_in_other_text", same.0, same.1), 1.0);
        assert_eq!(value("code_conflict", same.0, same.1), 0.0);
        assert_eq!(value("code_match", other.0, other.1), 0.0);
        assert_eq!(value("code_conflict", other.0, other.1), 1.0);
        // `dscw55` whole in the other's text; of `dscw55`, `dscw` in the W35's.
        assert_eq!(value("code_part_in_other_text", same.0, same.1), 1.0);
        assert!((value("code_part_in_other_text", other.0, other.1) - 4.0 / 6.0).abs() < 1e-12);
        // 7.2 MP on both sides; 3x zoom on one only.
        assert!((value("quantity_jaccard", same.0, same.1) - 0.5).abs() < 1e-12);
        assert_eq!(value("quantity_conflicts", same.0, same.1), 0.0);
        assert!(value("name_char_cosine", other.0, other.1) > 0.8);
        // Names' words with digits: {dscw55, 72mp} and {dscw55b}; {dscw55, 72mp} twice.
        assert_eq!(value("name_numbers_jaccard", same.0, same.1), 0.0);
        assert_eq!(value("name_numbers_jaccard", Some(&w55), Some(&w55)), 1.0);
        assert_eq!(value("both_records", same.0, same.1), 1.0);
    }

    #[test]
    fn an_identifier_written_inside_a_longer_one() {
        let a = product(
            "Edge 16GB SDHC card",
            Some("PE222604"),
            "Edge 16GB SDHC card PE222604",
        );
        let b = product(
            "16GB SDHC HD video card",
            Some("EDGDM-222604-PE"),
            "16GB SDHC HD video card EDGDM-222604-PE",
        );
        // Neither code is in the other's text, but six of `pe222604`'s eight are.
        assert_eq!(value("code_in_other_text", Some(&a), Some(&b)), 0.0);
        assert_eq!(value("code_part_in_other_text", Some(&a), Some(&b)), 0.75);
        let nameless = product("16GB SDHC card", None, "16GB SDHC card");
        assert_eq!(
            value("code_part_in_other_text", Some(&nameless), Some(&nameless)),
            MISSING
        );
    }

    #[test]
    fn fields_side_by_side_and_missing_values() {
        let mut a = product(
            "Apple iPod nano 8GB",
            Some("MB261LL/A"),
            "Apple iPod nano 8GB",
        );
        let mut b = product("iPod nano 16GB", None, "iPod nano 16GB silver MB261LLA");
        a.brand = Some("Apple".into());
        a.price = Some(150.0);
        b.price = Some(200.0);
        assert_eq!(model_match(&a, &b), 1.0, "b's text has a's model");
        assert_eq!(brand_match(&a, &b), 0.0, "b's text does not say Apple");
        assert_eq!(price_ratio(&a, &b), 0.75);
        assert_eq!(quantity_conflicts(&a, &b), 1.0);
        assert_eq!(year_equal(&a, &b), MISSING);
        // a's "apple" and "8gb" are not in b's text, b's "16gb" not in a's: the larger
        // idf share.
        let idf = |w: &str| f64::from(IdfTable::shipped().idf(text::word_id(w)));
        let a_missing = (idf("apple") + idf("8gb"))
            / ["apple", "ipod", "nano", "8gb"]
                .map(idf)
                .iter()
                .sum::<f64>();
        let b_missing = idf("16gb") / ["ipod", "nano", "16gb"].map(idf).iter().sum::<f64>();
        assert!((name_words_missing_idf(&a, &b) - a_missing.max(b_missing)).abs() < 1e-12);
        b.brand = Some("Apple Inc.".into());
        assert_eq!(brand_match(&a, &b), 0.5);
        assert_eq!(value("code_match", Some(&a), None), MISSING);
        assert_eq!(value("both_records", Some(&a), None), 0.5);
    }

    #[test]
    fn publications_by_authors_venue_and_year() {
        let paper = |authors: &str, venue: &str, year| Record {
            authors: Some(authors.into()),
            venue: Some(venue.into()),
            year: Some(year),
            ..Record::default()
        };
        let a = paper("A. Smith, B. Jones", "VLDB", 2003);
        let b = paper("Alan Smith, Bob Jones", "VLDB 2003", 2003);
        // {a, smith, b, jones} and {alan, smith, bob, jones}: 2 of 6.
        assert!((authors_jaccard(&a, &b) - 2.0 / 6.0).abs() < 1e-12);
        assert_eq!(venue_similarity(&a, &b), 0.5);
        let spelt = paper("A. Smith", "Very Large Data Bases", 2003);
        assert_eq!(venue_similarity(&a, &spelt), 1.0);
        assert_eq!(authors_contained(&a, &b), 1.0);
        let broken = paper(
            "d. laurent, j. lechtenb ö rger, n. spyratos",
            "VLDB J",
            2001,
        );
        let whole = paper(
            "jens lechtenbörger, dominique laurent, gottfried vossen",
            "VLDB",
            2001,
        );
        // laurent and lechtenb are found, spyratos is not: 2 of 3.
        assert!((authors_contained(&broken, &whole) - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(year_equal(&a, &b), 1.0);
        assert_eq!(text_char_cosine(&a, &b), MISSING);
    }

    #[test]
    fn a_script_built_page_is_read_as_what_it_renders_into() {
        let page = Document::from_html;
        // A shell: a title and "loading" is short enough to pass for a record of its title.
        let shell = page("<title>Rust 1.80 released</title><div id=app>Loading</div>");
        let story = "The Rust team has released version 1.80 of the language. ".repeat(60);
        let article = page(&format!("<title>Rust 1.80 released</title><p>{story}</p>"));
        let product =
            page("<title>Sony DSC-W55</title><table><tr><th>Brand</th><td>Sony</td></tr></table>");
        assert!(shell.record.is_some() && article.record.is_none());
        // Rendered into an article, the shell is no record; a page to which rendering
        // adds nothing keeps its fetched record.
        assert_eq!(of(&shell, Some(&article)), None);
        assert_eq!(of(&shell, None), shell.record.as_ref());
        assert_eq!(of(&product, Some(&shell)), product.record.as_ref());
    }
}
