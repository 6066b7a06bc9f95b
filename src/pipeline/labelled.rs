//! A batch's labelled pairs as training data: signal vectors, labels and the
//! content hashes of both documents, with a fingerprint of the whole.

use anyhow::{bail, Result};

use super::batch::Batch;
use super::score::vectors;
use crate::model::LabelledPairs;

/// The labelled pairs of the batch (signal vectors, labels, document hashes)
/// with the fingerprint of the data: the document hashes and labels, in order.
/// Unlabelled rows are an error; unreadable ones are left out.
pub fn labelled_pairs(batch: &Batch) -> Result<(LabelledPairs, String)> {
    let (set, _, fingerprint) = labelled_by(batch, None)?;
    Ok((set, fingerprint))
}

/// [`labelled_pairs`] with each kept pair's value of `column` (when one is named).
pub fn labelled_by(
    batch: &Batch,
    column: Option<&str>,
) -> Result<(LabelledPairs, Vec<String>, String)> {
    let values = column.map(|name| batch.column(name)).transpose()?;
    let vectors = vectors(batch);
    let mut out = LabelledPairs::default();
    let mut kept_values = Vec::new();
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
        if let Some(values) = &values {
            kept_values.push(values[i].clone());
        }
    }
    let fingerprint = fingerprint.finalize().to_hex().to_string();
    Ok((out, kept_values, fingerprint))
}
