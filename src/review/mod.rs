//! The review loop (step 8 of the method): pairs the model cannot decide go to
//! people, and their labels go back into training (see [`crate::retrain`]).
//!
//! [`store`] is the queue (SQLite), [`queue`] turns a scored batch into queued
//! pairs, [`server`] and `page/` are the review page, [`exchange`] moves pairs
//! and labels in and out as files, and [`hint`] says when more labels stop
//! changing the model much.

pub mod diff;
pub mod exchange;
pub mod hint;
pub mod queue;
pub mod retrain;
pub mod server;
pub mod store;

pub use server::ReviewServer;
pub use store::{QueuedPair, ReviewStore, SettledLabel, StoredDocument, Verdict};
