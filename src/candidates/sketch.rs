//! From a document to its sketch, and from sketches to candidate pairs.
//!
//! **Which text.** Fingerprints are taken of the core content (the readability
//! extractor's main text, the visible text when extraction finds next to
//! nothing) by default. The method's duplicates are pages with the same core
//! content behind different navigation, templates and ads; on whole visible text
//! the template dominates short articles, so syndicated and print copies drift
//! apart and different articles of one site (the hard same-site case) move
//! together. The price is time: extraction costs a few milliseconds a page.
//! `--text visible` skips it, for crawls where speed matters more than
//! boilerplate. Each document is read and parsed once per run.
//!
//! Sketching streams: rows are read in chunks, each chunk is parsed on all cores,
//! and only the sketch (tens of bytes) and the row's names are kept.

use anyhow::{bail, Result};
use rayon::prelude::*;

use super::corpus::{Corpus, DocInfo, OutputPaths};
use super::{combined, minhash, pugh, simhash, Candidate};
use crate::distance::hamming;
use crate::document::Skipped;
use crate::document::{decode, text, url::UrlParts};
use crate::util::Progress;

/// Rows read and sketched together: enough to keep both cores busy, small
/// enough that a chunk of bodies never fills memory.
const CHUNK: usize = 256;

/// The text fingerprints are taken of.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum TextChoice {
    /// Main content without boilerplate (slower, the method's notion of duplicate).
    Core,
    /// All visible text of the page (faster; templates weigh in).
    Visible,
}

/// A candidate generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Method {
    /// Charikar fingerprints within Hamming distance k, by permuted tables (Manku).
    Simhash,
    /// Broder supershingles, at least 2 shared (by megashingles).
    Minhash,
    /// Henzinger: minhash candidates confirmed by a 384-bit Charikar threshold.
    Combined,
    /// Pugh: word lists fingerprinted, one shared fingerprint.
    Pugh,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Simhash => "simhash",
            Method::Minhash => "minhash",
            Method::Combined => "combined",
            Method::Pugh => "pugh",
        }
    }

    /// The columns of evidence a pair carries.
    pub fn evidence_columns(self) -> &'static [&'static str] {
        match self {
            Method::Simhash => &["hamming"],
            Method::Minhash => &["shared_supershingles"],
            Method::Combined => &combined::EVIDENCE,
            Method::Pugh => &["shared_fingerprints"],
        }
    }
}

/// Which pairs to keep, by the registered domains of their URLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Sites {
    All,
    /// Both URLs on one registered domain (the hard case of the seeds).
    Same,
    /// URLs on different registered domains (or unknown).
    Cross,
}

/// Everything a run of a method needs to know.
#[derive(Debug, Clone)]
pub struct Settings {
    pub method: Method,
    pub text: TextChoice,
    pub hamming: u32,
    pub minhash: minhash::Params,
    pub combined: combined::Params,
    pub pugh: pugh::Params,
    pub sites: Sites,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            method: Method::Simhash,
            text: TextChoice::Core,
            hamming: 3,
            minhash: minhash::Params::default(),
            combined: combined::Params::default(),
            pugh: pugh::Params::default(),
            sites: Sites::All,
        }
    }
}

impl Settings {
    pub fn check(&self) -> Result<()> {
        simhash::Layout::new(self.hamming)?;
        self.minhash.check()?;
        self.pugh.check()?;
        self.combined.check()
    }
}

/// What a method keeps of a document. Fields a method does not use stay empty.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sketch {
    /// Words of the text; 0 means the document takes part in no pair.
    pub words: u32,
    pub simhash: u64,
    pub wide: Vec<u64>,
    pub supershingles: Vec<u64>,
    pub pugh: Vec<u64>,
}

impl Sketch {
    pub fn of_words(ids: &[u32], settings: &Settings) -> Sketch {
        let mut sketch = Sketch {
            words: ids.len().min(u32::MAX as usize) as u32,
            simhash: simhash::fingerprint(ids),
            ..Sketch::default()
        };
        match settings.method {
            Method::Simhash => {}
            Method::Minhash => {
                sketch.supershingles = minhash::supershingles(ids, &settings.minhash)
            }
            Method::Combined => {
                sketch.supershingles = minhash::supershingles(ids, &settings.combined.broder);
                sketch.wide = simhash::wide(ids, settings.combined.charikar_words);
            }
            Method::Pugh => sketch.pugh = pugh::fingerprints(ids, &settings.pugh),
        }
        sketch
    }

    /// Reads, parses and sketches one document.
    pub fn of_file(path: &std::path::Path, settings: &Settings) -> Result<Sketch> {
        let ids = text::word_ids(&read_text(path, settings.text)?);
        Ok(Sketch::of_words(&ids, settings))
    }
}

/// The chosen text of a document file.
pub fn read_text(path: &std::path::Path, choice: TextChoice) -> Result<String> {
    let body = decode::read_body(path)?;
    Ok(crate::document::attributes::page_text(
        &body,
        choice == TextChoice::Core,
    ))
}

/// Whether one pair is a candidate, with its evidence: the definition the
/// search must reproduce (and the stand-alone detector of `baseline`).
pub fn judge(a: &Sketch, b: &Sketch, settings: &Settings) -> Option<Vec<String>> {
    if a.words == 0 || b.words == 0 {
        return None;
    }
    match settings.method {
        Method::Simhash => {
            let d = hamming(a.simhash, b.simhash);
            (d <= settings.hamming).then(|| vec![d.to_string()])
        }
        Method::Minhash => {
            let n = minhash::shared(&a.supershingles, &b.supershingles);
            (n >= settings.minhash.min_shared).then(|| vec![n.to_string()])
        }
        Method::Combined => combined::judge(a, b, &settings.combined),
        Method::Pugh => {
            let n = pugh::shared(&a.pugh, &b.pugh);
            (n >= 1).then(|| vec![n.to_string()])
        }
    }
}

/// Every candidate pair among `sketches` (document number = position), sorted.
pub fn find_pairs(sketches: &[Sketch], settings: &Settings) -> Result<Vec<Candidate>> {
    let with_words = |s: &Sketch| s.words > 0;
    let pairs = match settings.method {
        Method::Simhash => {
            let layout = simhash::Layout::new(settings.hamming)?;
            simhash_pairs(sketches, &layout)
                .into_iter()
                .map(|(a, b, d)| Candidate {
                    a,
                    b,
                    evidence: vec![d.to_string()],
                })
                .collect()
        }
        Method::Minhash => sharing(
            sketches,
            |s| &s.supershingles,
            settings.minhash.min_shared,
            with_words,
        ),
        Method::Pugh => sharing(sketches, |s| &s.pugh, 1, with_words),
        Method::Combined => combined::pairs(sketches, &settings.combined)?,
    };
    Ok(pairs)
}

/// Pairs within the layout's distance among documents with words.
pub fn simhash_pairs(sketches: &[Sketch], layout: &simhash::Layout) -> Vec<(u32, u32, u32)> {
    let live: Vec<u32> = (0..sketches.len() as u32)
        .filter(|&i| sketches[i as usize].words > 0)
        .collect();
    let fingerprints: Vec<u64> = live.iter().map(|&i| sketches[i as usize].simhash).collect();
    simhash::pairs_within(&fingerprints, layout)
        .into_iter()
        .map(|(a, b, d)| (live[a as usize], live[b as usize], d))
        .collect()
}

fn sharing(
    sketches: &[Sketch],
    field: impl Fn(&Sketch) -> &Vec<u64>,
    min_shared: usize,
    keep: impl Fn(&Sketch) -> bool,
) -> Vec<Candidate> {
    let vectors: Vec<Vec<u64>> = sketches
        .iter()
        .map(|s| {
            if keep(s) {
                field(s).clone()
            } else {
                Vec::new()
            }
        })
        .collect();
    super::pairs_sharing(&vectors, min_shared)
        .into_iter()
        .map(|(a, b, n)| Candidate {
            a,
            b,
            evidence: vec![n.to_string()],
        })
        .collect()
}

/// Keeps the pairs of the wanted kind of site.
pub fn filter_sites(pairs: Vec<Candidate>, docs: &[DocInfo], sites: Sites) -> Vec<Candidate> {
    if sites == Sites::All {
        return pairs;
    }
    let domains: Vec<String> = docs
        .iter()
        .map(|d| UrlParts::parse(&d.url).domain)
        .collect();
    pairs
        .into_iter()
        .filter(|p| {
            let (a, b) = (&domains[p.a as usize], &domains[p.b as usize]);
            let same = !a.is_empty() && a == b;
            same == (sites == Sites::Same)
        })
        .collect()
}

/// A corpus reduced to sketches.
#[derive(Debug, Default)]
pub struct Sketched {
    pub docs: Vec<DocInfo>,
    pub sketches: Vec<Sketch>,
    /// Documents that could not be read (with `skip_bad`), with the reason.
    pub skipped: Vec<Skipped>,
    /// Documents without a word of text (they take part in no pair).
    pub empty: usize,
}

/// Reads and sketches a whole corpus, streaming, on all cores. A document that
/// cannot be read is an error naming its row, or, with `skip_bad`, skipped.
pub fn sketch_corpus(
    corpus: &Corpus,
    settings: &Settings,
    paths: &OutputPaths,
    skip_bad: bool,
    keep: impl Fn(&str) -> bool,
) -> Result<Sketched> {
    let progress = Progress::new(corpus.count()?, "fingerprinting");
    let mut out = Sketched::default();
    let mut rows = corpus.documents()?;
    loop {
        let mut chunk = Vec::with_capacity(CHUNK);
        for row in rows.by_ref() {
            let doc = row?;
            if keep(&doc.url) {
                chunk.push(doc);
            } else {
                progress.inc();
            }
            if chunk.len() == CHUNK {
                break;
            }
        }
        if chunk.is_empty() {
            break;
        }
        let sketched: Vec<Result<Sketch>> = chunk
            .par_iter()
            .map(|doc| {
                let s = Sketch::of_file(&doc.html, settings);
                progress.inc();
                s
            })
            .collect();
        for (doc, sketch) in chunk.iter().zip(sketched) {
            match sketch {
                Ok(s) => {
                    out.empty += usize::from(s.words == 0);
                    out.sketches.push(s);
                    out.docs.push(paths.info(doc));
                }
                Err(e) if skip_bad => out.skipped.push(Skipped {
                    location: doc.location.clone(),
                    reason: format!("{e:#}"),
                }),
                Err(e) => bail!(
                    "{}: {e:#} (use --skip-bad to skip unreadable documents)",
                    doc.location
                ),
            }
        }
    }
    progress.finish();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Word sequences: some random, some copies with a few words changed.
    fn texts(seed: u64) -> Vec<Vec<u32>> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut out: Vec<Vec<u32>> = (0..60)
            .map(|_| {
                (0..rng.random_range(20..120))
                    .map(|_| rng.random_range(0..400))
                    .collect()
            })
            .collect();
        for i in 0..40 {
            let mut copy = out[i].clone();
            for _ in 0..rng.random_range(0..4) {
                let at = rng.random_range(0..copy.len());
                copy[at] = rng.random_range(0..400);
            }
            out.push(copy);
        }
        out.push(Vec::new());
        out
    }

    #[test]
    fn every_method_finds_exactly_the_pairs_its_judge_accepts() {
        let sketches_for = |settings: &Settings| -> Vec<Sketch> {
            texts(3)
                .iter()
                .map(|t| Sketch::of_words(t, settings))
                .collect()
        };
        let settings_list = [
            Settings {
                method: Method::Simhash,
                hamming: 3,
                ..Settings::default()
            },
            Settings {
                method: Method::Simhash,
                hamming: 6,
                ..Settings::default()
            },
            Settings {
                method: Method::Minhash,
                ..Settings::default()
            },
            Settings {
                method: Method::Pugh,
                ..Settings::default()
            },
            Settings {
                method: Method::Combined,
                ..Settings::default()
            },
            Settings {
                method: Method::Combined,
                combined: combined::Params {
                    union_hamming: Some(4),
                    ..combined::Params::default()
                },
                ..Settings::default()
            },
        ];
        for settings in settings_list {
            let sketches = sketches_for(&settings);
            let found = find_pairs(&sketches, &settings).unwrap();
            let mut brute = Vec::new();
            for a in 0..sketches.len() {
                for b in a + 1..sketches.len() {
                    if let Some(evidence) = judge(&sketches[a], &sketches[b], &settings) {
                        brute.push(Candidate {
                            a: a as u32,
                            b: b as u32,
                            evidence,
                        });
                    }
                }
            }
            assert_eq!(found, brute, "{settings:?}");
            assert!(!found.is_empty(), "{settings:?} found nothing to compare");
        }
    }

    #[test]
    fn site_filter_splits_same_and_cross() {
        let doc = |url: &str| DocInfo {
            url: url.into(),
            html: String::new(),
            rendered: String::new(),
            extra: vec![],
        };
        let docs = [
            doc("http://a.example.com/1"),
            doc("https://www.example.com/2"),
            doc("http://other.org/"),
        ];
        let pairs = vec![
            Candidate {
                a: 0,
                b: 1,
                evidence: vec![],
            },
            Candidate {
                a: 0,
                b: 2,
                evidence: vec![],
            },
        ];
        assert_eq!(filter_sites(pairs.clone(), &docs, Sites::Same).len(), 1);
        assert_eq!(filter_sites(pairs.clone(), &docs, Sites::Cross)[0].b, 2);
        assert_eq!(filter_sites(pairs, &docs, Sites::All).len(), 2);
    }
}
