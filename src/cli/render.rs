//! `twinpage render`: render the documents of pair files ahead of time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use twinpage::document::pairs::{PairWriter, SideColumns, DOCUMENT_COLUMNS};
use twinpage::document::PairFile;
use twinpage::pipeline::render_requests;
use twinpage::render::{self, read_document, RenderedBody, Request, StoredRender};

/// Render every document of pair files into the render cache, so that later
/// commands find them there; with --store, also write each render to a folder and
/// a copy of the pair file whose rendered_a, rendered_b name them (a pair file
/// that needs no browser).
#[derive(clap::Args)]
pub struct Args {
    /// Pair file(s) (CSV); repeat for several.
    #[arg(long, value_name = "F.csv", required = true)]
    pairs: Vec<PathBuf>,
    /// Folder to write each render to, as gzipped JSON (needs --out and one --pairs).
    #[arg(long, value_name = "DIR", requires = "out")]
    store: Option<PathBuf>,
    /// The pair file with rendered_a, rendered_b set to the stored renders.
    #[arg(long, value_name = "F.csv", requires = "store")]
    out: Option<PathBuf>,
    #[command(flatten)]
    render: super::RenderArgs,
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
    let requests = render_requests(files.iter().flat_map(|f| &f.pairs));
    let (bodies, report) = render::supply(&requests, &settings)?;
    println!(
        "{} document(s): {} rendered now, {} already in the cache, {} given by the pair file, {} failed",
        requests.len(),
        report.rendered,
        report.cached,
        report.stored,
        report.failed
    );
    println!("render cache: {}", settings.cache.display());
    for (request, body) in requests.iter().zip(&bodies) {
        if let RenderedBody::Failed(reason) = body {
            eprintln!("twinpage: {}: {reason}", request.document.display());
        }
    }
    if let (Some(folder), Some(out)) = (&args.store, &args.out) {
        let [file] = files.as_slice() else {
            bail!("--store writes one pair file: give one --pairs");
        };
        let stored = store_all(&requests, &bodies, folder)?;
        write_pair_file(file, &stored, out)?;
        println!(
            "stored {} render(s) in {}; wrote {}",
            stored.len(),
            folder.display(),
            out.display()
        );
    }
    Ok(())
}

/// Writes each render (or its failure) into `folder`; the stored file of each
/// document. Documents that cannot be read get none.
fn store_all(
    requests: &[Request],
    bodies: &[RenderedBody],
    folder: &Path,
) -> Result<BTreeMap<PathBuf, PathBuf>> {
    std::fs::create_dir_all(folder)
        .with_context(|| format!("cannot create {}", folder.display()))?;
    let mut stored = BTreeMap::new();
    for (request, body) in requests.iter().zip(bodies) {
        let Ok(bytes) = read_document(request.document) else {
            continue;
        };
        let path = match body {
            RenderedBody::Measured(rendered) => {
                render::store(&StoredRender::Rendered(rendered.clone()), &bytes, folder)?
            }
            RenderedBody::Failed(reason) => {
                let failed = reason.clone();
                render::store(&StoredRender::Failed { failed }, &bytes, folder)?
            }
            RenderedBody::SyntheticOnly(_) => match request.stored {
                Some(given) => given.to_path_buf(),
                None => continue,
            },
        };
        stored.insert(request.document.to_path_buf(), path);
    }
    Ok(stored)
}

/// Copies `file` to `out` with rendered_a, rendered_b naming the stored renders
/// (documents without one keep an empty cell); its other columns pass through.
/// Paths are written relative to `out`'s folder when they are inside it, so the
/// copy may live anywhere.
fn write_pair_file(file: &PairFile, stored: &BTreeMap<PathBuf, PathBuf>, out: &Path) -> Result<()> {
    let kept: Vec<usize> = (0..file.headers.len())
        .filter(|&i| !DOCUMENT_COLUMNS.contains(&file.headers[i].as_str()))
        .collect();
    let base = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .canonicalize()?;
    let shown = |path: &Path| -> String {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        path.strip_prefix(&base)
            .unwrap_or(&path)
            .display()
            .to_string()
    };
    let render_of = |document: &Path| stored.get(document).map_or_else(String::new, |p| shown(p));
    twinpage::util::write_atomically(out, |w| {
        let header: Vec<&str> = kept.iter().map(|&i| file.headers[i].as_str()).collect();
        let mut writer = PairWriter::new(w, true, false, &header)?;
        for pair in &file.pairs {
            let [(html_a, rendered_a), (html_b, rendered_b)] =
                [&pair.a, &pair.b].map(|side| (shown(&side.html), render_of(&side.html)));
            let values: Vec<&str> = kept.iter().map(|&i| pair.fields[i].as_str()).collect();
            writer.write(
                SideColumns {
                    url: &pair.a.url,
                    html: &html_a,
                    rendered: &rendered_a,
                },
                SideColumns {
                    url: &pair.b.url,
                    html: &html_b,
                    rendered: &rendered_b,
                },
                "",
                &values,
            )?;
        }
        writer.finish()
    })
}
