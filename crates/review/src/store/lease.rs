//! Leases: a pair handed to one reviewer for a while, so two never hold it at once.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Result;
use rusqlite::params;

/// How long a pair stays with the reviewer it was handed to.
pub const LEASE: Duration = Duration::from_secs(15 * 60);

/// Gives `pair_id` to `reviewer` for [`LEASE`], dropping any other pair they held.
pub(super) fn lease(
    tx: &rusqlite::Transaction,
    pair_id: i64,
    reviewer: &str,
    now: i64,
) -> Result<()> {
    tx.execute("DELETE FROM leases WHERE reviewer = ?1", [reviewer])?;
    tx.execute(
        "INSERT INTO leases (pair_id, reviewer, until) VALUES (?1, ?2, ?3)
         ON CONFLICT(pair_id) DO UPDATE SET reviewer = excluded.reviewer, until = excluded.until",
        params![pair_id, reviewer, now + LEASE.as_millis() as i64],
    )?;
    Ok(())
}

pub(super) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
