//! Pairs of records as the transformer reads them: `[CLS] a [SEP] b [SEP]`, each record
//! cut to its half of the tokens so that a long description cannot crowd out the other
//! record's name.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{anyhow, Result};
use candle_core::{Device, Tensor};

use crate::network::Batch;

pub struct PairEncoder {
    tokenizer: tokenizers::Tokenizer,
    /// Token ids of each record text, cut to its half: a text is tokenised once per
    /// run, not once per epoch.
    cut: HashMap<String, Vec<u32>>,
    half: usize,
    cls: u32,
    sep: u32,
}

impl PairEncoder {
    /// The package's `tokenizer.json`, pairs of at most `max_length` tokens.
    pub fn new(tokenizer: &Path, max_length: usize) -> Result<PairEncoder> {
        let mut tokenizer = tokenizers::Tokenizer::from_file(tokenizer)
            .map_err(|e| anyhow!("{}: {e}", tokenizer.display()))?;
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
            cut: HashMap::new(),
            half: max_length / 2 - 2,
            cls,
            sep,
        })
    }

    fn ids(&mut self, text: &str) -> Result<&[u32]> {
        if !self.cut.contains_key(text) {
            let encoding = self
                .tokenizer
                .encode(text, false)
                .map_err(|e| anyhow!("{e}"))?;
            let ids = encoding.get_ids();
            let ids = ids[..ids.len().min(self.half)].to_vec();
            self.cut.insert(text.to_string(), ids);
        }
        Ok(&self.cut[text])
    }

    /// The batch of these pairs, padded to the longest.
    pub fn batch(&mut self, pairs: &[&(String, String)]) -> Result<Batch> {
        let mut rows = Vec::with_capacity(pairs.len());
        for (a, b) in pairs {
            let mut ids = vec![self.cls];
            ids.extend(self.ids(a)?);
            ids.push(self.sep);
            let second = ids.len();
            ids.extend(self.ids(b)?);
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
