//! An open review database: its connection, opened, checked and brought up to date.

use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use rusqlite::Connection;

use super::schema;

/// An open review database.
pub struct ReviewStore {
    pub(super) conn: Connection,
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
