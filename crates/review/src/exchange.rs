//! Pairs and labels in and out of the queue as files, for labelling elsewhere.
//!
//! `export` writes the pending pairs as a pair file that every command reads
//! (the documents written beside it, so it does not depend on where the original
//! files went); `import` takes `pair_id,label[,reviewer]` rows back, all or none.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::order::QueueOrder;
use super::store::{ReviewStore, Verdict};
use twinpage::document::pairs::{PairWriter, SideColumns, DOCUMENT_COLUMNS};
use twinpage::document::rows::RowReader;
use twinpage::util::{write_atomically, written_beside};

/// Columns the export writes after the pair columns; pass-through columns of
/// these names (and `label`: the export is what is left to label) are dropped.
const EXPORT_COLUMNS: [&str; 5] = ["pair_id", "p_duplicate", "model_id", "source", "reason"];

/// The folder the documents of an export go to: `queue.csv` → `queue.docs/`.
pub fn documents_folder(out: &Path) -> PathBuf {
    out.with_extension("docs")
}

/// Writes the pending pairs to `out` (a pair file) in `order`, as the review page
/// would serve them (the first `limit` when given), with their documents in
/// [`documents_folder`]; returns how many pairs.
pub fn export(
    store: &ReviewStore,
    out: &Path,
    order: QueueOrder,
    limit: Option<usize>,
) -> Result<usize> {
    let mut ids = store.pending(&store.ranked(order)?)?;
    ids.truncate(limit.unwrap_or(usize::MAX));
    let folder = documents_folder(out);
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // The documents are written to a folder of their own first, and the queue to a
    // temporary file: a failure (a full disk) leaves the earlier export as it was.
    let staging = tempfile::Builder::new()
        .prefix(".twinpage-export-")
        .tempdir_in(parent)
        .with_context(|| format!("cannot create a folder in {}", parent.display()))?;
    let folder_name = folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let pairs = ids
        .iter()
        .map(|&(id, reason)| {
            let mut pair = store.pair(id)?;
            pair.reason = Some(reason);
            Ok(pair)
        })
        .collect::<Result<Vec<_>>>()?;
    // Passthrough columns: every extra column any pair had, in first-seen order.
    let mut extra: Vec<String> = Vec::new();
    for pair in &pairs {
        for name in pair.columns.keys() {
            let ours = [&EXPORT_COLUMNS[..], &DOCUMENT_COLUMNS, &["query", "label"]]
                .iter()
                .any(|columns| columns.contains(&name.as_str()));
            if !ours && !extra.contains(name) {
                extra.push(name.clone());
            }
        }
    }
    let mut written = BTreeSet::new();
    let mut rows = Vec::new();
    for pair in &pairs {
        let mut sides = Vec::new();
        for hash in [&pair.doc_a, &pair.doc_b] {
            let (html, render) = write_document(store, hash, staging.path(), &mut written)?;
            let rendered = render.map(|r| format!("{folder_name}/{r}"));
            sides.push((
                format!("{folder_name}/{html}"),
                rendered.unwrap_or_default(),
            ));
        }
        let mut values = vec![
            pair.id.to_string(),
            format!("{:.4}", pair.p_duplicate),
            pair.model_id.clone(),
            pair.source.clone(),
            pair.reason
                .map_or_else(String::new, |r| r.name().to_string()),
        ];
        values.extend(
            extra
                .iter()
                .map(|name| pair.columns.get(name).cloned().unwrap_or_default()),
        );
        rows.push((pair, sides, values));
    }
    let queue = written_beside(out, |w| {
        let header: Vec<&str> = EXPORT_COLUMNS
            .iter()
            .copied()
            .chain(extra.iter().map(String::as_str))
            .collect();
        let mut writer = PairWriter::new(w, true, true, &header)?;
        for (pair, sides, values) in &rows {
            let side = |i: usize, url| SideColumns {
                url,
                html: &sides[i].0,
                rendered: &sides[i].1,
            };
            let values: Vec<&str> = values.iter().map(String::as_str).collect();
            writer.write(
                side(0, pair.url_a.as_str()),
                side(1, pair.url_b.as_str()),
                pair.query.as_deref().unwrap_or(""),
                &values,
            )?;
        }
        writer.finish()
    })?;
    replace_folder(staging, &folder)?;
    queue.persist()?;
    Ok(rows.len())
}

/// Puts the folder `staging` in the place of `folder`, whose earlier contents go.
fn replace_folder(staging: tempfile::TempDir, folder: &Path) -> Result<()> {
    let cannot = || format!("cannot replace {}", folder.display());
    let earlier = staging.path().with_extension("earlier");
    if folder.exists() {
        std::fs::rename(folder, &earlier).with_context(cannot)?;
    }
    std::fs::rename(staging.keep(), folder).with_context(cannot)?;
    if earlier.exists() {
        std::fs::remove_dir_all(&earlier).with_context(cannot)?;
    }
    Ok(())
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
    let reader = RowReader::open(labels)?;
    let needs = "a label file needs pair_id,label and may have reviewer";
    let (id_col, label_col) = (
        reader.require("pair_id", needs)?,
        reader.require("label", needs)?,
    );
    let reviewer_col = reader.column("reviewer");
    let mut rows = Vec::new();
    // The line of each (pair, reviewer) seen, and its verdict: one reviewer cannot say
    // two things of one pair in one file (the later row would silently win).
    let mut said: HashMap<(i64, String), (u64, Verdict)> = HashMap::new();
    for row in reader {
        let row = row?;
        let at = || format!("{}:{}", labels.display(), row.line);
        let field = |c: usize| row.fields.get(c).unwrap_or("").trim();
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
        let key = (pair_id, reviewer.to_string());
        if let Some(&(line, earlier)) = said.get(&key) {
            if earlier != verdict {
                bail!(
                    "{}: pair {pair_id} is labelled {} by {reviewer} here and {} at line {line}; keep one of the two rows",
                    at(),
                    verdict.as_str(),
                    earlier.as_str()
                );
            }
        }
        said.insert(key, (row.line, verdict));
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
