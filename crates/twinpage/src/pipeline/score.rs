//! Scoring: the screen, the signal vector and the model's decision for every
//! pair of a batch, on all cores.
//!
//! Screening (step 7 of the method) decides a pair before the full suite when a
//! cheap test settles it: byte-identical fetched bodies are duplicates.

use super::batch::Batch;
use super::schedule::map_heaviest_first;
use crate::distance::{jaccard_distance, kept_and_replaced};
use crate::document::text::{article, number_set, words};
use crate::document::url;
use crate::document::{wall, Document, Pair, SCRAP_CORE_WORDS};
use crate::model::{Decision, Judgement, Model, Thresholds, EVEN_CUT};
use crate::signals::{self, distance, Layout, PairBodies};
use twinpage_util::Progress;

/// What the model made of one pair.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub p_duplicate: f64,
    /// How much a forest's trees disagree on the pair (0 for a single tree).
    pub spread: f64,
    pub decision: Decision,
    /// Where the judging model labels a pair duplicate when it must be labelled
    /// (`Thresholds::f1_cut`; the reader's for a record pair judged by the mean).
    pub f1_cut: f64,
    /// `model`, or the screening test that decided the pair before the full suite.
    pub decided_by: &'static str,
    /// The larger share of one side's core content found in the other's text, on
    /// the fetched or the rendered bodies (`core_in_other`): how much of one page's
    /// main text the other holds. `None` when neither body has core content.
    pub core_in_other: Option<f64>,
    pub vector: Option<Vec<f64>>,
}

impl Outcome {
    /// Confidence in the decision taken: p for duplicate, 1 - p for distinct, and
    /// for review the larger of the two.
    pub fn confidence(&self) -> f64 {
        match self.decision {
            Decision::Duplicate => self.p_duplicate,
            Decision::Distinct => 1.0 - self.p_duplicate,
            Decision::Review => self.p_duplicate.max(1.0 - self.p_duplicate),
        }
    }
}

/// The signal vectors of the pairs the model judged (screened and unreadable pairs
/// have none).
pub fn scored_vectors(outcomes: &[Option<Outcome>]) -> impl Iterator<Item = &[f64]> {
    outcomes
        .iter()
        .flatten()
        .filter_map(|o| o.vector.as_deref())
}

/// `decided_by` of a pair the model decided.
pub const DECIDED_MODEL: &str = "model";

/// Name of the screening test that decides byte-identical bodies.
pub const SCREEN_IDENTICAL: &str = "screen:identical-bodies";

/// Scores every pair on all cores. `None` for a pair whose documents are missing.
pub fn score(batch: &Batch, model: &Model) -> Vec<Option<Outcome>> {
    let pairs: Vec<&Pair> = batch.pairs().collect();
    let progress = Progress::new(pairs.len(), "scoring pairs");
    let outcomes = map_heaviest_first(
        pairs,
        |pair| batch.documents.weight(pair),
        |pair| {
            let outcome = outcome(batch, pair, model);
            progress.inc();
            outcome
        },
    );
    progress.finish();
    outcomes
}

/// What the model makes of one pair of the batch; `None` when its documents are missing.
pub fn outcome(batch: &Batch, pair: &Pair, model: &Model) -> Option<Outcome> {
    let bodies = batch.documents.bodies(pair).ok()?;
    let (a, b) = bodies.fetched;
    if screened(a, b) {
        let screen = Outcome {
            p_duplicate: 1.0,
            spread: 0.0,
            decision: Decision::Duplicate,
            f1_cut: EVEN_CUT,
            decided_by: SCREEN_IDENTICAL,
            core_in_other: Some(1.0),
            vector: None,
        };
        return Some(Guards::of(pair, &bodies, screen.core_in_other).hold(screen));
    }
    let vector = signals::vector(pair, &bodies);
    let (judgement, thresholds) = model.judge_pair(&vector, &bodies);
    let core_in_other = core_in_other(&bodies);
    let guarded = Guards::of(pair, &bodies, core_in_other).judge(judgement, thresholds);
    Some(Outcome {
        p_duplicate: guarded.judgement.p_duplicate,
        spread: judgement.spread,
        decision: guarded.decision,
        f1_cut: thresholds.f1_cut,
        decided_by: guarded.guard.unwrap_or(DECIDED_MODEL),
        core_in_other,
        vector: Some(vector),
    })
}

/// `decided_by` of a pair whose sides each carry a core the other does not hold: a
/// duplicate call sent to review, a pair the model left open decided distinct.
pub const CORES_NOT_SHARED: &str = "guard:cores-not-shared";

/// Pages that hold less than this share of each other's core content
/// ([`Outcome::core_in_other`]) do not share it: pages 1 and 2 of one article hold
/// 0.00–0.37 of each other's core on the web test split, every duplicate 0.58 or more.
pub const CORE_SHARED_BELOW: f64 = 0.5;

/// Whether neither page holds [`CORE_SHARED_BELOW`] of the other's core (unknown
/// when neither has core content: then not).
pub fn cores_apart(core_in_other: Option<f64>) -> bool {
    core_in_other.is_some_and(|c| c < CORE_SHARED_BELOW)
}

/// Whether a guard, not the model, gave the pair its decision: both sides show a wall,
/// neither holds the other's core, or nothing but the model tells them apart. Such a
/// pair left to review is never joined as a duplicate; in the cascade, such a pair
/// decided on fetched bodies goes on to rendering when they may hide what tells it
/// apart.
pub fn guarded(decided_by: &str) -> bool {
    decided_by.starts_with(wall::WALL_PREFIX) || [CORES_NOT_SHARED, SAME_TEXT].contains(&decided_by)
}

/// A side's core content of at least this many words is one of its own.
const OWN_CORE_WORDS: usize = 50;

/// Whether a side carries a core of its own: text of the page's, not a placeholder a
/// script replaces nor a scrap the extractor settled for. A core of
/// [`SCRAP_CORE_WORDS`] or more is one when the page serves it rather than a script
/// building it ([`Document::script_built`]): a blog post of two sentences beside a long
/// sidebar.
fn own_core(d: &Document) -> bool {
    let words = d.core_words.len();
    words >= OWN_CORE_WORDS || (words >= SCRAP_CORE_WORDS && !d.script_built())
}

/// `decided_by` of a distinct call held for review because nothing but the model tells
/// the two pages apart (`Guards::same_text`).
pub const SAME_TEXT: &str = "guard:same-text";

/// Jaccard distance of two visible vocabularies under which two pages show the same
/// words.
const SAME_WORDS: f64 = 0.15;

/// Share of a side's core the other page writes when it writes the whole core (a word
/// or two of a long core may differ: a typo fixed, a counter moved).
const WHOLE_CORE: f64 = 0.99;

/// Whether two pages show the same words, one writes the other's whole core, and no
/// number or name is written otherwise in the same place of both cores: nothing a
/// reader could point at tells them apart. Pages whose figures or people changed
/// replace them in place; two readings of one page by the extractor (one post of a
/// forum thread against the whole thread, a whole page against its article) do not.
fn same_text(a: &Document, b: &Document) -> bool {
    jaccard_distance(&a.visible_vocabulary, &b.visible_vocabulary) <= SAME_WORDS
        && kept_and_replaced(&a.core_number_places, &b.core_number_places).1 == 0
        && kept_and_replaced(&a.core_name_places, &b.core_name_places).1 == 0
        && distance::core_in_other(a, b).is_some_and(|c| c >= WHOLE_CORE)
}

/// Whether two pages of the same text ([`same_text`]) are one page at two addresses:
/// the same figures written anywhere on them (a product's sheet and its sibling's may
/// differ only in figures the extractor left out of the core), and each side an
/// article its body serves, not one a script builds ([`Document::script_built`]).
fn same_page(a: &Document, b: &Document) -> bool {
    [a, b]
        .iter()
        .all(|d| !d.script_built() && article(&d.core_text))
        && shown_numbers(a) == shown_numbers(b)
}

/// Whether neither page is built by script ([`Document::script_built`]: two shells of
/// one app serve the same chrome, footer prose and all, whatever page the script fills
/// in) and they show the very same words ([`shown_alike`]).
fn served_alike(a: &Document, b: &Document) -> bool {
    [a, b].iter().all(|d| !d.script_built()) && shown_alike(a, b)
}

/// Whether two pages show the same title and the same words in the same order, an
/// article among them wherever the extractor looked. A page served again for another
/// visitor (another session id in its links) or minified is such a copy, whatever its
/// core: a short post, a paywall's teaser, a list of links the extractor passed over.
/// Of the web and fresh pairs whose visible texts are the same (both text distances 0),
/// the 108 not built by script are all duplicates, and the 300 distinct ones all app
/// shells.
fn shown_alike(a: &Document, b: &Document) -> bool {
    a.title == b.title && a.visible_words == b.visible_words && article(&a.visible_text)
}

/// The numbers of a side's visible text (read only for the few pairs of one text).
fn shown_numbers(d: &Document) -> Vec<u64> {
    number_set(&words(&d.visible_text).collect::<Vec<_>>())
}

/// What the guards see in a pair's bodies, whatever a model makes of it: pages
/// called duplicates share their core content, and a wall is not content. The sides
/// are the bodies the decision rests on: rendered when there are. The default holds
/// nothing back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Guards {
    /// Each side carries a core of its own ([`own_core`]) and neither holds
    /// half the other's ([`cores_apart`]); record pages of two sites never are (two
    /// shops describe one product in words of their own, where one site describes it
    /// once: a short article's pages 1 and 2 read as records are apart).
    pub(crate) cores_apart: bool,
    /// Each side carries a core of its own and nothing but the model tells the two
    /// pages apart ([`same_text`]); two shells of one app, which show the same
    /// placeholder whatever page they are, never are.
    pub(crate) same_text: bool,
    /// The pages are one page at two addresses: served alike, or of the same text
    /// ([`same_page`]).
    pub(crate) same_page: bool,
    /// The pages, served rather than built by script, show the very same words
    /// ([`served_alike`]): one page at two addresses whatever a model makes of them.
    pub(crate) served_alike: bool,
    /// The wall both sides show (see `document::wall`), if they do.
    pub(crate) wall: Option<wall::Wall>,
}

impl Guards {
    /// The guards of `pair`, whose bodies are `bodies`.
    pub fn on(pair: &Pair, bodies: &PairBodies) -> Guards {
        Guards::of(pair, bodies, core_in_other(bodies))
    }

    /// The guards of `pair`, whose [`Outcome::core_in_other`] is known already.
    fn of(pair: &Pair, bodies: &PairBodies, core_in_other: Option<f64>) -> Guards {
        let (fa, fb) = bodies.fetched;
        let (a, b) = bodies.rendered.unwrap_or(bodies.fetched);
        let own_cores = own_core(a) && own_core(b);
        let shops = (fa.record.is_some() || fb.record.is_some()) && !one_site(pair);
        let same_text = own_cores && same_text(a, b);
        let served_alike = served_alike(a, b);
        Guards {
            cores_apart: own_cores && cores_apart(core_in_other) && !shops,
            same_text,
            same_page: served_alike || same_text && same_page(a, b),
            served_alike,
            wall: wall::shared(a, b),
        }
    }

    /// The decision the guards leave of `decision`, and the guard that changed it
    /// (`None` when none did). A pair both of whose sides show a wall, or nothing, is
    /// never a duplicate on that strength: it goes to review, and so does one the
    /// model sent there already, so that no clustering joins it on a high p (two
    /// shells of one app score p 0.85 and up). A duplicate call on cores apart goes
    /// to review, and so does a distinct call on pages of the same text.
    pub fn route(self, decision: Decision) -> (Decision, Option<&'static str>) {
        match (decision, self.wall) {
            (Decision::Distinct, _) if self.same_text => (Decision::Review, Some(SAME_TEXT)),
            (Decision::Distinct, _) => (decision, None),
            (_, Some(wall)) => (Decision::Review, Some(wall.decided_by())),
            (Decision::Duplicate, None) if self.cores_apart => {
                (Decision::Review, Some(CORES_NOT_SHARED))
            }
            _ => (decision, None),
        }
    }

    /// What the guards leave of `judgement` routed by `thresholds`: as
    /// [`Guards::route`], and a pair the model leaves open (review) whose cores are
    /// apart is decided distinct, its p at most the model's distinct threshold.
    /// Duplicates share their cores (4 of the 3,170 duplicates of the web and fresh
    /// pairs do not: copies whose extraction failed), while a model that never saw
    /// pages 1 and 2 of one article leaves them open. An open pair of one page at two
    /// addresses (`same_page`) is decided duplicate, its p at least the model's
    /// duplicate threshold: generated duplicates always change a page, while two shells
    /// of one app (`app-shell`) and a product's sibling sheet show one text, so that a
    /// model trained on them leaves open a page and its copy that differs in a link.
    /// So is a pair called distinct whose pages are served alike
    /// (`served_alike`): a model that learnt from 108 pairs of app shells that two short
    /// pages of one text are distinct calls a blog post served again distinct at p
    /// 0.03, where no two served pages of the web and fresh pairs that show the very
    /// same words are. A model that decides nothing on a side has the guard decide
    /// nothing there either.
    pub fn judge(self, judgement: Judgement, thresholds: &Thresholds) -> Guarded {
        let decision = thresholds.route(judgement);
        let unwalled = self.wall.is_none();
        let open = decision == Decision::Review && unwalled;
        if open && self.cores_apart && thresholds.distinct > 0.0 {
            return decided(
                judgement,
                Decision::Distinct,
                thresholds.distinct,
                CORES_NOT_SHARED,
            );
        }
        let called_apart = decision == Decision::Distinct && unwalled && self.served_alike;
        if (open && self.same_page || called_apart) && thresholds.duplicate < 1.0 {
            return decided(
                judgement,
                Decision::Duplicate,
                thresholds.duplicate,
                SAME_TEXT,
            );
        }
        let (decision, guard) = self.route(decision);
        Guarded {
            judgement,
            decision,
            guard,
        }
    }

    /// `outcome` as the guards leave it, `decided_by` naming the guard that held it.
    fn hold(self, outcome: Outcome) -> Outcome {
        match self.route(outcome.decision) {
            (decision, Some(guard)) => Outcome {
                decision,
                decided_by: guard,
                ..outcome
            },
            (_, None) => outcome,
        }
    }
}

/// A `judgement` decided by `guard`: its p moved to the model's `threshold` of
/// that `decision`, if it was not beyond it already.
fn decided(
    judgement: Judgement,
    decision: Decision,
    threshold: f64,
    guard: &'static str,
) -> Guarded {
    let p_duplicate = match decision {
        Decision::Duplicate => judgement.p_duplicate.max(threshold),
        _ => judgement.p_duplicate.min(threshold),
    };
    Guarded {
        judgement: Judgement {
            p_duplicate,
            ..judgement
        },
        decision,
        guard: Some(guard),
    }
}

/// A model's judgement of a pair as its [`Guards`] leave it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Guarded {
    pub judgement: Judgement,
    pub decision: Decision,
    /// The guard that changed the decision, if one did.
    pub guard: Option<&'static str>,
}

/// Whether both pages of `pair` are on one known host.
fn one_site(pair: &Pair) -> bool {
    let a = url::host(&pair.a.url);
    !a.is_empty() && a == url::host(&pair.b.url)
}

/// [`Outcome::core_in_other`]: the larger of the fetched and the rendered bodies'.
fn core_in_other(bodies: &PairBodies) -> Option<f64> {
    let (fa, fb) = bodies.fetched;
    let fetched = distance::core_in_other(fa, fb);
    let rendered = bodies
        .rendered
        .and_then(|(ra, rb)| distance::core_in_other(ra, rb));
    [fetched, rendered].into_iter().flatten().reduce(f64::max)
}

/// Whether the screen decides a pair before its signals: byte-identical fetched
/// bodies (not binary ones, which hold no text to compare) are duplicates.
pub fn screened(a: &Document, b: &Document) -> bool {
    a.body_hash == b.body_hash && !a.binary
}

/// Signal vectors of every pair (no screening: every test runs), on all cores.
pub fn vectors(batch: &Batch) -> Vec<Option<Vec<f64>>> {
    vectors_in(batch, batch.layout())
}

/// [`vectors`] in `layout`: a batch read with its rendered bodies also gives the
/// fetched-only vectors, from the same parsed documents.
pub fn vectors_in(batch: &Batch, layout: Layout) -> Vec<Option<Vec<f64>>> {
    let pairs: Vec<&Pair> = batch.pairs().collect();
    let progress = Progress::new(pairs.len(), "computing signals");
    let out = map_heaviest_first(
        pairs,
        |pair| batch.documents.weight(pair),
        |pair| {
            let v = batch
                .documents
                .bodies(pair)
                .ok()
                .map(|bodies| match layout {
                    Layout::Fetched => PairBodies {
                        rendered: None,
                        ..bodies
                    },
                    Layout::FetchedAndRendered => bodies,
                })
                .map(|bodies| signals::vector(pair, &bodies));
            progress.inc();
            v
        },
    );
    progress.finish();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::pairs::Metadata;
    use crate::signals::testing;

    /// A pair of pages at `url_a` and `url_b`.
    fn at(url_a: &str, url_b: &str) -> Pair {
        let mut pair = testing::pair(Metadata::default(), Metadata::default());
        (pair.a.url, pair.b.url) = (url_a.into(), url_b.into());
        pair
    }

    fn two_sites() -> Pair {
        at(
            "https://shop-one.example/p/1",
            "https://shop-two.example/item/9",
        )
    }

    /// An article page of `words` words, numbered from `from`.
    fn article_page(from: usize, words: usize) -> Document {
        let text: Vec<String> = (from..from + words).map(|i| format!("word{i}")).collect();
        Document::from_html(&format!(
            "<html><body><nav>Home News Sport</nav><article><h1>A story</h1><p>{}</p></article></body></html>",
            text.join(" ")
        ))
    }

    fn called_duplicate(pair: &Pair, bodies: &PairBodies) -> Outcome {
        called(pair, bodies, Decision::Duplicate, 0.9)
    }

    /// The model's `decision` at `p_duplicate` on `pair`'s `bodies`, as the guards
    /// leave it.
    fn called(pair: &Pair, bodies: &PairBodies, decision: Decision, p_duplicate: f64) -> Outcome {
        let outcome = Outcome {
            p_duplicate,
            spread: 0.1,
            decision,
            f1_cut: EVEN_CUT,
            decided_by: DECIDED_MODEL,
            core_in_other: core_in_other(bodies),
            vector: None,
        };
        Guards::of(pair, bodies, outcome.core_in_other).hold(outcome)
    }

    #[test]
    fn a_duplicate_call_on_cores_neither_side_holds_goes_to_review() {
        let (page_one, page_two) = (article_page(0, 400), article_page(400, 400));
        let parts = PairBodies {
            fetched: (&page_one, &page_two),
            rendered: None,
        };
        let held = called_duplicate(&two_sites(), &parts);
        assert_eq!(
            (held.decision, held.decided_by),
            (Decision::Review, CORES_NOT_SHARED)
        );
        // A copy holding most of the other's core stays a duplicate.
        let copy = article_page(20, 400);
        let copies = PairBodies {
            fetched: (&page_one, &copy),
            rendered: None,
        };
        assert_eq!(
            called_duplicate(&two_sites(), &copies).decision,
            Decision::Duplicate
        );
        // Short pages are read as records: of two sites they stay duplicates (two
        // shops describe one product in words of their own), of one site they are
        // apart (a short article's pages 1 and 2).
        let (short_one, short_two) = (article_page(0, 120), article_page(120, 120));
        assert!(short_one.record.is_some() && short_two.record.is_some());
        let short = PairBodies {
            fetched: (&short_one, &short_two),
            rendered: None,
        };
        assert_eq!(
            called_duplicate(&two_sites(), &short).decision,
            Decision::Duplicate
        );
        let one_site = at(
            "https://news.example/story",
            "https://news.example/story?page=2",
        );
        assert_eq!(
            called_duplicate(&one_site, &short).decided_by,
            CORES_NOT_SHARED
        );
        // Ids in the URL columns name no site: left to the model.
        assert_eq!(
            called_duplicate(&at("row-17", "row-17"), &short).decision,
            Decision::Duplicate
        );
    }

    /// A distinct call on two pages that show the same text, one holding the other's
    /// whole core with no figure replaced in place, goes to review; pages whose
    /// figure changed stay distinct.
    #[test]
    fn a_distinct_call_on_the_same_text_goes_to_review() {
        let story = |figure: &str| {
            let words: Vec<String> = (0..400).map(|i| format!("word{i}")).collect();
            Document::from_html(&format!(
                "<html><body><nav>Home News</nav><article><h1>A story</h1>\
                 <p>{} sales rose {figure} percent</p></article></body></html>",
                words.join(" ")
            ))
        };
        let (page, copy, changed) = (story("12"), story("12"), story("15"));
        let distinct = |b: &Document| {
            let bodies = PairBodies {
                fetched: (&page, b),
                rendered: None,
            };
            called(&two_sites(), &bodies, Decision::Distinct, 0.1)
        };
        let held = distinct(&copy);
        assert_eq!(
            (held.decision, held.decided_by),
            (Decision::Review, SAME_TEXT)
        );
        assert!(guarded(held.decided_by), "the cascade renders it");
        assert_eq!(distinct(&changed).decision, Decision::Distinct);
    }

    /// The thresholds of the model in these tests: duplicate from 0.9, distinct to 0.2.
    const THRESHOLDS: Thresholds = Thresholds {
        duplicate: 0.9,
        distinct: 0.2,
        max_spread: 0.4,
        f1_cut: EVEN_CUT,
    };
    /// [`THRESHOLDS`] of a model that decides nothing distinct, and of one that decides
    /// nothing duplicate: a guard decides nothing on that side either.
    const NO_DISTINCT: Thresholds = Thresholds {
        distinct: 0.0,
        ..THRESHOLDS
    };
    const NO_DUPLICATE: Thresholds = Thresholds {
        duplicate: 1.0,
        ..THRESHOLDS
    };

    /// What the guards leave of a pair of `a` and `b` on two sites that the model left
    /// open (p 0.7) under `thresholds`.
    fn judged_open(a: &Document, b: &Document, thresholds: &Thresholds) -> Guarded {
        judged_at(a, b, thresholds, 0.7)
    }

    /// The guards' decision on `a` and `b` when the model scores them `p_duplicate`.
    fn judged_at(a: &Document, b: &Document, thresholds: &Thresholds, p_duplicate: f64) -> Guarded {
        let bodies = PairBodies {
            fetched: (a, b),
            rendered: None,
        };
        let judgement = Judgement {
            p_duplicate,
            spread: 0.1,
        };
        Guards::on(&two_sites(), &bodies).judge(judgement, thresholds)
    }

    /// A pair the model leaves open is decided distinct when neither side holds the
    /// other's core, at p no higher than the model's distinct threshold; a copy, or a
    /// model that decides nothing distinct, leaves it open.
    #[test]
    fn an_open_pair_on_cores_neither_side_holds_is_decided_distinct() {
        let (page_one, page_two, copy) = (
            article_page(0, 400),
            article_page(400, 400),
            article_page(20, 400),
        );
        let parts = judged_open(&page_one, &page_two, &THRESHOLDS);
        assert_eq!(
            (parts.decision, parts.guard, parts.judgement.p_duplicate),
            (Decision::Distinct, Some(CORES_NOT_SHARED), 0.2)
        );
        let copies = judged_open(&page_one, &copy, &THRESHOLDS);
        assert_eq!((copies.decision, copies.guard), (Decision::Review, None));
        assert_eq!(
            judged_open(&page_one, &page_two, &NO_DISTINCT).decision,
            Decision::Review
        );
    }

    /// A pair the model leaves open is decided duplicate when its pages show the same
    /// text, at p no lower than the model's duplicate threshold: the same page at two
    /// addresses, a link's session id changed. Not when a figure changed, in the core
    /// or beside it; not when the core is a menu, or the page a script's shell; not by
    /// a model that decides nothing duplicate.
    #[test]
    fn an_open_pair_of_the_same_text_is_decided_duplicate() {
        // Captions between the paragraphs, which the core leaves out: its phrases that
        // span one are on neither page, and are not the core's.
        let page = |session: &str, figure: &str, messages: &str, end: &str, app: &str| {
            let paragraphs: Vec<String> = (0..12)
                .map(|p| {
                    let words: Vec<String> = (0..40).map(|i| format!("word{p}x{i}")).collect();
                    format!(
                        "<p>{}{end}</p><figure><figcaption>Photo {p}</figcaption></figure>",
                        words.join(" ")
                    )
                })
                .collect();
            Document::from_html(&format!(
                "<html><body>{app}<nav><a href=\"/home?sid={session}\">Home</a> \
                 <a href=\"/inbox\">Inbox {messages}</a></nav><article><h1>A story</h1>{}\
                 <p>Sales rose {figure} percent this year.</p></article></body></html>",
                paragraphs.join("")
            ))
        };
        let story = |session, figure, messages| page(session, figure, messages, ".", "");
        let original = story("a1", "12", "37");
        assert_eq!(distance::core_in_other(&original, &original), Some(1.0));
        let open = |b: &Document| {
            let guarded = judged_open(&original, b, &THRESHOLDS);
            (
                guarded.decision,
                guarded.guard,
                guarded.judgement.p_duplicate,
            )
        };
        let copy = story("b2", "12", "37");
        assert_eq!(open(&copy), (Decision::Duplicate, Some(SAME_TEXT), 0.9));
        let still_open = (Decision::Review, None, 0.7);
        assert_eq!(
            open(&story("a1", "15", "37")),
            still_open,
            "a figure of the core"
        );
        assert_eq!(
            open(&story("a1", "12", "38")),
            still_open,
            "a figure beside it"
        );
        let menu = |session| page(session, "12", "37", "", "");
        let menus = judged_open(&menu("a1"), &menu("b2"), &THRESHOLDS);
        assert_eq!(
            menus.decision,
            Decision::Review,
            "lines that end no sentence"
        );
        let shell = |session| {
            page(
                session,
                "12",
                "37",
                ".",
                "<script src=\"/app.js\"></script><div id=\"root\"></div>",
            )
        };
        assert!(shell("a1").script_built());
        let shells = judged_open(&shell("a1"), &shell("b2"), &THRESHOLDS);
        assert_eq!(shells.decision, Decision::Review, "a script's shell");
        assert_eq!(
            judged_open(&original, &copy, &NO_DUPLICATE).decision,
            Decision::Review
        );
    }

    /// A page served again shows the very same words: an open pair of it is decided
    /// duplicate whatever its core (a post of two sentences, under the article rule's
    /// fifty words of prose), and so is a distinct call on it. Not under another title,
    /// not when a script builds the page, and not when what it shows holds no prose.
    #[test]
    fn a_page_that_shows_the_very_same_words_is_one_page() {
        let page = |session: &str, title: &str, end: &str, app: &str| {
            let sentence = |s: usize| {
                let words: Vec<String> = (0..15).map(|i| format!("post{s}x{i}")).collect();
                format!("{}{end}", words.join(" "))
            };
            Document::from_html(&format!(
                "<html><head><title>{title}</title></head><body>{app}<nav><a href=\"/?sid={session}\">Home</a></nav>\
                 <article><p>{} {}</p></article><footer><p>{}</p><p>{}</p><p>{}</p></footer></body></html>",
                sentence(0),
                sentence(1),
                sentence(2),
                sentence(3),
                sentence(4),
            ))
        };
        let post = |session| page(session, "A post", ".", "");
        let original = post("a1");
        assert!(
            !article(&original.core_text) && !original.script_built(),
            "{}",
            original.core_text
        );
        let open = |a: &Document, b: &Document| {
            let guarded = judged_open(a, b, &THRESHOLDS);
            (guarded.decision, guarded.guard)
        };
        assert_eq!(
            open(&original, &post("b2")),
            (Decision::Duplicate, Some(SAME_TEXT))
        );
        let called_apart = judged_at(&original, &post("b2"), &THRESHOLDS, 0.03);
        assert_eq!(
            (called_apart.decision, called_apart.guard),
            (Decision::Duplicate, Some(SAME_TEXT))
        );
        let still_open = (Decision::Review, None);
        let retitled = page("b2", "Another post", ".", "");
        assert_eq!(open(&original, &retitled), still_open, "another title");
        let listed = |session| page(session, "A post", "", "");
        assert_eq!(open(&listed("a1"), &listed("b2")), still_open, "no prose");
        let shell = "<script src=\"/app.js\"></script><div id=\"root\"></div>";
        let built = |session| page(session, "A post", ".", shell);
        assert!(built("a1").script_built());
        assert_eq!(
            open(&built("a1"), &built("b2")),
            still_open,
            "a script's shell"
        );
        let shells_apart = judged_at(&built("a1"), &built("b2"), &THRESHOLDS, 0.03);
        assert_eq!(
            shells_apart.decision,
            Decision::Distinct,
            "a script's shell"
        );
    }

    /// A post of two sentences beside a long sidebar carries a core of its own when the
    /// page serves it: an open pair of it and another blog's article is decided distinct.
    /// Not when a script builds the page, nor when the core is a scrap of a few words.
    #[test]
    fn a_short_post_the_page_serves_is_a_core_of_its_own() {
        let post = |words: usize, app: &str| {
            let text: Vec<String> = (0..words).map(|i| format!("post{i}")).collect();
            let sidebar: Vec<String> = (0..400).map(|i| format!("side{i}")).collect();
            Document::from_html(&format!(
                "<html><body>{app}<article><h1>A post</h1><p>{}</p></article>\
                 <aside><ul><li>{}</li></ul></aside></body></html>",
                text.join(" "),
                sidebar.join("</li><li>")
            ))
        };
        let scripted = "<script src=\"/app.js\"></script><div id=\"root\"></div>";
        let (served, built, scrap) = (post(30, ""), post(30, scripted), post(15, ""));
        assert!(!served.script_built() && built.script_built() && served.record.is_none());
        let other = article_page(1000, 400);
        let judged = |a: &Document| judged_open(a, &other, &THRESHOLDS);
        assert_eq!(judged(&served).guard, Some(CORES_NOT_SHARED));
        assert_eq!(judged(&built).decision, Decision::Review);
        assert_eq!(judged(&scrap).decision, Decision::Review);
    }

    #[test]
    fn a_pair_of_walls_is_held_by_the_wall_whether_called_duplicate_or_sent_to_review() {
        let shell = Document::from_html(
            "<header>Tidewater Bulletin</header><main><div id=\"root\">Loading…</div></main>",
        );
        let bodies = PairBodies {
            fetched: (&shell, &shell),
            rendered: None,
        };
        for decision in [Decision::Duplicate, Decision::Review] {
            let outcome = Outcome {
                p_duplicate: 0.9,
                spread: 0.35,
                decision,
                f1_cut: EVEN_CUT,
                decided_by: DECIDED_MODEL,
                core_in_other: Some(1.0),
                vector: None,
            };
            let held = Guards::of(&two_sites(), &bodies, outcome.core_in_other).hold(outcome);
            assert_eq!(
                (held.decision, held.decided_by),
                (Decision::Review, "wall:loading")
            );
            assert!(guarded(held.decided_by));
        }
    }
}
