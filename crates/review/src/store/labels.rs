//! The reviewers' verdicts, and the labels they settle.
//!
//! Verdicts are never deleted: an undo or a changed mind marks the old verdict
//! `undone_at`, so the whole history stays. A partial unique index allows one
//! active label per reviewer and pair, which is what keeps a retried request from
//! counting twice. A pair's label is settled by its adjudicators' verdict when
//! reviewers disagreed and one was given (verdicts with source `adjudication`),
//! else by majority (unsure left out, ties left out: two reviewers who disagree
//! settle nothing until an adjudicator does).

use anyhow::{bail, Result};
use rusqlite::{params, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};

use super::database::ReviewStore;
use super::lease::{lease, now_ms};
use super::rows::{json_column, pair_exists};

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
            other => match twinpage::document::pairs::parse_label(other) {
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
    /// Of those, the ones no adjudicator has settled.
    pub awaiting_adjudication: usize,
    /// Labels given by the reviewer who asks.
    pub mine: usize,
    /// Labels given by everyone (unsure included, skips not).
    pub labels: usize,
}

/// A pair's settled label: its adjudicators' verdict, else the majority of its
/// duplicate / distinct labels.
#[derive(Debug, Clone, PartialEq)]
pub struct SettledLabel {
    pub pair_id: i64,
    pub duplicate: bool,
    /// Settled by an adjudicator.
    pub adjudicated: bool,
    pub signal_names: Vec<String>,
    pub signals: Vec<f64>,
    pub doc_a: String,
    pub doc_b: String,
}

impl ReviewStore {
    /// The active labels of a pair (skips are not labels).
    pub(super) fn labels(&self, id: i64) -> Result<Vec<(String, Verdict)>> {
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
                 AND source IN ('page', 'adjudication') ORDER BY id DESC LIMIT 1",
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
            labels: self.labels_given()?,
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
                progress.awaiting_adjudication += usize::from(votes.adjudged().is_none());
            }
        }
        progress.left = progress.pairs - progress.reviewed;
        Ok(progress)
    }

    /// Labels given by everyone so far (unsure included, skips and undone not).
    pub fn labels_given(&self) -> Result<usize> {
        self.count(
            "SELECT count(*) FROM verdicts WHERE undone_at IS NULL AND verdict <> 'skip'",
            [],
        )
    }

    fn count<P: rusqlite::Params>(&self, sql: &str, params: P) -> Result<usize> {
        Ok(self.conn.query_row(sql, params, |r| r.get::<_, i64>(0))? as usize)
    }

    /// Votes per labelled pair, in pair order.
    fn votes(&self) -> Result<Vec<(i64, Votes)>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT pair_id, sum(verdict = 'duplicate'), sum(verdict = 'distinct'),
                    sum(source = 'adjudication' AND verdict = 'duplicate'),
                    sum(source = 'adjudication' AND verdict = 'distinct'), max(at)
             FROM verdicts WHERE undone_at IS NULL AND verdict <> 'skip'
             GROUP BY pair_id ORDER BY pair_id",
        )?;
        let count = |r: &rusqlite::Row, i| r.get::<_, i64>(i).map(|n| n as usize);
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get(0)?,
                Votes {
                    duplicate: count(r, 1)?,
                    distinct: count(r, 2)?,
                    adjudged_duplicate: count(r, 3)?,
                    adjudged_distinct: count(r, 4)?,
                    last_at: r.get(5)?,
                },
            ))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Every pair with a settled label (see the module doc), with its signal
    /// vector, oldest label first.
    pub fn settled_labels(&self) -> Result<Vec<SettledLabel>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT signal_names, signals, doc_a, doc_b FROM pairs WHERE id = ?1",
        )?;
        let mut out = Vec::new();
        for (pair_id, votes) in self.votes_in_label_order()? {
            let Some(duplicate) = votes.settled() else {
                continue;
            };
            out.push(stmt.query_row([pair_id], |r| {
                Ok(SettledLabel {
                    pair_id,
                    duplicate,
                    adjudicated: votes.adjudged().is_some(),
                    signal_names: json_column(r, 0)?,
                    signals: json_column(r, 1)?,
                    doc_a: r.get(2)?,
                    doc_b: r.get(3)?,
                })
            })?);
        }
        Ok(out)
    }

    /// (pair, settled label) of every pair that has one, oldest label first.
    pub(super) fn settled(&self) -> Result<Vec<(i64, bool)>> {
        Ok(self
            .votes_in_label_order()?
            .into_iter()
            .filter_map(|(id, v)| Some((id, v.settled()?)))
            .collect())
    }

    /// Votes per labelled pair, oldest latest label first.
    fn votes_in_label_order(&self) -> Result<Vec<(i64, Votes)>> {
        let mut votes = self.votes()?;
        votes.sort_by_key(|(id, v)| (v.last_at, *id));
        Ok(votes)
    }

    /// Every active label (not undone, not a skip), oldest first.
    pub fn active_labels(&self) -> Result<Vec<crate::agreement::Label>> {
        let mut stmt = self.conn.prepare(
            "SELECT pair_id, reviewer, verdict, at FROM verdicts
             WHERE undone_at IS NULL AND verdict <> 'skip' ORDER BY id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(crate::agreement::Label {
                pair_id: r.get(0)?,
                reviewer: r.get(1)?,
                verdict: Verdict::from_db(&r.get::<_, String>(2)?),
                at_ms: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
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

/// The duplicate / distinct labels of one pair, and its adjudicators' among them.
#[derive(Debug, Clone, Copy)]
struct Votes {
    duplicate: usize,
    distinct: usize,
    adjudged_duplicate: usize,
    adjudged_distinct: usize,
    last_at: i64,
}

impl Votes {
    /// The adjudicators' label, else the majority label; None on a tie
    /// (including no duplicate/distinct label).
    fn settled(&self) -> Option<bool> {
        self.adjudged()
            .or_else(|| majority(self.duplicate, self.distinct))
    }

    /// The adjudicators' majority label, if any adjudicated.
    fn adjudged(&self) -> Option<bool> {
        majority(self.adjudged_duplicate, self.adjudged_distinct)
    }
}

/// Duplicate when more say so, distinct when fewer; None on a tie.
fn majority(duplicate: usize, distinct: usize) -> Option<bool> {
    match duplicate.cmp(&distinct) {
        std::cmp::Ordering::Greater => Some(true),
        std::cmp::Ordering::Less => Some(false),
        std::cmp::Ordering::Equal => None,
    }
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
    if !pair_exists(tx, pair_id)? {
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
