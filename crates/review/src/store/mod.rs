//! The review queue: an SQLite database (WAL, versioned migrations) that holds the
//! pairs the model could not decide, everything a reviewer needs to judge them
//! without the original files, and the reviewers' verdicts.
//!
//! Verdicts are never deleted: an undo or a changed mind marks the old verdict
//! `undone_at`, so the whole history stays. A partial unique index allows one
//! active label per reviewer and pair, which is what keeps a retried request from
//! counting twice. Pairs are handed out under a short *lease*, taken in an
//! `IMMEDIATE` transaction, so two reviewers never hold the same pair at once.
//!
//! `schema` holds the migrations, `queue` the queued pairs and their leases,
//! `labels` the verdicts and what they settle, `documents` the stored bodies.
mod access;
mod database;
mod documents;
mod labels;
mod lease;
mod queue;
mod rows;
mod schema;

pub use access::{SignedIn, ROLES, SESSION_LIFETIME_MS};
pub use database::ReviewStore;
pub use documents::{DocumentSummary, StoredDocument};
pub use labels::{Progress, SettledLabel, Verdict};
pub use lease::LEASE;
pub use queue::{PairView, QueuedPair, Rescored, Serving};
