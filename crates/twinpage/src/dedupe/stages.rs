//! The run: read → candidates → scores → clusters, each stage's output a file of
//! the run folder that the single commands also write (`docs.csv`, a pair file of
//! candidates, a scored pair file), so a user can stop after any stage.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde::Serialize;

use super::clusters::{cluster_id, plan, read_judged, Judged, Member, Placed, Plan};
use super::keep::Facts;
use super::read::{read_into, read_report, replays, ReadReport, DOCS, READ_REPORT};
use super::run::RunFolder;
use crate::candidates::corpus::{write_pairs, Corpus, OutputPaths};
use crate::candidates::sketch::{sketch_corpus, Reading, RenderedText, TextChoice};
use crate::candidates::Method;
use crate::document::pairs::{RENDERED_STAGE, STAGE};
use twinpage_render::{RenderSettings, Replays};
use twinpage_util::write_atomically;

/// The stages' outputs.
pub const CANDIDATES: &str = "candidates.csv";
pub const PAIRS: &str = "pairs.csv";
pub const CLUSTERS: &str = "clusters.csv";
pub const SUMMARY: &str = "summary.json";
pub const TIMES: &str = "times.json";
/// The outputs that say a stage finished: a run folder holding any of them belongs
/// to the command that made them.
pub const STAGE_OUTPUTS: &[&str] = &[DOCS, CANDIDATES, PAIRS];

/// Verification rounds before the members still unplaced are left alone.
const MAX_ROUNDS: usize = 10;

/// Scores a pair file into a scored one, as `twinpage score` does, replaying the
/// documents that are pages of crawls; returns how many documents it rendered.
pub type Scorer<'a> = &'a dyn Fn(&Path, &Path, &Replays) -> Result<usize>;

/// What a run found.
#[derive(Debug, Default, Serialize)]
pub struct Summary {
    pub documents: usize,
    /// Clusters of more than one document.
    pub clusters: usize,
    /// Documents in a cluster that are not the one kept.
    pub copies: usize,
    /// Of them, joined on a pair left to review (p ≥ 0.8).
    pub unsure: usize,
    pub candidate_pairs: usize,
    /// Pairs scored to check members against their cluster's center, and pairs held
    /// apart by their fetched bodies alone judged again on their rendered bodies.
    pub verified_pairs: usize,
    pub rounds: usize,
    /// Documents left alone because the rounds ran out.
    pub unsettled: usize,
    pub read: Option<ReadReport>,
    /// What this invocation did, in `times.json` (not in `summary.json`, which a
    /// resumed run writes the same as an uninterrupted one).
    #[serde(skip)]
    pub invocation: Invocation,
}

/// What one invocation of a run did: a resumed run counts only the stages it ran.
#[derive(Debug, Default, Serialize)]
pub struct Invocation {
    /// Seconds of each stage it ran.
    pub seconds: BTreeMap<&'static str, f64>,
    /// Documents rendered (or found rendered) for the pairs it scored.
    pub rendered_documents: usize,
}

/// Runs every stage not already done in `run`, up to the one that writes
/// `until` (one of [`STAGE_OUTPUTS`]) when given: crawls (WARC, WACZ, JSONL) are
/// read into it; a docs.csv or a folder is used as it is. Candidates are pairs
/// alike by core content or by whole visible text ([`TextChoice::Both`]). With
/// `rendering`, the pages built by script (scripted, their fetched text thin) are
/// fingerprinted as they render, replayed from their crawl, so their copies are
/// found too.
pub fn dedupe(
    inputs: &[PathBuf],
    run: &RunFolder,
    method: &dyn Method,
    score: Scorer,
    rendering: Option<&RenderSettings>,
    until: Option<&str>,
) -> Result<Summary> {
    let mut summary = Summary::default();
    let (docs, replays) = match inputs {
        [one] if one.is_dir() || one.extension().is_some_and(|e| e == "csv") => {
            (one.clone(), Replays::default())
        }
        _ => {
            let started = stage(1, "reading the crawl");
            let read = read_into(inputs, run)?;
            if read.pages == 0 {
                let first = read
                    .unreadable
                    .first()
                    .map_or(String::new(), |u| format!(" (first unreadable: {u})"));
                bail!(
                    "no page in the inputs: {} record(s) read, none an HTML response with status 200{first}",
                    read.records
                );
            }
            summary.read = Some(read);
            let replays = replays(inputs, run)?;
            summary.invocation.seconds.insert("read", seconds(started));
            (run.path(DOCS), replays)
        }
    };
    if until == Some(DOCS) {
        return Ok(summary);
    }
    let corpus = Corpus::open(&docs)?;
    let candidates = run.path(CANDIDATES);
    let paths = OutputPaths::new(&corpus.base, &candidates.to_string_lossy());
    if !run.done(CANDIDATES) {
        let started = stage(2, "finding candidate pairs");
        let rendered = rendering
            .map(|settings| {
                let replays = replays.clone();
                RenderedText::for_thin_pages(RenderSettings {
                    replays,
                    ..settings.clone()
                })
            })
            .transpose()?;
        find_candidates(&corpus, method, rendered.as_ref(), &paths, &candidates)?;
        summary
            .invocation
            .seconds
            .insert("candidates", seconds(started));
    }
    summary.candidate_pairs = count_rows(&candidates)?;
    if until == Some(CANDIDATES) {
        return Ok(summary);
    }
    if !run.done(PAIRS) {
        let started = stage(3, "scoring the candidate pairs");
        summary.invocation.rendered_documents += score(&candidates, &run.path(PAIRS), &replays)?;
        summary.invocation.seconds.insert("score", seconds(started));
    }
    if until == Some(PAIRS) {
        return Ok(summary);
    }
    let started = stage(
        4,
        "clustering, each member judged against the cluster's center",
    );
    let members = members(&corpus, &paths)?;
    let mut judged = Judged::new();
    read_judged(&run.path(PAIRS), &mut judged)?;
    let score = |asked: &Path, scored: &Path| score(asked, scored, &replays);
    let placed = settle(&members, &mut judged, run, &score, &mut summary)?;
    write_clusters(run, &members, &placed, &mut summary)?;
    summary
        .invocation
        .seconds
        .insert("clusters", seconds(started));
    write_atomically(&run.path(SUMMARY), |w| {
        Ok(serde_json::to_writer_pretty(w, &summary)?)
    })?;
    write_atomically(&run.path(TIMES), |w| {
        Ok(serde_json::to_writer_pretty(w, &summary.invocation)?)
    })?;
    Ok(summary)
}

/// The candidate pairs of the corpus, as `twinpage candidates` writes them.
fn find_candidates(
    corpus: &Corpus,
    method: &dyn Method,
    rendered: Option<&RenderedText>,
    paths: &OutputPaths,
    out: &Path,
) -> Result<()> {
    let reading = Reading {
        text: TextChoice::Both,
        records: true,
    };
    let sketched = sketch_corpus(corpus, method, reading, rendered, paths, true, |_| true)?;
    let pairs = sketched.pairs(method)?;
    let kind = method.kind();
    write_atomically(out, |w| {
        let docs = &sketched.docs;
        write_pairs(
            w,
            docs,
            &corpus.extra_headers,
            kind.name,
            kind.evidence,
            &pairs,
        )
    })
}

/// Says a stage begins; when it did.
fn stage(n: usize, what: &str) -> Instant {
    eprintln!("twinpage: dedupe: stage {n} of 4: {what}");
    Instant::now()
}

fn seconds(since: Instant) -> f64 {
    (since.elapsed().as_secs_f64() * 100.0).round() / 100.0
}

fn count_rows(path: &Path) -> Result<usize> {
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(reader.records().count())
}

/// Every document of the corpus with what the keep rule knows of it, its body
/// named as the pair files of `paths` name it.
pub fn members(corpus: &Corpus, paths: &OutputPaths) -> Result<Vec<Member>> {
    let column = |name: &str| corpus.extra_headers.iter().position(|h| h == name);
    let [source, date, canonical, clicks, inlinks] =
        ["source", "date", "canonical", "clicks", "inlinks"].map(column);
    let mut members = Vec::new();
    for doc in corpus.documents()? {
        let doc = doc?;
        let extra = |c: Option<usize>| c.and_then(|c| doc.extra.get(c)).map_or("", |v| v.trim());
        let number = |c: Option<usize>| extra(c).parse::<f64>().ok();
        let html = paths.info(&doc).html;
        members.push(Member {
            source: Some(extra(source))
                .filter(|s| !s.is_empty())
                .map_or_else(|| html.clone(), str::to_string),
            html,
            facts: Facts {
                url: doc.url.clone(),
                canonical: extra(canonical).to_string(),
                date: extra(date).to_string(),
                clicks: number(clicks),
                inlinks: number(inlinks),
            },
        });
    }
    Ok(members)
}

/// Verification rounds until every document has its place.
fn settle(
    members: &[Member],
    judged: &mut Judged,
    run: &RunFolder,
    score: &dyn Fn(&Path, &Path) -> Result<usize>,
    summary: &mut Summary,
) -> Result<Vec<Placed>> {
    let mut round = 1;
    loop {
        let plan = place(members, judged, round);
        if plan.settled() {
            let placed: Vec<Placed> = plan.placed.into_iter().flatten().collect();
            summary.unsettled = unsettled(&placed);
            return Ok(placed);
        }
        summary.rounds = round;
        summary.verified_pairs += plan.needed.len() + plan.rejudge.len();
        let (asked, scored) = verify_files(round);
        let (asked, scored) = (run.path(&asked), run.path(&scored));
        if !scored.is_file() {
            eprintln!(
                "twinpage: dedupe: round {round}: {} pair(s) of a center and a member never judged, \
                 {} held apart by their fetched bodies alone to judge on their rendered bodies",
                plan.needed.len(),
                plan.rejudge.len()
            );
            write_atomically(&asked, |w| write_needed(w, members, &plan))?;
            summary.invocation.rendered_documents += score(&asked, &scored)?;
        }
        read_judged(&scored, judged)?;
        round += 1;
    }
}

/// A round's pairs to judge, and the same scored: `verify-N.csv`, `verify-N.scored.csv`.
pub fn verify_files(round: usize) -> (String, String) {
    (
        format!("verify-{round}.csv"),
        format!("verify-{round}.scored.csv"),
    )
}

/// How a document is placed that the rounds left unplaced: alone.
pub const UNSETTLED: &str = "unsettled";

/// Every document's place that the judgements so far settle, and the pairs of a
/// center and a member to judge before the rest can be placed. In the round
/// after the last, those still unplaced stay alone (`unsettled`).
pub fn place(members: &[Member], judged: &Judged, round: usize) -> Plan {
    let mut plan = plan(members, judged);
    if round > MAX_ROUNDS {
        plan.needed.clear();
        plan.rejudge.clear();
        for (placed, member) in plan.placed.iter_mut().zip(members) {
            placed.get_or_insert_with(|| Placed {
                cluster: cluster_id(member),
                keep: true,
                joined: UNSETTLED.into(),
                why: "alone".into(),
            });
        }
    }
    plan
}

fn unsettled(placed: &[Placed]) -> usize {
    placed.iter().filter(|p| p.joined == UNSETTLED).count()
}

/// The pairs a plan needs judged, as a pair file: those to judge again on their
/// rendered bodies say so in the column `stage`.
pub fn write_needed(w: &mut dyn Write, members: &[Member], plan: &Plan) -> Result<()> {
    let mut csv = csv::Writer::from_writer(w);
    csv.write_record(["url_a", "url_b", "html_a", "html_b", STAGE])?;
    let asked = plan.needed.iter().map(|&pair| (pair, ""));
    let again = plan.rejudge.iter().map(|&pair| (pair, RENDERED_STAGE));
    for ((kept, member), stage) in asked.chain(again) {
        let (a, b) = (&members[kept], &members[member]);
        csv.write_record([&a.facts.url, &b.facts.url, &a.html, &b.html, stage])?;
    }
    Ok(csv.flush()?)
}

/// The last step of a run whose clustering a driver spread over many machines
/// (`twinpage settle`): with every document placed, `clusters.csv` and
/// `summary.json` written as `dedupe` writes them, the rounds counted from the
/// run's `verify-N` files.
pub fn finish(run: &RunFolder, members: &[Member], placed: &[Placed]) -> Result<Summary> {
    let mut summary = Summary {
        candidate_pairs: count_rows(&run.path(CANDIDATES))?,
        unsettled: unsettled(placed),
        read: run
            .done(READ_REPORT)
            .then(|| read_report(run))
            .transpose()?,
        ..Summary::default()
    };
    loop {
        let (asked, scored) = verify_files(summary.rounds + 1);
        if !run.done(&scored) {
            break;
        }
        summary.rounds += 1;
        summary.verified_pairs += count_rows(&run.path(&asked))?;
    }
    write_clusters(run, members, placed, &mut summary)?;
    write_atomically(&run.path(SUMMARY), |w| {
        Ok(serde_json::to_writer_pretty(w, &summary)?)
    })?;
    Ok(summary)
}

/// `clusters.csv`: one row per document, singletons too, by cluster, the kept first.
fn write_clusters(
    run: &RunFolder,
    members: &[Member],
    placed: &[Placed],
    summary: &mut Summary,
) -> Result<()> {
    let mut size: std::collections::HashMap<&str, usize> = Default::default();
    for p in placed {
        *size.entry(p.cluster.as_str()).or_default() += 1;
    }
    let mut order: Vec<usize> = (0..members.len()).collect();
    order.sort_by(|&i, &j| {
        (&placed[i].cluster, !placed[i].keep, &members[i].facts.url).cmp(&(
            &placed[j].cluster,
            !placed[j].keep,
            &members[j].facts.url,
        ))
    });
    summary.documents = members.len();
    summary.clusters = size.values().filter(|&&n| n > 1).count();
    summary.copies = placed.iter().filter(|p| !p.keep).count();
    summary.unsure = placed.iter().filter(|p| p.joined == "unsure").count();
    write_atomically(&run.path(CLUSTERS), |w| {
        let mut csv = csv::Writer::from_writer(w);
        csv.write_record([
            "cluster", "size", "keep", "joined", "why", "url", "source", "html",
        ])?;
        for i in order {
            let (m, p) = (&members[i], &placed[i]);
            csv.write_record([
                p.cluster.as_str(),
                &size[p.cluster.as_str()].to_string(),
                if p.keep { "1" } else { "0" },
                &p.joined,
                &p.why,
                &m.facts.url,
                &m.source,
                &m.html,
            ])?;
        }
        Ok(csv.flush()?)
    })
}
