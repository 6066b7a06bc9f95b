//! From a corpus to sketches: each document read, its chosen text parsed once,
//! and its words reduced to the sketch of the method at hand.
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

use std::path::Path;
use std::str::FromStr;

use anyhow::{anyhow, bail, Result};
use rayon::prelude::*;

use super::corpus::{Corpus, DocInfo, OutputPaths};
use super::method::{Method, Sketch};
use super::Candidate;
use crate::document::{decode, text, url::UrlParts, Skipped};
use crate::util::Progress;

/// Rows read and sketched together: enough to keep both cores busy, small
/// enough that a chunk of bodies never fills memory.
const CHUNK: usize = 256;

/// The text fingerprints are taken of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextChoice {
    /// Main content without boilerplate (slower, the method's notion of duplicate).
    Core,
    /// All visible text of the page (faster; templates weigh in).
    Visible,
}

/// Text choices by name.
const TEXTS: [(&str, TextChoice); 2] =
    [("core", TextChoice::Core), ("visible", TextChoice::Visible)];

impl TextChoice {
    pub fn name(self) -> &'static str {
        TEXTS
            .iter()
            .find(|&&(_, choice)| choice == self)
            .map_or("", |&(name, _)| name)
    }
}

impl FromStr for TextChoice {
    type Err = anyhow::Error;

    fn from_str(name: &str) -> Result<TextChoice> {
        named(&TEXTS, name, "text")
    }
}

/// Which pairs to keep, by the registered domains of their URLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sites {
    All,
    /// Both URLs on one registered domain (the hard case of the seeds).
    Same,
    /// URLs on different registered domains (or unknown).
    Cross,
}

/// Site choices by name.
const SITES: [(&str, Sites); 3] = [
    ("all", Sites::All),
    ("same", Sites::Same),
    ("cross", Sites::Cross),
];

impl FromStr for Sites {
    type Err = anyhow::Error;

    fn from_str(name: &str) -> Result<Sites> {
        named(&SITES, name, "sites")
    }
}

/// The choice called `name`; the error lists the others under the option `what`.
fn named<T: Copy>(choices: &[(&str, T)], name: &str, what: &str) -> Result<T> {
    match choices.iter().find(|&&(n, _)| n == name) {
        Some(&(_, choice)) => Ok(choice),
        None => {
            let names: Vec<&str> = choices.iter().map(|&(n, _)| n).collect();
            Err(anyhow!("{what} `{name}`: use one of {}", names.join(", ")))
        }
    }
}

/// Reads, parses and sketches one document.
pub fn sketch_file(path: &Path, method: &dyn Method, choice: TextChoice) -> Result<Sketch> {
    Ok(method.sketch(&text::word_ids(&read_text(path, choice)?)))
}

/// The chosen text of a document file.
pub fn read_text(path: &Path, choice: TextChoice) -> Result<String> {
    let body = decode::read_body(path)?;
    Ok(crate::document::attributes::page_text(
        &body,
        choice == TextChoice::Core,
    ))
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
    method: &dyn Method,
    text: TextChoice,
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
                let s = sketch_file(&doc.html, method, text);
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
