//! The documents of queued pairs, stored zstd-compressed and keyed by content
//! hash, so that a review does not depend on files that may move.

use anyhow::Result;
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use super::database::ReviewStore;

/// One document as the queue keeps it.
#[derive(Debug, Clone)]
pub struct StoredDocument {
    /// blake3 (hex) of the fetched body's bytes.
    pub hash: String,
    /// The fetched body as read (decompressed, cut at the body limit).
    pub fetched: Vec<u8>,
    /// The stored render (JSON, as `twinpage render --store` writes it), if any.
    pub rendered: Option<Vec<u8>>,
    pub screenshot: Option<Vec<u8>>,
    /// The core content a reader judges: of the rendered body when there is one.
    pub core_text: String,
}

/// A stored document without its bodies.
#[derive(Debug, Clone, Serialize)]
pub struct DocumentSummary {
    pub core_text: String,
    pub has_render: bool,
    pub has_screenshot: bool,
}

fn pack(bytes: &[u8]) -> Result<Vec<u8>> {
    Ok(zstd::encode_all(bytes, 3)?)
}

fn unpack(bytes: &[u8]) -> Result<Vec<u8>> {
    Ok(zstd::decode_all(bytes)?)
}

/// Stores a document once; a later copy fills in a render or screenshot it lacked.
pub(super) fn store_document(tx: &rusqlite::Transaction, doc: &StoredDocument) -> Result<()> {
    let rendered = doc.rendered.as_deref().map(pack).transpose()?;
    tx.execute(
        "INSERT INTO documents (hash, fetched, rendered, screenshot, core_text)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT(hash) DO UPDATE SET
            rendered = coalesce(excluded.rendered, rendered),
            screenshot = coalesce(excluded.screenshot, screenshot)",
        params![
            doc.hash,
            pack(&doc.fetched)?,
            rendered,
            doc.screenshot,
            doc.core_text
        ],
    )?;
    Ok(())
}

impl ReviewStore {
    /// A stored document: its fetched body, stored render (JSON) and screenshot.
    pub fn document(&self, hash: &str) -> Result<Option<StoredDocument>> {
        // Read packed, then unpacked outside the row callback (unpacking can fail).
        let packed: Option<StoredDocument> = self
            .conn
            .query_row(
                "SELECT fetched, rendered, screenshot, core_text FROM documents WHERE hash = ?1",
                [hash],
                |r| {
                    Ok(StoredDocument {
                        hash: hash.to_string(),
                        fetched: r.get(0)?,
                        rendered: r.get(1)?,
                        screenshot: r.get(2)?,
                        core_text: r.get(3)?,
                    })
                },
            )
            .optional()?;
        packed
            .map(|doc| {
                Ok(StoredDocument {
                    fetched: unpack(&doc.fetched)?,
                    rendered: doc.rendered.as_deref().map(unpack).transpose()?,
                    ..doc
                })
            })
            .transpose()
    }

    /// What the page needs of a document besides its bodies: its core text, and
    /// whether a render and a screenshot are stored. None for an unknown hash.
    pub fn document_summary(&self, hash: &str) -> Result<Option<DocumentSummary>> {
        Ok(self
            .conn
            .query_row(
                "SELECT core_text, rendered IS NOT NULL, screenshot IS NOT NULL
                 FROM documents WHERE hash = ?1",
                [hash],
                |r| {
                    Ok(DocumentSummary {
                        core_text: r.get(0)?,
                        has_render: r.get(1)?,
                        has_screenshot: r.get(2)?,
                    })
                },
            )
            .optional()?)
    }
}
