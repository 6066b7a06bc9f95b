//! The responses of a crawl by URL: what a replayed page's requests are answered from.
//!
//! A request is matched as replay tools (pywb, ReplayWeb.page) match it: the URL
//! exactly (the scheme, `http` or `https`, and the fragment aside); else, for
//! query strings that carry cache-busters or timestamps (`app.js?v=123` archived,
//! `app.js?v=456` asked), a capture of the same host and path, the one whose query
//! shares the most parameters. A redirect is followed inside the archive.

use std::collections::HashMap;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use anyhow::{Context, Result};

use crate::archive::WarcFile;
use crate::http::Response;
use crate::read::{payload, Capture, Crawl, Kind};

/// Redirects followed inside the archive before giving up.
const MAX_REDIRECTS: usize = 5;

/// A crawl's responses by URL.
pub struct Index {
    saved: Saved,
    /// By URL without scheme and fragment.
    exact: HashMap<String, Vec<usize>>,
    /// By URL without scheme, query and fragment.
    by_path: HashMap<String, Vec<usize>>,
}

/// What an index keeps on disk: the WARC files and where each response is, so a
/// crawl is read once however often its pages replay.
#[derive(serde::Serialize, serde::Deserialize)]
struct Saved {
    files: Vec<WarcFile>,
    captures: Vec<Capture>,
}

impl Index {
    /// Indexes the responses a reading of the crawl found (revisits stand for their
    /// originals, which are indexed themselves).
    pub fn new(crawl: &Crawl) -> Index {
        let captures = crawl.captures.iter().filter(|c| c.kind != Kind::Revisit);
        Index::of(Saved {
            files: crawl.files.clone(),
            captures: captures.cloned().collect(),
        })
    }

    fn of(saved: Saved) -> Index {
        let mut index = Index {
            saved,
            exact: HashMap::new(),
            by_path: HashMap::new(),
        };
        for (i, capture) in index.saved.captures.iter().enumerate() {
            let key = without_scheme(&capture.url);
            let path = without_query(&key).to_string();
            index.by_path.entry(path).or_default().push(i);
            index.exact.entry(key).or_default().push(i);
        }
        index
    }

    /// Writes the index (JSON) for [`Index::read`].
    pub fn write(&self, w: &mut dyn std::io::Write) -> Result<()> {
        Ok(serde_json::to_writer(w, &self.saved)?)
    }

    /// An index [`Index::write`] wrote.
    pub fn read(path: &Path) -> Result<Index> {
        let file = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        let saved = serde_json::from_reader(BufReader::new(file))
            .with_context(|| format!("{} is not a crawl index", path.display()))?;
        Ok(Index::of(saved))
    }

    /// The number of responses indexed.
    pub fn len(&self) -> usize {
        self.saved.captures.len()
    }

    pub fn is_empty(&self) -> bool {
        self.saved.captures.is_empty()
    }

    /// The capture that answers `url`, if any.
    pub fn find(&self, url: &str) -> Option<&Capture> {
        let key = without_scheme(url);
        if let Some(found) = self.exact.get(&key) {
            return Some(&self.saved.captures[found[0]]);
        }
        let asked = parameters(&key);
        let candidates = self.by_path.get(without_query(&key))?;
        let best = candidates.iter().max_by_key(|&&i| {
            let archived = without_scheme(&self.saved.captures[i].url);
            parameters(&archived)
                .iter()
                .filter(|p| asked.contains(p))
                .count()
        })?;
        Some(&self.saved.captures[*best])
    }

    /// The archived response to `url`, redirects inside the archive followed.
    pub fn response(&self, url: &str) -> Option<(&Capture, Response)> {
        let mut url = url.to_string();
        for _ in 0..=MAX_REDIRECTS {
            let capture = self.find(&url)?;
            let record = self.saved.files[capture.file]
                .records()
                .ok()?
                .read_at(capture.offset, capture.within)
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
