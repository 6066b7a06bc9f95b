//! `twinpage cluster`: clusters of documents from a scored pair file.

use std::path::PathBuf;

use anyhow::Result;

use twinpage::candidates::cluster::{clusters, write_clusters};
use twinpage::pipeline::scored;

/// Clusters of near-duplicates: union-find over the pairs decided duplicate.
#[derive(clap::Args)]
pub struct Args {
    /// A pair file scored by `twinpage score` (needs url_a,url_b,html_a,html_b,decision).
    #[arg(long, value_name = "F.csv")]
    scored: PathBuf,
    /// Output: cluster,size,status,url,html, one row per document; - for stdout.
    #[arg(long, value_name = "F.csv", default_value = "-")]
    out: String,
    /// Clusters larger than this are marked too-large (a likely chain), not trusted.
    #[arg(long, value_name = "N", default_value_t = 50)]
    max_size: usize,
}

pub fn run(args: Args) -> Result<()> {
    let decided = scored::read_decided(&args.scored)?;
    let found = clusters(
        decided.documents.keys().map(String::as_str),
        decided
            .duplicates
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str())),
        args.max_size,
    );
    super::output::write_output(&args.out, |w| write_clusters(w, &found, &decided.documents))?;
    let multi = found.iter().filter(|c| c.members.len() > 1).count();
    let large: Vec<&str> = found
        .iter()
        .filter(|c| c.too_large)
        .map(|c| c.id.as_str())
        .collect();
    eprintln!(
        "twinpage: {} documents in {} clusters ({multi} with more than one document)",
        decided.documents.len(),
        found.len()
    );
    if !large.is_empty() {
        eprintln!(
            "twinpage: {} cluster(s) above --max-size {} marked too-large (likely chains; check their pairs): {}",
            large.len(),
            args.max_size,
            large.join(", ")
        );
    }
    Ok(())
}
