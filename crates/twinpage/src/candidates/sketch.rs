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
//! boilerplate. `--text both` fingerprints each text and keeps a pair found on
//! either (what `dedupe` does): extraction that keeps a different part of two
//! copies (text hidden in one, a syndicated copy's other template) parts their
//! cores, not what a reader sees; of the pairs only the visible text finds, each
//! document keeps its nearest (on one site's template, any two pages look alike),
//! and of those the cores find, its nearest too (a group of near-copies is
//! otherwise quadratic).
//! Each document is read and parsed once per run, and so is a body file that many
//! rows name (a page captured again with the same bytes, a wall at many URLs).
//!
//! **Which body.** Where a document has a rendered body (stored beside the corpus,
//! or in the render cache; with `--render-missing`, rendered now), its text is
//! fingerprinted instead of the fetched one: a client-rendered page's fetched body
//! is an empty shell that looks like every other shell of its app, and text hidden
//! by CSS is in the fetched body but not in what a reader sees.
//!
//! Sketching streams: rows are read in chunks, each chunk is parsed on all cores,
//! and only the sketch (tens of bytes) and the row's names are kept.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::path::Path;
use std::str::FromStr;

use anyhow::{anyhow, bail, Result};
use rayon::prelude::*;

use super::candidate::Candidate;
use super::corpus::{Corpus, CorpusDoc, DocInfo, OutputPaths};
use super::method::{judge, Method, PairStream, Sketch};
use super::places::Places;
use super::records::{record_keys, record_pairs};
use crate::document::attributes::{page_text, read_page};
use crate::document::decode::{self, DecodedBody};
use crate::document::{text, url::UrlParts, Skipped};
use twinpage_render::{self as render, RenderCache, RenderSettings, RenderedBody, Request};
use twinpage_util::Progress;

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
    /// Core and visible text, each fingerprinted: a pair is a candidate by either.
    Both,
}

/// Text choices by name.
const TEXTS: [(&str, TextChoice); 3] = [
    ("core", TextChoice::Core),
    ("visible", TextChoice::Visible),
    ("both", TextChoice::Both),
];

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

/// What sketching reads of each page: the text fingerprinted, and with `records`
/// the record of a record page (a product, a paper), whose keys find the pairs
/// fingerprints of text miss ([`super::records`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    pub text: TextChoice,
    pub records: bool,
}

impl From<TextChoice> for Reading {
    fn from(text: TextChoice) -> Reading {
        Reading {
            text,
            records: false,
        }
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

/// Reads, parses and sketches one document (its fetched body).
pub fn sketch_file(path: &Path, method: &dyn Method, choice: TextChoice) -> Result<Sketch> {
    Ok(method.sketch(&text::word_ids(&read_text(path, choice)?)))
}

/// The chosen text of a document file (one text: not `Both`).
pub fn read_text(path: &Path, choice: TextChoice) -> Result<String> {
    let core = match choice {
        TextChoice::Core => true,
        TextChoice::Visible => false,
        TextChoice::Both => bail!("one text at a time: core or visible"),
    };
    Ok(page_text(&decode::read_body(path)?, core))
}

/// Where rendered bodies come from when a run fingerprints them.
pub struct RenderedText {
    settings: RenderSettings,
    cache: RenderCache,
    render_missing: bool,
    /// Only documents whose fetched text is thin and that have scripts are
    /// rendered (the others are fingerprinted as fetched, or as the corpus stores
    /// them rendered).
    thin_only: bool,
}

/// A scripted page whose fetched text has fewer words than this says too little of
/// what it shows to be fingerprinted unrendered.
const THIN_WORDS: usize = 50;

impl RenderedText {
    /// Renders stored beside the corpus or in `settings.cache`; with
    /// `render_missing`, Chromium renders (and caches) the documents that have none.
    pub fn new(settings: RenderSettings, render_missing: bool) -> Result<RenderedText> {
        let cache = RenderCache::open(&settings.cache, settings.options.serve)?;
        // Only looked up when nothing is rendered now.
        let cache = if render_missing {
            cache
        } else {
            cache.listed()?
        };
        Ok(RenderedText {
            settings,
            cache,
            render_missing,
            thin_only: false,
        })
    }

    /// Renders (and caches) only the pages that look built by script: scripted,
    /// their fetched text thin. The rest are fingerprinted as the corpus stores
    /// them rendered, else as fetched, so a crawl costs a browser only where the
    /// fetched body says nothing.
    pub fn for_thin_pages(settings: RenderSettings) -> Result<RenderedText> {
        Ok(RenderedText {
            thin_only: true,
            ..RenderedText::new(settings, true)?
        })
    }

    /// The rendered body of each document whose fetched body could be read and
    /// that is `wanted`.
    fn bodies(
        &self,
        chunk: &[CorpusDoc],
        fetched: &[Result<DecodedBody>],
        wanted: &dyn Fn(usize) -> bool,
    ) -> Result<Vec<Option<RenderedBody>>> {
        let readable: Vec<usize> = (0..chunk.len())
            .filter(|&i| fetched[i].is_ok() && wanted(i))
            .collect();
        let requests: Vec<Request> = readable
            .iter()
            .map(|&i| Request {
                document: &chunk[i].html,
                stored: chunk[i].rendered.as_deref(),
                content_hash: fetched[i].as_ref().ok().map(|body| body.raw_hash),
            })
            .collect();
        let found: Vec<Option<RenderedBody>> = if self.render_missing {
            let (bodies, _) = render::supply(&requests, &self.settings)?;
            bodies.into_iter().map(Some).collect()
        } else {
            requests
                .par_iter()
                .map(|request| render::find_rendered(request, &self.cache))
                .collect()
        };
        let mut out: Vec<Option<RenderedBody>> = chunk.iter().map(|_| None).collect();
        for (i, body) in readable.into_iter().zip(found) {
            out[i] = body;
        }
        Ok(out)
    }
}

/// What sketching reads of one document.
#[derive(Default)]
struct Texts {
    /// The chosen text, or with [`TextChoice::Both`] its core content then its
    /// whole visible text.
    texts: Vec<String>,
    /// Its record's keys (none unless records are read and it is one).
    record_keys: Vec<u64>,
}

/// The texts of a body, from one parse.
fn body_texts(body: &DecodedBody, reading: Reading) -> Texts {
    let page = read_page(body, reading.text != TextChoice::Visible, reading.records);
    let texts = match (reading.text, page.core) {
        (TextChoice::Both, Some(core)) => vec![core, page.visible],
        (_, Some(core)) => vec![core],
        (_, None) => vec![page.visible],
    };
    Texts {
        texts,
        record_keys: page.record.map_or_else(Vec::new, |r| record_keys(&r)),
    }
}

/// The texts fingerprinted for a document: of its rendered body when it has one
/// (and whether it had), else of its fetched body.
fn document_texts(
    fetched: &DecodedBody,
    rendered: Option<&RenderedBody>,
    reading: Reading,
) -> (Texts, bool) {
    let decoded = |bytes: &[u8]| decode::decode_bytes(bytes, bytes.len(), false);
    match rendered {
        // The visible text is what the browser measured a reader sees; the core
        // content is extracted from the rendered DOM, kept to the words seen.
        // The rendered DOM is parsed only for what the browser did not measure.
        Some(RenderedBody::Measured(r)) => {
            let visible = || r.visible_text.clone();
            let mut read = if reading.text == TextChoice::Visible && !reading.records {
                Texts::default()
            } else {
                body_texts(&decode::decode_unicode(&r.synthetic_body), reading)
            };
            let core = |read: &Texts| seen_words(&read.texts[0], &r.visible_text);
            read.texts = match reading.text {
                TextChoice::Visible => vec![visible()],
                TextChoice::Core => vec![core(&read)],
                TextChoice::Both => vec![core(&read), visible()],
            };
            (read, true)
        }
        Some(RenderedBody::SyntheticOnly(bytes)) => (body_texts(&decoded(bytes), reading), true),
        Some(RenderedBody::Failed(_)) | None => (body_texts(fetched, reading), false),
    }
}

/// The words of `text` a reader can see somewhere on the page: the core content
/// is extracted from the DOM, where text hidden by style sheets is still present;
/// the browser's visible text says which words are really shown.
fn seen_words(text: &str, visible: &str) -> String {
    if visible.trim().is_empty() {
        // Nothing measured (a page that shows its text in frames or canvas, say).
        return text.to_string();
    }
    let seen: std::collections::HashSet<&str> = visible.split_whitespace().collect();
    let kept: Vec<&str> = text
        .split_whitespace()
        .filter(|w| seen.contains(w))
        .collect();
    kept.join(" ")
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
        .filter(|p| sites.keeps(&domains[p.a as usize], &domains[p.b as usize]))
        .collect()
}

impl Sites {
    /// Whether a pair of documents of these registered domains is of the wanted kind.
    pub fn keeps(self, domain_a: &str, domain_b: &str) -> bool {
        let same = !domain_a.is_empty() && domain_a == domain_b;
        self == Sites::All || same == (self == Sites::Same)
    }
}

/// A corpus reduced to sketches.
#[derive(Debug, Default)]
pub struct Sketched {
    pub docs: Vec<DocInfo>,
    /// Each document's sketch: of its core content, or of the text chosen.
    pub sketches: Vec<Sketch>,
    /// With [`TextChoice::Both`], each document's sketch of its whole visible text
    /// (else empty).
    pub visible: Vec<Sketch>,
    /// Each document's record keys, when records are read (else empty).
    pub record_keys: Vec<Vec<u64>>,
    /// Documents that could not be read (with `skip_bad`), with the reason.
    pub skipped: Vec<Skipped>,
    /// Documents without a word of text (they take part in no pair).
    pub empty: usize,
    /// Documents whose rendered body was fingerprinted.
    pub rendered: usize,
}

impl Sketched {
    /// Every candidate pair by `method`, sorted: on the sketches, and with
    /// [`TextChoice::Both`] each document's nearest on either text. A pair found
    /// on both texts carries the evidence of its core content.
    pub fn pairs(&self, method: &dyn Method) -> Result<Vec<Candidate>> {
        // Built only when a search keeps each document's nearest.
        let places = std::cell::OnceCell::new();
        let places = || places.get_or_init(|| Places::of(self.docs.iter().map(|d| d.url.as_str())));
        let by_text = if self.visible.is_empty() {
            method.pairs(&self.sketches)?
        } else {
            self.pairs_on_both_texts(method, places())?
        };
        if self.record_keys.iter().all(Vec::is_empty) {
            return Ok(by_text);
        }
        let by_records = record_pairs(&self.record_keys, places());
        Ok(union(by_text, by_records))
    }

    /// The pairs of [`Sketched::pairs`] found by the sketches of both texts.
    fn pairs_on_both_texts(&self, method: &dyn Method, places: &Places) -> Result<Vec<Candidate>> {
        let core = Standing::new(&self.sketches, NEAREST_BY_CORE, places);
        let visible = Standing::new(&self.visible, NEAREST_BY_VISIBLE_TEXT, places);
        let by_core = Nearest::new(method, NEAREST_BY_CORE, places);
        let by_core = by_core.of(core.streams(method)?, |_| true);
        let beyond_core = |pair: &Candidate| !core.finds(method, pair.a, pair.b);
        let by_visible = Nearest::new(method, NEAREST_BY_VISIBLE_TEXT, places);
        let by_visible = by_visible.of(visible.streams(method)?, beyond_core);
        Ok(union(by_core, by_visible))
    }
}

/// The documents that stand in the search on one text. Where more than `k`
/// documents share one sketch, the first of them by URL stands for the group: it takes
/// the pairs with every other sketch, and each of the others is paired with it
/// alone (a star, whose members clustering judges against their center).
/// [`nearest`] would keep each of them `k` pairs inside the group anyway, all alike
/// at 1.0. A crawl serves one login wall, soft 404 or calendar page at thousands
/// of URLs: 3,000 copies of one page made 4.5 million pairs, 33 s and 1.1 GB
/// before the nearest were kept. Smaller groups keep every pair: one same core
/// sketch is not one same page (titles, renders), and on the web test split
/// starring them lost two duplicate pairs.
struct Standing<'s> {
    sketches: &'s [Sketch],
    /// For each document, the one that stands for it: itself, or its group's first
    /// by URL.
    firsts: Vec<u32>,
    /// The documents that stand for themselves, increasing, with their sketches
    /// (None when that is every document).
    searched: Option<(Vec<u32>, Vec<Sketch>)>,
}

impl<'s> Standing<'s> {
    fn new(sketches: &'s [Sketch], k: usize, places: &Places) -> Standing<'s> {
        // The method's values alone decide its pairs (and the Spark driver sees no more).
        let mut groups: HashMap<&[u64], (u32, usize)> = HashMap::new();
        for (i, s) in sketches.iter().enumerate() {
            let i = i as u32;
            let (first, size) = groups.entry(&s.values).or_insert((i, 0));
            if places.ranks[i as usize] < places.ranks[*first as usize] {
                *first = i;
            }
            *size += 1;
        }
        let firsts: Vec<u32> = (0..sketches.len() as u32)
            .map(|i| match groups[sketches[i as usize].values.as_slice()] {
                (first, size) if size > k => first,
                _ => i,
            })
            .collect();
        let distinct: Vec<u32> = (0..sketches.len() as u32)
            .filter(|&i| firsts[i as usize] == i)
            .collect();
        let searched = (distinct.len() < sketches.len()).then(|| {
            let kept = distinct.iter().map(|&i| sketches[i as usize].clone());
            let kept = kept.collect();
            (distinct, kept)
        });
        Standing {
            sketches,
            firsts,
            searched,
        }
    }

    /// The pairs `method` finds among the documents standing for themselves, and
    /// each star's.
    fn streams<'a>(&'a self, method: &'a dyn Method) -> Result<Vec<PairStream<'a>>> {
        let Some((distinct, kept)) = &self.searched else {
            return method.pair_streams(self.sketches);
        };
        let among_distinct = method.pair_streams(kept)?.into_iter().map(|stream| {
            // `distinct` is increasing, so the pairs stay `a < b`.
            let numbered = stream.map(|pair| Candidate {
                a: distinct[pair.a as usize],
                b: distinct[pair.b as usize],
                evidence: pair.evidence,
            });
            Box::new(numbered) as PairStream<'a>
        });
        let stars = (0..self.sketches.len() as u32).filter_map(move |i| {
            let first = self.firsts[i as usize];
            let (a, b) = (&self.sketches[first as usize], &self.sketches[i as usize]);
            let evidence = (first != i).then(|| judge(method, a, b)).flatten()?;
            Some(Candidate {
                a: first.min(i),
                b: first.max(i),
                evidence,
            })
        });
        Ok(among_distinct
            .chain([Box::new(stars) as PairStream<'a>])
            .collect())
    }

    /// Whether [`Standing::streams`] yield the pair `a < b`: both stand for
    /// themselves or one stands for the other, and the method judges them a pair
    /// (its search finds exactly what its judge accepts).
    fn finds(&self, method: &dyn Method, a: u32, b: u32) -> bool {
        let (first_a, first_b) = (self.firsts[a as usize], self.firsts[b as usize]);
        let (sketch_a, sketch_b) = (&self.sketches[a as usize], &self.sketches[b as usize]);
        ((first_a == a && first_b == b) || first_a == b || first_b == a)
            && judge(method, sketch_a, sketch_b).is_some()
    }
}

/// With [`TextChoice::Both`] (as `dedupe` finds pairs), the pairs found on core
/// content that each document keeps: its nearest. A group of n near-copies (one
/// article at a thousand URLs, a calendar's days) makes n(n-1)/2 pairs: 1,000
/// pages of one real template whose texts share 95 % made 499,500 pairs, scored
/// in 19 minutes and 1.5 GB. Clustering needs far fewer: a component's members
/// are judged against its center, and those pairs never scored are scored then.
pub const NEAREST_BY_CORE: usize = 32;

/// The pairs found on whole visible text that each document keeps beyond those
/// its core content finds: its nearest. Pages of one site share their template's
/// words, so on a crawl of one site nearly any two of them have alike visible
/// texts (2,000 articles on one real news site's template: 1.68 million of the 2
/// million pairs), while the copies whose cores the extractor parted are a page's
/// nearest by what a reader sees.
pub const NEAREST_BY_VISIBLE_TEXT: usize = 8;

/// Which pairs each document keeps: its `k` closest by the method's closeness,
/// pairs equally close by their documents' places ([`Places::tie`]).
struct Nearest<'n> {
    method: &'n dyn Method,
    k: usize,
    places: &'n Places,
}

impl<'n> Nearest<'n> {
    fn new(method: &'n dyn Method, k: usize, places: &'n Places) -> Nearest<'n> {
        Nearest { method, k, places }
    }

    /// The pairs of `streams` that `keep` keeps and that are among the `k`
    /// closest of either document, sorted: every pair, when no document has more.
    /// Each stream is drained on a core of its own into the `k` nearest of each
    /// document it names, so no more than those are held however many pairs
    /// stream by.
    fn of(
        &self,
        streams: Vec<PairStream<'_>>,
        keep: impl Fn(&Candidate) -> bool + Sync,
    ) -> Vec<Candidate> {
        let of_each = streams
            .into_par_iter()
            .map(|stream| {
                let mut of_each = NearestOfEach::new(self.k);
                for pair in stream.filter(&keep) {
                    of_each.offer(&Ranked {
                        closeness: self.method.closeness(&pair.evidence),
                        tie: self.places.tie(pair.a, pair.b),
                        pair,
                    });
                }
                of_each
            })
            .reduce(|| NearestOfEach::new(self.k), NearestOfEach::merge);
        of_each.pairs()
    }
}

/// The `k` nearest pairs of each document seen so far.
struct NearestOfEach {
    k: usize,
    /// Per document, its nearest, the farthest on top.
    of: HashMap<u32, BinaryHeap<Ranked>>,
}

impl NearestOfEach {
    fn new(k: usize) -> NearestOfEach {
        NearestOfEach {
            k,
            of: HashMap::new(),
        }
    }

    fn offer(&mut self, ranked: &Ranked) {
        self.offer_to(ranked.pair.a, ranked);
        self.offer_to(ranked.pair.b, ranked);
    }

    /// Keeps `ranked` if it is among the `k` nearest of `end` seen so far.
    fn offer_to(&mut self, end: u32, ranked: &Ranked) {
        let heap = self.of.entry(end).or_default();
        if heap.len() == self.k && heap.peek().is_some_and(|farthest| farthest <= ranked) {
            return;
        }
        heap.push(ranked.clone());
        if heap.len() > self.k {
            heap.pop();
        }
    }

    /// Both documents' nearest: the nearest of their union.
    fn merge(mut self, other: NearestOfEach) -> NearestOfEach {
        for (end, heap) in other.of {
            for ranked in heap {
                self.offer_to(end, &ranked);
            }
        }
        self
    }

    /// Every pair kept for either of its documents, sorted.
    fn pairs(self) -> Vec<Candidate> {
        let mut pairs: Vec<Candidate> = self
            .of
            .into_values()
            .flatten()
            .map(|ranked| ranked.pair)
            .collect();
        pairs.par_sort_unstable();
        pairs.dedup_by(|x, y| (x.a, x.b) == (y.a, y.b));
        pairs
    }
}

/// A pair with its closeness, ordered nearest first (ties by `tie`).
#[derive(Clone)]
struct Ranked {
    closeness: f64,
    /// Its documents' places ([`Places::tie`]).
    tie: (u32, u32),
    pair: Candidate,
}

impl Ord for Ranked {
    fn cmp(&self, other: &Ranked) -> Ordering {
        let nearer = other.closeness.total_cmp(&self.closeness);
        nearer.then(self.tie.cmp(&other.tie))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Ranked) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Ranked) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ranked {}

/// Two sorted lists of pairs as one sorted list; a pair in both keeps `first`'s evidence.
pub(super) fn union(first: Vec<Candidate>, second: Vec<Candidate>) -> Vec<Candidate> {
    let key = |pair: &Candidate| (pair.a, pair.b);
    let mut out = Vec::with_capacity(first.len() + second.len());
    let mut second = second.into_iter().peekable();
    for pair in first {
        while let Some(earlier) = second.next_if(|other| key(other) < key(&pair)) {
            out.push(earlier);
        }
        second.next_if(|other| key(other) == key(&pair));
        out.push(pair);
    }
    out.extend(second);
    out
}

/// What sketching leaves of one document.
#[derive(Debug, Clone, Default)]
pub struct DocSketch {
    /// The sketch of its core content, or of the text chosen.
    pub sketch: Sketch,
    /// With [`TextChoice::Both`], the sketch of its whole visible text.
    pub visible: Option<Sketch>,
    /// Its record's keys, when records are read and it is one.
    pub record_keys: Vec<u64>,
    /// Whether a rendered body was fingerprinted.
    pub rendered: bool,
}

impl DocSketch {
    fn new(method: &dyn Method, read: Texts, rendered: bool) -> DocSketch {
        let mut sketches = read.texts.iter().map(|t| method.sketch(&text::word_ids(t)));
        DocSketch {
            sketch: sketches.next().unwrap_or_default(),
            visible: sketches.next(),
            record_keys: read.record_keys,
            rendered,
        }
    }
}

/// The sketch of each document of a chunk, on all cores: of its rendered body
/// when `rendered` finds one, else of its fetched body; an error for a document
/// that cannot be read. Errors only when renders are asked for and no browser
/// can start.
pub fn sketch_documents(
    chunk: &[CorpusDoc],
    method: &dyn Method,
    reading: Reading,
    rendered: Option<&RenderedText>,
) -> Result<Vec<Result<DocSketch>>> {
    sketch_bodies(chunk, read_bodies(chunk), method, reading, rendered)
}

/// The fetched body of each document of a chunk, read and decoded in parallel.
fn read_bodies(chunk: &[CorpusDoc]) -> Vec<Result<DecodedBody>> {
    chunk
        .par_iter()
        .map(|doc| decode::read_body(&doc.html))
        .collect()
}

/// [`sketch_documents`] of bodies already read.
fn sketch_bodies(
    chunk: &[CorpusDoc],
    fetched: Vec<Result<DecodedBody>>,
    method: &dyn Method,
    reading: Reading,
    rendered: Option<&RenderedText>,
) -> Result<Vec<Result<DocSketch>>> {
    if let Some(source) = rendered.filter(|r| r.thin_only) {
        return sketch_thin_rendered(chunk, fetched, method, reading, source);
    }
    let renders = match rendered {
        Some(source) => source.bodies(chunk, &fetched, &|_| true)?,
        None => chunk.iter().map(|_| None).collect(),
    };
    Ok(fetched
        .into_par_iter()
        .zip(renders)
        .map(|(body, render)| {
            let (read, from_render) = document_texts(&body?, render.as_ref(), reading);
            Ok(DocSketch::new(method, read, from_render))
        })
        .collect())
}

/// [`sketch_bodies`] rendering only the thin, scripted pages: the fetched text of
/// every page first, then renders for those it says too little of (and the
/// renders the corpus stores).
fn sketch_thin_rendered(
    chunk: &[CorpusDoc],
    fetched: Vec<Result<DecodedBody>>,
    method: &dyn Method,
    reading: Reading,
    source: &RenderedText,
) -> Result<Vec<Result<DocSketch>>> {
    let texts: Vec<Option<Texts>> = fetched
        .par_iter()
        .map(|body| body.as_ref().ok().map(|body| body_texts(body, reading)))
        .collect();
    let scripted = |body: &DecodedBody| {
        let tag = b"<script";
        body.text
            .as_bytes()
            .windows(tag.len())
            .any(|w| w.eq_ignore_ascii_case(tag))
    };
    let thin = |i: usize| {
        texts[i]
            .as_ref()
            .is_some_and(|t| t.texts[0].split_whitespace().count() < THIN_WORDS)
            && fetched[i].as_ref().is_ok_and(scripted)
    };
    // A render the corpus stores costs no browser: what a reader saw is the better text.
    let wanted = |i: usize| chunk[i].rendered.is_some() || thin(i);
    let renders = source.bodies(chunk, &fetched, &wanted)?;
    Ok(fetched
        .into_par_iter()
        .zip(texts)
        .zip(renders)
        .map(|((body, fetched_text), render)| {
            let body = body?;
            let (read, from_render) = match (&render, fetched_text) {
                (Some(RenderedBody::Measured(_) | RenderedBody::SyntheticOnly(_)), _)
                | (_, None) => document_texts(&body, render.as_ref(), reading),
                (_, Some(read)) => (read, false),
            };
            Ok(DocSketch::new(method, read, from_render))
        })
        .collect())
}

/// Threads that read documents ahead of the parsers. A page out of the page cache
/// waits on the disk, not on a core, and a disk serves many reads at once: with
/// two parsing threads reading in turn, 100,000 uncached pages took twice as long
/// as cached ones.
const READERS: usize = 8;

/// Reads the next chunk's bodies on its own threads while the cores parse this one.
struct ReadAhead {
    pool: rayon::ThreadPool,
}

impl ReadAhead {
    fn new() -> Result<ReadAhead> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(READERS)
            .thread_name(|i| format!("twinpage-reader-{i}"))
            .build()?;
        Ok(ReadAhead { pool })
    }

    fn read(&self, chunk: &[CorpusDoc]) -> Vec<Result<DecodedBody>> {
        self.pool.install(|| read_bodies(chunk))
    }
}

/// Reads and sketches a whole corpus, streaming, on all cores, of rendered bodies
/// where `rendered` finds them. A document that cannot be read is an error naming
/// its row, or, with `skip_bad`, skipped.
#[allow(clippy::too_many_arguments)]
pub fn sketch_corpus(
    corpus: &Corpus,
    method: &dyn Method,
    reading: Reading,
    rendered: Option<&RenderedText>,
    paths: &OutputPaths,
    skip_bad: bool,
    keep: impl Fn(&str) -> bool,
) -> Result<Sketched> {
    let progress = Progress::new(corpus.count()?, "fingerprinting");
    let mut out = Sketched::default();
    let mut rows = corpus.documents()?;
    // The next CHUNK documents to sketch (those `keep` takes).
    let mut next_chunk = || -> Result<Vec<CorpusDoc>> {
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
        Ok(chunk)
    };
    let reader = ReadAhead::new()?;
    // Where every document may have a render of its own, each is looked up.
    let mut bodies = BodiesSeen::new(rendered.is_none_or(|r| r.thin_only));
    let mut chunk = bodies.split(next_chunk()?, &out, paths);
    let mut fetched = reader.read(&chunk.fresh);
    while !chunk.docs.is_empty() {
        let following = bodies.split(next_chunk()?, &out, paths);
        let (sketched, read_ahead) = std::thread::scope(|scope| {
            let ahead = scope.spawn(|| reader.read(&following.fresh));
            let sketched = sketch_bodies(&chunk.fresh, fetched, method, reading, rendered);
            let read = ahead
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (sketched, read)
        });
        let mut sketched = sketched?.into_iter();
        for (doc, copy) in chunk.docs.iter().zip(chunk.copies) {
            progress.inc();
            let fresh = copy.is_none();
            let sketch =
                copy.map_or_else(|| sketched.next().expect("a sketch per fresh document"), Ok);
            match sketch {
                Ok(s) => {
                    if fresh && !s.rendered {
                        bodies.remember(doc, out.docs.len());
                    }
                    out.rendered += usize::from(s.rendered);
                    out.empty += usize::from(s.sketch.words == 0);
                    out.sketches.push(s.sketch);
                    out.visible.extend(s.visible);
                    if reading.records {
                        out.record_keys.push(s.record_keys);
                    }
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
        (chunk, fetched) = (following, read_ahead);
    }
    progress.finish();
    Ok(out)
}

/// The bodies sketched so far from their fetched text, so that a body many rows name
/// is read and parsed once (a page captured again with the same bytes, one wall served
/// at many URLs: 10,000 rows of one page took 74 s to fingerprint, each row parsed).
/// Keyed by a hash of the path, 16 bytes a body on a million-page crawl. A row met
/// while its body's first row is still being sketched (the same chunk, or the one
/// before it) reads it again.
struct BodiesSeen {
    /// Whether copies take the first sketch (else every document is sketched).
    enabled: bool,
    /// The document whose sketch each body has.
    sketched: HashMap<u64, usize>,
}

/// A chunk of documents: for each, the sketch its body already has, and those
/// whose body is read now.
struct Chunk {
    docs: Vec<CorpusDoc>,
    copies: Vec<Option<DocSketch>>,
    fresh: Vec<CorpusDoc>,
}

impl BodiesSeen {
    fn new(enabled: bool) -> BodiesSeen {
        BodiesSeen {
            enabled,
            sketched: HashMap::new(),
        }
    }

    fn key(doc: &CorpusDoc) -> u64 {
        use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
        BuildHasherDefault::<DefaultHasher>::default().hash_one(&doc.html)
    }

    /// Parts a chunk into copies of sketches in `out` and documents to read.
    fn split(&self, docs: Vec<CorpusDoc>, out: &Sketched, paths: &OutputPaths) -> Chunk {
        let copies: Vec<Option<DocSketch>> = docs
            .iter()
            .map(|doc| self.sketched(doc, out, paths))
            .collect();
        let fresh = docs
            .iter()
            .zip(&copies)
            .filter(|(_, copy)| copy.is_none())
            .map(|(doc, _)| doc.clone())
            .collect();
        Chunk {
            docs,
            copies,
            fresh,
        }
    }

    /// Keeps where the sketch of `doc`'s body, from its fetched text, is.
    fn remember(&mut self, doc: &CorpusDoc, index: usize) {
        if self.enabled && doc.rendered.is_none() {
            self.sketched.entry(Self::key(doc)).or_insert(index);
        }
    }

    /// The sketch in `out` of `doc`'s body, if it has one. A document with a stored
    /// render of its own is sketched as that.
    fn sketched(&self, doc: &CorpusDoc, out: &Sketched, paths: &OutputPaths) -> Option<DocSketch> {
        if doc.rendered.is_some() {
            return None;
        }
        let &index = self.sketched.get(&Self::key(doc))?;
        (out.docs[index].html == paths.path(&doc.html_raw)).then(|| DocSketch {
            sketch: out.sketches[index].clone(),
            visible: out.visible.get(index).cloned(),
            record_keys: out.record_keys.get(index).cloned().unwrap_or_default(),
            rendered: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::candidates::method::drain_sorted;

    fn pair(a: u32, b: u32, jaccard: f64) -> Candidate {
        Candidate {
            a,
            b,
            evidence: vec![format!("{jaccard:.4}")],
        }
    }

    /// [`Nearest::of`] with documents ranked by their numbers.
    fn nearest_of(
        method: &dyn Method,
        k: usize,
        streams: Vec<PairStream<'_>>,
        keep: impl Fn(&Candidate) -> bool + Sync,
    ) -> Vec<Candidate> {
        Nearest::new(method, k, &Places::apart(1000)).of(streams, keep)
    }

    /// Places of `docs` ranked by their numbers.
    fn apart<T>(docs: &[T]) -> Places {
        Places::apart(docs.len())
    }

    /// `pairs` dealt out to three streams, as a search's bands would give them.
    fn streams(pairs: &[Candidate]) -> Vec<PairStream<'static>> {
        (0..3)
            .map(|s| {
                let dealt: Vec<Candidate> = pairs.iter().skip(s).step_by(3).cloned().collect();
                Box::new(dealt.into_iter()) as PairStream<'static>
            })
            .collect()
    }

    #[test]
    fn a_page_keeps_its_nearest_pairs_by_visible_text_beyond_its_cores() {
        let lsh = crate::candidates::lsh::Lsh::new(Default::default()).unwrap();
        // Page 0 and its copy 1 on one site's template; pages 2..=11 other articles
        // on it, alike to every page by the template alone.
        let mut visible = vec![pair(0, 1, 0.98)];
        for a in 0..12 {
            for b in (a + 1).max(2)..12 {
                visible.push(pair(a, b, 0.6 + f64::from(a + b) / 1000.0));
            }
        }
        visible.sort();
        let beyond_core = |p: &Candidate| (p.a, p.b) != (2, 3);
        let kept = nearest_of(&lsh, 3, streams(&visible), beyond_core);
        assert!(kept.contains(&pair(0, 1, 0.98)));
        assert!(!kept.iter().any(|p| (p.a, p.b) == (2, 3)));
        // Each page keeps its 3 nearest, so no page has more than 3 + (pages that
        // kept it) and far fewer than the 11 it had.
        assert!(kept.len() < visible.len() / 2, "{}", kept.len());
        for page in 0..12 {
            let of_page = kept.iter().filter(|p| p.a == page || p.b == page).count();
            assert!(of_page >= 3, "page {page}: {of_page}");
        }
        assert!(kept.windows(2).all(|w| w[0] < w[1]));
        // Few pairs a page: all kept.
        let few = vec![pair(0, 1, 0.5), pair(2, 3, 0.7)];
        assert_eq!(nearest_of(&lsh, 3, streams(&few), |_| true), few);
    }

    #[test]
    fn the_nearest_kept_from_streams_are_those_of_all_the_pairs_at_once() {
        use rand::{Rng, SeedableRng};
        let lsh = crate::candidates::lsh::Lsh::new(Default::default()).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        // 40 pages, a third of their pairs, closeness from few values: many ties.
        let mut pairs = Vec::new();
        for a in 0..40 {
            for b in a + 1..40 {
                if rng.random_range(0..3) == 0 {
                    pairs.push(pair(a, b, f64::from(rng.random_range(5..9u32)) / 10.0));
                }
            }
        }
        // Each page's k nearest by closeness, ties by the pages' places, all pairs in
        // hand: places by number, and by a shuffled order of URLs.
        let expected = |k: usize, places: &Places| {
            let mut kept = vec![false; pairs.len()];
            for page in 0..40 {
                let mut of_page: Vec<usize> = (0..pairs.len())
                    .filter(|&i| pairs[i].a == page || pairs[i].b == page)
                    .collect();
                let closeness = |i: usize| lsh.closeness(&pairs[i].evidence);
                let tie = |i: usize| places.tie(pairs[i].a, pairs[i].b);
                of_page.sort_by(|&x, &y| {
                    closeness(y)
                        .total_cmp(&closeness(x))
                        .then(tie(x).cmp(&tie(y)))
                });
                of_page.iter().take(k).for_each(|&i| kept[i] = true);
            }
            let kept = pairs.iter().zip(kept).filter(|(_, kept)| *kept);
            kept.map(|(pair, _)| pair.clone()).collect::<Vec<_>>()
        };
        let mut shuffled: Vec<u32> = (0..40).collect();
        rand::seq::SliceRandom::shuffle(shuffled.as_mut_slice(), &mut rng);
        let shuffled = Places {
            ranks: shuffled,
            ..Places::apart(40)
        };
        let orders = [Places::apart(40), shuffled];
        for places in &orders {
            let nearest = |k: usize| Nearest::new(&lsh, k, places).of(streams(&pairs), |_| true);
            for k in [1, 2, 5, 40] {
                assert_eq!(nearest(k), expected(k, places), "k {k}");
            }
        }
        // The ties decide which pairs are kept.
        assert_ne!(expected(2, &orders[0]), expected(2, &orders[1]));
        assert_eq!(nearest_of(&lsh, 40, streams(&pairs), |_| true), pairs);
    }

    #[test]
    fn copies_of_one_sketch_are_paired_with_their_first_by_url_alone_and_find_what_it_finds() {
        let lsh = crate::candidates::lsh::Lsh::new(Default::default()).unwrap();
        let sketch = |text: &str| lsh.sketch(&text::word_ids(text));
        let article: String = (0..300).map(|i| format!("word{} ", i * 7 % 211)).collect();
        let other: String = (0..300).map(|i| format!("other{i} ")).collect();
        // Page 0 another article; pages 1..=200 one wall served at 200 URLs; page
        // 201 the wall with a line of its own; page 202 no words.
        let mut sketches = vec![sketch(&other)];
        sketches.extend((0..200).map(|_| sketch(&article)));
        sketches.push(sketch(&format!("{article} signed in as reader 201")));
        sketches.push(sketch(""));
        let every = lsh.pairs(&sketches).unwrap();
        assert_eq!(every.len(), 201 * 200 / 2);
        // The wall's first URL stands for it: page 1 when URLs go as numbers, page 200
        // when they go the other way.
        let reversed = Places {
            ranks: (0..sketches.len() as u32).rev().collect(),
            ..apart(&sketches)
        };
        for (places, first) in [(apart(&sketches), 1), (reversed, 200)] {
            let standing = Standing::new(&sketches, 32, &places);
            let once = drain_sorted(standing.streams(&lsh).unwrap());
            let members = (1..=201).filter(|&member| member != first);
            let star: Vec<(u32, u32)> = members.map(|m| (m.min(first), m.max(first))).collect();
            assert_eq!(once.iter().map(|p| (p.a, p.b)).collect::<Vec<_>>(), star);
            // Each pair kept is one the method finds, with its evidence.
            assert!(once.iter().all(|pair| every.binary_search(pair).is_ok()));
            // `finds` says which pairs the streams yield, without them.
            for a in 0..sketches.len() as u32 {
                for b in a + 1..sketches.len() as u32 {
                    let yielded = once.binary_search_by_key(&(a, b), |p| (p.a, p.b)).is_ok();
                    assert_eq!(standing.finds(&lsh, a, b), yielded, "({a}, {b})");
                }
            }
        }
        // A group of no more than k copies keeps every pair.
        let every_standing = Standing::new(&sketches, 200, &apart(&sketches));
        assert_eq!(drain_sorted(every_standing.streams(&lsh).unwrap()), every);
        // Without copies nothing changes.
        let distinct = [
            sketch(&other),
            sketch(&article),
            sketch(&format!("{article} x")),
        ];
        let standing = Standing::new(&distinct, 0, &apart(&distinct));
        assert_eq!(
            drain_sorted(standing.streams(&lsh).unwrap()),
            lsh.pairs(&distinct).unwrap()
        );
    }

    #[test]
    fn the_union_of_two_texts_pairs_is_sorted_once_each_with_the_first_texts_evidence() {
        let pair = |a: u32, b: u32, evidence: &str| Candidate {
            a,
            b,
            evidence: vec![evidence.into()],
        };
        let core = vec![pair(0, 2, "core"), pair(1, 2, "core"), pair(3, 4, "core")];
        let visible = vec![pair(0, 1, "seen"), pair(1, 2, "seen"), pair(5, 6, "seen")];
        let found = union(core, visible);
        let found: Vec<(u32, u32, &str)> = found
            .iter()
            .map(|p| (p.a, p.b, p.evidence[0].as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (0, 1, "seen"),
                (0, 2, "core"),
                (1, 2, "core"),
                (3, 4, "core"),
                (5, 6, "seen")
            ]
        );
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
