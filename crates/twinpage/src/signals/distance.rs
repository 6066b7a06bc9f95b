//! Distance tests between attributes of two documents (the distance-based tests of the
//! patent's Table 2), on the algorithms of [`crate::distance`].
//!
//! Content distances run on the core content (boilerplate and ads removed), so that a
//! shared template does not make two pages look alike and a changed template does not
//! make a copy look different; word sequences are compared as hashed word ids.

use super::signal::{BodyPair, Signal, MISSING};
use crate::distance::{
    containment, cosine, damerau_levenshtein, hamming, jaccard_distance, kept_and_replaced,
    lcs_distance, levenshtein, longest_common_substring, mcd, Compressor,
};
use crate::document::{Document, SCRAP_CORE_WORDS};

/// Distance tests in vector order. Content distances run on the core content
/// (boilerplate and ads removed), so that a shared template does not make two pages
/// look alike and a changed template does not make a copy look different.
pub const SIGNALS: &[Signal] = &[
    Signal {
        name: "simhash_hamming_core",
        meaning: "bits differing between the 64-bit Charikar fingerprints of the core contents",
        compute: |p| f64::from(hamming(p.a.core_simhash, p.b.core_simhash)),
    },
    Signal {
        name: "simhash_hamming_text",
        meaning: "bits differing between the fingerprints of the whole visible texts",
        compute: |p| f64::from(hamming(p.a.visible_simhash, p.b.visible_simhash)),
    },
    Signal {
        name: "levenshtein_core",
        meaning: "word-level Levenshtein distance of the core contents / longer length",
        compute: |p| levenshtein(&p.a.core_words, &p.b.core_words),
    },
    Signal {
        name: "damerau_levenshtein_core",
        meaning: "word-level Damerau-Levenshtein (optimal string alignment) distance of the first 2000 core words / longer length",
        compute: |p| damerau_levenshtein(&p.a.core_words, &p.b.core_words, DAMERAU_MAX_WORDS),
    },
    Signal {
        name: "tfidf_cosine_core",
        meaning: "cosine similarity of the top-100 tf-idf terms of the core contents",
        compute: |p| cosine(&p.a.top_terms, &p.b.top_terms),
    },
    Signal {
        name: "lcs_core",
        meaning: "1 - longest common word subsequence / longer core length",
        compute: |p| lcs_distance(&p.a.core_words, &p.b.core_words),
    },
    Signal {
        name: "longest_common_substring_core",
        meaning: "longest common run of words / shorter core length (1 when both are empty)",
        compute: longest_common_run_share,
    },
    Signal {
        name: "jaccard_shingles_core",
        meaning: "Jaccard distance of the 4-word shingles of the core contents",
        compute: |p| jaccard_distance(&p.a.core_shingles, &p.b.core_shingles),
    },
    Signal {
        name: "jaccard_shingles_text",
        meaning: "Jaccard distance of the 4-word shingles of the visible texts",
        compute: |p| jaccard_distance(&p.a.visible_shingles, &p.b.visible_shingles),
    },
    Signal {
        name: "core_in_other_text_max",
        meaning: "the larger, over the two sides, share of a side's core shingles found anywhere in the other side's text (visible, or kept out of view by the page: an inactive tab): one article inside another page, even where the extractor took the wrong block for its core; a scrap of a core (under 25 words, under a tenth of the other's) not counted; -1 when both cores are empty",
        compute: core_in_other_text,
    },
    Signal {
        name: "core_in_other_text_min",
        meaning: "the smaller, over the two sides, share of a side's core shingles found in the other side's text: each page holds the other's core, whichever block the extractor took on each side; -1 when a core is empty",
        compute: |p| core_in_each_other(p.a, p.b).unwrap_or(MISSING),
    },
    Signal {
        name: "word_set_jaccard_text",
        meaning: "Jaccard distance of the sets of words of the visible texts (order ignored; strong on short records)",
        compute: |p| jaccard_distance(&p.a.visible_vocabulary, &p.b.visible_vocabulary),
    },
    Signal {
        name: "levenshtein_chars_core_head",
        meaning: "character Levenshtein distance of the first 1000 characters of the core contents, lower-cased / longer length",
        compute: char_levenshtein_of_heads,
    },
    Signal {
        name: "compression_distance_core",
        meaning: "modified compression distance of the core contents (long-window zstd)",
        compute: compression_distance,
    },
    Signal {
        name: "numbers_jaccard_core",
        meaning: "Jaccard distance of the numbers in the core contents (prices, model numbers, dates)",
        compute: |p| jaccard_distance(&p.a.core_numbers, &p.b.core_numbers),
    },
    Signal {
        name: "numbers_replaced_core",
        meaning: "share of the numbers written in the same place of both cores (same words before and after) that differ: figures changed in place; -1 when no number shares a place",
        compute: numbers_replaced_share,
    },
    Signal {
        name: "numbers_replaced_count_core",
        meaning: "how many numbers written in the same place of both cores differ",
        compute: |p| kept_and_replaced(&p.a.core_number_places, &p.b.core_number_places).1 as f64,
    },
    Signal {
        name: "names_replaced_count_core",
        meaning: "how many capitalised words (names) written in the same place of both cores differ: the same story about other people",
        compute: |p| kept_and_replaced(&p.a.core_name_places, &p.b.core_name_places).1 as f64,
    },
];

/// Damerau-Levenshtein is quadratic: it sees this many words of each side.
const DAMERAU_MAX_WORDS: usize = 2000;

/// Characters of core content compared by [`char_levenshtein_of_heads`].
const HEAD_CHARS: usize = 1000;

/// Edit distance on characters catches what word ids cannot: `dp5` vs `dp 5`,
/// spelling variants, punctuation. Only on the head of the text, where titles and
/// leads sit, to stay cheap on long bodies.
fn char_levenshtein_of_heads(p: &BodyPair) -> f64 {
    let head = |t: &str| -> Vec<u32> {
        t.chars()
            .flat_map(char::to_lowercase)
            .filter(|c| !c.is_whitespace())
            .take(HEAD_CHARS)
            .map(u32::from)
            .collect()
    };
    levenshtein(&head(&p.a.core_text), &head(&p.b.core_text))
}

fn core_in_other_text(p: &BodyPair) -> f64 {
    core_in_other(p.a, p.b).unwrap_or(MISSING)
}

/// The larger share of a side's core shingles found in the other side's text
/// (`core_in_other_text_max`); `None` when both cores are empty. A core of under
/// [`SCRAP_CORE_WORDS`] words beside one ten times as long is a scrap the extractor
/// settled for, and its share is left out.
pub fn core_in_other(a: &Document, b: &Document) -> Option<f64> {
    let held = |core: &Document, text: &Document| {
        (!scrap_core(core, text))
            .then(|| containment(&core.core_shingles, text.written_shingles()))
            .flatten()
    };
    [held(a, b), held(b, a)]
        .into_iter()
        .flatten()
        .reduce(f64::max)
}

/// Under this share of the other side's core, a core of under [`SCRAP_CORE_WORDS`]
/// is a scrap ([`scrap_core`]).
const SCRAP_SHARE: f64 = 0.1;

/// Whether `d`'s core is a scrap beside `other`'s: under [`SCRAP_CORE_WORDS`] words and
/// under [`SCRAP_SHARE`] of the other's, on a page that serves its text (a page 2 that
/// holds only the site's copyright line, which page 1 writes too). That the other page
/// writes a scrap says nothing of the two pages; short cores of like length (two
/// records) still count. An app shell's placeholder ([`Document::app_shell`]) is no
/// scrap the extractor settled for but all the shell serves: the cascade renders it. A
/// page with scripts that merely shows little (a page 2 with the site's scripts) is no
/// shell.
fn scrap_core(d: &Document, other: &Document) -> bool {
    let words = d.core_words.len();
    !d.app_shell
        && words < SCRAP_CORE_WORDS
        && (words as f64) < SCRAP_SHARE * other.core_words.len() as f64
}

/// The smaller share of a side's core shingles found in the other side's text;
/// `None` when a core is empty.
fn core_in_each_other(a: &Document, b: &Document) -> Option<f64> {
    let a_in_b = containment(&a.core_shingles, b.written_shingles())?;
    let b_in_a = containment(&b.core_shingles, a.written_shingles())?;
    Some(a_in_b.min(b_in_a))
}

fn numbers_replaced_share(p: &BodyPair) -> f64 {
    match kept_and_replaced(&p.a.core_number_places, &p.b.core_number_places) {
        (0, 0) => MISSING,
        (kept, replaced) => replaced as f64 / (kept + replaced) as f64,
    }
}

fn longest_common_run_share(p: &BodyPair) -> f64 {
    let shorter = p.a.core_words.len().min(p.b.core_words.len());
    if shorter == 0 {
        return if p.a.core_words.len() == p.b.core_words.len() {
            1.0
        } else {
            0.0
        };
    }
    longest_common_substring(&p.a.core_words, &p.b.core_words) as f64 / shorter as f64
}

fn compression_distance(p: &BodyPair) -> f64 {
    thread_local! {
        static COMPRESSOR: std::cell::RefCell<Compressor> = std::cell::RefCell::new(Compressor::new());
    }
    COMPRESSOR.with_borrow_mut(|c| {
        let (a, b) = (p.a.core_text.as_bytes(), p.b.core_text.as_bytes());
        let c_aa = *p.a.core_self_compressed.get_or_init(|| c.len_concat(a, a));
        let c_bb = *p.b.core_self_compressed.get_or_init(|| c.len_concat(b, b));
        mcd(c, a, b, c_aa, c_bb)
    })
}

/// The signal wrappers, on documents built by hand.
#[cfg(test)]
mod tests {
    use crate::document::Document;
    use crate::signals::testing::signal;

    fn run(a: &Document, b: &Document, name: &str) -> f64 {
        signal(super::SIGNALS, name, (a, b), ("", ""))
    }

    fn words(ids: &[u32]) -> Document {
        Document {
            core_words: ids.to_vec(),
            ..Document::default()
        }
    }

    #[test]
    fn a_copy_of_a_section_the_browser_kept_out_of_view_is_still_found_in_the_page() {
        let shown = "Advertise to millions of students in their own city every single day. \
            Campaigns start from a small budget and reach readers where they live, study and \
            meet: local channels carry posts about housing, exams, sport, music, food and \
            nightlife, and our team plans formats with you, from sponsored posts to polls, \
            takeovers and events on campus across forty university towns this autumn. ";
        let tab = "Brand safety comes first: every post is checked by moderators before ads run next to it. ";
        let original = format!(
            "<style>.tab{{display:none}}</style><main><p>{}</p><p class=tab>{}</p></main>",
            shown.repeat(2),
            tab.repeat(8)
        );
        // The browser shows only the active tab.
        let rendered = Document::rendered_from_html(&original, &shown.repeat(2));
        let copy = Document::from_html(&format!("<article><p>{}</p></article>", tab.repeat(8)));
        assert_eq!(run(&rendered, &copy, "core_in_other_text_max"), 1.0);
        let view_only = Document {
            dom_shingles: None,
            ..rendered.clone()
        };
        assert!(run(&view_only, &copy, "core_in_other_text_max") < 0.5);
    }

    #[test]
    fn a_scrap_of_a_core_in_the_other_page_is_no_shared_core() {
        let footer = "Copyright 2022 El Diario. Todos los derechos reservados.";
        let story = "The investigator said that most of the stolen cars he traced were held by \
            officials, and that he had not shown all of the material he gathered in the city. ";
        let page_1 = Document::from_html(&format!(
            "<article><p>{}</p></article><footer><p>{footer}</p></footer>",
            story.repeat(6)
        ));
        // Page 2 of the story holds nothing but the site's footer.
        let page_2 = Document::from_html(&format!("<footer><p>{footer}</p></footer>"));
        assert!(page_2.core_words.len() < super::SCRAP_CORE_WORDS);
        assert_eq!(run(&page_1, &page_2, "core_in_other_text_max"), 0.0);
        // An app shell's placeholder is all the shell serves, not a scrap; a page that
        // merely has scripts and little text is no shell.
        let shell = Document {
            app_shell: true,
            scripted: true,
            ..page_2.clone()
        };
        assert_eq!(run(&page_1, &shell, "core_in_other_text_max"), 1.0);
        let scripted = Document {
            scripted: true,
            ..page_2.clone()
        };
        assert!(scripted.script_built());
        assert_eq!(run(&page_1, &scripted, "core_in_other_text_max"), 0.0);
        // Two short cores of like length (two records) still count.
        let record = Document::from_html(&format!("<main><p>{footer} Ask us.</p></main>"));
        assert_eq!(run(&record, &page_2, "core_in_other_text_max"), 1.0);
    }

    #[test]
    fn longest_common_run_is_a_share_of_the_shorter_core() {
        // common run [2, 3, 4] = 3 words; shorter core has 4 words -> 0.75
        let (a, b) = (words(&[1, 2, 3, 4, 5, 6]), words(&[9, 2, 3, 4]));
        assert_eq!(run(&a, &b, "longest_common_substring_core"), 0.75);
        assert_eq!(
            run(&words(&[]), &words(&[]), "longest_common_substring_core"),
            1.0
        );
        assert_eq!(run(&words(&[]), &b, "longest_common_substring_core"), 0.0);
    }

    #[test]
    fn character_heads_ignore_case_and_spaces() {
        let text = |t: &str| Document {
            core_text: t.into(),
            ..Document::default()
        };
        // "dp5" vs "dp 5": equal once spaces are dropped
        assert_eq!(
            run(
                &text("Motu DP5"),
                &text("motu dp 5"),
                "levenshtein_chars_core_head"
            ),
            0.0
        );
        // "abcd" vs "abxd": one substitution of 4
        assert_eq!(
            run(&text("abcd"), &text("abxd"), "levenshtein_chars_core_head"),
            0.25
        );
    }

    #[test]
    fn compression_distance_caches_self_compression() {
        let text = |t: &str| Document {
            core_text: t.into(),
            ..Document::default()
        };
        // Two 60 KB texts of the same vocabulary in different orders.
        let words = |step: u64| -> String {
            (0..8000u64)
                .map(|i| format!("w{} ", i * step % 10007))
                .collect()
        };
        let (a, b) = (text(&words(7919)), text(&words(7919)));
        assert!(run(&a, &b, "compression_distance_core") < 0.01);
        assert!(a.core_self_compressed.get().is_some());
        let other = text(&words(104729));
        assert!(run(&a, &other, "compression_distance_core") > 0.5);
    }

    #[test]
    fn simhash_signals_count_bits() {
        let a = Document {
            core_simhash: 0b1011,
            visible_simhash: 0,
            ..Document::default()
        };
        let b = Document {
            core_simhash: 0b0001,
            visible_simhash: u64::MAX,
            ..Document::default()
        };
        assert_eq!(run(&a, &b, "simhash_hamming_core"), 2.0);
        assert_eq!(run(&a, &b, "simhash_hamming_text"), 64.0);
    }
}
