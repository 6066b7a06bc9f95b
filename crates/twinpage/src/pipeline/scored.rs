//! The scored pair file: what `score` writes (the input columns plus the
//! decision columns) and what `cluster` reads back, in one place.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use anyhow::{bail, Result};

use super::score::Outcome;
use crate::document::rows::RowReader;
use crate::document::PairFile;

/// The columns `score` adds to a pair file.
pub const DECISION_COLUMNS: [&str; 6] = [
    "p_duplicate",
    "p_spread",
    "confidence",
    "decision",
    "decided_by",
    "core_in_other",
];

/// Writes `file`'s rows with their outcomes; rows without one (unreadable
/// documents, skipped) are left out.
pub fn write(w: &mut dyn Write, file: &PairFile, outcomes: &[Option<Outcome>]) -> Result<()> {
    let mut csv = csv::Writer::from_writer(w);
    csv.write_record(
        file.headers
            .iter()
            .map(String::as_str)
            .chain(DECISION_COLUMNS),
    )?;
    for (pair, outcome) in file.pairs.iter().zip(outcomes) {
        let Some(o) = outcome else { continue };
        let values = [
            format!("{:.4}", o.p_duplicate),
            format!("{:.4}", o.spread),
            format!("{:.4}", o.confidence()),
            o.decision.as_str().to_string(),
            o.decided_by.to_string(),
            o.core_in_other.map_or(String::new(), |c| format!("{c:.4}")),
        ];
        csv.write_record(pair.fields.iter().chain(&values))?;
    }
    csv.flush()?;
    Ok(())
}

/// What a scored file says about its documents.
#[derive(Debug, Default)]
pub struct Decided {
    /// Every document (its `html` path as written) with the URL it was scored under.
    pub documents: BTreeMap<String, String>,
    /// The pairs decided duplicate, by document.
    pub duplicates: Vec<(String, String)>,
}

/// Reads a file `score` wrote: its documents and the pairs decided duplicate.
pub fn read_decided(path: &Path) -> Result<Decided> {
    let rows = RowReader::open(path)?;
    let needs = "is it the output of `twinpage score`?";
    let column = |name| rows.require(name, needs);
    let (url_a, url_b, html_a, html_b, decision) = (
        column("url_a")?,
        column("url_b")?,
        column("html_a")?,
        column("html_b")?,
        column("decision")?,
    );
    let mut decided = Decided::default();
    for row in rows {
        let row = row?;
        let field = |i: usize| row.fields[i].trim().to_string();
        let at = format!("{}:{}", path.display(), row.line);
        let (a, b) = (field(html_a), field(html_b));
        if a.is_empty() || b.is_empty() {
            bail!("{at}: empty html_a or html_b");
        }
        decided
            .documents
            .entry(a.clone())
            .or_insert_with(|| field(url_a));
        decided
            .documents
            .entry(b.clone())
            .or_insert_with(|| field(url_b));
        match field(decision).as_str() {
            "duplicate" => decided.duplicates.push((a, b)),
            "distinct" | "review" => {}
            other => {
                bail!("{at}: column `decision`: `{other}` is not duplicate, distinct or review")
            }
        }
    }
    Ok(decided)
}
