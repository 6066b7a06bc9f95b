//! `twinpage score`: decide every pair of a pair file.

use std::path::PathBuf;

use anyhow::{Context, Result};

use twinpage::pipeline::{self, scored};
use twinpage::render::RenderCache;
use twinpage::review::{intake, ReviewStore};

/// Score pairs: the input columns plus p_duplicate, confidence, decision, decided_by.
#[derive(clap::Args)]
pub struct Args {
    /// Pair file (CSV).
    #[arg(long, value_name = "F.csv")]
    pairs: PathBuf,
    /// Model file [default: models/default.json, else the built-in copy].
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
    #[command(flatten)]
    render: super::RenderArgs,
}

pub fn run(args: Args) -> Result<()> {
    let (model, batch) = super::load_model_and_batch(
        args.model.as_deref(),
        std::slice::from_ref(&args.pairs),
        &args.render,
    )?;
    let skipped = super::unreadable_rows(&batch, args.skip_bad)?;
    // The database is opened (and checked) before anything is written, so that a
    // damaged one fails the run before `--out` exists.
    let store = args
        .review_db
        .as_deref()
        .map(ReviewStore::open)
        .transpose()?;
    let outcomes = pipeline::score(&batch, &model);
    super::write_output(&args.out, |w| scored::write(w, &batch.files[0], &outcomes))?;
    super::write_skipped(&args.out, &skipped)?;
    if let (Some(mut store), Some(db)) = (store, &args.review_db) {
        let cache = match args.render.settings()? {
            Some(settings) => Some(RenderCache::open(&settings.cache, settings.options.serve)?),
            None => None,
        };
        let (routed, added) =
            intake::enqueue_review_pairs(&mut store, &batch, &model, &outcomes, cache.as_ref())
                .with_context(|| format!("review database {}", db.display()))?;
        eprintln!(
            "twinpage: {routed} pair(s) routed to review, {added} of them new in {}",
            db.display()
        );
    }
    Ok(())
}
