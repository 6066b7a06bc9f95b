//! `twinpage evaluate`: how a model does on labelled pairs, overall and by group.

use std::path::PathBuf;

use anyhow::{bail, Result};

use twinpage::evaluate::figures::Figures;
use twinpage::evaluate::grouped::{self, Grouped};
use twinpage::evaluate::leave_out::{self, LeftOut, RightWrong, StageLearner, StageTally};
use twinpage::model::{Metrics, Model};
use twinpage::pipeline::{self, Batch};
use twinpage::signals::Layout;

/// Precision, recall, F1, accuracy, confusion matrix and review share on labelled pairs.
#[derive(clap::Args)]
pub struct Args {
    /// Labelled pair file(s); repeat for several.
    #[arg(long, value_name = "F.csv", required = true)]
    pairs: Vec<PathBuf>,
    /// Model file [default: models/default.json, else the built-in copy].
    #[arg(long, value_name = "M.json")]
    model: Option<PathBuf>,
    /// Also break the figures down by the values of this column (e.g. kind).
    #[arg(long, value_name = "COLUMN")]
    by: Option<String>,
    /// Leave-one-group-out instead: for each value K of this column (e.g. kind),
    /// train a model like --model's (same estimator, parameters, policy, seed) on
    /// the training pairs whose column is not K, and measure it on the --pairs
    /// whose column is K.
    #[arg(long, value_name = "COLUMN", conflicts_with = "by")]
    leave_out: Option<String>,
    /// With --leave-out: the labelled pairs to train on [default: the files the
    /// model was trained on].
    #[arg(long, value_name = "T.csv", requires = "leave_out")]
    train: Vec<PathBuf>,
    /// With --leave-out: judge what `twinpage score` does by default (`--render
    /// auto`) instead of --model alone: a fetched-only model like --fetched-model is
    /// trained without each group too and decides first; the model like --model
    /// decides the pairs the cascade sends on (left for review, shown by a script,
    /// or called duplicate on fetched texts that share no content).
    #[arg(long, requires = "leave_out")]
    cascade: bool,
    /// The fetched-only model whose kind, parameters, policy and seed the first
    /// stage of --cascade copies [default: models/fetched-only.json, else the
    /// built-in copy].
    #[arg(long, value_name = "M.json", requires = "cascade")]
    fetched_model: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Skip rows whose documents cannot be read.
    #[arg(long)]
    skip_bad: bool,
    #[command(flatten)]
    render: super::inputs::RenderArgs,
}

pub fn run(args: Args) -> Result<()> {
    if let Some(column) = &args.leave_out {
        return leave_out(&args, column);
    }
    let (model, batch) =
        super::inputs::load_model_and_batch(args.model.as_deref(), &args.pairs, &args.render)?;
    let skipped = super::inputs::unreadable_rows(&batch, args.skip_bad)?;
    let outcomes = pipeline::score(&batch, &model);
    let shifts = super::model_files::warn_if_unlike_training(&model, &outcomes);
    if args.json {
        // model, overall (with its confusion), by {column, groups}, then the
        // curves, bins, trade-off, mistakes, importance and splits.
        let figures = Figures::of(&model, &batch, &outcomes, args.by.as_deref())?;
        let mut report = serde_json::to_value(&figures)?;
        report["skipped"] = skipped.len().into();
        report["unlike_training"] = serde_json::to_value(&shifts)?;
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        let Grouped { overall, groups } =
            grouped::by_column(&batch, &outcomes, args.by.as_deref())?;
        outln!("model {}", model.id)?;
        outln!("{}", overall.report())?;
        if let Some(col) = &args.by {
            outln!("\nby {col}:")?;
            outln!(
                "{:<28} {:>6} {:>9} {:>8} {:>8} {:>8} {:>8}",
                col,
                "pairs",
                "precision",
                "recall",
                "F1",
                "accuracy",
                "review"
            )?;
            for (value, m) in &groups {
                let c = &m.confusion;
                // Undefined figures (a group with no duplicate, or none predicted) show as "-".
                let figure = |defined: bool, x: f64| {
                    if defined {
                        format!("{x:.4}")
                    } else {
                        "-".into()
                    }
                };
                outln!(
                    "{:<28} {:>6} {:>9} {:>8} {:>8} {:>8.4} {:>8.4}",
                    value,
                    m.pairs,
                    figure(c.tp + c.fp > 0, m.precision),
                    figure(c.tp + c.fn_ > 0, m.recall),
                    figure(c.tp + c.fn_ > 0, m.f1),
                    m.accuracy,
                    m.review_share
                )?;
            }
        }
        if !skipped.is_empty() {
            outln!("skipped {} row(s) with unreadable documents", skipped.len())?;
        }
    }
    Ok(())
}

/// `--leave-out COLUMN`: a model per left-out group (two with --cascade),
/// measured on that group.
fn leave_out(args: &Args, column: &str) -> Result<()> {
    let (model, measured) =
        super::inputs::load_model_and_batch(args.model.as_deref(), &args.pairs, &args.render)?;
    let train_files: Vec<PathBuf> = if args.train.is_empty() {
        model.training.files.iter().map(PathBuf::from).collect()
    } else {
        args.train.clone()
    };
    if train_files.is_empty() {
        bail!("model {} records no training files: give --train", model.id);
    }
    let training = super::inputs::load_batch(&train_files, &args.render)?;
    super::inputs::unreadable_rows(&measured, args.skip_bad)?;
    super::inputs::unreadable_rows(&training, args.skip_bad)?;
    let judged = if args.cascade {
        let fetched = super::model_files::load_fetched_model(args.fetched_model.as_deref())?;
        cascade_left_out(column, &fetched, &model, &training, &measured)?
    } else {
        model_left_out(column, &model, &training, &measured)?
    };
    print_left_out(args, column, &model, &judged)
}

/// What leaving each group out gave: per group, pooled, and what was judged.
struct LeftOutRun {
    groups: Vec<LeftOut>,
    pooled: Metrics,
    /// The stages' tallies pooled, when the cascade was judged.
    pooled_stages: Option<StageTally>,
    judged: String,
}

fn model_left_out(
    column: &str,
    model: &Model,
    training: &Batch,
    measured: &Batch,
) -> Result<LeftOutRun> {
    let (train_set, train_groups, _) = pipeline::labelled_by(training, Some(column))?;
    let (measured_set, measured_groups, measured_guards) = pipeline::guarded_by(measured, column)?;
    let learner = model.estimator.learner()?;
    let (groups, pooled) = leave_out::leave_one_out(
        &leave_out::Grouped {
            pairs: &train_set,
            groups: &train_groups,
        },
        &leave_out::Grouped {
            pairs: &measured_set,
            groups: &measured_groups,
        },
        &measured_guards,
        StageLearner {
            learner: learner.as_ref(),
            policy: &model.policy,
            words: model.word_slots(),
        },
        model.seed,
    )?;
    Ok(LeftOutRun {
        groups,
        pooled,
        pooled_stages: None,
        judged: format!("models like {} ({})", model.id, model.estimator.kind()),
    })
}

fn cascade_left_out(
    column: &str,
    fetched: &Model,
    rendered: &Model,
    training: &Batch,
    measured: &Batch,
) -> Result<LeftOutRun> {
    super::model_files::check_layout(fetched, Layout::Fetched)?;
    let (first, second) = (fetched.estimator.learner()?, rendered.estimator.learner()?);
    let (groups, pooled) = leave_out::leave_one_out_cascade(
        &pipeline::staged_by(training, column)?,
        &pipeline::staged_by(measured, column)?,
        StageLearner {
            learner: first.as_ref(),
            policy: &fetched.policy,
            words: fetched.word_slots(),
        },
        StageLearner {
            learner: second.as_ref(),
            policy: &rendered.policy,
            words: rendered.word_slots(),
        },
        rendered.seed,
    )?;
    let pooled_stages = StageTally::sum(groups.iter().filter_map(|l| l.stages.as_ref()));
    Ok(LeftOutRun {
        groups,
        pooled,
        pooled_stages: Some(pooled_stages),
        judged: format!(
            "the cascade of models like {} ({}, fetched only) and {} ({})",
            fetched.id,
            fetched.estimator.kind(),
            rendered.id,
            rendered.estimator.kind()
        ),
    })
}

fn print_left_out(args: &Args, column: &str, model: &Model, run: &LeftOutRun) -> Result<()> {
    if args.json {
        let report = serde_json::json!({
            "model": model.id,
            "estimator": model.estimator.kind(),
            "cascade": args.cascade,
            "leave_out": column,
            "pooled": run.pooled,
            "pooled_stages": run.pooled_stages,
            "groups": run.groups,
        });
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
        return Ok(());
    }
    outln!(
        "leave one {column} out: {} times {}, each trained without the {column} it is measured on",
        run.groups.len(),
        run.judged
    )?;
    let stage_columns = if args.cascade {
        format!(" {:>9} {:>9} {:>9}", "screen", "fetched", "rendered")
    } else {
        String::new()
    };
    outln!(
        "{:<22} {:>6} {:>8} {:>8} {:>10} {:>9} {:>9} {:>7} {:>7}{stage_columns}",
        column,
        "pairs",
        "trained",
        "accuracy",
        "auto.right",
        "dup.prec",
        "dist.prec",
        "review",
        "ECE"
    )?;
    for l in &run.groups {
        print_row(
            &l.group,
            &l.trained_on.to_string(),
            &l.metrics,
            l.stages.as_ref(),
        )?;
    }
    print_row("(all, pooled)", "", &run.pooled, run.pooled_stages.as_ref())?;
    if args.cascade {
        outln!("screen, fetched, rendered: automatic decisions right/wrong taken by each stage")?;
    }
    Ok(())
}

/// One line of the leave-out table.
fn print_row(
    name: &str,
    trained: &str,
    m: &Metrics,
    stages: Option<&StageTally>,
) -> std::io::Result<()> {
    let c = &m.confusion;
    // A share of no decisions is shown as "-", not as 0.
    let share = |decided: usize, x: f64| (decided > 0).then_some(x);
    let shown = |x: Option<f64>| x.map_or_else(|| "-".to_string(), |x| format!("{x:.4}"));
    let right_wrong = |t: RightWrong| format!("{}/{}", t.right, t.wrong);
    let stage_columns = stages.map_or_else(String::new, |s| {
        format!(
            " {:>9} {:>9} {:>9}",
            right_wrong(s.screen),
            right_wrong(s.fetched),
            right_wrong(s.rendered)
        )
    });
    outln!(
        "{:<22} {:>6} {:>8} {:>8.4} {:>10} {:>9} {:>9} {:>7.4} {:>7.4}{stage_columns}",
        name,
        m.pairs,
        trained,
        m.accuracy,
        shown(c.automatic_accuracy()),
        shown(share(
            c.duplicate_as_duplicate + c.distinct_as_duplicate,
            m.duplicate_decision_precision
        )),
        shown(share(
            c.duplicate_as_distinct + c.distinct_as_distinct,
            m.distinct_decision_precision
        )),
        m.review_share,
        m.calibration_error
    )?;
    Ok(())
}
