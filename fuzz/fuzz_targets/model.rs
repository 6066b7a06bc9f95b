//! Any text as a model file: an error, or a model that judges every vector of its
//! width (NaN and infinities too) to a confidence in [0, 1] and a finite spread.
#![no_main]

use libfuzzer_sys::fuzz_target;
use twinpage::model::Model;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(model) = Model::from_json(text) else {
        return;
    };
    let width = model.signals.len();
    let odd = [
        0.0,
        1.0,
        -1.0,
        1e300,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    let mut vectors: Vec<Vec<f64>> = odd.iter().map(|&v| vec![v; width]).collect();
    vectors.push((0..width).map(|i| odd[i % odd.len()]).collect());
    vectors.push(
        (0..width)
            .map(|i| f64::from(data[i % data.len()]) / 64.0)
            .collect(),
    );
    for x in vectors {
        let judgement = model.judge(&x);
        assert!(
            (0.0..=1.0).contains(&judgement.p_duplicate),
            "{judgement:?}"
        );
        assert!(
            judgement.spread.is_finite() && judgement.spread >= 0.0,
            "{judgement:?}"
        );
        model.decide(judgement);
        model.explain(&x);
    }
});
