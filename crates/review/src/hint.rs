//! When to stop labelling: a cheap estimate of how much the latest labels still
//! change the model.
//!
//! Retraining a tree after every label would be the exact answer and far too slow
//! for a page. Most of what a label changes is the calibrated confidence of the
//! cell (a tree's leaf) its pair fell into, so each cell's confidence is re-estimated with the
//! reviewed labels added to its calibration counts, once with every label and once
//! without the latest [`WINDOW`]. When that difference changes the routing of no
//! more than 1 % of the queued pairs, further labels mostly confirm what is known
//! and it is time to retrain.

use std::collections::HashMap;

use serde::Serialize;

use twinpage::model::{Judgement, Thresholds};

/// How many of the latest labels the hint weighs.
pub const WINDOW: usize = 20;

/// A queued pair as the hint sees it: the cell it reached and how that cell was calibrated.
#[derive(Debug, Clone)]
pub struct CellRow {
    pub pair_id: i64,
    /// Model id and cell: cells of different models are different cells.
    pub cell: (String, usize),
    pub p_duplicate: f64,
    /// Calibration pairs the cell's confidence came from.
    pub calibration_pairs: f64,
    pub thresholds: Thresholds,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Hint {
    /// Labels weighed (settled duplicate / distinct).
    pub labels: usize,
    /// Queued pairs whose routing the latest labels changed.
    pub changed: usize,
    /// Largest change of a cell's confidence the latest labels made.
    pub largest_shift: f64,
    /// True when more labels are unlikely to change the model much.
    pub settled: bool,
    pub message: String,
}

/// The hint for `rows` (every queued pair) and `labels` ((pair, duplicate), oldest first).
pub fn hint(rows: &[CellRow], labels: &[(i64, bool)]) -> Hint {
    if labels.len() < WINDOW {
        return Hint {
            labels: labels.len(),
            changed: 0,
            largest_shift: 0.0,
            settled: false,
            message: format!(
                "{} more label(s) before the model's response to them can be judged",
                WINDOW - labels.len()
            ),
        };
    }
    let by_pair: HashMap<i64, &CellRow> = rows.iter().map(|r| (r.pair_id, r)).collect();
    let all = estimates(&by_pair, labels);
    let before = estimates(&by_pair, &labels[..labels.len() - WINDOW]);
    let mut changed = 0;
    let mut largest_shift: f64 = 0.0;
    // Cell estimates carry no committee: only the confidence moves the route here.
    for row in rows {
        let (now, then) = (all(row), before(row));
        largest_shift = largest_shift.max((now - then).abs());
        changed += usize::from(
            row.thresholds.route(Judgement::certain(now))
                != row.thresholds.route(Judgement::certain(then)),
        );
    }
    let settled = changed * 100 <= rows.len();
    let message = if settled {
        format!(
            "the last {WINDOW} labels changed the routing of {changed} of {} queued pairs: more labels now change the model little; retrain (`twinpage retrain`)",
            rows.len()
        )
    } else {
        format!(
            "the last {WINDOW} labels changed the routing of {changed} of {} queued pairs: labels still teach the model",
            rows.len()
        )
    };
    Hint {
        labels: labels.len(),
        changed,
        largest_shift,
        settled,
        message,
    }
}

/// Each cell's confidence with `labels` added to its calibration counts.
fn estimates<'a>(
    by_pair: &HashMap<i64, &'a CellRow>,
    labels: &[(i64, bool)],
) -> impl Fn(&CellRow) -> f64 + 'a {
    let mut counts: HashMap<(String, usize), (f64, f64)> = HashMap::new();
    for (pair, duplicate) in labels {
        if let Some(row) = by_pair.get(pair) {
            let c = counts.entry(row.cell.clone()).or_default();
            c.0 += f64::from(u8::from(*duplicate));
            c.1 += 1.0;
        }
    }
    move |row: &CellRow| {
        let (duplicates, n) = counts.get(&row.cell).copied().unwrap_or_default();
        (row.p_duplicate * row.calibration_pairs + duplicates)
            / (row.calibration_pairs + n).max(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(n: i64, leaf: usize, p: f64) -> Vec<CellRow> {
        (0..n)
            .map(|i| CellRow {
                pair_id: i + leaf as i64 * 1000,
                cell: ("m".into(), leaf),
                p_duplicate: p,
                calibration_pairs: 10.0,
                thresholds: Thresholds {
                    duplicate: 0.9,
                    distinct: 0.1,
                    max_spread: 1.0,
                    f1_cut: twinpage::model::EVEN_CUT,
                },
            })
            .collect()
    }

    #[test]
    fn too_few_labels_say_how_many_more() {
        let h = hint(&rows(5, 0, 0.5), &[(0, true)]);
        assert!(!h.settled);
        assert!(h.message.starts_with("19 more"), "{}", h.message);
    }

    #[test]
    fn labels_that_move_a_leaf_across_a_threshold_are_not_settled() {
        // A leaf at 0.5 with 10 calibration pairs: 40 duplicate labels push it to
        // (5 + 40) / 50 = 0.9, the duplicate threshold; 20 of them only to 0.833.
        let rows = rows(100, 0, 0.5);
        let labels: Vec<(i64, bool)> = (0..40).map(|i| (i, true)).collect();
        let h = hint(&rows, &labels);
        assert_eq!(h.changed, 100);
        assert!(!h.settled);
        assert!((h.largest_shift - (0.9 - 25.0 / 30.0)).abs() < 1e-9);
    }

    #[test]
    fn labels_that_agree_with_the_leaf_settle() {
        // Leaf at 0.95 (duplicate); more duplicate labels keep it there.
        let rows = rows(100, 0, 0.95);
        let labels: Vec<(i64, bool)> = (0..60).map(|i| (i, true)).collect();
        let h = hint(&rows, &labels);
        assert_eq!(h.changed, 0);
        assert!(h.settled, "{}", h.message);
    }
}
