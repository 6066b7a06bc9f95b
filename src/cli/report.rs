//! `twinpage report`: how one or two models do on labelled pairs, drawn into one
//! self-contained HTML file.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use twinpage::candidates::sketch::TextChoice;
use twinpage::evaluate::baseline::{self, Baseline};
use twinpage::evaluate::figures::Figures;
use twinpage::pipeline::{self, Batch};
use twinpage::signals::Layout;
use twinpage::util::params::ParamValues;
use twinpage::util::write_atomically;
use twinpage_report::{ModelReport, Report};

/// An HTML report with plots: PR and ROC curves, reliability, the trade-off
/// behind the precision target, confusion and per-group tables, signal
/// importance and splits, classic detectors, worst mistakes.
#[derive(clap::Args)]
pub struct Args {
    /// Labelled pair file(s); repeat for several.
    #[arg(long, value_name = "F.csv", required = true)]
    pairs: Vec<PathBuf>,
    /// Model file; give two to see them side by side [default: models/default.json,
    /// else the built-in copy]. A model trained with --no-render is judged on
    /// fetched bodies.
    #[arg(long, value_name = "M.json", num_args = 1)]
    model: Vec<PathBuf>,
    /// Also break the figures down by the values of this column (e.g. kind).
    #[arg(long, value_name = "COLUMN")]
    by: Option<String>,
    /// Also run the classic detectors (candidate methods, Yandex signatures) on the
    /// same pairs and show them on the curves.
    #[arg(long)]
    baselines: bool,
    /// The HTML file to write.
    #[arg(long, value_name = "report.html", value_parser = super::output::file_not_stdout)]
    out: PathBuf,
    /// Skip rows whose documents cannot be read.
    #[arg(long)]
    skip_bad: bool,
    #[command(flatten)]
    render: super::inputs::RenderArgs,
}

/// Models one report can set side by side.
const MAX_MODELS: usize = 4;

pub fn run(args: Args) -> Result<()> {
    if args.model.len() > MAX_MODELS {
        bail!(
            "{} models given: a report sets at most {MAX_MODELS} side by side",
            args.model.len()
        );
    }
    let paths: Vec<Option<&Path>> = if args.model.is_empty() {
        vec![None]
    } else {
        args.model.iter().map(|p| Some(p.as_path())).collect()
    };
    // One batch per layout the models read, loaded when first needed.
    let mut batches: Vec<(Layout, Batch)> = Vec::new();
    let mut models = Vec::new();
    for path in paths {
        let model = super::model_files::load_model(path)?;
        let layout = model.layout();
        if layout == Layout::FetchedAndRendered {
            super::model_files::check_layout(&model, args.render.layout())?;
        }
        if !batches.iter().any(|(l, _)| *l == layout) {
            let batch = match layout {
                Layout::Fetched => Batch::load(&args.pairs, None)?,
                Layout::FetchedAndRendered => super::inputs::load_batch(&args.pairs, &args.render)?,
            };
            batches.push((layout, batch));
        }
        let batch = &batches
            .iter()
            .find(|(l, _)| *l == layout)
            .expect("loaded")
            .1;
        let skipped = super::inputs::unreadable_rows(batch, args.skip_bad)?.len();
        let outcomes = pipeline::score(batch, &model);
        let figures = Figures::of(&model, batch, &outcomes, args.by.as_deref())?;
        let name = path.map_or_else(
            || super::model_files::DEFAULT_MODEL.to_string(),
            |p| p.display().to_string(),
        );
        let mut explain_args = Vec::new();
        if let Some(p) = path {
            explain_args.extend(["--model".to_string(), p.display().to_string()]);
        }
        if layout == Layout::Fetched {
            explain_args.push("--no-render".to_string());
        }
        models.push(ModelReport {
            name,
            figures,
            explain_args,
            skipped,
        });
    }
    let baselines = if args.baselines {
        let detectors = Baseline::named("all")?;
        let files = &batches[0].1.files;
        let text = TextChoice::Core;
        let ran = baseline::run(
            files,
            &detectors,
            text,
            &ParamValues::default(),
            args.skip_bad,
        )?;
        Some((text.name().to_string(), ran.results))
    } else {
        None
    };
    let page = twinpage_report::html(&Report {
        pairs: args.pairs.iter().map(|p| p.display().to_string()).collect(),
        models,
        baselines,
    })?;
    write_atomically(&args.out, |w| Ok(w.write_all(page.as_bytes())?))?;
    eprintln!("twinpage: wrote {}", args.out.display());
    Ok(())
}
