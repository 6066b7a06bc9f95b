//! A model's figures on labelled pairs, overall and by the values of a column.

use std::collections::BTreeMap;

use anyhow::{bail, Result};

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
    let values = column.map(|name| batch.column(name)).transpose()?;
    let rows = batch
        .pairs()
        .enumerate()
        .map(|(i, p)| (p, values.as_ref().map(|v| &v[i])));
    let mut overall = Confusion::default();
    let mut groups: BTreeMap<String, Confusion> = BTreeMap::new();
    for ((pair, value), outcome) in rows.zip(outcomes) {
        let Some(o) = outcome else { continue };
        let Some(label) = pair.label else {
            bail!(
                "{}: no label; evaluation needs a `label` on every row",
                pair.location()
            );
        };
        overall.add(label, o.p_duplicate, o.f1_cut, o.decision);
        if let Some(value) = value {
            let group = groups.entry(value.clone()).or_default();
            group.add(label, o.p_duplicate, o.f1_cut, o.decision);
        }
    }
    Ok(Grouped {
        overall: overall.metrics(),
        groups: groups.into_iter().map(|(k, c)| (k, c.metrics())).collect(),
    })
}
