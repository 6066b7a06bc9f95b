//! Whether reviewers agree, before their labels retrain a model: Cohen's kappa
//! for each pair of reviewers on the pairs both labelled, and over all such pairs
//! pooled, and each reviewer's pace.
//!
//! Kappa is the agreement beyond chance: (p_o − p_e) / (1 − p_e), p_o the share of
//! items two reviewers labelled alike, p_e the share they would by chance given
//! how often each uses each label (duplicate, distinct, unsure). 1 is full
//! agreement, 0 what chance gives; above 0.8 is usually taken as strong.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::store::Verdict;

/// A reviewer's active label (not undone, not a skip).
#[derive(Debug, Clone)]
pub struct Label {
    pub pair_id: i64,
    pub reviewer: String,
    pub verdict: Verdict,
    /// When it was given, in milliseconds since the epoch.
    pub at_ms: i64,
}

/// Two reviewers' (or all pairs of reviewers') agreement.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Agreement {
    pub reviewers: Vec<String>,
    /// Items both labelled.
    pub pairs: usize,
    /// None below two items, or when chance alone agrees on everything.
    pub kappa: Option<f64>,
}

/// A reviewer's pace.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Pace {
    pub reviewer: String,
    pub labels: usize,
    /// Hours of labelling: the gaps between one label and the next, each gap over
    /// [`BREAK_MS`] counted as a break (not at all).
    pub hours: f64,
    pub per_hour: Option<f64>,
}

/// A gap between two labels longer than this is a break.
pub const BREAK_MS: i64 = 10 * 60 * 1000;

/// What the stats page and `review stats` show.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Stats {
    pub reviewers: Vec<Pace>,
    pub pairs_of_reviewers: Vec<Agreement>,
    /// Every item labelled by two reviewers, over all pairs of reviewers, pooled.
    pub overall: Agreement,
}

/// Cohen's kappa of two raters' labels of the same items.
pub fn cohen_kappa(items: &[(Verdict, Verdict)]) -> Option<f64> {
    if items.len() < 2 {
        return None;
    }
    let n = items.len() as f64;
    let observed = items.iter().filter(|(a, b)| a == b).count() as f64 / n;
    let share = |pick: fn(&(Verdict, Verdict)) -> Verdict, v: Verdict| {
        items.iter().filter(|i| pick(i) == v).count() as f64 / n
    };
    let chance: f64 = [Verdict::Duplicate, Verdict::Distinct, Verdict::Unsure]
        .into_iter()
        .map(|v| share(|i| i.0, v) * share(|i| i.1, v))
        .sum();
    (chance < 1.0).then(|| (observed - chance) / (1.0 - chance))
}

/// Each reviewer's pace, each pair of reviewers' kappa and the pooled one.
pub fn stats(labels: &[Label]) -> Stats {
    let mut by_reviewer: BTreeMap<&str, Vec<&Label>> = BTreeMap::new();
    for label in labels {
        by_reviewer.entry(&label.reviewer).or_default().push(label);
    }
    let reviewers = by_reviewer
        .iter()
        .map(|(name, labels)| pace(name, labels))
        .collect();
    let of: Vec<(&str, HashMap<i64, Verdict>)> = by_reviewer
        .iter()
        .map(|(name, labels)| {
            (
                *name,
                labels.iter().map(|l| (l.pair_id, l.verdict)).collect(),
            )
        })
        .collect();
    let mut pooled = Vec::new();
    let mut pairs_of_reviewers = Vec::new();
    for (i, (a, labels_a)) in of.iter().enumerate() {
        for (b, labels_b) in &of[i + 1..] {
            let mut both: Vec<(i64, (Verdict, Verdict))> = labels_a
                .iter()
                .filter_map(|(id, &va)| Some((*id, (va, *labels_b.get(id)?))))
                .collect();
            if both.is_empty() {
                continue;
            }
            both.sort_by_key(|(id, _)| *id);
            let items: Vec<_> = both.into_iter().map(|(_, v)| v).collect();
            pairs_of_reviewers.push(Agreement {
                reviewers: vec![a.to_string(), b.to_string()],
                pairs: items.len(),
                kappa: cohen_kappa(&items),
            });
            pooled.extend(items);
        }
    }
    Stats {
        reviewers,
        pairs_of_reviewers,
        overall: Agreement {
            reviewers: by_reviewer.keys().map(|r| r.to_string()).collect(),
            pairs: pooled.len(),
            kappa: cohen_kappa(&pooled),
        },
    }
}

fn pace(reviewer: &str, labels: &[&Label]) -> Pace {
    let mut times: Vec<i64> = labels.iter().map(|l| l.at_ms).collect();
    times.sort_unstable();
    let working_ms: i64 = times
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|&gap| gap <= BREAK_MS)
        .sum();
    let hours = working_ms as f64 / 3_600_000.0;
    Pace {
        reviewer: reviewer.to_string(),
        labels: labels.len(),
        hours,
        per_hour: (hours > 0.0).then(|| labels.len() as f64 / hours),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Verdict::{Distinct as N, Duplicate as D, Unsure as U};

    #[test]
    fn kappa_matches_the_hand_computed_table() {
        // 50 items: 20 both duplicate, 5 A duplicate / B distinct, 10 A distinct / B
        // duplicate, 15 both distinct. p_o = 35/50 = 0.7; A says duplicate 25/50, B
        // 30/50: p_e = 0.5 x 0.6 + 0.5 x 0.4 = 0.5; kappa = (0.7 - 0.5) / 0.5 = 0.4.
        let items: Vec<_> = [((D, D), 20), ((D, N), 5), ((N, D), 10), ((N, N), 15)]
            .into_iter()
            .flat_map(|(pair, n)| std::iter::repeat_n(pair, n))
            .collect();
        assert!((cohen_kappa(&items).unwrap() - 0.4).abs() < 1e-12);
        // Full agreement over three labels is 1; chance alone agreeing on all, none.
        assert_eq!(cohen_kappa(&[(D, D), (N, N), (U, U)]), Some(1.0));
        assert_eq!(cohen_kappa(&[(D, D), (D, D)]), None);
    }

    #[test]
    fn stats_pair_reviewers_on_what_both_labelled_and_count_breaks_out() {
        let label = |pair_id, reviewer: &str, verdict, minute: i64| Label {
            pair_id,
            reviewer: reviewer.into(),
            verdict,
            at_ms: minute * 60_000,
        };
        let labels = [
            label(1, "ann", D, 0),
            label(2, "ann", N, 1),
            label(3, "ann", D, 2),
            // An hour's break, then one more.
            label(4, "ann", N, 62),
            label(1, "bo", D, 0),
            label(2, "bo", D, 5),
            label(3, "bo", D, 6),
            label(9, "cy", U, 0),
        ];
        let s = stats(&labels);
        let ann = &s.reviewers[0];
        assert_eq!((ann.labels, ann.hours), (4, 2.0 / 60.0));
        assert_eq!(s.pairs_of_reviewers.len(), 1, "cy shares no pair");
        let pair = &s.pairs_of_reviewers[0];
        assert_eq!((pair.reviewers.join("+"), pair.pairs), ("ann+bo".into(), 3));
        // ann D N D, bo D D D: p_o 2/3, p_e 2/3 x 1: kappa 0.
        assert!(pair.kappa.unwrap().abs() < 1e-12);
        assert_eq!(s.overall.pairs, 3);
        assert_eq!(s.reviewers[2].per_hour, None);
    }
}
