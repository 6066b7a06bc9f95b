//! Simple tests: titles, URLs, lengths, identity, spam, language, links, images.
//!
//! Cheap comparisons that the seed lists beside the distances. Alone none decides a
//! pair, but they tell the tree what kind of pair it is looking at (same site or
//! not, same size or not, a spammy side or not).

use super::signal::{flag, ratio, BodyPair, Signal, MISSING};
use crate::distance::{cosine, jaccard_distance, length_distance};

pub const SIGNALS: &[Signal] = &[
    Signal {
        name: "title_equal",
        meaning: "1 when the titles are equal (case and spacing ignored), -1 when a title is missing",
        compute: title_equal,
    },
    Signal {
        name: "title_similarity",
        meaning: "normalised Levenshtein similarity of the lower-cased titles, -1 when a title is missing",
        compute: title_similarity,
    },
    Signal {
        name: "title_word_overlap",
        meaning: "share of the shorter title's words found in the other title, -1 when a title is missing",
        compute: title_word_overlap,
    },
    Signal {
        name: "title_tfidf_cosine",
        meaning: "cosine similarity of the titles' words weighted by idf (rare words such as model numbers count most), -1 when a title is missing",
        compute: title_tfidf_cosine,
    },
    Signal {
        name: "url_overlap",
        meaning: "Jaccard similarity of the words of the two URLs",
        compute: url_overlap,
    },
    Signal {
        name: "same_domain",
        meaning: "1 when both URLs have the same registered domain, -1 when a URL is unparseable",
        compute: same_domain,
    },
    Signal {
        name: "same_subdomain",
        meaning: "1 when both URLs have the same host, -1 when a URL is unparseable",
        compute: same_host,
    },
    Signal {
        name: "same_directory",
        meaning: "1 when both URLs have the same host and directory, -1 when a URL is unparseable",
        compute: same_directory,
    },
    Signal {
        name: "body_length_distance",
        meaning: "|len(A) - len(B)| / max(len(A), len(B)) of the raw bodies in bytes",
        compute: body_length_distance,
    },
    Signal {
        name: "core_length_distance",
        meaning: "body length distance of the core contents, in words",
        compute: core_length_distance,
    },
    Signal {
        name: "core_words_min",
        meaning: "log2(1 + words) of the shorter core content: how much text the distances saw",
        compute: core_words_min,
    },
    Signal {
        name: "compressed_length_ratio",
        meaning: "smaller / larger deflate length of the core contents",
        compute: compressed_length_ratio,
    },
    Signal {
        name: "identical_bodies",
        meaning: "1 when the raw bodies are byte for byte identical",
        compute: identical_bodies,
    },
    Signal {
        name: "identical_text",
        meaning: "1 when the visible texts are identical up to whitespace",
        compute: identical_text,
    },
    Signal {
        name: "spam_keyword_stuffing",
        meaning: "larger share of a page's words taken by its most frequent long word",
        compute: spam_keyword_stuffing,
    },
    Signal {
        name: "spam_hidden_text",
        meaning: "larger share of a page's text sitting in hidden elements",
        compute: spam_hidden_text,
    },
    Signal {
        name: "same_language",
        meaning: "1 when the core contents are in the same language, -1 when one is undetectable",
        compute: same_language,
    },
    Signal {
        name: "link_count_ratio",
        meaning: "smaller / larger number of links",
        compute: link_count_ratio,
    },
    Signal {
        name: "link_domain_distance",
        meaning: "Jaccard distance of the registered domains linked to",
        compute: link_domain_distance,
    },
    Signal {
        name: "image_count_ratio",
        meaning: "smaller / larger number of images",
        compute: image_count_ratio,
    },
];

fn titles(p: &BodyPair) -> Option<(String, String)> {
    let (a, b) = (p.a.title.trim(), p.b.title.trim());
    if a.is_empty() || b.is_empty() {
        None
    } else {
        Some((a.to_lowercase(), b.to_lowercase()))
    }
}

fn title_equal(p: &BodyPair) -> f64 {
    titles(p).map_or(MISSING, |(a, b)| flag(a == b))
}

fn title_similarity(p: &BodyPair) -> f64 {
    titles(p).map_or(MISSING, |(a, b)| strsim::normalized_levenshtein(&a, &b))
}

fn title_word_overlap(p: &BodyPair) -> f64 {
    titles(p).map_or(MISSING, |_| {
        let (wa, wb) = (&p.a.title_words, &p.b.title_words);
        let shared = wa.iter().filter(|w| wb.binary_search(w).is_ok()).count();
        let shorter = wa.len().min(wb.len());
        if shorter == 0 {
            flag(wa.len() == wb.len())
        } else {
            shared as f64 / shorter as f64
        }
    })
}

fn title_tfidf_cosine(p: &BodyPair) -> f64 {
    titles(p).map_or(MISSING, |(a, b)| {
        let idf = crate::document::IdfTable::shipped();
        let weights = |t: &str| idf.top_terms(&crate::document::text::word_ids(t), usize::MAX);
        cosine(&weights(&a), &weights(&b))
    })
}

fn url_overlap(p: &BodyPair) -> f64 {
    1.0 - jaccard_distance(&p.url_a.tokens, &p.url_b.tokens)
}

/// Compares one part of two URLs, or [`MISSING`] when either URL is unparseable.
fn same_url_part(p: &BodyPair, part: impl Fn(&crate::document::url::UrlParts) -> String) -> f64 {
    if p.url_a.is_known() && p.url_b.is_known() {
        flag(part(p.url_a) == part(p.url_b))
    } else {
        MISSING
    }
}

fn same_domain(p: &BodyPair) -> f64 {
    same_url_part(p, |u| u.domain.clone())
}

fn same_host(p: &BodyPair) -> f64 {
    same_url_part(p, |u| u.host.clone())
}

fn same_directory(p: &BodyPair) -> f64 {
    same_url_part(p, |u| format!("{}{}", u.host, u.directory))
}

fn body_length_distance(p: &BodyPair) -> f64 {
    length_distance(p.a.body_len, p.b.body_len)
}

fn core_length_distance(p: &BodyPair) -> f64 {
    length_distance(p.a.core_words.len(), p.b.core_words.len())
}

fn core_words_min(p: &BodyPair) -> f64 {
    (1.0 + p.a.core_words.len().min(p.b.core_words.len()) as f64).log2()
}

fn compressed_length_ratio(p: &BodyPair) -> f64 {
    ratio(
        p.a.core_compressed_len as f64,
        p.b.core_compressed_len as f64,
    )
}

fn identical_bodies(p: &BodyPair) -> f64 {
    flag(p.a.body_hash == p.b.body_hash)
}

fn identical_text(p: &BodyPair) -> f64 {
    flag(p.a.text_hash == p.b.text_hash)
}

fn spam_keyword_stuffing(p: &BodyPair) -> f64 {
    p.a.spam.top_word_share.max(p.b.spam.top_word_share)
}

fn spam_hidden_text(p: &BodyPair) -> f64 {
    p.a.spam.hidden_text_share.max(p.b.spam.hidden_text_share)
}

fn same_language(p: &BodyPair) -> f64 {
    match (p.a.language, p.b.language) {
        (Some(a), Some(b)) => flag(a == b),
        _ => MISSING,
    }
}

fn link_count_ratio(p: &BodyPair) -> f64 {
    ratio(p.a.link_count as f64, p.b.link_count as f64)
}

fn link_domain_distance(p: &BodyPair) -> f64 {
    jaccard_distance(&p.a.link_domains, &p.b.link_domains)
}

fn image_count_ratio(p: &BodyPair) -> f64 {
    ratio(p.a.image_count as f64, p.b.image_count as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;
    use crate::signals::testing::{signal, titled};

    fn run(a: &Document, b: &Document, ua: &str, ub: &str, name: &str) -> f64 {
        signal(SIGNALS, name, (a, b), (ua, ub))
    }

    #[test]
    fn titles() {
        let (a, b) = (titled("Red Shoes"), titled("red shoes"));
        assert_eq!(run(&a, &b, "", "", "title_equal"), 1.0);
        let c = titled("Red Boots");
        // "red shoes" vs "red boots": s>b, h>o, e>t = 3 substitutions over 9 chars
        assert!((run(&a, &c, "", "", "title_similarity") - (1.0 - 3.0 / 9.0)).abs() < 1e-9);
        // shared words {red} of 2 -> 0.5
        assert_eq!(run(&a, &c, "", "", "title_word_overlap"), 0.5);
        assert_eq!(run(&a, &titled(""), "", "", "title_equal"), MISSING);
        // Same words, any order: cosine 1; no shared word: 0.
        assert!((run(&a, &titled("shoes red"), "", "", "title_tfidf_cosine") - 1.0).abs() < 1e-6);
        assert_eq!(
            run(&a, &titled("blue hats"), "", "", "title_tfidf_cosine"),
            0.0
        );
    }

    #[test]
    fn urls() {
        let d = Document::default();
        let (x, y) = (
            "https://news.site.com/a/b/1.html",
            "http://www.site.com/a/b/1.html",
        );
        assert_eq!(run(&d, &d, x, y, "same_domain"), 1.0);
        assert_eq!(run(&d, &d, x, y, "same_subdomain"), 0.0);
        assert_eq!(run(&d, &d, x, y, "same_directory"), 0.0);
        // tokens {news, site, com, a, b, 1, html} vs {site, com, a, b, 1, html}: 6/7
        assert!((run(&d, &d, x, y, "url_overlap") - 6.0 / 7.0).abs() < 1e-9);
        assert_eq!(run(&d, &d, "id-17", y, "same_domain"), MISSING);
    }

    #[test]
    fn lengths_identity_and_counts() {
        let a = Document {
            body_len: 300,
            link_count: 4,
            image_count: 0,
            body_hash: [1; 32],
            ..Document::default()
        };
        let b = Document {
            body_len: 100,
            link_count: 1,
            image_count: 0,
            body_hash: [1; 32],
            ..Document::default()
        };
        assert!((run(&a, &b, "", "", "body_length_distance") - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(run(&a, &b, "", "", "link_count_ratio"), 0.25);
        assert_eq!(run(&a, &b, "", "", "image_count_ratio"), 1.0);
        assert_eq!(run(&a, &b, "", "", "identical_bodies"), 1.0);
    }

    #[test]
    fn language() {
        let a = Document {
            language: Some("eng"),
            ..Document::default()
        };
        let b = Document {
            language: Some("deu"),
            ..Document::default()
        };
        assert_eq!(run(&a, &b, "", "", "same_language"), 0.0);
        assert_eq!(run(&a, &a, "", "", "same_language"), 1.0);
        assert_eq!(
            run(&a, &Document::default(), "", "", "same_language"),
            MISSING
        );
    }

    #[test]
    fn core_lengths_compression_text_and_spam() {
        use crate::document::attributes::SpamIndicators;
        let a = Document {
            core_words: vec![1; 7],
            core_compressed_len: 50,
            text_hash: 9,
            spam: SpamIndicators {
                top_word_share: 0.1,
                hidden_text_share: 0.6,
            },
            ..Document::default()
        };
        let b = Document {
            core_words: vec![1; 3],
            core_compressed_len: 200,
            text_hash: 9,
            spam: SpamIndicators {
                top_word_share: 0.4,
                hidden_text_share: 0.0,
            },
            ..Document::default()
        };
        // |7 - 3| / 7
        assert!((run(&a, &b, "", "", "core_length_distance") - 4.0 / 7.0).abs() < 1e-12);
        // log2(1 + 3) = 2
        assert_eq!(run(&a, &b, "", "", "core_words_min"), 2.0);
        assert_eq!(run(&a, &b, "", "", "compressed_length_ratio"), 0.25);
        assert_eq!(run(&a, &b, "", "", "identical_text"), 1.0);
        assert_eq!(run(&a, &b, "", "", "spam_keyword_stuffing"), 0.4);
        assert_eq!(run(&a, &b, "", "", "spam_hidden_text"), 0.6);
        // {1, 2} vs {2, 3}: 1 - 1/3
        let la = Document {
            link_domains: vec![1, 2],
            ..Document::default()
        };
        let lb = Document {
            link_domains: vec![2, 3],
            ..Document::default()
        };
        assert!((run(&la, &lb, "", "", "link_domain_distance") - 2.0 / 3.0).abs() < 1e-12);
    }
}
