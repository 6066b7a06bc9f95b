//! What the end-to-end test files share.

use std::path::Path;

use assert_cmd::Command;

/// The binary, run from the repository, with its render cache under the test
/// target folder (never the user's).
pub fn twinpage() -> Command {
    let mut cmd = Command::cargo_bin("twinpage").unwrap();
    cmd.current_dir(env!("CARGO_MANIFEST_DIR")).env(
        "XDG_CACHE_HOME",
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("cache"),
    );
    cmd
}

/// A copy of the first `rows` rows of a pair file, with absolute document paths
/// and CRLF line ends.
#[allow(dead_code)] // not every test file uses it
pub fn pair_file_head(source: &str, rows: usize, out: &Path) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(source);
    let folder = source.parent().unwrap().to_path_buf();
    let mut reader = csv::Reader::from_path(&source).unwrap();
    let headers = reader.headers().unwrap().clone();
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_path(out)
        .unwrap();
    writer.write_record(&headers).unwrap();
    for record in reader.records().take(rows) {
        let record = record.unwrap();
        let fields: Vec<String> = headers
            .iter()
            .zip(record.iter())
            .map(|(h, v)| match h {
                "html_a" | "html_b" | "rendered_a" | "rendered_b" if !v.is_empty() => {
                    folder.join(v).display().to_string()
                }
                _ => v.to_string(),
            })
            .collect();
        writer.write_record(&fields).unwrap();
    }
    writer.flush().unwrap();
}

/// A pair of URLs (or paths) as one key, whichever side each was written on.
#[allow(dead_code)] // not every test file uses it
pub fn in_order(a: String, b: String) -> (String, String) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}
