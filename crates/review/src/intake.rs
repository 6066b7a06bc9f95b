//! From a scored batch to queued pairs: the pairs routed to `review`, each with
//! its documents (fetched body, stored render, screenshot, core text), its signal
//! vector and the explanation of its score, so that reviewing needs none of the
//! original files.

use std::path::Path;

use anyhow::{Context, Result};

use super::store::{QueuedPair, ReviewStore, StoredDocument};
use twinpage::document::{Document, Pair};
use twinpage::model::{Decision, Model};
use twinpage::pipeline::{Batch, Outcome};
use twinpage::render::{stored_bytes, RenderCache, StoredRender};
use twinpage::util::body::{read_decompressed, MAX_BODY_BYTES};

/// How many queued pairs are built and written at a time: each holds both pages'
/// bodies and screenshots, so a whole queue at once grew past a gigabyte.
const ENQUEUE_BATCH: usize = 64;

/// Queues the review-routed pairs of a scored batch in `store`, built a few at a
/// time and written in one transaction (all or none); returns how many were routed to review and how many of them were new there.
/// `cache` is the render cache of the run, where renders and screenshots of
/// documents rendered (not stored) are found.
pub fn enqueue_review_pairs(
    store: &mut ReviewStore,
    batch: &Batch,
    model: &Model,
    outcomes: &[Option<Outcome>],
    cache: Option<&RenderCache>,
) -> Result<(usize, usize)> {
    let routed: Vec<(&Pair, &Outcome, &[f64])> = batch
        .pairs()
        .zip(outcomes)
        .filter_map(|(pair, outcome)| {
            let outcome = outcome.as_ref()?;
            let vector = outcome.vector.as_deref()?;
            (outcome.decision == Decision::Review).then_some((pair, outcome, vector))
        })
        .collect();
    let batches = routed.chunks(ENQUEUE_BATCH).map(|chunk| {
        chunk
            .iter()
            .map(|&(pair, outcome, vector)| {
                queued_pair(batch, pair, model, vector, outcome.p_duplicate, cache)
            })
            .collect::<Result<Vec<_>>>()
    });
    let added = store.enqueue_batches(batches)?;
    Ok((routed.len(), added))
}

fn queued_pair(
    batch: &Batch,
    pair: &Pair,
    model: &Model,
    vector: &[f64],
    p_duplicate: f64,
    cache: Option<&RenderCache>,
) -> Result<QueuedPair> {
    let bodies = batch
        .documents
        .bodies(pair)
        .map_err(|e| anyhow::anyhow!("{}: {e}", pair.location()))?;
    let (fetched_a, fetched_b) = bodies.fetched;
    let (seen_a, seen_b) = bodies.rendered.unwrap_or(bodies.fetched);
    let headers = &batch
        .files
        .iter()
        .find(|f| f.path == pair.file)
        .expect("a pair comes from one of the batch's files")
        .headers;
    Ok(QueuedPair {
        url_a: pair.a.url.clone(),
        url_b: pair.b.url.clone(),
        a: stored_document(
            &pair.a.html,
            pair.a.rendered.as_deref(),
            fetched_a,
            seen_a,
            cache,
        )?,
        b: stored_document(
            &pair.b.html,
            pair.b.rendered.as_deref(),
            fetched_b,
            seen_b,
            cache,
        )?,
        query: pair.query.clone(),
        source: pair.location(),
        columns: headers
            .iter()
            .cloned()
            .zip(pair.fields.iter().cloned())
            .collect(),
        signal_names: model.signals.clone(),
        signals: vector.to_vec(),
        p_duplicate,
        model_id: model.id.clone(),
        explanation: model.explain(vector),
    })
}

/// One document: its bytes as read, its render as stored (pair file or cache).
fn stored_document(
    html: &Path,
    stored_render: Option<&Path>,
    fetched: &Document,
    seen: &Document,
    cache: Option<&RenderCache>,
) -> Result<StoredDocument> {
    let bytes = read_decompressed(html, MAX_BODY_BYTES as u64)
        .with_context(|| format!("cannot read {} for the review queue", html.display()))?;
    let cache_key = cache.map(|cache| cache.key(&fetched.body_hash));
    let cached = || -> Option<Vec<u8>> {
        let render = cache?.get(cache_key.as_deref()?)?;
        serde_json::to_vec(&StoredRender::Rendered(render)).ok()
    };
    let rendered = match stored_render {
        Some(path) => Some(stored_bytes(path)?),
        None => cached(),
    };
    let screenshot = cache
        .zip(cache_key.as_deref())
        .and_then(|(c, k)| c.screenshot(k));
    Ok(StoredDocument {
        hash: blake3::Hash::from(fetched.body_hash).to_hex().to_string(),
        fetched: bytes,
        rendered,
        screenshot,
        core_text: seen.core_text.clone(),
    })
}
