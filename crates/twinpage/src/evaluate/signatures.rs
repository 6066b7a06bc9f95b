//! The signature detectors of the Yandex comparison (Zelenkov & Segalovich), run
//! as stand-alone duplicate detectors on labelled pairs, beside the candidate
//! methods, so each can be set next to the model on the same pairs.
//!
//! Pre-processing as in the seed: tags stripped (the chosen text of the page),
//! stop words and words of three letters or fewer removed. A signature is a
//! checksum of a few selected items; two documents are duplicates when they share
//! a signature. "The collection" (N, df, cf, average length) is the set of
//! distinct documents of the pair files.
//!
//! - A0 MD5 of the whole (pre-processed) text.
//! - A1 TF: the 6 words of highest tf, sorted alphabetically, CRC32.
//! - A2 TF*IDF: the same with BM25 weights (k = 2, b = 0.75):
//!   `tf / (2 (0.25 + 0.75 dl/dl_avg) + tf) · log((N - df + 0.5) / (df + 0.5))`.
//! - A3 TF*RIDF: `(0.5 + 0.5 tf/tf_max) · (-log(df/N) + log(1 - exp(-cf/N)))`.
//! - A4 Long Sent: the 2 longest sentences (in words; ties alphabetically),
//!   concatenated alphabetically, CRC32.
//! - A5 Heavy Sent: the 2 sentences of highest summed A2 weight.
//! - A6 Megashingles: 5-word shingles, 36 min-hashes, 6 supershingles of 6, the
//!   15 megashingles; one shared megashingle suffices.
//! - A7 Lex Rand: I-Match over the lexicon (collection words minus the
//!   highest-IDF ones, found in one document only, and the lowest, in more than
//!   10 % of documents) and 10 copies with 30 % of its words randomly removed;
//!   a document has a signature per lexicon when it holds at least 5 of its words.
//! - A8 Log Shingles: 5-word shingles, wrapping from the end to the start; the
//!   logarithmic sample keeps the ⌈log2(n + 1)⌉ shingles divisible by the
//!   highest powers of 2 (most trailing zero bits); the sample is the signature.
//! - A9 Descr Words: descriptive words (in 2 or more documents and at most half,
//!   the 3000 of widest coverage), each with the relative-tf threshold where
//!   fewest documents sit within ±0.05 of it; the signature is the set of
//!   descriptive words above their thresholds. A one-pass simplification of
//!   the seed's iterated selection.
//! - A10 Opt Freq: `(0.5 + 0.5 tf/tf_max) · IDF_opt`, `IDF = -log(df/N)`,
//!   `IDF_opt = sqrt(IDF / 11.5)` below 11.5, `11.5 / IDF` above.
//! - A12 "3+5": the 3 longest sentences and 5 longest words of each document;
//!   two documents are duplicates when they share a longest-sentence signature
//!   (a chain), their lengths differ by at most 1.15×, their sentence counts by
//!   at most 1.20×, at least 2 of the 5 word signatures agree, and the longest
//!   sentences agree or (both over 5 sentences) 2 of the 3 do.

use std::collections::{BTreeMap, HashMap, HashSet};

use md5::{Digest, Md5};

use crate::candidates::minhash;
use crate::document::text;
use twinpage_util::hash::{fnv1a, mix64};

/// The detectors of the seed's Table 1, and A12.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detector {
    A0,
    A1,
    A2,
    A3,
    A4,
    A5,
    A6,
    A7,
    A8,
    A9,
    A10,
    A12,
}

impl Detector {
    pub const ALL: [Detector; 12] = [
        Detector::A0,
        Detector::A1,
        Detector::A2,
        Detector::A3,
        Detector::A4,
        Detector::A5,
        Detector::A6,
        Detector::A7,
        Detector::A8,
        Detector::A9,
        Detector::A10,
        Detector::A12,
    ];

    /// The detector `a0`…`a12` (any case) names.
    pub fn from_code(code: &str) -> Option<Detector> {
        Detector::ALL
            .into_iter()
            .find(|d| d.code().eq_ignore_ascii_case(code))
    }

    /// Its short code, as `--method` takes it: `a0` … `a12`.
    pub fn code(self) -> &'static str {
        self.name().split(' ').next().unwrap_or_default()
    }

    pub fn name(self) -> &'static str {
        match self {
            Detector::A0 => "A0 MD5",
            Detector::A1 => "A1 TF",
            Detector::A2 => "A2 TF*IDF",
            Detector::A3 => "A3 TF*RIDF",
            Detector::A4 => "A4 Long Sent",
            Detector::A5 => "A5 Heavy Sent",
            Detector::A6 => "A6 Megashingles",
            Detector::A7 => "A7 Lex Rand",
            Detector::A8 => "A8 Log Shingles",
            Detector::A9 => "A9 Descr Words",
            Detector::A10 => "A10 Opt Freq",
            Detector::A12 => "A12 3+5",
        }
    }
}

/// Words of one letter count shorter than this are dropped (the seed: "3 or fewer").
const MIN_WORD_CHARS: usize = 4;
/// Words per selection of A1–A3, A10.
const TOP_WORDS: usize = 6;
/// Extra lexicons of A7, share of words each drops, and words a document needs.
const LEXICONS: usize = 10;
const LEXICON_DROP: f64 = 0.3;
const MIN_IMATCH_WORDS: usize = 5;
/// A9: how many descriptive words, and the neighbourhood of a threshold.
const DESCRIPTIVE_WORDS: usize = 3000;
const DESCRIPTIVE_DELTA: f64 = 0.05;
/// A10's optimal IDF, -ln(10 / 1 000 000).
const OPTIMAL_IDF: f64 = 11.5;
/// A12's ratios.
const LENGTH_RATIO: f64 = 1.15;
const SENTENCE_COUNT_RATIO: f64 = 1.20;

/// Frequent words of four letters or more in the corpus's main languages.
const STOP_WORDS: &[&str] = &[
    "about", "after", "also", "been", "before", "being", "both", "could", "does", "each", "from",
    "have", "here", "into", "just", "like", "more", "most", "much", "only", "other", "over",
    "said", "should", "some", "such", "than", "that", "their", "them", "then", "there", "these",
    "they", "this", "those", "through", "very", "were", "what", "when", "where", "which", "while",
    "will", "with", "would", "your", "aber", "auch", "dass", "dein", "denn", "diese", "dieser",
    "durch", "eine", "einem", "einen", "einer", "haben", "kann", "mehr", "nach", "nicht", "noch",
    "oder", "schon", "sich", "sind", "über", "unter", "wenn", "werden", "wird", "wurde", "avec",
    "cette", "dans", "elle", "être", "leur", "mais", "nous", "pour", "sont", "sous", "vous",
    "como", "esta", "para", "pero", "sobre", "todo",
];

/// A document after the seed's pre-processing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prepared {
    pub words: Vec<String>,
    /// Each sentence's words (sentences without a kept word are dropped).
    pub sentences: Vec<Vec<String>>,
}

/// Splits a text into sentences (at [`text::SENTENCE_ENDS`] and line breaks) and keeps the
/// words of four letters or more that are not stop words.
pub fn prepare(body_text: &str) -> Prepared {
    let stop: HashSet<&str> = STOP_WORDS.iter().copied().collect();
    let sentences: Vec<Vec<String>> = body_text
        .split(|c| c == '\n' || text::SENTENCE_ENDS.contains(&c))
        .map(|s| {
            text::words(s)
                .filter(|w| w.chars().count() >= MIN_WORD_CHARS && !stop.contains(w.as_str()))
                .collect::<Vec<String>>()
        })
        .filter(|s| !s.is_empty())
        .collect();
    Prepared {
        words: sentences.concat(),
        sentences,
    }
}

/// Collection statistics the global detectors need.
#[derive(Debug, Clone, Default)]
pub struct Collection {
    pub documents: f64,
    pub df: HashMap<String, u32>,
    pub cf: HashMap<String, u64>,
    pub average_length: f64,
}

impl Collection {
    pub fn new(docs: &[Prepared]) -> Collection {
        let mut c = Collection {
            documents: docs.len() as f64,
            ..Collection::default()
        };
        for d in docs {
            for (w, n) in tf(d) {
                *c.df.entry(w.to_string()).or_default() += 1;
                *c.cf.entry(w.to_string()).or_default() += u64::from(n);
            }
        }
        let total: usize = docs.iter().map(|d| d.words.len()).sum();
        c.average_length = total as f64 / docs.len().max(1) as f64;
        c
    }

    fn df(&self, w: &str) -> f64 {
        f64::from(self.df.get(w).copied().unwrap_or(1).max(1))
    }

    fn idf(&self, w: &str) -> f64 {
        -(self.df(w) / self.documents).ln()
    }

    fn bm25_idf(&self, w: &str) -> f64 {
        let df = self.df(w);
        ((self.documents - df + 0.5) / (df + 0.5)).ln()
    }

    fn ridf(&self, w: &str) -> f64 {
        let cf = self.cf.get(w).copied().unwrap_or(1) as f64;
        self.idf(w) + (1.0 - (-cf / self.documents).exp()).ln()
    }
}

/// Term frequencies of a document, by word.
fn tf(doc: &Prepared) -> BTreeMap<&str, u32> {
    let mut out = BTreeMap::new();
    for w in &doc.words {
        *out.entry(w.as_str()).or_insert(0) += 1;
    }
    out
}

/// What a detector keeps of a document.
#[derive(Debug, Clone, PartialEq)]
pub enum Signature {
    /// Duplicates share any key. Empty: the document matches nothing.
    Keys(Vec<u64>),
    ThreeFive(ThreeFive),
}

/// A12's record of a document.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ThreeFive {
    pub length: usize,
    pub sentences: usize,
    /// Signatures of the (up to) 3 longest sentences, longest first.
    pub long_sentences: Vec<u64>,
    /// Signatures of the (up to) 5 longest distinct words.
    pub long_words: Vec<u64>,
}

fn crc(s: &str) -> u64 {
    u64::from(crc32fast::hash(s.as_bytes()))
}

/// Signatures of every document for one detector.
pub fn signatures(detector: Detector, docs: &[Prepared]) -> Vec<Signature> {
    let collection = Collection::new(docs);
    let keys = |f: &dyn Fn(&Prepared) -> Vec<u64>| -> Vec<Signature> {
        docs.iter()
            .map(|d| Signature::Keys(if d.words.is_empty() { Vec::new() } else { f(d) }))
            .collect()
    };
    let c = &collection;
    match detector {
        Detector::A0 => keys(&|d| {
            let digest = Md5::digest(d.words.join(" ").as_bytes());
            vec![u64::from_le_bytes(
                digest[..8].try_into().expect("16-byte digest"),
            )]
        }),
        Detector::A1 => keys(&|d| top_words(d, |_, n, _| f64::from(n))),
        Detector::A2 => keys(&|d| top_words(d, |w, n, _| bm25(c, d, w, n))),
        Detector::A3 => keys(&|d| top_words(d, |w, n, max| augmented(n, max) * c.ridf(w))),
        Detector::A10 => {
            keys(&|d| top_words(d, |w, n, max| augmented(n, max) * optimal_idf(c.idf(w))))
        }
        Detector::A4 => keys(&|d| top_sentences(d, |s| s.len() as f64)),
        Detector::A5 => keys(&|d| {
            let counts = tf(d);
            top_sentences(d, |s| {
                s.iter().map(|w| bm25(c, d, w, counts[w.as_str()])).sum()
            })
        }),
        Detector::A6 => keys(&|d| {
            let ids = text::ids_of(&d.words);
            minhash::megashingles(&minhash::supershingles(&ids, &minhash::Params::yandex_a6()))
        }),
        Detector::A7 => {
            let lexicons = Lexicons::new(c);
            keys(&|d| lexicons.signatures(d))
        }
        Detector::A8 => keys(&log_shingles),
        Detector::A9 => {
            let words = DescriptiveWords::new(docs, c);
            keys(&|d| words.signature(d))
        }
        Detector::A12 => docs
            .iter()
            .map(|d| Signature::ThreeFive(three_five(d)))
            .collect(),
    }
}

/// Whether two signatures say duplicate.
pub fn duplicates(a: &Signature, b: &Signature) -> bool {
    match (a, b) {
        (Signature::Keys(x), Signature::Keys(y)) => x.iter().any(|k| y.contains(k)),
        (Signature::ThreeFive(x), Signature::ThreeFive(y)) => three_five_duplicates(x, y),
        _ => false,
    }
}

fn bm25(c: &Collection, d: &Prepared, w: &str, n: u32) -> f64 {
    let n = f64::from(n);
    let length = d.words.len() as f64 / c.average_length.max(1e-9);
    n / (2.0 * (0.25 + 0.75 * length) + n) * c.bm25_idf(w)
}

fn augmented(n: u32, max: u32) -> f64 {
    0.5 + 0.5 * f64::from(n) / f64::from(max.max(1))
}

fn optimal_idf(idf: f64) -> f64 {
    if idf < OPTIMAL_IDF {
        (idf / OPTIMAL_IDF).sqrt()
    } else {
        OPTIMAL_IDF / idf
    }
}

/// The 6 words of highest weight (ties: alphabetical), joined alphabetically, CRC32.
fn top_words(d: &Prepared, weight: impl Fn(&str, u32, u32) -> f64) -> Vec<u64> {
    let counts = tf(d);
    let max = counts.values().copied().max().unwrap_or(1);
    let mut weighted: Vec<(f64, &str)> = counts
        .iter()
        .map(|(&w, &n)| (weight(w, n, max), w))
        .collect();
    weighted.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(y.1)));
    let mut chosen: Vec<&str> = weighted.iter().take(TOP_WORDS).map(|x| x.1).collect();
    chosen.sort_unstable();
    vec![crc(&chosen.join(" "))]
}

/// The 2 sentences of highest weight (ties: alphabetical), joined alphabetically, CRC32.
fn top_sentences(d: &Prepared, weight: impl Fn(&[String]) -> f64) -> Vec<u64> {
    let mut weighted: Vec<(f64, String)> = d
        .sentences
        .iter()
        .map(|s| (weight(s), s.join(" ")))
        .collect();
    weighted.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
    let mut chosen: Vec<&str> = weighted.iter().take(2).map(|x| x.1.as_str()).collect();
    chosen.sort_unstable();
    vec![crc(&chosen.join(" | "))]
}

/// A7's lexicons: the main one and its randomly thinned copies.
struct Lexicons {
    main: HashSet<String>,
}

impl Lexicons {
    fn new(c: &Collection) -> Lexicons {
        let common = (0.1 * c.documents).max(2.0);
        let main =
            c.df.iter()
                .filter(|(_, &df)| df >= 2 && f64::from(df) <= common)
                .map(|(w, _)| w.clone())
                .collect();
        Lexicons { main }
    }

    fn kept(word: &str, lexicon: usize) -> bool {
        if lexicon == 0 {
            return true;
        }
        let h = mix64(fnv1a(word.as_bytes()) ^ mix64(lexicon as u64));
        (h >> 11) as f64 / (1u64 << 53) as f64 >= LEXICON_DROP
    }

    fn signatures(&self, d: &Prepared) -> Vec<u64> {
        let words: Vec<&str> = tf(d)
            .into_keys()
            .filter(|w| self.main.contains(*w))
            .collect();
        (0..=LEXICONS)
            .filter_map(|l| {
                let kept: Vec<&str> = words
                    .iter()
                    .copied()
                    .filter(|w| Lexicons::kept(w, l))
                    .collect();
                (kept.len() >= MIN_IMATCH_WORDS)
                    .then(|| mix64(fnv1a(kept.join(" ").as_bytes()) ^ l as u64))
            })
            .collect()
    }
}

/// A8: the logarithmic sample of 5-word shingles, as one signature.
fn log_shingles(d: &Prepared) -> Vec<u64> {
    let mut ids = text::ids_of(&d.words);
    let wrap: Vec<u32> = ids.iter().take(4).copied().collect();
    if ids.len() > 5 {
        ids.extend(wrap);
    }
    let mut shingles = text::word_shingles(&ids, 5);
    let keep = (shingles.len() as f64 + 1.0).log2().ceil() as usize;
    shingles.sort_by(|x, y| y.trailing_zeros().cmp(&x.trailing_zeros()).then(x.cmp(y)));
    let mut sample: Vec<u64> = shingles.into_iter().take(keep.max(1)).collect();
    sample.sort_unstable();
    vec![sample
        .iter()
        .fold(0x8a5c_d789_635d_2dffu64, |h, &s| mix64(h ^ s))]
}

/// A9's descriptive words and their relative-tf thresholds.
struct DescriptiveWords {
    thresholds: HashMap<String, f64>,
}

impl DescriptiveWords {
    fn new(docs: &[Prepared], c: &Collection) -> DescriptiveWords {
        let mut candidates: Vec<(&String, &u32)> =
            c.df.iter()
                .filter(|(_, &df)| df >= 2 && f64::from(df) <= 0.5 * c.documents)
                .collect();
        candidates.sort_by(|x, y| y.1.cmp(x.1).then(x.0.cmp(y.0)));
        let chosen: HashSet<&str> = candidates
            .iter()
            .take(DESCRIPTIVE_WORDS)
            .map(|x| x.0.as_str())
            .collect();
        let mut relative: HashMap<&str, Vec<f64>> = HashMap::new();
        for d in docs {
            let counts = tf(d);
            let max = f64::from(counts.values().copied().max().unwrap_or(1));
            for (w, n) in counts {
                if chosen.contains(w) {
                    relative.entry(w).or_default().push(f64::from(n) / max);
                }
            }
        }
        let thresholds = relative
            .into_iter()
            .map(|(w, values)| (w.to_string(), sparsest_threshold(&values)))
            .collect();
        DescriptiveWords { thresholds }
    }

    fn signature(&self, d: &Prepared) -> Vec<u64> {
        let counts = tf(d);
        let max = f64::from(counts.values().copied().max().unwrap_or(1));
        let above: Vec<&str> = counts
            .iter()
            .filter(|(w, &n)| {
                self.thresholds
                    .get(**w)
                    .is_some_and(|&t| f64::from(n) / max > t)
            })
            .map(|(w, _)| *w)
            .collect();
        if above.is_empty() {
            return Vec::new();
        }
        vec![fnv1a(above.join(" ").as_bytes())]
    }
}

/// The threshold in 0.1..=0.9 with the fewest values within ±delta (lowest on ties).
fn sparsest_threshold(values: &[f64]) -> f64 {
    (1..=9)
        .map(|i| f64::from(i) / 10.0)
        .map(|t| {
            (
                values
                    .iter()
                    .filter(|&&v| (v - t).abs() <= DESCRIPTIVE_DELTA)
                    .count(),
                t,
            )
        })
        .min_by(|x, y| x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)))
        .map_or(0.5, |x| x.1)
}

fn three_five(d: &Prepared) -> ThreeFive {
    let mut sentences: Vec<(usize, u64)> = d
        .sentences
        .iter()
        .map(|s| (s.len(), crc(&s.join(" "))))
        .collect();
    sentences.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    let mut words: Vec<(usize, u64)> = tf(d)
        .into_keys()
        .map(|w| (w.chars().count(), crc(w)))
        .collect();
    words.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    ThreeFive {
        length: d.words.len(),
        sentences: d.sentences.len(),
        long_sentences: sentences.iter().take(3).map(|s| s.1).collect(),
        long_words: words.iter().take(5).map(|w| w.1).collect(),
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    a.max(b) as f64 / a.min(b).max(1) as f64
}

fn common(a: &[u64], b: &[u64]) -> usize {
    a.iter().filter(|x| b.contains(x)).count()
}

fn three_five_duplicates(a: &ThreeFive, b: &ThreeFive) -> bool {
    if a.length == 0 || b.length == 0 {
        return false;
    }
    let same_chain = common(&a.long_sentences, &b.long_sentences) > 0;
    let close = ratio(a.length, b.length) <= LENGTH_RATIO
        && ratio(a.sentences, b.sentences) <= SENTENCE_COUNT_RATIO;
    let words = common(&a.long_words, &b.long_words) >= 2;
    let sentences = a.long_sentences.first() == b.long_sentences.first()
        || (a.sentences > 5
            && b.sentences > 5
            && common(&a.long_sentences, &b.long_sentences) >= 2);
    same_chain && close && words && sentences
}

#[cfg(test)]
mod tests {
    use super::*;

    const STORY: &str =
        "The council closed the stone bridge after the flood damaged its foundations. \
        Engineers inspected every arch during the weekend and found serious scouring underneath. \
        Residents must travel around through the ring road until repairs finish next month. \
        Shops beside the eastern bank reported falling trade since Monday morning. \
        The bridge carries nine thousand vehicles daily according to county figures. \
        Officials promised regular updates about progress and possible reopening dates.";

    const OTHER: &str = "A bakery opened downtown selling sourdough loaves and cinnamon buns. \
        Queues formed early and the first batch sold within an hour. \
        The owners trained abroad and waited years for the right premises.";

    fn decide(detector: Detector, texts: &[&str]) -> Vec<Signature> {
        let docs: Vec<Prepared> = texts.iter().map(|t| prepare(t)).collect();
        signatures(detector, &docs)
    }

    #[test]
    fn preprocessing_drops_short_and_stop_words_and_splits_sentences() {
        let p = prepare("The cat sat on this mat. Another sentence here!\nHeading line");
        assert_eq!(
            p.sentences,
            [vec!["another", "sentence"], vec!["heading", "line"]]
        );
        assert_eq!(p.words.len(), 4);
    }

    #[test]
    fn every_detector_finds_a_copy_and_rejects_an_unrelated_page() {
        // A light edit: one short word changed, layout changed.
        let edited = STORY.replace("weekend", "week-end").replace(". ", ".\n");
        let filler: Vec<String> = (0..40)
            .map(|i| format!("Unrelated filler page number {i} about gardening tools and seeds."))
            .collect();
        let mut texts: Vec<&str> = vec![STORY, STORY, OTHER];
        texts.extend(filler.iter().map(String::as_str));
        for d in Detector::ALL {
            let s = decide(d, &texts);
            assert!(
                duplicates(&s[0], &s[1]),
                "{} misses an identical copy",
                d.name()
            );
            assert!(
                !duplicates(&s[0], &s[2]),
                "{} joins unrelated pages",
                d.name()
            );
        }
        let s = decide(Detector::A12, &[STORY, &edited]);
        assert!(duplicates(&s[0], &s[1]), "A12 misses a light edit");
        let s = decide(Detector::A0, &[STORY, &edited]);
        assert!(
            !duplicates(&s[0], &s[1]),
            "MD5 must not see through an edit"
        );
    }

    #[test]
    fn formulas_of_the_seed() {
        // -ln(10 / 1e6) is the optimal IDF; below it the parabola, above the hyperbola.
        assert!((-(10.0f64 / 1e6).ln() - OPTIMAL_IDF).abs() < 0.02);
        assert!((optimal_idf(11.5) - 1.0).abs() < 1e-12);
        assert!((optimal_idf(23.0) - 0.5).abs() < 1e-12);
        assert!(optimal_idf(2.875) - 0.5 < 1e-12);
        let docs = [prepare("alpha beta gamma delta"), prepare("alpha epsilon")];
        let c = Collection::new(&docs);
        assert!((c.bm25_idf("alpha") - (0.5f64 / 2.5).ln()).abs() < 1e-12);
        assert!((c.ridf("gamma") - (2f64.ln() + (1.0 - (-0.5f64).exp()).ln())).abs() < 1e-12);
    }

    #[test]
    fn empty_documents_match_nothing() {
        for d in Detector::ALL {
            let s = decide(d, &["", "", STORY]);
            assert!(!duplicates(&s[0], &s[1]), "{}", d.name());
        }
    }
}
