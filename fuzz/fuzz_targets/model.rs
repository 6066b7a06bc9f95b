//! The model loader on arbitrary text: a model that judges in [0, 1], or an error.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    if let Ok(model) = twinpage::model::Model::from_json(text) {
        let p = model.judge(&vec![0.5; model.signals.len()]).p_duplicate;
        assert!((0.0..=1.0).contains(&p));
    }
});
