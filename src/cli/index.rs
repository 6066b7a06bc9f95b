//! `twinpage index add|query`: fingerprints kept on disk, new documents checked
//! against all earlier ones (the crawler's online and batch modes).

use std::path::PathBuf;

use anyhow::Result;

use super::declared::one_of;
use twinpage::candidates::corpus::{write_pairs, Corpus, DocInfo, OutputPaths};
use twinpage::candidates::index::{Index, Matching, Shard};
use twinpage::candidates::lsh::{self, Lsh};
use twinpage::candidates::simhash::DEFAULT_HAMMING;
use twinpage::candidates::sketch::{self, Reading, RenderedText, Sketched, TextChoice};
use twinpage::candidates::Candidate;

/// A lasting index of min-hash signatures and 64-bit Charikar fingerprints (see docs/candidates.md).
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
    /// How documents match: estimated Jaccard of their min-hash signatures (lsh) or
    /// Hamming distance of their 64-bit fingerprints (simhash).
    #[arg(long, default_value = "lsh", value_parser = one_of::<IndexMethod>([
        ("lsh", "estimated Jaccard of the word shingles at least --threshold"),
        ("simhash", "fingerprints within Hamming distance --hamming"),
    ]))]
    method: IndexMethod,
    /// lsh: smallest estimated Jaccard of a pair.
    #[arg(long, value_name = "J", default_value_t = lsh::Params::default().threshold)]
    threshold: f64,
    /// simhash: largest Hamming distance between fingerprints.
    #[arg(long, value_name = "K", default_value_t = DEFAULT_HAMMING)]
    hamming: u32,
    /// Also pair record pages (a product, a paper) by the rare words of their names and
    /// their identifiers, as `candidates --records` does: the pairs a search of every
    /// stored and new record finds for the new ones. (`add` stores the records always.)
    #[arg(long)]
    records: bool,
    /// Only this slice of the documents: those whose URL hashes (FNV-1a 64) to i modulo N.
    #[arg(long, value_name = "i/N")]
    shard: Option<Shard>,
    /// Skip documents that cannot be read (listed in OUT.skipped.csv).
    #[arg(long)]
    skip_bad: bool,
    /// Render in Chromium (and cache) the documents that have no stored or cached render.
    #[arg(long, conflicts_with = "no_render")]
    render_missing: bool,
    /// Where rendered bodies are found: a document's text is taken from its stored
    /// render (docs.csv column `rendered`) or cached render when it has one.
    #[command(flatten)]
    rendering: super::inputs::RenderArgs,
}

/// How an index matches documents.
#[derive(Clone, Copy, PartialEq, Eq)]
enum IndexMethod {
    Lsh,
    Simhash,
}

impl std::str::FromStr for IndexMethod {
    type Err = anyhow::Error;

    fn from_str(name: &str) -> Result<IndexMethod> {
        match name {
            "lsh" => Ok(IndexMethod::Lsh),
            "simhash" => Ok(IndexMethod::Simhash),
            _ => anyhow::bail!("method `{name}`: use lsh or simhash"),
        }
    }
}

impl Common {
    /// The matching asked for, with the index's LSH at the threshold asked for.
    fn matching<'a>(&self, lsh: &'a Lsh) -> Matching<'a> {
        match self.method {
            IndexMethod::Lsh => Matching::Jaccard(lsh),
            IndexMethod::Simhash => Matching::Hamming(self.hamming),
        }
    }

    /// The pairs of the new documents and the stored ones (and, `within_batch`, of
    /// two new ones) that the matching asked for finds, and their records with `--records`.
    fn found(
        &self,
        index: &Index,
        new: &Sketched,
        lsh: &Lsh,
        within_batch: bool,
    ) -> Result<Vec<Candidate>> {
        if self.records && index.without_records > 0 {
            eprintln!(
                "twinpage: warning: {} stored documents were added before the index kept records, \
                 and are paired by their text alone: add them again to pair their records",
                index.without_records
            );
        }
        let records = self.records.then_some(&new.record_keys[..]);
        let matching = self.matching(lsh);
        index.matches(&new.docs, &new.sketches, records, &matching, within_batch)
    }

    /// What a pair's evidence is, for the output and the summary.
    fn evidence(&self) -> (&'static str, &'static str, String) {
        match self.method {
            IndexMethod::Lsh => (
                "lsh",
                "estimated_jaccard",
                format!("with estimated Jaccard >= {}", self.threshold),
            ),
            IndexMethod::Simhash => (
                "simhash",
                "hamming",
                format!("within Hamming distance {}", self.hamming),
            ),
        }
    }
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
    let lsh = index.lsh(c.threshold)?;
    let (corpus, new) = sketch_new(c, &index, &lsh, true)?;
    let found = c.found(&index, &new, &lsh, true)?;
    if let Some(out) = &args.out {
        write_found(out, c, &corpus, &new, &index, &found)?;
        super::output::write_skipped(out, &new.skipped)?;
    }
    let kept: Vec<usize> = (0..new.docs.len())
        .filter(|&i| new.sketches[i].words > 0)
        .collect();
    let docs: Vec<DocInfo> = kept.iter().map(|&i| new.docs[i].clone()).collect();
    let sketches: Vec<_> = kept.iter().map(|&i| new.sketches[i].clone()).collect();
    let records: Vec<_> = kept.iter().map(|&i| new.record_keys[i].clone()).collect();
    let added = index.add(&docs, &sketches, &records, c.shard.unwrap_or(Shard::all()))?;
    eprintln!(
        "twinpage: {} {} documents ({} without text not stored); {} pairs {}; index holds {}",
        if added { "added" } else { "already had these" },
        docs.len(),
        new.empty,
        found.len(),
        c.evidence().2,
        index.docs.len()
    );
    Ok(())
}

fn query(args: QueryArgs) -> Result<()> {
    let c = &args.common;
    let index = Index::open(&c.index)?;
    let lsh = index.lsh(c.threshold)?;
    let (corpus, new) = sketch_new(c, &index, &lsh, c.records)?;
    let found = c.found(&index, &new, &lsh, false)?;
    write_found(&args.out, c, &corpus, &new, &index, &found)?;
    eprintln!(
        "twinpage: {} documents checked against {} stored: {} pairs {}",
        new.docs.len(),
        index.docs.len(),
        found.len(),
        c.evidence().2
    );
    super::output::write_skipped(&args.out, &new.skipped)
}

/// Opens the new documents and sketches their slice with the index's `lsh`
/// (fingerprint and signature; with `records`, their record keys), with absolute paths.
fn sketch_new(c: &Common, index: &Index, lsh: &Lsh, records: bool) -> Result<(Corpus, Sketched)> {
    let corpus = Corpus::open(&c.docs)?;
    let shard = c.shard.unwrap_or(Shard::all());
    let paths = OutputPaths::absolute(&corpus.base);
    let reading = Reading {
        text: index.manifest.text,
        records,
    };
    let rendered = match c.rendering.settings()? {
        Some(settings) => Some(RenderedText::new(settings, c.render_missing)?),
        None => None,
    };
    let sketched = sketch::sketch_corpus(
        &corpus,
        lsh,
        reading,
        rendered.as_ref(),
        &paths,
        c.skip_bad,
        |url| shard.contains(url),
    )?;
    Ok((corpus, sketched))
}

/// Writes pairs of new (a) and stored or new (b) documents.
fn write_found(
    out: &str,
    c: &Common,
    corpus: &Corpus,
    new: &Sketched,
    index: &Index,
    found: &[Candidate],
) -> Result<()> {
    let blank = vec![String::new(); corpus.extra_headers.len()];
    let stored = index.docs.iter().map(|d| DocInfo {
        extra: blank.clone(),
        ..d.clone()
    });
    let docs: Vec<DocInfo> = new.docs.iter().cloned().chain(stored).collect();
    let (method, evidence, _) = c.evidence();
    super::output::write_output(out, |w| {
        write_pairs(w, &docs, &corpus.extra_headers, method, &[evidence], found)
    })
}
