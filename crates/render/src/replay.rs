//! Replay: a page read from a crawl renders with the crawl's own resources.
//!
//! Offline, a lone HTML file loses every script, stylesheet and font it loaded
//! from elsewhere, so what the renderer shows is not what the crawler saw. A page
//! from an archive is instead offered at its own path on the render's origin, and
//! every request it makes is answered from the archive: a request to the render's
//! origin stands for the page's own site (so `/static/app.js` is looked up as
//! `https://site.example/static/app.js`), any other address is looked up as it is.
//! What the archive lacks is refused, as for a lone file; nothing reaches the
//! network (every request is paused and answered here, see `serve.rs`).

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A response an archive holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Archived {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
}

/// Where a replayed page's requests are answered from: the responses captured in
/// its crawl, looked up by URL (exactly, then as replay tools match
/// cache-busting query strings). None when the archive has no such response.
pub trait Archive: Send + Sync {
    fn answer(&self, url: &str) -> Option<Archived>;
}

impl Archive for twinpage_crawl::Index {
    fn answer(&self, url: &str) -> Option<Archived> {
        let (capture, response) = self.response(url)?;
        let content_type = response
            .header("Content-Type")
            .map(str::to_string)
            .or_else(|| capture.media_type.clone())
            .unwrap_or_else(|| "application/octet-stream".into());
        Some(Archived {
            status: response.status,
            content_type,
            body: response.body,
        })
    }
}

/// A page to replay: its URL when crawled, and its crawl's archive.
#[derive(Clone)]
pub struct ReplayOf {
    pub url: String,
    pub archive: Arc<dyn Archive>,
    /// Names the archive's contents (e.g. a hash of its files' names, sizes and
    /// times): with the page's bytes and URL, it keys the page's render in the cache.
    pub archive_id: String,
}

impl ReplayOf {
    /// The content hash a replayed page is cached under: the same bytes replayed and
    /// alone render differently, and so may one URL replayed from two archives.
    pub(crate) fn content_hash(&self, document_hash: &[u8; 32]) -> [u8; 32] {
        let mut hasher = blake3::Hasher::new();
        hasher.update(document_hash);
        for part in ["replay", &self.url, &self.archive_id] {
            hasher.update(&[0]).update(part.as_bytes());
        }
        *hasher.finalize().as_bytes()
    }
}

/// The pages of a run that come from crawls, by the path of their fetched body.
#[derive(Clone, Default)]
pub struct Replays(Arc<HashMap<PathBuf, ReplayOf>>);

impl Replays {
    pub fn new(pages: HashMap<PathBuf, ReplayOf>) -> Replays {
        Replays(Arc::new(pages))
    }

    /// How the document at `path` is replayed, if it comes from a crawl.
    pub fn of(&self, path: &Path) -> Option<&ReplayOf> {
        self.0.get(path)
    }
}

impl fmt::Debug for Replays {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Replays({} pages)", self.0.len())
    }
}

/// What to render: a document, replayed from its crawl's archive when it comes from one.
#[derive(Clone, Copy)]
pub struct Job<'a> {
    pub document: &'a Path,
    pub replay: Option<&'a ReplayOf>,
}

/// The page's site, `scheme://host[:port]`, and its path with query (`/` at least).
pub(crate) fn split_url(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    let path_at = url[after_scheme..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| after_scheme + i);
    let path = url[path_at..].split('#').next().unwrap_or("");
    (&url[..path_at], if path.is_empty() { "/" } else { path })
}

/// The archived URL a request of a replayed page stands for: a request to the
/// render's `origin` is one to the page's own site.
pub(crate) fn archived_url(requested: &str, origin: &str, page_site: &str) -> String {
    match requested.strip_prefix(origin) {
        Some(rest) if rest.is_empty() || rest.starts_with(['/', '?']) => {
            let rest = rest.split('#').next().unwrap_or("");
            format!("{page_site}{}", if rest.is_empty() { "/" } else { rest })
        }
        _ => requested.split('#').next().unwrap_or(requested).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_to_the_render_origin_stands_for_the_page_site() {
        let (site, path) = split_url("http://twinpage.test/app.html?x=1#top");
        assert_eq!((site, path), ("http://twinpage.test", "/app.html?x=1"));
        assert_eq!(split_url("https://a.example"), ("https://a.example", "/"));
        let origin = "https://t0-r1.localhost";
        assert_eq!(
            archived_url("https://t0-r1.localhost/static/app.js?v=1", origin, site),
            "http://twinpage.test/static/app.js?v=1"
        );
        assert_eq!(
            archived_url("https://cdn.example/lib.js#x", origin, site),
            "https://cdn.example/lib.js"
        );
        assert_eq!(
            archived_url("https://t0-r1.localhost.evil/x", origin, site),
            "https://t0-r1.localhost.evil/x"
        );
    }
}
