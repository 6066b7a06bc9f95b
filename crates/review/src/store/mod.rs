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
//! [`schema`] holds the migrations, [`queue`] the queued pairs and their leases,
//! [`labels`] the verdicts and what they settle, [`documents`] the stored bodies.

mod documents;
mod labels;
mod queue;
mod schema;

pub use documents::{DocumentSummary, StoredDocument};
pub use labels::{Progress, SettledLabel, Verdict};
pub use queue::{PairView, QueuedPair};

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use rusqlite::{params, Connection, OptionalExtension};

/// How long a pair stays with the reviewer it was handed to.
pub const LEASE: Duration = Duration::from_secs(15 * 60);

/// An open review database.
pub struct ReviewStore {
    conn: Connection,
}

impl ReviewStore {
    /// Opens (creating if needed) a review database and brings its schema up to date.
    pub fn open(path: &Path) -> Result<ReviewStore> {
        let mut store = ReviewStore::connect_unchecked(path)?;
        store
            .migrate()
            .with_context(|| format!("{}: cannot bring the schema up to date", path.display()))?;
        Ok(store)
    }

    /// Opens an existing review database; a missing file is an error, not a new queue.
    /// An empty file is not one either: SQLite would take it for a new, empty queue.
    pub fn open_existing(path: &Path) -> Result<ReviewStore> {
        if !path.is_file() {
            bail!(
                "{}: no review database there; `twinpage score --review-db {}` makes one",
                path.display(),
                path.display()
            );
        }
        if path.metadata().is_ok_and(|m| m.len() == 0) {
            bail!(
                "{}: the file is empty, not a review database (remove it, or give the database `twinpage score --review-db` wrote)",
                path.display()
            );
        }
        ReviewStore::open(path)
    }

    /// Another connection to a database already brought up to date by [`open`]:
    /// no schema work, so that many can open at once (one per request).
    ///
    /// [`open`]: ReviewStore::open
    pub fn connect(path: &Path) -> Result<ReviewStore> {
        let store = ReviewStore::connect_unchecked(path)?;
        let version: i64 = store
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))?;
        if version != schema::VERSION {
            bail!(
                "{}: schema version {version}, expected {}",
                path.display(),
                schema::VERSION
            );
        }
        Ok(store)
    }

    /// Opens the file and reads it once (setting the journal mode does), so that a
    /// file that is not a database, or a damaged one, fails here, named, before any
    /// other work.
    fn connect_unchecked(path: &Path) -> Result<ReviewStore> {
        let unusable = || format!("review database {} cannot be used", path.display());
        let conn = Connection::open(path)
            .with_context(|| format!("cannot open review database {}", path.display()))?;
        conn.busy_timeout(Duration::from_secs(30))
            .with_context(unusable)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .with_context(unusable)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .with_context(unusable)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .with_context(unusable)?;
        Ok(ReviewStore { conn })
    }
}

/// Gives `pair_id` to `reviewer` for [`LEASE`], dropping any other pair they held.
fn lease(tx: &rusqlite::Transaction, pair_id: i64, reviewer: &str, now: i64) -> Result<()> {
    tx.execute("DELETE FROM leases WHERE reviewer = ?1", [reviewer])?;
    tx.execute(
        "INSERT INTO leases (pair_id, reviewer, until) VALUES (?1, ?2, ?3)
         ON CONFLICT(pair_id) DO UPDATE SET reviewer = excluded.reviewer, until = excluded.until",
        params![pair_id, reviewer, now + LEASE.as_millis() as i64],
    )?;
    Ok(())
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Whether the pair `id` exists (on the store's connection or in a transaction).
fn pair_exists(conn: &Connection, id: i64) -> Result<bool> {
    Ok(conn
        .query_row("SELECT 1 FROM pairs WHERE id = ?1", [id], |_| Ok(()))
        .optional()?
        .is_some())
}

/// A JSON column of a row, parsed; a value that does not parse is an error
/// naming the column.
fn json_column<T: serde::de::DeserializeOwned>(
    row: &rusqlite::Row,
    column: usize,
) -> rusqlite::Result<T> {
    let text: String = row.get(column)?;
    serde_json::from_str(&text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(column, rusqlite::types::Type::Text, Box::new(e))
    })
}
