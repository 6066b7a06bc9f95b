//! A page's bytes through the decoder (gzip, charsets, binary, deep nesting) and
//! the attributes of its parse: no panic, every share finite and in [0, 1].
#![no_main]

use libfuzzer_sys::fuzz_target;
use twinpage::document::attributes::page_text;
use twinpage::document::decode::read_body;
use twinpage::document::{Document, IdfTable};

mod scratch;

fuzz_target!(|data: &[u8]| {
    let path = scratch::file("page.html", data);
    let body = match read_body(&path) {
        Ok(body) => body,
        Err(e) => {
            // Only a corrupt gzip stream fails, and the error names the file.
            let message = format!("{e:#}");
            assert!(message.contains(&path.display().to_string()), "{message}");
            return;
        }
    };
    let doc = Document::from_body(&body, IdfTable::shipped());
    for share in [doc.spam.top_word_share, doc.spam.hidden_text_share] {
        assert!((0.0..=1.0).contains(&share), "share {share}");
    }
    assert!(doc.top_terms.iter().all(|&(_, w)| w.is_finite()));
    assert!(doc.core_text.is_empty() || !doc.visible_text.trim().is_empty());
    page_text(&body, true);
    page_text(&body, false);
});
