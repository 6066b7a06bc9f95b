//! The parts of a URL that the simple tests compare: host, registered domain,
//! subdomain, directory, and the words of the whole address.

use url::Url;

use twinpage_util::hash::fnv1a;

/// A URL taken apart. Unparseable URLs give empty parts, not errors: a pair file
/// may hold ids or relative names in its URL columns and must still score.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UrlParts {
    /// Lower-cased host, without a leading `www.`.
    pub host: String,
    /// The registered domain (public suffix + one label), e.g. `bbc.co.uk`.
    pub domain: String,
    /// The host minus the registered domain, e.g. `news` for `news.bbc.co.uk`.
    pub subdomain: String,
    /// The path up to its last `/`.
    pub directory: String,
    /// Hashes of the words of host and path (for the URL-overlap test), sorted, deduplicated.
    pub tokens: Vec<u64>,
}

impl UrlParts {
    pub fn parse(raw: &str) -> UrlParts {
        let raw = raw.trim();
        let tokens = url_tokens(raw);
        let Ok(url) = Url::parse(raw) else {
            return UrlParts {
                tokens,
                ..UrlParts::default()
            };
        };
        let host = host_of(&url);
        let domain = psl::domain_str(&host).unwrap_or(&host).to_string();
        let subdomain = host
            .strip_suffix(&domain)
            .map(|s| s.trim_end_matches('.').to_string())
            .unwrap_or_default();
        let path = url.path();
        let directory = path[..path.rfind('/').map_or(0, |i| i + 1)].to_string();
        UrlParts {
            host,
            domain,
            subdomain,
            directory,
            tokens,
        }
    }

    pub fn is_known(&self) -> bool {
        !self.host.is_empty()
    }
}

/// The host of `raw` as [`UrlParts::host`] has it, without the rest of the parts
/// (empty when `raw` is no URL): for a caller that only asks whether two pages are on
/// one host.
pub fn host(raw: &str) -> String {
    Url::parse(raw.trim()).map_or_else(|_| String::new(), |url| host_of(&url))
}

/// Lower-cased host, without a trailing dot or a leading `www.`.
fn host_of(url: &Url) -> String {
    let host = url
        .host_str()
        .unwrap_or("")
        .trim_end_matches('.')
        .to_ascii_lowercase();
    host.strip_prefix("www.").unwrap_or(&host).to_string()
}

/// Words of a URL: alphanumeric runs of host and path, lower-cased, minus the
/// scheme and `www` which every URL shares.
fn url_tokens(raw: &str) -> Vec<u64> {
    let lower = raw.to_lowercase();
    let without_scheme = lower.split_once("://").map_or(lower.as_str(), |(_, r)| r);
    let mut tokens: Vec<u64> = without_scheme
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty() && *t != "www")
        .map(|t| fnv1a(t.as_bytes()))
        .collect();
    tokens.sort_unstable();
    tokens.dedup();
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_of_a_news_url() {
        let p = UrlParts::parse("https://www.News.BBC.co.uk/world/europe/story-1.html?x=1");
        assert_eq!(p.host, "news.bbc.co.uk");
        assert_eq!(host("https://www.News.BBC.co.uk/world/"), p.host);
        assert_eq!(p.domain, "bbc.co.uk");
        assert_eq!(p.subdomain, "news");
        assert_eq!(p.directory, "/world/europe/");
        // news, bbc, co, uk, world, europe, story, 1, html, x, 1 -> 10 distinct
        assert_eq!(p.tokens.len(), 10);
    }

    #[test]
    fn bare_domain_has_no_subdomain() {
        let p = UrlParts::parse("http://example.com/");
        assert_eq!(p.domain, "example.com");
        assert_eq!(p.subdomain, "");
        assert_eq!(p.directory, "/");
    }

    #[test]
    fn garbage_is_empty_not_an_error() {
        let p = UrlParts::parse("not a url");
        assert!(!p.is_known());
        assert_eq!(p.tokens.len(), 3);
        assert!(!UrlParts::parse("").is_known());
        assert_eq!(host("not a url"), "");
    }
}
