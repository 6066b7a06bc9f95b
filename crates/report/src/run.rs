//! The page of a `dedupe` run (`DIR/report.html`): what was read and what could
//! not be, how the pairs were decided, the clusters by size, and the largest
//! clusters with the page each keeps. Made from the run's own files, so it is the
//! same for a resumed run as for an uninterrupted one.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};

use crate::page::{escape, head};

/// Clusters shown member by member, largest first.
const CLUSTERS_SHOWN: usize = 25;
/// Unreadable records listed.
const UNREADABLE_SHOWN: usize = 200;

/// The run's page.
pub fn run_page(dir: &Path) -> Result<String> {
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("summary.json"))
            .with_context(|| format!("{} holds no finished run", dir.display()))?,
    )?;
    let mut h = String::new();
    head(&mut h, &format!("twinpage dedupe: {}", dir.display()))?;
    writeln!(
        h,
        "<h1>Duplicates in <code>{}</code></h1>",
        escape(&dir.display().to_string())
    )?;
    facts(&mut h, &summary)?;
    decisions(&mut h, dir)?;
    clusters(&mut h, &rows(&dir.join("clusters.csv"))?)?;
    unreadable(&mut h, dir)?;
    writeln!(h, "</body></html>")?;
    Ok(h)
}

/// A CSV file as rows of named fields; none when it is not there.
fn rows(path: &Path) -> Result<Vec<BTreeMap<String, String>>> {
    if !path.is_file() {
        return Ok(Vec::new());
    }
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("cannot read {}", path.display()))?;
    let headers = reader.headers()?.clone();
    reader
        .records()
        .map(|r| {
            let r = r?;
            Ok(headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect())
        })
        .collect()
}

fn facts(h: &mut String, summary: &serde_json::Value) -> Result<()> {
    let number = |key: &str| summary[key].as_u64().unwrap_or(0);
    let unreadable = summary["read"]["unreadable"].as_array().map_or(0, Vec::len);
    writeln!(h, "<dl class=\"facts\">")?;
    for (name, value) in [
        ("pages", number("documents")),
        ("clusters of copies", number("clusters")),
        ("copies to drop", number("copies")),
        ("of them joined on an unsure pair", number("unsure")),
        ("candidate pairs", number("candidate_pairs")),
        ("pairs verified within clusters", number("verified_pairs")),
        ("unreadable records", unreadable as u64),
    ] {
        writeln!(h, "<dt>{name}</dt><dd>{value}</dd>")?;
    }
    writeln!(h, "</dl>")?;
    Ok(())
}

/// How the scored pairs were decided, by decision and by what decided them.
fn decisions(h: &mut String, dir: &Path) -> Result<()> {
    let mut counts: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n == "pairs.csv" || n.ends_with(".scored.csv"))
        .collect();
    files.sort();
    for file in &files {
        for row in rows(&dir.join(file))? {
            *counts
                .entry((row["decision"].clone(), row["decided_by"].clone()))
                .or_default() += 1;
        }
    }
    writeln!(
        h,
        "<h2>Decisions</h2>\n<p class=\"note\">The scored pairs of {}.</p>",
        files.join(", ")
    )?;
    writeln!(h, "<table><tr><th class=\"name\">decision</th><th class=\"name\">decided by</th><th>pairs</th></tr>")?;
    for ((decision, by), n) in &counts {
        writeln!(
            h,
            "<tr><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{n}</td></tr>",
            escape(decision),
            escape(by)
        )?;
    }
    writeln!(h, "</table>")?;
    Ok(())
}

fn clusters(h: &mut String, rows: &[BTreeMap<String, String>]) -> Result<()> {
    let mut members: BTreeMap<&str, Vec<&BTreeMap<String, String>>> = BTreeMap::new();
    for row in rows {
        members
            .entry(row["cluster"].as_str())
            .or_default()
            .push(row);
    }
    let mut by_size: BTreeMap<usize, usize> = BTreeMap::new();
    for group in members.values() {
        *by_size.entry(group.len()).or_default() += 1;
    }
    writeln!(
        h,
        "<h2>Clusters by size</h2>\n<table><tr><th>size</th><th>clusters</th></tr>"
    )?;
    for (size, n) in by_size.iter().rev() {
        writeln!(h, "<tr><td>{size}</td><td>{n}</td></tr>")?;
    }
    writeln!(h, "</table>")?;
    let mut largest: Vec<_> = members.into_iter().filter(|(_, m)| m.len() > 1).collect();
    largest.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    writeln!(
        h,
        "<h2>The largest clusters</h2>\n<p class=\"note\">Every member was judged a duplicate of the cluster's center; the page kept comes first.</p>"
    )?;
    for (id, group) in largest.iter().take(CLUSTERS_SHOWN) {
        writeln!(h, "<h3>{} ({} pages)</h3>", escape(id), group.len())?;
        writeln!(h, "<table><tr><th class=\"name\">keep</th><th class=\"name\">joined</th><th class=\"name\">url</th><th class=\"name\">source</th></tr>")?;
        for m in group {
            let keep = if m["keep"] == "1" {
                format!("kept: {}", m["why"])
            } else {
                String::new()
            };
            writeln!(
                h,
                "<tr><td class=\"name\">{}</td><td class=\"name\">{}</td><td class=\"name\"><code>{}</code></td><td class=\"name\"><code>{}</code></td></tr>",
                escape(&keep),
                escape(&m["joined"]),
                escape(&m["url"]),
                escape(&m["source"])
            )?;
        }
        writeln!(h, "</table>")?;
    }
    Ok(())
}

fn unreadable(h: &mut String, dir: &Path) -> Result<()> {
    let rows = rows(&dir.join("unreadable.csv"))?;
    writeln!(h, "<h2>Unreadable</h2>\n<p class=\"note\">{} record(s) or line(s) could not be read; the rest of the crawl was.</p>", rows.len())?;
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(
        h,
        "<table><tr><th class=\"name\">source</th><th class=\"name\">why</th></tr>"
    )?;
    for row in rows.iter().take(UNREADABLE_SHOWN) {
        writeln!(
            h,
            "<tr><td class=\"name\"><code>{}</code></td><td class=\"name\">{}</td></tr>",
            escape(&row["source"]),
            escape(&row["why"])
        )?;
    }
    writeln!(h, "</table>")?;
    Ok(())
}
