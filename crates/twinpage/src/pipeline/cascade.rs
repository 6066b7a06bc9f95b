//! The cascade: render only where rendering can change the answer.
//!
//! Rendering costs a browser and seconds per page; most pairs are settled by their
//! fetched bodies alone. The fetched-only model scores every pair first; a pair it
//! decides at its precision target, with no side that looks built by script
//! ([`crate::document::Document::script_built`]) and not two bodies that show the
//! same text, no article in it, from different scripts, keeps that decision, a
//! duplicate only when the two fetched texts share content
//! ([`rendered_stage_decides`]), unless the pair file asks for the rendered stage
//! (column `stage`). The documents of the other pairs are rendered, and the
//! fetched-and-rendered model decides those, on all cores as the first stage (one
//! core at a time it was a third of `dedupe`'s scoring stage).

use anyhow::{ensure, Result};

use super::batch::Batch;
use super::schedule::map_heaviest_first;
use super::score::{
    guarded, outcome, score, scored_vectors, Outcome, CORE_SHARED_BELOW, DECIDED_MODEL,
};
use crate::distance::sets::containment;
use crate::document::text::article;
use crate::document::{Document, IdfTable, Pair};
use crate::model::{Decision, Model, Shift};
use crate::signals::distance::core_in_other;
use crate::signals::Layout;
use twinpage_render::RenderSettings;
use twinpage_util::Progress;

/// `decided_by` of a pair the fetched-only stage decided.
pub const DECIDED_FETCHED: &str = "fetched";
/// `decided_by` of a pair decided on its rendered bodies.
pub const DECIDED_RENDERED: &str = "rendered";

/// What the cascade did, for the user.
#[derive(Debug, Default, Clone)]
pub struct CascadeReport {
    /// Signals missing far more or less often among the pairs than among the
    /// fetched-only model's training pairs ([`Model::shifts`]; every pair passes that
    /// model, so its comparison is the one that means something).
    pub shifts: Vec<Shift>,
    pub pairs: usize,
    /// Pairs sent on to the rendered stage.
    pub rendered_pairs: usize,
    pub documents: usize,
    /// Documents whose rendered body the second stage needed.
    pub rendered_documents: usize,
}

/// Scores a batch read without rendering: `fetched` (a fetched-only model) first,
/// then `rendered` (a fetched-and-rendered one) on the pairs left open, whose
/// documents are rendered with `settings`.
pub fn score_cascade(
    batch: &mut Batch,
    fetched: &Model,
    rendered: &Model,
    settings: &RenderSettings,
) -> Result<(Vec<Option<Outcome>>, CascadeReport)> {
    ensure!(
        fetched.layout() == Layout::Fetched && rendered.layout() == Layout::FetchedAndRendered,
        "the cascade needs a fetched-only model first and a fetched-and-rendered one second"
    );
    let mut outcomes = score(batch, fetched);
    let shifts = fetched.shifts(scored_vectors(&outcomes));
    let open: Vec<usize> = batch
        .pairs()
        .zip(&outcomes)
        .enumerate()
        .filter(|(_, (pair, outcome))| needs_render(batch, pair, outcome.as_ref()))
        .map(|(i, _)| i)
        .collect();
    for outcome in outcomes.iter_mut().flatten() {
        if outcome.decided_by == DECIDED_MODEL {
            outcome.decided_by = DECIDED_FETCHED;
        }
    }
    let pairs: Vec<Pair> = batch.pairs().cloned().collect();
    let open_pairs: Vec<Pair> = open.iter().map(|&i| pairs[i].clone()).collect();
    let mut report = CascadeReport {
        pairs: pairs.len(),
        rendered_pairs: open.len(),
        documents: batch.documents.len(),
        shifts,
        ..CascadeReport::default()
    };
    if open.is_empty() {
        return Ok((outcomes, report));
    }
    batch
        .documents
        .load_rendered(&open_pairs, IdfTable::shipped(), settings)?;
    report.rendered_documents = batch.documents.rendered_len();
    let batch = &*batch;
    let progress = Progress::new(open.len(), "scoring rendered pairs");
    let weight = |&i: &usize| batch.documents.weight(&pairs[i]);
    let rescored = map_heaviest_first(open, weight, |i| {
        let rescored = outcome(batch, &pairs[i], rendered).map(|o| Outcome {
            decided_by: if o.decided_by == DECIDED_MODEL {
                DECIDED_RENDERED
            } else {
                o.decided_by
            },
            ..o
        });
        progress.inc();
        (i, rescored)
    });
    progress.finish();
    for (i, rescored) in rescored {
        outcomes[i] = rescored;
    }
    Ok((outcomes, report))
}

/// Whether a pair goes on to the rendered stage: the cascade's rule on what the
/// fetched-only model decided and what the fetched bodies show. Screened and
/// unreadable pairs do not.
fn needs_render(batch: &Batch, pair: &Pair, outcome: Option<&Outcome>) -> bool {
    let Some(outcome) = outcome else {
        return false;
    };
    // A pair sent to review for the walls of its fetched bodies, or for fetched cores
    // neither holds, goes on: its rendered bodies may show what the fetched ones hide.
    if outcome.decided_by != DECIDED_MODEL && !guarded(outcome.decided_by) {
        return false;
    }
    if pair.rendered_stage {
        return true;
    }
    batch
        .documents
        .pair(pair)
        .is_ok_and(|(a, b)| rendered_stage_decides(outcome.decision, FetchedEvidence::of(a, b)))
}

/// What a pair's fetched bodies can show of its content, for the cascade's rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchedEvidence {
    /// A side looks built by script, or the two show the same text, no article, from
    /// different bytes with scripts (`differ_only_in_script`): what a reader sees is
    /// not in the fetched bodies.
    pub shown_by_script: bool,
    /// The two fetched texts have phrases in common (at least [`SHARED_TEXT`] of the
    /// shorter one's 4-word shingles).
    pub share_text: bool,
    /// A side's script hides elements (`Document::hides_by_script`) and the two pages
    /// hold each other's core ([`CORE_SHARED_BELOW`] or more): what tells them apart
    /// may be text no reader sees, such as keyword stuffing a script hides once the
    /// page has loaded.
    pub hidden_by_script: bool,
}

/// Share of the shorter text's phrases two texts must have in common to share any
/// content: a footer line or two is not content.
pub const SHARED_TEXT: f64 = 0.05;

impl FetchedEvidence {
    pub fn of(a: &Document, b: &Document) -> FetchedEvidence {
        let (short, long) = if a.visible_shingles.len() <= b.visible_shingles.len() {
            (a, b)
        } else {
            (b, a)
        };
        FetchedEvidence {
            shown_by_script: a.script_built() || b.script_built() || differ_only_in_script(a, b),
            share_text: containment(&short.visible_shingles, &long.visible_shingles)
                .is_some_and(|c| c >= SHARED_TEXT),
            hidden_by_script: (a.hides_by_script || b.hides_by_script)
                && core_in_other(a, b).is_some_and(|c| c >= CORE_SHARED_BELOW),
        }
    }
}

/// The cascade's rule, once for `score` and for judging it: the rendered stage
/// decides a pair that the fetched-only model left for review, one whose text a
/// script shows, and one it called duplicate though the two fetched texts share no
/// content: such a call can rest on nothing but titles, URLs and lengths (a short
/// page beside a long one under one title looks like a shell beside its article),
/// and the rendered bodies show whether the content is the same; and one it called
/// distinct on pages of one core where a script hides something, which a reader of
/// the rendered page may never see.
pub fn rendered_stage_decides(fetched: Decision, evidence: FetchedEvidence) -> bool {
    match fetched {
        Decision::Review => true,
        Decision::Duplicate => evidence.shown_by_script || !evidence.share_text,
        Decision::Distinct => evidence.shown_by_script || evidence.hidden_by_script,
    }
}

/// Two bodies that show the same text but are not the same bytes, with scripts, and
/// no article in that text ([`article`]): what tells them apart is data only a script
/// turns into text (an article in a JSON island or a base64 attribute, filled into one
/// template). A page shell reused for every article looks like this, and so its pairs
/// are rendered whatever the fetched-only model says of two identical texts. A page
/// served again (another session id in its links, minified) shows its article from
/// other bytes too, and what a reader sees of it is what its fetched body shows: of
/// the 413 web and fresh pairs of one text from other bytes, the 300 distinct ones are
/// all built by script (`Document::script_built`, which the cascade renders anyway).
fn differ_only_in_script(a: &Document, b: &Document) -> bool {
    a.text_hash == b.text_hash
        && a.body_hash != b.body_hash
        && (a.scripted || b.scripted)
        && !article(&a.visible_text)
}

#[cfg(test)]
mod tests {
    use super::{differ_only_in_script, rendered_stage_decides, FetchedEvidence};
    use crate::document::Document;
    use crate::model::Decision;

    /// A page of `words`, a few sentences long.
    fn page(words: &str) -> Document {
        let sentences: Vec<String> = (0..8)
            .map(|i| format!("<p>{words} number {i}.</p>"))
            .collect();
        Document::from_html(&format!("<html><body>{}</body></html>", sentences.join("")))
    }

    #[test]
    fn a_duplicate_the_fetched_texts_do_not_show_is_rendered() {
        let article = page("the council approved the new budget for the harbour");
        let copy = page("the council approved the new budget for the harbour");
        let other = page("a recipe for bread with flour water salt and some yeast");
        let sharing = FetchedEvidence::of(&article, &copy);
        let apart = FetchedEvidence::of(&article, &other);
        assert!(sharing.share_text && !apart.share_text);
        assert!(!sharing.shown_by_script && !apart.shown_by_script);
        // Two texts with nothing in common called duplicate: only titles, URLs or
        // lengths can have said so, so the rendered stage decides.
        assert!(rendered_stage_decides(Decision::Duplicate, apart));
        assert!(!rendered_stage_decides(Decision::Duplicate, sharing));
        assert!(!rendered_stage_decides(Decision::Distinct, apart));
        assert!(rendered_stage_decides(Decision::Review, sharing));
        let shell = FetchedEvidence {
            shown_by_script: true,
            ..sharing
        };
        assert!(rendered_stage_decides(Decision::Distinct, shell));
        // A distinct call on two pages of one core, one of which hides something by
        // script (keyword stuffing taken out of view on load), is checked rendered.
        let story = "a long story about the river and the town and the people there ".repeat(8);
        let plain = Document::from_html(&format!("<body><article><p>{story}</p></article></body>"));
        let stuffed = Document::from_html(&format!(
            "<body><article><p>{story}</p></article><div class=k>cheap cheap cheap</div>\
             <script>document.querySelector('.k').style.display='none'</script></body>"
        ));
        let hiding = FetchedEvidence::of(&plain, &stuffed);
        assert!(hiding.hidden_by_script && !hiding.shown_by_script);
        assert!(rendered_stage_decides(Decision::Distinct, hiding));
        let elsewhere = FetchedEvidence::of(&other, &stuffed);
        assert!(!elsewhere.hidden_by_script, "no core in common");
    }

    #[test]
    fn one_template_filled_with_two_articles_by_script_is_rendered() {
        let shell = |data: &str| {
            Document::from_html(&format!(
                "<body><nav>Home News Sport</nav><main id=content>Loading the article, please \
                 wait.</main><script>var __S=\"{data}\";render(atob(__S))</script></body>"
            ))
        };
        assert!(differ_only_in_script(&shell("QUJD"), &shell("WFla")));
        // The same bytes twice, or the same text without scripts, is not.
        assert!(!differ_only_in_script(&shell("QUJD"), &shell("QUJD")));
        let plain = |tag: &str| {
            Document::from_html(&format!("<body data-t={tag}><p>Same words.</p></body>"))
        };
        assert!(!differ_only_in_script(&plain("1"), &plain("2")));
        // Two texts that differ are the fetched-only model's to judge.
        let other = Document::from_html("<body><p>Other words</p><script>track()</script></body>");
        assert!(!differ_only_in_script(&shell("QUJD"), &other));
        // An article served again under another session id shows what its body serves.
        let story =
            "The council met on Monday and approved the budget for the new harbour. ".repeat(6);
        let served = |sid: &str| {
            Document::from_html(&format!(
                "<body><a href=/news?sid={sid}>News</a><article><p>{story}</p></article>\
                 <script>track()</script></body>"
            ))
        };
        let (first, again) = (served("a1"), served("b2"));
        assert!(first.text_hash == again.text_hash && first.body_hash != again.body_hash);
        assert!(!differ_only_in_script(&first, &again));
    }
}
