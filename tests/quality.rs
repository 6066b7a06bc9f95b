//! The shipped model on pairs it was never trained on: the test split of the
//! generated web pairs and the valid split of the entity-matching pairs.
//!
//! The floors are a little under the figures measured when the model was
//! shipped (see lab/RESULTS.md), so a change that makes the model worse fails
//! here rather than in someone's crawl.

use std::path::Path;

use std::collections::BTreeMap;

use twinpage::model::{Confusion, Metrics, Model};
use twinpage::pipeline::{self, Batch};
use twinpage::render::{RenderOptions, RenderSettings};
use twinpage::signals::Layout;

/// A model's figures on a pair file, overall and by `kind`. The pair files carry
/// their stored renders, so no browser runs here.
fn evaluate_model(model: &str, pairs: &str) -> (Metrics, BTreeMap<String, Metrics>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = Model::load(&root.join(model)).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let rendering = (model.layout() == Layout::FetchedAndRendered).then(|| RenderSettings {
        cache: cache.path().to_path_buf(),
        options: RenderOptions::default(),
        retry_failed: false,
        replays: Default::default(),
    });
    let batch = Batch::load(&[root.join(pairs)], rendering.as_ref()).unwrap();
    assert!(batch.unreadable().is_empty());
    assert_eq!(
        batch.documents.render_report.rendered, 0,
        "renders are stored"
    );
    let kind = batch.files[0].headers.iter().position(|h| h == "kind");
    let mut overall = Confusion::default();
    let mut by_kind: BTreeMap<String, Confusion> = BTreeMap::new();
    for (pair, outcome) in batch.pairs().zip(pipeline::score(&batch, &model)) {
        let o = outcome.unwrap();
        let label = pair.label.unwrap();
        overall.add(label, o.p_duplicate, o.f1_cut, o.decision);
        if let Some(k) = kind {
            let group = by_kind.entry(pair.fields[k].clone()).or_default();
            group.add(label, o.p_duplicate, o.f1_cut, o.decision);
        }
    }
    let by_kind = by_kind.into_iter().map(|(k, c)| (k, c.metrics())).collect();
    (overall.metrics(), by_kind)
}

fn evaluate(pairs: &str) -> Metrics {
    evaluate_model("models/default.json", pairs).0
}

#[test]
fn shipped_model_on_the_web_test_split() {
    let m = evaluate("training-data/web/test.csv");
    eprintln!("web test split:\n{}", m.report());
    assert!(m.pairs > 500);
    assert!(m.f1 >= WEB_F1_FLOOR, "F1 {} below {WEB_F1_FLOOR}", m.f1);
    // The decision policy's promise (lab/RESULTS.md, "The decision policy"), and issue
    // 41's bar for this split: at most 3 % to review (2.1 % when shipped, 2026-12-02)
    // and no automatic decision wrong either way.
    assert!(m.review_share <= 0.03, "review share {}", m.review_share);
    for precision in [
        m.duplicate_decision_precision,
        m.distinct_decision_precision,
    ] {
        assert!(precision >= 0.99, "decision precision {precision}");
    }
}

#[test]
fn shipped_model_on_the_entity_matching_valid_split() {
    let m = evaluate("training-data/er/valid.csv");
    eprintln!("entity-matching valid split:\n{}", m.report());
    assert!(m.pairs > 1000);
    assert!(m.f1 >= ER_F1_FLOOR, "F1 {} below {ER_F1_FLOOR}", m.f1);
}

/// Share of pairs decided automatically and rightly: what a model saves its users
/// (a pair sent to review is not wrong, but someone has to look at it).
fn decided_right(m: &Metrics) -> f64 {
    let c = &m.confusion;
    (c.duplicate_as_duplicate + c.distinct_as_distinct) as f64 / m.pairs as f64
}

/// Rendered bodies are what fixes pages whose content arrives by script: there the
/// shipped model must decide more pairs rightly than the fetched-only one, and on the
/// other kinds taken together it must not lose more than noise.
#[test]
fn rendering_wins_where_the_truth_depends_on_scripts() {
    let web = "training-data/web/test.csv";
    let (_, rendered) = evaluate_model("models/default.json", web);
    let (_, fetched) = evaluate_model("models/fetched-only.json", web);
    let script_kinds = ["client-rendered", "app-shell"];
    for kind in script_kinds {
        let (r, f) = (
            decided_right(&rendered[kind]),
            decided_right(&fetched[kind]),
        );
        eprintln!("{kind}: decided right: rendered {r:.3}, fetched-only {f:.3}");
        assert!(rendered[kind].pairs >= 30);
        assert!(r > f, "{kind}: {r} vs {f}");
    }
    // Other kinds, taken together: classification at p >= 0.5 must not lose more
    // than 1 % of the pairs. (Measured when shipped: a near tie, 7 pairs won and 8
    // lost; the rendered model sends a few more of them to review.)
    let others = |by_kind: &BTreeMap<String, Metrics>| -> (usize, usize) {
        by_kind
            .iter()
            .filter(|(kind, _)| !script_kinds.contains(&kind.as_str()))
            .map(|(_, m)| (m.confusion.tp + m.confusion.tn, m.pairs))
            .fold((0, 0), |(right, all), (r, a)| (right + r, all + a))
    };
    let ((r, all), (f, _)) = (others(&rendered), others(&fetched));
    eprintln!("other kinds: right at p >= 0.5: rendered {r}, fetched-only {f}, of {all}");
    assert!(r + all / 100 >= f, "{r} vs {f} of {all}");
}

const WEB_F1_FLOOR: f64 = 0.95;
const ER_F1_FLOOR: f64 = 0.62;
