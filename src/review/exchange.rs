//! Pairs and labels in and out of the queue as files, for labelling elsewhere.
//!
//! `export` writes the pending pairs as a pair file that every command reads
//! (the documents written beside it, so it does not depend on where the original
//! files went); `import` takes `pair_id,label[,reviewer]` rows back, all or none.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::store::{ReviewStore, Verdict};
use crate::util::write_atomically;

/// Columns the export writes itself; passthrough columns of these names are dropped.
const EXPORT_COLUMNS: [&str; 11] = [
    "pair_id",
    "url_a",
    "url_b",
    "html_a",
    "html_b",
    "rendered_a",
    "rendered_b",
    "query",
    "p_duplicate",
    "model_id",
    "source",
];

/// The folder the documents of an export go to: `queue.csv` → `queue.docs/`.
pub fn documents_folder(out: &Path) -> PathBuf {
    out.with_extension("docs")
}

/// Writes the pending pairs to `out` (a pair file) and their documents to
/// [`documents_folder`]; returns how many pairs.
pub fn export(store: &ReviewStore, out: &Path) -> Result<usize> {
    let ids = store.pending()?;
    let folder = documents_folder(out);
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("cannot create {}", folder.display()))?;
    let folder_name = folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let pairs = ids
        .iter()
        .map(|&id| store.pair(id))
        .collect::<Result<Vec<_>>>()?;
    // Passthrough columns: every extra column any pair had, in first-seen order.
    let mut extra: Vec<String> = Vec::new();
    for pair in &pairs {
        if let Some(columns) = pair.columns.as_object() {
            for name in columns.keys() {
                if !EXPORT_COLUMNS.contains(&name.as_str())
                    && !extra.contains(name)
                    && name != "label"
                {
                    extra.push(name.clone());
                }
            }
        }
    }
    let mut written = BTreeSet::new();
    let mut rows = Vec::new();
    for pair in &pairs {
        let mut row = vec![pair.id.to_string(), pair.url_a.clone(), pair.url_b.clone()];
        let mut rendered = Vec::new();
        for hash in [&pair.doc_a, &pair.doc_b] {
            let (html, render) = write_document(store, hash, &folder, &mut written)?;
            row.push(format!("{folder_name}/{html}"));
            rendered.push(
                render
                    .map(|r| format!("{folder_name}/{r}"))
                    .unwrap_or_default(),
            );
        }
        row.extend(rendered);
        row.push(pair.query.clone().unwrap_or_default());
        row.push(format!("{:.4}", pair.p_duplicate));
        row.push(pair.model_id.clone());
        row.push(pair.source.clone());
        for name in &extra {
            row.push(pair.columns[name].as_str().unwrap_or("").to_string());
        }
        rows.push(row);
    }
    write_atomically(out, |w| {
        let mut csv = csv::Writer::from_writer(w);
        csv.write_record(
            EXPORT_COLUMNS
                .iter()
                .copied()
                .chain(extra.iter().map(String::as_str)),
        )?;
        for row in &rows {
            csv.write_record(row)?;
        }
        csv.flush()?;
        Ok(())
    })?;
    Ok(rows.len())
}

/// Writes one document's fetched body (and stored render) once; returns their file names.
fn write_document(
    store: &ReviewStore,
    hash: &str,
    folder: &Path,
    written: &mut BTreeSet<String>,
) -> Result<(String, Option<String>)> {
    let doc = store
        .document(hash)?
        .with_context(|| format!("document {hash} is missing from the review database"))?;
    let stem = &hash[..hash.len().min(20)];
    let html = format!("{stem}.html");
    let render = doc.rendered.as_ref().map(|_| format!("{stem}.render.json"));
    if written.insert(hash.to_string()) {
        write_atomically(&folder.join(&html), |w| Ok(w.write_all(&doc.fetched)?))?;
        if let (Some(name), Some(bytes)) = (&render, &doc.rendered) {
            write_atomically(&folder.join(name), |w| Ok(w.write_all(bytes)?))?;
        }
    }
    Ok((html, render))
}

/// Reads a label file (`pair_id,label[,reviewer]`, header required) and records
/// every row in one transaction; a bad row names its line and nothing is recorded.
/// Rows without a reviewer are `default_reviewer`'s. Returns the number of rows.
pub fn import(store: &mut ReviewStore, labels: &Path, default_reviewer: &str) -> Result<usize> {
    let mut reader = csv::Reader::from_path(labels)
        .with_context(|| format!("cannot read {}", labels.display()))?;
    let headers = reader
        .headers()
        .with_context(|| format!("{}: cannot read the header row", labels.display()))?
        .clone();
    let column = |name: &str| headers.iter().position(|h| h.trim() == name);
    let (Some(id_col), Some(label_col)) = (column("pair_id"), column("label")) else {
        bail!(
            "{}: the header must name `pair_id` and `label` (and may name `reviewer`)",
            labels.display()
        );
    };
    let reviewer_col = column("reviewer");
    let mut rows = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let line = i + 2;
        let record =
            record.with_context(|| format!("{}:{line}: malformed row", labels.display()))?;
        let at = || format!("{}:{line}", labels.display());
        let field = |c: usize| record.get(c).unwrap_or("").trim();
        let pair_id: i64 = field(id_col)
            .parse()
            .with_context(|| format!("{}: pair_id `{}` is not a number", at(), field(id_col)))?;
        let verdict = Verdict::parse_label(field(label_col)).with_context(|| {
            format!(
                "{}: label `{}`: use duplicate, distinct or unsure (or 1, 0)",
                at(),
                field(label_col)
            )
        })?;
        let reviewer = reviewer_col
            .map(field)
            .filter(|r| !r.is_empty())
            .unwrap_or(default_reviewer);
        if !store.has_pair(pair_id)? {
            bail!("{}: no pair {pair_id} in the review database", at());
        }
        rows.push((pair_id, reviewer.to_string(), verdict));
    }
    let source = format!(
        "import:{}",
        labels
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    );
    store.import(&rows, &source)?;
    Ok(rows.len())
}
