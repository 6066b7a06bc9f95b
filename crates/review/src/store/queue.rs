//! The queued pairs: what a reviewer needs to judge each one, and the short
//! *lease* under which a pair is handed out, taken in an `IMMEDIATE`
//! transaction so that two reviewers never hold the same pair at once.

use std::collections::{BTreeMap, HashMap, HashSet};

use anyhow::Result;
use rusqlite::{params, OptionalExtension, TransactionBehavior};
use serde::Serialize;

use super::database::ReviewStore;
use super::documents::{store_document, StoredDocument};
use super::labels::Verdict;
use super::lease::{lease, now_ms};
use super::rows::{json_column, pair_exists};
use crate::hint::{hint, CellRow, Hint};
use crate::order::{rank, Candidate, QueueOrder, Reason};
use twinpage::model::{Explanation, Model};

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
    /// Why the model scored it so.
    pub explanation: Explanation,
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
    pub columns: BTreeMap<String, String>,
    pub signal_names: Vec<String>,
    pub signals: Vec<f64>,
    pub p_duplicate: f64,
    pub model_id: String,
    pub explanation: Explanation,
    /// Active labels (reviewer, verdict), unsure included.
    pub labels: Vec<(String, Verdict)>,
    /// Why the queue order put the pair where it is (set by whoever served it).
    pub reason: Option<Reason>,
}

impl ReviewStore {
    /// Adds pairs to the queue in one transaction. A pair already queued keeps its
    /// id and labels; its score is brought up to date. Returns how many were new.
    pub fn enqueue(&mut self, pairs: &[QueuedPair]) -> Result<usize> {
        self.enqueue_batches(std::iter::once(Ok(pairs)))
    }

    /// Adds batches of pairs, each made when it is its turn (so that only one is in
    /// memory at a time), as [`ReviewStore::enqueue`] does, all in one transaction:
    /// a batch that fails to be made or written leaves the queue as it was.
    pub fn enqueue_batches<B: std::borrow::Borrow<[QueuedPair]>>(
        &mut self,
        batches: impl IntoIterator<Item = Result<B>>,
    ) -> Result<usize> {
        let now = now_ms();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut added = 0;
        for batch in batches {
            added += insert_pairs(&tx, batch?.borrow(), now)?;
        }
        tx.commit()?;
        Ok(added)
    }

    /// Hands `reviewer` the next pair they may judge, leased to them: a pair they
    /// already hold first (a reloaded page finds it again); for an adjudicator, a
    /// pair whose reviewers disagree; then the first pair of the queue's order that
    /// lacks its looks (one, or two for a second look), that this reviewer has not
    /// labelled or skipped, and that no other reviewer holds.
    pub fn next(&mut self, reviewer: &str, serving: &Serving) -> Result<Option<PairView>> {
        let now = now_ms();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let looks = looks(&tx, reviewer, now)?;
        let open_dispute = |id: &i64| {
            serving.adjudicator
                && looks
                    .get(id)
                    .is_some_and(|l| l.disputed() && !l.held_by_other)
        };
        let servable = |id: &i64| {
            let needed = 1 + usize::from(serving.second_looks.is_some_and(|s| s.contains(id)));
            looks
                .get(id)
                .is_none_or(|l| !l.by_reviewer && !l.held_by_other && l.labels < needed)
        };
        let held: Option<i64> = tx
            .query_row(
                "SELECT pair_id FROM leases WHERE reviewer = ?1 AND until > ?2
                 ORDER BY until DESC LIMIT 1",
                params![reviewer, now],
                |r| r.get(0),
            )
            .optional()?;
        let ranked = || serving.ranked.iter().map(|&(id, _)| id);
        let id = held
            .filter(|id| open_dispute(id) || servable(id))
            .or_else(|| ranked().find(open_dispute))
            .or_else(|| ranked().find(servable));
        if let Some(id) = id {
            lease(&tx, id, reviewer, now)?;
        }
        tx.commit()?;
        id.map(|id| self.pair(id)).transpose()
    }

    /// Whether the pair's reviewers other than `reviewer` gave both a duplicate
    /// and a distinct label and no other adjudicator has settled it: what an
    /// adjudicator's verdict settles (their own earlier verdict left aside).
    pub fn disputed(&self, pair_id: i64, reviewer: &str) -> Result<bool> {
        let (duplicate, distinct, adjudged): (i64, i64, i64) = self.conn.query_row(
            "SELECT coalesce(sum(verdict = 'duplicate'), 0), coalesce(sum(verdict = 'distinct'), 0),
                    coalesce(sum(source = 'adjudication'), 0)
             FROM verdicts WHERE pair_id = ?1 AND reviewer <> ?2 AND undone_at IS NULL",
            params![pair_id, reviewer],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        Ok(duplicate > 0 && distinct > 0 && adjudged == 0)
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
        let exists = pair_exists(&tx, id)?;
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
                Ok(PairView {
                    id: r.get(0)?,
                    url_a: r.get(1)?,
                    url_b: r.get(2)?,
                    doc_a: r.get(3)?,
                    doc_b: r.get(4)?,
                    query: r.get(5)?,
                    source: r.get(6)?,
                    columns: json_column(r, 7)?,
                    signal_names: json_column(r, 8)?,
                    signals: json_column(r, 9)?,
                    p_duplicate: r.get(10)?,
                    model_id: r.get(11)?,
                    explanation: json_column(r, 12)?,
                    labels: Vec::new(),
                    reason: None,
                })
            },
        )?;
        view.labels = self.labels(id)?;
        Ok(view)
    }

    /// The pairs of `ranked` (the queue in its order) nobody has labelled yet.
    pub fn pending(&self, ranked: &[(i64, Reason)]) -> Result<Vec<(i64, Reason)>> {
        let labelled: HashSet<i64> = {
            let mut stmt = self.conn.prepare_cached(
                "SELECT pair_id FROM verdicts WHERE undone_at IS NULL AND verdict <> 'skip'",
            )?;
            let ids = stmt.query_map([], |r| r.get(0))?;
            ids.collect::<rusqlite::Result<_>>()?
        };
        Ok(ranked
            .iter()
            .copied()
            .filter(|(id, _)| !labelled.contains(id))
            .collect())
    }

    /// Every queued pair, labelled or not, in `order`.
    pub fn ranked(&self, order: QueueOrder) -> Result<Vec<(i64, Reason)>> {
        Ok(rank(&self.candidates()?, order.order, order.seed))
    }

    /// Every queued pair, labelled or not, as the queue order sees it.
    pub fn candidates(&self) -> Result<Vec<Candidate>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT id, identity, p_duplicate,
                    coalesce(json_extract(explanation, '$.committee.spread'), 0.0), signals
             FROM pairs ORDER BY id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(Candidate {
                id: r.get(0)?,
                identity: r.get(1)?,
                p_duplicate: r.get(2)?,
                spread: r.get(3)?,
                signals: json_column(r, 4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Changes whenever a pair is queued or scored again: an order ranked at one
    /// version holds until the next.
    pub fn queue_version(&self) -> Result<String> {
        Ok(self.conn.query_row(
            "SELECT count(*) || ':' || coalesce(max(id), 0) || ':' || coalesce(max(scored_at), 0)
             FROM pairs",
            [],
            |r| r.get(0),
        )?)
    }

    /// Scores every queued pair laid out in `model`'s signals again with it, in
    /// one transaction, and says what changed.
    pub fn rescore(&mut self, model: &Model) -> Result<Rescored> {
        let now = now_ms();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut change = Rescored::default();
        {
            let mut read =
                tx.prepare("SELECT id, signal_names, signals, explanation FROM pairs")?;
            let rows = read.query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    json_column::<Vec<String>>(r, 1)?,
                    json_column::<Vec<f64>>(r, 2)?,
                    json_column::<Explanation>(r, 3)?,
                ))
            })?;
            let mut write = tx.prepare(
                "UPDATE pairs SET p_duplicate = ?2, model_id = ?3, explanation = ?4, scored_at = ?5
                 WHERE id = ?1",
            )?;
            for row in rows {
                let (id, names, signals, before) = row?;
                if names != model.signals {
                    continue;
                }
                let after = model.explain(&signals);
                let shift = (after.p_duplicate - before.p_duplicate).abs();
                change.pairs += 1;
                change.routes_changed += usize::from(after.decision() != before.decision());
                change.mean_shift += shift;
                change.largest_shift = change.largest_shift.max(shift);
                write.execute(params![
                    id,
                    after.p_duplicate,
                    model.id,
                    serde_json::to_string(&after)?,
                    now
                ])?;
            }
        }
        tx.commit()?;
        change.mean_shift /= change.pairs.max(1) as f64;
        Ok(change)
    }

    /// The pairs that take a second look: a share `overlap` of the queue, drawn
    /// by each pair's identity, so the same pairs whatever the order or the day.
    pub fn second_looks(&self, overlap: f64) -> Result<HashSet<i64>> {
        if overlap <= 0.0 {
            return Ok(HashSet::new());
        }
        let mut stmt = self.conn.prepare_cached("SELECT id, identity FROM pairs")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
        let mut chosen = HashSet::new();
        for row in rows {
            let (id, identity) = row?;
            // The identity is a BLAKE3 hex digest: its first 8 digits are uniform.
            let draw = u32::from_str_radix(identity.get(..8).unwrap_or("0"), 16).unwrap_or(0);
            if f64::from(draw) < overlap * f64::from(u32::MAX) {
                chosen.insert(id);
            }
        }
        Ok(chosen)
    }

    /// Whether a pair id exists.
    pub fn has_pair(&self, id: i64) -> Result<bool> {
        pair_exists(&self.conn, id)
    }

    /// The hint on whether more labels still change the model (see [`crate::hint`]).
    pub fn hint(&self) -> Result<Hint> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT id, model_id, p_duplicate, explanation FROM pairs")?;
        let rows = stmt.query_map([], |r| {
            let explanation: Explanation = json_column(r, 3)?;
            Ok(CellRow {
                pair_id: r.get(0)?,
                cell: (r.get(1)?, explanation.cell),
                p_duplicate: r.get(2)?,
                calibration_pairs: f64::from(explanation.counts.calibration_pairs()),
                thresholds: explanation.thresholds,
            })
        })?;
        let rows: Vec<CellRow> = rows.collect::<rusqlite::Result<_>>()?;
        Ok(hint(&rows, &self.settled()?))
    }
}

/// What scoring the queue again with another model changed.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Rescored {
    /// Queued pairs scored again (those laid out in the model's signals).
    pub pairs: usize,
    /// Of them, the ones whose route (duplicate, distinct or review) changed.
    pub routes_changed: usize,
    /// Mean and largest change of their p_duplicate.
    pub mean_shift: f64,
    pub largest_shift: f64,
}

/// What a reviewer may be served: the queue in its order, the pairs that take a
/// second look (two reviewers, blind to each other), and whether the reviewer
/// adjudicates (is served disputed pairs first).
#[derive(Debug, Clone, Copy)]
pub struct Serving<'a> {
    pub ranked: &'a [(i64, Reason)],
    pub second_looks: Option<&'a HashSet<i64>>,
    pub adjudicator: bool,
}

impl<'a> Serving<'a> {
    /// One look for every pair, by a reviewer.
    pub fn once(ranked: &'a [(i64, Reason)]) -> Serving<'a> {
        Serving {
            ranked,
            second_looks: None,
            adjudicator: false,
        }
    }
}

/// The looks a pair has had, as one reviewer's next pair sees them.
#[derive(Debug, Default)]
struct Looks {
    /// Active labels, unsure included.
    labels: usize,
    duplicate: usize,
    distinct: usize,
    adjudicated: bool,
    /// This reviewer labelled or skipped it.
    by_reviewer: bool,
    /// Another reviewer holds its lease.
    held_by_other: bool,
}

impl Looks {
    fn disputed(&self) -> bool {
        self.duplicate > 0 && self.distinct > 0 && !self.adjudicated && !self.by_reviewer
    }
}

/// The looks of every pair anyone labelled, skipped or holds.
fn looks(tx: &rusqlite::Transaction, reviewer: &str, now: i64) -> Result<HashMap<i64, Looks>> {
    let mut looks: HashMap<i64, Looks> = HashMap::new();
    let mut stmt = tx.prepare_cached(
        "SELECT pair_id, sum(verdict <> 'skip'), sum(verdict = 'duplicate'),
                sum(verdict = 'distinct'), max(source = 'adjudication' AND verdict <> 'skip'),
                max(reviewer = ?1)
         FROM verdicts WHERE undone_at IS NULL GROUP BY pair_id",
    )?;
    let rows = stmt.query_map([reviewer], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            Looks {
                labels: r.get::<_, i64>(1)? as usize,
                duplicate: r.get::<_, i64>(2)? as usize,
                distinct: r.get::<_, i64>(3)? as usize,
                adjudicated: r.get(4)?,
                by_reviewer: r.get(5)?,
                held_by_other: false,
            },
        ))
    })?;
    for row in rows {
        let (id, l) = row?;
        looks.insert(id, l);
    }
    let mut stmt =
        tx.prepare_cached("SELECT pair_id FROM leases WHERE reviewer <> ?1 AND until > ?2")?;
    for id in stmt.query_map(params![reviewer, now], |r| r.get::<_, i64>(0))? {
        looks.entry(id?).or_default().held_by_other = true;
    }
    Ok(looks)
}

/// Inserts (or brings up to date) `pairs` in the queue; how many were new.
fn insert_pairs(tx: &rusqlite::Transaction, pairs: &[QueuedPair], now: i64) -> Result<usize> {
    let mut added = 0;
    for pair in pairs {
        for doc in [&pair.a, &pair.b] {
            store_document(tx, doc)?;
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
        let columns: BTreeMap<&str, &str> = pair
            .columns
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
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
                    serde_json::to_string(&columns)?,
                    serde_json::to_string(&pair.signal_names)?,
                    serde_json::to_string(&pair.signals)?,
                    pair.p_duplicate,
                    pair.model_id,
                    serde_json::to_string(&pair.explanation)?,
                    now,
                ],
            )?;
        added += usize::from(!existed);
    }
    Ok(added)
}
