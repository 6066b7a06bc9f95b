//! Reading a crawl: its pages, and where every archived response is.
//!
//! A page is an HTML response the crawler got (status 200), from a `response` or
//! `resource` record, or from a `revisit` record, which stands for the payload of
//! the record it repeats (found by the URI and date it refers to, else by payload
//! digest, in any of the inputs); a revisit whose server answered 304 Not Modified
//! (the `server-not-modified` profile) is a capture of the original, with its
//! status. Everything else archived (scripts, styles,
//! images, redirects) is a capture kept for replay. A record that cannot be read is
//! reported as `FILE#OFFSET: why` and the reading goes on.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use encoding_rs::Encoding;
use serde::Deserialize;

use crate::archive::WarcFile;
use crate::http::Response;
use crate::warc::Record;
use twinpage_util::body::MAX_BODY_BYTES;

/// A resource is kept up to this size for replay (a page is cut at `MAX_BODY_BYTES`).
pub const MAX_RESOURCE_BYTES: usize = 32 << 20;

/// A page of a crawl: an HTML document as the crawler got it.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub url: String,
    /// Where it was read: `FILE#OFFSET` (the offset where its record starts, as CDX
    /// indexes give it) for an archive record, `FILE:LINE` for a JSONL line.
    pub source: String,
    /// When it was captured (`WARC-Date`), when known.
    pub date: Option<String>,
    /// The HTTP status (200 for a page).
    pub status: u16,
    /// The fetched body, decoded from transfer and content encodings, cut at
    /// `MAX_BODY_BYTES`.
    pub body: Vec<u8>,
    /// The charset the HTTP header named, if any: it comes before the page's own.
    pub charset: Option<String>,
    /// For a revisit, the source of the record whose payload it repeats.
    pub payload_from: Option<String>,
}

impl Page {
    /// The fetched body as a file of it should hold it: when the HTTP header named a
    /// charset (which, by the HTML rules, comes before the page's own `<meta>`; only a
    /// BOM comes before it), the body decoded in it and written as UTF-8 behind a BOM,
    /// so that any later reader of the file reads it as the crawler's browser did.
    pub fn fetched_body(&self) -> Cow<'_, [u8]> {
        let Some(encoding) = self
            .charset
            .as_deref()
            .and_then(|label| Encoding::for_label(label.as_bytes()))
        else {
            return Cow::Borrowed(&self.body);
        };
        let (text, _, _) = encoding.decode(&self.body);
        let mut utf8 = Vec::with_capacity(text.len() + 3);
        utf8.extend_from_slice(b"\xef\xbb\xbf");
        utf8.extend_from_slice(text.as_bytes());
        Cow::Owned(utf8)
    }
}

/// Where an archived response is: what replay needs to answer a page's request.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Capture {
    pub url: String,
    pub date: String,
    /// Index into [`Crawl::files`].
    pub file: usize,
    pub offset: u64,
    /// The record's place in its gzip member ([`Record::within`]).
    #[serde(default)]
    pub within: usize,
    pub status: u16,
    pub media_type: Option<String>,
    pub(crate) kind: Kind,
    digest: Option<String>,
    refers_to: Option<(String, String)>,
    /// `WARC-Record-ID`, and for a revisit `WARC-Refers-To`: the record it repeats.
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    refers_to_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) enum Kind {
    Response,
    Resource,
    Revisit,
}

/// What reading a crawl found, besides its pages.
#[derive(Debug, Default)]
pub struct Crawl {
    pub files: Vec<WarcFile>,
    pub captures: Vec<Capture>,
    /// Records and lines that could not be read, each `SOURCE: why`.
    pub unreadable: Vec<String>,
    pub records: usize,
    pub pages: usize,
}

/// Reads every input (WARC, gzipped or not; WACZ; JSONL of `{"url", "html"}`),
/// handing each page to `each` as it is read. Fails only when an input cannot be
/// opened at all or `each` fails; a bad record or line goes to
/// [`Crawl::unreadable`] and the reading goes on. A WARC gzipped as one stream is
/// first written unzipped into the folder `unzip_to`, and read from there
/// ([`WarcFile::unzip_if_one_stream`]).
pub fn read_crawl(
    inputs: &[PathBuf],
    unzip_to: &Path,
    mut each: impl FnMut(Page) -> Result<()>,
) -> Result<Crawl> {
    let mut crawl = Crawl::default();
    for input in inputs {
        if is_jsonl(input) {
            read_jsonl(input, &mut crawl, &mut each)?;
        } else {
            crawl.files.extend(WarcFile::of(input)?);
        }
    }
    for (i, file) in crawl.files.iter_mut().enumerate() {
        let name = file.name.clone();
        let faults = file.unzip_if_one_stream(&unzip_to.join(format!("{i}.warc")))?;
        crawl
            .unreadable
            .extend(faults.iter().map(|f| f.named(&name)));
    }
    for file in 0..crawl.files.len() {
        read_warc(file, &mut crawl, &mut each)?;
    }
    resolve_revisits(&mut crawl, &mut each)?;
    Ok(crawl)
}

fn is_jsonl(path: &Path) -> bool {
    let name = path.to_string_lossy().to_ascii_lowercase();
    name.ends_with(".jsonl") || name.ends_with(".jsonl.gz") || name.ends_with(".ndjson")
}

fn read_warc(
    file: usize,
    crawl: &mut Crawl,
    each: &mut impl FnMut(Page) -> Result<()>,
) -> Result<()> {
    let name = crawl.files[file].name.clone();
    for record in crawl.files[file].records()? {
        crawl.records += 1;
        let record = match record {
            Ok(record) => record,
            Err(bad) => {
                crawl.unreadable.push(bad.named(&name));
                continue;
            }
        };
        let kind = match record.kind() {
            "response" => Kind::Response,
            "resource" => Kind::Resource,
            "revisit" => Kind::Revisit,
            _ => continue,
        };
        let Some(url) = record.target_uri().map(str::to_string) else {
            continue;
        };
        // A DNS lookup (Heritrix writes one per host), whois, an FTP listing: not
        // HTTP; a `urn:` resource is a crawler's note on a page (Browsertrix's
        // `urn:pageinfo:`, `urn:text:`), not a capture of it.
        if (kind != Kind::Resource && !is_http(&url)) || scheme(&url) == "urn" {
            continue;
        }
        let at = format!("{name}#{}", record.offset);
        let response = match payload(&record, kind) {
            Ok(response) => response,
            Err(reason) => {
                crawl.unreadable.push(format!("{at}: {reason}"));
                continue;
            }
        };
        let capture = Capture {
            url,
            date: record.header("WARC-Date").unwrap_or("").to_string(),
            file,
            offset: record.offset,
            within: record.within,
            status: response.status,
            media_type: response.media_type(),
            kind,
            digest: record.header("WARC-Payload-Digest").map(str::to_string),
            refers_to: refers_to(&record),
            id: record.header("WARC-Record-ID").map(str::to_string),
            refers_to_id: record.header("WARC-Refers-To").map(str::to_string),
        };
        if kind != Kind::Revisit && is_page(&capture, &response.body) {
            crawl.pages += 1;
            each(page(&capture, at, response, None))?;
        }
        crawl.captures.push(capture);
    }
    Ok(())
}

/// The HTTP response of a record (a `resource` record is its payload, status 200).
pub(crate) fn payload(record: &Record, kind: Kind) -> Result<Response, String> {
    if record.cut {
        return Err(format!(
            "the record is over {} bytes; cut, so not read",
            crate::warc::MAX_BLOCK_BYTES
        ));
    }
    match kind {
        Kind::Resource => Ok(Response {
            status: 200,
            headers: record
                .header("Content-Type")
                .map(|t| vec![("Content-Type".to_string(), t.to_string())])
                .unwrap_or_default(),
            body: record.block[..record.block.len().min(MAX_RESOURCE_BYTES)].to_vec(),
        }),
        // A revisit may hold the HTTP header of the new response, or nothing; its
        // payload is the original's.
        Kind::Revisit if record.block.is_empty() => Ok(Response {
            status: 200,
            headers: Vec::new(),
            body: Vec::new(),
        }),
        Kind::Revisit => Response::head(&record.block).map(|(head, _)| head),
        Kind::Response => Response::parse(&record.block, MAX_RESOURCE_BYTES),
    }
}

fn refers_to(record: &Record) -> Option<(String, String)> {
    let uri = record
        .header("WARC-Refers-To-Target-URI")
        .or_else(|| record.target_uri())?;
    let date = record.header("WARC-Refers-To-Date").unwrap_or("");
    Some((uri.trim_matches(['<', '>']).to_string(), date.to_string()))
}

/// A URL's scheme, lower case.
fn scheme(url: &str) -> String {
    url.split_once(':')
        .map_or("", |(scheme, _)| scheme)
        .to_ascii_lowercase()
}

fn is_http(url: &str) -> bool {
    matches!(scheme(url).as_str(), "http" | "https")
}

/// A capture date to the second: a revisit may name its original's date less
/// precisely than the original's own record does (`…:05Z` for `…:05.123456Z`).
fn to_the_second(date: &str) -> &str {
    date.get(..19).unwrap_or(date)
}

/// Whether a capture is a page: HTML, status 200 (a redirect is not a page: its
/// target is, when the crawl has it).
fn is_page(capture: &Capture, body: &[u8]) -> bool {
    if capture.status != 200 {
        return false;
    }
    match capture.media_type.as_deref() {
        Some("text/html" | "application/xhtml+xml") => true,
        Some(_) => false,
        None => looks_like_html(body),
    }
}

fn looks_like_html(body: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&body[..body.len().min(1024)]).to_ascii_lowercase();
    head.contains("<!doctype html") || head.contains("<html")
}

fn page(
    capture: &Capture,
    source: String,
    response: Response,
    payload_from: Option<String>,
) -> Page {
    let charset = response.charset();
    let mut body = response.body;
    body.truncate(MAX_BODY_BYTES);
    Page {
        url: capture.url.clone(),
        source,
        date: Some(capture.date.clone()).filter(|d| !d.is_empty()),
        status: capture.status,
        body,
        charset,
        payload_from,
    }
}

/// The captures a revisit may repeat (all but revisits), by the key `key` gives.
fn originals_by<'a, K: std::hash::Hash + Eq>(
    captures: &'a [Capture],
    key: impl Fn(&'a Capture) -> Option<K>,
) -> HashMap<K, usize> {
    captures
        .iter()
        .enumerate()
        .filter(|(_, c)| c.kind != Kind::Revisit)
        .filter_map(|(i, c)| Some((key(c)?, i)))
        .collect()
}

/// The status of a revisit whose server said the page had not changed since the
/// capture it refers to: it stands for that capture, status and all.
const NOT_MODIFIED: u16 = 304;

/// Each revisit of a page, with the payload of the record it repeats.
fn resolve_revisits(crawl: &mut Crawl, each: &mut impl FnMut(Page) -> Result<()>) -> Result<()> {
    let originals = originals_by(&crawl.captures, |c| {
        Some((c.url.as_str(), to_the_second(&c.date)))
    });
    let by_id = originals_by(&crawl.captures, |c| c.id.as_deref());
    let by_digest = originals_by(&crawl.captures, |c| c.digest.as_deref());
    let mut found = Vec::new();
    for (i, revisit) in crawl.captures.iter().enumerate() {
        if revisit.kind != Kind::Revisit || ![200, NOT_MODIFIED].contains(&revisit.status) {
            continue;
        }
        let (uri, date) = revisit.refers_to.as_ref().expect("a revisit has a target");
        let original = (revisit.refers_to_id.as_deref())
            .and_then(|id| by_id.get(id))
            .or_else(|| originals.get(&(uri.as_str(), to_the_second(date))))
            .or_else(|| by_digest.get(revisit.digest.as_deref()?));
        found.push((i, original.copied()));
    }
    for (i, original) in found {
        let revisit = crawl.captures[i].clone();
        let at = format!("{}#{}", crawl.files[revisit.file].name, revisit.offset);
        let Some(original) = original else {
            let (uri, date) = revisit.refers_to.as_ref().expect("a revisit has a target");
            let when = if date.is_empty() {
                String::new()
            } else {
                format!(" ({date})")
            };
            crawl.unreadable.push(format!(
                "{at}: a revisit of {uri}{when}, whose record is in none of the inputs"
            ));
            continue;
        };
        let original = crawl.captures[original].clone();
        let from = format!("{}#{}", crawl.files[original.file].name, original.offset);
        let response = crawl.files[original.file]
            .records()?
            .read_at(original.offset, original.within)
            .map_err(|bad| bad.reason)
            .and_then(|record| payload(&record, original.kind));
        let response = match response {
            Ok(response) => response,
            Err(reason) => {
                crawl
                    .unreadable
                    .push(format!("{at}: its original {from}: {reason}"));
                continue;
            }
        };
        let capture = Capture {
            status: match revisit.status {
                NOT_MODIFIED => original.status,
                status => status,
            },
            media_type: revisit.media_type.clone().or(original.media_type.clone()),
            ..revisit
        };
        if is_page(&capture, &response.body) {
            crawl.pages += 1;
            each(page(&capture, at, response, Some(from)))?;
        }
    }
    Ok(())
}

/// A JSONL line: a page's URL and HTML.
#[derive(Deserialize)]
struct Line {
    url: String,
    html: String,
}

fn read_jsonl(
    path: &Path,
    crawl: &mut Crawl,
    each: &mut impl FnMut(Page) -> Result<()>,
) -> Result<()> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let reader: Box<dyn BufRead> = if path.to_string_lossy().ends_with(".gz") {
        Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file)))
    } else {
        Box::new(BufReader::new(file))
    };
    let (pages_before, unreadable_before) = (crawl.pages, crawl.unreadable.len());
    for (i, line) in reader.split(b'\n').enumerate() {
        let at = format!("{}:{}", path.display(), i + 1);
        let line = line.with_context(|| format!("cannot read {at}"))?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Line>(&line) {
            Ok(Line { url, html }) => {
                crawl.pages += 1;
                let mut body = html.into_bytes();
                body.truncate(MAX_BODY_BYTES);
                each(Page {
                    url,
                    source: at,
                    date: None,
                    status: 200,
                    body,
                    charset: Some("utf-8".into()),
                    payload_from: None,
                })?;
            }
            Err(e) => crawl.unreadable.push(format!(
                "{at}: not a page ({e}); a line is {{\"url\": …, \"html\": …}}"
            )),
        }
    }
    if crawl.pages == pages_before && crawl.unreadable.len() > unreadable_before {
        let first = &crawl.unreadable[unreadable_before];
        bail!("{}: no line is a page: {first}", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(headers: &[(&str, &str)], block: &str) -> String {
        let mut text = String::from("WARC/1.1\r\n");
        for (name, value) in headers {
            text += &format!("{name}: {value}\r\n");
        }
        text + &format!("Content-Length: {}\r\n\r\n{block}\r\n\r\n", block.len())
    }

    #[test]
    fn revisits_find_their_original_by_record_id_or_by_a_date_to_the_second_and_stand_for_it() {
        let page = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>The page</html>";
        let warc = [
            // A DNS lookup, as Heritrix writes one per host: not a page, not an error.
            record(
                &[
                    ("WARC-Type", "response"),
                    ("WARC-Target-URI", "dns:x.test"),
                    ("Content-Type", "text/dns"),
                ],
                "20200101000000\nx.test. 300 IN A 10.0.0.1\n",
            ),
            record(
                &[
                    ("WARC-Type", "response"),
                    ("WARC-Target-URI", "http://x.test/"),
                    ("WARC-Date", "2020-01-01T00:00:00.123456Z"),
                    ("WARC-Record-ID", "<urn:uuid:original>"),
                ],
                page,
            ),
            // By record ID alone.
            record(
                &[
                    ("WARC-Type", "revisit"),
                    ("WARC-Target-URI", "http://x.test/"),
                    ("WARC-Refers-To", "<urn:uuid:original>"),
                ],
                "",
            ),
            // A crawler's note on the page, in HTML: not a capture of it.
            record(
                &[
                    ("WARC-Type", "resource"),
                    ("WARC-Target-URI", "urn:text:http://x.test/"),
                    ("Content-Type", "text/html"),
                ],
                "<html>The page</html>",
            ),
            // By URI and a date written to the second.
            record(
                &[
                    ("WARC-Type", "revisit"),
                    ("WARC-Target-URI", "http://x.test/?again"),
                    ("WARC-Refers-To-Target-URI", "http://x.test/"),
                    ("WARC-Refers-To-Date", "2020-01-01T00:00:00Z"),
                ],
                "",
            ),
            // The server said 304 Not Modified (Heritrix's server-not-modified
            // profile): the original's page, with its status.
            record(
                &[
                    ("WARC-Type", "revisit"),
                    ("WARC-Target-URI", "http://x.test/"),
                    ("WARC-Date", "2020-02-01T00:00:00Z"),
                    ("WARC-Refers-To", "<urn:uuid:original>"),
                    (
                        "WARC-Profile",
                        "http://netpreserve.org/warc/1.0/revisit/server-not-modified",
                    ),
                ],
                "HTTP/1.1 304 Not Modified\r\nETag: \"1\"\r\n\r\n",
            ),
            // A revisit of a redirect is no page.
            record(
                &[
                    ("WARC-Type", "revisit"),
                    ("WARC-Target-URI", "http://x.test/old"),
                ],
                "HTTP/1.1 301 Moved Permanently\r\nLocation: /\r\n\r\n",
            ),
        ]
        .concat();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crawl.warc");
        std::fs::write(&path, warc).unwrap();
        let mut pages = Vec::new();
        let crawl = read_crawl(&[path], dir.path(), |page| {
            pages.push(page);
            Ok(())
        })
        .unwrap();
        assert!(crawl.unreadable.is_empty(), "{:?}", crawl.unreadable);
        assert_eq!(pages.len(), 4, "{pages:?}");
        assert!(pages.iter().all(|p| p.body == b"<html>The page</html>"));
        assert!(pages.iter().all(|p| p.status == 200));
        assert_eq!(pages.iter().filter(|p| p.payload_from.is_some()).count(), 3);
        let not_modified = pages
            .iter()
            .find(|p| p.date.as_deref() == Some("2020-02-01T00:00:00Z"));
        assert!(not_modified.is_some(), "{pages:?}");
    }
}
