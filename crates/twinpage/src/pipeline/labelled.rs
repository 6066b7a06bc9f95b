//! A batch's labelled pairs as training data: signal vectors, labels and the
//! content hashes of both documents, with a fingerprint of the whole.

use anyhow::{bail, Result};

use super::batch::Batch;
use super::cascade::FetchedEvidence;
use super::score::{screened, vectors_in, Guards};
use crate::document::Pair;
use crate::model::LabelledPairs;
use crate::signals::{Layout, PairBodies};

/// The labelled pairs of the batch (signal vectors, labels, document hashes)
/// with the fingerprint of the data: the document hashes and labels, in order.
/// Unlabelled rows are an error; unreadable ones are left out.
pub fn labelled_pairs(batch: &Batch) -> Result<(LabelledPairs, String)> {
    let (set, _, fingerprint) = labelled_by(batch, None)?;
    Ok((set, fingerprint))
}

/// [`labelled_pairs`] with each kept pair's documents (their fetched and rendered bodies).
pub fn labelled_with_bodies(batch: &Batch) -> Result<(LabelledPairs, Vec<PairBodies<'_>>, String)> {
    let kept = labelled_in(batch, None, batch.layout())?;
    let bodies = bodies_of(batch, &kept.rows)
        .into_iter()
        .map(|(_, bodies)| bodies)
        .collect();
    Ok((kept.pairs, bodies, kept.fingerprint))
}

/// The batch's pairs at `rows` with their bodies (kept pairs: their documents are
/// loaded).
fn bodies_of<'b>(batch: &'b Batch, rows: &[usize]) -> Vec<(&'b Pair, PairBodies<'b>)> {
    let pairs: Vec<&Pair> = batch.pairs().collect();
    rows.iter()
        .map(|&row| {
            let bodies = batch
                .documents
                .bodies(pairs[row])
                .expect("a kept pair's documents are loaded");
            (pairs[row], bodies)
        })
        .collect()
}

/// [`labelled_pairs`] with each kept pair's value of `column` (when one is named).
pub fn labelled_by(
    batch: &Batch,
    column: Option<&str>,
) -> Result<(LabelledPairs, Vec<String>, String)> {
    let kept = labelled_in(batch, column, batch.layout())?;
    Ok((kept.pairs, kept.values, kept.fingerprint))
}

/// [`labelled_by`] with each kept pair's [`Guards`] on the bodies its vector was
/// computed from, as `score` applies them: what a model's decisions on the pairs
/// become.
pub fn guarded_by(
    batch: &Batch,
    column: &str,
) -> Result<(LabelledPairs, Vec<String>, Vec<Guards>)> {
    let kept = labelled_in(batch, Some(column), batch.layout())?;
    let guards = bodies_of(batch, &kept.rows)
        .iter()
        .map(|(pair, bodies)| Guards::on(pair, bodies))
        .collect();
    Ok((kept.pairs, kept.values, guards))
}

/// The labelled pairs of a batch read with its rendered bodies, as each stage of
/// the cascade (`score --render auto`) sees them: the same pairs, in the same
/// order, with fetched-only and with fetched-and-rendered vectors.
pub struct Staged {
    pub fetched: LabelledPairs,
    pub rendered: LabelledPairs,
    /// Each pair's value of the grouping column.
    pub groups: Vec<String>,
    /// Decided duplicate by the screen, before any model (byte-identical bodies).
    pub screened: Vec<bool>,
    /// What the fetched bodies show, for the cascade's rule.
    pub evidence: Vec<FetchedEvidence>,
    /// The guards of each stage's bodies: fetched only, then fetched and rendered.
    pub guards: Vec<StageGuards>,
}

/// A pair's guards at each stage of the cascade, as `score` applies them there.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StageGuards {
    pub fetched: Guards,
    pub rendered: Guards,
}

impl StageGuards {
    fn of(pair: &Pair, bodies: PairBodies) -> StageGuards {
        let fetched = PairBodies {
            rendered: None,
            ..bodies
        };
        StageGuards {
            fetched: Guards::on(pair, &fetched),
            rendered: Guards::on(pair, &bodies),
        }
    }
}

/// [`Staged`] pairs of `batch`, grouped by `column`. The batch must carry rendered bodies.
pub fn staged_by(batch: &Batch, column: &str) -> Result<Staged> {
    if batch.layout() != Layout::FetchedAndRendered {
        bail!("judging the cascade needs the rendered bodies: drop --no-render");
    }
    let rendered = labelled_in(batch, Some(column), Layout::FetchedAndRendered)?;
    let fetched = labelled_in(batch, Some(column), Layout::Fetched)?;
    let mut staged = Staged {
        fetched: fetched.pairs,
        rendered: rendered.pairs,
        groups: rendered.values,
        screened: Vec::new(),
        evidence: Vec::new(),
        guards: Vec::new(),
    };
    for (pair, bodies) in bodies_of(batch, &rendered.rows) {
        let (a, b) = bodies.fetched;
        staged.screened.push(screened(a, b));
        staged.evidence.push(FetchedEvidence::of(a, b));
        staged.guards.push(StageGuards::of(pair, bodies));
    }
    Ok(staged)
}

/// The labelled, readable pairs of a batch with vectors in `layout`.
struct Kept {
    pairs: LabelledPairs,
    /// Each kept pair's value of the column asked for (empty when none).
    values: Vec<String>,
    fingerprint: String,
    /// Each kept pair's row among the batch's pairs.
    rows: Vec<usize>,
}

fn labelled_in(batch: &Batch, column: Option<&str>, layout: Layout) -> Result<Kept> {
    let values = column.map(|name| batch.column(name)).transpose()?;
    let vectors = vectors_in(batch, layout);
    let mut out = LabelledPairs::default();
    let mut kept_values = Vec::new();
    let mut rows = Vec::new();
    let mut fingerprint = blake3::Hasher::new();
    for (i, (pair, vector)) in batch.pairs().zip(vectors).enumerate() {
        let Some(label) = pair.label else {
            bail!(
                "{}: no label; training needs a `label` on every row",
                pair.location()
            );
        };
        let Some(vector) = vector else { continue };
        let (a, b) = batch
            .documents
            .pair(pair)
            .expect("vector computed, so documents loaded");
        fingerprint.update(&a.body_hash);
        fingerprint.update(&b.body_hash);
        fingerprint.update(&[u8::from(label)]);
        out.push(vector, label, (a.body_hash, b.body_hash));
        rows.push(i);
        if let Some(values) = &values {
            kept_values.push(values[i].clone());
        }
    }
    Ok(Kept {
        pairs: out,
        values: kept_values,
        fingerprint: fingerprint.finalize().to_hex().to_string(),
        rows,
    })
}
