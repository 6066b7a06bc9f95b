//! `twinpage explain`: the way a pair took through the trees, and what each
//! signal added to its score.

use std::path::PathBuf;

use anyhow::{bail, Result};

use twinpage::document::{wall, Document, PairFile};
use twinpage::model::{ExplainedStep, Explanation, ScoreParts};
use twinpage::pipeline::{self, Batch, Outcome};

/// Show why a pair got its score: the paths through the most representative trees,
/// the cell's counts, and each signal's contribution to the forest's score.
#[derive(clap::Args)]
pub struct Args {
    /// Pair file (CSV).
    #[arg(long, value_name = "F.csv")]
    pairs: PathBuf,
    /// Data row to explain (1 = the first row after the header); all rows when omitted.
    #[arg(long, value_name = "N")]
    row: Option<usize>,
    /// Model file [default: models/default.json, else the built-in copy].
    #[arg(long, value_name = "M.json")]
    model: Option<PathBuf>,
    /// Also print what the signals read of each body: its title, the wall in front of
    /// it, the lengths of its visible text and its core content, and the core itself.
    #[arg(long)]
    texts: bool,
    #[command(flatten)]
    render: super::inputs::RenderArgs,
}

pub fn run(args: Args) -> Result<()> {
    let model = super::model_files::load_model(args.model.as_deref())?;
    super::model_files::check_layout(&model, args.render.layout())?;
    let mut file = PairFile::read(&args.pairs)?;
    let first = match args.row {
        Some(n) if n == 0 || n > file.pairs.len() => {
            bail!("--row {n}: the file has rows 1 to {}", file.pairs.len())
        }
        Some(n) => {
            // Only that pair's documents are read (and rendered).
            file.pairs = vec![file.pairs.swap_remove(n - 1)];
            n
        }
        None => 1,
    };
    let batch = Batch::of(vec![file], args.render.settings()?.as_ref())?;
    super::inputs::report_renders(&batch.documents);
    for (i, pair) in batch.pairs().enumerate() {
        outln!(
            "row {} ({}): {} vs {}",
            first + i,
            pair.location(),
            pair.a.url,
            pair.b.url
        )?;
        match pipeline::outcome(&batch, pair, &model) {
            None => outln!(
                "  cannot explain: {}",
                batch.documents.pair(pair).err().unwrap_or_default()
            )?,
            Some(outcome) => match &outcome.vector {
                Some(vector) => {
                    print_explanation(&model.explain(vector))?;
                    print_guard(&outcome)?;
                }
                None => outln!(
                    "  decided {} by {} before the signals ran",
                    outcome.decision.as_str(),
                    outcome.decided_by
                )?,
            },
        }
        if args.texts {
            if let Ok(bodies) = batch.documents.bodies(pair) {
                print_texts("fetched", bodies.fetched)?;
                if let Some(rendered) = bodies.rendered {
                    print_texts("rendered", rendered)?;
                }
            }
        }
        outln!()?;
    }
    Ok(())
}

fn print_explanation(e: &Explanation) -> std::io::Result<()> {
    if let Some(c) = e.committee {
        outln!(
            "  {} of {} trees vote duplicate; their mean {:.4}, spread {:.4} (review beyond {:.2})",
            c.duplicate_votes,
            c.trees,
            c.mean,
            c.spread,
            e.thresholds.max_spread
        )?;
        outln!("  {}", e.tree)?;
    }
    print_steps(&e.steps)?;
    for path in &e.more_paths {
        outln!("  {}", path.tree)?;
        print_steps(&path.steps)?;
    }
    let c = &e.counts;
    let cell = if e.committee.is_some() { "bin" } else { "leaf" };
    outln!(
        "  {cell} {}: training {} duplicate / {} distinct, calibration {} duplicate / {} distinct",
        e.cell,
        c.fit_duplicates,
        c.fit_distinct,
        c.calibration_duplicates,
        c.calibration_distinct
    )?;
    outln!(
        "  p_duplicate {:.4} -> {} (duplicate at >= {:.4}, distinct at <= {:.4})",
        e.p_duplicate,
        e.decision().as_str(),
        e.thresholds.duplicate,
        e.thresholds.distinct
    )?;
    if let Some(parts) = &e.contributions {
        print_waterfall(parts)?;
    }
    Ok(())
}

/// What a guard made of the model's decision, as `score` gives it (nothing when no
/// guard changed it).
fn print_guard(outcome: &Outcome) -> std::io::Result<()> {
    if outcome.decided_by == pipeline::DECIDED_MODEL {
        return Ok(());
    }
    let core = outcome
        .core_in_other
        .map_or("none".to_string(), |c| format!("{c:.4}"));
    outln!(
        "  after the guards, as `score` writes it: {} at p_duplicate {:.4} ({}; core_in_other {core})",
        outcome.decision.as_str(),
        outcome.p_duplicate,
        outcome.decided_by
    )
}

/// Core texts longer than this are cut in the listing.
const CORE_CHARS_SHOWN: usize = 3000;

/// What the signals read of one body of each side: the core content is what most of
/// them compare, so a pair called duplicate for the wrong reason usually shows it here
/// (a template's block taken as both cores, a wall, an empty render).
fn print_texts(body: &str, (a, b): (&Document, &Document)) -> std::io::Result<()> {
    for (side, doc) in [("a", a), ("b", b)] {
        let visible = doc.visible_text.chars().count();
        let core = doc.core_text.chars().count();
        outln!(
            "  {body} {side}: title {:?}; visible text {visible} chars, core {core} chars ({:.0} %){}",
            doc.title,
            100.0 * core as f64 / visible.max(1) as f64,
            wall::recognise(doc).map_or(String::new(), |w| format!("; {}", w.decided_by()))
        )?;
        let shown: String = doc.core_text.chars().take(CORE_CHARS_SHOWN).collect();
        for line in shown.lines().filter(|l| !l.trim().is_empty()) {
            outln!("    | {}", line.trim())?;
        }
        if core > CORE_CHARS_SHOWN {
            outln!("    | … {} more chars", core - CORE_CHARS_SHOWN)?;
        }
    }
    Ok(())
}

/// The signals that moved the forest's score most, each from the running total.
fn print_waterfall(parts: &ScoreParts) -> std::io::Result<()> {
    outln!(
        "  why this score: the forest's base {:.4}, then each signal's contribution (tree paths, summed over the trees):",
        parts.base
    )?;
    let (largest, rest, others) = parts.largest(WATERFALL_ROWS);
    let mut total = parts.base;
    for part in largest {
        total += part.contribution;
        outln!(
            "  {:+.4} -> {total:.4}  {:<45} = {:.4}",
            part.contribution,
            part.signal,
            part.value
        )?;
    }
    if others > 0 {
        outln!(
            "  {rest:+.4} -> {:.4}  {others} other signal(s)",
            total + rest
        )?;
    }
    outln!(
        "  = {:.4}, the forest's output (calibrated above)",
        parts.output
    )
}

/// How many signals the waterfall names; the rest are summed on one line.
const WATERFALL_ROWS: usize = 10;

fn print_steps(steps: &[ExplainedStep]) -> std::io::Result<()> {
    for step in steps {
        let (op, side) = if step.went_left {
            ("<", "left")
        } else {
            (">=", "right")
        };
        outln!(
            "  {:<45} = {:>10.4}  {op:>2} {:<10.4} -> {side}",
            step.signal,
            step.value,
            step.threshold
        )?;
    }
    Ok(())
}
