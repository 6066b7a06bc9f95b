//! The signal vector of a pair: the tests in vector order, their names, and
//! their values.

use super::layout::{Layout, FETCHED, RENDERED};
use super::query::Query;
use super::signal::{BodyPair, Signal, MISSING};
use super::{contrast, distance, growth, metadata, query, record, rendered, simple};
use crate::distance::sets::containment;
use crate::document::url::UrlParts;
use crate::document::{Document, Pair};

/// The tests run on a body, in vector order.
fn body_signals() -> impl Iterator<Item = &'static Signal> {
    distance::SIGNALS
        .iter()
        .chain(simple::SIGNALS)
        .chain(query::SIGNALS)
}

/// The tests run on a rendered body: those of a fetched body, then the rendered-only ones.
fn rendered_body_signals() -> impl Iterator<Item = &'static Signal> {
    body_signals().chain(rendered::SIGNALS)
}

/// Names of the signal vector of a layout, in order, with their meaning.
pub fn described(layout: Layout) -> Vec<(String, &'static str)> {
    let fetched = body_signals().map(|s| (format!("{FETCHED}{}", s.name), s.meaning));
    let rendered = rendered_body_signals()
        .filter(|_| layout == Layout::FetchedAndRendered)
        .map(|s| (format!("{RENDERED}{}", s.name), s.meaning));
    let growth = growth::SIGNALS
        .iter()
        .filter(|_| layout == Layout::FetchedAndRendered)
        .map(|s| (format!("{}{}", growth::PREFIX, s.name), s.meaning));
    let meta = metadata::SIGNALS
        .iter()
        .map(|s| (format!("{}{}", metadata::PREFIX, s.name), s.meaning));
    fetched
        .chain(rendered)
        .chain(growth)
        .chain(meta)
        .chain(record::described())
        .chain(contrast::described())
        .collect()
}

/// Names of the signal vector of a layout, in order.
pub fn names(layout: Layout) -> Vec<String> {
    described(layout).into_iter().map(|(n, _)| n).collect()
}

/// The documents a pair's vector is computed from: both fetched bodies, and
/// both rendered bodies when the layout has them.
pub struct PairBodies<'a> {
    pub fetched: (&'a Document, &'a Document),
    pub rendered: Option<(&'a Document, &'a Document)>,
}

impl<'a> PairBodies<'a> {
    /// The body each side's record was read from ([`record::of`]), when both sides
    /// are record pages.
    pub fn record_sides(&self) -> Option<(&'a Document, &'a Document)> {
        let (fa, fb) = self.fetched;
        let (ra, rb) = self.rendered.unzip();
        Some((record::side(fa, ra)?, record::side(fb, rb)?))
    }
}

/// The signal vector of a pair. Its layout is that of `bodies`: rendered
/// signals are there exactly when rendered bodies are.
pub fn vector(pair: &Pair, bodies: &PairBodies) -> Vec<f64> {
    let url_a = UrlParts::parse(&pair.a.url);
    let url_b = UrlParts::parse(&pair.b.url);
    let (fa, fb) = bodies.fetched;
    let (ra, rb) = bodies.rendered.unzip();
    let (sa, sb) = (shown(fa, ra), shown(fb, rb));
    // One query for both bodies: the snippet comparison must ask the same thing of each.
    let query = Query::for_pair(pair.query.as_deref(), sa, sb);
    let on = |a, b| BodyPair {
        a,
        b,
        url_a: &url_a,
        url_b: &url_b,
        query: &query,
    };
    let fetched = on(sa, sb);
    let mut out: Vec<f64> = body_signals().map(|s| (s.compute)(&fetched)).collect();
    if let Some((ra, rb)) = bodies.rendered {
        let read = on(readable(fa, ra), readable(fb, rb));
        out.extend(body_signals().map(|s| (s.compute)(&read)));
        let rendered = on(ra, rb);
        out.extend(rendered::SIGNALS.iter().map(|s| (s.compute)(&rendered)));
        out.extend(growth::values(bodies));
    }
    out.extend(metadata::SIGNALS.iter().map(|s| (s.compute)(pair)));
    let (record_a, record_b) = (record::of(fa, ra), record::of(fb, rb));
    out.extend(record::values(record_a, record_b));
    out.extend(contrast::values(fa, fb, record_a.zip(record_b)));
    out.into_iter().map(sanitise).collect()
}

/// The body a side's fetched-body tests read: the fetched one, unless its rendered body
/// is at hand and the fetched one says nothing of the page a reader sees: it is built by
/// script (`Document::script_built`: a shell, a skeleton), or its core is text the
/// browser did not show ([`core_unseen`]). Compared as it is, such a page beside its
/// own article reads as two different pages to a model that never saw one of its kind;
/// compared rendered, it reads as the plain pair it is.
fn shown<'a>(fetched: &'a Document, rendered: Option<&'a Document>) -> &'a Document {
    match rendered {
        Some(rendered) if fetched.script_built() || core_unseen(fetched, rendered) => {
            readable(fetched, rendered)
        }
        _ => fetched,
    }
}

/// Share of a fetched core's shingles under which the core counts as unseen.
const CORE_SEEN_SHARE: f64 = 0.5;

/// Whether most of a fetched body's core is text its rendered page does not show: a
/// block of keywords a stylesheet hides (the extractor's pick on the fetched body, as
/// the longest run of text without links), a placeholder a script replaced.
fn core_unseen(fetched: &Document, rendered: &Document) -> bool {
    containment(&fetched.core_shingles, &rendered.visible_shingles)
        .is_some_and(|seen| seen < CORE_SEEN_SHARE)
}

/// The body a side's rendered content tests read: the rendered one, unless a reader sees
/// no word of it while the fetched body has some. Such a page stayed hidden (an
/// anti-flicker `html{visibility:hidden}` whose script could not load) or failed to
/// render; two of them would otherwise look identical (both empty) whatever they say.
/// The rendered-only tests and the growth tests still see the rendered body.
fn readable<'a>(fetched: &'a Document, rendered: &'a Document) -> &'a Document {
    if rendered.visible_words.is_empty() && !fetched.visible_words.is_empty() {
        fetched
    } else {
        rendered
    }
}

/// The last guard before the tree: anything not finite becomes [`MISSING`].
fn sanitise(value: f64) -> f64 {
    if value.is_finite() {
        value
    } else {
        MISSING
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signals::signal::ratio;
    use crate::signals::testing;

    #[test]
    fn names_are_unique_and_prefixed() {
        for layout in [Layout::Fetched, Layout::FetchedAndRendered] {
            let names = names(layout);
            let mut sorted = names.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), names.len());
            assert_eq!(Layout::of(&names), layout);
        }
        let fetched = names(Layout::Fetched);
        assert!(fetched.iter().all(|n| [
            FETCHED,
            metadata::PREFIX,
            record::PREFIX,
            contrast::PREFIX
        ]
        .iter()
        .any(|prefix| n.starts_with(prefix))));
        let both = names(Layout::FetchedAndRendered);
        // Fetched signals first, in the same order, so both layouts read alike.
        assert_eq!(both[..10], fetched[..10]);
        assert!(both.len() > fetched.len());
    }

    /// Signal `name` of a pair of `bodies`, in the layout the bodies give.
    fn signal(bodies: &PairBodies, name: &str) -> f64 {
        let layout = match bodies.rendered {
            Some(_) => Layout::FetchedAndRendered,
            None => Layout::Fetched,
        };
        let pair = testing::pair(Default::default(), Default::default());
        let at = names(layout).iter().position(|n| n == name).unwrap();
        vector(&pair, bodies)[at]
    }

    #[test]
    fn a_side_that_shows_no_words_is_read_on_its_fetched_body() {
        let words = |ids: &[u32]| Document {
            visible_words: ids.to_vec(),
            core_words: ids.to_vec(),
            ..Document::default()
        };
        let (fa, fb) = (words(&[1, 2, 3]), words(&[4, 5, 6]));
        let (hidden, shown) = (words(&[]), words(&[1, 2, 3]));
        let lev = "rendered.levenshtein_core";
        // Both rendered bodies hidden: they do not look identical, they read as fetched.
        let bodies = PairBodies {
            fetched: (&fa, &fb),
            rendered: Some((&hidden, &hidden)),
        };
        assert_eq!(signal(&bodies, lev), 1.0);
        // A shell that grows into the other side's article keeps its rendered body.
        let shell = words(&[]);
        let bodies = PairBodies {
            fetched: (&fa, &shell),
            rendered: Some((&fa, &shown)),
        };
        assert_eq!(signal(&bodies, lev), 0.0);
    }

    /// A shell's fetched-body tests read its rendered body, when there is one: beside
    /// its own article it reads as the copy it is, not as an empty page.
    #[test]
    fn a_shell_is_read_on_its_rendered_body() {
        let words = |ids: &[u32], script_built: bool| Document {
            visible_words: ids.to_vec(),
            core_words: ids.to_vec(),
            scripted: script_built,
            app_shell: script_built,
            ..Document::default()
        };
        let article = words(&[1, 2, 3, 4], false);
        let (shell, grown) = (words(&[9], true), words(&[1, 2, 3, 4], false));
        let value = |rendered: Option<(&Document, &Document)>| {
            let bodies = PairBodies {
                fetched: (&article, &shell),
                rendered,
            };
            signal(&bodies, "fetched.levenshtein_core")
        };
        assert_eq!(value(Some((&article, &grown))), 0.0);
        // Without its rendered body (the fetched-only model) the shell is what there is.
        assert_eq!(value(None), 1.0);
    }

    /// A page whose fetched core is text its browser did not show (keywords a stylesheet
    /// hides, which the extractor took for the core) is read rendered by the
    /// fetched-body tests; a page whose core the browser shows is read as fetched.
    #[test]
    fn a_core_the_browser_did_not_show_is_read_rendered() {
        use crate::document::text::shingles;
        let page = |core: &[u32], visible: &[u32]| Document {
            core_words: core.to_vec(),
            visible_words: visible.to_vec(),
            core_shingles: shingles(core),
            visible_shingles: shingles(visible),
            ..Document::default()
        };
        let article: Vec<u32> = (1..=20).collect();
        let stuffing: Vec<u32> = (100..=140).collect();
        let clean = page(&article, &article);
        let stuffed = page(&stuffing, &[&article[..], &stuffing[..]].concat());
        let value = |fetched: &Document, rendered: &Document| {
            let bodies = PairBodies {
                fetched: (&clean, fetched),
                rendered: Some((&clean, rendered)),
            };
            signal(&bodies, "fetched.levenshtein_core")
        };
        assert_eq!(value(&stuffed, &clean), 0.0);
        // The browser shows the block: it is the page's core, compared as fetched.
        assert_eq!(value(&stuffed, &stuffed), 1.0);
    }

    #[test]
    fn ratio_and_sanitise() {
        assert_eq!(ratio(2.0, 8.0), 0.25);
        assert_eq!(ratio(0.0, 0.0), 1.0);
        assert_eq!(sanitise(f64::NAN), MISSING);
        assert_eq!(sanitise(0.5), 0.5);
    }
}
