//! The pair-file reader on any bytes: it reads a file or says which file (and
//! which line, when a row is at fault) to fix; it never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use twinpage::document::PairFile;

mod scratch;

fuzz_target!(|data: &[u8]| {
    let path = scratch::file("pairs.csv", data);
    let lines = line_count(data);
    match PairFile::read(&path) {
        Ok(file) => {
            for pair in &file.pairs {
                assert_eq!(pair.fields.len(), file.headers.len());
                assert!(
                    (2..=lines).contains(&pair.line),
                    "line {} of {lines}",
                    pair.line
                );
            }
        }
        Err(e) => {
            let message = format!("{e:#}");
            let named = path.display().to_string();
            assert!(message.contains(&named), "{message}");
            if let Some(line) = line_named(&message, &named) {
                assert!(
                    (1..=lines).contains(&line),
                    "{message} (file has {lines} lines)"
                );
            }
        }
    }
});

/// Lines of a text as an editor shows them: `\r\n`, `\n` and a lone `\r` (which
/// the CSV reader takes as a line end too) each end one.
fn line_count(bytes: &[u8]) -> u64 {
    let lone_cr = bytes
        .windows(2)
        .filter(|w| w[0] == b'\r' && w[1] != b'\n')
        .count()
        + usize::from(bytes.last() == Some(&b'\r'));
    (bytes.iter().filter(|&&b| b == b'\n').count() + lone_cr) as u64 + 1
}

/// The line in a message's `file:line`, if it names one.
fn line_named(message: &str, file: &str) -> Option<u64> {
    let after = &message[message.find(file)? + file.len()..];
    let digits: String = after
        .strip_prefix(':')?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}
