//! The review loop (step 8 of the method): pairs the model cannot decide go to
//! people, and their labels train the next model.
//!
//! [`intake`] turns a scored batch into queued pairs, [`store`] is the queue
//! (SQLite), [`order`] says which queued pair is served next, [`server`] and
//! `page/` are the review page ([`diff`] marks what differs between the two
//! texts), [`exchange`] moves pairs and labels in and out as files, [`hint`]
//! says when more labels stop changing the model much, [`retrain`] trains
//! the next model with the settled labels, [`background`] does it while the page
//! serves, and [`agreement`] says whether the reviewers agree.

pub mod agreement;
pub mod background;
pub mod diff;
pub mod exchange;
pub mod hint;
pub mod intake;
pub mod order;
pub mod retrain;
pub mod server;
pub mod store;

pub use server::ReviewServer;
pub use store::{QueuedPair, ReviewStore, SettledLabel, StoredDocument, Verdict};
