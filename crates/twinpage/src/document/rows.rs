//! CSV files read row by row, each row with the line of the file it starts on.
//!
//! Every table twinpage reads (pair files, corpus files, label files, scored
//! files) names a bad row by `file:line`, and that line must be the one an editor
//! shows. The csv crate's own line count is the line where it *began* reading a
//! record, which is one line early after a CRLF line end (it stops at the `\r` and
//! reads the `\n` with the next record) and after blank lines it skips. So the line
//! is worked out here from the record's byte offset: count the line breaks before
//! it, then step over the line breaks the reader had not consumed yet.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};

/// One data row and the file line its first field is on (1-based; the header is
/// usually line 1).
#[derive(Debug, Clone)]
pub struct Row {
    pub line: u64,
    pub fields: csv::StringRecord,
}

/// A row that could not be used (a pair whose document is unreadable, say), and why.
#[derive(Debug, Clone)]
pub struct Skipped {
    /// `file:line` of the row.
    pub location: String,
    pub reason: String,
}

/// A CSV file with a header row, read one row at a time.
pub struct RowReader {
    path: PathBuf,
    csv: csv::Reader<File>,
    lines: LineCounter,
    headers: Vec<String>,
}

impl RowReader {
    /// Opens `path` and reads its header (a UTF-8 byte-order mark and spaces
    /// around names are dropped). Rows must all have as many fields as the header.
    pub fn open(path: &Path) -> Result<RowReader> {
        let mut csv = csv::ReaderBuilder::new()
            .flexible(false)
            .from_path(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        let headers = csv
            .headers()
            .with_context(|| format!("{}: cannot read the header row", path.display()))?
            .iter()
            .map(|h| h.trim_start_matches('\u{feff}').trim().to_string())
            .collect();
        Ok(RowReader {
            path: path.to_path_buf(),
            csv,
            lines: LineCounter::open(path)?,
            headers,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn headers(&self) -> &[String] {
        &self.headers
    }

    /// Position of the column `name`, if the header has it.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.headers.iter().position(|h| h == name)
    }

    /// Position of the column `name`, or an error that shows the header and says
    /// what a file of this kind needs (`needs`, e.g. "a docs file needs url,html").
    pub fn require(&self, name: &str, needs: &str) -> Result<usize> {
        self.column(name).with_context(|| {
            format!(
                "{}: missing column `{name}` (header is `{}`; {needs})",
                self.path.display(),
                self.headers.join(",")
            )
        })
    }

    /// `file:line`, the way errors name a row.
    pub fn at(&self, line: u64) -> String {
        format!("{}:{line}", self.path.display())
    }

    /// A reading error as `file:line: what`, at the line of the row it concerns.
    fn error(&mut self, e: csv::Error) -> anyhow::Error {
        let line = match e.position() {
            Some(position) => self.lines.line_at(position.byte()),
            None => 0,
        };
        let at = self.at(line);
        match e.kind() {
            csv::ErrorKind::UnequalLengths {
                expected_len, len, ..
            } => anyhow!("{at}: row has {len} fields but the header has {expected_len}"),
            csv::ErrorKind::Utf8 { err, .. } => {
                anyhow!("{at}: column {}: not valid UTF-8", err.field() + 1)
            }
            _ => anyhow!("{at}: {e}"),
        }
    }
}

impl Iterator for RowReader {
    type Item = Result<Row>;

    fn next(&mut self) -> Option<Result<Row>> {
        let mut fields = csv::StringRecord::new();
        match self.csv.read_record(&mut fields) {
            Ok(false) => None,
            Err(e) => Some(Err(self.error(e))),
            Ok(true) => {
                let byte = fields.position().map_or(0, csv::Position::byte);
                let line = self.lines.line_at(byte);
                Some(Ok(Row { line, fields }))
            }
        }
    }
}

/// Line numbers of byte offsets in a file, asked in increasing order: a second,
/// buffered pass over the file that keeps one step behind the CSV reader.
struct LineCounter {
    file: BufReader<File>,
    /// Offset of the next byte `file` yields, and the line it is on.
    offset: u64,
    line: u64,
    /// The last byte read was `\r` (a `\n` right after it ends no new line).
    after_cr: bool,
}

impl LineCounter {
    fn open(path: &Path) -> Result<LineCounter> {
        let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        Ok(LineCounter {
            file: BufReader::new(file),
            offset: 0,
            line: 1,
            after_cr: false,
        })
    }

    /// The line of the first byte at or after `offset` that is not a line break:
    /// where the row that the CSV reader began reading at `offset` really starts.
    fn line_at(&mut self, offset: u64) -> u64 {
        while self.offset < offset {
            if self.step(|_| true).is_none() {
                break;
            }
        }
        while self.step(|b| b == b'\r' || b == b'\n').is_some() {}
        self.line
    }

    /// Consumes the next byte if `take` accepts it, counting line breaks (`\n`,
    /// `\r\n` and a lone `\r`, as the CSV reader does). None at the end of the file,
    /// on a read error, or when `take` refuses the byte.
    fn step(&mut self, take: impl Fn(u8) -> bool) -> Option<u8> {
        let byte = *self.file.fill_buf().ok()?.first()?;
        if !take(byte) {
            return None;
        }
        self.file.consume(1);
        self.offset += 1;
        match byte {
            b'\r' => self.line += 1,
            b'\n' if !self.after_cr => self.line += 1,
            _ => {}
        }
        self.after_cr = byte == b'\r';
        Some(byte)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(text: &str) -> Vec<Result<u64, String>> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        std::fs::write(&path, text).unwrap();
        RowReader::open(&path)
            .unwrap()
            .map(|row| row.map(|r| r.line).map_err(|e| e.to_string()))
            .collect()
    }

    #[test]
    fn lines_are_the_files_own_with_any_line_end() {
        for end in ["\n", "\r\n", "\r"] {
            let text = ["h1,h2", "a,b", "c,d", "e,f", ""].join(end);
            let lines: Vec<u64> = lines_of(&text).into_iter().map(Result::unwrap).collect();
            assert_eq!(lines, [2, 3, 4], "line end {end:?}");
        }
    }

    #[test]
    fn blank_lines_and_quoted_line_breaks_are_counted() {
        let lines = lines_of("h1,h2\n\na,b\r\n\r\n\"multi\nline\",x\ny,z\n");
        let lines: Vec<u64> = lines.into_iter().map(Result::unwrap).collect();
        assert_eq!(lines, [3, 5, 7]);
    }

    #[test]
    fn errors_name_the_line_of_the_bad_row() {
        for end in ["\n", "\r\n"] {
            let text = ["h1,h2", "a,b", "c", ""].join(end);
            let rows = lines_of(&text);
            let e = rows[1].as_ref().unwrap_err();
            assert!(
                e.ends_with("t.csv:3: row has 1 fields but the header has 2"),
                "{e}"
            );
        }
    }

    #[test]
    fn header_is_trimmed_and_loses_its_byte_order_mark() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        std::fs::write(&path, "\u{feff}url , html\nu,h\n").unwrap();
        let reader = RowReader::open(&path).unwrap();
        assert_eq!(reader.headers(), ["url", "html"]);
        assert_eq!(reader.column("html"), Some(1));
        let e = reader.require("label", "a file needs a label").unwrap_err();
        assert!(e.to_string().contains("missing column `label`"), "{e}");
    }
}
