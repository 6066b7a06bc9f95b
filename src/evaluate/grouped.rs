//! A model's figures on labelled pairs, overall and by the values of a column.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};

use crate::model::{Confusion, Metrics};
use crate::pipeline::{Batch, Outcome};

/// Figures overall and, when a column was named, per value of it.
#[derive(Debug, Clone)]
pub struct Grouped {
    pub overall: Metrics,
    pub groups: BTreeMap<String, Metrics>,
}

/// Counts the outcomes of a scored batch against its labels, overall and by the
/// values of `column` (every pair file must have it). Pairs whose documents could
/// not be read have no outcome and are left out; a pair without a label is an error.
pub fn by_column(
    batch: &Batch,
    outcomes: &[Option<Outcome>],
    column: Option<&str>,
) -> Result<Grouped> {
    let columns: Vec<Option<usize>> = batch
        .files
        .iter()
        .map(|f| match column {
            None => Ok(None),
            Some(name) => f
                .headers
                .iter()
                .position(|h| h == name)
                .map(Some)
                .with_context(|| format!("{}: no column `{name}` to group by", f.path.display())),
        })
        .collect::<Result<_>>()?;
    let rows = batch
        .files
        .iter()
        .zip(&columns)
        .flat_map(|(f, &col)| f.pairs.iter().map(move |p| (p, col)));
    let mut overall = Confusion::default();
    let mut groups: BTreeMap<String, Confusion> = BTreeMap::new();
    for ((pair, col), outcome) in rows.zip(outcomes) {
        let Some(o) = outcome else { continue };
        let Some(label) = pair.label else {
            bail!(
                "{}: no label; evaluation needs a `label` on every row",
                pair.location()
            );
        };
        overall.add(label, o.p_duplicate, o.decision);
        if let Some(c) = col {
            let group = groups.entry(pair.fields[c].clone()).or_default();
            group.add(label, o.p_duplicate, o.decision);
        }
    }
    Ok(Grouped {
        overall: overall.metrics(),
        groups: groups.into_iter().map(|(k, c)| (k, c.metrics())).collect(),
    })
}
