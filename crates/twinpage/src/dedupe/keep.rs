//! Which document of a cluster to keep.
//!
//! The rule, in order (the first that tells two documents apart decides):
//! 1. the page that names itself canonical (`<link rel="canonical">` pointing at its
//!    own URL), or whose URL another member names canonical;
//! 2. `https` before `http`;
//! 3. a URL without tracking parameters (`utm_*`, `fbclid`, `gclid`, …) and without
//!    a session id;
//! 4. more clicks, then more inlinks (docs.csv columns `clicks`, `inlinks`), where given;
//! 5. the earliest capture (`date`, as WARC-Date);
//! 6. the shorter URL, then the first in byte order (so the choice never depends on
//!    the order of the inputs).

use std::cmp::Ordering;

/// What the keep rule knows of a document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    pub url: String,
    pub canonical: String,
    pub date: String,
    pub clicks: Option<f64>,
    pub inlinks: Option<f64>,
}

/// Query parameters that track a visit rather than name a page.
const TRACKING: &[&str] = &[
    "utm_",
    "fbclid",
    "gclid",
    "dclid",
    "msclkid",
    "mc_cid",
    "mc_eid",
    "_ga",
    "yclid",
    "igshid",
    "ref",
    "ref_src",
    "sessionid",
    "session_id",
    "sid",
    "phpsessid",
    "jsessionid",
];

fn tracked(url: &str) -> bool {
    let Some((_, query)) = url.split_once('?') else {
        return url.to_ascii_lowercase().contains(";jsessionid=");
    };
    query.split('&').any(|param| {
        let name = param.split('=').next().unwrap_or("").to_ascii_lowercase();
        TRACKING.iter().any(|t| {
            if t.ends_with('_') {
                name.starts_with(t)
            } else {
                name == *t
            }
        })
    })
}

/// Whether a member is canonical among `members`: it names itself, or another names it.
fn canonical_in(members: &[Facts]) -> impl Fn(&Facts) -> bool + '_ {
    move |m| m.canonical == m.url || members.iter().any(|other| other.canonical == m.url)
}

/// The members of a cluster, best to keep first.
pub fn rank(members: &[Facts]) -> Vec<usize> {
    let canonical = canonical_in(members);
    let mut order: Vec<usize> = (0..members.len()).collect();
    order.sort_by(|&i, &j| compare(&members[i], &members[j], &canonical));
    order
}

fn compare(a: &Facts, b: &Facts, canonical: &dyn Fn(&Facts) -> bool) -> Ordering {
    let more = |x: Option<f64>, y: Option<f64>| y.unwrap_or(0.0).total_cmp(&x.unwrap_or(0.0));
    let dated = |f: &Facts| (f.date.is_empty(), f.date.clone());
    canonical(b)
        .cmp(&canonical(a))
        .then(
            b.url
                .starts_with("https:")
                .cmp(&a.url.starts_with("https:")),
        )
        .then(tracked(&a.url).cmp(&tracked(&b.url)))
        .then(more(a.clicks, b.clicks))
        .then(more(a.inlinks, b.inlinks))
        .then(dated(a).cmp(&dated(b)))
        .then(a.url.len().cmp(&b.url.len()))
        .then(a.url.cmp(&b.url))
}

/// Why `kept` is kept rather than `next` (the runner-up): the first rule that tells
/// them apart.
pub fn why(kept: &Facts, next: Option<&Facts>, members: &[Facts]) -> &'static str {
    let Some(next) = next else {
        return "alone";
    };
    let canonical = canonical_in(members);
    let reasons: [(bool, &'static str); 6] = [
        (canonical(kept) != canonical(next), "canonical"),
        (
            kept.url.starts_with("https:") != next.url.starts_with("https:"),
            "https",
        ),
        (
            tracked(kept.url.as_str()) != tracked(&next.url),
            "no tracking parameters",
        ),
        (kept.clicks != next.clicks, "more clicks"),
        (kept.inlinks != next.inlinks, "more inlinks"),
        (kept.date != next.date, "earliest capture"),
    ];
    reasons
        .iter()
        .find(|(differs, _)| *differs)
        .map_or("shortest URL", |(_, reason)| reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(url: &str, canonical: &str, date: &str) -> Facts {
        Facts {
            url: url.into(),
            canonical: canonical.into(),
            date: date.into(),
            ..Facts::default()
        }
    }

    #[test]
    fn canonical_then_https_then_clean_url_then_earliest() {
        let members = [
            facts("http://s.test/a", "", "2024-01-01"),
            facts("https://s.test/a?utm_source=x", "", "2023-01-01"),
            facts("https://s.test/a", "", "2025-01-01"),
            facts("https://m.s.test/a", "https://s.test/a", "2022-01-01"),
        ];
        // s.test/a is named canonical by the mobile copy.
        assert_eq!(rank(&members), [2, 3, 1, 0]);
        assert_eq!(why(&members[2], Some(&members[3]), &members), "canonical");
        let plain = [members[0].clone(), members[1].clone()];
        assert_eq!(rank(&plain), [1, 0]);
        assert_eq!(why(&plain[1], Some(&plain[0]), &plain), "https");
        let dated = [
            facts("https://s.test/b", "", "2025"),
            facts("https://s.test/c", "", "2024"),
        ];
        assert_eq!(rank(&dated), [1, 0]);
        assert_eq!(why(&dated[1], Some(&dated[0]), &dated), "earliest capture");
    }
}
