//! Pairs of records as the transformer reads them: `[CLS] a [SEP] b [SEP]`, each record
//! cut to its half of the tokens so that a long description cannot crowd out the other
//! record's name.

use std::path::Path;

use anyhow::{anyhow, Result};
use candle_core::{Device, Tensor};

use crate::network::Batch;

pub struct PairEncoder {
    tokenizer: tokenizers::Tokenizer,
    half: usize,
    cls: u32,
    sep: u32,
}

impl PairEncoder {
    /// The package's `tokenizer.json`, pairs of at most `max_length` tokens.
    pub fn new(tokenizer: &Path, max_length: usize) -> Result<PairEncoder> {
        let mut tokenizer = tokenizers::Tokenizer::from_file(tokenizer)
            .map_err(|e| anyhow!("tokenizer {}: {e}", tokenizer.display()))?;
        tokenizer
            .with_truncation(None)
            .map_err(|e| anyhow!("{e}"))?;
        tokenizer.with_padding(None);
        let id = |t: &str| {
            tokenizer
                .token_to_id(t)
                .ok_or_else(|| anyhow!("the tokenizer has no {t}"))
        };
        let (cls, sep) = (id("[CLS]")?, id("[SEP]")?);
        Ok(PairEncoder {
            tokenizer,
            half: max_length / 2 - 2,
            cls,
            sep,
        })
    }

    /// The token ids of a record text, cut to its half of a pair.
    pub fn ids(&self, text: &str) -> Result<Vec<u32>> {
        let encoding = self
            .tokenizer
            .encode(text, false)
            .map_err(|e| anyhow!("{e}"))?;
        let ids = encoding.get_ids();
        Ok(ids[..ids.len().min(self.half)].to_vec())
    }

    /// The batch of these pairs of token ids ([`PairEncoder::ids`]), padded to the longest.
    pub fn batch(&self, pairs: &[(&[u32], &[u32])]) -> Result<Batch> {
        let mut rows = Vec::with_capacity(pairs.len());
        for (a, b) in pairs {
            let mut ids = vec![self.cls];
            ids.extend_from_slice(a);
            ids.push(self.sep);
            let second = ids.len();
            ids.extend_from_slice(b);
            ids.push(self.sep);
            rows.push((ids, second));
        }
        let width = rows.iter().map(|(ids, _)| ids.len()).max().unwrap_or(1);
        let (mut ids, mut segments, mut attended) = (vec![], vec![], vec![]);
        for (row, second) in &rows {
            for j in 0..width {
                ids.push(row.get(j).copied().unwrap_or(0));
                segments.push(u32::from(j >= *second && j < row.len()));
                attended.push(u32::from(j < row.len()));
            }
        }
        let shape = (rows.len(), width);
        let tensor = |v: Vec<u32>| Tensor::from_vec(v, shape, &Device::Cpu);
        Ok(Batch {
            ids: tensor(ids)?,
            segments: tensor(segments)?,
            attended: tensor(attended)?,
        })
    }
}
