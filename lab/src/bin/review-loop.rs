//! The review loop as an experiment: do the labels the queue serves first teach
//! the model more than as many labels of random pairs?
//!
//! `cargo run --release -p twinpage-lab --bin review-loop -- [--seeds 5 --share 0.05 --only web,Abt-Buy]`
//!
//! For each dataset and seed, a start model (the default forest, trained as
//! `twinpage train` trains it) learns from SHARE of the pool's groups of pairs;
//! the rest of the pool is the stream a reviewer labels, from its known labels:
//!
//! - *one round*: the start model scores the stream, the pairs it routes to review
//!   are queued, and the first N of the queue in each order (`review::order::rank`,
//!   the order the page and `review export --limit N` serve) are labelled; the
//!   model is retrained with them (`review::retrain`, as `twinpage retrain` does).
//!   When the queue holds fewer than N pairs, the rest of the stream follows it
//!   in the same order.
//! - *retrained at each budget*: the same, but the model is retrained at every
//!   budget and the stream scored and ranked again by the new model before more
//!   labels are taken (a reviewer who retrains when the hint says so).
//! - *random*: N pairs of the stream drawn at random.
//!
//! Every model is measured by F1 at its F1 cut on a frozen set none trained on: web
//! pairs `training-data/web/train.csv` → `test.csv` (rendered bodies from the
//! stored renders, so no browser runs), and the full Walmart-Amazon and Abt-Buy
//! train → valid splits, which `lab/er-benchmark.py --only
//! Structured/Walmart-Amazon Textual/Abt-Buy` writes to `target/er-benchmark/pages`
//! (those datasets are skipped with that hint when the files are missing).
//!
//! The stop hint is checked against the curve: labels are taken one at a time in
//! the default order until the hint says to retrain; it was right when retraining
//! there beats the start model and 100 more labels of the same queue would add
//! less than one F1 point.
//!
//! Prints mean ± standard deviation over the seeds; writes every point to
//! `target/review-loop/curves.csv` for plotting.
//!
//! `-- --ceiling` asks another question: how many labels does it take to reach 98 %
//! of the F1 that every label of the pool gives (the *ceiling*: the start model
//! retrained with every label of its stream, fitted as the budgets below are, mean
//! over the seeds)? For each seed, labels of the stream are taken in the queue's
//! default order (one round, as above) and at random, at each budget of
//! [`CEILING_BUDGETS`]; the labels each needed are the budget from
//! which on every retrained model stays at the mark; the table gives them and the
//! ratio of their medians.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use rand::seq::SliceRandom;
use rand::SeedableRng;
use twinpage::model::forest;
use twinpage::model::train::{self, groups_by_shared_document, Fit};
use twinpage::model::{DecisionPolicy, LabelledPairs, Model, TrainingInfo, KINDS};
use twinpage::pipeline::{labelled_pairs, labelled_with_bodies, Batch};
use twinpage::render::{RenderOptions, RenderSettings};
use twinpage::util::hash::mix64;
use twinpage::util::params::ParamValues;
use twinpage::util::Choice;
use twinpage_review::hint::{hint, CellRow};
use twinpage_review::order::{rank, Candidate, Order, DEFAULT_ORDER};
use twinpage_review::retrain::{self, measure, Frozen};

/// Label counts at which the curves are measured.
const BUDGETS: [usize; 5] = [100, 200, 300, 500, 900];

/// Label counts tried, in turn, until a model reaches 98 % of the ceiling.
const CEILING_BUDGETS: [usize; 14] = [
    25, 50, 100, 150, 200, 300, 400, 600, 800, 1200, 1600, 2400, 3200, 4800,
];

/// The share of the ceiling's F1 the labels must reach.
const CEILING_SHARE: f64 = 0.98;

/// The orders compared with random labels.
const ORDERS: [Order; 3] = [Order::Uncertainty, Order::Committee, Order::Balanced];

/// A pool to label from and a frozen set to measure on.
struct Dataset {
    name: &'static str,
    pool: LabelledPairs,
    frozen: LabelledPairs,
    signals: Vec<String>,
    /// The share of the pool's pairs that are two records: what makes `twinpage
    /// train` fit a set on every pair and calibrate its forest out of bag.
    record_share: f64,
}

/// One dataset and seed: the start share, its model and the stream.
struct Round<'a> {
    data: &'a Dataset,
    seed: u64,
    start: LabelledPairs,
    model: Model,
    /// Pool indices of the stream (the pairs not in the start share).
    stream: Vec<usize>,
}

/// One measured point of a curve.
struct Point {
    dataset: &'static str,
    protocol: &'static str,
    order: String,
    seed: u64,
    labels: usize,
    f1: f64,
}

fn main() {
    // Its paths (training-data/, target/) are the repository's, wherever it is started.
    std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .expect("the repository is where it was built");
    let options = Options::parse();
    let work = tempfile::tempdir().unwrap();
    let datasets = load_datasets(&options, work.path());
    if options.ceiling {
        labels_to_ceiling(&datasets, &options);
        return;
    }
    let mut points = Vec::new();
    let mut hints = Vec::new();
    for data in &datasets {
        println!(
            "\n## {}: pool {} pairs, frozen {} pairs, start share {}, {} seeds",
            data.name,
            data.pool.len(),
            data.frozen.len(),
            options.share,
            options.seeds
        );
        for seed in 1..=options.seeds {
            let round = Round::new(data, options.share, seed);
            let started = points.len();
            round.curves(&mut points);
            hints.push(round.hint_check());
            eprintln!(
                "{} seed {seed}: start {} pairs, queue {} of {} stream pairs, {} points",
                data.name,
                round.start.len(),
                round.queue(&round.model).0.len(),
                round.stream.len(),
                points.len() - started
            );
        }
        print_table(data.name, &points);
    }
    print_hints(&hints);
    write_points(&points);
}

struct Options {
    seeds: u64,
    share: f64,
    only: Option<String>,
    ceiling: bool,
}

impl Options {
    fn parse() -> Options {
        let mut options = Options {
            seeds: 5,
            share: 0.05,
            only: None,
            ceiling: false,
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let mut value = || args.next().unwrap_or_else(|| panic!("{arg} needs a value"));
            match arg.as_str() {
                "--seeds" => options.seeds = value().parse().expect("--seeds N"),
                "--share" => options.share = value().parse().expect("--share S"),
                "--only" => options.only = Some(value()),
                "--ceiling" => options.ceiling = true,
                _ => {} // cargo bench passes --bench
            }
        }
        options
    }
}

fn load_datasets(options: &Options, work: &Path) -> Vec<Dataset> {
    let settings = RenderSettings {
        cache: work.join("cache"),
        options: RenderOptions::default(),
        retry_failed: false,
        replays: Default::default(),
    };
    let pages = Path::new("target/er-benchmark/pages");
    let sources: [(&'static str, PathBuf, PathBuf, Option<&RenderSettings>); 3] = [
        (
            "web",
            "training-data/web/train.csv".into(),
            "training-data/web/test.csv".into(),
            Some(&settings),
        ),
        (
            "Walmart-Amazon",
            pages.join("Structured_Walmart-Amazon.train.csv"),
            pages.join("Structured_Walmart-Amazon.valid.csv"),
            None,
        ),
        (
            "Abt-Buy",
            pages.join("Textual_Abt-Buy.train.csv"),
            pages.join("Textual_Abt-Buy.valid.csv"),
            None,
        ),
    ];
    sources
        .into_iter()
        .filter(|(name, ..)| {
            options
                .only
                .as_deref()
                .is_none_or(|o| o.split(',').any(|o| o == *name))
        })
        .filter_map(|(name, train, test, rendering)| {
            if !train.exists() || !test.exists() {
                eprintln!(
                    "{name}: {} missing, skipped; `cargo build --release && lab/er-benchmark.py --only Structured/Walmart-Amazon Textual/Abt-Buy` writes it",
                    train.display()
                );
                return None;
            }
            let load = |file: PathBuf| Batch::load(&[file], rendering).expect("pairs load");
            let pool_batch = load(train);
            let (pool, bodies, _) = labelled_with_bodies(&pool_batch).unwrap();
            let (frozen, _) = labelled_pairs(&load(test)).unwrap();
            Some(Dataset {
                name,
                pool,
                frozen,
                signals: twinpage::signals::names(pool_batch.layout()),
                record_share: train::record_pair_share(&bodies),
            })
        })
        .collect()
}

impl<'a> Round<'a> {
    /// The start share of `data` for `seed`, by group of pairs sharing a document.
    fn new(data: &'a Dataset, share: f64, seed: u64) -> Round<'a> {
        // Whole groups (pairs sharing a document), in a seeded order, until the
        // share is reached: pairs of one document never straddle start and stream.
        let groups = groups_by_shared_document(&data.pool.documents);
        let mut sizes: std::collections::BTreeMap<(u64, u64), usize> = Default::default();
        for &g in &groups {
            *sizes.entry((mix64(g ^ mix64(seed)), g)).or_default() += 1;
        }
        let wanted = (share * data.pool.len() as f64).round() as usize;
        let mut chosen = HashSet::new();
        let mut size = 0;
        for ((_, g), n) in sizes {
            if size >= wanted {
                break;
            }
            chosen.insert(g);
            size += n;
        }
        let in_start: Vec<bool> = groups.iter().map(|g| chosen.contains(g)).collect();
        let start = select(&data.pool, (0..data.pool.len()).filter(|&i| in_start[i]));
        let stream = (0..data.pool.len()).filter(|&i| !in_start[i]).collect();
        let model = train_start(&start, data, seed);
        Round {
            data,
            seed,
            start,
            model,
            stream,
        }
    }

    /// Every curve of this round, appended to `points`.
    fn curves(&self, points: &mut Vec<Point>) {
        let mut add = |protocol, order: &str, labels, f1| {
            points.push(Point {
                dataset: self.data.name,
                protocol,
                order: order.to_string(),
                seed: self.seed,
                labels,
                f1,
            })
        };
        let f1_start = measure(&self.model, &self.data.frozen).f1;
        let mut shuffled = self.stream.clone();
        shuffled.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(mix64(
            self.seed,
        )));
        for protocol in ["one round", "retrained at each budget"] {
            add(protocol, "random", 0, f1_start);
            for &budget in &BUDGETS {
                add(
                    protocol,
                    "random",
                    budget,
                    self.retrained(&shuffled[..budget]),
                );
            }
        }
        for order in ORDERS {
            let name = &order.name();
            let (queue, _) = self.queue(&self.model);
            let ranked = self.ranked(&self.model, order, &HashSet::new(), &queue);
            add("one round", name, 0, f1_start);
            for &budget in &BUDGETS {
                add("one round", name, budget, self.retrained(&ranked[..budget]));
            }
            add("retrained at each budget", name, 0, f1_start);
            let mut model = self.model.clone();
            let mut taken: Vec<usize> = Vec::new();
            for &budget in &BUDGETS {
                let labelled: HashSet<usize> = taken.iter().copied().collect();
                let (queue, _) = self.queue(&model);
                let ranked = self.ranked(&model, order, &labelled, &queue);
                taken.extend(&ranked[..budget - taken.len()]);
                let reviewed = select(&self.data.pool, taken.iter().copied());
                let next = self.retrain(&reviewed);
                add("retrained at each budget", name, budget, next.metrics.f1);
                model = next.model;
            }
        }
    }

    /// The stream pairs `model` routes to review, and the others.
    fn queue(&self, model: &Model) -> (Vec<usize>, Vec<usize>) {
        self.stream.iter().partition(|&&i| {
            model.decide(model.judge(&self.data.pool.vectors[i]))
                == twinpage::model::Decision::Review
        })
    }

    /// The unlabelled stream in `order` by `model`: the queue first, then the rest.
    fn ranked(
        &self,
        model: &Model,
        order: Order,
        labelled: &HashSet<usize>,
        queue: &[usize],
    ) -> Vec<usize> {
        let queued: HashSet<usize> = queue.iter().copied().collect();
        let (first, rest): (Vec<usize>, Vec<usize>) = self
            .stream
            .iter()
            .copied()
            .filter(|i| !labelled.contains(i))
            .partition(|i| queued.contains(i));
        let mut out = self.rank_part(model, order, &first);
        out.extend(self.rank_part(model, order, &rest));
        out
    }

    fn rank_part(&self, model: &Model, order: Order, part: &[usize]) -> Vec<usize> {
        let candidates: Vec<Candidate> = part
            .iter()
            .map(|&i| {
                let vector = &self.data.pool.vectors[i];
                let judgement = model.judge(vector);
                Candidate {
                    id: i as i64,
                    identity: format!("{:016x}", mix64(i as u64)),
                    p_duplicate: judgement.p_duplicate,
                    spread: judgement.spread,
                    signals: vector.clone(),
                }
            })
            .collect();
        rank(&candidates, order, self.seed)
            .into_iter()
            .map(|(id, _)| id as usize)
            .collect()
    }

    /// F1 on the frozen set of the start model retrained with the labels of `pairs`.
    fn retrained(&self, pairs: &[usize]) -> f64 {
        let reviewed = select(&self.data.pool, pairs.iter().copied());
        self.retrain(&reviewed).metrics.f1
    }

    fn retrain(&self, reviewed: &LabelledPairs) -> retrain::Retrained {
        let frozen = Frozen::Pairs(self.data.frozen.clone());
        retrain::retrain(&self.model, &self.start, reviewed, frozen, self.seed)
            .expect("retraining succeeds")
    }

    /// Labels one at a time in the default order until the hint says to retrain,
    /// and judges that moment against the curve.
    fn hint_check(&self) -> HintCheck {
        let (queue, _) = self.queue(&self.model);
        let ranked = self.ranked(&self.model, DEFAULT_ORDER, &HashSet::new(), &queue);
        let rows: Vec<CellRow> = queue
            .iter()
            .map(|&i| {
                let explanation = self.model.explain(&self.data.pool.vectors[i]);
                CellRow {
                    pair_id: i as i64,
                    cell: (self.model.id.clone(), explanation.cell),
                    p_duplicate: explanation.p_duplicate,
                    calibration_pairs: f64::from(explanation.counts.calibration_pairs()),
                    thresholds: explanation.thresholds,
                }
            })
            .collect();
        let mut labels = Vec::new();
        let mut moment = None;
        for &i in ranked.iter().take(*BUDGETS.last().unwrap()) {
            labels.push((i as i64, self.data.pool.labels[i]));
            if hint(&rows, &labels).settled {
                moment = Some(labels.len());
                break;
            }
        }
        let f1_at = |n: usize| self.retrained(&ranked[..n.min(ranked.len())]);
        HintCheck {
            dataset: self.data.name,
            moment,
            f1: moment.map(|m| {
                (
                    measure(&self.model, &self.data.frozen).f1,
                    f1_at(m),
                    f1_at(m + 100),
                )
            }),
        }
    }
}

/// Labels each order needs to reach [`CEILING_SHARE`] of the ceiling, per dataset
/// and seed, printed as a table.
fn labels_to_ceiling(datasets: &[Dataset], options: &Options) {
    println!(
        "\n## Labels to {:.0} % of the ceiling\n",
        100.0 * CEILING_SHARE
    );
    println!("| dataset | ceiling F1 | start F1 | labels, queue order (per seed) | labels, random (per seed) | queue / random (medians) |");
    println!("|---|---|---|---|---|---|");
    for data in datasets {
        let rounds: Vec<Round> = (1..=options.seeds)
            .map(|seed| Round::new(data, options.share, seed))
            .collect();
        // Every label of the stream, fitted as the labelled budgets are: the start
        // model retrained with all of them.
        let ceilings: Vec<f64> = rounds
            .iter()
            .map(|round| round.retrained(&round.stream))
            .collect();
        let (ceiling, _) = mean_sd(&ceilings);
        let mark = CEILING_SHARE * ceiling;
        let (mut queue_needs, mut random_needs, mut starts) = (Vec::new(), Vec::new(), Vec::new());
        for round in &rounds {
            let seed = round.seed;
            starts.push(measure(&round.model, &data.frozen).f1);
            let (queue, _) = round.queue(&round.model);
            let ranked = round.ranked(&round.model, DEFAULT_ORDER, &HashSet::new(), &queue);
            let mut shuffled = round.stream.clone();
            shuffled.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(mix64(seed)));
            queue_needs.push(round.labels_to(&ranked, mark));
            random_needs.push(round.labels_to(&shuffled, mark));
            eprintln!(
                "{} seed {seed}: queue order {:?}, random {:?} labels to F1 {mark:.3}",
                data.name,
                queue_needs.last().unwrap(),
                random_needs.last().unwrap()
            );
        }
        let shown = |needs: &[Option<usize>]| -> String {
            let each: Vec<String> = needs
                .iter()
                .map(|n| n.map_or("more".to_string(), |n| n.to_string()))
                .collect();
            each.join(", ")
        };
        let ratio = match (median(&queue_needs), median(&random_needs)) {
            (Some(q), Some(r)) => format!("{q} / {r} = {:.2}", q as f64 / r as f64),
            _ => "—".to_string(),
        };
        println!(
            "| {} | {ceiling:.3} | {:.3} | {} | {} | {ratio} |",
            data.name,
            mean_sd(&starts).0,
            shown(&queue_needs),
            shown(&random_needs)
        );
    }
    println!("\n(\"more\": not even every label of the stream reached the mark; the labels are those from which on every larger budget stays at the mark)");
}

/// The median of the needs, a need that never reached the mark counting as more
/// than any; None when the median itself is one of those.
fn median(needs: &[Option<usize>]) -> Option<usize> {
    let mut sorted: Vec<usize> = needs.iter().map(|n| n.unwrap_or(usize::MAX)).collect();
    sorted.sort_unstable();
    let middle = sorted[sorted.len() / 2];
    (middle != usize::MAX).then_some(middle)
}

impl Round<'_> {
    /// The fewest labels of `order` (a budget of [`CEILING_BUDGETS`], or all of
    /// them) from which on the retrained model stays at F1 `mark` or above on the
    /// frozen set: a budget that touches the mark by chance and falls back does
    /// not count (F1 moves by points from one retraining to the next).
    fn labels_to(&self, order: &[usize], mark: f64) -> Option<usize> {
        let budgets: Vec<usize> = CEILING_BUDGETS
            .iter()
            .copied()
            .filter(|&budget| budget < order.len())
            .chain([order.len()])
            .collect();
        let reached: Vec<bool> = budgets
            .iter()
            .map(|&budget| self.retrained(&order[..budget]) >= mark)
            .collect();
        let kept_from = reached
            .iter()
            .rposition(|&r| !r)
            .map_or(0, |last_miss| last_miss + 1);
        budgets.get(kept_from).copied()
    }
}

/// Where the hint said to retrain, and F1 of the start model, retrained there,
/// and retrained 100 labels later.
struct HintCheck {
    dataset: &'static str,
    moment: Option<usize>,
    f1: Option<(f64, f64, f64)>,
}

impl HintCheck {
    /// Retraining at the moment helps, and waiting 100 more labels adds under a point.
    fn right(&self) -> bool {
        self.f1
            .is_some_and(|(start, now, later)| now > start && later - now < 0.01)
    }
}

/// The pairs of `from` at `indices`.
fn select(from: &LabelledPairs, indices: impl Iterator<Item = usize>) -> LabelledPairs {
    let mut out = LabelledPairs::default();
    for i in indices {
        out.push_from(from, i);
    }
    out
}

/// The start model: the default estimator, trained as `twinpage train` trains a set
/// like the pool (a set of records fitted on every pair, its forest calibrated out
/// of bag; a retrained model keeps its parent's calibration).
fn train_start(start: &LabelledPairs, data: &Dataset, seed: u64) -> Model {
    let kind = &KINDS[0];
    let values = forest::with_calibration_for_set(kind, &ParamValues::default(), data.record_share);
    let learner = (kind.learner)(&values).expect("default parameters");
    let policy = DecisionPolicy::default();
    let words = twinpage::signals::contrast::slots(&data.signals);
    let (judged, kept) = Fit::for_record_share(data.record_share)
        .train(start, words, learner.as_ref(), &policy, seed)
        .expect("the start trains");
    let info = TrainingInfo {
        pairs: start.len(),
        ..TrainingInfo::default()
    };
    Model::new(
        data.signals.clone(),
        policy,
        seed,
        info,
        kept.unwrap_or(judged),
        None,
    )
}

/// Mean and standard deviation (n - 1) of `values`.
fn mean_sd(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, var.sqrt())
}

fn print_table(dataset: &str, points: &[Point]) {
    let f1s = |protocol: &str, order: &str, labels: usize| -> Vec<f64> {
        points
            .iter()
            .filter(|p| {
                p.dataset == dataset
                    && p.protocol == protocol
                    && p.order == order
                    && p.labels == labels
            })
            .map(|p| p.f1)
            .collect()
    };
    let orders: Vec<String> = std::iter::once("random".to_string())
        .chain(ORDERS.map(|order| order.name().to_string()))
        .collect();
    for protocol in ["one round", "retrained at each budget"] {
        println!("\n{dataset}, {protocol}: F1 at each model's F1 cut on the frozen set, mean ± sd (points vs random)\n");
        println!("| labels | {} |", orders.join(" | "));
        println!("|---|{}", "---|".repeat(orders.len()));
        for labels in std::iter::once(0).chain(BUDGETS) {
            let (random, _) = mean_sd(&f1s(protocol, "random", labels));
            let cells: Vec<String> = orders
                .iter()
                .map(|order| {
                    let (mean, sd) = mean_sd(&f1s(protocol, order, labels));
                    if order == "random" {
                        format!("{mean:.3} ± {sd:.3}")
                    } else {
                        format!("{mean:.3} ± {sd:.3} ({:+.1})", 100.0 * (mean - random))
                    }
                })
                .collect();
            println!("| {labels} | {} |", cells.join(" | "));
        }
    }
}

fn print_hints(hints: &[HintCheck]) {
    println!("\n## The stop hint against the curve (default order, one round)\n");
    println!("| dataset | retrain said at (labels) | F1 start → there → 100 later | right |");
    println!("|---|---|---|---|");
    for h in hints {
        let at = h.moment.map_or("never".to_string(), |m| m.to_string());
        let f1 = h.f1.map_or("—".to_string(), |(s, n, l)| {
            format!("{s:.3} → {n:.3} → {l:.3}")
        });
        println!("| {} | {at} | {f1} | {} |", h.dataset, h.right());
    }
    let right = hints.iter().filter(|h| h.right()).count();
    println!("\nright {right} of {} times", hints.len());
}

fn write_points(points: &[Point]) {
    let dir = Path::new("target/review-loop");
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("curves.csv");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(out, "dataset,protocol,order,seed,labels,f1").unwrap();
    for p in points {
        writeln!(
            out,
            "{},{},{},{},{},{:.4}",
            p.dataset, p.protocol, p.order, p.seed, p.labels, p.f1
        )
        .unwrap();
    }
    println!("\nevery point: {}", path.display());
}
