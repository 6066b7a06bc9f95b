//! Calibrated confidence, for any estimator.
//!
//! The rows an estimator was fitted on are the rows it was grown to separate, so
//! their label share in a cell is over-confident. Each cell's P(duplicate) is
//! instead the label share of held-out calibration pairs that reach it, shrunk
//! toward the (Laplace smoothed) training share when few calibration pairs
//! arrive. This is histogram binning with the estimator's own cells as bins: it
//! needs nothing of the estimator but [`Estimator::cell`].

use serde::{Deserialize, Serialize};

use super::decision::Judgement;
use super::estimator::Estimator;

/// Weight, in pairs, of the training share in a cell's calibrated confidence.
pub const PRIOR_PAIRS: f64 = 3.0;

/// What a cell learned: the labels that reached it, and its confidence.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Training rows that reached the cell, by label.
    pub fit_duplicates: u32,
    pub fit_distinct: u32,
    /// Held-out calibration pairs that reached the cell, by label.
    pub calibration_duplicates: u32,
    pub calibration_distinct: u32,
    /// The calibrated confidence that a pair reaching this cell is a duplicate.
    pub p_duplicate: f64,
}

impl Cell {
    /// Calibration pairs the confidence rests on.
    pub fn calibration_pairs(&self) -> u32 {
        self.calibration_duplicates + self.calibration_distinct
    }
}

/// The calibrated cells of one estimator, by cell number.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub cells: Vec<Cell>,
}

impl Calibration {
    /// Counts `fit` and `calibration` rows (vector, label) in the cells of
    /// `estimator` and sets each cell's confidence.
    pub fn learn<'a>(
        estimator: &dyn Estimator,
        fit: impl Iterator<Item = (&'a [f64], bool)>,
        calibration: impl Iterator<Item = (&'a [f64], bool)>,
    ) -> Calibration {
        Calibration::of_cells(
            estimator,
            fit.map(|(x, label)| (estimator.cell(x), label)),
            calibration.map(|(x, label)| (estimator.cell(x), label)),
        )
    }

    /// The same, from the cells the rows reached (cell, label): for calibration
    /// rows read out of bag, whose cell is not the whole estimator's.
    pub fn of_cells(
        estimator: &dyn Estimator,
        fit: impl Iterator<Item = (usize, bool)>,
        calibration: impl Iterator<Item = (usize, bool)>,
    ) -> Calibration {
        let mut cells = vec![Cell::default(); estimator.cells()];
        for (cell, label) in fit {
            let cell = &mut cells[cell];
            *count(label, &mut cell.fit_duplicates, &mut cell.fit_distinct) += 1;
        }
        for (cell, label) in calibration {
            let cell = &mut cells[cell];
            *count(
                label,
                &mut cell.calibration_duplicates,
                &mut cell.calibration_distinct,
            ) += 1;
        }
        for cell in &mut cells {
            let fit_share = (f64::from(cell.fit_duplicates) + 1.0)
                / (f64::from(cell.fit_duplicates + cell.fit_distinct) + 2.0);
            let n = f64::from(cell.calibration_pairs());
            cell.p_duplicate = (f64::from(cell.calibration_duplicates) + PRIOR_PAIRS * fit_share)
                / (n + PRIOR_PAIRS);
        }
        if estimator.ordered() {
            pool_adjacent_violators(&mut cells);
        }
        Calibration { cells }
    }

    /// The calibrated confidence of `x` under `estimator`, with its members' disagreement.
    pub fn judge(&self, estimator: &dyn Estimator, x: &[f64]) -> Judgement {
        let (cell, committee) = estimator.reading(x);
        Judgement {
            p_duplicate: self.cells[cell].p_duplicate,
            spread: committee.map_or(0.0, |c| c.spread),
        }
    }

    /// Checks calibration read from a file against its estimator.
    pub fn validate(&self, estimator: &dyn Estimator) -> Result<(), String> {
        if self.cells.len() != estimator.cells() {
            return Err(format!(
                "the calibration has {} cells but the estimator {}",
                self.cells.len(),
                estimator.cells()
            ));
        }
        match self
            .cells
            .iter()
            .position(|c| !(0.0..=1.0).contains(&c.p_duplicate))
        {
            Some(bad) => Err(format!("cell {bad} has a confidence outside [0, 1]")),
            None => Ok(()),
        }
    }
}

/// Makes the confidence of ordered cells non-decreasing (isotonic regression):
/// neighbouring cells whose confidences run backwards are pooled, weighted by the
/// pairs each rests on, until none do.
fn pool_adjacent_violators(cells: &mut [Cell]) {
    // Blocks of pooled cells: (first cell, cells, weight, mean).
    let mut blocks: Vec<(usize, usize, f64, f64)> = Vec::new();
    for (i, cell) in cells.iter().enumerate() {
        let weight = f64::from(cell.calibration_pairs()) + PRIOR_PAIRS;
        blocks.push((i, 1, weight, cell.p_duplicate));
        while blocks.len() > 1 && blocks[blocks.len() - 2].3 > blocks[blocks.len() - 1].3 {
            let (_, n, w, mean) = blocks.pop().expect("two blocks");
            let last = blocks.last_mut().expect("two blocks");
            last.3 = (last.3 * last.2 + mean * w) / (last.2 + w);
            last.1 += n;
            last.2 += w;
        }
    }
    for (first, n, _, mean) in blocks {
        for cell in &mut cells[first..first + n] {
            cell.p_duplicate = mean;
        }
    }
}

/// The duplicate or the distinct counter.
fn count<'c>(duplicate: bool, duplicates: &'c mut u32, distinct: &'c mut u32) -> &'c mut u32 {
    if duplicate {
        duplicates
    } else {
        distinct
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tree::tests::small_tree;

    #[test]
    fn cell_confidence_by_hand() {
        // x0 < 0.5 ? cell 0 : (x1 < 2 ? cell 1 : cell 2)
        let tree = small_tree();
        let rows: Vec<(Vec<f64>, bool)> = vec![
            (vec![0.0, 0.0], false),
            (vec![0.1, 0.0], false),
            (vec![0.9, 0.0], true),
            (vec![1.0, 0.0], true),
        ];
        let cal: Vec<(Vec<f64>, bool)> = vec![
            (vec![0.2, 0.0], false),
            (vec![0.8, 0.0], true),
            (vec![0.7, 0.0], false),
        ];
        let calibration = Calibration::learn(
            &tree,
            rows.iter().map(|(x, l)| (x.as_slice(), *l)),
            cal.iter().map(|(x, l)| (x.as_slice(), *l)),
        );
        let cells = &calibration.cells;
        // Left: fit share (0+1)/(2+2) = 0.25; calibration 0 of 1 -> (0 + 3*0.25) / (1 + 3) = 0.1875
        assert!((cells[0].p_duplicate - 0.1875).abs() < 1e-12);
        // Right: fit share (2+1)/(2+2) = 0.75; calibration 1 of 2 -> (1 + 2.25) / (2 + 3) = 0.65
        assert!((cells[1].p_duplicate - 0.65).abs() < 1e-12);
        assert_eq!(cells[1].calibration_distinct, 1);
        // Nothing reached cell 2: the Laplace prior alone, 1/2.
        assert_eq!(cells[2].p_duplicate, 0.5);
        assert!(calibration.validate(&tree).is_ok());
        let short = Calibration {
            cells: cells[..1].to_vec(),
        };
        assert!(short.validate(&tree).is_err());
    }

    #[test]
    fn ordered_cells_get_a_monotone_confidence() {
        let cell = |duplicates: u32, distinct: u32, p: f64| Cell {
            calibration_duplicates: duplicates,
            calibration_distinct: distinct,
            p_duplicate: p,
            ..Cell::default()
        };
        let mut cells = vec![
            cell(1, 9, 0.1),
            cell(7, 3, 0.7),
            cell(1, 1, 0.5),
            cell(9, 1, 0.9),
        ];
        pool_adjacent_violators(&mut cells);
        let p: Vec<f64> = cells.iter().map(|c| c.p_duplicate).collect();
        // 0.7 (weight 13) and 0.5 (weight 5) pool to (9.1 + 2.5) / 18.
        assert!((p[1] - 11.6 / 18.0).abs() < 1e-12 && p[1] == p[2], "{p:?}");
        assert!(p.windows(2).all(|w| w[0] <= w[1]), "{p:?}");
        assert_eq!((p[0], p[3]), (0.1, 0.9));
    }
}
