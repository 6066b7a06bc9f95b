//! Property tests of the entry points that read what users and the web hand us: the
//! pair-file reader, the HTML decoder with attribute extraction, and the model loader.
//! Random and mutated inputs must give a result or an error, never a panic, and the
//! results must keep their promises (errors name file and line, attributes finite,
//! confidences in [0, 1]). Case counts are kept small so `cargo test` stays quick;
//! `scripts/fuzz.sh` runs the same entry points for as long as one likes.

use std::path::Path;

use proptest::prelude::*;
use twinpage::document::decode::decode_bytes;
use twinpage::document::{Document, IdfTable, PairFile};
use twinpage::model::Model;

/// A valid pair file's lines, to mutate.
const PAIR_FILE: &str = "id,url_a,url_b,html_a,html_b,label\n\
    1,https://a.example/x,https://b.example/x,a.html,b.html,1\n\
    2,https://a.example/y,https://b.example/y,a.html,b.html,0\n";

/// Replaces the byte at each position by the paired byte (positions taken modulo
/// the length): a mutated copy of `base`.
fn mutated(base: &[u8], edits: &[(usize, u8)]) -> Vec<u8> {
    let mut bytes = base.to_vec();
    for &(at, byte) in edits {
        if !bytes.is_empty() {
            let at = at % bytes.len();
            bytes[at] = byte;
        }
    }
    bytes
}

fn a_page() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("training-data/er/docs");
    let first = std::fs::read_dir(&path)
        .expect("the shipped entity-matching documents")
        .flatten()
        .map(|e| e.path())
        .min()
        .expect("one document");
    twinpage::util::body::read_decompressed(&first, 1 << 20).expect("a readable page")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn a_mutated_pair_file_reads_or_names_its_line(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..6),
        tail in proptest::collection::vec(any::<u8>(), 0..40),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pairs.csv");
        let mut bytes = mutated(PAIR_FILE.as_bytes(), &edits);
        bytes.extend(tail);
        std::fs::write(&path, &bytes).unwrap();
        match PairFile::read(&path) {
            Ok(file) => prop_assert!(file.pairs.len() <= 4),
            Err(e) => {
                let message = format!("{e:#}");
                prop_assert!(message.contains("pairs.csv"), "{}", message);
            }
        }
    }

    #[test]
    fn any_bytes_decode_to_finite_attributes(
        bytes in proptest::collection::vec(any::<u8>(), 0..4096),
    ) {
        let body = decode_bytes(&bytes, bytes.len(), false);
        let doc = Document::from_body(&body, IdfTable::shipped());
        prop_assert!(doc.spam.top_word_share.is_finite() && doc.spam.hidden_text_share.is_finite());
        prop_assert!(doc.core_words.len() <= doc.visible_words.len() + bytes.len());
    }

    #[test]
    fn a_mutated_page_decodes_to_finite_attributes(
        edits in proptest::collection::vec((any::<usize>(), prop::sample::select(b"<>\"'=/ &;\0\xff\xfe".to_vec())), 0..64),
    ) {
        let bytes = mutated(&a_page(), &edits);
        let body = decode_bytes(&bytes, bytes.len(), false);
        let doc = Document::from_body(&body, IdfTable::shipped());
        prop_assert!(doc.spam.top_word_share.is_finite());
        prop_assert!(doc.top_terms.iter().all(|(_, w)| w.is_finite()));
    }

    #[test]
    fn a_mutated_model_loads_and_judges_in_range_or_is_refused(
        edits in proptest::collection::vec((any::<usize>(), prop::sample::select(b"0123456789.-e,:[]{}\"".to_vec())), 1..4),
        x in proptest::collection::vec(-2.0f64..2.0, 1..2),
    ) {
        let text = include_str!("../models/fetched-only.json");
        let bytes = mutated(text.as_bytes(), &edits);
        let Ok(text) = String::from_utf8(bytes) else { return Ok(()) };
        if let Ok(model) = Model::from_json(&text) {
            let vector = vec![x[0]; model.signals.len()];
            let p = model.judge(&vector).p_duplicate;
            prop_assert!((0.0..=1.0).contains(&p), "p_duplicate {}", p);
        }
    }
}
