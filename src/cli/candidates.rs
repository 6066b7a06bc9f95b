//! `twinpage candidates`: the pairs worth classifying in a whole corpus.

use std::path::PathBuf;

use anyhow::Result;

use super::declared::{one_of, Declared, Methods};
use twinpage::candidates::corpus::{write_pairs, Corpus, OutputPaths};
use twinpage::candidates::sketch::{self, Reading, RenderedText, Sites, TextChoice};
use twinpage::candidates::{method_named, Method, METHODS};

/// Candidate pairs from docs.csv or a folder: a pair file `score` takes as it is.
#[derive(clap::Args)]
pub struct Args {
    /// docs.csv (url,html[,rendered]; other columns kept as NAME_a/NAME_b) or a folder of HTML files.
    #[arg(long, value_name = "DOCS")]
    docs: PathBuf,
    /// Output pair file, or - for stdout.
    #[arg(long, value_name = "F.csv", default_value = "-")]
    out: String,
    /// Candidate generator.
    #[arg(long, default_value = METHODS[0].name, value_parser = method_names())]
    method: String,
    /// Keep all pairs, only same-site pairs (one registered domain) or only cross-site pairs.
    #[arg(long, default_value = "all", value_parser = one_of::<Sites>([
        ("all", "every pair"),
        ("same", "both URLs on one registered domain (the hard case of the seeds)"),
        ("cross", "URLs on different registered domains (or unknown)"),
    ]))]
    sites: Sites,
    /// Skip documents that cannot be read (listed in OUT.skipped.csv).
    #[arg(long)]
    skip_bad: bool,
    /// Text fingerprinted.
    #[arg(long, default_value = "core", value_parser = one_of::<TextChoice>([
        CORE_TEXT,
        VISIBLE_TEXT,
        ("both", "each of the two fingerprinted, a pair found on either kept (as `dedupe` \
            does; a pair's evidence is its core content's when both find it), and of the pairs \
            only the visible text finds, each document's 8 nearest; of those the core finds, its 32 \
            nearest"),
    ]))]
    text: TextChoice,
    /// Also pair record pages (a product, a paper) by the rare words of their names
    /// and their identifiers: each record's 3 nearest on other sites (as `dedupe` does). Two
    /// catalogues' pages of one product share little text.
    #[arg(long)]
    records: bool,
    #[command(flatten)]
    params: MethodArgs,
    /// Render in Chromium (and cache) the documents that have no stored or cached
    /// render [default: their fetched body is fingerprinted].
    #[arg(long, conflicts_with = "no_render")]
    render_missing: bool,
    /// Where rendered bodies are found: a document's text is taken from its stored
    /// render (docs.csv column `rendered`) or cached render when it has one.
    #[command(flatten)]
    rendering: super::inputs::RenderArgs,
}

/// The candidate methods, for `--method`.
fn method_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        METHODS
            .iter()
            .map(|m| clap::builder::PossibleValue::new(m.name).help(m.about)),
    )
}

/// `--text core` and `--text visible`, as every command that fingerprints offers them.
pub(super) const CORE_TEXT: (&str, &str) = (
    "core",
    "main content without boilerplate (slower; the method's notion of duplicate)",
);
pub(super) const VISIBLE_TEXT: (&str, &str) = (
    "visible",
    "all visible text of the page (faster; templates weigh in)",
);

/// The method's parameters, as every command that fingerprints documents takes
/// them (candidates, baseline).
#[derive(clap::Args)]
pub(super) struct MethodArgs {
    #[command(flatten)]
    pub params: Declared<Methods>,
}

impl MethodArgs {
    /// The method called `name` with the parameters given, refusing parameters
    /// of other methods (they would be silently ignored).
    pub fn method(&self, name: &str) -> Result<Box<dyn Method>> {
        let kind = method_named(name)?;
        let owner = format!("method {}", kind.name);
        self.params.values.check_known(kind.params, &owner)?;
        (kind.build)(&self.params.values)
    }
}

pub fn run(args: Args) -> Result<()> {
    let method = args.params.method(&args.method)?;
    let corpus = Corpus::open(&args.docs)?;
    let paths = OutputPaths::new(&corpus.base, &args.out);
    let reading = Reading {
        text: args.text,
        records: args.records,
    };
    let rendered = match args.rendering.settings()? {
        Some(settings) => Some(RenderedText::new(settings, args.render_missing)?),
        None => None,
    };
    let sketched = sketch::sketch_corpus(
        &corpus,
        method.as_ref(),
        reading,
        rendered.as_ref(),
        &paths,
        args.skip_bad,
        |_| true,
    )?;
    let pairs = sketched.pairs(method.as_ref())?;
    let pairs = sketch::filter_sites(pairs, &sketched.docs, args.sites);
    super::output::write_output(&args.out, |w| {
        write_pairs(
            w,
            &sketched.docs,
            &corpus.extra_headers,
            method.kind().name,
            method.kind().evidence,
            &pairs,
        )
    })?;
    eprintln!(
        "twinpage: {} documents ({} fingerprinted rendered, {} without text), {} candidate pairs by {}",
        sketched.docs.len(),
        sketched.rendered,
        sketched.empty,
        pairs.len(),
        method.kind().name
    );
    super::output::write_skipped(&args.out, &sketched.skipped)
}
