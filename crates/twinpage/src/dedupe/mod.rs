//! From a crawl to its duplicates in one run: which pages are copies of which,
//! and which one to keep.
//!
//! - `run.rs`: the run folder, where every stage writes its output whole, so a
//!   killed run goes on from its last finished stage;
//! - `read.rs`: a crawl's pages written once (`pages/`, `docs.csv`);
//! - `stages.rs`: read → candidates → scores → clusters, and the summary;
//! - `clusters.rs`: clusters that do not chain (each member judged against the cluster's center);
//! - `keep.rs`: the rule that picks the page to keep.

mod clusters;
mod keep;
mod read;
mod run;
mod stages;

pub use clusters::{read_judged, Judged, Judgement, Member, Placed, Plan, UNSURE_JOINS_FROM};
pub use keep::Facts;
pub use read::{canonical, read_into, replays, replays_of_run, ReadReport, DOCS};
pub use run::RunFolder;
pub use stages::{
    dedupe, finish, members, place, verify_files, write_needed, Invocation, Scorer, Summary,
    CANDIDATES, CLUSTERS, PAIRS, STAGE_OUTPUTS, SUMMARY, TIMES, UNSETTLED,
};
