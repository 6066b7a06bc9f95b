//! Pages unlike those a model was trained on, seen in which signals go missing.
//!
//! A model's confidence is calibrated on its training pages. On pages written another
//! way it can still rank pairs well and yet be calibrated wrong, and nothing in its p
//! says so: a record model trained where every paper names its venue, judging pages
//! whose venue label it cannot read (lab/RESULTS.md, "Fields left unread in training"),
//! ranks their pairs nearly as well (average precision 0.978 against 0.997) while its
//! F1 falls from 0.989 to 0.890, because duplicates whose fields no longer all agree get
//! a lower p. What does show is how often each signal is missing: the venue test was
//! missing on none of its training pairs and on 55 % of those pages' pairs. So a
//! model keeps, per signal, the share of its training pairs on which it is missing,
//! and scoring compares the pairs it scores with those shares ([`Missing::shifts`]).
//!
//! A record test is missing on every pair that is not two records, so its share is
//! counted among the pairs of two records alone: a web crawl scored by a model
//! trained on web pages and records is not unlike its training for having no records.

use serde::{Deserialize, Serialize};

use crate::signals::record::{BOTH_RECORDS, PREFIX as RECORD_PREFIX};
use crate::signals::{contrast, MISSING};

/// Fewer pairs than this (of two records, for the record tests) say too little of
/// how often a signal is missing.
pub const MIN_PAIRS: usize = 100;

/// A signal whose missing share differs by this much (absolute) or more between the
/// training pairs and the scored ones is a shift: no signal moves by more than 0.02
/// between Structured/DBLP-ACM's training and valid splits, and none of fourteen
/// benchmarks moves one by this much, while an unread label moves its test by 0.55.
pub const SHIFT: f64 = 0.25;

/// A model learns what a signal's absence means from the pairs that lack it, and what
/// its value means from those that have it: a shift counts only for a signal it seldom
/// saw missing (or seldom saw present), on fewer than this share of its training pairs.
/// The shipped models saw the identifier tests missing on half the pairs of two
/// records (web pages and products mixed), and the web test split's record pairs lack
/// them on 95 %: a mix the model knows, not pages unlike its own.
///
/// Seldom present is also few pairs: a value the model saw on [`MIN_PAIRS`] pairs or
/// more is one it has learned, and more pairs having it is no field gone unread. The
/// shipped models saw `record.year_equal` on 12 % of their 5,604 pairs of two records
/// (670 pairs), and real pages of the generator's fresh set, where the record reader
/// finds a year on 58 % of theirs, were said to be unlike them while their F1 was 0.995.
pub const SELDOM: f64 = 0.15;

/// How often each signal is missing among a set of pairs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Missing {
    /// Pairs counted, and the pairs of two records among them.
    pub pairs: usize,
    pub record_pairs: usize,
    /// Per signal, in vector order: the share of the pairs on which it is missing (of
    /// the pairs of two records, for a record test); 0 for the contrast's word slots,
    /// which are not compared.
    pub shares: Vec<f32>,
}

/// A signal missing far more or far less often among scored pairs than in training.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Shift {
    pub signal: String,
    /// Share of pairs on which it is missing: in training, and among the scored pairs.
    #[serde(rename = "missing_in_training")]
    pub trained: f64,
    #[serde(rename = "missing_here")]
    pub here: f64,
}

/// Which pairs a signal's missing share is counted among.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Counted {
    AllPairs,
    RecordPairs,
    NotCompared,
}

/// Whether a signal is `record.both_records`, which says whether a pair is two records.
fn is_both_records(name: &str) -> bool {
    name.strip_prefix(RECORD_PREFIX) == Some(BOTH_RECORDS.0)
}

fn counted(name: &str) -> Counted {
    if name.starts_with(contrast::PREFIX) || is_both_records(name) {
        Counted::NotCompared
    } else if name.starts_with(RECORD_PREFIX) {
        Counted::RecordPairs
    } else {
        Counted::AllPairs
    }
}

impl Missing {
    /// The missing shares of `vectors`, laid out as `signals` names them.
    pub fn of<'a>(signals: &[String], vectors: impl IntoIterator<Item = &'a [f64]>) -> Missing {
        let both = signals.iter().position(|n| is_both_records(n));
        let kinds: Vec<Counted> = signals.iter().map(|n| counted(n)).collect();
        let mut missing = vec![0usize; signals.len()];
        let (mut pairs, mut record_pairs) = (0, 0);
        for x in vectors {
            pairs += 1;
            let records = both.is_some_and(|i| x[i] == 1.0);
            record_pairs += usize::from(records);
            for ((count, &kind), &value) in missing.iter_mut().zip(&kinds).zip(x) {
                let counts = match kind {
                    Counted::AllPairs => true,
                    Counted::RecordPairs => records,
                    Counted::NotCompared => false,
                };
                *count += usize::from(counts && value == MISSING);
            }
        }
        let share = |count: usize, of: usize| {
            if of == 0 {
                0.0
            } else {
                count as f32 / of as f32
            }
        };
        let shares = missing
            .iter()
            .zip(&kinds)
            .map(|(&count, kind)| match kind {
                Counted::AllPairs => share(count, pairs),
                Counted::RecordPairs => share(count, record_pairs),
                Counted::NotCompared => 0.0,
            })
            .collect();
        Missing {
            pairs,
            record_pairs,
            shares,
        }
    }

    /// The signals whose missing share among `here` (scored pairs, in the same layout)
    /// differs from this one (the training pairs') by [`SHIFT`] or more, where training
    /// saw them missing (or present) [`SELDOM`], largest first; none where either side
    /// counts fewer than [`MIN_PAIRS`] pairs.
    pub fn shifts(&self, here: &Missing, signals: &[String]) -> Vec<Shift> {
        let counted_pairs = |kind: Counted, missing: &Missing| match kind {
            Counted::AllPairs => missing.pairs,
            Counted::RecordPairs => missing.record_pairs,
            Counted::NotCompared => 0,
        };
        let mut shifts: Vec<Shift> = signals
            .iter()
            .zip(self.shares.iter().zip(&here.shares))
            .filter_map(|(name, (&trained, &now))| {
                let kind = counted(name);
                let trained_pairs = counted_pairs(kind, self);
                if trained_pairs.min(counted_pairs(kind, here)) < MIN_PAIRS {
                    return None;
                }
                let (trained, here) = (f64::from(trained), f64::from(now));
                let more = trained < SELDOM && here - trained >= SHIFT;
                let seldom_present = (1.0 - trained) * (trained_pairs as f64) < MIN_PAIRS as f64;
                let fewer = trained > 1.0 - SELDOM && seldom_present && trained - here >= SHIFT;
                (more || fewer).then(|| Shift {
                    signal: name.clone(),
                    trained,
                    here,
                })
            })
            .collect();
        shifts.sort_by(|a, b| {
            (b.here - b.trained)
                .abs()
                .total_cmp(&(a.here - a.trained).abs())
        });
        shifts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        [
            "fetched.title_similarity",
            "record.both_records",
            "record.venue_similarity",
        ]
        .map(String::from)
        .to_vec()
    }

    /// `n` pairs: records or not, title test and venue test present or missing.
    fn pairs(n: usize, records: bool, title: bool, venue: bool) -> Vec<Vec<f64>> {
        let value = |present: bool| if present { 0.5 } else { MISSING };
        let both = if records { 1.0 } else { 0.0 };
        vec![vec![value(title), both, value(venue && records)]; n]
    }

    fn missing(sets: &[Vec<Vec<f64>>]) -> Missing {
        Missing::of(&names(), sets.iter().flatten().map(Vec::as_slice))
    }

    #[test]
    fn a_record_test_is_counted_among_record_pairs() {
        let trained = missing(&[pairs(300, true, true, true), pairs(200, false, true, false)]);
        assert_eq!((trained.pairs, trained.record_pairs), (500, 300));
        assert_eq!(trained.shares, [0.0, 0.0, 0.0]);
        // A crawl without records is not unlike training pages with some.
        let web = missing(&[pairs(400, false, true, false)]);
        assert_eq!(trained.shifts(&web, &names()), []);
        // Records whose venue goes unread, and pages without titles, are.
        let unread = missing(&[pairs(150, true, false, false), pairs(50, true, true, true)]);
        let shifts = trained.shifts(&unread, &names());
        let found: Vec<(&str, f64)> = shifts.iter().map(|s| (s.signal.as_str(), s.here)).collect();
        assert_eq!(
            found,
            [
                ("fetched.title_similarity", 0.75),
                ("record.venue_similarity", 0.75)
            ]
        );
        // A signal training saw missing often enough is no shift, however it moves.
        let mixed = missing(&[pairs(200, true, true, true), pairs(100, true, true, false)]);
        let lacking = missing(&[pairs(150, true, true, false)]);
        assert_eq!(mixed.shifts(&lacking, &names()), []);
        // Nor is one it seldom saw missing, moving less than the shift.
        let some = missing(&[pairs(60, true, true, false), pairs(240, true, true, true)]);
        assert_eq!(trained.shifts(&some, &names()), []);
        // A signal training never saw present, present here, is one.
        let never = missing(&[pairs(300, true, true, false)]);
        let present = missing(&[pairs(150, true, true, true)]);
        let shifts = never.shifts(&present, &names());
        assert_eq!(shifts.len(), 1);
        assert_eq!((shifts[0].trained, shifts[0].here), (1.0, 0.0));
        // Nor one it saw present seldom by share but on enough pairs to have learned it.
        let learned = missing(&[pairs(880, true, true, false), pairs(120, true, true, true)]);
        assert_eq!(learned.shifts(&present, &names()), []);
        // Too few pairs to say.
        let few = missing(&[pairs(99, true, false, false)]);
        assert_eq!(trained.shifts(&few, &names()), []);
    }
}
