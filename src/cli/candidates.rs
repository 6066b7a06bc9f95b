//! `twinpage candidates`: the pairs worth classifying in a whole corpus.

use std::path::PathBuf;

use anyhow::Result;

use crate::candidates::corpus::{write_pairs, Corpus, OutputPaths};
use crate::candidates::sketch::{self, Method, Settings, Sites, TextChoice};
use crate::candidates::{combined, minhash, pugh};

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
    #[arg(long, value_enum, default_value_t = Method::Simhash)]
    method: Method,
    /// Keep all pairs, only same-site pairs (one registered domain) or only cross-site pairs.
    #[arg(long, value_enum, default_value_t = Sites::All)]
    sites: Sites,
    /// Skip documents that cannot be read (listed in OUT.skipped.csv).
    #[arg(long)]
    skip_bad: bool,
    #[command(flatten)]
    params: MethodArgs,
}

/// The parameters of the candidate methods (shared by candidates, index, baseline).
#[derive(clap::Args, Debug)]
pub(super) struct MethodArgs {
    /// Text fingerprinted: core content (default) or all visible text (faster).
    #[arg(long, value_enum, default_value_t = TextChoice::Core)]
    pub text: TextChoice,
    /// simhash: largest Hamming distance between 64-bit fingerprints.
    #[arg(long, value_name = "K", default_value_t = 3)]
    pub hamming: u32,
    /// minhash/combined: words per shingle.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub shingle_words: usize,
    /// minhash/combined: min-hash functions.
    #[arg(long, value_name = "N", default_value_t = 84)]
    pub minhashes: usize,
    /// minhash/combined: supershingles (each of minhashes/supershingles min-values).
    #[arg(long, value_name = "N", default_value_t = 6)]
    pub supershingles: usize,
    /// minhash/combined: supershingles a pair must share.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub min_shared: usize,
    /// combined: agreeing bits of the 384-bit Charikar fingerprints that confirm a Broder pair.
    #[arg(long, value_name = "BITS", default_value_t = 372)]
    pub min_agreeing: u32,
    /// combined: also keep every pair within this 64-bit Hamming distance (recall union).
    #[arg(long, value_name = "K")]
    pub union_hamming: Option<u32>,
    /// pugh: lists per partition.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub pugh_lists: usize,
    /// pugh: independent partitions.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub pugh_repeats: usize,
}

impl MethodArgs {
    pub fn settings(&self, method: Method) -> Result<Settings> {
        let broder = minhash::Params {
            shingle_words: self.shingle_words,
            minhashes: self.minhashes,
            supershingles: self.supershingles,
            min_shared: self.min_shared,
            seed: 0,
        };
        let settings = Settings {
            method,
            text: self.text,
            hamming: self.hamming,
            minhash: broder,
            combined: combined::Params {
                broder,
                min_agreeing: self.min_agreeing,
                union_hamming: self.union_hamming,
                ..combined::Params::default()
            },
            pugh: pugh::Params {
                lists: self.pugh_lists,
                repeats: self.pugh_repeats,
            },
            sites: Sites::All,
        };
        settings.check()?;
        Ok(settings)
    }
}

pub fn run(args: Args) -> Result<()> {
    let settings = Settings {
        sites: args.sites,
        ..args.params.settings(args.method)?
    };
    let corpus = Corpus::open(&args.docs)?;
    let paths = OutputPaths::new(&corpus.base, &args.out);
    let sketched = sketch::sketch_corpus(&corpus, &settings, &paths, args.skip_bad, |_| true)?;
    let pairs = sketch::find_pairs(&sketched.sketches, &settings)?;
    let pairs = sketch::filter_sites(pairs, &sketched.docs, settings.sites);
    super::write_output(&args.out, |w| {
        write_pairs(
            w,
            &sketched.docs,
            &corpus.extra_headers,
            settings.method.name(),
            settings.method.evidence_columns(),
            &pairs,
        )
    })?;
    eprintln!(
        "twinpage: {} documents ({} without text), {} candidate pairs by {}",
        sketched.docs.len(),
        sketched.empty,
        pairs.len(),
        settings.method.name()
    );
    super::write_skipped(&args.out, &sketched.skipped)
}
