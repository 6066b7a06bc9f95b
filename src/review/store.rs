//! The review queue: an SQLite database (WAL, versioned migrations) that holds the
//! pairs the model could not decide, everything a reviewer needs to judge them
//! without the original files, and the reviewers' verdicts.
//!
//! Verdicts are never deleted: an undo or a changed mind marks the old verdict
//! `undone_at`, so the whole history stays. A partial unique index allows one
//! active label per reviewer and pair, which is what keeps a retried request from
//! counting twice. Pairs are handed out under a short *lease*, taken in an
//! `IMMEDIATE` transaction, so two reviewers never hold the same pair at once.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};

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
];

/// How long a pair stays with the reviewer it was handed to.
pub const LEASE: Duration = Duration::from_secs(15 * 60);

/// A reviewer's judgement of a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Duplicate,
    Distinct,
    Unsure,
    /// Not now: the pair goes back to the queue for the others.
    Skip,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Duplicate => "duplicate",
            Verdict::Distinct => "distinct",
            Verdict::Unsure => "unsure",
            Verdict::Skip => "skip",
        }
    }

    /// Parses a label as pair files and label files write it; `unsure` too.
    pub fn parse_label(raw: &str) -> Option<Verdict> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "unsure" | "?" => Some(Verdict::Unsure),
            other => match crate::document::pairs::parse_label(other) {
                Ok(Some(true)) => Some(Verdict::Duplicate),
                Ok(Some(false)) => Some(Verdict::Distinct),
                _ => None,
            },
        }
    }

    fn from_db(raw: &str) -> Verdict {
        match raw {
            "duplicate" => Verdict::Duplicate,
            "distinct" => Verdict::Distinct,
            "unsure" => Verdict::Unsure,
            _ => Verdict::Skip,
        }
    }
}

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

/// One pair routed to review, with everything needed to judge and retrain on it.
#[derive(Debug, Clone)]
pub struct QueuedPair {
    pub url_a: String,
    pub url_b: String,
    pub a: StoredDocument,
    pub b: StoredDocument,
    pub query: Option<String>,
    /// `file:line` of the row it came from.
    pub source: String,
    /// The row's columns (header, value) as read.
    pub columns: Vec<(String, String)>,
    pub signal_names: Vec<String>,
    pub signals: Vec<f64>,
    pub p_duplicate: f64,
    pub model_id: String,
    /// Why the model scored it so (tree path, leaf, thresholds), as JSON.
    pub explanation: serde_json::Value,
}

impl QueuedPair {
    /// The same two documents at the same two URLs (in either order) are one pair.
    pub fn identity(&self) -> String {
        let mut sides = [
            (self.url_a.as_str(), self.a.hash.as_str()),
            (self.url_b.as_str(), self.b.hash.as_str()),
        ];
        sides.sort();
        let mut h = blake3::Hasher::new();
        for (url, hash) in sides {
            h.update(url.as_bytes())
                .update(b"\0")
                .update(hash.as_bytes())
                .update(b"\0");
        }
        h.update(self.query.as_deref().unwrap_or("").as_bytes());
        h.finalize().to_hex()[..32].to_string()
    }
}

/// A queued pair as the review page shows it.
#[derive(Debug, Clone, Serialize)]
pub struct PairView {
    pub id: i64,
    pub url_a: String,
    pub url_b: String,
    pub doc_a: String,
    pub doc_b: String,
    pub query: Option<String>,
    pub source: String,
    pub columns: serde_json::Value,
    pub signal_names: Vec<String>,
    pub signals: Vec<f64>,
    pub p_duplicate: f64,
    pub model_id: String,
    pub explanation: serde_json::Value,
    /// Active labels (reviewer, verdict), unsure included.
    pub labels: Vec<(String, Verdict)>,
}

/// Where the queue stands.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Progress {
    pub pairs: usize,
    /// Pairs with at least one label (unsure counts: someone looked).
    pub reviewed: usize,
    pub left: usize,
    /// Pairs whose settled label is duplicate / distinct.
    pub duplicates: usize,
    pub distinct: usize,
    pub unsure: usize,
    /// Pairs with both duplicate and distinct labels.
    pub conflicts: Vec<i64>,
    /// Labels given by the reviewer who asks.
    pub mine: usize,
}

/// A pair's settled label: the majority of its duplicate / distinct labels.
#[derive(Debug, Clone, PartialEq)]
pub struct SettledLabel {
    pub pair_id: i64,
    pub duplicate: bool,
    pub signal_names: Vec<String>,
    pub signals: Vec<f64>,
    pub doc_a: String,
    pub doc_b: String,
}

/// A stored document without its bodies.
#[derive(Debug, Clone, Serialize)]
pub struct DocumentSummary {
    pub core_text: String,
    pub has_render: bool,
    pub has_screenshot: bool,
}

/// An open review database.
pub struct ReviewStore {
    conn: Connection,
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn pack(bytes: &[u8]) -> Result<Vec<u8>> {
    Ok(zstd::encode_all(bytes, 3)?)
}

fn unpack(bytes: &[u8]) -> Result<Vec<u8>> {
    Ok(zstd::decode_all(bytes)?)
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
    pub fn open_existing(path: &Path) -> Result<ReviewStore> {
        if !path.is_file() {
            bail!(
                "{}: no review database there; `twinpage score --review-db {}` makes one",
                path.display(),
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
        if version != MIGRATIONS.len() as i64 {
            bail!(
                "{}: schema version {version}, expected {}",
                path.display(),
                MIGRATIONS.len()
            );
        }
        Ok(store)
    }

    fn connect_unchecked(path: &Path) -> Result<ReviewStore> {
        let conn = Connection::open(path)
            .with_context(|| format!("cannot open review database {}", path.display()))?;
        conn.busy_timeout(Duration::from_secs(30))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        Ok(ReviewStore { conn })
    }

    fn migrate(&mut self) -> Result<()> {
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

    /// Adds pairs to the queue in one transaction. A pair already queued keeps its
    /// id and labels; its score is brought up to date. Returns how many were new.
    pub fn enqueue(&mut self, pairs: &[QueuedPair]) -> Result<usize> {
        let now = now_ms();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut added = 0;
        for pair in pairs {
            for doc in [&pair.a, &pair.b] {
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
            }
            let identity = pair.identity();
            let existed: bool = tx
                .query_row(
                    "SELECT 1 FROM pairs WHERE identity = ?1",
                    [&identity],
                    |_| Ok(()),
                )
                .optional()?
                .is_some();
            let columns: serde_json::Map<String, serde_json::Value> = pair
                .columns
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
                .collect();
            tx.execute(
                "INSERT INTO pairs (identity, url_a, url_b, doc_a, doc_b, query, source, columns,
                     signal_names, signals, p_duplicate, model_id, explanation, queued_at, scored_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?14)
                 ON CONFLICT(identity) DO UPDATE SET
                     source = excluded.source, columns = excluded.columns,
                     signal_names = excluded.signal_names, signals = excluded.signals,
                     p_duplicate = excluded.p_duplicate, model_id = excluded.model_id,
                     explanation = excluded.explanation, scored_at = excluded.scored_at",
                params![
                    identity,
                    pair.url_a,
                    pair.url_b,
                    pair.a.hash,
                    pair.b.hash,
                    pair.query,
                    pair.source,
                    serde_json::Value::Object(columns).to_string(),
                    serde_json::to_string(&pair.signal_names)?,
                    serde_json::to_string(&pair.signals)?,
                    pair.p_duplicate,
                    pair.model_id,
                    pair.explanation.to_string(),
                    now,
                ],
            )?;
            added += usize::from(!existed);
        }
        tx.commit()?;
        Ok(added)
    }

    /// Hands `reviewer` the most uncertain pair nobody has labelled, that this
    /// reviewer has not skipped and no other reviewer holds; the pair is leased to
    /// them. A pair they already hold comes first (a reloaded page finds it again).
    pub fn next(&mut self, reviewer: &str) -> Result<Option<PairView>> {
        let now = now_ms();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let id: Option<i64> = tx
            .query_row(
                "SELECT p.id FROM pairs p
                 LEFT JOIN leases l ON l.pair_id = p.id AND l.until > ?2
                 WHERE NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.pair_id = p.id
                                   AND v.undone_at IS NULL AND v.verdict <> 'skip')
                   AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.pair_id = p.id
                                   AND v.reviewer = ?1 AND v.undone_at IS NULL AND v.verdict = 'skip')
                   AND (l.reviewer IS NULL OR l.reviewer = ?1)
                 ORDER BY (l.reviewer IS NULL), abs(p.p_duplicate - 0.5), p.identity
                 LIMIT 1",
                params![reviewer, now],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(id) = id {
            lease(&tx, id, reviewer, now)?;
        }
        tx.commit()?;
        id.map(|id| self.pair(id)).transpose()
    }

    /// A pair by id; leased to `reviewer` when given and nobody else holds it.
    pub fn open_pair(&mut self, id: i64, reviewer: &str) -> Result<Option<PairView>> {
        let now = now_ms();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let held_by_other: bool = tx
            .query_row(
                "SELECT 1 FROM leases WHERE pair_id = ?1 AND reviewer <> ?2 AND until > ?3",
                params![id, reviewer, now],
                |_| Ok(()),
            )
            .optional()?
            .is_some();
        let exists: bool = tx
            .query_row("SELECT 1 FROM pairs WHERE id = ?1", [id], |_| Ok(()))
            .optional()?
            .is_some();
        if exists && !held_by_other {
            lease(&tx, id, reviewer, now)?;
        }
        tx.commit()?;
        if !exists {
            return Ok(None);
        }
        self.pair(id).map(Some)
    }

    /// Everything the page shows about one pair.
    pub fn pair(&self, id: i64) -> Result<PairView> {
        let mut view = self.conn.query_row(
            "SELECT id, url_a, url_b, doc_a, doc_b, query, source, columns, signal_names,
                    signals, p_duplicate, model_id, explanation FROM pairs WHERE id = ?1",
            [id],
            |r| {
                let json = |i: usize| -> rusqlite::Result<serde_json::Value> {
                    let text: String = r.get(i)?;
                    Ok(serde_json::from_str(&text).unwrap_or(serde_json::Value::Null))
                };
                Ok(PairView {
                    id: r.get(0)?,
                    url_a: r.get(1)?,
                    url_b: r.get(2)?,
                    doc_a: r.get(3)?,
                    doc_b: r.get(4)?,
                    query: r.get(5)?,
                    source: r.get(6)?,
                    columns: json(7)?,
                    signal_names: serde_json::from_value(json(8)?).unwrap_or_default(),
                    signals: serde_json::from_value(json(9)?).unwrap_or_default(),
                    p_duplicate: r.get(10)?,
                    model_id: r.get(11)?,
                    explanation: json(12)?,
                    labels: Vec::new(),
                })
            },
        )?;
        view.labels = self.labels(id)?;
        Ok(view)
    }

    /// The active labels of a pair (skips are not labels).
    fn labels(&self, id: i64) -> Result<Vec<(String, Verdict)>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT reviewer, verdict FROM verdicts
             WHERE pair_id = ?1 AND undone_at IS NULL AND verdict <> 'skip' ORDER BY id",
        )?;
        let rows = stmt.query_map([id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                Verdict::from_db(&r.get::<_, String>(1)?),
            ))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Records a verdict. The same label again from the same reviewer changes
    /// nothing (a retried request is not a second label); a different one replaces
    /// theirs, keeping the old one as undone. Releases the reviewer's lease.
    pub fn judge(
        &mut self,
        pair_id: i64,
        reviewer: &str,
        verdict: Verdict,
        source: &str,
    ) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        record(&tx, pair_id, reviewer, verdict, source, now_ms())?;
        tx.execute(
            "DELETE FROM leases WHERE pair_id = ?1 AND reviewer = ?2",
            params![pair_id, reviewer],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Records many labels at once, all or none (`twinpage review import`).
    pub fn import(&mut self, labels: &[(i64, String, Verdict)], source: &str) -> Result<()> {
        let now = now_ms();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        for (pair_id, reviewer, verdict) in labels {
            record(&tx, *pair_id, reviewer, *verdict, source, now)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Takes back the reviewer's latest verdict (label or skip); returns its pair,
    /// now leased to them again, or None when they have nothing to undo.
    pub fn undo(&mut self, reviewer: &str) -> Result<Option<i64>> {
        let now = now_ms();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let last: Option<(i64, i64)> = tx
            .query_row(
                "SELECT id, pair_id FROM verdicts WHERE reviewer = ?1 AND undone_at IS NULL
                 AND source = 'page' ORDER BY id DESC LIMIT 1",
                [reviewer],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        if let Some((verdict_id, pair_id)) = last {
            tx.execute(
                "UPDATE verdicts SET undone_at = ?2 WHERE id = ?1",
                params![verdict_id, now],
            )?;
            lease(&tx, pair_id, reviewer, now)?;
        }
        tx.commit()?;
        Ok(last.map(|(_, pair_id)| pair_id))
    }

    /// Counts for the progress bar, seen by `reviewer`.
    pub fn progress(&self, reviewer: &str) -> Result<Progress> {
        let mut progress = Progress {
            pairs: self.count("SELECT count(*) FROM pairs", [])?,
            mine: self.count(
                "SELECT count(*) FROM verdicts WHERE reviewer = ?1 AND undone_at IS NULL AND verdict <> 'skip'",
                [reviewer],
            )?,
            ..Progress::default()
        };
        for (pair_id, votes) in self.votes()? {
            progress.reviewed += 1;
            match votes.settled() {
                Some(true) => progress.duplicates += 1,
                Some(false) => progress.distinct += 1,
                None if votes.duplicate + votes.distinct == 0 => progress.unsure += 1,
                None => {}
            }
            if votes.duplicate > 0 && votes.distinct > 0 {
                progress.conflicts.push(pair_id);
            }
        }
        progress.left = progress.pairs - progress.reviewed;
        Ok(progress)
    }

    fn count<P: rusqlite::Params>(&self, sql: &str, params: P) -> Result<usize> {
        Ok(self.conn.query_row(sql, params, |r| r.get::<_, i64>(0))? as usize)
    }

    /// Votes per labelled pair, in pair order.
    fn votes(&self) -> Result<Vec<(i64, Votes)>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT pair_id,
                    sum(verdict = 'duplicate'), sum(verdict = 'distinct'), sum(verdict = 'unsure'),
                    max(at)
             FROM verdicts WHERE undone_at IS NULL AND verdict <> 'skip'
             GROUP BY pair_id ORDER BY pair_id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get(0)?,
                Votes {
                    duplicate: r.get::<_, i64>(1)? as usize,
                    distinct: r.get::<_, i64>(2)? as usize,
                    last_at: r.get(4)?,
                },
            ))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Every pair with a settled label (majority of duplicate / distinct; unsure
    /// left out; ties left out), with its signal vector, oldest label first.
    pub fn settled_labels(&self) -> Result<Vec<SettledLabel>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT signal_names, signals, doc_a, doc_b FROM pairs WHERE id = ?1",
        )?;
        let mut out = Vec::new();
        for (pair_id, duplicate) in self.settled()? {
            let (names, signals, doc_a, doc_b): (String, String, String, String) = stmt
                .query_row([pair_id], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })?;
            out.push(SettledLabel {
                pair_id,
                duplicate,
                signal_names: serde_json::from_str(&names)?,
                signals: serde_json::from_str(&signals)?,
                doc_a,
                doc_b,
            });
        }
        Ok(out)
    }

    /// (pair, settled label) of every pair that has one, oldest label first.
    fn settled(&self) -> Result<Vec<(i64, bool)>> {
        let mut votes = self.votes()?;
        votes.sort_by_key(|(id, v)| (v.last_at, *id));
        Ok(votes
            .into_iter()
            .filter_map(|(id, v)| Some((id, v.settled()?)))
            .collect())
    }

    /// Ids of the pairs nobody has labelled yet, most uncertain first.
    pub fn pending(&self) -> Result<Vec<i64>> {
        let mut stmt = self.conn.prepare(
            "SELECT p.id FROM pairs p
             WHERE NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.pair_id = p.id
                               AND v.undone_at IS NULL AND v.verdict <> 'skip')
             ORDER BY abs(p.p_duplicate - 0.5), p.identity",
        )?;
        let ids = stmt.query_map([], |r| r.get(0))?;
        Ok(ids.collect::<rusqlite::Result<_>>()?)
    }

    /// Whether a pair id exists.
    pub fn has_pair(&self, id: i64) -> Result<bool> {
        Ok(self
            .conn
            .query_row("SELECT 1 FROM pairs WHERE id = ?1", [id], |_| Ok(()))
            .optional()?
            .is_some())
    }

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

    /// The hint on whether more labels still change the model (see [`super::hint`]).
    pub fn hint(&self) -> Result<super::hint::Hint> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT id, model_id, p_duplicate, explanation FROM pairs")?;
        let rows = stmt.query_map([], |r| {
            let explanation: String = r.get(3)?;
            let e: serde_json::Value = serde_json::from_str(&explanation).unwrap_or_default();
            let number = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0);
            let counts = &e["leaf_counts"];
            Ok(super::hint::LeafRow {
                pair_id: r.get(0)?,
                leaf: (r.get(1)?, e["leaf"].as_u64().unwrap_or(0) as usize),
                p_duplicate: r.get(2)?,
                calibration_pairs: number(&counts["calibration_duplicates"])
                    + number(&counts["calibration_distinct"]),
                thresholds: (
                    number(&e["thresholds"]["duplicate"]),
                    number(&e["thresholds"]["distinct"]),
                ),
            })
        })?;
        let rows: Vec<_> = rows.collect::<rusqlite::Result<_>>()?;
        Ok(super::hint::hint(&rows, &self.settled()?))
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

    /// Every verdict ever given (undone ones too), for tests and audits:
    /// (pair, reviewer, verdict, undone).
    pub fn history(&self) -> Result<Vec<(i64, String, Verdict, bool)>> {
        let mut stmt = self.conn.prepare(
            "SELECT pair_id, reviewer, verdict, undone_at IS NOT NULL FROM verdicts ORDER BY id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                Verdict::from_db(&r.get::<_, String>(2)?),
                r.get(3)?,
            ))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

/// The duplicate / distinct labels of one pair.
#[derive(Debug, Clone, Copy)]
struct Votes {
    duplicate: usize,
    distinct: usize,
    last_at: i64,
}

impl Votes {
    /// The majority label; None on a tie (including no duplicate/distinct label).
    fn settled(&self) -> Option<bool> {
        match self.duplicate.cmp(&self.distinct) {
            std::cmp::Ordering::Greater => Some(true),
            std::cmp::Ordering::Less => Some(false),
            std::cmp::Ordering::Equal => None,
        }
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

/// Writes one verdict inside a transaction (see [`ReviewStore::judge`]).
fn record(
    tx: &rusqlite::Transaction,
    pair_id: i64,
    reviewer: &str,
    verdict: Verdict,
    source: &str,
    now: i64,
) -> Result<()> {
    let exists: bool = tx
        .query_row("SELECT 1 FROM pairs WHERE id = ?1", [pair_id], |_| Ok(()))
        .optional()?
        .is_some();
    if !exists {
        bail!("no pair {pair_id} in the review database");
    }
    if verdict != Verdict::Skip {
        let current: Option<(i64, String)> = tx
            .query_row(
                "SELECT id, verdict FROM verdicts WHERE pair_id = ?1 AND reviewer = ?2
                 AND undone_at IS NULL AND verdict <> 'skip'",
                params![pair_id, reviewer],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        match current {
            Some((_, same)) if same == verdict.as_str() => return Ok(()),
            Some((old, _)) => {
                tx.execute(
                    "UPDATE verdicts SET undone_at = ?2 WHERE id = ?1",
                    params![old, now],
                )?;
            }
            None => {}
        }
    }
    tx.execute(
        "INSERT INTO verdicts (pair_id, reviewer, verdict, source, at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![pair_id, reviewer, verdict.as_str(), source, now],
    )?;
    Ok(())
}
