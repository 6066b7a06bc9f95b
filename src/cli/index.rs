//! `twinpage index add|query`: fingerprints kept on disk, new documents checked
//! against all earlier ones (the crawler's online and batch modes).

use std::path::PathBuf;

use anyhow::Result;

use super::declared::one_of;
use twinpage::candidates::corpus::{write_pairs, Corpus, DocInfo, OutputPaths};
use twinpage::candidates::index::{Index, Shard};
use twinpage::candidates::simhash::{Simhash, DEFAULT_HAMMING};
use twinpage::candidates::sketch::{self, Sketched, TextChoice};

/// A lasting index of 64-bit Charikar fingerprints (see README: the index).
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    Add(AddArgs),
    Query(QueryArgs),
}

/// What every index command takes.
#[derive(clap::Args)]
struct Common {
    /// Index folder.
    #[arg(long, value_name = "DIR")]
    index: PathBuf,
    /// docs.csv (url,html[,rendered]) or a folder of HTML files.
    #[arg(long, value_name = "DOCS")]
    docs: PathBuf,
    /// Largest Hamming distance between fingerprints.
    #[arg(long, value_name = "K", default_value_t = DEFAULT_HAMMING)]
    hamming: u32,
    /// Only this slice of the documents: those whose URL hashes (FNV-1a 64) to i modulo N.
    #[arg(long, value_name = "i/N")]
    shard: Option<Shard>,
    /// Skip documents that cannot be read (listed in OUT.skipped.csv).
    #[arg(long)]
    skip_bad: bool,
}

/// Adds documents to the index (creating it), reporting those within the distance of earlier ones.
#[derive(clap::Args)]
struct AddArgs {
    #[command(flatten)]
    common: Common,
    /// Text fingerprinted, for a new index (an existing one keeps its own) [default: core].
    #[arg(long, value_parser = one_of::<TextChoice>([
        ("core", "main content without boilerplate"),
        ("visible", "all visible text of the page"),
    ]))]
    text: Option<TextChoice>,
    /// Also write the pairs found (new against stored, and among the new ones) here, or - for stdout.
    #[arg(long, value_name = "F.csv")]
    out: Option<String>,
}

/// Finds stored documents within the distance of each new document, without adding them.
#[derive(clap::Args)]
struct QueryArgs {
    #[command(flatten)]
    common: Common,
    /// Output pair file, or - for stdout.
    #[arg(long, value_name = "F.csv", default_value = "-")]
    out: String,
}

pub fn run(args: Args) -> Result<()> {
    match args.command {
        Command::Add(a) => add(a),
        Command::Query(a) => query(a),
    }
}

/// `index add`; a run that fails leaves no index folder it created behind (a later
/// `add` would take the empty folder for an index of another `--text`).
fn add(args: AddArgs) -> Result<()> {
    let created = !args.common.index.exists();
    let outcome = add_to_index(&args);
    if outcome.is_err() && created {
        let _ = std::fs::remove_dir_all(&args.common.index);
    }
    outcome
}

fn add_to_index(args: &AddArgs) -> Result<()> {
    let c = &args.common;
    let mut index = match args.text {
        Some(text) => Index::open_or_create(&c.index, text)?,
        None if c.index.join("manifest.json").exists() => Index::open(&c.index)?,
        None => Index::open_or_create(&c.index, TextChoice::Core)?,
    };
    let (corpus, new) = sketch_new(c, &index)?;
    let found = index.matches(&new.docs, &new.sketches, c.hamming, true)?;
    if let Some(out) = &args.out {
        write_found(out, &corpus, &new, &index, &found)?;
        super::write_skipped(out, &new.skipped)?;
    }
    let kept: Vec<usize> = (0..new.docs.len())
        .filter(|&i| new.sketches[i].words > 0)
        .collect();
    let docs: Vec<DocInfo> = kept.iter().map(|&i| new.docs[i].clone()).collect();
    let fingerprints: Vec<u64> = kept.iter().map(|&i| new.sketches[i].simhash).collect();
    let added = index.add(&docs, &fingerprints, c.shard.unwrap_or(Shard::all()))?;
    eprintln!(
        "twinpage: {} {} documents ({} without text not stored); {} pairs within distance {}; index holds {}",
        if added { "added" } else { "already had these" },
        docs.len(),
        new.empty,
        found.len(),
        c.hamming,
        index.docs.len()
    );
    Ok(())
}

fn query(args: QueryArgs) -> Result<()> {
    let c = &args.common;
    let index = Index::open(&c.index)?;
    let (corpus, new) = sketch_new(c, &index)?;
    let found = index.matches(&new.docs, &new.sketches, c.hamming, false)?;
    write_found(&args.out, &corpus, &new, &index, &found)?;
    eprintln!(
        "twinpage: {} documents checked against {} stored: {} pairs within distance {}",
        new.docs.len(),
        index.docs.len(),
        found.len(),
        c.hamming
    );
    super::write_skipped(&args.out, &new.skipped)
}

/// Opens the new documents and fingerprints their slice, with absolute paths.
fn sketch_new(c: &Common, index: &Index) -> Result<(Corpus, Sketched)> {
    let simhash = Simhash::new(c.hamming)?;
    let corpus = Corpus::open(&c.docs)?;
    let shard = c.shard.unwrap_or(Shard::all());
    let paths = OutputPaths::absolute(&corpus.base);
    let text = index.manifest.text;
    let sketched =
        sketch::sketch_corpus(&corpus, &simhash, text, None, &paths, c.skip_bad, |url| {
            shard.contains(url)
        })?;
    Ok((corpus, sketched))
}

/// Writes pairs of new (a) and stored or new (b) documents.
fn write_found(
    out: &str,
    corpus: &Corpus,
    new: &Sketched,
    index: &Index,
    found: &[twinpage::candidates::Candidate],
) -> Result<()> {
    let blank = vec![String::new(); corpus.extra_headers.len()];
    let stored = index.docs.iter().map(|d| DocInfo {
        extra: blank.clone(),
        ..d.clone()
    });
    let docs: Vec<DocInfo> = new.docs.iter().cloned().chain(stored).collect();
    super::write_output(out, |w| {
        write_pairs(
            w,
            &docs,
            &corpus.extra_headers,
            "simhash",
            &["hamming"],
            found,
        )
    })
}
