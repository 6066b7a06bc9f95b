//! `twinpage render`: render the documents of pair files ahead of time.

use std::path::PathBuf;

use anyhow::{bail, Result};

use twinpage::document::PairFile;
use twinpage::pipeline::render_requests;
use twinpage::render::{self, RenderedBody};

/// Render every document of pair files into the render cache, so that later
/// commands find them there; with --store, also write each render to a folder (or
/// a pack) and a copy of the pair file whose rendered_a, rendered_b name them (a pair
/// file that needs no browser). Renders already in the --store folder or pack are reused.
#[derive(clap::Args)]
pub struct Args {
    /// Pair file(s) (CSV); repeat for several.
    #[arg(long, value_name = "F.csv", required = true)]
    pairs: Vec<PathBuf>,
    /// Where to write each render (needs --out and one --pairs): a folder, one gzipped
    /// JSON file per document; or a pack, a path ending in .tar.zst: one solid archive
    /// of them all, a seventh of the size, for renders kept in version control.
    #[arg(long, value_name = "DIR|F.tar.zst", requires = "out")]
    store: Option<PathBuf>,
    /// The pair file with rendered_a, rendered_b set to the stored renders.
    #[arg(long, value_name = "F.csv", requires = "store", value_parser = super::output::file_not_stdout)]
    out: Option<PathBuf>,
    #[command(flatten)]
    render: super::inputs::RenderArgs,
}

pub fn run(args: Args) -> Result<()> {
    if args.render.no_render {
        bail!("--no-render: nothing to do for `render`");
    }
    let settings = args.render.settings()?.expect("rendering is on");
    let files = args
        .pairs
        .iter()
        .map(|p| PairFile::read(p))
        .collect::<Result<Vec<_>>>()?;
    let mut requests = render_requests(files.iter().flat_map(|f| &f.pairs));
    // Renders a previous run stored are reused: regenerated data renders only what changed.
    let earlier = match &args.store {
        Some(folder) => render::already_stored(&mut requests, folder),
        None => Vec::new(),
    };
    for (request, earlier) in requests.iter_mut().zip(&earlier) {
        request.stored = request.stored.or(earlier.as_deref());
    }
    let (bodies, report) = render::supply(&requests, &settings)?;
    outln!(
        "{} document(s): {} rendered now, {} already in the cache, {} stored before (pair file or --store), {} failed ({} remembered from earlier runs)",
        requests.len(),
        report.rendered,
        report.cached,
        report.stored,
        report.failed,
        report.failed_before
    )?;
    outln!("render cache: {}", settings.cache.display())?;
    if let Some(first) = report.not_cached.first() {
        let failed = format!(
            "{} render(s) could not be written to the cache {} (first: {first}); later runs \
             will render them again",
            report.not_cached.len(),
            settings.cache.display()
        );
        // Filling the cache is what `render` without `--store` is for.
        if args.store.is_none() {
            bail!("{failed}: free some space or give another --cache");
        }
        eprintln!("twinpage: warning: {failed}");
    }
    for (request, body) in requests.iter().zip(&bodies) {
        if let RenderedBody::Failed(reason) = body {
            eprintln!("twinpage: {}: {reason}", request.document.display());
        }
    }
    if let (Some(folder), Some(out)) = (&args.store, &args.out) {
        let [file] = files.as_slice() else {
            bail!("--store writes one pair file: give one --pairs");
        };
        let stored = render::store_all(&requests, &bodies, folder)?;
        file.write_with_renders(&stored, out)?;
        outln!(
            "stored {} render(s) in {}; wrote {}",
            stored.len(),
            folder.display(),
            out.display()
        )?;
    }
    Ok(())
}
