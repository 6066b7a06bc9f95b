//! `twinpage cluster`: clusters of documents from a scored pair file.

use std::path::PathBuf;

use anyhow::{bail, Result};

use crate::candidates::cluster::clusters;
use crate::document::rows::RowReader;

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
    let path = &args.scored;
    let rows = RowReader::open(path)?;
    let needs = "is it the output of `twinpage score`?";
    let [url_a, url_b, html_a, html_b, decision] =
        ["url_a", "url_b", "html_a", "html_b", "decision"].map(|name| rows.require(name, needs));
    let (url_a, url_b, html_a, html_b, decision) = (url_a?, url_b?, html_a?, html_b?, decision?);
    let mut urls: std::collections::BTreeMap<String, String> = Default::default();
    let mut pairs: Vec<(String, String)> = Vec::new();
    for row in rows {
        let row = row?;
        let (r, line) = (&row.fields, row.line);
        let (a, b) = (r[html_a].trim().to_string(), r[html_b].trim().to_string());
        if a.is_empty() || b.is_empty() {
            bail!("{}:{line}: empty html_a or html_b", path.display());
        }
        urls.entry(a.clone())
            .or_insert_with(|| r[url_a].trim().to_string());
        urls.entry(b.clone())
            .or_insert_with(|| r[url_b].trim().to_string());
        match r[decision].trim() {
            "duplicate" => pairs.push((a, b)),
            "distinct" | "review" => {}
            other => bail!(
                "{}:{line}: column `decision`: `{other}` is not duplicate, distinct or review",
                path.display()
            ),
        }
    }
    let found = clusters(
        urls.keys().map(String::as_str),
        pairs.iter().map(|(a, b)| (a.as_str(), b.as_str())),
        args.max_size,
    );
    super::write_output(&args.out, |w| {
        let mut csv = csv::Writer::from_writer(w);
        csv.write_record(["cluster", "size", "status", "url", "html"])?;
        for c in &found {
            let status = if c.too_large { "too-large" } else { "ok" };
            for m in &c.members {
                csv.write_record([
                    c.id.as_str(),
                    &c.members.len().to_string(),
                    status,
                    &urls[m],
                    m,
                ])?;
            }
        }
        csv.flush()?;
        Ok(())
    })?;
    let multi = found.iter().filter(|c| c.members.len() > 1).count();
    let large: Vec<&str> = found
        .iter()
        .filter(|c| c.too_large)
        .map(|c| c.id.as_str())
        .collect();
    eprintln!(
        "twinpage: {} documents in {} clusters ({multi} with more than one document)",
        urls.len(),
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
