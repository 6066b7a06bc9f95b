//! The shipped model on pairs it was never trained on: the test split of the
//! generated web pairs and the valid split of the entity-matching pairs.
//!
//! The floors are a little under the figures measured when the model was
//! shipped (see README, "Quality"), so a change that makes the model worse fails
//! here rather than in someone's crawl.

use std::path::Path;

use twinpage::batch::{self, Batch};
use twinpage::model::{Confusion, Metrics, Model};

fn evaluate(pairs: &str) -> Metrics {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = Model::load(&root.join("models/default.json")).unwrap();
    let batch = Batch::load(&[root.join(pairs)]).unwrap();
    assert!(batch.unreadable(false).unwrap().is_empty());
    let mut confusion = Confusion::default();
    for (pair, outcome) in batch.pairs().zip(batch::score(&batch, &model)) {
        let o = outcome.unwrap();
        confusion.add(pair.label.unwrap(), o.p_duplicate, o.decision);
    }
    confusion.metrics()
}

#[test]
fn shipped_model_on_the_web_test_split() {
    let m = evaluate("training-data/web/test.csv");
    eprintln!("web test split:\n{}", m.report());
    assert!(m.pairs > 500);
    assert!(m.f1 >= WEB_F1_FLOOR, "F1 {} below {WEB_F1_FLOOR}", m.f1);
    assert!(
        m.duplicate_decision_precision >= 0.95,
        "{}",
        m.duplicate_decision_precision
    );
}

#[test]
fn shipped_model_on_the_entity_matching_valid_split() {
    let m = evaluate("training-data/er/valid.csv");
    eprintln!("entity-matching valid split:\n{}", m.report());
    assert!(m.pairs > 1000);
    assert!(m.f1 >= ER_F1_FLOOR, "F1 {} below {ER_F1_FLOOR}", m.f1);
}

const WEB_F1_FLOOR: f64 = 0.95;
const ER_F1_FLOOR: f64 = 0.62;
