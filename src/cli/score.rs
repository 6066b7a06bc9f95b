//! `twinpage score`: decide every pair of a pair file.

use std::path::PathBuf;

use anyhow::{Context, Result};

use twinpage::model::Model;
use twinpage::pipeline::{self, scored, Batch, Outcome};
use twinpage::render::RenderCache;
use twinpage::signals::Layout;
use twinpage_review::{intake, ReviewStore};

/// Score pairs: the input columns plus p_duplicate, confidence, decision, decided_by.
#[derive(clap::Args)]
pub struct Args {
    /// Pair file (CSV).
    #[arg(long, value_name = "F.csv")]
    pairs: PathBuf,
    /// Model file [default: models/default.json, else the built-in copy; with
    /// --no-render, the fetched-only model of --fetched-model].
    #[arg(long, value_name = "M.json")]
    model: Option<PathBuf>,
    /// Output CSV, or - for stdout.
    #[arg(long, value_name = "F.csv", default_value = "-")]
    out: String,
    /// Skip rows whose documents cannot be read (listed in OUT.skipped.csv).
    #[arg(long)]
    skip_bad: bool,
    /// Also queue every pair routed to review in this SQLite database (created if
    /// missing), for `twinpage review`.
    #[arg(long, value_name = "FILE")]
    review_db: Option<PathBuf>,
    /// Where rendered bodies are used: `auto` renders only the documents of pairs
    /// the fetched-only model (--fetched-model) leaves open or that look built by
    /// script; `always` renders every document; `never` is --no-render. A
    /// fetched-only --model never renders.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = RenderWhen::Auto)]
    render: RenderWhen,
    /// The fetched-only model of `--render auto`'s first stage [default:
    /// models/fetched-only.json, else the built-in copy].
    #[arg(long, value_name = "M.json")]
    fetched_model: Option<PathBuf>,
    #[command(flatten)]
    rendering: super::inputs::RenderArgs,
}

/// When `score` renders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RenderWhen {
    Auto,
    Always,
    Never,
}

pub fn run(mut args: Args) -> Result<()> {
    // A pair queued for review is looked at: its pages get screenshots.
    args.rendering.screenshots |= args.review_db.is_some();
    // Fetched bodies only: the fetched-only model unless a model is named.
    let model = match (&args.model, args.rendering.no_render) {
        (None, true) => super::model_files::load_fetched_model(args.fetched_model.as_deref())?,
        (model, _) => super::model_files::load_model(model.as_deref())?,
    };
    let pairs = std::slice::from_ref(&args.pairs);
    let when = match (model.layout(), args.render) {
        (Layout::Fetched, _) => RenderWhen::Never,
        // A rendered model with --no-render is refused below, naming the fix.
        (_, _) if args.rendering.no_render => RenderWhen::Never,
        (_, when) => when,
    };
    let (batch, outcomes) = match when {
        RenderWhen::Never => {
            super::model_files::check_layout(&model, Layout::Fetched)?;
            let batch = Batch::load(pairs, None)?;
            let outcomes = pipeline::score(&batch, &model);
            super::model_files::warn_if_unlike_training(&model, &outcomes);
            (batch, outcomes)
        }
        RenderWhen::Always => {
            let batch = super::inputs::load_batch(pairs, &args.rendering)?;
            let outcomes = pipeline::score(&batch, &model);
            super::model_files::warn_if_unlike_training(&model, &outcomes);
            (batch, outcomes)
        }
        RenderWhen::Auto => cascade(&args, &model)?,
    };
    let skipped = super::inputs::unreadable_rows(&batch, args.skip_bad)?;
    // The database is opened (and checked) before anything is written, so that a
    // damaged one fails the run before `--out` exists.
    let store = args
        .review_db
        .as_deref()
        .map(ReviewStore::open)
        .transpose()?;
    let write = |w: &mut dyn std::io::Write| scored::write(w, &batch.files[0], &outcomes);
    match (store, &args.review_db) {
        (Some(mut store), Some(db)) => {
            // The scores and the queue are complete together or not at all (a pair
            // queued again by a second run is kept once, with its labels).
            let cache = match args.rendering.settings()? {
                Some(settings) => Some(RenderCache::open(&settings.cache, settings.options.serve)?),
                None => None,
            };
            super::output::write_output_with(&args.out, write, || {
                let (routed, added) = intake::enqueue_review_pairs(
                    &mut store,
                    &batch,
                    &model,
                    &outcomes,
                    cache.as_ref(),
                )
                .with_context(|| format!("review database {}", db.display()))?;
                eprintln!(
                    "twinpage: {routed} pair(s) routed to review, {added} of them new in {}",
                    db.display()
                );
                Ok(())
            })?;
        }
        _ => super::output::write_output(&args.out, write)?,
    }
    super::output::write_skipped(&args.out, &skipped)
}

/// `--render auto`: the fetched-only model first, the rendered one on what it leaves open.
fn cascade(args: &Args, model: &Model) -> Result<(Batch, Vec<Option<Outcome>>)> {
    let fetched = super::model_files::load_fetched_model(args.fetched_model.as_deref())?;
    let settings = args
        .rendering
        .settings()?
        .context("--render auto needs rendering: drop --no-render")?;
    let mut batch = Batch::load(std::slice::from_ref(&args.pairs), None)?;
    let (outcomes, report) = pipeline::score_cascade(&mut batch, &fetched, model, &settings)?;
    super::inputs::report_renders(&batch.documents);
    super::model_files::warn_on_shifts(&fetched, &report.shifts);
    eprintln!(
        "twinpage: --render auto: {} of {} pair(s) went on to the rendered model; {} of {} document(s) rendered (or found rendered)",
        report.rendered_pairs, report.pairs, report.rendered_documents, report.documents
    );
    Ok((batch, outcomes))
}
