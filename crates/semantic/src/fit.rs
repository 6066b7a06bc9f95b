//! Fine-tuning: AdamW with weight decay 0.01, a linear warm-up over a tenth of the steps
//! then linear decay to 0, binary cross-entropy on the yes/no logit, as
//! `transformers`' trainer fits a sequence classifier (and as the Python experiment in
//! `lab/` did, whose figures the Rust one reproduces).

use anyhow::Result;
use candle_core::{Device, Tensor};
use candle_nn::{AdamW, Optimizer, ParamsAdamW, VarMap};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use twinpage_util::Progress;

use crate::encode::PairEncoder;
use crate::network::{Dropout, Network};
use crate::CrossEncoderParams;

/// Binary cross-entropy of logits z against labels y, stable for large |z|:
/// max(z, 0) - z y + log(1 + exp(-|z|)), averaged.
fn loss(z: &Tensor, y: &Tensor) -> Result<Tensor> {
    let tail = (z.abs()?.neg()?.exp()? + 1.0)?.log()?;
    Ok(((z.relu()? - (z * y)?)? + tail)?.mean_all()?)
}

/// Linear warm-up over the first tenth of the steps, then linear decay to 0.
fn learning_rate(peak: f64, step: usize, steps: usize) -> f64 {
    let warmup = steps / 10;
    let share = if step < warmup {
        step as f64 / warmup as f64
    } else {
        (steps - step) as f64 / (steps - warmup).max(1) as f64
    };
    peak * share
}

/// Fits `network` (whose weights are `vars`) on pairs of token ids; returns the mean
/// loss of each epoch.
pub fn fit(
    params: &CrossEncoderParams,
    network: &Network,
    vars: &VarMap,
    encoder: &PairEncoder,
    pairs: &[(&[u32], &[u32])],
    labels: &[bool],
) -> Result<Vec<f64>> {
    let adamw = ParamsAdamW {
        lr: 0.0,
        weight_decay: 0.01,
        ..Default::default()
    };
    let mut optimiser = AdamW::new(vars.all_vars(), adamw)?;
    let dropout = Dropout::new(params.seed);
    let steps = params.epochs * pairs.len().div_ceil(params.batch);
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    let progress = Progress::new(params.epochs * pairs.len(), "fine-tuning the cross-encoder");
    let (mut step, mut losses) = (0, Vec::with_capacity(params.epochs));
    for epoch in 0..params.epochs {
        order.shuffle(&mut ChaCha8Rng::seed_from_u64(params.seed + epoch as u64));
        let mut total = 0.0;
        for chunk in order.chunks(params.batch) {
            optimiser.set_learning_rate(learning_rate(params.learning_rate, step, steps));
            let rows: Vec<(&[u32], &[u32])> = chunk.iter().map(|&i| pairs[i]).collect();
            let y: Vec<f32> = chunk
                .iter()
                .map(|&i| f32::from(u8::from(labels[i])))
                .collect();
            let y = Tensor::new(y, &Device::Cpu)?;
            let loss = loss(
                &network.forward(&encoder.batch(&rows)?, Some(&dropout))?,
                &y,
            )?;
            optimiser.backward_step(&loss)?;
            total += f64::from(loss.to_scalar::<f32>()?) * chunk.len() as f64;
            step += 1;
            (0..chunk.len()).for_each(|_| progress.inc());
        }
        losses.push(total / pairs.len() as f64);
    }
    progress.finish();
    Ok(losses)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loss_is_binary_cross_entropy_even_for_large_logits() {
        let cpu = Device::Cpu;
        let z = Tensor::new(&[0.0f32, 2.0, -3.0, 80.0], &cpu).unwrap();
        let y = Tensor::new(&[1.0f32, 0.0, 0.0, 0.0], &cpu).unwrap();
        // ln 2, then softplus(z) = -ln(1 - sigmoid(z)) for the three negatives.
        let expected = (2f64.ln() + 2.126928 + 0.048587 + 80.0) / 4.0;
        let got = f64::from(loss(&z, &y).unwrap().to_scalar::<f32>().unwrap());
        assert!((got - expected).abs() < 1e-4, "{got} != {expected}");
    }

    #[test]
    fn the_learning_rate_warms_up_over_a_tenth_then_decays_to_zero() {
        assert_eq!(learning_rate(1.0, 0, 100), 0.0);
        assert_eq!(learning_rate(1.0, 5, 100), 0.5);
        assert_eq!(learning_rate(1.0, 10, 100), 1.0);
        assert!((learning_rate(1.0, 55, 100) - 0.5).abs() < 1e-12);
        assert!(learning_rate(1.0, 99, 100) < 0.02);
    }
}
