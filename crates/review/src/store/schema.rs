//! The review database's schema, one migration per version; `PRAGMA
//! user_version` says how many ran, and opening a database runs the rest.

use anyhow::{bail, Result};
use rusqlite::TransactionBehavior;

use super::database::ReviewStore;

/// The schema, one migration per version; `PRAGMA user_version` says how many ran.
const MIGRATIONS: &[&str] = &[
    // 1: documents, queued pairs, verdicts, leases.
    "CREATE TABLE documents (
        hash TEXT PRIMARY KEY,
        fetched BLOB NOT NULL,
        rendered BLOB,
        screenshot BLOB,
        core_text TEXT NOT NULL
     );
     CREATE TABLE pairs (
        id INTEGER PRIMARY KEY,
        identity TEXT NOT NULL UNIQUE,
        url_a TEXT NOT NULL,
        url_b TEXT NOT NULL,
        doc_a TEXT NOT NULL REFERENCES documents(hash),
        doc_b TEXT NOT NULL REFERENCES documents(hash),
        query TEXT,
        source TEXT NOT NULL,
        columns TEXT NOT NULL,
        signal_names TEXT NOT NULL,
        signals TEXT NOT NULL,
        p_duplicate REAL NOT NULL,
        model_id TEXT NOT NULL,
        explanation TEXT NOT NULL,
        queued_at INTEGER NOT NULL,
        scored_at INTEGER NOT NULL
     );
     CREATE TABLE verdicts (
        id INTEGER PRIMARY KEY,
        pair_id INTEGER NOT NULL REFERENCES pairs(id),
        reviewer TEXT NOT NULL,
        verdict TEXT NOT NULL CHECK (verdict IN ('duplicate', 'distinct', 'unsure', 'skip')),
        source TEXT NOT NULL,
        at INTEGER NOT NULL,
        undone_at INTEGER
     );
     CREATE UNIQUE INDEX one_label_per_reviewer ON verdicts(pair_id, reviewer)
        WHERE undone_at IS NULL AND verdict <> 'skip';
     CREATE INDEX verdicts_by_reviewer ON verdicts(reviewer, id);
     CREATE TABLE leases (
        pair_id INTEGER PRIMARY KEY REFERENCES pairs(id),
        reviewer TEXT NOT NULL,
        until INTEGER NOT NULL
     );",
    // 2: a team's sign-in: one-time invitations and sessions, hashed.
    "CREATE TABLE invitations (
        token_hash TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        role TEXT NOT NULL,
        expires INTEGER NOT NULL
     );
     CREATE TABLE sessions (
        id_hash TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        role TEXT NOT NULL,
        csrf TEXT NOT NULL,
        expires INTEGER NOT NULL
     );",
];

/// The schema version this build writes.
pub(super) const VERSION: i64 = MIGRATIONS.len() as i64;

impl ReviewStore {
    pub(super) fn migrate(&mut self) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let version: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
        let version = usize::try_from(version).unwrap_or(usize::MAX);
        if version > MIGRATIONS.len() {
            bail!(
                "schema version {version} is newer than this twinpage knows ({}); use a newer twinpage",
                MIGRATIONS.len()
            );
        }
        for sql in &MIGRATIONS[version..] {
            tx.execute_batch(sql)?;
        }
        tx.pragma_update(None, "user_version", MIGRATIONS.len() as i64)?;
        tx.commit()?;
        Ok(())
    }
}
