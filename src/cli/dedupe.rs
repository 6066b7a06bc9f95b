//! `twinpage dedupe`: from a crawl to its duplicates in one resumable run.

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use twinpage::candidates::METHODS;
use twinpage::dedupe::{self, RunFolder, Summary, CANDIDATES, CLUSTERS, DOCS, PAIRS, SUMMARY};

/// The run's page, beside its files.
const REPORT: &str = "report.html";
use twinpage::model::Model;
use twinpage::pipeline::{self, scored, Batch, Outcome};
use twinpage::render::{RenderCache, RenderSettings, Replays};
use twinpage::util::write_atomically;
use twinpage_review::{intake, ReviewStore};

/// Which pages of a crawl are copies of which, and which one to keep: reads the
/// crawl (WARC or ARC, gzipped or not; WACZ; JSONL of {"url", "html"}; or one docs.csv or
/// folder), finds candidate pairs (alike by core content or by whole visible text),
/// scores them as `score` does, and clusters them so that every member of a cluster
/// was judged a duplicate of its center (the member judged a duplicate of most
/// others) and, up to 64 distinct pages, apart from none of the others (two held
/// apart by their fetched bodies alone are judged again on their rendered bodies).
/// Writes DIR/clusters.csv (one row per page), DIR/pairs.csv (the scored candidates),
/// DIR/summary.json, DIR/report.html (the run's page); killed and run again with the
/// same command, it goes on from its last finished stage.
#[derive(clap::Args)]
pub struct Args {
    /// Crawl files (.warc, .warc.gz, .arc, .arc.gz, .wacz, .jsonl), or one docs.csv or folder of HTML files.
    #[arg(value_name = "INPUT", required = true)]
    inputs: Vec<PathBuf>,
    /// Run folder: every stage's output, and the answer.
    #[arg(long, value_name = "DIR", value_parser = super::output::file_not_stdout)]
    out: PathBuf,
    /// Candidate generator.
    #[arg(long, default_value = METHODS[0].name)]
    method: String,
    /// Model file [default: models/default.json, else the built-in copy].
    #[arg(long, value_name = "M.json")]
    model: Option<PathBuf>,
    /// The fetched-only model that scores every pair first [default:
    /// models/fetched-only.json, else the built-in copy]; the pairs it leaves open
    /// are rendered and scored by --model (as `score --render auto`).
    #[arg(long, value_name = "M.json")]
    fetched_model: Option<PathBuf>,
    /// Also queue every pair routed to review (the candidates' and the verification
    /// rounds') in this SQLite database (created if missing), for `twinpage review`.
    #[arg(long, value_name = "FILE")]
    review_db: Option<PathBuf>,
    /// Stop after this stage (its output written); the same command without it
    /// goes on from there.
    #[arg(long, value_name = "STAGE", value_enum)]
    until: Option<Stage>,
    #[command(flatten)]
    rendering: super::inputs::RenderArgs,
}

pub fn run(args: Args) -> Result<()> {
    let method = (twinpage::candidates::method_named(&args.method)?.build)(&Default::default())?;
    let fetched = super::model_files::load_fetched_model(args.fetched_model.as_deref())?;
    let model = super::model_files::load_model(args.model.as_deref())?;
    let settings = args.rendering.settings()?;
    let command = command(&args, &fetched, &model)?;
    let run = RunFolder::open(&args.out, &command, dedupe::STAGE_OUTPUTS)?;
    let queue = args
        .review_db
        .as_deref()
        .map(ReviewStore::open)
        .transpose()?
        .map(RefCell::new);
    let queued = Cell::new(0);
    let score = |pairs: &Path, out: &Path, replays: &Replays| {
        let settings = settings.clone().map(|settings| RenderSettings {
            replays: replays.clone(),
            ..settings
        });
        let (batch, outcomes, rendered) = score(pairs, &fetched, &model, settings.as_ref())?;
        // Queued before the scored file is written: a run killed in between scores
        // and queues again, and the queue takes a pair once.
        if let Some(queue) = &queue {
            let cache = settings
                .as_ref()
                .map(|s| RenderCache::open(&s.cache, s.options.serve))
                .transpose()?;
            let (routed, _) = intake::enqueue_review_pairs(
                &mut queue.borrow_mut(),
                &batch,
                &model,
                &outcomes,
                cache.as_ref(),
            )?;
            queued.set(queued.get() + routed);
        }
        write_atomically(out, |w| scored::write(w, &batch.files[0], &outcomes))?;
        Ok(rendered)
    };
    let until = args.until.map(Stage::output);
    let summary = dedupe::dedupe(
        &args.inputs,
        &run,
        method.as_ref(),
        &score,
        settings.as_ref(),
        until,
    )?;
    if let Some(db) = &args.review_db {
        eprintln!(
            "twinpage: {} pair(s) routed to review, queued in {}",
            queued.get(),
            db.display()
        );
    }
    if let Some(read) = &summary.read {
        for line in read.unreadable.iter().take(5) {
            eprintln!("twinpage: unreadable: {line}");
        }
        if read.unreadable.len() > 5 {
            eprintln!(
                "twinpage: … {} unreadable in all (DIR/unreadable.csv)",
                read.unreadable.len()
            );
        }
    }
    if let Some(stage) = until {
        outln!("stopped with {} written", run.path(stage).display())?;
        return Ok(());
    }
    say_done(&run, &summary)?;
    let times = &summary.invocation.seconds;
    let stages: Vec<String> = times
        .iter()
        .map(|(stage, s)| format!("{stage} {s:.1} s"))
        .collect();
    if !stages.is_empty() {
        eprintln!(
            "twinpage: dedupe: {} ({} document(s) rendered)",
            stages.join(", "),
            summary.invocation.rendered_documents
        );
    }
    Ok(())
}

/// A stage to stop after.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Stage {
    Read,
    Candidates,
    Pairs,
}

impl Stage {
    /// The file that says the stage is done.
    fn output(self) -> &'static str {
        match self {
            Stage::Read => DOCS,
            Stage::Candidates => CANDIDATES,
            Stage::Pairs => PAIRS,
        }
    }
}

/// Says what a finished run found, writes its page, and names its files.
pub fn say_done(run: &RunFolder, summary: &Summary) -> Result<()> {
    outln!(
        "{} page(s): {} cluster(s) of copies, {} cop(ies) to drop ({} joined on an unsure pair); {} candidate pair(s), {} verified within their clusters",
        summary.documents, summary.clusters, summary.copies, summary.unsure, summary.candidate_pairs, summary.verified_pairs
    )?;
    let page = twinpage_report::run_page(run.dir())?;
    write_atomically(&run.path(REPORT), |w| Ok(w.write_all(page.as_bytes())?))?;
    outln!(
        "wrote {}, {}, {}, {}",
        run.path(CLUSTERS).display(),
        run.path(REPORT).display(),
        run.path(PAIRS).display(),
        run.path(SUMMARY).display()
    )?;
    Ok(())
}

/// Scores a pair file as `score` does: the cascade with rendering, the fetched-only
/// model alone without. Also says how many documents were rendered.
fn score(
    pairs: &Path,
    fetched: &Model,
    model: &Model,
    settings: Option<&RenderSettings>,
) -> Result<(Batch, Vec<Option<Outcome>>, usize)> {
    let mut batch = Batch::load(&[pairs.to_path_buf()], None)?;
    let (outcomes, rendered) = match settings {
        Some(settings) => {
            let (outcomes, report) = pipeline::score_cascade(&mut batch, fetched, model, settings)?;
            super::model_files::warn_on_shifts(fetched, &report.shifts);
            (outcomes, report.rendered_documents)
        }
        None => {
            let outcomes = pipeline::score(&batch, fetched);
            super::model_files::warn_if_unlike_training(fetched, &outcomes);
            (outcomes, 0)
        }
    };
    Ok((batch, outcomes, rendered))
}

/// What makes a run this run: its inputs (path, size, time) and the options that
/// change its outputs. A run folder of another command is refused.
fn command(args: &Args, fetched: &Model, model: &Model) -> Result<serde_json::Value> {
    let inputs = args
        .inputs
        .iter()
        .map(|input| {
            let meta = std::fs::metadata(input)
                .with_context(|| format!("cannot read {}", input.display()))?;
            let modified = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
            Ok(serde_json::json!({
                "path": std::path::absolute(input)?.display().to_string(),
                "bytes": meta.len(),
                "modified": modified.map_or(0, |d| d.as_secs()),
            }))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(serde_json::json!({
        "inputs": inputs,
        "method": args.method,
        "fetched_model": fetched.id,
        "model": model.id,
        "render": !args.rendering.no_render,
        "render_deadline": args.rendering.render_deadline,
        "review_db": args.review_db.as_deref().map(|db| db.display().to_string()),
    }))
}
