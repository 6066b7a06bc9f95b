//! Where each document of a corpus is: its site, and its place in the order of
//! URLs.
//!
//! Searches keep each document's nearest, and pairs equally near are kept by
//! that order, not by the order the documents were read in: a crawl read in
//! another order (its files listed otherwise, an index that reads its new pages
//! before its stored ones) gives the same pairs.

use std::collections::HashMap;

use crate::document::url::UrlParts;

/// Each document's site and rank by URL, by document number.
#[derive(Debug)]
pub struct Places {
    /// Each document's registered domain, numbered (0 when unknown: another site
    /// than any).
    pub sites: Vec<u32>,
    /// Each document's place in the order of URLs (documents at one URL by their
    /// numbers).
    pub ranks: Vec<u32>,
}

impl Places {
    /// The places of documents at these URLs, in order.
    pub fn of<'u>(urls: impl Iterator<Item = &'u str>) -> Places {
        let urls: Vec<&str> = urls.collect();
        let mut numbers: HashMap<String, u32> = HashMap::new();
        let sites = urls
            .iter()
            .map(|url| match UrlParts::parse(url).domain {
                domain if domain.is_empty() => 0,
                domain => {
                    let next = numbers.len() as u32 + 1;
                    *numbers.entry(domain).or_insert(next)
                }
            })
            .collect();
        let mut by_url: Vec<u32> = (0..urls.len() as u32).collect();
        by_url.sort_by_key(|&doc| (urls[doc as usize], doc));
        let mut ranks = vec![0; urls.len()];
        for (rank, doc) in by_url.into_iter().enumerate() {
            ranks[doc as usize] = rank as u32;
        }
        Places { sites, ranks }
    }

    /// Places of documents each on a site of its own, ranked by number.
    #[cfg(test)]
    pub(crate) fn apart(documents: usize) -> Places {
        let numbers = 0..documents as u32;
        Places {
            sites: numbers.clone().map(|doc| doc + 1).collect(),
            ranks: numbers.collect(),
        }
    }

    /// The order in which pairs equally near are kept: by their two documents'
    /// ranks, the lower first.
    pub fn tie(&self, a: u32, b: u32) -> (u32, u32) {
        let (a, b) = (self.ranks[a as usize], self.ranks[b as usize]);
        (a.min(b), a.max(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_are_ranked_by_url_and_numbered_by_site() {
        let urls = [
            "https://b.example/1",
            "https://shop.a.example/x",
            "relative.html",
            "https://a.example/y",
            "https://b.example/1",
        ];
        let places = Places::of(urls.into_iter());
        assert_eq!(places.sites, [1, 2, 0, 2, 1]);
        assert_eq!(places.ranks, [1, 3, 4, 0, 2]);
        assert_eq!(places.tie(4, 3), (0, 2));
    }
}
