//! Candidate pairs of record pages (a product, a paper, a song) by what their
//! records share: the rare words of their names and their identifiers.
//!
//! Two catalogues' pages of one product share few shingles: one shop writes
//! "zoo tycoon 2 mac", the other "aspyr zoo tycoon 2" with a description the first
//! lacks, so fingerprints of their text find almost none of them (15 of 319 such
//! pairs of the entity-matching pages of `training-data/er/valid.csv`). What
//! such pages do share is a model number, an ISBN, a rare word of the name.
//! This is blocking as entity matching does it: each record's words and
//! identifiers are keys, a pair of records is as close as the inverse document
//! frequency of the keys they share (identifiers and rare words count most), and
//! each record keeps its few nearest. A key held by more than [`MAX_BLOCK`]
//! records says nothing of any two of them (a brand, "edition") and is not
//! searched: the cost of the search is bounded by it, not by the corpus.
//!
//! Only records of two sites are paired so: one site's copies of a record share
//! its template and its text, which fingerprints find, while its distinct short
//! pages (listings named after the site, a shop's models of one line) share the
//! words of their names.
//!
//! Of records equally near, those of the first URLs are kept ([`Places`]): an
//! index, which reads its new documents before its stored ones, pairs them as
//! one run over every document does.

use std::collections::HashMap;

use rayon::prelude::*;

use super::candidate::Candidate;
use super::places::Places;
use crate::document::record::Record;
use crate::document::text;

/// A key held by more records than this is not searched.
pub const MAX_BLOCK: usize = 100;

/// The pairs each record keeps: its nearest by shared keys.
pub const NEAREST_RECORDS: usize = 3;

/// Where a key is an identifier rather than a word (an identifier "320" and
/// a word "320" are different keys).
const CODE: u64 = 1 << 32;

/// The keys of a record, sorted: the words of its name, brand and model, and its
/// identifiers.
pub fn record_keys(record: &Record) -> Vec<u64> {
    let fields = [&record.name, &record.brand, &record.model];
    let words = fields
        .into_iter()
        .flatten()
        .flat_map(|field| text::words(field).map(|w| u64::from(text::word_id(&w))));
    let codes = record
        .codes
        .iter()
        .map(|code| CODE | u64::from(text::word_id(code)));
    let mut keys: Vec<u64> = words.chain(codes).collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// What a pair file's `method` column says of a pair found by its records alone.
pub const BY_RECORDS: &str = "records";

/// Candidate pairs of the records whose `keys` are given (document number =
/// position; a document without keys is no record and takes part in none):
/// each record's [`NEAREST_RECORDS`] nearest on another site by the weight of
/// the keys they share, sorted. They carry no evidence: no sketch found them.
pub fn record_pairs(keys: &[Vec<u64>], places: &Places) -> Vec<Candidate> {
    let search = Search::new(keys, places);
    search.pairs((0..keys.len() as u32).collect(), |_| true)
}

/// The pairs of [`record_pairs`] over every document that take one of the first
/// `new` (an index's new documents, before its stored ones): with `within_new`
/// also those of two new ones, else only a new one and a stored one. Only the
/// new records and those sharing a searched key with one are searched, so the
/// cost follows the new documents, not the index.
pub fn record_pairs_of_new<K: AsRef<[u64]> + Sync>(
    keys: &[K],
    places: &Places,
    new: usize,
    within_new: bool,
) -> Vec<Candidate> {
    let search = Search::new(keys, places);
    let mut searched: Vec<u32> = (0..new as u32).collect();
    let new_keys = keys[..new].iter().flat_map(AsRef::as_ref);
    let holders = new_keys.filter_map(|k| search.holders.get(k));
    searched.extend(holders.flatten().filter(|&&doc| doc as usize >= new));
    searched.sort_unstable();
    searched.dedup();
    let new = new as u32;
    search.pairs(searched, |pair| {
        pair.a < new && (within_new || pair.b >= new)
    })
}

/// The records, and who holds each searched key.
struct Search<'k, K> {
    keys: &'k [K],
    places: &'k Places,
    /// Each key held by 2 to [`MAX_BLOCK`] records, and its holders.
    holders: HashMap<u64, Vec<u32>>,
    /// Documents that are records.
    records: usize,
}

impl<'k, K: AsRef<[u64]> + Sync> Search<'k, K> {
    fn new(keys: &'k [K], places: &'k Places) -> Search<'k, K> {
        // Keys and their holders sorted together rather than hashed one by one: a crawl's
        // records hold millions of keys, nearly all held once, and only the others are kept.
        let mut held: Vec<(u64, u32)> = keys
            .iter()
            .enumerate()
            .flat_map(|(doc, doc_keys)| {
                let doc_keys = doc_keys.as_ref().iter();
                doc_keys.map(move |&key| (key, doc as u32))
            })
            .collect();
        held.par_sort_unstable();
        let holders = held
            .chunk_by(|x, y| x.0 == y.0)
            .filter(|run| (2..=MAX_BLOCK).contains(&run.len()))
            .map(|run| (run[0].0, run.iter().map(|&(_, doc)| doc).collect()))
            .collect();
        Search {
            keys,
            places,
            holders,
            records: keys.iter().filter(|k| !k.as_ref().is_empty()).count(),
        }
    }

    /// The nearest of each `searched` document that `keep` takes, sorted.
    fn pairs(
        &self,
        searched: Vec<u32>,
        keep: impl Fn(&Candidate) -> bool + Sync,
    ) -> Vec<Candidate> {
        let mut pairs: Vec<Candidate> = searched
            .into_par_iter()
            .flat_map_iter(|doc| {
                self.nearest(doc).into_iter().map(move |other| Candidate {
                    a: doc.min(other),
                    b: doc.max(other),
                    evidence: Vec::new(),
                })
            })
            .filter(|pair| keep(pair))
            .collect();
        pairs.par_sort_unstable();
        pairs.dedup();
        pairs
    }

    /// The [`NEAREST_RECORDS`] records on another site that share the most weight
    /// of keys with `doc` (of those equally near, the first by URL).
    fn nearest(&self, doc: u32) -> Vec<u32> {
        // A key's weight: its inverse document frequency among the records.
        let weight = |held_by: usize| (self.records as f64 / held_by as f64).ln();
        let Places { sites, ranks } = self.places;
        let site = sites[doc as usize];
        let elsewhere = |&other: &u32| other != doc && (site == 0 || sites[other as usize] != site);
        let mut shared: HashMap<u32, f64> = HashMap::new();
        for key in self.keys[doc as usize].as_ref() {
            let Some(docs) = self.holders.get(key) else {
                continue;
            };
            for &other in docs.iter().filter(|&other| elsewhere(other)) {
                *shared.entry(other).or_default() += weight(docs.len());
            }
        }
        let mut nearest: Vec<(u32, f64)> = shared.into_iter().collect();
        nearest.sort_unstable_by(|x, y| {
            let by_url = ranks[x.0 as usize].cmp(&ranks[y.0 as usize]);
            y.1.total_cmp(&x.1).then(by_url)
        });
        nearest.truncate(NEAREST_RECORDS);
        nearest.into_iter().map(|(other, _)| other).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(name: &str) -> Record {
        Record {
            name: Some(name.to_string()),
            codes: crate::document::record::codes(name),
            ..Record::default()
        }
    }

    /// URLs of documents on the given sites (0: no site), one page each.
    fn urls(sites: impl Iterator<Item = u32>) -> Vec<String> {
        let url = |(page, site)| match site {
            0 => format!("page{page}.html"),
            site => format!("https://shop{site}.example/{page}"),
        };
        sites.enumerate().map(url).collect()
    }

    fn places(urls: &[String]) -> Places {
        Places::of(urls.iter().map(String::as_str))
    }

    fn pairs_of(names: &[&str]) -> Vec<(u32, u32)> {
        let keys: Vec<Vec<u64>> = names.iter().map(|n| record_keys(&record(n))).collect();
        let urls = urls(1..=names.len() as u32);
        let pairs = record_pairs(&keys, &places(&urls));
        assert!(pairs.iter().all(|p| p.evidence.is_empty()));
        pairs.iter().map(|p| (p.a, p.b)).collect()
    }

    #[test]
    fn an_identifier_is_a_key_apart_from_a_word_spelled_alike() {
        let keys = record_keys(&record("Sony DSC-W120 camera"));
        let words = record_keys(&Record {
            codes: Vec::new(),
            ..record("Sony DSC-W120 camera")
        });
        assert!(keys.len() > words.len(), "{keys:?} against {words:?}");
        assert!(words.iter().all(|w| keys.contains(w)));
        assert!(record_keys(&Record::default()).is_empty());
    }

    #[test]
    fn records_sharing_rare_keys_are_paired_and_others_not() {
        let pairs = pairs_of(&[
            "zoo tycoon 2 mac",
            "aspyr zoo tycoon 2",
            "office 2007 home",
            "norton antivirus 2008",
        ]);
        assert!(pairs.contains(&(0, 1)), "{pairs:?}");
        assert!(!pairs.contains(&(2, 3)), "{pairs:?}");
    }

    #[test]
    fn each_record_keeps_its_nearest_by_the_weight_of_shared_keys() {
        // Record 0 shares "garmin" with five records and "nuvi 350" with one alone.
        let fillers: Vec<String> = (0..20).map(|i| format!("alone{i} single{i}")).collect();
        let mut names = vec!["garmin nuvi 350 gps", "nuvi 350 navigator"];
        names.extend(["garmin forerunner"; 5]);
        names.extend(fillers.iter().map(String::as_str));
        let pairs = pairs_of(&names);
        let of_first: Vec<u32> = pairs.iter().filter(|p| p.0 == 0).map(|p| p.1).collect();
        assert_eq!(of_first.len(), NEAREST_RECORDS, "{pairs:?}");
        assert!(of_first.contains(&1), "{pairs:?}");
        assert!(!pairs.iter().any(|&(a, b)| a >= 7 || b >= 7), "{pairs:?}");
    }

    #[test]
    fn records_of_one_site_are_not_paired_by_their_records() {
        let names = ["harbour news", "harbour news", "news of the harbour"];
        let keys: Vec<Vec<u64>> = names.iter().map(|n| record_keys(&record(n))).collect();
        let pairs = |sites: [u32; 3]| -> Vec<(u32, u32)> {
            let urls = urls(sites.into_iter());
            let pairs = record_pairs(&keys, &places(&urls));
            pairs.iter().map(|p| (p.a, p.b)).collect()
        };
        assert_eq!(pairs([1, 1, 2]), [(0, 2), (1, 2)]);
        assert_eq!(pairs([0, 0, 2]), [(0, 1), (0, 2), (1, 2)]);
    }

    #[test]
    fn the_pairs_of_new_records_are_those_a_search_of_all_finds_for_them() {
        let words = [
            "garmin",
            "nuvi",
            "tomtom",
            "forerunner",
            "edge",
            "vivo",
            "fenix",
        ];
        let names: Vec<String> = (0..40)
            .map(|i| format!("{} {} {}x", words[i % 7], words[i * 3 % 5], i % 6))
            .collect();
        let keys: Vec<Vec<u64>> = names.iter().map(|n| record_keys(&record(n))).collect();
        let urls = urls((0..40).map(|i| i % 3 + 1));
        let places = places(&urls);
        let all = record_pairs(&keys, &places);
        for new in [1, 7, 25, 40] {
            for within_new in [true, false] {
                let expected: Vec<&Candidate> = all
                    .iter()
                    .filter(|p| p.a < new && (within_new || p.b >= new))
                    .collect();
                let found = record_pairs_of_new(&keys, &places, new as usize, within_new);
                assert!(!found.is_empty() || (new == 40 && !within_new));
                assert_eq!(
                    found.iter().collect::<Vec<_>>(),
                    expected,
                    "{new} {within_new}"
                );
            }
        }
    }

    #[test]
    fn records_equally_near_are_kept_by_url_whatever_the_order_of_documents() {
        // Seven offers of one product on seven sites: each has six equally near and
        // keeps three of them.
        let keys = vec![record_keys(&record("garmin nuvi 350 gps")); 7];
        let urls = urls(1..=7);
        let by_url = |order: &[usize]| -> Vec<(String, String)> {
            let urls: Vec<String> = order.iter().map(|&i| urls[i].clone()).collect();
            let pairs = record_pairs(&keys, &places(&urls));
            let url = |doc: u32| urls[doc as usize].clone();
            let mut pairs: Vec<(String, String)> = pairs
                .iter()
                .map(|p| (url(p.a).min(url(p.b)), url(p.a).max(url(p.b))))
                .collect();
            pairs.sort_unstable();
            pairs
        };
        let first = by_url(&[0, 1, 2, 3, 4, 5, 6]);
        assert!(first.len() < 21, "{first:?}");
        assert_eq!(by_url(&[6, 5, 4, 3, 2, 1, 0]), first);
        assert_eq!(by_url(&[3, 0, 6, 2, 5, 1, 4]), first);
    }

    #[test]
    fn a_key_held_by_too_many_records_pairs_none_of_them() {
        let names: Vec<String> = (0..=MAX_BLOCK)
            .map(|i| format!("edition {}", i * 7919))
            .collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        assert!(pairs_of(&names).is_empty());
    }
}
