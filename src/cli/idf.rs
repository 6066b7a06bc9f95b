//! `twinpage idf`: rebuild the idf table shipped in the binary.

use std::path::PathBuf;

use anyhow::Result;
use rayon::prelude::*;

use twinpage::document::{decode, Document, IdfTable};
use twinpage::util::write_atomically;

/// Build the tf-idf document-frequency table from folders of pages (maintainers' tool).
#[derive(clap::Args)]
#[command(hide = true)]
pub struct Args {
    /// Folders searched recursively for .html / .html.gz pages.
    #[arg(long, value_name = "DIR", required = true)]
    pages: Vec<PathBuf>,
    /// Where to write the table (crates/twinpage/src/document/idf.tsv to ship it).
    #[arg(long, value_name = "FILE", value_parser = super::output::file_not_stdout)]
    out: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    let mut files = Vec::new();
    for dir in &args.pages {
        files.extend(decode::html_files(dir)?);
    }
    files.sort();
    let texts: Vec<String> = files
        .par_iter()
        .filter_map(|p| decode::read_body(p).ok())
        .map(|body| Document::from_body(&body, &IdfTable::default()).visible_text)
        .collect();
    let table = IdfTable::build_tsv(texts.iter().map(String::as_str));
    write_atomically(&args.out, |w| Ok(w.write_all(table.as_bytes())?))?;
    eprintln!(
        "idf table from {} pages written to {}",
        texts.len(),
        args.out.display()
    );
    Ok(())
}
