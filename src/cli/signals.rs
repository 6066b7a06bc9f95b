//! `twinpage signals`: the signal vectors, one named column each.

use std::path::PathBuf;

use anyhow::Result;

use twinpage::pipeline;
use twinpage::signals::Layout;

/// Write the signal vector of every pair: the input columns plus one column per signal.
#[derive(clap::Args)]
pub struct Args {
    /// Pair file (CSV).
    #[arg(long, value_name = "F.csv", required_unless_present = "list")]
    pairs: Option<PathBuf>,
    /// Output CSV, or - for stdout.
    #[arg(long, value_name = "S.csv", default_value = "-")]
    out: String,
    /// Skip rows whose documents cannot be read (listed in OUT.skipped.csv).
    #[arg(long)]
    skip_bad: bool,
    /// Print the signal names and their meaning instead, in vector order.
    #[arg(long, conflicts_with = "skip_bad")]
    list: bool,
    #[command(flatten)]
    render: super::inputs::RenderArgs,
}

pub fn run(args: Args) -> Result<()> {
    if args.list {
        let described = twinpage::signals::described(Layout::FetchedAndRendered);
        return super::output::write_output("-", |w| {
            for (i, (name, meaning)) in described.iter().enumerate() {
                writeln!(w, "{i:>3}  {name:<45} {meaning}")?;
            }
            Ok(())
        });
    }
    let pairs = args.pairs.expect("clap requires --pairs without --list");
    let batch = super::inputs::load_batch(&[pairs], &args.render)?;
    let skipped = super::inputs::unreadable_rows(&batch, args.skip_bad)?;
    let vectors = pipeline::vectors(&batch);
    let file = &batch.files[0];
    let names = twinpage::signals::names(batch.layout());
    super::output::write_output(&args.out, |w| {
        let mut csv = csv::Writer::from_writer(w);
        csv.write_record(file.headers.iter().chain(&names))?;
        for (pair, vector) in file.pairs.iter().zip(&vectors) {
            let Some(v) = vector else { continue };
            let values: Vec<String> = v.iter().map(|x| format!("{x:.6}")).collect();
            csv.write_record(pair.fields.iter().chain(&values))?;
        }
        csv.flush()?;
        Ok(())
    })?;
    super::output::write_skipped(&args.out, &skipped)
}
