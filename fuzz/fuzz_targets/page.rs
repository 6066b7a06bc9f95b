//! The decoder and attribute extraction on arbitrary bytes, as a fetched body.
#![no_main]
use libfuzzer_sys::fuzz_target;
use twinpage::document::decode::decode_bytes;
use twinpage::document::{Document, IdfTable};

fuzz_target!(|bytes: &[u8]| {
    let body = decode_bytes(bytes, bytes.len(), false);
    let doc = Document::from_body(&body, IdfTable::shipped());
    assert!(doc.spam.top_word_share.is_finite());
});
