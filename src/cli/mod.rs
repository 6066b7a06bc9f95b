//! Commands: parse arguments, call the library, print.
//!
//! Exit codes scripts can trust: 0 success, 1 a run that failed (bad input, a
//! missing document, a model that does not fit), 2 a usage error (clap's).

mod baseline;
mod candidates;
mod cluster;
mod declared;
mod evaluate;
mod explain;
mod idf;
mod index;
mod render;
mod report;
mod retrain;
mod review;
mod score;
mod signals;
mod sketch;
mod train;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use twinpage::document::Skipped;
use twinpage::model::Model;
use twinpage::pipeline::{Batch, DocumentSet};
use twinpage::render::{default_cache_dir, RenderOptions, RenderSettings, ServePolicy};
use twinpage::signals::Layout;
use twinpage::util::{write_atomically, Choice};

use declared::choice;

#[derive(Parser)]
#[command(
    name = "twinpage",
    version,
    about = "Decide whether two web documents are duplicates",
    long_about = "Decide whether two web documents are duplicates: the same core content behind \
                  different navigation, ads, titles, URLs or formats.\n\n\
                  Pair files are CSV with columns url_a,url_b,html_a,html_b and optional \
                  query, label, rendered_a, rendered_b, clicks_a/b, inlinks_a/b, spam_a/b; \
                  other columns pass through. See README.md."
)]
struct Cli {
    /// Worker threads (default: all cores).
    #[arg(long, global = true, value_name = "N")]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Train(train::Args),
    Score(score::Args),
    Signals(signals::Args),
    Evaluate(evaluate::Args),
    Explain(explain::Args),
    Candidates(candidates::Args),
    Index(index::Args),
    Cluster(cluster::Args),
    Baseline(baseline::Args),
    Render(render::Args),
    Report(report::Args),
    Review(review::Args),
    Retrain(retrain::Args),
    Idf(idf::Args),
    Sketch(sketch::Args),
}

/// Runs the command line and maps the result to an exit code.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    if let Some(n) = cli.threads {
        // Only fails if a pool already exists, which cannot happen this early.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
    let result = match cli.command {
        Command::Train(a) => train::run(a),
        Command::Score(a) => score::run(a),
        Command::Signals(a) => signals::run(a),
        Command::Evaluate(a) => evaluate::run(a),
        Command::Explain(a) => explain::run(a),
        Command::Candidates(a) => candidates::run(a),
        Command::Index(a) => index::run(a),
        Command::Cluster(a) => cluster::run(a),
        Command::Baseline(a) => baseline::run(a),
        Command::Render(a) => render::run(a),
        Command::Report(a) => report::run(a),
        Command::Review(a) => review::run(a),
        Command::Retrain(a) => retrain::run(a),
        Command::Idf(a) => idf::run(a),
        Command::Sketch(a) => sketch::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("twinpage: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The shipped model, used when no `--model` is given.
pub const DEFAULT_MODEL: &str = "models/default.json";
/// The fetched-only model `score --render auto` starts with, when no other is given.
pub const FETCHED_ONLY_MODEL: &str = "models/fetched-only.json";

/// `--model`, or `models/default.json` in the current folder, or the copy of it
/// built into this binary (so the tool works from any folder).
fn load_model(path: Option<&Path>) -> Result<Model> {
    load_shipped(
        path,
        DEFAULT_MODEL,
        include_str!("../../models/default.json"),
    )
}

/// `--fetched-model`, or `models/fetched-only.json`, or its built-in copy.
fn load_fetched_model(path: Option<&Path>) -> Result<Model> {
    load_shipped(
        path,
        FETCHED_ONLY_MODEL,
        include_str!("../../models/fetched-only.json"),
    )
}

/// The model at `path`, else the shipped one at `local`, else its copy `built_in`.
fn load_shipped(path: Option<&Path>, local: &str, built_in: &str) -> Result<Model> {
    if let Some(p) = path {
        return Model::load(p);
    }
    let local_path = Path::new(local);
    if local_path.exists() {
        return Model::load(local_path);
    }
    Model::from_json(built_in).with_context(|| {
        format!("the built-in copy of {local} does not fit this build; retrain it")
    })
}

/// Where a command writes its table: a file (atomically) or `-` for stdout. A
/// reader that stops early (`| head`) ends the output quietly, as for any Unix tool.
fn write_output(out: &str, write: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    if out == "-" {
        let stdout = std::io::stdout();
        let mut lock = stdout.lock();
        let written = write(&mut lock).and_then(|()| Ok(lock.flush()?));
        match written {
            Err(e) if is_broken_pipe(&e) => Ok(()),
            other => other,
        }
    } else {
        write_atomically(Path::new(out), write)
    }
}

/// Whether an error comes from writing to a pipe nobody reads any more (csv's
/// errors hold the I/O error without giving it as their source).
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    let broken = |io: &std::io::Error| io.kind() == std::io::ErrorKind::BrokenPipe;
    e.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(broken)
            || cause
                .downcast_ref::<csv::Error>()
                .is_some_and(|csv| matches!(csv.kind(), csv::ErrorKind::Io(io) if broken(io)))
    })
}

/// Lists skipped rows in a side file beside the output (or `skipped.csv` when the
/// output is stdout) and says so on stderr.
fn write_skipped(out: &str, skipped: &[Skipped]) -> Result<()> {
    if skipped.is_empty() {
        return Ok(());
    }
    let path = if out == "-" {
        PathBuf::from("skipped.csv")
    } else {
        PathBuf::from(format!("{out}.skipped.csv"))
    };
    write_atomically(&path, |w| {
        let mut csv = csv::Writer::from_writer(w);
        csv.write_record(["row", "reason"])?;
        for s in skipped {
            csv.write_record([&s.location, &s.reason])?;
        }
        csv.flush()?;
        Ok(())
    })?;
    eprintln!(
        "twinpage: skipped {} row(s) with unreadable documents; listed in {}",
        skipped.len(),
        path.display()
    );
    Ok(())
}

/// How a command gets rendered bodies; shared by every command that computes signals.
#[derive(clap::Args, Debug)]
struct RenderArgs {
    /// Fetched bodies only: no rendered body is used or made (a scoring model must then be
    /// fetched-only, trained with --no-render).
    #[arg(long)]
    no_render: bool,
    /// Render cache folder [default: $XDG_CACHE_HOME/twinpage/render or ~/.cache/twinpage/render].
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Seconds a page may take to load and settle; then what has rendered is kept, marked cut off.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    render_deadline: f64,
    /// Pages rendering at once, one tab each, eight tabs to a browser [default: 8 per core].
    #[arg(long, value_name = "N")]
    tabs: Option<usize>,
    /// What a rendered page may load from its folder besides itself.
    #[arg(long, value_parser = choice::<ServePolicy>(), value_name = "WHAT", default_value = ServePolicy::default().name())]
    render_serve: ServePolicy,
    /// Take a screenshot of every rendered page, for the review page [default: only
    /// with `score --review-db`]. A render cached without one stays without.
    #[arg(long)]
    screenshots: bool,
    /// Render again the documents the cache remembers as failed (a failure is
    /// remembered after a second try, alone, failed too).
    #[arg(long)]
    retry_failed: bool,
}

impl RenderArgs {
    /// The settings of this run; None with --no-render.
    fn settings(&self) -> Result<Option<RenderSettings>> {
        if self.no_render {
            return Ok(None);
        }
        if !(self.render_deadline.is_finite() && self.render_deadline > 0.0) {
            anyhow::bail!(
                "--render-deadline {}: give a positive number of seconds",
                self.render_deadline
            );
        }
        let mut options = RenderOptions {
            deadline: Duration::from_secs_f64(self.render_deadline),
            serve: self.render_serve,
            screenshots: self.screenshots,
            ..RenderOptions::default()
        };
        if let Some(tabs) = self.tabs {
            if tabs == 0 {
                anyhow::bail!("--tabs 0: give at least one tab");
            }
            options.tabs = tabs;
        }
        Ok(Some(RenderSettings {
            cache: self.cache.clone().unwrap_or_else(default_cache_dir),
            options,
            retry_failed: self.retry_failed,
        }))
    }

    fn layout(&self) -> Layout {
        if self.no_render {
            Layout::Fetched
        } else {
            Layout::FetchedAndRendered
        }
    }
}

/// Loads the model and the pair files for a command that scores: the model's
/// layout is checked against the run's before anything is rendered.
fn load_model_and_batch(
    model: Option<&Path>,
    pairs: &[PathBuf],
    render: &RenderArgs,
) -> Result<(Model, Batch)> {
    let model = load_model(model)?;
    check_layout(&model, render.layout())?;
    Ok((model, load_batch(pairs, render)?))
}

/// Reads pair files and their documents, and says where rendered bodies came from.
fn load_batch(pairs: &[PathBuf], render: &RenderArgs) -> Result<Batch> {
    let batch = Batch::load(pairs, render.settings()?.as_ref())?;
    report_renders(&batch.documents);
    Ok(batch)
}

/// Refuses a model trained on another layout than the run's, saying how to get a match.
fn check_layout(model: &Model, have: Layout) -> Result<()> {
    let wanted = model.layout();
    if wanted == have {
        return Ok(());
    }
    let fix = match wanted {
        Layout::FetchedAndRendered => {
            "drop --no-render, or use a model trained with --no-render \
             (models/fetched-only.json is one)"
        }
        Layout::Fetched => "add --no-render, or use a model trained on rendered bodies",
    };
    anyhow::bail!(
        "model {} was trained on {}, but this run computes {}: {fix}",
        model.id,
        wanted.describe(),
        have.describe()
    )
}

/// The rows of a batch whose documents cannot be read: an error naming the
/// first, or with --skip-bad the list of them for the side file.
fn unreadable_rows(batch: &Batch, skip_bad: bool) -> Result<Vec<Skipped>> {
    let skipped = batch.unreadable();
    match skipped.first() {
        Some(first) if !skip_bad => anyhow::bail!(
            "{}: {} ({} row(s) affected; --skip-bad skips them and lists them in a side file)",
            first.location,
            first.reason,
            skipped.len()
        ),
        _ => Ok(skipped),
    }
}

/// Says on stderr where rendered bodies came from and which renders failed.
fn report_renders(documents: &DocumentSet) {
    let report = &documents.render_report;
    if report.rendered > 0 || report.failed > 0 {
        eprintln!(
            "twinpage: rendered bodies: {} rendered now, {} from the cache, {} from the pair file, {} failed ({} remembered from earlier runs)",
            report.rendered, report.cached, report.stored, report.failed, report.failed_before
        );
    }
    if let Some(first) = report.not_cached.first() {
        eprintln!(
            "twinpage: warning: {} render(s) could not be written to the cache (first: {first})",
            report.not_cached.len()
        );
    }
    if let Some((path, reason)) = documents.render_failures.first() {
        eprintln!(
            "twinpage: warning: {} document(s) have no rendered body; their fetched body stands in \
             (first: {}: {reason})",
            documents.render_failures.len(),
            path.display()
        );
    }
}
