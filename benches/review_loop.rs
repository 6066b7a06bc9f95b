//! The review loop as an experiment: do labels of the pairs the model was unsure
//! of teach it more than as many labels of random pairs?
//!
//! `cargo bench --bench review_loop` (optionally `-- SHARE BUDGET ROUNDS POOL FROZEN`,
//! default 0.1, 150, 10, `training-data/web/train.csv`, `training-data/web/test.csv`).
//! For each round (seed): a model is trained on SHARE of the groups of
//! `training-data/web/train.csv`; the rest is scored and the pairs routed to
//! review go into a real review database; a simulated reviewer answers BUDGET
//! pairs of the queue in the order the page offers them (most uncertain first)
//! from the known labels, through the store as the page does; the model is
//! retrained with those labels (`retrain::retrain`, as `twinpage retrain` does),
//! and again with as many labels of randomly chosen pairs of the rest. All three
//! are measured on `training-data/web/test.csv`, which none trained on. Rendered
//! bodies come from the stored renders, so no browser is needed.

use std::collections::HashMap;
use std::path::PathBuf;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use twinpage::model::train::{groups_by_shared_document, part_of, train_on_parts, Part};
use twinpage::model::{DecisionPolicy, LabelledPairs, Metrics, Model, TrainingInfo, TreeParams};
use twinpage::pipeline::{labelled_pairs, Batch, Outcome};
use twinpage::render::{RenderOptions, RenderSettings};
use twinpage::review::retrain::{self, measure, Frozen};
use twinpage::review::{intake, ReviewStore, Verdict};
use twinpage::signals::{names, Layout};
use twinpage::util::hash::mix64;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let share: f64 = args
        .first()
        .map_or(0.1, |a| a.parse().expect("SHARE is a number"));
    let budget: usize = args
        .get(1)
        .map_or(150, |a| a.parse().expect("BUDGET is a number"));
    let rounds: u64 = args
        .get(2)
        .map_or(10, |a| a.parse().expect("ROUNDS is a number"));
    let work = tempfile::tempdir().unwrap();
    let settings = RenderSettings {
        cache: work.path().join("cache"),
        options: RenderOptions::default(),
        retry_failed: false,
    };
    let arg = |i: usize, default: &str| PathBuf::from(args.get(i).map_or(default, String::as_str));
    let train_file = arg(3, "training-data/web/train.csv");
    let pool =
        Batch::load(std::slice::from_ref(&train_file), Some(&settings)).expect("train split loads");
    let (pairs, _) = labelled_pairs(&pool).unwrap();
    assert_eq!(
        pairs.labels.len(),
        pool.pairs().count(),
        "every training pair is readable"
    );
    let test = Batch::load(&[arg(4, "training-data/web/test.csv")], Some(&settings)).unwrap();
    let (frozen, _) = labelled_pairs(&test).unwrap();
    let label_of: HashMap<String, bool> = pool
        .pairs()
        .map(|p| (p.location(), p.label.unwrap()))
        .collect();
    let groups = groups_by_shared_document(&pairs.documents);
    println!(
        "{} training pairs, {} frozen test pairs, start share {share}, budget {budget} labels, {rounds} rounds",
        pairs.labels.len(),
        frozen.labels.len()
    );
    println!("round  start  queue labels   F1 start   F1 +queue   F1 +random   review share start/+queue/+random");
    let mut sums = [0.0; 3];
    for seed in 1..=rounds {
        let small: Vec<bool> = groups
            .iter()
            .map(|&g| (mix64(g ^ mix64(seed)) % 1000) as f64 / 1000.0 < share)
            .collect();
        let start = select(&pairs, |i| small[i]);
        let parent = train_start(&start, &groups, &small, seed);
        // Score the rest; queue what is routed to review.
        let outcomes: Vec<Option<Outcome>> = (0..pairs.labels.len())
            .map(|i| {
                (!small[i]).then(|| {
                    let judgement = parent.judge(&pairs.vectors[i]);
                    Outcome {
                        p_duplicate: judgement.p_duplicate,
                        spread: judgement.spread,
                        decision: parent.decide(judgement),
                        decided_by: "model",
                        vector: Some(pairs.vectors[i].clone()),
                    }
                })
            })
            .collect();
        let db = work.path().join(format!("queue-{seed}.db"));
        let mut store = ReviewStore::open(&db).unwrap();
        intake::enqueue_review_pairs(&mut store, &pool, &parent, &outcomes, None).unwrap();
        let queued = store.pending().unwrap();
        // The simulated reviewer answers the queue from the top, as far as the budget goes.
        for &id in queued.iter().take(budget) {
            let duplicate = label_of[&store.pair(id).unwrap().source];
            let verdict = if duplicate {
                Verdict::Duplicate
            } else {
                Verdict::Distinct
            };
            store.judge(id, "oracle", verdict, "page").unwrap();
        }
        let (reviewed, _) =
            retrain::reviewed_pairs(&store.settled_labels().unwrap(), &parent.signals);
        let n = reviewed.labels.len();
        // As many labels of random pairs of the rest.
        let mut rest: Vec<usize> = (0..pairs.labels.len()).filter(|&i| !small[i]).collect();
        rest.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
        let chosen: std::collections::HashSet<usize> = rest.into_iter().take(n).collect();
        let random = select(&pairs, |i| chosen.contains(&i));
        let frozen_set = || Frozen::Pairs(frozen.clone());
        let before = measure(&parent, &frozen);
        let after = retrain::retrain(&parent, &start, &reviewed, frozen_set(), seed).unwrap();
        let after_random = retrain::retrain(&parent, &start, &random, frozen_set(), seed).unwrap();
        let f1 = [before.f1, after.metrics.f1, after_random.metrics.f1];
        for (s, f) in sums.iter_mut().zip(f1) {
            *s += f;
        }
        println!(
            "{seed:>5} {:>6} {:>6} {n:>6} {:>10.4} {:>11.4} {:>12.4}   {}",
            start.labels.len(),
            queued.len(),
            f1[0],
            f1[1],
            f1[2],
            [&before, &after.metrics, &after_random.metrics]
                .map(|m: &Metrics| format!("{:.3}", m.review_share))
                .join(" / ")
        );
    }
    let r = rounds as f64;
    println!(
        " mean                      {:>10.4} {:>11.4} {:>12.4}",
        sums[0] / r,
        sums[1] / r,
        sums[2] / r
    );
}

/// The pairs `keep` picks.
fn select(pairs: &LabelledPairs, keep: impl Fn(usize) -> bool) -> LabelledPairs {
    let mut out = LabelledPairs::default();
    for i in (0..pairs.len()).filter(|&i| keep(i)) {
        out.push_from(pairs, i);
    }
    out
}

/// The starting model: trained like `twinpage train` on the small share, split
/// by the groups of the whole pool.
fn train_start(start: &LabelledPairs, groups: &[u64], small: &[bool], seed: u64) -> Model {
    let parts: Vec<Part> = groups
        .iter()
        .zip(small)
        .filter(|(_, &s)| s)
        .map(|(&g, _)| part_of(g, seed))
        .collect();
    let learner = TreeParams::default().check().expect("default parameters");
    let policy = DecisionPolicy::new(0.95).expect("a valid target");
    let trained =
        train_on_parts(start, &parts, &learner, &policy, seed).expect("the start share trains");
    let info = TrainingInfo {
        pairs: start.len(),
        ..TrainingInfo::default()
    };
    Model::new(
        names(Layout::FetchedAndRendered),
        policy,
        seed,
        info,
        trained,
        None,
    )
}
