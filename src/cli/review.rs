//! `twinpage review`: the review page, and the queue's pairs and labels as files.

use std::path::PathBuf;

use anyhow::Result;

use twinpage::util::Choice;
use twinpage_review::order::{Order, QueueOrder, DEFAULT_ORDER};

use super::declared::choice;
use twinpage_review::{exchange, ReviewServer, ReviewStore};

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
    /// Port on 127.0.0.1 (0: any free port).
    #[arg(long, default_value_t = 8410)]
    port: u16,
    #[command(flatten)]
    order: OrderArgs,
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
        None => serve(
            args.db.expect("clap requires --db"),
            args.port,
            args.order.queue_order(),
        ),
    }
}

fn serve(db: PathBuf, port: u16, order: QueueOrder) -> Result<()> {
    let server = ReviewServer::start(db.clone(), port, order)?;
    let progress = ReviewStore::connect(&db)?.progress("")?;
    outln!("review page: {}", server.url())?;
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
