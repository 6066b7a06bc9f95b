//! `twinpage review`: the review page, and the queue's pairs and labels as files.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Result;

use twinpage::util::Choice;
use twinpage_review::order::{Order, QueueOrder, DEFAULT_ORDER};

use super::declared::choice;
use super::retrain::Start;
use twinpage_review::background::{Retrainer, Retraining};
use twinpage_review::server::{Options, Team, DEFAULT_OVERLAP};
use twinpage_review::{agreement, exchange, ReviewServer, ReviewStore};

/// Serve the review page for a queue made by `score --review-db`; or move its
/// pairs and labels in and out as files.
#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    #[command(subcommand)]
    action: Option<Action>,
    /// The review database (made by `twinpage score --review-db FILE`).
    #[arg(long, value_name = "FILE", required = true)]
    db: Option<PathBuf>,
    /// Port (0: any free port).
    #[arg(long, default_value_t = 8410)]
    port: u16,
    /// Serve a team on this address (e.g. 0.0.0.0, or 127.0.0.1 behind a proxy):
    /// only people signed in with `review invite` links get in. Without it the page
    /// is on 127.0.0.1 for whoever types a name there.
    #[arg(long, value_name = "ADDR")]
    bind: Option<std::net::IpAddr>,
    /// With --bind behind a reverse proxy: the client's address is the last of
    /// X-Forwarded-For (for the sign-in limit), and cookies are Secure on https.
    #[arg(long, requires = "bind")]
    trust_proxy: bool,
    /// With --bind: the share of pairs served to two reviewers, blind to each other
    /// (what `review stats` measures agreement on); their disagreements go to an
    /// adjudicator.
    #[arg(long, value_name = "SHARE", requires = "bind", default_value_t = DEFAULT_OVERLAP, value_parser = share)]
    overlap: f64,
    /// Hide the model's score and its reasons until the reviewer has given a verdict.
    #[arg(long)]
    blind: bool,
    #[command(flatten)]
    order: OrderArgs,
    #[command(flatten)]
    retraining: RetrainArgs,
}

/// Retraining while the page serves.
#[derive(clap::Args)]
#[command(next_help_heading = "Retraining in the background")]
struct RetrainArgs {
    /// After every N new labels, retrain the model in the background (as
    /// `twinpage retrain` does) and, when it is at least as good on the frozen set,
    /// score the queue again with it so the page serves in its order; the old
    /// order serves meanwhile.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    retrain_every: Option<u32>,
    /// The model to retrain [default: models/default.json].
    #[arg(long, value_name = "M.json", requires = "retrain_every")]
    model: Option<PathBuf>,
    /// Its training pairs [default: the files it was trained on].
    #[arg(long, value_name = "T.csv", requires = "retrain_every")]
    pairs: Vec<PathBuf>,
    /// Frozen evaluation pairs [default: the model's held-out part of its training pairs].
    #[arg(long, value_name = "E.csv", requires = "retrain_every")]
    eval: Vec<PathBuf>,
    /// Where the retrained models are written [default: the database's path + .models].
    #[arg(long, value_name = "DIR", requires = "retrain_every")]
    models: Option<PathBuf>,
    #[command(flatten)]
    render: super::inputs::RenderArgs,
}

impl RetrainArgs {
    /// The background retraining asked for, its inputs read (which takes a while).
    fn retrainer(&self, db: &std::path::Path) -> Result<Option<Arc<Retrainer>>> {
        let Some(every) = self.retrain_every else {
            return Ok(None);
        };
        let model = self
            .model
            .clone()
            .unwrap_or_else(|| PathBuf::from(super::model_files::DEFAULT_MODEL));
        eprintln!(
            "twinpage: reading the training pairs of {} to retrain it every {every} label(s)",
            model.display()
        );
        let start = Start::read(&model, &self.pairs, &self.eval, &self.render)?;
        let mut models = db.as_os_str().to_owned();
        models.push(".models");
        Ok(Some(Retrainer::new(Retraining {
            every: every as usize,
            parent: start.parent,
            original: start.original,
            frozen: start.frozen,
            models: self.models.clone().unwrap_or_else(|| PathBuf::from(models)),
        })))
    }
}

/// A share from 0 to 1.
fn share(raw: &str) -> Result<f64, String> {
    match raw.parse::<f64>() {
        Ok(s) if (0.0..=1.0).contains(&s) => Ok(s),
        _ => Err(format!("`{raw}` is not a share from 0 to 1 (0.1 is 10 %)")),
    }
}

/// Which pair comes next (see docs/review.md).
#[derive(clap::Args)]
struct OrderArgs {
    /// The queue's order: `balanced` serves informative pairs (uncertain, or the
    /// trees disagree) alternately from likely duplicates and likely distinct
    /// pairs, spread over clusters of similar pairs, one in ten at random.
    #[arg(long, value_parser = choice::<Order>(), default_value = DEFAULT_ORDER.name())]
    order: Order,
    /// Seed of the order's random choices (the same seed, the same order).
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

impl OrderArgs {
    fn queue_order(&self) -> QueueOrder {
        QueueOrder {
            order: self.order,
            seed: self.seed,
        }
    }
}

#[derive(clap::Subcommand)]
enum Action {
    /// Write the pairs nobody has labelled yet as a pair file (with pair_id), in the
    /// order the page serves them, and their documents beside it.
    Export {
        #[arg(long, value_name = "FILE")]
        db: PathBuf,
        /// The pair file; documents go to a folder of the same name ending in .docs.
        #[arg(long, value_name = "queue.csv", value_parser = super::output::file_not_stdout)]
        out: PathBuf,
        /// Only the next N pairs.
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        #[command(flatten)]
        order: OrderArgs,
    },
    /// A one-time sign-in link for NAME to a team's review page (`review --bind`):
    /// prints the URL; opened once within 7 days, it signs NAME in for 12 hours.
    Invite {
        #[arg(long, value_name = "FILE")]
        db: PathBuf,
        /// The person's name, which their labels carry.
        name: String,
        #[arg(long, default_value = "reviewer", value_parser = clap::builder::PossibleValuesParser::new(twinpage_review::store::ROLES))]
        role: String,
        /// The page's address as the team reaches it (the proxy's, behind one).
        #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:8410")]
        url: String,
    },
    /// Whether the reviewers agree: each one's labels and labels per hour, Cohen's
    /// kappa for each pair of reviewers on the pairs both labelled, and pooled.
    Stats {
        #[arg(long, value_name = "FILE")]
        db: PathBuf,
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
    /// End every session and unused invitation of NAME.
    Revoke {
        #[arg(long, value_name = "FILE")]
        db: PathBuf,
        name: String,
    },
    /// Record labels given elsewhere: CSV with pair_id,label[,reviewer]; all rows or none.
    Import {
        #[arg(long, value_name = "FILE")]
        db: PathBuf,
        #[arg(long, value_name = "L.csv")]
        labels: PathBuf,
        /// Reviewer of rows that name none.
        #[arg(long, default_value = "import")]
        reviewer: String,
    },
}

pub fn run(args: Args) -> Result<()> {
    match args.action {
        Some(Action::Export {
            db,
            out,
            limit,
            order,
        }) => {
            let store = ReviewStore::open_existing(&db)?;
            let n = exchange::export(&store, &out, order.queue_order(), limit)?;
            outln!(
                "wrote {n} pending pair(s) to {} (documents in {})",
                out.display(),
                exchange::documents_folder(&out).display()
            )?;
            Ok(())
        }
        Some(Action::Import {
            db,
            labels,
            reviewer,
        }) => {
            let n = exchange::import(&mut ReviewStore::open_existing(&db)?, &labels, &reviewer)?;
            outln!("recorded {n} label(s) from {}", labels.display())?;
            Ok(())
        }
        Some(Action::Invite {
            db,
            name,
            role,
            url,
        }) => {
            let token = ReviewStore::open_existing(&db)?.invite(&name, &role)?;
            outln!("{}/signin?token={token}", url.trim_end_matches('/'))?;
            Ok(())
        }
        Some(Action::Stats { db, json }) => {
            let stats = agreement::stats(&ReviewStore::open_existing(&db)?.active_labels()?);
            if json {
                outln!("{}", serde_json::to_string_pretty(&stats)?)?;
            } else {
                print_stats(&stats)?;
            }
            Ok(())
        }
        Some(Action::Revoke { db, name }) => {
            let ended = ReviewStore::open_existing(&db)?.revoke(&name)?;
            outln!("ended {ended} session(s) and invitation(s) of {name}")?;
            Ok(())
        }
        None => serve(&args),
    }
}

fn serve(args: &Args) -> Result<()> {
    let db = args.db.clone().expect("clap requires --db");
    let options = Options {
        order: args.order.queue_order(),
        blind: args.blind,
        retraining: args.retraining.retrainer(&db)?,
    };
    let server = match args.bind {
        Some(ip) => ReviewServer::start_team(
            db.clone(),
            std::net::SocketAddr::new(ip, args.port),
            options,
            Team {
                trust_proxy: args.trust_proxy,
                overlap: args.overlap,
            },
        )?,
        None => ReviewServer::start(db.clone(), args.port, options)?,
    };
    let progress = ReviewStore::connect(&db)?.progress("")?;
    match args.bind {
        Some(_) => outln!(
            "review page for a team on {} (sign-in links: twinpage review invite --db {} NAME)",
            server.address(),
            db.display()
        )?,
        None => outln!("review page: {}", server.url())?,
    }
    outln!(
        "{} pair(s) queued, {} left to review; Ctrl-C stops the server (labels are saved as they are given)",
        progress.pairs, progress.left
    )?;
    let (stop, stopped) = std::sync::mpsc::channel();
    ctrlc::set_handler(move || {
        let _ = stop.send(());
    })?;
    let _ = stopped.recv();
    server.stop()
}

fn print_stats(stats: &agreement::Stats) -> Result<()> {
    let kappa = |k: Option<f64>| k.map_or("-".to_string(), |k| format!("{k:.3}"));
    outln!("reviewer                  labels   hours  labels/hour")?;
    for p in &stats.reviewers {
        let rate = p.per_hour.map_or("-".to_string(), |r| format!("{r:.0}"));
        outln!(
            "{:<24} {:>7} {:>7.2} {:>12}",
            p.reviewer,
            p.labels,
            p.hours,
            rate
        )?;
    }
    outln!("agreement (Cohen's kappa on the pairs both labelled):")?;
    for a in &stats.pairs_of_reviewers {
        outln!(
            "  {:<40} {:>6} pairs  kappa {}",
            a.reviewers.join(" / "),
            a.pairs,
            kappa(a.kappa)
        )?;
    }
    outln!(
        "  {:<40} {:>6} pairs  kappa {}",
        "all pairs of reviewers, pooled",
        stats.overall.pairs,
        kappa(stats.overall.kappa)
    )?;
    Ok(())
}
