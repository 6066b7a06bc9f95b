//! A corpus in: `docs.csv` (`url,html[,rendered]`, other columns kept) or a folder
//! of HTML files, read one row at a time so that a crawl of any size streams.
//!
//! Paths in `docs.csv` are relative to its folder, as in pair files. The pair
//! files written from a corpus name documents so that `score` finds them from the
//! output's folder: as written when the output sits beside `docs.csv`, otherwise
//! as absolute paths.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use super::records::BY_RECORDS;
use crate::document::decode::html_files;
use crate::document::pairs::{PairWriter, SideColumns};
use crate::document::rows::RowReader;

/// One document of a corpus.
#[derive(Debug, Clone)]
pub struct CorpusDoc {
    /// `file:line` for a row of docs.csv, the path for a file of a folder.
    pub location: String,
    pub url: String,
    /// The body to read.
    pub html: PathBuf,
    /// As written in docs.csv (relative to its folder), for output.
    pub html_raw: String,
    /// The stored render docs.csv names (column `rendered`), if any.
    pub rendered: Option<PathBuf>,
    pub rendered_raw: Option<String>,
    /// The row's other columns, in [`Corpus::extra_headers`] order.
    pub extra: Vec<String>,
}

/// What an output pair file keeps of a document.
#[derive(Debug, Clone, PartialEq)]
pub struct DocInfo {
    pub url: String,
    pub html: String,
    pub rendered: String,
    pub extra: Vec<String>,
}

impl DocInfo {
    /// The document as a side of a pair file.
    pub fn columns(&self) -> SideColumns<'_> {
        SideColumns {
            url: &self.url,
            html: &self.html,
            rendered: &self.rendered,
        }
    }
}

enum Source {
    Csv {
        url: usize,
        html: usize,
        rendered: Option<usize>,
        extra: Vec<usize>,
    },
    Folder(Vec<PathBuf>),
}

/// A docs.csv or a folder, opened (header read, or files listed), not yet read.
pub struct Corpus {
    pub path: PathBuf,
    /// Folder the documents' paths are relative to.
    pub base: PathBuf,
    pub extra_headers: Vec<String>,
    source: Source,
}

impl Corpus {
    pub fn open(path: &Path) -> Result<Corpus> {
        if path.is_dir() {
            let files = html_files(path)?;
            return Ok(Corpus {
                path: path.to_path_buf(),
                base: path.to_path_buf(),
                extra_headers: Vec::new(),
                source: Source::Folder(files),
            });
        }
        let rows = RowReader::open(path)?;
        let needs = "a docs file needs url,html and may have rendered";
        let (url, html) = (rows.require("url", needs)?, rows.require("html", needs)?);
        let rendered = rows.column("rendered");
        let extra: Vec<usize> = (0..rows.headers().len())
            .filter(|&i| i != url && i != html && Some(i) != rendered)
            .collect();
        Ok(Corpus {
            path: path.to_path_buf(),
            base: path.parent().unwrap_or(Path::new("")).to_path_buf(),
            extra_headers: extra.iter().map(|&i| rows.headers()[i].clone()).collect(),
            source: Source::Csv {
                url,
                html,
                rendered,
                extra,
            },
        })
    }

    /// Number of documents (a quick pass over docs.csv), for progress.
    pub fn count(&self) -> Result<usize> {
        match &self.source {
            Source::Folder(files) => Ok(files.len()),
            Source::Csv { .. } => RowReader::open(&self.path)?.try_fold(0, |n, row| {
                row?;
                Ok(n + 1)
            }),
        }
    }

    /// The documents, in file order, one at a time.
    pub fn documents(&self) -> Result<Box<dyn Iterator<Item = Result<CorpusDoc>> + '_>> {
        match &self.source {
            Source::Folder(files) => Ok(Box::new(files.iter().map(|f| {
                let raw = f
                    .strip_prefix(&self.base)
                    .unwrap_or(f)
                    .to_string_lossy()
                    .into_owned();
                Ok(CorpusDoc {
                    location: f.display().to_string(),
                    url: raw.clone(),
                    html: f.clone(),
                    html_raw: raw,
                    rendered: None,
                    rendered_raw: None,
                    extra: Vec::new(),
                })
            }))),
            Source::Csv {
                url,
                html,
                rendered,
                extra,
            } => {
                let rows = RowReader::open(&self.path)?;
                Ok(Box::new(rows.map(move |row| {
                    let row = row?;
                    let location = format!("{}:{}", self.path.display(), row.line);
                    let field = |i: usize| row.fields.get(i).unwrap_or("").trim().to_string();
                    let html_raw = field(*html);
                    if html_raw.is_empty() {
                        bail!("{location}: column `html`: empty document path");
                    }
                    let rendered_raw = rendered.map(field).filter(|r| !r.is_empty());
                    Ok(CorpusDoc {
                        url: field(*url),
                        html: self.base.join(&html_raw),
                        html_raw,
                        rendered: rendered_raw.as_ref().map(|r| self.base.join(r)),
                        rendered_raw,
                        extra: extra
                            .iter()
                            .map(|&i| row.fields.get(i).unwrap_or("").to_string())
                            .collect(),
                        location,
                    })
                })))
            }
        }
    }
}

/// How document paths are written into an output pair file.
pub struct OutputPaths {
    base: PathBuf,
    keep_as_written: bool,
}

impl OutputPaths {
    /// For a corpus whose paths are relative to `base`, written to `out` (`-` is stdout).
    pub fn new(base: &Path, out: &str) -> OutputPaths {
        let out_dir = match Path::new(out).parent() {
            _ if out == "-" => PathBuf::from("."),
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let base = if base.as_os_str().is_empty() {
            Path::new(".")
        } else {
            base
        };
        let canonical = |p: &Path| std::fs::canonicalize(p).ok();
        let keep_as_written = canonical(base).is_some() && canonical(base) == canonical(&out_dir);
        OutputPaths {
            base: std::path::absolute(base).unwrap_or_else(|_| base.to_path_buf()),
            keep_as_written,
        }
    }

    /// Absolute paths whatever the output (the index stores these).
    pub fn absolute(base: &Path) -> OutputPaths {
        let base = if base.as_os_str().is_empty() {
            Path::new(".")
        } else {
            base
        };
        OutputPaths {
            base: std::path::absolute(base).unwrap_or_else(|_| base.to_path_buf()),
            keep_as_written: false,
        }
    }

    pub fn path(&self, raw: &str) -> String {
        if self.keep_as_written || Path::new(raw).is_absolute() {
            raw.to_string()
        } else {
            self.base.join(raw).display().to_string()
        }
    }

    pub fn info(&self, doc: &CorpusDoc) -> DocInfo {
        DocInfo {
            url: doc.url.clone(),
            html: self.path(&doc.html_raw),
            rendered: doc
                .rendered_raw
                .as_deref()
                .map(|r| self.path(r))
                .unwrap_or_default(),
            extra: doc.extra.clone(),
        }
    }
}

/// Writes candidates as a pair file `score` reads as it is: the pair columns
/// (`rendered_a,rendered_b` when any document has a stored render), the method
/// (`records` for a pair its records alone found) and its evidence columns
/// (empty for those), then the documents' other columns as `_a`/`_b`.
pub fn write_pairs(
    w: &mut dyn std::io::Write,
    docs: &[DocInfo],
    extra_headers: &[String],
    method: &str,
    evidence_columns: &[&str],
    pairs: &[super::candidate::Candidate],
) -> Result<()> {
    let rendered = docs.iter().any(|d| !d.rendered.is_empty());
    let sided: Vec<String> = extra_headers
        .iter()
        .flat_map(|h| [format!("{h}_a"), format!("{h}_b")])
        .collect();
    let mut extra = vec!["method"];
    extra.extend(evidence_columns);
    extra.extend(sided.iter().map(String::as_str));
    let mut writer = PairWriter::new(w, rendered, false, &extra)?;
    for pair in pairs {
        let (a, b) = (&docs[pair.a as usize], &docs[pair.b as usize]);
        let (found_by, evidence): (&str, Vec<&str>) = match pair.evidence.as_slice() {
            [] => (BY_RECORDS, vec![""; evidence_columns.len()]),
            given => (method, given.iter().map(String::as_str).collect()),
        };
        let mut values = vec![found_by];
        values.extend(evidence);
        for (x, y) in a.extra.iter().zip(&b.extra) {
            values.extend([x.as_str(), y.as_str()]);
        }
        writer.write(a.columns(), b.columns(), "", &values)?;
    }
    writer.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rows_with_extra_columns_and_names_bad_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("docs.csv");
        std::fs::write(&p, "id,url,html\n1,http://a/,a.html\n2,http://b/,\n").unwrap();
        let corpus = Corpus::open(&p).unwrap();
        assert_eq!(corpus.extra_headers, ["id"]);
        assert_eq!(corpus.count().unwrap(), 2);
        let docs: Vec<Result<CorpusDoc>> = corpus.documents().unwrap().collect();
        let first = docs[0].as_ref().unwrap();
        assert_eq!(first.html, dir.path().join("a.html"));
        assert_eq!(first.extra, ["1"]);
        let e = docs[1].as_ref().unwrap_err().to_string();
        assert!(e.contains("docs.csv:3") && e.contains("html"), "{e}");

        std::fs::write(&p, "url,page\nu,a.html\n").unwrap();
        let e = Corpus::open(&p).err().unwrap().to_string();
        assert!(e.contains("missing column `html`"), "{e}");
    }

    #[test]
    fn folders_list_html_files_in_order() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        for f in ["b.html", "a.htm", "sub/c.html.gz", "notes.txt"] {
            std::fs::write(dir.path().join(f), "x").unwrap();
        }
        let corpus = Corpus::open(dir.path()).unwrap();
        let urls: Vec<String> = corpus
            .documents()
            .unwrap()
            .map(|d| d.unwrap().url)
            .collect();
        assert_eq!(urls, ["a.htm", "b.html", "sub/c.html.gz"]);
    }

    #[test]
    fn output_paths_stay_relative_only_beside_the_docs() {
        let dir = tempfile::tempdir().unwrap();
        let beside = OutputPaths::new(
            dir.path(),
            &dir.path().join("pairs.csv").display().to_string(),
        );
        assert_eq!(beside.path("docs/x.html"), "docs/x.html");
        let elsewhere = OutputPaths::new(dir.path(), "/tmp/somewhere/pairs.csv");
        assert_eq!(
            elsewhere.path("docs/x.html"),
            dir.path().join("docs/x.html").display().to_string()
        );
    }
}
