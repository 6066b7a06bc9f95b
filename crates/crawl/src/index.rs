//! The responses of a crawl by URL: what a replayed page's requests are answered from.
//!
//! A request is matched as replay tools (pywb, ReplayWeb.page) match it: the URL
//! exactly (the scheme, `http` or `https`, and the fragment aside); else, for
//! query strings that carry cache-busters or timestamps (`app.js?v=123` archived,
//! `app.js?v=456` asked), a capture of the same host and path, the one whose query
//! shares the most parameters. A redirect is followed inside the archive.

use std::collections::HashMap;

use crate::archive::WarcFile;
use crate::http::Response;
use crate::read::{payload, Capture, Crawl, Kind};

/// Redirects followed inside the archive before giving up.
const MAX_REDIRECTS: usize = 5;

/// A crawl's responses by URL.
pub struct Index {
    files: Vec<WarcFile>,
    captures: Vec<Capture>,
    /// By URL without scheme and fragment.
    exact: HashMap<String, Vec<usize>>,
    /// By URL without scheme, query and fragment.
    by_path: HashMap<String, Vec<usize>>,
}

impl Index {
    /// Indexes the responses a reading of the crawl found (revisits stand for their
    /// originals, which are indexed themselves).
    pub fn new(crawl: &Crawl) -> Index {
        let mut index = Index {
            files: crawl.files.clone(),
            captures: Vec::new(),
            exact: HashMap::new(),
            by_path: HashMap::new(),
        };
        for capture in crawl.captures.iter().filter(|c| c.kind != Kind::Revisit) {
            let i = index.captures.len();
            let key = without_scheme(&capture.url);
            index
                .by_path
                .entry(without_query(&key).to_string())
                .or_default()
                .push(i);
            index.exact.entry(key).or_default().push(i);
            index.captures.push(capture.clone());
        }
        index
    }

    /// The number of responses indexed.
    pub fn len(&self) -> usize {
        self.captures.len()
    }

    pub fn is_empty(&self) -> bool {
        self.captures.is_empty()
    }

    /// The capture that answers `url`, if any.
    pub fn find(&self, url: &str) -> Option<&Capture> {
        let key = without_scheme(url);
        if let Some(found) = self.exact.get(&key) {
            return Some(&self.captures[found[0]]);
        }
        let asked = parameters(&key);
        let candidates = self.by_path.get(without_query(&key))?;
        let best = candidates.iter().max_by_key(|&&i| {
            let archived = without_scheme(&self.captures[i].url);
            parameters(&archived)
                .iter()
                .filter(|p| asked.contains(p))
                .count()
        })?;
        Some(&self.captures[*best])
    }

    /// The archived response to `url`, redirects inside the archive followed.
    pub fn response(&self, url: &str) -> Option<(&Capture, Response)> {
        let mut url = url.to_string();
        for _ in 0..=MAX_REDIRECTS {
            let capture = self.find(&url)?;
            let record = self.files[capture.file]
                .records()
                .ok()?
                .read_at(capture.offset)
                .ok()?;
            let response = payload(&record, capture.kind).ok()?;
            match response.header("Location") {
                Some(location) if (300..400).contains(&response.status) => {
                    url = resolve(&capture.url, location);
                }
                _ => return Some((capture, response)),
            }
        }
        None
    }
}

fn without_scheme(url: &str) -> String {
    let url = url.split('#').next().unwrap_or(url);
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    // Host names are case-insensitive; paths are not.
    match rest.find(['/', '?']) {
        Some(i) => format!("{}{}", rest[..i].to_ascii_lowercase(), &rest[i..]),
        None => format!("{}/", rest.to_ascii_lowercase()),
    }
}

fn without_query(key: &str) -> &str {
    key.split('?').next().unwrap_or(key)
}

fn parameters(key: &str) -> Vec<&str> {
    key.split_once('?')
        .map(|(_, query)| query.split('&').collect())
        .unwrap_or_default()
}

/// `location` resolved against `base` (absolute, root-relative or relative).
fn resolve(base: &str, location: &str) -> String {
    if location.contains("://") {
        return location.to_string();
    }
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let host_end = base[scheme_end..]
        .find('/')
        .map_or(base.len(), |i| scheme_end + i);
    if let Some(rest) = location.strip_prefix("//") {
        return format!("{}{rest}", &base[..scheme_end]);
    }
    if location.starts_with('/') {
        return format!("{}{location}", &base[..host_end]);
    }
    let folder_end = base
        .rfind('/')
        .filter(|&i| i >= host_end)
        .map_or(base.len(), |i| i + 1);
    let folder = &base[..folder_end];
    if folder.ends_with('/') {
        format!("{folder}{location}")
    } else {
        format!("{folder}/{location}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_match_without_scheme_and_with_the_host_in_any_case() {
        assert_eq!(
            without_scheme("https://Example.COM/A?b=1#x"),
            "example.com/A?b=1"
        );
        assert_eq!(without_scheme("http://example.com"), "example.com/");
        assert_eq!(resolve("http://a.test/x/y.html", "/z"), "http://a.test/z");
        assert_eq!(
            resolve("http://a.test/x/y.html", "z.html"),
            "http://a.test/x/z.html"
        );
        assert_eq!(
            resolve("http://a.test/x", "https://b.test/"),
            "https://b.test/"
        );
    }
}
