//! What a command reads: pair files and their documents, rendered bodies made or
//! found as the render options say, and the rows that cannot be read.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;

use twinpage::document::Skipped;
use twinpage::model::Model;
use twinpage::pipeline::{Batch, DocumentSet};
use twinpage::render::{
    default_cache_dir, RenderOptions, RenderSettings, ServePolicy, DEFAULT_MEMORY_PER_PROCESS,
};
use twinpage::signals::Layout;
use twinpage::util::Choice;

use super::declared::choice;
use super::model_files::{check_layout, load_model};

/// How a command gets rendered bodies; shared by every command that computes signals.
#[derive(clap::Args, Debug)]
pub(super) struct RenderArgs {
    /// Fetched bodies only: no rendered body is used or made (a scoring model must then be
    /// fetched-only, trained with --no-render).
    #[arg(long)]
    pub(super) no_render: bool,
    /// Render cache folder [default: $XDG_CACHE_HOME/twinpage/render or ~/.cache/twinpage/render].
    #[arg(long, value_name = "DIR")]
    pub(super) cache: Option<PathBuf>,
    /// Seconds a page may take to load and settle; then what has rendered is kept, marked cut off.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub(super) render_deadline: f64,
    /// Pages rendering at once, one tab each, eight tabs to a browser [default: 8 per core].
    #[arg(long, value_name = "N")]
    pub(super) tabs: Option<usize>,
    /// Memory in MB each browser process may take (its page renderer, shared by
    /// eight tabs, among them): a page that wants more is refused it, or fails.
    #[arg(long, value_name = "MB", default_value_t = DEFAULT_MEMORY_PER_PROCESS >> 20)]
    pub(super) render_memory: u64,
    /// What a rendered page may load from its folder besides itself.
    #[arg(long, value_parser = choice::<ServePolicy>(), value_name = "WHAT", default_value = ServePolicy::default().name())]
    pub(super) render_serve: ServePolicy,
    /// Take a screenshot of every rendered page, for the review page [default: only
    /// with `score --review-db`]. A render cached without one stays without.
    #[arg(long)]
    pub(super) screenshots: bool,
    /// Render again the documents the cache remembers as failed (a failure is
    /// remembered after a second try, alone, failed too).
    #[arg(long)]
    pub(super) retry_failed: bool,
    /// The pages of this `dedupe` run folder that were read from crawls render
    /// with their crawl's archived resources, as in `dedupe` (for a driver that
    /// renders a run's pages elsewhere).
    #[arg(long, value_name = "DIR")]
    pub(super) replay_run: Option<PathBuf>,
}

impl RenderArgs {
    /// The settings of this run; None with --no-render.
    pub(super) fn settings(&self) -> Result<Option<RenderSettings>> {
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
            memory_per_process: self.render_memory << 20,
            ..RenderOptions::default()
        };
        if self.render_memory < 256 {
            anyhow::bail!(
                "--render-memory {}: a browser needs at least 256 MB",
                self.render_memory
            );
        }
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
            replays: match &self.replay_run {
                Some(dir) => twinpage::dedupe::replays_of_run(dir)?,
                None => Default::default(),
            },
        }))
    }

    pub(super) fn layout(&self) -> Layout {
        if self.no_render {
            Layout::Fetched
        } else {
            Layout::FetchedAndRendered
        }
    }
}

/// Loads the model and the pair files for a command that scores: the model's
/// layout is checked against the run's before anything is rendered.
pub(super) fn load_model_and_batch(
    model: Option<&Path>,
    pairs: &[PathBuf],
    render: &RenderArgs,
) -> Result<(Model, Batch)> {
    let model = load_model(model)?;
    check_layout(&model, render.layout())?;
    Ok((model, load_batch(pairs, render)?))
}

/// Reads pair files and their documents, and says where rendered bodies came from.
pub(super) fn load_batch(pairs: &[PathBuf], render: &RenderArgs) -> Result<Batch> {
    let batch = Batch::load(pairs, render.settings()?.as_ref())?;
    report_renders(&batch.documents);
    Ok(batch)
}

/// The rows of a batch whose documents cannot be read: an error naming the
/// first, or with --skip-bad the list of them for the side file.
pub(super) fn unreadable_rows(batch: &Batch, skip_bad: bool) -> Result<Vec<Skipped>> {
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
pub(super) fn report_renders(documents: &DocumentSet) {
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
