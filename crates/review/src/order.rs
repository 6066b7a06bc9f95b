//! Which queued pair a person should label next: the order of the review queue.
//!
//! Labels are the scarce resource of the review loop, so the queue serves first
//! the pairs whose labels teach the next model most. "Most uncertain first" alone
//! spends them badly: the uncertain pairs of a model crowd into a few regions of
//! the signal space (one kind of page, one template), so the first hundred labels
//! say the same thing a hundred times, and nearly all of them land on one side of
//! the boundary. The orders here follow what active learning for entity matching
//! measured to work:
//!
//! - [`Order::Uncertainty`]: confidence nearest 0.5 first (the order before this one);
//! - [`Order::Committee`]: the forest's trees disagreeing most first (query by
//!   committee; the spread of the members' outputs);
//! - [`Order::Balanced`]: informativeness (uncertainty and disagreement together),
//!   taken alternately from the likely duplicates and the likely distinct pairs
//!   (DAL), round-robin over clusters of signal vectors within each side
//!   (diversity, as Battleship's clusters), with one pair in [`RANDOM_EVERY`]
//!   drawn at random (so the queue also samples what the model is sure of);
//! - [`Order::Random`]: a seeded shuffle, the baseline.
//!
//! An order ranks every queued pair, labelled or not, and is a pure function of
//! the pairs and the seed: the page and `review export` serve the same order, and
//! it does not move under a reviewer's feet as labels arrive.

use std::cmp::Ordering;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use twinpage::signals::contrast;
use twinpage::util::hash::mix64;
use twinpage::util::Choice;

/// How the queue is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Uncertainty,
    Committee,
    Balanced,
    Random,
}

impl Choice for Order {
    const CHOICES: &'static [(Order, &'static str, &'static str)] = &[
        (Order::Uncertainty, "uncertainty", "Confidence nearest 0.5 first"),
        (Order::Committee, "committee", "The forest's trees disagreeing most first"),
        (
            Order::Balanced,
            "balanced",
            "Informative pairs, alternately likely duplicates and likely distinct, spread over clusters of similar pairs, with a small random share",
        ),
        (Order::Random, "random", "A seeded shuffle"),
    ];
}

/// The default order: the one that taught models fastest in
/// `cargo run --release -p twinpage-lab --bin review-loop --` (see docs/review.md).
pub const DEFAULT_ORDER: Order = Order::Balanced;

/// An order and its seed: what the page and `review export` are both told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueOrder {
    pub order: Order,
    pub seed: u64,
}

impl Default for QueueOrder {
    fn default() -> QueueOrder {
        QueueOrder {
            order: DEFAULT_ORDER,
            seed: 0,
        }
    }
}

/// One pair in [`RANDOM_EVERY`] of the balanced order is a random one.
pub const RANDOM_EVERY: usize = 10;

/// Clusters of signal vectors the balanced order spreads each side over.
const CLUSTERS: usize = 12;

/// What the order needs to know of a queued pair.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub id: i64,
    /// The pair's identity (stable across databases): ties and shuffles use it.
    pub identity: String,
    pub p_duplicate: f64,
    /// The members' disagreement (0 for a single tree).
    pub spread: f64,
    pub signals: Vec<f64>,
}

/// Why a pair holds its place in the queue; the review page says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// Its confidence is near 0.5.
    Uncertain,
    /// The trees disagree on it.
    TreesDisagree,
    /// It stands for a cluster of pairs no earlier pair covers.
    Diversity,
    /// Drawn at random.
    Random,
}

impl Reason {
    /// How the page and exports name it.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Uncertain => "uncertain",
            Reason::TreesDisagree => "trees-disagree",
            Reason::Diversity => "diversity",
            Reason::Random => "random",
        }
    }
}

/// The queue in `order`: every candidate's id once, with why it sits where it does.
pub fn rank(candidates: &[Candidate], order: Order, seed: u64) -> Vec<(i64, Reason)> {
    let mut idx: Vec<usize> = (0..candidates.len()).collect();
    let by_identity = |a: &usize, b: &usize| candidates[*a].identity.cmp(&candidates[*b].identity);
    match order {
        Order::Uncertainty => {
            idx.sort_by(|a, b| {
                margin(&candidates[*a])
                    .total_cmp(&margin(&candidates[*b]))
                    .then_with(|| by_identity(a, b))
            });
            idx.into_iter()
                .map(|i| (candidates[i].id, Reason::Uncertain))
                .collect()
        }
        Order::Committee => {
            idx.sort_by(|a, b| {
                let (x, y) = (&candidates[*a], &candidates[*b]);
                y.spread
                    .total_cmp(&x.spread)
                    .then_with(|| margin(x).total_cmp(&margin(y)))
                    .then_with(|| by_identity(a, b))
            });
            idx.into_iter()
                .map(|i| (candidates[i].id, Reason::TreesDisagree))
                .collect()
        }
        Order::Random => {
            idx.sort_by(by_identity);
            idx.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
            idx.into_iter()
                .map(|i| (candidates[i].id, Reason::Random))
                .collect()
        }
        Order::Balanced => balanced(candidates, seed),
    }
}

/// Distance of the confidence from 0.5: small is uncertain.
fn margin(c: &Candidate) -> f64 {
    (c.p_duplicate - 0.5).abs()
}

/// How much a label of this pair is worth: uncertainty and disagreement, each in [0, 1].
fn informativeness(c: &Candidate) -> f64 {
    (1.0 - 2.0 * margin(c)) + (2.0 * c.spread).min(1.0)
}

/// Why an informative pair is: whichever of its two parts is larger.
fn informative_reason(c: &Candidate) -> Reason {
    if (2.0 * c.spread).min(1.0) > 1.0 - 2.0 * margin(c) {
        Reason::TreesDisagree
    } else {
        Reason::Uncertain
    }
}

fn balanced(candidates: &[Candidate], seed: u64) -> Vec<(i64, Reason)> {
    let clusters = clusters(candidates, seed);
    // The pure informativeness order: a pair served before its rank there was
    // brought forward by diversity.
    let mut by_value: Vec<usize> = (0..candidates.len()).collect();
    let best_first = |a: &usize, b: &usize| -> Ordering {
        informativeness(&candidates[*b])
            .total_cmp(&informativeness(&candidates[*a]))
            .then_with(|| candidates[*a].identity.cmp(&candidates[*b].identity))
    };
    by_value.sort_by(best_first);
    let mut value_rank = vec![0; candidates.len()];
    for (rank, &i) in by_value.iter().enumerate() {
        value_rank[i] = rank;
    }
    let mut sides = [0, 1].map(|side| {
        let members: Vec<usize> = by_value
            .iter()
            .copied()
            .filter(|&i| usize::from(candidates[i].p_duplicate < 0.5) == side)
            .collect();
        RoundRobin::new(&members, &clusters)
    });
    let mut taken = vec![false; candidates.len()];
    let mut rng = ChaCha8Rng::seed_from_u64(mix64(seed ^ 0xba1a_4ced));
    let mut out = Vec::with_capacity(candidates.len());
    let mut side = 0;
    while out.len() < candidates.len() {
        let position = out.len();
        if position % RANDOM_EVERY == RANDOM_EVERY - 1 {
            let left: Vec<usize> = by_value.iter().copied().filter(|&i| !taken[i]).collect();
            let i = left[rng.random_range(0..left.len())];
            taken[i] = true;
            out.push((candidates[i].id, Reason::Random));
            continue;
        }
        let next = sides[side]
            .next(&taken)
            .or_else(|| sides[1 - side].next(&taken));
        side = 1 - side;
        let Some(i) = next else { break };
        taken[i] = true;
        let reason = if value_rank[i] <= position {
            informative_reason(&candidates[i])
        } else {
            Reason::Diversity
        };
        out.push((candidates[i].id, reason));
    }
    out
}

/// Takes pairs of one side cluster by cluster in turn, the most informative of
/// each cluster first; a cluster's turn comes in the order of its best pair.
struct RoundRobin {
    /// Each cluster's members, best first; emptied from the front.
    queues: Vec<std::collections::VecDeque<usize>>,
    turn: usize,
}

impl RoundRobin {
    fn new(best_first: &[usize], cluster_of: &[usize]) -> RoundRobin {
        let mut queues: Vec<std::collections::VecDeque<usize>> = Vec::new();
        let mut slot = [usize::MAX; CLUSTERS];
        for &i in best_first {
            let c = cluster_of[i];
            if slot[c] == usize::MAX {
                slot[c] = queues.len();
                queues.push(Default::default());
            }
            queues[slot[c]].push_back(i);
        }
        RoundRobin { queues, turn: 0 }
    }

    /// The next pair not yet taken, or None when the side is used up.
    fn next(&mut self, taken: &[bool]) -> Option<usize> {
        let clusters = self.queues.len();
        for _ in 0..clusters {
            let queue = &mut self.queues[self.turn];
            self.turn = (self.turn + 1) % clusters;
            while let Some(i) = queue.pop_front() {
                if !taken[i] {
                    return Some(i);
                }
            }
        }
        None
    }
}

/// A cluster number for each candidate: k-means over the standardised numbers of
/// the signal vectors (seeded k-means++ start, a few rounds: it only has to spread
/// the queue, not to find true groups).
fn clusters(candidates: &[Candidate], seed: u64) -> Vec<usize> {
    let n = candidates.len();
    let k = CLUSTERS.min(n);
    let full = candidates.first().map_or(0, |c| c.signals.len());
    if k <= 1 || full == 0 || candidates.iter().any(|c| c.signals.len() != full) {
        return vec![0; n];
    }
    // The slots of differing words (hashes, last) are no distance.
    let width = candidates
        .first()
        .map_or(0, |c| contrast::numbers(&c.signals).len());
    let points = standardised(candidates, width);
    let distance =
        |a: &[f64], b: &[f64]| -> f64 { a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum() };
    let mut rng = ChaCha8Rng::seed_from_u64(mix64(seed ^ 0xc105));
    let mut centres: Vec<Vec<f64>> = vec![points[rng.random_range(0..n)].clone()];
    while centres.len() < k {
        let weights: Vec<f64> = points
            .iter()
            .map(|p| {
                centres
                    .iter()
                    .map(|c| distance(p, c))
                    .fold(f64::INFINITY, f64::min)
            })
            .collect();
        let total: f64 = weights.iter().sum();
        if total <= 0.0 {
            break;
        }
        let mut target = rng.random_range(0.0..total);
        let pick = weights
            .iter()
            .position(|&w| {
                target -= w;
                target < 0.0
            })
            .unwrap_or(n - 1);
        centres.push(points[pick].clone());
    }
    let mut assignment = vec![0; n];
    for _ in 0..8 {
        for (a, p) in assignment.iter_mut().zip(&points) {
            *a = (0..centres.len())
                .min_by(|&x, &y| distance(p, &centres[x]).total_cmp(&distance(p, &centres[y])))
                .unwrap_or(0);
        }
        for (c, centre) in centres.iter_mut().enumerate() {
            let members: Vec<&Vec<f64>> = points
                .iter()
                .zip(&assignment)
                .filter(|(_, &a)| a == c)
                .map(|(p, _)| p)
                .collect();
            if members.is_empty() {
                continue;
            }
            for (d, value) in centre.iter_mut().enumerate() {
                *value = members.iter().map(|p| p[d]).sum::<f64>() / members.len() as f64;
            }
        }
    }
    assignment
}

/// Each signal shifted and scaled to mean 0 and deviation 1 over the candidates
/// (a constant signal becomes 0), so that no signal's unit decides the clusters.
fn standardised(candidates: &[Candidate], width: usize) -> Vec<Vec<f64>> {
    let n = candidates.len() as f64;
    let value = |c: &Candidate, d: usize| {
        let x = c.signals[d];
        if x.is_finite() {
            x
        } else {
            -1.0
        }
    };
    let stats: Vec<(f64, f64)> = (0..width)
        .map(|d| {
            let mean = candidates.iter().map(|c| value(c, d)).sum::<f64>() / n;
            let var = candidates
                .iter()
                .map(|c| (value(c, d) - mean).powi(2))
                .sum::<f64>()
                / n;
            (mean, var.sqrt())
        })
        .collect();
    candidates
        .iter()
        .map(|c| {
            stats
                .iter()
                .enumerate()
                .map(|(d, &(mean, sd))| {
                    if sd > 0.0 {
                        (value(c, d) - mean) / sd
                    } else {
                        0.0
                    }
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(id: i64, p: f64, spread: f64, signals: Vec<f64>) -> Candidate {
        Candidate {
            id,
            identity: format!("pair-{id:04}"),
            p_duplicate: p,
            spread,
            signals,
        }
    }

    /// 40 pairs: ids 0..20 likely duplicates (p 0.55..0.95), 20..40 likely
    /// distinct (p 0.05..0.45); two far-apart clusters of signals on each side.
    fn queue() -> Vec<Candidate> {
        (0..40)
            .map(|i| {
                let duplicate = i < 20;
                let step = (i % 20) as f64 / 50.0;
                let p = if duplicate { 0.55 + step } else { 0.45 - step };
                let far = if i % 2 == 0 { 0.0 } else { 10.0 };
                candidate(i, p, 0.05, vec![far, far + step, p])
            })
            .collect()
    }

    fn ids(ranked: &[(i64, Reason)]) -> Vec<i64> {
        ranked.iter().map(|(id, _)| *id).collect()
    }

    #[test]
    fn every_order_ranks_every_pair_once_and_is_the_same_for_a_seed() {
        let queue = queue();
        for order in [
            Order::Uncertainty,
            Order::Committee,
            Order::Balanced,
            Order::Random,
        ] {
            let first = rank(&queue, order, 7);
            let mut sorted = ids(&first);
            sorted.sort();
            assert_eq!(sorted, (0..40).collect::<Vec<_>>(), "{order:?}");
            assert_eq!(first, rank(&queue, order, 7), "{order:?} for one seed");
        }
        assert_ne!(
            ids(&rank(&queue, Order::Random, 7)),
            ids(&rank(&queue, Order::Random, 8)),
            "another seed, another shuffle"
        );
    }

    #[test]
    fn uncertainty_serves_the_confidence_nearest_a_half_first() {
        let ranked = ids(&rank(&queue(), Order::Uncertainty, 1));
        // p 0.55 (id 0) and 0.45 (id 20) are both 0.05 from 0.5.
        let mut first = ranked[..2].to_vec();
        first.sort();
        assert_eq!(first, [0, 20]);
        assert!(
            matches!(ranked.last(), Some(19 | 39)),
            "the surest last: {ranked:?}"
        );
    }

    #[test]
    fn committee_serves_the_largest_disagreement_first() {
        let mut queue = queue();
        queue[33].spread = 0.4;
        queue[5].spread = 0.3;
        let ranked = rank(&queue, Order::Committee, 1);
        assert_eq!(ids(&ranked)[..2], [33, 5]);
        assert!(ranked.iter().all(|(_, r)| *r == Reason::TreesDisagree));
    }

    #[test]
    fn balanced_alternates_sides_spreads_over_clusters_and_mixes_in_random_pairs() {
        let ranked = rank(&queue(), Order::Balanced, 3);
        let first: Vec<i64> = ids(&ranked)[..RANDOM_EVERY - 1].to_vec();
        // Before the first random slot: the sides take turns...
        for (k, id) in first.iter().enumerate() {
            assert_eq!(*id < 20, k % 2 == 0, "position {k}: {first:?}");
        }
        // ...and each side visits both clusters (even and odd ids) in its first two.
        assert_ne!(first[0] % 2, first[2] % 2, "{first:?}");
        assert_ne!(first[1] % 2, first[3] % 2, "{first:?}");
        // The most informative pair of each side leads.
        assert_eq!(&first[..2], &[0, 20]);
        assert_eq!(ranked[RANDOM_EVERY - 1].1, Reason::Random);
        assert!(ranked.iter().any(|(_, r)| *r == Reason::Diversity));
    }

    #[test]
    fn a_queue_of_one_or_none_is_ranked() {
        assert!(rank(&[], Order::Balanced, 1).is_empty());
        let one = [candidate(9, 0.5, 0.0, vec![])];
        assert_eq!(ids(&rank(&one, Order::Balanced, 1)), [9]);
    }
}
