//! The pair-file reader on arbitrary bytes: a pair file or an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pairs.csv");
    std::fs::write(&path, bytes).unwrap();
    let _ = twinpage::document::PairFile::read(&path);
});
