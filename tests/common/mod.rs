//! What the end-to-end test files share.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

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

/// The DBLP-ACM pairs of `training-data/er/valid.csv` as a pair file `NAME.csv` in `dir`
/// (absolute paths); with `relabel`, each page written once into `dir` with its venue
/// and year under labels the record reader does not know (`Série`, `Jahrgang`): papers
/// unlike those a model trained on the plain ones learnt from.
#[allow(dead_code)] // not every test file uses it
pub fn papers(dir: &Path, name: &str, relabel: bool) -> PathBuf {
    let er = Path::new(env!("CARGO_MANIFEST_DIR")).join("training-data/er");
    let mut reader = csv::Reader::from_path(er.join("valid.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let file = dir.join(format!("{name}.csv"));
    let mut w = csv::Writer::from_path(&file).unwrap();
    w.write_record(["url_a", "url_b", "html_a", "html_b", "label"])
        .unwrap();
    let mut written: BTreeMap<String, String> = BTreeMap::new();
    let mut page = |stored: &str| -> String {
        let path = er.join(stored);
        if !relabel {
            return path.display().to_string();
        }
        let count = written.len();
        written
            .entry(stored.to_string())
            .or_insert_with(|| {
                let mut html = String::new();
                flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
                    .read_to_string(&mut html)
                    .unwrap();
                let html = html
                    .replace(">Venue<", ">Série<")
                    .replace(">Year<", ">Jahrgang<");
                let out = dir.join(format!("{name}-{count}.html"));
                std::fs::write(&out, html).unwrap();
                out.display().to_string()
            })
            .clone()
    };
    for row in reader.records() {
        let row = row.unwrap();
        if &row[col("dataset")] != "Structured/DBLP-ACM" {
            continue;
        }
        let (a, b) = (page(&row[col("html_a")]), page(&row[col("html_b")]));
        w.write_record([
            &row[col("url_a")],
            &row[col("url_b")],
            &a,
            &b,
            &row[col("label")],
        ])
        .unwrap();
    }
    w.flush().unwrap();
    file
}
