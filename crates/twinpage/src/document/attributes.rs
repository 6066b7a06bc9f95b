//! The attributes of one body (Table 1 of the seed patent), computed once per
//! document per run from a single parse.
//!
//! The HTML is parsed once into a DOM (and once more to judge the rare page whose
//! `<noscript>` holds an article: `fetched_dom`). Title, links and images are read from it;
//! hidden elements, scripts and styles are measured and removed to leave the visible
//! text; then the same DOM is handed to the readability extractor for the core
//! content (it mutates the DOM, so it goes last).

use aho_corasick::AhoCorasick;
use dom_query::{Document as Dom, Matcher, NodeRef, Selection};
use std::sync::LazyLock;

use super::core_content::core_text;
use super::decode::{self, DecodedBody};
use super::idf::IdfTable;
use super::record::{self, Record};
use super::text;
use twinpage_util::hash::fnv1a;

/// How many top tf-idf terms a body keeps for the cosine test (the seed's 100).
pub const TOP_TERMS: usize = 100;

/// A page with scripts and fewer visible words than this is taken as built by script.
const SCRIPT_BUILT_WORDS: usize = 50;

/// A core of fewer words than this may be a scrap the extractor settled for rather
/// than the page's text: a caption, a line of chrome, a footer's copyright line (a
/// training pair's `syndicated` copy whose extraction failed kept 19 words; real blog
/// posts of two sentences beside a long sidebar have 30 and more).
pub const SCRAP_CORE_WORDS: usize = 25;

/// Everything the tests need to know about one body.
#[derive(Debug, Clone, Default)]
pub struct Document {
    /// Length of the raw body in bytes.
    pub body_len: usize,
    /// Hash of the raw body (identical-bodies screening).
    pub body_hash: [u8; 32],
    /// Hash of the whitespace-normalised visible text.
    pub text_hash: u64,
    pub truncated: bool,
    pub binary: bool,
    /// `<title>`, whitespace-normalised.
    pub title: String,
    /// The title's words ([`text::word_set`]): compared by several tests, read once.
    pub title_words: Vec<u32>,
    /// Text a reader sees (scripts, styles and hidden elements removed).
    pub visible_text: String,
    /// Core content: the visible text minus navigation, ads and other boilerplate.
    pub core_text: String,
    /// Word ids of the visible text and of the core content.
    pub visible_words: Vec<u32>,
    pub core_words: Vec<u32>,
    /// The distinct words of the visible text (as u64 for the Jaccard test), sorted.
    pub visible_vocabulary: Vec<u64>,
    /// Word shingles of the core content that the page writes (not those spanning a
    /// block the extractor left out), and of the visible text.
    pub core_shingles: Vec<u64>,
    pub visible_shingles: Vec<u64>,
    /// Word shingles of the text the DOM holds outside hidden elements, when a
    /// browser's view replaced it as the visible text (see [`Document::written_shingles`]).
    pub dom_shingles: Option<Vec<u64>>,
    /// Top tf-idf terms of the core content, sorted by word id.
    pub top_terms: Vec<(u32, f32)>,
    /// Charikar fingerprints of the core content and of the visible text.
    pub core_simhash: u64,
    pub visible_simhash: u64,
    /// Numbers in the core content (key facts).
    pub core_numbers: Vec<u64>,
    /// The core's numbers and names keyed by where they stand (see
    /// [`text::number_places`], [`text::name_places`]).
    pub core_number_places: Vec<(u64, u32)>,
    pub core_name_places: Vec<(u64, u32)>,
    /// Number of `<a href>` links, and the registered domains of absolute ones.
    pub link_count: usize,
    pub link_domains: Vec<u64>,
    /// Number of `<img>` elements.
    pub image_count: usize,
    /// Deflate length of the core content (the compressed-length attribute).
    pub core_compressed_len: usize,
    /// c(AA) of the core content for the compression distance, filled on first use
    /// (it costs a compression, and only pairs that reach that test need it).
    pub core_self_compressed: std::sync::OnceLock<usize>,
    /// ISO 639-3 code of the language of the core content, if detectable.
    pub language: Option<&'static str>,
    /// Spam indicators.
    pub spam: SpamIndicators,
    /// What only a browser can tell, for a rendered body.
    pub rendered: Option<RenderedAttributes>,
    /// The fields of a record page (a product, a paper); None for other pages.
    pub record: Option<Record>,
    /// The body shows an app's shell: an empty app root, a region announced as loading
    /// or a `<noscript>` notice asking for JavaScript above little prose (with scripts,
    /// one way to be [`script_built`](Self::script_built); few visible words is the
    /// other).
    pub app_shell: bool,
    /// The body has scripts at all.
    pub scripted: bool,
    /// A script in the body hides elements (`hides_elements`): a reader may see
    /// less than the fetched body shows (text a script hides once the page loads).
    pub hides_by_script: bool,
}

/// Attributes of a rendered body that the DOM alone does not give: they need
/// layout (the browser's view of the page).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RenderedAttributes {
    /// Share of the rendered page area covered by images.
    pub image_area: f64,
    /// Share of the rendered page area covered by text.
    pub text_area: f64,
    /// Share of the DOM's text that a reader does not see.
    pub hidden_text_share: f64,
    /// The render deadline fired before the page settled.
    pub cut_off: bool,
}

/// Signs of a page written for engines rather than readers.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SpamIndicators {
    /// Share of the words of the visible text taken by its most frequent word of
    /// four or more letters: keyword stuffing pushes it up.
    pub top_word_share: f64,
    /// Share of the page's text that sits in hidden elements.
    pub hidden_text_share: f64,
}

impl Document {
    /// Computes all attributes of a decoded fetched body.
    pub fn from_body(body: &DecodedBody, idf: &IdfTable) -> Document {
        Document::from_parts(body, idf, None)
    }

    /// Computes all attributes of a rendered body: its serialised DOM (the
    /// synthetic body) and what the browser saw. The browser's visible text
    /// replaces the DOM's guess, and its hidden-text share replaces the one from
    /// inline styles (a stylesheet can hide text that no attribute shows).
    pub fn from_rendered(
        synthetic: &DecodedBody,
        visible_text: &str,
        rendered: RenderedAttributes,
        idf: &IdfTable,
    ) -> Document {
        let seen = decode::as_read(visible_text.to_string());
        let mut doc = Document::from_parts(synthetic, idf, Some(&seen));
        // A stalled render, read from its DOM (no `dom_shingles`), hid everything: its
        // hidden-text share is the DOM's.
        if doc.dom_shingles.is_some() {
            doc.spam.hidden_text_share = rendered.hidden_text_share;
        }
        doc.rendered = Some(rendered);
        doc
    }

    /// The body looks built by script: scripts, and little visible text, an empty
    /// app root, a region announced as loading or a `<noscript>` notice. Its fetched
    /// body says little of what a reader sees, so the cascade renders it whatever the
    /// fetched-only model says.
    pub fn script_built(&self) -> bool {
        self.scripted && (self.app_shell || self.visible_words.len() < SCRIPT_BUILT_WORDS)
    }

    /// Shingles of everything the page writes for a reader: its visible text, and on a
    /// rendered body also what the browser kept out of view (an inactive tab, a collapsed
    /// section), which a click shows and which a copy of the page may well carry.
    pub fn written_shingles(&self) -> &[u64] {
        written(&self.dom_shingles, &self.visible_shingles)
    }

    fn from_parts(body: &DecodedBody, idf: &IdfTable, seen: Option<&str>) -> Document {
        let dom = match seen {
            None => fetched_dom(&body.text),
            Some(_) => Dom::from(body.text.as_str()),
        };
        let marked = Marked::find(&dom);
        let head = RecordHead::of(&marked);
        let title = head.title.clone();
        let (link_count, link_domains) = links(&marked.anchors);
        let image_count = marked.images;
        let scripted = !marked.scripts.is_empty();
        let hides_by_script = marked.scripts.iter().any(|s| hides_elements(&s.text()));
        let asks_for_script = asks_for_script(&marked.notices);
        let empty_root = marked
            .app_roots
            .iter()
            .any(|root| root.text().trim().is_empty());
        let hidden_chars = remove_hidden(&dom);
        let dom_text = visible_text(&dom);
        // On a rendered body, what the browser showed and the words its DOM writes;
        // neither when the browser's view stalled, and the DOM is read instead.
        let shown = seen
            .map(|seen| (seen, text::word_ids(&dom_text)))
            .filter(|(seen, written)| !stalled(seen, written.len()));
        let dom_shingles = shown.as_ref().map(|(_, written)| text::shingles(written));
        let visible_text = shown.map_or(dom_text, |(seen, _)| seen.to_string());
        // A notice asking for JavaScript above a whole article is the site's boilerplate;
        // above a shell it is all the shell serves.
        let app_shell = empty_root
            || marked.busy
            || asks_for_script && text::prose_words(&visible_text) < SERVED_ARTICLE_WORDS;
        // Each text is split into words once; ids, numbers, spam and the record share the split.
        let visible_tokens: Vec<String> = text::words(&visible_text).collect();
        let record = head.read(&dom, &visible_text, visible_tokens.len());
        let visible_words = text::ids_of(&visible_tokens);
        let visible_shingles = text::shingles(&visible_words);
        // Only a DOM that writes something the browser did not show has text to remove.
        let unseen_text = dom_shingles.as_ref().is_some_and(|written| {
            written
                .iter()
                .any(|h| visible_shingles.binary_search(h).is_err())
        });
        if unseen_text {
            remove_unseen(&dom, &visible_words, &visible_shingles);
        }
        let core_text = core_text(dom, &visible_text);
        let visible_chars = visible_text.chars().count();
        let (core_tokens, core_capitals) = text::words_and_capitals(&core_text);
        let core_words = text::ids_of(&core_tokens);
        let spam = SpamIndicators {
            top_word_share: top_word_share(&visible_tokens),
            hidden_text_share: share(hidden_chars, hidden_chars + visible_chars),
        };
        Document {
            body_len: body.raw_len,
            body_hash: body.raw_hash,
            text_hash: text::normalised_hash(&visible_text),
            truncated: body.truncated,
            binary: body.binary,
            visible_vocabulary: text::vocabulary(&visible_words),
            core_shingles: core_shingles(&core_words, written(&dom_shingles, &visible_shingles)),
            visible_shingles,
            dom_shingles,
            top_terms: idf.top_terms(&core_words, TOP_TERMS),
            core_simhash: text::simhash(&core_words),
            visible_simhash: text::simhash(&visible_words),
            core_numbers: text::number_set(&core_tokens),
            core_number_places: text::number_places(&core_tokens, &core_words),
            core_name_places: text::name_places(&core_capitals, &core_words, |id| {
                idf.is_common(id)
            }),
            core_compressed_len: deflate_len(core_text.as_bytes()),
            core_self_compressed: std::sync::OnceLock::new(),
            language: language(&core_text),
            link_count,
            link_domains,
            image_count,
            spam,
            rendered: None,
            record,
            app_shell,
            scripted,
            hides_by_script,
            title_words: text::word_set(&title),
            title,
            visible_words,
            core_words,
            visible_text,
            core_text,
        }
    }
}

/// The rule of [`Document::written_shingles`], for a document still being made.
fn written<'a>(dom_shingles: &'a Option<Vec<u64>>, visible_shingles: &'a [u64]) -> &'a [u64] {
    dom_shingles.as_deref().unwrap_or(visible_shingles)
}

/// A browser that shows fewer words than this of a page whose DOM writes
/// [`STALLED_SHARE`]'s inverse times as many saw the page before its scripts showed it.
const STALLED_WORDS: usize = 50;

/// Under this share of the words its DOM writes, a short render is stalled ([`stalled`]).
const STALLED_SHARE: f64 = 0.2;

/// Whether the browser's view of a rendered body (`seen`) is of a page its scripts never
/// showed: a stylesheet hides the page until a script reveals it (a loading screen,
/// `visibility: hidden` on the body), and the script did not run (a page rendered offline,
/// or from an archive without its scripts). Such a view shows a date line or nothing
/// where the DOM writes the whole article; the DOM is then the better reading of what a
/// reader sees. A shell its script never filled writes little in its DOM either, and
/// stays as the browser showed it.
fn stalled(seen: &str, dom_words: usize) -> bool {
    let shown = text::word_count_to(seen, STALLED_WORDS);
    shown < STALLED_WORDS && (shown as f64) < STALLED_SHARE * dom_words as f64
}

/// The shingles of a core that its page writes (`written`): a core joins the blocks
/// it keeps, so a phrase spanning a block it left out (a caption, an ad between two
/// paragraphs) is written on no page, and would make a page hold less than its own
/// core. A core shorter than a shingle is one shingle of its own, kept.
fn core_shingles(core_words: &[u32], written: &[u64]) -> Vec<u64> {
    let mut shingles = text::shingles(core_words);
    if core_words.len() >= text::SHINGLE_WORDS {
        shingles.retain(|h| written.binary_search(h).is_ok());
    }
    shingles
}

/// The text of a body that candidate generation fingerprints: the core content
/// (`core`) or the whole visible text, from one parse and without the other
/// attributes (tf-idf, compression, language) that only pair tests need.
pub fn page_text(body: &DecodedBody, core: bool) -> String {
    let page = read_page(body, core, false);
    page.core.unwrap_or(page.visible)
}

/// What candidate generation reads of a page.
pub struct PageRead {
    /// The core content, when asked for.
    pub core: Option<String>,
    /// The whole visible text.
    pub visible: String,
    /// The page's record, when asked for and the page is one.
    pub record: Option<Record>,
}

/// The texts and record of a body that candidate generation reads, from one parse:
/// the core content with `core`, the record with `record`.
pub fn read_page(body: &DecodedBody, core: bool, record: bool) -> PageRead {
    let dom = fetched_dom(&body.text);
    let head = record.then(|| RecordHead::of(&Marked::find(&dom)));
    remove_hidden(&dom);
    let visible = visible_text(&dom);
    let record = head.and_then(|head| head.read(&dom, &visible, text::word_count(&visible)));
    PageRead {
        core: core.then(|| core_text(dom, &visible)),
        visible,
        record,
    }
}

/// What a page's record is read from that goes with the hidden elements: its title,
/// the fields of its JSON-LD (in scripts) and of its citation tags (in the head).
struct RecordHead {
    title: String,
    json_ld: Vec<(record::Field, String)>,
    citations: Vec<(record::Field, String)>,
}

impl RecordHead {
    fn of(marked: &Marked) -> RecordHead {
        RecordHead {
            title: text::normalise_space(&Selection::from(marked.titles.clone()).text()),
            json_ld: record::json_ld_fields(&marked.scripts),
            citations: record::meta_fields(&marked.record_metas),
        }
    }

    /// The page's record ([`Record::read`]) from its DOM without hidden elements and
    /// its visible text of `words` words.
    fn read(self, dom: &Dom, visible: &str, words: usize) -> Option<Record> {
        Record::read(
            self.json_ld,
            self.citations,
            dom,
            &self.title,
            visible,
            words,
        )
    }
}

fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// What [`Marked`] looks for: each kind's selector, and the one walk asks all of them.
const TITLES: &str = "title";
const ANCHORS: &str = "a[href]";
const IMAGES: &str = "img";
const SCRIPTS: &str = "script";
const NOTICES: &str = "noscript";
/// A record's fields in the head: a paper's citation tags, a product's Open Graph ones.
const RECORD_METAS: &str = "meta[name^='citation_'], meta[property^='product:']";
/// The elements a script-built app fills in (React, Vue, Next, Nuxt, Angular).
const APP_ROOTS: &str = "#root, #app, #__next, #__nuxt, [data-reactroot], app-root";
/// A region the page announces as loading (WAI-ARIA's `aria-busy`): a skeleton or a
/// "Loading…" line that a script replaces, whatever the root is named.
const BUSY: &str = "[aria-busy=true]";

/// Words of prose ([`text::prose_words`]) from which a page serves its article itself,
/// whatever its `<noscript>` says: the generated app shells and client-rendered pages
/// serve 120 or fewer (a footer, a teaser), where pages with such a notice that serve
/// their article (motorsport-total.com, dorzeczy.pl) serve several hundred.
const SERVED_ARTICLE_WORDS: usize = 150;

/// Whether a `<noscript>` asks for JavaScript; not the tracking pixels many pages keep
/// there.
fn asks_for_script(notices: &[NodeRef]) -> bool {
    notices
        .iter()
        .any(|notice| notice.text().to_lowercase().contains("javascript"))
}

/// Whether a script's source sets an element's `style.display` to `none` or its
/// `style.visibility` to `hidden`: the plain way a script takes text out of view
/// (`el.style.display = 'none'`).
fn hides_elements(source: &str) -> bool {
    const HIDING: [(&str, &str); 2] = [(".style.display", "none"), (".style.visibility", "hidden")];
    HIDING.iter().any(|(property, value)| {
        source.match_indices(property).any(|(at, _)| {
            let rest = source[at + property.len()..].trim_start();
            let Some(rest) = rest.strip_prefix('=').filter(|r| !r.starts_with('=')) else {
                return false;
            };
            let rest = rest.trim_start();
            rest.strip_prefix(['\'', '"'])
                .is_some_and(|r| r.starts_with(value))
        })
    })
}

/// The elements the attributes read before hidden elements, scripts and the head go,
/// found in one walk of the DOM rather than one per selector (each walk visits every
/// node: six of them took over 1 % of fetched-only scoring).
#[derive(Default)]
struct Marked<'a> {
    titles: Vec<NodeRef<'a>>,
    anchors: Vec<NodeRef<'a>>,
    images: usize,
    scripts: Vec<NodeRef<'a>>,
    record_metas: Vec<NodeRef<'a>>,
    /// `<noscript>` elements.
    notices: Vec<NodeRef<'a>>,
    app_roots: Vec<NodeRef<'a>>,
    /// A region announced as loading ([`BUSY`]).
    busy: bool,
}

impl<'a> Marked<'a> {
    fn find(dom: &'a Dom) -> Marked<'a> {
        let mut marked = Marked::default();
        let any = css!(&[
            TITLES,
            ANCHORS,
            IMAGES,
            SCRIPTS,
            RECORD_METAS,
            NOTICES,
            APP_ROOTS,
            BUSY
        ]
        .join(", "));
        for node in dom.select_matcher(any).nodes() {
            let is = |matcher: &Matcher| matcher.match_element(node);
            if is(css!(TITLES)) {
                marked.titles.push(*node);
            }
            if is(css!(ANCHORS)) {
                marked.anchors.push(*node);
            }
            if is(css!(IMAGES)) {
                marked.images += 1;
            }
            if is(css!(SCRIPTS)) {
                marked.scripts.push(*node);
            }
            if is(css!(RECORD_METAS)) {
                marked.record_metas.push(*node);
            }
            if is(css!(NOTICES)) {
                marked.notices.push(*node);
            }
            if is(css!(APP_ROOTS)) {
                marked.app_roots.push(*node);
            }
            marked.busy |= is(css!(BUSY));
        }
        marked
    }
}

fn links(anchors: &[NodeRef]) -> (usize, Vec<u64>) {
    let mut domains: Vec<u64> = anchors
        .iter()
        .filter_map(|a| a.attr("href"))
        .filter_map(|href| url::Url::parse(href.trim()).ok())
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .filter_map(|u| u.host_str().map(str::to_ascii_lowercase))
        .map(|host| fnv1a(psl::domain_str(&host).unwrap_or(&host).as_bytes()))
        .collect();
    domains.sort_unstable();
    domains.dedup();
    (anchors.len(), domains)
}

/// Elements hidden by their own markup. Not `aria-hidden`: it hides from screen readers
/// only, and a browser shows what it holds (a stray unclosed `<i aria-hidden>` icon can
/// hold a whole article once the parser reopens it in every block).
const HIDDEN: &str = "[hidden], [style*='display:none'], \
     [style*='display: none'], [style*='visibility:hidden'], [style*='visibility: hidden']";

/// Elements whose contents a reader never sees as text.
const NEVER_SHOWN: &str = "script, style, noscript, template, svg, head, iframe, object";

/// Ruby annotations: the reading of the characters they sit on (Japanese furigana),
/// which a copy of the text without them still is. Left in, they cut every word in two
/// (`<ruby>子<rt>こ</rt></ruby>ども` reads 子こども) and NHK's easy news matched none of
/// the sentences marked as its article. `rp` is the parenthesis shown where ruby is not.
const ANNOTATIONS: &str = "rt, rp";

/// Removes what a reader never sees and returns how many characters of text it held
/// (the hidden-text spam indicator counts only hidden *elements*, not scripts). Both
/// kinds are found in one walk of the DOM, before either goes.
fn remove_hidden(dom: &Dom) -> usize {
    let unseen = dom.select_matcher(css!(&[HIDDEN, NEVER_SHOWN, ANNOTATIONS].join(", ")));
    let hidden: Vec<NodeRef> = unseen
        .nodes()
        .iter()
        .filter(|node| css!(HIDDEN).match_element(*node))
        .copied()
        .collect();
    let hidden_text = Selection::from(hidden).text();
    let hidden_chars = hidden_text.chars().filter(|c| !c.is_whitespace()).count();
    unseen.remove();
    hidden_chars
}

/// The DOM of a fetched body as a reader sees it. It is parsed as a browser without
/// scripts parses it, so a `<noscript>` holds elements, and what it holds is never
/// shown ([`NEVER_SHOWN`]): a browser with scripts shows none of it. A page that
/// writes its article only there (security.googleblog.com), or whose `<noscript>`
/// opens an element it never closes and so holds the whole page to such a parser
/// (parcoabruzzo.it: `<noscript><div id="mms_nojava"></noscript>`), then shows
/// nothing, where a copy of the page shows its article: 2 of the 1,052 pages of
/// `../shared/data/web-pages`, none of the 18,531 documents of the web, record and
/// fresh pairs. Its `<noscript>` elements are read as blocks of its text when they
/// hold [`SERVED_ARTICLE_WORDS`] of prose or more and, without them, the page shows
/// no article ([`text::article`]).
fn fetched_dom(html: &str) -> Dom {
    static NOSCRIPT: LazyLock<AhoCorasick> = LazyLock::new(|| {
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(["<noscript"])
            .expect("one short pattern builds a matcher")
    });
    let dom = Dom::from(html);
    if NOSCRIPT.is_match(html) {
        let notices = dom.select_matcher(css!("body noscript"));
        if text::prose_words(&notices.formatted_text()) >= SERVED_ARTICLE_WORDS
            && !text::article(&shown_text(&Dom::from(html)))
        {
            notices.rename("div");
        }
    }
    dom
}

/// The text a DOM shows once what a reader never sees is gone.
fn shown_text(dom: &Dom) -> String {
    remove_hidden(dom);
    visible_text(dom)
}

fn visible_text(dom: &Dom) -> String {
    let body = dom.select_matcher(css!("body"));
    let text = if body.exists() {
        body.formatted_text()
    } else {
        dom.formatted_text()
    };
    text.to_string()
}

/// Removes from a rendered body's DOM the text the browser did not show, so that the
/// extractor picks the core among what a reader sees. The DOM still holds what a
/// stylesheet hides (keyword stuffing in a block of zero height, an inactive tab), and
/// such text can draw the extractor away from the article or into its core. A text node
/// counts as shown when most of its word shingles are among the visible text's: its
/// 4-word shingles (`shingles`, as [`text::shingles`] makes them), or word pairs for a
/// node of two or three words (stuffing is often short lines of keywords). One word
/// alone cannot be told apart, and is kept.
fn remove_unseen(dom: &Dom, words: &[u32], shingles: &[u64]) {
    let pairs = text::word_shingles(words, 2);
    let unseen: Vec<_> = dom
        .root()
        .descendants_it()
        .filter(|node| node.is_text())
        .filter(|node| {
            let ids = text::word_ids(&node.text());
            let (own, seen): (Vec<u64>, &[u64]) = match ids.len() {
                0 | 1 => return false,
                n if n < text::SHINGLE_WORDS => (text::word_shingles(&ids, 2), &pairs),
                _ => (text::shingles(&ids), shingles),
            };
            let shown = own.iter().filter(|h| seen.binary_search(h).is_ok()).count();
            2 * shown < own.len()
        })
        .collect();
    for node in unseen {
        node.remove_from_parent();
    }
}

fn top_word_share(words: &[String]) -> f64 {
    let long: Vec<u32> = words
        .iter()
        .filter(|w| w.chars().count() >= 4)
        .map(|w| text::word_id(w))
        .collect();
    let top = text::frequencies(&long)
        .iter()
        .map(|&(_, c)| c as usize)
        .max()
        .unwrap_or(0);
    share(top, words.len())
}

/// Deflate length of `bytes` (raw deflate, level 6). Each thread keeps one compressor
/// and resets it: a new one allocates and zeroes over 200 KB of tables, a third of the
/// cost of compressing a page's core. It is miniz_oxide's, called directly: flate2,
/// which reads gzip bodies, runs on zlib-rs (faster inflating), whose deflate writes
/// other lengths, and this attribute must not move with the backend that reads bodies.
fn deflate_len(bytes: &[u8]) -> usize {
    use miniz_oxide::deflate::core::CompressorOxide;
    use miniz_oxide::deflate::stream::deflate;
    use miniz_oxide::{DataFormat, MZError, MZFlush};
    thread_local! {
        static COMPRESSOR: std::cell::RefCell<Box<CompressorOxide>> = std::cell::RefCell::new({
            let mut compressor = Box::<CompressorOxide>::default();
            compressor.set_format_and_level(DataFormat::Raw, DEFLATE_LEVEL);
            compressor
        });
    }
    let mut out = vec![0u8; bytes.len() + bytes.len() / 1000 + 64];
    COMPRESSOR.with_borrow_mut(|compressor| {
        compressor.reset();
        let result = deflate(compressor, bytes, &mut out, MZFlush::Finish);
        match result.status {
            Ok(_) | Err(MZError::Buf) => result.bytes_written,
            Err(_) => bytes.len(),
        }
    })
}

/// zlib's default level, which the compressed-length attribute was measured with.
const DEFLATE_LEVEL: u8 = 6;

fn language(core: &str) -> Option<&'static str> {
    let sample: String = core.chars().take(2000).collect();
    whatlang::detect(&sample).map(|info| info.lang().code())
}

#[cfg(test)]
impl Document {
    /// The document of a fetched body written in a test.
    pub fn from_html(html: &str) -> Document {
        let body = super::decode::decode_bytes(html.as_bytes(), html.len(), false);
        Document::from_body(&body, IdfTable::shipped())
    }

    /// The document of a rendered body written in a test: its DOM, and the text the
    /// browser showed of it.
    pub fn rendered_from_html(html: &str, seen: &str) -> Document {
        let body = super::decode::decode_unicode(html);
        Document::from_rendered(
            &body,
            seen,
            RenderedAttributes::default(),
            IdfTable::shipped(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::decode::decode_bytes;

    #[test]
    fn the_compressed_length_is_miniz_oxides_level_6_whatever_reads_the_bodies() {
        // The shipped models learnt `compressed_length_ratio` from miniz_oxide's lengths;
        // zlib's deflate (flate2's zlib-rs backend) writes other ones.
        let text = "The same core content behind different navigation, ads and titles. ".repeat(40);
        // 82 bytes, where zlib's deflate writes 93.
        assert_eq!(deflate_len(text.as_bytes()), 82);
        assert_eq!(deflate_len(b""), 2);
    }

    #[test]
    fn a_script_that_hides_elements_is_noticed() {
        let page = |script: &str| {
            Document::from_html(&format!(
                "<html><body><p>An article.</p><script>{script}</script></body></html>"
            ))
            .hides_by_script
        };
        assert!(page(
            "document.addEventListener('DOMContentLoaded',function(){e.style.display='none'})"
        ));
        assert!(page("box.style.visibility = \"hidden\";"));
        assert!(!page("if (box.style.display == 'none') { show(box) }"));
        assert!(!page("box.style.display = 'block';"));
        assert!(!Document::from_html("<p>style.display='none'</p>").hides_by_script);
    }

    #[test]
    fn pages_built_by_script_are_told_apart() {
        let words = "word ".repeat(80);
        let shell = Document::from_html(
            "<html><body><div id=root></div><script src=app.js></script></body></html>",
        );
        assert!(shell.script_built());
        let asks = Document::from_html(&format!(
            "<html><body><noscript>You need to enable JavaScript.</noscript><p>{words}</p>\
             <script>init()</script></body></html>"
        ));
        assert!(asks.script_built());
        // The same notice above a whole article (motorsport-total.com's) is boilerplate.
        let sentences = "A sentence of the article that a reader came here for. ".repeat(16);
        let serves = Document::from_html(&format!(
            "<html><body><noscript>You need to enable JavaScript.</noscript>\
             <p>{sentences}</p><script>init()</script></body></html>"
        ));
        assert!(!serves.script_built());
        // A skeleton announced as loading, beside a menu of more words than a shell has.
        let skeleton = Document::from_html(&format!(
            "<html><body><nav>{words}</nav><div id=article-root aria-busy=true>\
             <span>Loading content</span></div><script src=app.js></script></body></html>"
        ));
        assert!(skeleton.script_built());
        let article = Document::from_html(&format!(
            "<html><body><p>{words}</p><noscript><img src=pixel.gif></noscript>\
             <script>track()</script></body></html>"
        ));
        assert!(!article.script_built());
        assert!(
            !Document::from_html("<html><body><p>Short, no script.</p></body></html>")
                .script_built()
        );
    }

    #[test]
    fn an_article_written_only_inside_noscript_is_read() {
        let sentences: String = (0..16)
            .map(|i| format!("Sentence {i} of the article that a reader came here for. "))
            .collect();
        let html = |own: &str| {
            format!(
                "<html><head><noscript><img src=pixel.gif></noscript></head><body>\
                 <nav>Home News</nav>{own}<noscript><h1>The post</h1><p>{sentences}</p>\
                 </noscript><script>render()</script></body></html>"
            )
        };
        let page = |own: &str| Document::from_html(&html(own));
        // Shown nowhere else, the article is the page's, as a copy of it shows it.
        let only_there = page("");
        assert!(only_there.visible_text.contains("The post"));
        assert!(only_there.core_text.contains("a reader came here for"));
        assert!(!only_there.script_built());
        let copy = Document::from_html(&format!(
            "<html><body><h1>The post</h1><p>{sentences}</p></body></html>"
        ));
        let shared = crate::signals::distance::core_in_other(&only_there, &copy);
        assert!(shared.is_some_and(|c| c >= 0.9), "{shared:?}");
        // Candidate generation reads it too.
        let read = read_page(&decode::decode_unicode(&html("")), true, false);
        assert!(read.visible.contains("a reader came here for"));
        assert!(read
            .core
            .is_some_and(|core| core.contains("a reader came here for")));
        // A <noscript> that opens an element it never closes holds the rest of the page
        // to a parser without scripts; a browser with scripts shows the page.
        let unclosed = Document::from_html(&format!(
            "<html><body><noscript><div id=nojava></noscript><div id=main><h1>The post</h1>\
             <p>{sentences}</p></div><script>init()</script></body></html>"
        ));
        assert!(unclosed.core_text.contains("a reader came here for"));
        // One inside another is read once.
        let nested = Document::from_html(&format!(
            "<html><body><noscript><noscript><p>{sentences}</p></noscript></noscript></body></html>"
        ));
        assert_eq!(nested.visible_text.matches("Sentence 3 of").count(), 1);
        // A page that shows its own article keeps its <noscript> unread.
        let own = format!(
            "<article><p>{}</p></article>",
            "Its own words, as it writes them. ".repeat(12)
        );
        assert!(!page(&own).visible_text.contains("The post"));
        // Nor is a long <noscript> of images or a notice read as text.
        let gallery = Document::from_html(&format!(
            "<html><body><p>Photos</p><noscript>{}</noscript><script>lazy()</script></body></html>",
            "<img src=photo.jpg alt='a photo'>".repeat(40)
        ));
        assert!(!gallery.visible_text.contains("photo"));
    }

    #[test]
    fn attributes_of_a_small_page() {
        let d = Document::from_html(
            "<html><head><title> The  Title </title><script>var x = 'no';</script></head>\
             <body><nav><a href='/home'>Home</a> <a href='https://other.example.org/x'>Out</a></nav>\
             <p>Hello world, this is the text.</p><img src='a.png'><img src='b.png'>\
             <div style='display:none'>stuffed stuffed</div></body></html>",
        );
        assert_eq!(d.title, "The Title");
        assert_eq!(d.link_count, 2);
        assert_eq!(d.link_domains.len(), 1);
        assert_eq!(d.image_count, 2);
        assert!(d.visible_text.contains("Hello world"));
        assert!(!d.visible_text.contains("var x"));
        assert!(!d.visible_text.contains("stuffed"));
        // "stuffed stuffed" = 14 visible chars hidden; visible text is longer.
        assert!(d.spam.hidden_text_share > 0.0 && d.spam.hidden_text_share < 0.5);
        assert!(!d.core_text.is_empty());
    }

    #[test]
    fn a_rendered_core_is_what_the_browser_shows() {
        let article = "Silvio Berlusconi's trial in Milan can go on, the constitutional court \
            in Rome ruled on Tuesday, rejecting the chamber's request. "
            .repeat(6);
        // Stuffing hidden by a stylesheet: short lines of keywords in a block of no height.
        let stuffing = "<br>trial court trial<br>rome milan chamber<br>court court rome".repeat(40);
        let html = format!(
            "<style>.k{{height:0;overflow:hidden}}</style><body><article><p>{article}</p>\
             </article><div class=k>{stuffing}</div></body>"
        );
        let rendered = Document::rendered_from_html(&html, &article);
        assert!(!rendered.core_text.contains("court court"));
        assert!(rendered.core_text.contains("constitutional court"));
        // The fetched body cannot know what the stylesheet hides.
        assert!(Document::from_html(&html)
            .visible_text
            .contains("court court rome"));
        // What the page keeps out of view still counts as written.
        assert!(rendered.written_shingles().len() > rendered.visible_shingles.len());
    }

    #[test]
    fn a_render_its_scripts_never_showed_is_read_from_its_dom() {
        let article = "The investigator said that most of the stolen cars he traced were \
            held by officials, and that he had not shown all of the material he gathered. "
            .repeat(6);
        // A stylesheet hides the page until a script shows it; offline, none did.
        let html = format!(
            "<style>body{{visibility:hidden}}</style><body><p>Tuesday, 18 November</p>\
             <article><p>{article}</p></article></body>"
        );
        let stalled = Document::rendered_from_html(&html, "Tuesday, 18 November");
        assert!(stalled.core_text.contains("stolen cars"));
        assert!(stalled.dom_shingles.is_none());
        // A render that shows the article is read as the browser showed it.
        let shown = Document::rendered_from_html(&html, &article);
        assert!(!shown.visible_text.contains("Tuesday"));
        assert!(shown.dom_shingles.is_some());
        // A shell its script never filled writes little more than it shows.
        let shell = Document::rendered_from_html(
            "<body><div id=app>Loading…</div><script src=app.js></script></body>",
            "Loading…",
        );
        assert!(shell.dom_shingles.is_some());
    }

    #[test]
    fn a_core_is_the_phrases_its_page_writes() {
        // Captions the core leaves out: the phrases that span one in the core ("every
        // winter. The two") are written nowhere, and would make the page hold less than
        // its own core.
        let paragraph = |n: &str| {
            format!(
                "<p>The {n} paragraph tells how the river turned the wheel of the old \
                 mill, and how the miller kept the stones dressed through every winter.</p>\
                 <figure><img src={n}.jpg><figcaption>Photo {n}</figcaption></figure>"
            )
        };
        let paragraphs: String = ["one", "two", "three", "four"].map(paragraph).concat();
        let d = Document::from_html(&format!("<body><article>{paragraphs}</article></body>"));
        assert!(!d.core_text.contains("Photo"));
        let all = text::shingles(&d.core_words);
        assert!(d.core_shingles.len() < all.len());
        assert!(d
            .core_shingles
            .iter()
            .all(|h| d.visible_shingles.binary_search(h).is_ok()));
        // A core shorter than a shingle keeps its one shingle, which no longer text writes.
        let three_words = [7, 8, 9];
        assert_eq!(
            core_shingles(&three_words, &d.visible_shingles),
            text::shingles(&three_words)
        );
    }

    #[test]
    fn what_aria_hidden_holds_is_read() {
        // An icon left open: the parser reopens `<i aria-hidden>` in every block after it,
        // so the article sits inside it, as it does in the browser, which shows it.
        let article = "<p>Spring cleaning means a deep clean of your home, and of your \
            brand's digital marketing strategies too, from the bio to the highlights.</p>"
            .repeat(8);
        let html = format!(
            "<body><nav><a href=/>Home</a><i class=icon aria-hidden=true></nav>\
             <article>{article}</article></body>"
        );
        let d = Document::from_html(&html);
        assert!(d.visible_text.contains("deep clean of your home"));
        assert!(d.core_text.contains("deep clean of your home"));
    }

    #[test]
    fn furigana_is_not_read_into_the_words() {
        let html = "<p><ruby>子<rp>(</rp><rt>こ</rt><rp>)</rp></ruby>どもへの\
                    <ruby>虐待<rt>ぎゃくたい</rt></ruby>をなくすための法律</p>";
        let d = Document::from_html(html);
        assert_eq!(d.visible_text.trim(), "子どもへの虐待をなくすための法律");
        assert_eq!(d.spam.hidden_text_share, 0.0);
    }

    #[test]
    fn keyword_stuffing_raises_top_word_share() {
        let clean =
            Document::from_html("<p>A short honest page about garden tools and their care.</p>");
        let stuffed =
            Document::from_html("<p>cheap cheap cheap cheap cheap cheap tools cheap cheap</p>");
        assert!(stuffed.spam.top_word_share > 0.7);
        assert!(clean.spam.top_word_share < 0.2);
    }

    #[test]
    fn empty_and_binary_bodies_have_empty_attributes() {
        let d = Document::from_html("");
        assert!(d.visible_text.is_empty() && d.core_words.is_empty());
        let body = decode_bytes(&[0, 1, 2, 3, 0, 0], 6, false);
        let d = Document::from_body(&body, IdfTable::shipped());
        assert!(d.binary && d.core_text.is_empty());
    }

    /// A page whose long words carry soft hyphens, as a character or as a reference, and
    /// a copy of it without them read as the same words, served or rendered.
    #[test]
    fn soft_hyphens_are_no_part_of_a_word() {
        let page = |word: &str| {
            format!(
                "<html><head><title>{word}</title></head><body><article><p>Im {word} \
                 lagen die Weinberge oberhalb der Stadt, und der {word} war weit bekannt \
                 für seine Weine, die nach Norden gingen.</p></article></body></html>"
            )
        };
        let plain = Document::from_html(&page("Mittelalter"));
        for hyphenated in [
            "Mit&shy;tel&shy;al&shy;ter",
            "Mit\u{ad}tel\u{ad}alter",
            "Mittel&#173;al&#xAD;ter",
        ] {
            let copy = Document::from_html(&page(hyphenated));
            assert_eq!(
                (&copy.title, &copy.core_words, &copy.visible_vocabulary),
                (&plain.title, &plain.core_words, &plain.visible_vocabulary),
                "{hyphenated}"
            );
        }
        let seen = "Im Mit\u{ad}tel\u{ad}alter lagen";
        let rendered = Document::rendered_from_html(&page("Mit\u{ad}tel\u{ad}alter"), seen);
        assert!(rendered
            .visible_vocabulary
            .iter()
            .all(|w| plain.visible_vocabulary.binary_search(w).is_ok()));
    }

    /// A page that writes its accents apart from their letters (`e` then U+0301, as
    /// text pasted from a Mac does) and a copy that writes them whole read as the same
    /// words and numbers, served or rendered.
    #[test]
    fn accents_written_apart_are_the_same_letters() {
        let page = |created: &str, ninth: &str| {
            format!(
                "<html><head><title>Le chœur {created} en 1947</title></head><body><article>\
                 <p>{created} en 1947, le chœur joue la {ninth} symphonie de Beethoven chaque \
                 été, et la 2ème de Mahler depuis plus de 72 ans.</p></article></body></html>"
            )
        };
        let whole = Document::from_html(&page("Créé", "9ème"));
        let apart = Document::from_html(&page("Cre\u{301}e\u{301}", "9e\u{300}me"));
        assert_eq!(
            (&apart.title, &apart.core_words, &apart.core_number_places),
            (&whole.title, &whole.core_words, &whole.core_number_places)
        );
        let seen = "Cre\u{301}e\u{301} en 1947, le chœur joue la 9e\u{300}me symphonie";
        let rendered = Document::rendered_from_html(&page("Créé", "9ème"), seen);
        assert!(rendered
            .visible_vocabulary
            .iter()
            .all(|w| whole.visible_vocabulary.binary_search(w).is_ok()));
    }
}
