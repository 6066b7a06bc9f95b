//! Reading rows: whether a pair is there, and JSON columns parsed.

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension};

/// Whether the pair `id` exists (on the store's connection or in a transaction).
pub(super) fn pair_exists(conn: &Connection, id: i64) -> Result<bool> {
    Ok(conn
        .query_row("SELECT 1 FROM pairs WHERE id = ?1", [id], |_| Ok(()))
        .optional()?
        .is_some())
}

/// A JSON column of a row, parsed; a value that does not parse is an error
/// naming the column.
pub(super) fn json_column<T: serde::de::DeserializeOwned>(
    row: &rusqlite::Row,
    column: usize,
) -> rusqlite::Result<T> {
    let text: String = row.get(column)?;
    serde_json::from_str(&text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(column, rusqlite::types::Type::Text, Box::new(e))
    })
}
