//! `twinpage sketch`: the per-document MinHash LSH sketch of a docs file, for a
//! driver that finds the pairs elsewhere (the Spark driver in `scale/`).
//!
//! `candidates --method lsh` sketches every document and joins them on band keys
//! in one process. A cluster splits that in two: each executor sketches its share
//! of the docs table with this command, and the engine joins on the band keys and
//! verifies each pair by its estimated Jaccard. So this command writes, for every
//! input row and in input order, what that needs and nothing more: the row's
//! pair-file columns exactly as `candidates --out PAIRS` would write them, the
//! registered domain (for `--sites`), the band keys and the min-values (with
//! `--text both`, of the core content and of the whole visible text: the driver
//! joins each text on its own keys), and with `--records` the record keys the
//! driver pairs record pages on.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::declared::one_of;
use twinpage::candidates::corpus::{Corpus, CorpusDoc, OutputPaths};
use twinpage::candidates::lsh::{self, Lsh};
use twinpage::candidates::sketch::{
    sketch_documents, DocSketch, Reading, RenderedText, Sites, TextChoice,
};
use twinpage::candidates::Sketch;
use twinpage::document::rows::RowReader;
use twinpage::document::url::UrlParts;

/// Per-document LSH sketches (band keys, min-values) of a docs file, one row per input row.
#[derive(clap::Args)]
pub struct Args {
    /// docs.csv (url,html[,rendered]; other columns are echoed after the sketch's own).
    #[arg(long, value_name = "DOCS", required_unless_present_any = ["plan", "verify"])]
    docs: Option<PathBuf>,
    /// Output CSV: url,html,rendered,domain,status,words,bands,minhashes,
    /// visible_bands,visible_minhashes,record_keys,error, then the docs file's other
    /// columns (visible_* only with --text both, record_keys only with --records);
    /// - for stdout.
    #[arg(long, value_name = "F.csv", default_value = "-")]
    out: String,
    /// Folder the document paths of DOCS are relative to [default: DOCS's folder]
    /// (a driver's partition file stands in for a docs.csv elsewhere).
    #[arg(long, value_name = "DIR")]
    base: Option<PathBuf>,
    /// The pair file the sketches' pairs will go to: paths are written as
    /// `candidates --out PAIRS` writes them [default: as for stdout].
    #[arg(long, value_name = "PAIRS", default_value = "-")]
    pairs_out: String,
    /// Print the method's parameters and banding as JSON and exit (what a driver
    /// needs to verify pairs), after checking them.
    #[arg(long)]
    plan: bool,
    /// Text fingerprinted (as `candidates --text`).
    #[arg(long, default_value = "core", value_parser = one_of::<TextChoice>([
        ("core", "main content without boilerplate"),
        ("visible", "all visible text of the page"),
        ("both", "core content in bands/minhashes, all visible text in visible_bands/visible_minhashes"),
    ]))]
    text: TextChoice,
    /// Also write each record page's record keys (the words of its name, brand and
    /// model, and its identifiers), which the driver pairs records on as
    /// `candidates --records` does.
    #[arg(long)]
    records: bool,
    /// Jaccard of the word shingles from which two documents are a candidate pair.
    #[arg(long, value_name = "J", default_value_t = lsh::Params::default().threshold)]
    threshold: f64,
    /// Min-hash values per document.
    #[arg(long, value_name = "N", default_value_t = lsh::Params::default().hashes)]
    lsh_hashes: usize,
    /// Words per shingle.
    #[arg(long, value_name = "N", default_value_t = lsh::Params::default().shingle_words)]
    lsh_shingle_words: usize,
    /// Verify pairs instead of sketching: a CSV of `a,b,minhashes_a,minhashes_b,
    /// domain_a,domain_b` (the documents' ids, and their min-values and domains as
    /// sketched) in, `a,b,estimated_jaccard` out for each pair `candidates` would
    /// keep (the driver has joined the documents on their band keys).
    #[arg(long, value_name = "LOOKED.csv", conflicts_with_all = ["docs", "plan"])]
    verify: Option<PathBuf>,
    /// With --verify: which pairs to keep, by the registered domains of their URLs.
    #[arg(long, default_value = "all", requires = "verify", value_parser = one_of::<Sites>([
        ("all", "every pair"),
        ("same", "both URLs on one registered domain"),
        ("cross", "URLs on different registered domains (or unknown)"),
    ]))]
    sites: Sites,
    /// Render in Chromium (and cache) the documents that have no stored or cached render.
    #[arg(long, conflicts_with = "no_render")]
    render_missing: bool,
    /// Render in Chromium (and cache) only the pages that look built by script
    /// (scripted, their fetched text thin), as `dedupe` does.
    #[arg(long, conflicts_with_all = ["no_render", "render_missing"])]
    render_thin: bool,
    /// Where rendered bodies are found (as `candidates`: a stored or cached render's
    /// text is sketched instead of the fetched body's).
    #[command(flatten)]
    rendering: super::inputs::RenderArgs,
}

/// The sketch's own columns, before the docs file's other ones.
const COLUMNS: [&str; 12] = [
    "url",
    "html",
    "rendered",
    "domain",
    "status",
    "words",
    "bands",
    "minhashes",
    "visible_bands",
    "visible_minhashes",
    "record_keys",
    "error",
];
/// Positions of `status` (ok, unreadable: the document cannot be read, bad-row: the
/// row is not a document) and of `error` (why) in [`COLUMNS`].
const STATUS: usize = 4;
const ERROR: usize = 11;

/// Rows sketched together on all threads (as `candidates` does).
const CHUNK: usize = 256;

pub fn run(args: Args) -> Result<()> {
    let lsh = Lsh::new(lsh::Params {
        threshold: args.threshold,
        hashes: args.lsh_hashes,
        shingle_words: args.lsh_shingle_words,
    })?;
    if args.plan {
        let banding = lsh.banding();
        let plan = serde_json::json!({
            "method": lsh::KIND.name,
            "evidence": lsh::KIND.evidence,
            "threshold": args.threshold,
            "hashes": args.lsh_hashes,
            "bands": banding.bands,
            "rows": banding.rows,
        });
        outln!("{plan}")?;
        return Ok(());
    }
    if let Some(looked) = &args.verify {
        return verify(looked, &lsh, args.sites, &args.out);
    }
    let Some(docs) = &args.docs else {
        bail!("--docs is needed (a docs.csv)");
    };
    if docs.is_dir() {
        bail!(
            "{}: give a docs.csv (url,html); `sketch` reads a table, not a folder",
            docs.display()
        );
    }
    let mut corpus = Corpus::open(docs)?;
    if let Some(base) = &args.base {
        corpus.base = base.clone();
    }
    let rendered = match args.rendering.settings()? {
        Some(settings) if args.render_thin => Some(RenderedText::for_thin_pages(settings)?),
        Some(settings) => Some(RenderedText::new(settings, args.render_missing)?),
        None => None,
    };
    let paths = OutputPaths::new(&corpus.base, &args.pairs_out);
    let mut rows = corpus.documents()?;
    super::output::write_output(&args.out, |w| {
        let mut csv = csv::Writer::from_writer(w);
        csv.write_record(
            COLUMNS
                .iter()
                .copied()
                .chain(corpus.extra_headers.iter().map(String::as_str)),
        )?;
        loop {
            let chunk: Vec<Result<CorpusDoc>> = rows.by_ref().take(CHUNK).collect();
            if chunk.is_empty() {
                break;
            }
            let docs: Vec<CorpusDoc> = chunk
                .iter()
                .filter_map(|d| d.as_ref().ok().cloned())
                .collect();
            let reading = Reading {
                text: args.text,
                records: args.records,
            };
            let mut sketched =
                sketch_documents(&docs, &lsh, reading, rendered.as_ref())?.into_iter();
            for doc in &chunk {
                // Rows that are not documents were not sketched.
                let sketch = match doc {
                    Ok(_) => sketched.next().expect("a sketch per document"),
                    Err(_) => Ok(DocSketch::default()),
                };
                let doc = match doc {
                    Ok(doc) => doc,
                    // Not a document (an empty html path, a malformed row): an error of
                    // `candidates` whatever --skip-bad says; reported in place, so that
                    // the driver can name the row of its own table.
                    Err(e) => {
                        let mut row =
                            vec![String::new(); COLUMNS.len() + corpus.extra_headers.len()];
                        row[STATUS] = "bad-row".into();
                        row[ERROR] = format!("{e:#}");
                        csv.write_record(&row)?;
                        continue;
                    }
                };
                let info = paths.info(doc);
                let (status, words, texts, record_keys, error) = match sketch {
                    Ok(s) => {
                        let visible = s.visible.as_ref().map(|v| banded(&lsh, v));
                        let texts = [banded(&lsh, &s.sketch), visible.unwrap_or_default()];
                        let keys = hex(&s.record_keys, " ");
                        ("ok", s.sketch.words.to_string(), texts, keys, String::new())
                    }
                    // Not fatal here: the driver applies --skip-bad.
                    Err(e) => (
                        "unreadable",
                        String::new(),
                        Default::default(),
                        String::new(),
                        format!("{e:#}"),
                    ),
                };
                let [[bands, minhashes], [visible_bands, visible_minhashes]] = texts;
                let domain = UrlParts::parse(&info.url).domain;
                let fixed = [
                    info.url.as_str(),
                    &info.html,
                    &info.rendered,
                    &domain,
                    status,
                    &words,
                    &bands,
                    &minhashes,
                    &visible_bands,
                    &visible_minhashes,
                    &record_keys,
                    &error,
                ];
                csv.write_record(
                    fixed
                        .into_iter()
                        .chain(info.extra.iter().map(String::as_str)),
                )?;
            }
        }
        csv.flush()?;
        Ok(())
    })
}

/// A sketch's band keys and min-values as written; values only where there are
/// keys (no pair without a band).
fn banded(lsh: &Lsh, sketch: &Sketch) -> [String; 2] {
    let keys = lsh.band_keys(sketch);
    if keys.is_empty() {
        return Default::default();
    }
    let values = lsh.min_values(sketch);
    [
        hex(&keys, " "),
        values.iter().map(|v| format!("{v:04x}")).collect(),
    ]
}

/// The pairs of `looked` that `candidates` keeps, with their evidence.
fn verify(looked: &Path, lsh: &Lsh, sites: Sites, out: &str) -> Result<()> {
    let rows = RowReader::open(looked)?;
    let needs = "a driver's pairs to verify";
    let columns = [
        "a",
        "b",
        "minhashes_a",
        "minhashes_b",
        "domain_a",
        "domain_b",
    ]
    .map(|c| rows.require(c, needs));
    let [a, b, values_a, values_b, domain_a, domain_b] = columns;
    let (a, b, values_a, values_b, domain_a, domain_b) =
        (a?, b?, values_a?, values_b?, domain_a?, domain_b?);
    super::output::write_output(out, |w| {
        let mut csv = csv::Writer::from_writer(w);
        csv.write_record(["a", "b", lsh::KIND.evidence[0]])?;
        for row in rows {
            let row = row?;
            let field = |i: usize| row.fields.get(i).unwrap_or("");
            let at = || format!("{}:{}", looked.display(), row.line);
            if !sites.keeps(field(domain_a), field(domain_b)) {
                continue;
            }
            let (va, vb) = (min_values(field(values_a)), min_values(field(values_b)));
            let (Some(va), Some(vb)) = (va, vb) else {
                bail!("{}: min-values are 4 hex digits each", at());
            };
            let judged = lsh.judge_min_values(&va, &vb).with_context(at)?;
            if let Some(evidence) = judged {
                csv.write_record([field(a), field(b), &evidence[0]])?;
            }
        }
        Ok(csv.flush()?)
    })
}

/// Min-values as `sketch` writes them: 4 hex digits each.
fn min_values(hex: &str) -> Option<Vec<u16>> {
    if !hex.len().is_multiple_of(4) || !hex.is_ascii() {
        return None;
    }
    (0..hex.len())
        .step_by(4)
        .map(|i| u16::from_str_radix(&hex[i..i + 4], 16).ok())
        .collect()
}

/// Band keys as fixed-width lowercase hex, joined by `sep`.
fn hex(values: &[u64], sep: &str) -> String {
    values
        .iter()
        .map(|v| format!("{v:016x}"))
        .collect::<Vec<_>>()
        .join(sep)
}
