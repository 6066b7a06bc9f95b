//! The transformer all-MiniLM-L6-v2 (a 6-layer BERT, 384 wide) with a yes/no head, as
//! `transformers`' `BertForSequenceClassification` builds it: the pooler's tanh of the
//! first token's state, dropout, one linear unit. Written out with candle's primitives
//! rather than taken from `candle-transformers` because training needs what inference
//! leaves out: dropout, the pooler, and operations whose gradients candle implements
//! (its fused softmax and layer norm have none).

use std::cell::RefCell;

use anyhow::{Context, Result};
use candle_core::{DType, Device, Module, Tensor, D};
use candle_nn::{Embedding, Linear, VarBuilder, VarMap};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const HIDDEN: usize = 384;
const HEADS: usize = 12;
const HEAD: usize = HIDDEN / HEADS;
const LAYERS: usize = 6;
const INTERMEDIATE: usize = 1536;
const VOCABULARY: usize = 30522;
const POSITIONS: usize = 512;
const LAYER_NORM_EPS: f32 = 1e-12;
/// The dropout of the package's `config.json`, on hidden states and attention alike.
const DROPOUT: f32 = 0.1;

/// Dropout masks drawn from a seeded generator: candle's CPU device cannot be seeded,
/// and a run that cannot be repeated cannot be compared.
pub struct Dropout(RefCell<ChaCha8Rng>);

impl Dropout {
    pub fn new(seed: u64) -> Dropout {
        Dropout(RefCell::new(ChaCha8Rng::seed_from_u64(seed)))
    }

    fn apply(&self, x: &Tensor) -> Result<Tensor> {
        let mut rng = self.0.borrow_mut();
        let keep = 1.0 / (1.0 - DROPOUT);
        let mask: Vec<f32> = (0..x.elem_count())
            .map(|_| {
                if rng.random::<f32>() < DROPOUT {
                    0.0
                } else {
                    keep
                }
            })
            .collect();
        Ok((x * Tensor::from_vec(mask, x.shape(), x.device())?)?)
    }
}

/// Dropout when training (`Some`), nothing when scoring.
fn drop(x: Tensor, dropout: Option<&Dropout>) -> Result<Tensor> {
    match dropout {
        Some(d) => d.apply(&x),
        None => Ok(x),
    }
}

struct LayerNorm {
    weight: Tensor,
    bias: Tensor,
}

impl LayerNorm {
    fn new(vb: VarBuilder) -> Result<LayerNorm> {
        Ok(LayerNorm {
            weight: vb.get(HIDDEN, "weight")?,
            bias: vb.get(HIDDEN, "bias")?,
        })
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        Ok(candle_nn::ops::layer_norm_slow(
            x,
            &self.weight,
            &self.bias,
            LAYER_NORM_EPS,
        )?)
    }
}

fn softmax(x: &Tensor) -> Result<Tensor> {
    let max = x.max_keepdim(D::Minus1)?.detach();
    let e = x.broadcast_sub(&max)?.exp()?;
    Ok(e.broadcast_div(&e.sum_keepdim(D::Minus1)?)?)
}

struct EncoderLayer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    out: Linear,
    out_norm: LayerNorm,
}

impl EncoderLayer {
    fn new(vb: VarBuilder) -> Result<EncoderLayer> {
        let attention = vb.pp("attention");
        let linear = |inp, out, vb| candle_nn::linear(inp, out, vb);
        Ok(EncoderLayer {
            query: linear(HIDDEN, HIDDEN, attention.pp("self.query"))?,
            key: linear(HIDDEN, HIDDEN, attention.pp("self.key"))?,
            value: linear(HIDDEN, HIDDEN, attention.pp("self.value"))?,
            attention_out: linear(HIDDEN, HIDDEN, attention.pp("output.dense"))?,
            attention_norm: LayerNorm::new(attention.pp("output.LayerNorm"))?,
            intermediate: linear(HIDDEN, INTERMEDIATE, vb.pp("intermediate.dense"))?,
            out: linear(INTERMEDIATE, HIDDEN, vb.pp("output.dense"))?,
            out_norm: LayerNorm::new(vb.pp("output.LayerNorm"))?,
        })
    }

    /// [B, L, HIDDEN] -> [B, HEADS, L, HEAD].
    fn heads(projection: &Linear, x: &Tensor) -> Result<Tensor> {
        let (b, l, _) = x.dims3()?;
        let y = projection.forward(x)?.reshape((b, l, HEADS, HEAD))?;
        Ok(y.transpose(1, 2)?.contiguous()?)
    }

    fn forward(&self, x: &Tensor, mask: &Tensor, dropout: Option<&Dropout>) -> Result<Tensor> {
        let (b, l, _) = x.dims3()?;
        let q = Self::heads(&self.query, x)?;
        let k = Self::heads(&self.key, x)?.t()?.contiguous()?;
        let v = Self::heads(&self.value, x)?;
        let scores = (q.matmul(&k)? / (HEAD as f64).sqrt())?.broadcast_add(mask)?;
        let attention = drop(softmax(&scores)?, dropout)?;
        let context = attention
            .matmul(&v)?
            .transpose(1, 2)?
            .reshape((b, l, HIDDEN))?;
        let attended = drop(self.attention_out.forward(&context)?, dropout)?;
        let h = self.attention_norm.forward(&(attended + x)?)?;
        let inner = self.intermediate.forward(&h)?.gelu_erf()?;
        let out = drop(self.out.forward(&inner)?, dropout)?;
        self.out_norm.forward(&(out + h)?)
    }
}

/// A batch of pairs as token ids: `[CLS] a [SEP] b [SEP]`, padded; each [B, L].
pub struct Batch {
    pub ids: Tensor,
    pub segments: Tensor,
    pub attended: Tensor,
}

pub struct Network {
    words: Embedding,
    positions: Embedding,
    segments: Embedding,
    embedding_norm: LayerNorm,
    layers: Vec<EncoderLayer>,
    pooler: Linear,
    head: Linear,
}

impl Network {
    /// The network with the weights of `weights`, the bytes of the file `file` (the
    /// package's `model.safetensors`, or a fine-tuned one); a head the file does not
    /// have (the package's) drawn from `seed` (uniform, deviation 0.02, as
    /// `transformers` initialises it). Every weight is a variable of `vars`.
    pub fn load(
        weights: &[u8],
        file: &std::path::Path,
        vars: &VarMap,
        seed: u64,
    ) -> Result<Network> {
        let device = Device::Cpu;
        let vb = VarBuilder::from_varmap(vars, DType::F32, &device);
        let e = vb.pp("embeddings");
        let network = Network {
            words: candle_nn::embedding(VOCABULARY, HIDDEN, e.pp("word_embeddings"))?,
            positions: candle_nn::embedding(POSITIONS, HIDDEN, e.pp("position_embeddings"))?,
            segments: candle_nn::embedding(2, HIDDEN, e.pp("token_type_embeddings"))?,
            embedding_norm: LayerNorm::new(e.pp("LayerNorm"))?,
            layers: (0..LAYERS)
                .map(|i| EncoderLayer::new(vb.pp(format!("encoder.layer.{i}"))))
                .collect::<Result<_>>()?,
            pooler: candle_nn::linear(HIDDEN, HIDDEN, vb.pp("pooler.dense"))?,
            head: candle_nn::linear(HIDDEN, 1, vb.pp("classifier"))?,
        };
        let shipped = candle_core::safetensors::load_buffer(weights, &device)
            .with_context(|| format!("weights {}", file.display()))?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for (name, var) in vars.data().lock().expect("weights").iter() {
            match shipped.get(name) {
                Some(w) => var.set(w)?,
                None if name == "classifier.weight" => {
                    let spread = 0.02 * 3f32.sqrt();
                    let w: Vec<f32> = (0..HIDDEN)
                        .map(|_| rng.random_range(-spread..spread))
                        .collect();
                    var.set(&Tensor::from_vec(w, (1, HIDDEN), &device)?)?
                }
                None if name == "classifier.bias" => {
                    var.set(&Tensor::zeros(1, DType::F32, &device)?)?
                }
                None => anyhow::bail!("{} has no {name}", file.display()),
            }
        }
        Ok(network)
    }

    /// One logit per pair: [B].
    pub fn forward(&self, batch: &Batch, dropout: Option<&Dropout>) -> Result<Tensor> {
        let (_, l) = batch.ids.dims2()?;
        let places = Tensor::arange(0u32, l as u32, &Device::Cpu)?;
        let x = self
            .words
            .forward(&batch.ids)?
            .broadcast_add(&self.positions.forward(&places)?)?;
        let x = (x + self.segments.forward(&batch.segments)?)?;
        let mut h = drop(self.embedding_norm.forward(&x)?, dropout)?;
        // 0 where a token is attended, -10,000 on padding: [B, 1, 1, L].
        let mask = ((batch.attended.to_dtype(DType::F32)? - 1.0)? * 10_000.0)?;
        let mask = mask.unsqueeze(1)?.unsqueeze(1)?;
        for layer in &self.layers {
            h = layer.forward(&h, &mask, dropout)?;
        }
        let first = h.narrow(1, 0, 1)?.squeeze(1)?;
        let pooled = drop(self.pooler.forward(&first)?.tanh()?, dropout)?;
        Ok(self.head.forward(&pooled)?.squeeze(1)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropout_drops_a_tenth_keeps_the_mean_and_repeats_with_its_seed() {
        let x = Tensor::ones(100_000, DType::F32, &Device::Cpu).unwrap();
        let dropped = Dropout::new(3).apply(&x).unwrap().to_vec1::<f32>().unwrap();
        let zeros = dropped.iter().filter(|&&v| v == 0.0).count() as f64 / 1e5;
        let mean = dropped.iter().map(|&v| f64::from(v)).sum::<f64>() / 1e5;
        assert!((zeros - 0.1).abs() < 0.005, "{zeros}");
        assert!((mean - 1.0).abs() < 0.01, "{mean}");
        let again = Dropout::new(3).apply(&x).unwrap().to_vec1::<f32>().unwrap();
        assert_eq!(dropped, again);
        let other = Dropout::new(4).apply(&x).unwrap().to_vec1::<f32>().unwrap();
        assert_ne!(dropped, other);
    }
}
