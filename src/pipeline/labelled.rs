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
    let vectors = vectors(batch);
    let mut out = LabelledPairs::default();
    let mut fingerprint = blake3::Hasher::new();
    for (pair, vector) in batch.pairs().zip(vectors) {
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
    }
    Ok((out, fingerprint.finalize().to_hex().to_string()))
}
