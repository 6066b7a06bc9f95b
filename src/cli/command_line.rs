//! The command line: the global options, the commands, and the exit code.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use super::{
    baseline, candidates, cluster, dedupe, evaluate, explain, idf, index, output, render, report,
    retrain, review, score, settle, signals, sketch, train,
};

#[derive(Parser)]
#[command(
    name = "twinpage",
    version,
    about = "Decide whether two web documents are duplicates",
    long_about = "Decide whether two web documents are duplicates: the same core content behind \
                  different navigation, ads, titles, URLs or formats.\n\n\
                  Pair files are CSV with columns url_a,url_b,html_a,html_b and optional \
                  query, label, rendered_a, rendered_b, clicks_a/b, inlinks_a/b, spam_a/b; \
                  other columns pass through. See README.md."
)]
struct Cli {
    /// Worker threads (default: all cores).
    #[arg(long, global = true, value_name = "N")]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Train(train::Args),
    Score(score::Args),
    Signals(signals::Args),
    Evaluate(evaluate::Args),
    Explain(explain::Args),
    Candidates(candidates::Args),
    Index(index::Args),
    Cluster(cluster::Args),
    Dedupe(dedupe::Args),
    Baseline(baseline::Args),
    Render(render::Args),
    Report(report::Args),
    Review(review::Args),
    Retrain(retrain::Args),
    Idf(idf::Args),
    Sketch(sketch::Args),
    Settle(settle::Args),
}

/// Runs the command line and maps the result to an exit code.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    if let Some(n) = cli.threads {
        // Only fails if a pool already exists, which cannot happen this early.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
    match output::quiet_if_broken_pipe(dispatch(cli.command)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("twinpage: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs one command from its arguments (`["score", "--pairs", …]`, without the
/// program name) in this process, as the binary would: for a host program such as
/// the Python package. A usage error is an error carrying clap's message; `--threads`
/// runs the command in a pool of its own.
pub fn run_args(args: impl IntoIterator<Item = String>) -> anyhow::Result<()> {
    let argv = std::iter::once("twinpage".to_string()).chain(args);
    let result = match Cli::try_parse_from(argv) {
        Ok(cli) => match cli.threads {
            Some(n) => rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()?
                .install(|| dispatch(cli.command)),
            None => dispatch(cli.command),
        },
        // `--help` and `--version` print, as the binary does, and succeed.
        Err(e) if !e.use_stderr() => {
            write!(std::io::stdout().lock(), "{}", e.render()).map_err(anyhow::Error::from)
        }
        Err(e) => Err(anyhow::anyhow!("{}", e.render())),
    };
    // The host may read what the command printed as soon as it returns.
    let flushed = std::io::stdout().flush().map_err(anyhow::Error::from);
    output::quiet_if_broken_pipe(result.and(flushed))
}

fn dispatch(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Train(a) => train::run(a),
        Command::Score(a) => score::run(a),
        Command::Signals(a) => signals::run(a),
        Command::Evaluate(a) => evaluate::run(a),
        Command::Explain(a) => explain::run(a),
        Command::Candidates(a) => candidates::run(a),
        Command::Index(a) => index::run(a),
        Command::Cluster(a) => cluster::run(a),
        Command::Dedupe(a) => dedupe::run(a),
        Command::Baseline(a) => baseline::run(a),
        Command::Render(a) => render::run(a),
        Command::Report(a) => report::run(a),
        Command::Review(a) => review::run(a),
        Command::Retrain(a) => retrain::run(a),
        Command::Idf(a) => idf::run(a),
        Command::Sketch(a) => sketch::run(a),
        Command::Settle(a) => settle::run(a),
    }
}
