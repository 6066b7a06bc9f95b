//! The pair file: the contract every command reads.
//!
//! A CSV with a header row. Required columns `url_a,url_b,html_a,html_b`; optional
//! `rendered_a,rendered_b`, `query`, `label`, `stage`, and per-document metadata
//! `clicks_a,clicks_b,inlinks_a,inlinks_b,spam_a,spam_b`. Every other column is
//! kept as it is and written back to outputs. Document paths are relative to the
//! CSV's folder unless absolute.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::rows::RowReader;
use twinpage_util::write_atomically;

/// Columns a pair file must have.
pub const REQUIRED_COLUMNS: [&str; 4] = ["url_a", "url_b", "html_a", "html_b"];

/// Columns that name a pair's documents: the required ones and the stored renders.
pub const DOCUMENT_COLUMNS: [&str; 6] = [
    REQUIRED_COLUMNS[0],
    REQUIRED_COLUMNS[1],
    REQUIRED_COLUMNS[2],
    REQUIRED_COLUMNS[3],
    "rendered_a",
    "rendered_b",
];

/// The column by which a pair file asks the cascade for a stage.
pub const STAGE: &str = "stage";
/// The value of [`STAGE`] that asks for the rendered stage.
pub const RENDERED_STAGE: &str = "rendered";

/// Per-document metadata a pair file may carry (clicks, inbound links, a spam flag).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Metadata {
    pub clicks: Option<f64>,
    pub inlinks: Option<f64>,
    pub spam: Option<f64>,
}

/// One side of a pair as the pair file names it.
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    pub url: String,
    pub html: PathBuf,
    pub rendered: Option<PathBuf>,
    pub metadata: Metadata,
}

/// One row of a pair file.
#[derive(Debug, Clone)]
pub struct Pair {
    /// Where the row came from, for error messages: file and 1-based line.
    pub file: PathBuf,
    pub line: u64,
    pub a: Side,
    pub b: Side,
    pub query: Option<String>,
    pub label: Option<bool>,
    /// The row asks for its rendered bodies to decide it (column `stage`, value
    /// `rendered`): the cascade keeps no fetched-only decision of it.
    pub rendered_stage: bool,
    /// The row's fields as read, in header order (passed through to outputs).
    pub fields: Vec<String>,
}

impl Pair {
    /// `file:line`, the way errors name a row.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file.display(), self.line)
    }
}

/// A whole pair file.
#[derive(Debug, Clone)]
pub struct PairFile {
    pub path: PathBuf,
    pub headers: Vec<String>,
    pub pairs: Vec<Pair>,
}

/// Column positions, looked up once from the header.
struct Columns {
    url_a: usize,
    url_b: usize,
    html_a: usize,
    html_b: usize,
    rendered_a: Option<usize>,
    rendered_b: Option<usize>,
    query: Option<usize>,
    label: Option<usize>,
    stage: Option<usize>,
    metadata_a: [Option<usize>; 3],
    metadata_b: [Option<usize>; 3],
}

impl Columns {
    fn of(rows: &RowReader) -> Result<Columns> {
        let find = |name: &str| rows.column(name);
        let needs = format!("a pair file needs {}", REQUIRED_COLUMNS.join(","));
        let require = |name: &str| rows.require(name, &needs);
        Ok(Columns {
            url_a: require("url_a")?,
            url_b: require("url_b")?,
            html_a: require("html_a")?,
            html_b: require("html_b")?,
            rendered_a: find("rendered_a"),
            rendered_b: find("rendered_b"),
            query: find("query"),
            label: find("label"),
            stage: find(STAGE),
            metadata_a: [find("clicks_a"), find("inlinks_a"), find("spam_a")],
            metadata_b: [find("clicks_b"), find("inlinks_b"), find("spam_b")],
        })
    }
}

/// Parses a label: 1/0, duplicate/distinct, true/false (any case). Empty is no label.
pub fn parse_label(raw: &str) -> Result<Option<bool>, String> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "" => Ok(None),
        "1" | "duplicate" | "true" => Ok(Some(true)),
        "0" | "distinct" | "false" => Ok(Some(false)),
        other => Err(format!(
            "`{other}` is not a label (use 1/0, duplicate/distinct or true/false)"
        )),
    }
}

impl PairFile {
    /// Reads and checks a whole pair file. Any malformed row is an error naming
    /// file, line and column.
    pub fn read(path: &Path) -> Result<PairFile> {
        let rows = RowReader::open(path)?;
        let columns = Columns::of(&rows)?;
        let headers = rows.headers().to_vec();
        let base = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let mut pairs = Vec::new();
        for row in rows {
            let row = row?;
            let fields: Vec<String> = row.fields.iter().map(str::to_string).collect();
            pairs.push(read_pair(
                path, &base, row.line, &headers, &columns, fields,
            )?);
        }
        Ok(PairFile {
            path: path.to_path_buf(),
            headers,
            pairs,
        })
    }

    /// The position of the column `name`; an error names the file when it has none.
    pub fn column(&self, name: &str) -> Result<usize> {
        self.headers
            .iter()
            .position(|h| h == name)
            .with_context(|| format!("{}: no column `{name}`", self.path.display()))
    }

    /// Copies the file to `out` with rendered_a, rendered_b naming the stored renders
    /// (documents without one keep an empty cell); its other columns pass through.
    /// Paths are written relative to `out`'s folder when they are inside it, so the
    /// copy may live anywhere.
    pub fn write_with_renders(
        &self,
        stored: &BTreeMap<PathBuf, PathBuf>,
        out: &Path,
    ) -> Result<()> {
        let kept: Vec<usize> = (0..self.headers.len())
            .filter(|&i| !DOCUMENT_COLUMNS.contains(&self.headers[i].as_str()))
            .collect();
        let base = out
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .canonicalize()?;
        let shown = |path: &Path| -> String {
            let path = canonical(path);
            path.strip_prefix(&base)
                .unwrap_or(&path)
                .display()
                .to_string()
        };
        let render_of =
            |document: &Path| stored.get(document).map_or_else(String::new, |p| shown(p));
        write_atomically(out, |w| {
            let header: Vec<&str> = kept.iter().map(|&i| self.headers[i].as_str()).collect();
            let mut writer = PairWriter::new(w, true, false, &header)?;
            for pair in &self.pairs {
                let [(html_a, rendered_a), (html_b, rendered_b)] =
                    [&pair.a, &pair.b].map(|side| (shown(&side.html), render_of(&side.html)));
                let values: Vec<&str> = kept.iter().map(|&i| pair.fields[i].as_str()).collect();
                writer.write(
                    SideColumns {
                        url: &pair.a.url,
                        html: &html_a,
                        rendered: &rendered_a,
                    },
                    SideColumns {
                        url: &pair.b.url,
                        html: &html_b,
                        rendered: &rendered_b,
                    },
                    "",
                    &values,
                )?;
            }
            writer.finish()
        })
    }
}

/// The absolute path of `path`; when it is not a file of its own (an entry of a
/// render pack, `rendered/test.tar.zst/<name>`), its folder's, joined with its name.
fn canonical(path: &Path) -> PathBuf {
    path.canonicalize()
        .or_else(|e| match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) => Ok(parent.canonicalize()?.join(name)),
            _ => Err(e),
        })
        .unwrap_or_else(|_| path.to_path_buf())
}

/// One side of a pair as a pair file names it: URL, fetched body, stored render
/// (empty for none). Paths as they are to be written.
#[derive(Debug, Clone, Copy)]
pub struct SideColumns<'a> {
    pub url: &'a str,
    pub html: &'a str,
    pub rendered: &'a str,
}

/// Writes pair files that every command reads: `url_a,url_b,html_a,html_b`, then
/// `rendered_a,rendered_b` and `query` when asked for, then the caller's own
/// columns (pass-through, scores, evidence).
pub struct PairWriter<'w> {
    csv: csv::Writer<&'w mut dyn Write>,
    rendered: bool,
    query: bool,
}

impl<'w> PairWriter<'w> {
    /// Writes the header.
    pub fn new(
        w: &'w mut dyn Write,
        rendered: bool,
        query: bool,
        extra: &[&str],
    ) -> Result<PairWriter<'w>> {
        let mut csv = csv::Writer::from_writer(w);
        let mut header = REQUIRED_COLUMNS.to_vec();
        if rendered {
            header.extend(&DOCUMENT_COLUMNS[4..]);
        }
        if query {
            header.push("query");
        }
        header.extend(extra);
        csv.write_record(&header)?;
        Ok(PairWriter {
            csv,
            rendered,
            query,
        })
    }

    /// Writes one pair; `extra` in the order of the header's own columns.
    pub fn write(
        &mut self,
        a: SideColumns,
        b: SideColumns,
        query: &str,
        extra: &[&str],
    ) -> Result<()> {
        let mut row = vec![a.url, b.url, a.html, b.html];
        if self.rendered {
            row.extend([a.rendered, b.rendered]);
        }
        if self.query {
            row.push(query);
        }
        row.extend(extra);
        self.csv.write_record(&row)?;
        Ok(())
    }

    pub fn finish(mut self) -> Result<()> {
        self.csv.flush()?;
        Ok(())
    }
}

fn read_pair(
    path: &Path,
    base: &Path,
    line: u64,
    headers: &[String],
    columns: &Columns,
    fields: Vec<String>,
) -> Result<Pair> {
    let at = |col: usize, what: &str| {
        format!(
            "{}:{line}: column `{}`: {what}",
            path.display(),
            headers[col]
        )
    };
    let document = |col: usize| -> Result<PathBuf> {
        let raw = fields[col].trim();
        if raw.is_empty() {
            bail!(at(col, "empty document path"));
        }
        Ok(base.join(raw))
    };
    let optional_document = |col: Option<usize>| -> Option<PathBuf> {
        col.map(|c| fields[c].trim())
            .filter(|raw| !raw.is_empty())
            .map(|raw| base.join(raw))
    };
    let number = |col: Option<usize>| -> Result<Option<f64>> {
        let Some(c) = col else { return Ok(None) };
        let raw = fields[c].trim();
        if raw.is_empty() {
            return Ok(None);
        }
        match raw.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Some(v)),
            _ => bail!(at(c, &format!("`{raw}` is not a number"))),
        }
    };
    let metadata = |cols: &[Option<usize>; 3]| -> Result<Metadata> {
        Ok(Metadata {
            clicks: number(cols[0])?,
            inlinks: number(cols[1])?,
            spam: number(cols[2])?,
        })
    };
    let label = match columns.label {
        Some(c) => parse_label(&fields[c]).map_err(|e| anyhow::anyhow!(at(c, &e)))?,
        None => None,
    };
    let rendered_stage = columns
        .stage
        .is_some_and(|c| fields[c].trim() == RENDERED_STAGE);
    let query = columns
        .query
        .map(|c| fields[c].trim().to_string())
        .filter(|q| !q.is_empty());
    Ok(Pair {
        file: path.to_path_buf(),
        line,
        a: Side {
            url: fields[columns.url_a].trim().to_string(),
            html: document(columns.html_a)?,
            rendered: optional_document(columns.rendered_a),
            metadata: metadata(&columns.metadata_a)?,
        },
        b: Side {
            url: fields[columns.url_b].trim().to_string(),
            html: document(columns.html_b)?,
            rendered: optional_document(columns.rendered_b),
            metadata: metadata(&columns.metadata_b)?,
        },
        query,
        label,
        rendered_stage,
        fields,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn reads_columns_labels_and_passthrough() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "pairs.csv",
            "id,url_a,url_b,html_a,html_b,label,query,clicks_a\n\
             7,http://a/,http://b/,a.html,/abs/b.html.gz,duplicate,red shoes,12\n\
             8,http://a/,http://c/,a.html,c.html,,,\n",
        );
        let f = PairFile::read(&p).unwrap();
        assert_eq!(f.pairs.len(), 2);
        let first = &f.pairs[0];
        assert_eq!(first.line, 2);
        assert_eq!(first.a.html, dir.path().join("a.html"));
        assert_eq!(first.b.html, PathBuf::from("/abs/b.html.gz"));
        assert_eq!(first.label, Some(true));
        assert_eq!(first.query.as_deref(), Some("red shoes"));
        assert_eq!(first.a.metadata.clicks, Some(12.0));
        assert_eq!(first.fields[0], "7");
        assert_eq!(f.pairs[1].label, None);
        assert_eq!(f.pairs[1].query, None);
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "bad.csv",
            "url_a,url_b,html_a,html_b,label\nu,v,a.html,b.html,1\nu,v,a.html,b.html,maybe\n",
        );
        let e = PairFile::read(&p).unwrap_err().to_string();
        assert!(
            e.contains("bad.csv:3") && e.contains("`label`") && e.contains("maybe"),
            "{e}"
        );

        let p = write(
            dir.path(),
            "short.csv",
            "url_a,url_b,html_a,html_b\nu,v,a.html\n",
        );
        let e = PairFile::read(&p).unwrap_err().to_string();
        assert!(e.contains("short.csv:2") && e.contains("3 fields"), "{e}");

        let p = write(dir.path(), "nohead.csv", "url_a,html_a,html_b\n");
        let e = PairFile::read(&p).unwrap_err().to_string();
        assert!(e.contains("missing column `url_b`"), "{e}");

        let p = write(
            dir.path(),
            "num.csv",
            "url_a,url_b,html_a,html_b,spam_b\nu,v,a,b,lots\n",
        );
        let e = PairFile::read(&p).unwrap_err().to_string();
        assert!(e.contains("num.csv:2") && e.contains("`spam_b`"), "{e}");
    }

    #[test]
    fn labels_in_every_spelling() {
        assert_eq!(parse_label("TRUE"), Ok(Some(true)));
        assert_eq!(parse_label(" distinct "), Ok(Some(false)));
        assert_eq!(parse_label("0"), Ok(Some(false)));
        assert!(parse_label("2").is_err());
    }
}
