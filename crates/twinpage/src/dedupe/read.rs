//! The first stage: a crawl's pages written once into the run folder.
//!
//! Each page's fetched body goes to `pages/<hash>.html` (named by its content, so
//! a page captured twice with the same bytes is one file, and a rerun rewrites
//! nothing), and `docs.csv` lists every page with where it was read (`source`),
//! when it was captured and the canonical URL it names: what the keep rule needs.
//! `index.json` keeps where every archived response is (URL → file, offset), so
//! the pages replay later without the crawl being read again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};

use super::run::RunFolder;
use twinpage_crawl::{read_crawl, Index, Page};
use twinpage_render::{Archive, ReplayOf, Replays};
use twinpage_util::write_atomically;

/// The stage's outputs.
pub const DOCS: &str = "docs.csv";
pub const UNREADABLE: &str = "unreadable.csv";
/// What reading found (records, pages, the unreadable), for the summary.
pub const READ_REPORT: &str = "read.json";
/// Where every archived response is (URL → file and offset), for replay.
pub const INDEX: &str = "index.json";
const PAGES: &str = "pages";
/// Plain copies of WARC files gzipped as one stream, read instead of them.
const UNZIPPED: &str = "unzipped";

/// What reading found.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct ReadReport {
    pub records: usize,
    pub pages: usize,
    /// Records and lines that could not be read, each `SOURCE: why`.
    pub unreadable: Vec<String>,
}

/// Reads the crawls into the run folder, unless an earlier run did.
pub fn read_into(inputs: &[PathBuf], run: &RunFolder) -> Result<ReadReport> {
    if run.done(DOCS) {
        return read_report(run);
    }
    let pages = run.path(PAGES);
    std::fs::create_dir_all(&pages)
        .with_context(|| format!("cannot create {}", pages.display()))?;
    let mut rows: Vec<[String; 5]> = Vec::new();
    let crawl = read_crawl(inputs, &run.path(UNZIPPED), |page| {
        let body = page.fetched_body();
        let name = format!("{}.html", &blake3::hash(&body).to_hex()[..20]);
        let path = pages.join(&name);
        if !path.is_file() {
            write_atomically(&path, |w| Ok(w.write_all(&body)?))?;
        }
        rows.push(row(&page, &body, format!("{PAGES}/{name}")));
        if rows.len().is_multiple_of(1000) {
            eprintln!("twinpage: dedupe: read {} pages", rows.len());
        }
        Ok(())
    })?;
    for file in crawl.files.iter() {
        if let Some(plain) = file.unzipped() {
            eprintln!(
                "twinpage: dedupe: {} is gzipped as one stream (not a member per record), so its records were read from a copy unzipped once, {}; sources give offsets in that copy",
                file.path.display(),
                plain.display()
            );
        }
    }
    // The crawl's index is kept, so its pages replay without reading it again.
    let index = Index::new(&crawl);
    write_atomically(&run.path(INDEX), |w| index.write(w))?;
    let report = ReadReport {
        records: crawl.records,
        pages: rows.len(),
        unreadable: crawl.unreadable,
    };
    write_atomically(&run.path(UNREADABLE), |w| {
        let mut csv = csv::Writer::from_writer(w);
        csv.write_record(["source", "why"])?;
        for line in &report.unreadable {
            let (source, why) = line.split_once(": ").unwrap_or((line, ""));
            csv.write_record([source, why])?;
        }
        Ok(csv.flush()?)
    })?;
    write_atomically(&run.path(READ_REPORT), |w| {
        Ok(serde_json::to_writer_pretty(w, &report)?)
    })?;
    // Last: docs.csv is what says the stage is done.
    write_atomically(&run.path(DOCS), |w| {
        let mut csv = csv::Writer::from_writer(w);
        csv.write_record(["url", "html", "source", "date", "canonical"])?;
        for row in &rows {
            csv.write_record(row)?;
        }
        Ok(csv.flush()?)
    })?;
    Ok(report)
}

/// How each page of `docs.csv` replays: with the responses of the crawls it was
/// read from (their index, kept by the first stage), so its scripts, styles and
/// fonts run as when it was crawled.
pub fn replays(inputs: &[PathBuf], run: &RunFolder) -> Result<Replays> {
    let archive: Arc<dyn Archive> = Arc::new(Index::read(&run.path(INDEX))?);
    let mut id = blake3::Hasher::new();
    for input in inputs {
        let meta =
            std::fs::metadata(input).with_context(|| format!("cannot read {}", input.display()))?;
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
        id.update(format!("{}\0{}\0{:?}\0", input.display(), meta.len(), modified).as_bytes());
    }
    let archive_id = id.finalize().to_hex().to_string();
    let mut pages = HashMap::new();
    let mut docs = csv::Reader::from_path(run.path(DOCS))?;
    for row in docs.records() {
        let row = row?;
        let (url, html) = (row.get(0).unwrap_or(""), row.get(1).unwrap_or(""));
        // A body captured at several URLs replays as its first.
        pages
            .entry(run.dir().join(html))
            .or_insert_with(|| ReplayOf {
                url: url.to_string(),
                archive: Arc::clone(&archive),
                archive_id: archive_id.clone(),
            });
    }
    Ok(Replays::new(pages))
}

/// How the pages of an earlier run replay (none for a run that read no crawl):
/// with the crawls its command named, for a driver that renders them elsewhere.
pub fn replays_of_run(dir: &Path) -> Result<Replays> {
    let run = RunFolder::existing(dir)?;
    if !run.done(INDEX) {
        return Ok(Replays::default());
    }
    let command = run.command()?;
    let inputs: Vec<PathBuf> = command["inputs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|input| input["path"].as_str())
        .map(PathBuf::from)
        .collect();
    replays(&inputs, &run)
}

pub(super) fn read_report(run: &RunFolder) -> Result<ReadReport> {
    let path = run.path(READ_REPORT);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(serde_json::from_str(&text)?)
}

/// A page's row of docs.csv; `body` is its fetched body as written (decoded once).
fn row(page: &Page, body: &[u8], html: String) -> [String; 5] {
    [
        page.url.clone(),
        html,
        page.source.clone(),
        page.date.clone().unwrap_or_default(),
        canonical(&page.url, body).unwrap_or_default(),
    ]
}

/// The URL a page's `<link rel="canonical" href>` names, resolved against its own.
pub fn canonical(page_url: &str, body: &[u8]) -> Option<String> {
    let head = &body[..body.len().min(256 << 10)];
    let lower = String::from_utf8_lossy(head).to_ascii_lowercase();
    let original = String::from_utf8_lossy(head);
    let mut from = 0;
    while let Some(at) = lower[from..].find("<link") {
        let start = from + at;
        let end = lower[start..].find('>').map_or(lower.len(), |e| start + e);
        let tag = &lower[start..end];
        if attribute(tag, "rel").is_some_and(|rel| rel.split_whitespace().any(|r| r == "canonical"))
        {
            // The href as written (its case matters), at the place found in the lower copy.
            let href = attribute(tag, "href")?;
            let at = tag.find(href.as_str()).map(|i| start + i)?;
            let href = original.get(at..at + href.len())?.trim();
            let base = url::Url::parse(page_url).ok()?;
            return base.join(href).ok().map(String::from);
        }
        from = end;
    }
    None
}

/// The value of `name=` in a (lower-cased) tag, quoted or not.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let mut from = 0;
    while let Some(at) = tag[from..].find(name) {
        let start = from + at;
        from = start + name.len();
        let before = tag[..start].chars().last();
        if !before.is_some_and(char::is_whitespace) {
            continue;
        }
        let rest = tag[from..].trim_start();
        let Some(rest) = rest.strip_prefix('=') else {
            continue;
        };
        let rest = rest.trim_start();
        let value = match rest.chars().next() {
            Some(q @ ('"' | '\'')) => rest[1..].split(q).next().unwrap_or(""),
            _ => rest
                .split(|c: char| c.is_whitespace() || c == '/')
                .next()
                .unwrap_or(""),
        };
        return Some(value.to_string());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_canonical_link_is_found_and_resolved() {
        let page = br#"<html><head><link rel="stylesheet" href="/a.css"><LINK HREF="/News/Story?id=1" rel='canonical'></head>"#;
        assert_eq!(
            canonical("https://site.test/x?utm_source=y", page).as_deref(),
            Some("https://site.test/News/Story?id=1")
        );
        assert_eq!(
            canonical("https://site.test/", b"<link rel=stylesheet href=a.css>"),
            None
        );
    }
}
