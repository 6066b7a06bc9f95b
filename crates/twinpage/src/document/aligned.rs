//! Cores aligned across a pair: where one page's text holds the other's core content
//! but its own extractor took another block, that page's core becomes the passage
//! holding it.
//!
//! The readability extractor reads each page alone, and on a page with a heavy template
//! or a block put before the article it can score the wrong block highest: a copy whose
//! core is its prepended notice, a syndicated story whose core is the site's link list.
//! Every core distance then compares two different blocks and says "other text", though
//! the whole article sits in both pages. The pair shows where the article is: the
//! passage of one page's text that holds the other's core.

use std::borrow::Cow;

use super::idf::IdfTable;
use super::{text, Document};
use crate::distance::containment;

/// Share of a core's shingles that the other page's visible text must hold, and its
/// core must not, for the passage holding them to stand in as that page's core.
const HELD: f64 = 0.8;

/// The least share of its page's visible words a core must hold to be looked for in
/// the other page: less is as likely a template block as the page's text.
const MAIN_SHARE: f64 = 0.3;

/// A core of fewer words says too little to find it elsewhere (a product record's
/// name and price are in many pages).
const MIN_CORE_WORDS: usize = 50;

/// The pair with at most one side's core replaced by the passage of its visible text
/// that holds the other side's core (see the module's documentation). When both
/// pages hold the other's core, the side whose core is held the more is kept.
pub fn aligned<'a>(
    a: &'a Document,
    b: &'a Document,
    idf: &IdfTable,
) -> (Cow<'a, Document>, Cow<'a, Document>) {
    let (a_held, b_held) = (held_elsewhere(a, b), held_elsewhere(b, a));
    match (a_held, b_held) {
        (Some(x), y) if y.is_none_or(|y| x >= y) => {
            let b_aligned = passage_holding(a, b, idf);
            (
                Cow::Borrowed(a),
                b_aligned.map_or(Cow::Borrowed(b), Cow::Owned),
            )
        }
        (_, Some(_)) => {
            let a_aligned = passage_holding(b, a, idf);
            (
                a_aligned.map_or(Cow::Borrowed(a), Cow::Owned),
                Cow::Borrowed(b),
            )
        }
        _ => (Cow::Borrowed(a), Cow::Borrowed(b)),
    }
}

/// The share of `core`'s core shingles that `page`'s visible text holds, when it holds
/// at least [`HELD`] of them and `page`'s own core does not, and that core is its
/// page's main text: at least [`MAIN_SHARE`] of it, and longer than any passage of its
/// page that `page` lacks. Those last two keep out a core the extractor took from the
/// template: on page 1 of an article it can be a block that page 2 repeats, while the
/// article's first half, longer, is on page 1 only.
fn held_elsewhere(core: &Document, page: &Document) -> Option<f64> {
    let words = core.core_words.len();
    if words < MIN_CORE_WORDS || (words as f64) < MAIN_SHARE * core.visible_words.len() as f64 {
        return None;
    }
    let in_text = containment(&core.core_shingles, &page.visible_shingles)?;
    let in_core = containment(&core.core_shingles, &page.core_shingles).unwrap_or(0.0);
    let held = in_text >= HELD && in_core < HELD;
    (held && longest_run_apart(&core.visible_words, &page.visible_shingles) < words)
        .then_some(in_text)
}

/// The longest run of `words` whose shingles `shingles` does not hold, in words.
fn longest_run_apart(words: &[u32], shingles: &[u64]) -> usize {
    let (mut longest, mut run) = (0, 0);
    for hash in text::shingles_in_order(words, text::SHINGLE_WORDS) {
        run = if shingles.binary_search(&hash).is_ok() {
            0
        } else {
            run + 1
        };
        longest = longest.max(run);
    }
    longest
}

/// `page` with, as its core, the run of its visible text where `core`'s core shingles
/// are denser than the rest (the largest sum of +1 for each word that starts one of
/// them, -1 for each that does not): the article, without the template around it,
/// and with what a copy inserted into it.
fn passage_holding(core: &Document, page: &Document, idf: &IdfTable) -> Option<Document> {
    let starts = text::shingles_in_order(&page.visible_words, text::SHINGLE_WORDS)
        .map(|h| core.core_shingles.binary_search(&h).is_ok());
    let (first, last) = densest_run(starts)?;
    let spans: Vec<_> = text::word_spans(&page.visible_text).collect();
    let end = spans.get(last + text::SHINGLE_WORDS - 1)?.end;
    let passage = page.visible_text[spans.get(first)?.start..end].to_string();
    Some(page.with_core(passage, idf))
}

/// The first and last index of the run with the largest sum of +1 for `true` and -1
/// for `false` (Kadane's maximum subarray); `None` when no element is `true`.
fn densest_run(marks: impl Iterator<Item = bool>) -> Option<(usize, usize)> {
    let (mut best, mut best_run) = (0i64, None);
    let (mut sum, mut start) = (0i64, 0usize);
    for (i, mark) in marks.enumerate() {
        if sum <= 0 {
            (sum, start) = (0, i);
        }
        sum += if mark { 1 } else { -1 };
        if sum > best {
            (best, best_run) = (sum, Some((start, i)));
        }
    }
    best_run
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(prefix: &str, words: usize) -> String {
        (0..words)
            .map(|i| format!("{prefix}{i}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn the_densest_run_spans_the_marks_and_what_little_lies_between() {
        let marks = |s: &str| s.chars().map(|c| c == 'x').collect::<Vec<_>>().into_iter();
        assert_eq!(densest_run(marks("..xxx.xx...x")), Some((2, 7)));
        assert_eq!(densest_run(marks("x....xxxx")), Some((5, 8)));
        assert_eq!(densest_run(marks("....")), None);
    }

    #[test]
    fn a_copy_whose_extractor_took_its_prepended_block_gets_the_article_as_core() {
        let article = numbered("story", 300);
        let original = Document::from_html(&format!(
            "<html><body><nav>Home News</nav><article><p>{article}</p></article></body></html>"
        ));
        // The notice is long enough, and in enough paragraphs, for the extractor to
        // take it over the article, which sits in a list item.
        let notice = format!("<p>{}, a notice.</p>", numbered("notice", 60)).repeat(6);
        let copy = Document::from_html(&format!(
            "<html><body><article>{notice}</article><ul><li>{article}</li></ul></body></html>"
        ));
        assert!(
            containment(&original.core_shingles, &copy.core_shingles).unwrap_or(0.0) < HELD,
            "the test needs the copy's extractor to miss the article"
        );
        let (a, b) = aligned(&original, &copy, IdfTable::shipped());
        assert!(matches!(a, Cow::Borrowed(_)));
        assert_eq!(b.core_words, original.core_words);
        assert_eq!(b.core_text.trim(), article);
        // What the copy shows beside the article is kept.
        assert_eq!(b.visible_text, copy.visible_text);
    }

    #[test]
    fn pages_whose_cores_agree_or_share_nothing_keep_their_cores() {
        let article = numbered("story", 300);
        let page = |chrome: &str, body: &str| {
            Document::from_html(&format!(
                "<html><body><nav>{chrome}</nav><article><p>{body}</p></article></body></html>"
            ))
        };
        let (one, two) = (page("Home", &article), page("Start Contact", &article));
        let other = page("Home", &numbered("other", 300));
        for (a, b) in [(&one, &two), (&one, &other)] {
            let (x, y) = aligned(a, b, IdfTable::shipped());
            assert!(matches!((x, y), (Cow::Borrowed(_), Cow::Borrowed(_))));
        }
    }

    /// A page written as word ids, whose core is the words `core` of its text.
    fn page(words: &[u32], core: std::ops::Range<usize>) -> Document {
        let core_words = words[core].to_vec();
        Document {
            visible_shingles: text::shingles(words),
            visible_words: words.to_vec(),
            core_shingles: text::shingles(&core_words),
            core_words,
            ..Document::default()
        }
    }

    #[test]
    fn a_template_block_taken_for_a_core_is_not_looked_for_elsewhere() {
        let ids = |from: u32, n: u32| (from..from + n).collect::<Vec<u32>>();
        // Pages 1 and 2 of one article in one template; page 2's extractor took the
        // template's block of 100 words, which page 1 repeats.
        let (block, first_half, second_half) = (ids(0, 100), ids(1000, 200), ids(2000, 200));
        let page_one = page(&[block.clone(), first_half].concat(), 100..300);
        let page_two = page(&[block.clone(), second_half].concat(), 0..100);
        assert_eq!(
            held_elsewhere(&page_two, &page_one),
            None,
            "page 2 writes a longer passage of its own"
        );
        // The same block as the core of a page that writes little else is its text.
        let notice = page(&[block.clone(), ids(3000, 60)].concat(), 0..100);
        assert_eq!(held_elsewhere(&notice, &page_one), Some(1.0));
        // But not where it is under a third of what the page writes (here page 1 and
        // a short passage of its own).
        let page_one_again = page(
            &[page_one.visible_words.clone(), ids(4000, 60)].concat(),
            0..100,
        );
        assert_eq!(held_elsewhere(&page_one_again, &page_one), None);
    }

    #[test]
    fn a_short_core_is_not_looked_for_elsewhere() {
        let name = "Camera X100 silver";
        let record = Document::from_html(&format!("<html><body><h1>{name}</h1></body></html>"));
        let shop = Document::from_html(&format!(
            "<html><body><article><p>{}</p></article><p>{name}</p></body></html>",
            numbered("review", 300)
        ));
        let (x, y) = aligned(&record, &shop, IdfTable::shipped());
        assert!(matches!((x, y), (Cow::Borrowed(_), Cow::Borrowed(_))));
    }
}
