//! `twinpage settle`: `dedupe`'s clustering in steps, for a driver that spreads
//! it over many machines (the Spark driver in `scale/`).
//!
//! On one machine `dedupe` places every document in one process: the pairs that
//! join make components, and in each a center gathers the members judged its
//! duplicates, after verification rounds that score the pairs it still
//! needs. Components are independent, so a driver can find them with a
//! distributed connected-components step and place each group of components
//! where it lies; this command does the parts that are twinpage's rules:
//!
//! - `joins`: which scored pairs join a cluster (the edges of the components);
//! - `place`: the place of each document of some whole components, or the pairs
//!   still to judge (a round's verification pairs);
//! - `finish`: with every document placed, `clusters.csv`, `summary.json` and
//!   `report.html` of the run folder, as `dedupe` writes them.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use twinpage::candidates::corpus::{Corpus, OutputPaths};
use twinpage::dedupe::{self, read_judged, Judged, Member, Placed, RunFolder};
use twinpage::dedupe::{Facts, CANDIDATES, PAIRS};
use twinpage::document::rows::RowReader;

/// `dedupe`'s clustering in steps, for a driver that spreads it over many
/// machines (scale/): the pairs that join a cluster, the place of each document
/// of whole components (or the pairs to judge first), and the run's last files.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    step: Step,
}

#[derive(clap::Subcommand)]
enum Step {
    /// The scored pairs that join a cluster (html_a,html_b): the edges of the
    /// components the documents are placed in.
    Joins {
        /// Scored pair files (`score`'s output).
        #[arg(long, value_name = "F.csv", required = true)]
        judged: Vec<PathBuf>,
        /// Output CSV, or - for stdout.
        #[arg(long, value_name = "E.csv", default_value = "-")]
        out: String,
    },
    /// Each document of a docs table as the clustering knows it (url,source,html:
    /// its body named as the run's pairs name it), one row per row, in order.
    Members {
        #[command(flatten)]
        docs: Documents,
        /// Output CSV, or - for stdout.
        #[arg(long, value_name = "F.csv", default_value = "-")]
        out: String,
    },
    /// The place of each document of a docs table that holds whole components,
    /// judged by the scored pairs among them: one row per document, in order
    /// (cluster,keep,joined,why,url,source,html; no cluster yet for a document
    /// whose component needs more pairs judged), and those pairs.
    Place {
        #[command(flatten)]
        docs: Documents,
        /// Scored pair files with every judgement among these documents, in the
        /// order `dedupe` reads them (the candidates', then each round's).
        #[arg(long, value_name = "F.csv")]
        judged: Vec<PathBuf>,
        /// The verification round (1 first): after the last one, the documents
        /// still unplaced stay alone (`unsettled`).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        round: u64,
        /// Output CSV of the places.
        #[arg(long, value_name = "F.csv", value_parser = super::output::file_not_stdout)]
        out: PathBuf,
        /// Output pair file of the pairs to judge before the rest can be placed.
        #[arg(long, value_name = "F.csv", value_parser = super::output::file_not_stdout)]
        needed: PathBuf,
    },
    /// With every document of a run placed, writes the run's clusters.csv,
    /// summary.json and report.html as `dedupe` does.
    Finish {
        /// The run folder (its candidates.csv and verify-N files are counted).
        #[arg(long, value_name = "DIR")]
        run: PathBuf,
        /// The places of all documents, in the order of the docs table (`place`'s rows).
        #[arg(long, value_name = "F.csv")]
        placed: PathBuf,
    },
}

/// Documents of a run's docs table, as a driver hands them over.
#[derive(clap::Args)]
struct Documents {
    /// The documents (rows of the run's docs table).
    #[arg(long, value_name = "DOCS")]
    docs: PathBuf,
    /// Folder the document paths of DOCS are relative to [default: DOCS's folder].
    #[arg(long, value_name = "DIR")]
    base: Option<PathBuf>,
    /// The run's pair file: bodies are named as its pairs name them.
    #[arg(long, value_name = "PAIRS")]
    pairs_out: String,
}

impl Documents {
    fn members(&self) -> Result<Vec<Member>> {
        let mut corpus = Corpus::open(&self.docs)?;
        if let Some(base) = &self.base {
            corpus.base = base.clone();
        }
        dedupe::members(&corpus, &OutputPaths::new(&corpus.base, &self.pairs_out))
    }
}

/// The columns of `place`'s rows.
const PLACE_COLUMNS: [&str; 7] = ["cluster", "keep", "joined", "why", "url", "source", "html"];

pub fn run(args: Args) -> Result<()> {
    match args.step {
        Step::Joins { judged, out } => joins(&judged, &out),
        Step::Members { docs, out } => {
            let members = docs.members()?;
            super::output::write_output(&out, |w| {
                let mut csv = csv::Writer::from_writer(w);
                csv.write_record(["url", "source", "html"])?;
                for m in &members {
                    csv.write_record([&m.facts.url, &m.source, &m.html])?;
                }
                Ok(csv.flush()?)
            })
        }
        Step::Place {
            docs,
            judged,
            round,
            out,
            needed,
        } => {
            let members = docs.members()?;
            let judged = read_all(&judged)?;
            let plan = dedupe::place(&members, &judged, round as usize);
            super::output::write_output(&needed.display().to_string(), |w| {
                dedupe::write_needed(w, &members, &plan)
            })?;
            super::output::write_output(&out.display().to_string(), |w| {
                let mut csv = csv::Writer::from_writer(w);
                csv.write_record(PLACE_COLUMNS)?;
                for (member, placed) in members.iter().zip(&plan.placed) {
                    csv.write_record(place_row(member, placed.as_ref()))?;
                }
                Ok(csv.flush()?)
            })
        }
        Step::Finish { run, placed } => finish(&run, &placed),
    }
}

fn read_all(files: &[PathBuf]) -> Result<Judged> {
    let mut judged = Judged::new();
    for file in files {
        read_judged(file, &mut judged)?;
    }
    Ok(judged)
}

fn joins(files: &[PathBuf], out: &str) -> Result<()> {
    let mut edges: Vec<_> = read_all(files)?
        .into_iter()
        .filter(|(_, j)| j.joins())
        .map(|(pair, _)| pair)
        .collect();
    edges.sort_unstable();
    super::output::write_output(out, |w| {
        let mut csv = csv::Writer::from_writer(w);
        csv.write_record(["html_a", "html_b"])?;
        for (a, b) in &edges {
            csv.write_record([a, b])?;
        }
        Ok(csv.flush()?)
    })
}

fn place_row<'a>(member: &'a Member, placed: Option<&'a Placed>) -> [&'a str; 7] {
    let (cluster, keep, joined, why) = match placed {
        Some(p) => (
            p.cluster.as_str(),
            if p.keep { "1" } else { "0" },
            p.joined.as_str(),
            p.why.as_str(),
        ),
        None => ("", "", "", ""),
    };
    let m = member;
    [cluster, keep, joined, why, &m.facts.url, &m.source, &m.html]
}

/// `finish`: the run's last files from the places of all its documents.
fn finish(dir: &Path, placed: &Path) -> Result<()> {
    if ![CANDIDATES, PAIRS].iter().all(|f| dir.join(f).is_file()) {
        bail!(
            "{}: not a run whose pairs are scored (it needs {CANDIDATES} and {PAIRS})",
            dir.display(),
        );
    }
    let run = RunFolder::existing(dir)?;
    let rows = RowReader::open(placed)?;
    let columns = PLACE_COLUMNS.map(|c| rows.require(c, "is it the rows of `settle place`?"));
    let [cluster, keep, joined, why, url, source, html] = columns;
    let (cluster, keep, joined, why, url, source, html) =
        (cluster?, keep?, joined?, why?, url?, source?, html?);
    let (mut members, mut places) = (Vec::new(), Vec::new());
    for row in rows {
        let row = row?;
        let field = |i: usize| row.fields.get(i).unwrap_or("").to_string();
        if field(cluster).is_empty() {
            bail!("{}:{}: a document not placed", placed.display(), row.line);
        }
        members.push(Member {
            html: field(html),
            source: field(source),
            facts: Facts {
                url: field(url),
                ..Facts::default()
            },
        });
        places.push(Placed {
            cluster: field(cluster),
            keep: field(keep) == "1",
            joined: field(joined),
            why: field(why),
        });
    }
    let summary = dedupe::finish(&run, &members, &places)?;
    super::dedupe::say_done(&run, &summary)
}
