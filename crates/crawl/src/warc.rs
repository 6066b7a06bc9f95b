//! WARC records (ISO 28500, versions 1.0 and 1.1), each with the byte offset
//! where it starts in its file, as CDX indexes give it.
//!
//! Written here rather than taken from the `warc` crate because a crawl is long and
//! one bad record must not lose it: a record that cannot be read is reported with
//! its offset and the reader goes on from the next record (the next gzip member, or
//! the next `WARC/` line), and the offset of every record is known, in the
//! compressed file, so that a page's resources can later be read by seeking there.
//! A gzipped WARC is a gzip member per record (some writers put several records in
//! one member: those records share the member's offset; a file gzipped as one
//! stream is unzipped once instead, see `archive.rs`).

use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};

use flate2::bufread::GzDecoder;

/// A record's block is kept up to this many bytes; past it, the rest is skipped and
/// the record marked cut. Pages are cut far below (4 MB), and no script, style or
/// font a page needs comes near.
pub const MAX_BLOCK_BYTES: u64 = 64 << 20;
/// A header line longer than this is not a WARC header.
const MAX_LINE_BYTES: usize = 64 << 10;
/// Nor is a header of more lines than this.
const MAX_HEADER_LINES: usize = 1_000;

/// One WARC record.
#[derive(Debug, Clone)]
pub struct Record {
    /// Where the record starts in its file (for a gzipped file, where its gzip
    /// member starts).
    pub offset: u64,
    /// How many records of its gzip member come before it: 0, but where a writer put
    /// several records in one member (or gzipped the whole file as one).
    pub within: usize,
    /// `WARC/1.0`, `WARC/1.1`.
    pub version: String,
    headers: Vec<(String, String)>,
    /// The record's content block: for a `response`, the HTTP response as received.
    pub block: Vec<u8>,
    /// The block was longer than [`MAX_BLOCK_BYTES`] and is cut there.
    pub cut: bool,
}

impl Record {
    /// The value of the named header (names are case-insensitive), trimmed.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// `WARC-Type`: response, resource, revisit, request, metadata, warcinfo, …
    pub fn kind(&self) -> &str {
        self.header("WARC-Type").unwrap_or("")
    }

    /// `WARC-Target-URI`, without the angle brackets WARC 1.0 writers may put around it.
    pub fn target_uri(&self) -> Option<&str> {
        self.header("WARC-Target-URI")
            .map(|uri| uri.trim_start_matches('<').trim_end_matches('>'))
    }
}

/// A record that could not be read: where it starts, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct BadRecord {
    pub offset: u64,
    pub reason: String,
}

impl BadRecord {
    /// `FILE#OFFSET: why`, as a crawl's unreadable records are listed.
    pub fn named(&self, file: &str) -> String {
        format!("{file}#{}: {}", self.offset, self.reason)
    }
}

/// The records of one WARC file, gzipped or plain (told by its first bytes); or of
/// an ARC file, the format WARC replaced.
pub struct Records<R: Read + Seek> {
    input: BufReader<R>,
    gzipped: bool,
    /// An ARC file (told by its first record).
    arc: bool,
    /// Records of the current gzip member not yet returned, with its offset.
    pending: Vec<Result<Record, BadRecord>>,
    done: bool,
}

impl<R: Read + Seek> Records<R> {
    pub fn new(input: R) -> io::Result<Records<R>> {
        let mut input = BufReader::new(input);
        let gzipped = input.fill_buf()?.starts_with(&[0x1f, 0x8b]);
        Ok(Records {
            input,
            gzipped,
            arc: false,
            pending: Vec::new(),
            done: false,
        })
    }

    /// Whether the file is gzipped.
    pub fn gzipped(&self) -> bool {
        self.gzipped
    }

    /// The record at `offset`, the `within`-th of those starting there (as an
    /// earlier pass gave them).
    pub fn read_at(&mut self, offset: u64, within: usize) -> Result<Record, BadRecord> {
        self.pending.clear();
        self.done = false;
        let bad = |reason: String| BadRecord { offset, reason };
        self.input
            .seek(SeekFrom::Start(offset))
            .map_err(|e| bad(e.to_string()))?;
        match self.nth(within) {
            Some(Ok(record)) if record.offset == offset => Ok(record),
            Some(Err(e)) if e.offset == offset => Err(e),
            _ => Err(bad("no record starts there".into())),
        }
    }

    /// Whether the file is gzipped and its first gzip member holds more than one
    /// record: the whole file gzipped as one stream (`gzip crawl.warc`), say. The
    /// records of such a member cannot be reached by seeking: each would be found
    /// again by decompressing the member from its start.
    pub fn gzipped_as_one_stream(&mut self) -> bool {
        if !self.gzipped {
            return false;
        }
        let mut member = BufReader::new(GzDecoder::new(&mut self.input));
        matches!(read_record(&mut member, 0), Ok(Some(_)))
            && skip_blank_lines(&mut member).is_ok()
            && !at_end(&mut member)
    }

    /// Writes the file's gzip members, decompressed one after the other, to `out`:
    /// a plain WARC of the same records. A member that cannot be decompressed keeps
    /// what it gave before the fault, and the next member is found by its magic
    /// bytes; each fault is returned with the offset of its member.
    pub fn unzip(mut self, out: &mut dyn Write) -> io::Result<Vec<BadRecord>> {
        self.input.seek(SeekFrom::Start(0))?;
        let mut faults = Vec::new();
        while !at_end(&mut self.input) {
            let offset = self.position();
            if let Err(e) = copy_member(&mut self.input, out)? {
                faults.push(BadRecord {
                    offset,
                    reason: format!(
                        "the gzip stream breaks ({e}): what it held from there to the next gzip member is lost"
                    ),
                });
                self.skip_to_next(offset + 1, &GZIP_MAGIC);
            }
        }
        Ok(faults)
    }

    fn position(&mut self) -> u64 {
        self.input.stream_position().unwrap_or(0)
    }

    /// Reads the next gzip member's records into `pending`; false at the end.
    fn read_member(&mut self) -> bool {
        if at_end(&mut self.input) {
            return false;
        }
        let offset = self.position();
        let mut member = BufReader::new(GzDecoder::new(&mut self.input));
        let mut records = Vec::new();
        let failure = loop {
            match read_record(&mut member, offset) {
                Ok(Some(record)) => records.push(Ok(Record {
                    within: records.len(),
                    ..record
                })),
                Ok(None) => break None,
                Err(reason) => break Some(reason),
            }
        };
        drop(member);
        if let Some(reason) = failure {
            // The member is corrupt or cut: what it held is lost; the next member is
            // found by its magic bytes.
            records.push(Err(BadRecord { offset, reason }));
            self.skip_to_next(offset + 1, &GZIP_MAGIC);
        }
        records.reverse();
        self.pending = records;
        true
    }

    /// In a plain file a record is followed by the next one, or the end: anything
    /// else means its Content-Length was wrong, and so the record is.
    fn check_next_starts(&mut self) -> Result<(), String> {
        skip_blank_lines(&mut self.input).map_err(|e| format!("cannot read: {e}"))?;
        let next = self
            .input
            .fill_buf()
            .map_err(|e| format!("cannot read: {e}"))?;
        if next.is_empty() || next.starts_with(b"WARC/") || next.len() < 5 {
            return Ok(());
        }
        let line_end = memchr::memchr(b'\n', next).unwrap_or(next.len());
        if self.arc && arc_headers(&String::from_utf8_lossy(&next[..line_end])).is_some() {
            return Ok(());
        }
        Err("the record's block does not end where its Content-Length says".into())
    }

    /// Seeks to the next record of a plain file after the one at `offset`: it starts
    /// on a line of its own with `WARC/` (in an ARC file, with its URL).
    fn skip_past_next_record_start(&mut self, offset: u64) {
        let marker = if self.arc {
            ARC_RECORD_START
        } else {
            RECORD_START
        };
        self.skip_to_next(offset + 1, marker);
        let _ = self.input.seek(SeekFrom::Current(1));
    }

    /// Seeks to the first place at or after `from` where `marker` starts (or the end).
    fn skip_to_next(&mut self, from: u64, marker: &[u8]) {
        let found = find_from(&mut self.input, from, marker);
        let _ = self.input.seek(SeekFrom::Start(found));
    }
}

const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];
/// What a plain WARC record starts with, after the line end of the one before.
const RECORD_START: &[u8] = b"\nWARC/";
/// What an ARC record of a web page starts with: its URL.
const ARC_RECORD_START: &[u8] = b"\nhttp";

impl<R: Read + Seek> Iterator for Records<R> {
    type Item = Result<Record, BadRecord>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(item) = self.pending.pop() {
            return Some(item);
        }
        if self.done {
            return None;
        }
        if self.gzipped {
            if !self.read_member() {
                self.done = true;
                return None;
            }
            return self.next();
        }
        skip_blank_lines(&mut self.input).ok()?;
        let offset = self.position();
        let read = read_record(&mut self.input, offset).and_then(|record| {
            self.arc |= record.as_ref().is_some_and(|r| r.version == ARC_VERSION);
            match (record, self.check_next_starts()) {
                (record, Ok(())) => Ok(record),
                // Bytes after the block that start no record: a Content-Length a
                // little short, or bytes a writer left (warcio keeps such a record).
                // A block holding no record start is the record's own: kept.
                (Some(record), Err(_)) if !self.arc && !holds_a_record_start(&record.block) => {
                    self.skip_past_next_record_start(offset);
                    Ok(Some(record))
                }
                (_, Err(reason)) => Err(reason),
            }
        });
        match read {
            Ok(Some(record)) => Some(Ok(record)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(reason) => {
                self.skip_past_next_record_start(offset);
                Some(Err(BadRecord { offset, reason }))
            }
        }
    }
}

/// Decompresses one gzip member from `input` to `out`. A fault of the member is
/// the inner error (what came before it is written); a fault of `out` the outer.
fn copy_member(input: &mut impl BufRead, out: &mut dyn Write) -> io::Result<io::Result<()>> {
    let mut member = GzDecoder::new(input);
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match member.read(&mut buf) {
            Ok(0) => return Ok(Ok(())),
            Ok(n) => out.write_all(&buf[..n])?,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Ok(Err(e)),
        }
    }
}

fn holds_a_record_start(block: &[u8]) -> bool {
    memchr::memmem::find(block, RECORD_START).is_some()
}

fn at_end(input: &mut impl BufRead) -> bool {
    input.fill_buf().map_or(true, |buf| buf.is_empty())
}

/// The first position at or after `from` where `marker` starts; the end when none.
fn find_from<R: Read + Seek>(input: &mut BufReader<R>, from: u64, marker: &[u8]) -> u64 {
    const WINDOW: usize = 1 << 16;
    let mut at = from;
    let mut window = vec![0u8; WINDOW];
    loop {
        if input.seek(SeekFrom::Start(at)).is_err() {
            return at;
        }
        let filled = read_up_to(input, &mut window);
        if let Some(i) = memchr::memmem::find(&window[..filled], marker) {
            return at + i as u64;
        }
        if filled < WINDOW {
            return at + filled as u64;
        }
        // Windows overlap by the marker's length, so none is missed at a seam.
        at += (WINDOW - marker.len()) as u64;
    }
}

fn read_up_to(input: &mut impl Read, buf: &mut [u8]) -> usize {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => filled += n,
        }
    }
    filled
}

/// Skips the empty lines between records.
fn skip_blank_lines(input: &mut impl BufRead) -> io::Result<()> {
    loop {
        let buf = input.fill_buf()?;
        let blank = buf
            .iter()
            .take_while(|b| **b == b'\r' || **b == b'\n')
            .count();
        if blank == 0 {
            return Ok(());
        }
        input.consume(blank);
    }
}

/// Reads one record; None at the end of the input.
fn read_record(input: &mut impl BufRead, offset: u64) -> Result<Option<Record>, String> {
    skip_blank_lines(input).map_err(|e| format!("cannot read: {e}"))?;
    if at_end(input) {
        return Ok(None);
    }
    let version = read_line(input)?;
    let (version, headers) = if is_version(&version) {
        (version, read_headers(input)?)
    } else if let Some(headers) = arc_headers(&version) {
        (ARC_VERSION.to_string(), headers)
    } else {
        return Err(format!(
            "not a WARC record: it starts with `{}`",
            shorten(&version)
        ));
    };
    let record = Record {
        offset,
        within: 0,
        version,
        headers,
        block: Vec::new(),
        cut: false,
    };
    let length = record
        .header("Content-Length")
        .ok_or("the record has no Content-Length")?;
    let length: u64 = length
        .parse()
        .map_err(|_| format!("Content-Length `{}` is not a number", shorten(length)))?;
    let (block, cut) = read_block(input, length)?;
    Ok(Some(Record {
        block,
        cut,
        ..record
    }))
}

/// `WARC/1.0`, `WARC/1.1` (and the drafts' `WARC/0.18`): digits, a dot, digits.
fn is_version(line: &str) -> bool {
    let number = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    line.strip_prefix("WARC/")
        .and_then(|v| v.split_once('.'))
        .is_some_and(|(major, minor)| number(major) && number(minor))
}

/// The version of a record read from an ARC file.
const ARC_VERSION: &str = "ARC";

/// The WARC headers an ARC record's header line stands for. ARC, the Internet
/// Archive's format before WARC, gives each record one line, `URL IP-ADDRESS DATE
/// CONTENT-TYPE LENGTH` (version 2 has more fields before the length), the date as
/// 14 digits (some writers add more); the block is what the server sent, as a WARC
/// `response` holds it. The file's first record (`filedesc://`) describes the file.
fn arc_headers(line: &str) -> Option<Vec<(String, String)>> {
    let fields: Vec<&str> = line.split_ascii_whitespace().collect();
    let [url, _, date, ..] = fields[..] else {
        return None;
    };
    let length = fields.last().filter(|_| fields.len() >= 5)?;
    let date = date
        .get(..14)
        .filter(|d| d.bytes().all(|b| b.is_ascii_digit()))?;
    let scheme = url.split_once(':')?.0;
    if scheme.is_empty() || !scheme.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let kind = if scheme == "filedesc" {
        "warcinfo"
    } else {
        "response"
    };
    let when = format!(
        "{}-{}-{}T{}:{}:{}Z",
        &date[..4],
        &date[4..6],
        &date[6..8],
        &date[8..10],
        &date[10..12],
        &date[12..]
    );
    let headers = [
        ("WARC-Type", kind),
        ("WARC-Target-URI", url),
        ("WARC-Date", &when),
        ("Content-Length", length),
    ];
    Some(
        headers
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .to_vec(),
    )
}

fn read_headers(input: &mut impl BufRead) -> Result<Vec<(String, String)>, String> {
    let mut headers: Vec<(String, String)> = Vec::new();
    for _ in 0..MAX_HEADER_LINES {
        let line = read_line(input)?;
        if line.is_empty() {
            return Ok(headers);
        }
        if line.starts_with([' ', '\t']) {
            let last = headers
                .last_mut()
                .ok_or("the header starts with a continuation line")?;
            last.1.push(' ');
            last.1.push_str(line.trim());
            continue;
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| format!("header line `{}` has no `:`", shorten(&line)))?;
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    Err(format!("the header has over {MAX_HEADER_LINES} lines"))
}

/// A line without its line end (CRLF or LF), read lossily as UTF-8.
fn read_line(input: &mut impl BufRead) -> Result<String, String> {
    let mut line = Vec::new();
    input
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', &mut line)
        .map_err(|e| format!("cannot read: {e}"))?;
    if line.last() != Some(&b'\n') {
        return Err(if line.len() > MAX_LINE_BYTES {
            format!("a header line is over {MAX_LINE_BYTES} bytes")
        } else {
            "the file ends inside the record's header (truncated)".into()
        });
    }
    while matches!(line.last(), Some(b'\n' | b'\r')) {
        line.pop();
    }
    Ok(String::from_utf8_lossy(&line).into_owned())
}

/// The block of `length` bytes, kept up to [`MAX_BLOCK_BYTES`].
fn read_block(input: &mut impl BufRead, length: u64) -> Result<(Vec<u8>, bool), String> {
    let kept = length.min(MAX_BLOCK_BYTES);
    let mut block = Vec::with_capacity(kept.min(1 << 20) as usize);
    let read = input
        .take(kept)
        .read_to_end(&mut block)
        .map_err(|e| format!("cannot read the block: {e}"))? as u64;
    let skipped = io::copy(&mut input.take(length - kept), &mut io::sink())
        .map_err(|e| format!("cannot read the block: {e}"))?;
    if read + skipped < length {
        return Err(format!(
            "the file ends inside the record's block, after {} of its {length} bytes (truncated)",
            read + skipped
        ));
    }
    Ok((block, length > kept))
}

fn shorten(text: &str) -> String {
    let cut: String = text.chars().take(60).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Cursor, Write};

    fn record(uri: &str, body: &str) -> Vec<u8> {
        format!(
            "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: {uri}\r\nContent-Length: {}\r\n\r\n{body}\r\n\r\n",
            body.len()
        )
        .into_bytes()
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(bytes).unwrap();
        gz.finish().unwrap()
    }

    fn read(bytes: Vec<u8>) -> Vec<Result<(u64, String), u64>> {
        Records::new(Cursor::new(bytes))
            .unwrap()
            .map(|r| match r {
                Ok(r) => Ok((r.offset, r.target_uri().unwrap().to_string())),
                Err(e) => Err(e.offset),
            })
            .collect()
    }

    #[test]
    fn plain_records_are_read_with_their_offsets() {
        let (a, b) = (record("http://x/a", "one"), record("http://x/b", "two"));
        let offset_b = a.len() as u64;
        let items = read([a, b].concat());
        assert_eq!(
            items,
            [
                Ok((0, "http://x/a".into())),
                Ok((offset_b, "http://x/b".into()))
            ]
        );
    }

    #[test]
    fn a_damaged_plain_record_is_named_and_the_next_one_read() {
        let (a, c) = (record("http://x/a", "one"), record("http://x/c", "three"));
        let bad = b"WARC/1.1\r\nContent-Length: many\r\n\r\nxx\r\n\r\n".to_vec();
        let (offset_bad, offset_c) = (a.len() as u64, (a.len() + bad.len()) as u64);
        let items = read([a, bad, c].concat());
        assert_eq!(
            items,
            [
                Ok((0, "http://x/a".into())),
                Err(offset_bad),
                Ok((offset_c, "http://x/c".into()))
            ]
        );
    }

    #[test]
    fn gzip_members_are_records_and_a_cut_one_is_named() {
        let members = ["a", "b", "c"].map(|n| gzip(&record(&format!("http://x/{n}"), n)));
        let offsets: Vec<u64> = members
            .iter()
            .scan(0, |at, m| {
                let here = *at;
                *at += m.len() as u64;
                Some(here)
            })
            .collect();
        let whole = members.concat();
        let items = read(whole.clone());
        assert_eq!(items.len(), 3);
        assert_eq!(items[2], Ok((offsets[2], "http://x/c".into())));
        // A member broken in its middle: reported at its offset, the others read.
        let mut broken = whole.clone();
        let middle = offsets[1] as usize + members[1].len() / 2;
        broken[middle..middle + 4].copy_from_slice(b"\xff\xff\xff\xff");
        let items = read(broken);
        assert_eq!(items[0], Ok((0, "http://x/a".into())));
        assert_eq!(items[1], Err(offsets[1]));
        assert_eq!(items[2], Ok((offsets[2], "http://x/c".into())));
        // Cut off inside the last member.
        let items = read(whole[..whole.len() - 10].to_vec());
        assert_eq!(items.last(), Some(&Err(offsets[2])));
        // Read again by offset.
        let mut records = Records::new(Cursor::new(whole)).unwrap();
        let b = records.read_at(offsets[1], 0).unwrap();
        assert_eq!(b.block, b"b");
    }

    #[test]
    fn records_of_one_gzip_member_are_read_again_by_their_place_in_it() {
        // A whole file gzipped as one member: every record starts at offset 0.
        let plain = ["a", "b", "c"]
            .map(|n| record(&format!("http://x/{n}"), n))
            .concat();
        let mut records = Records::new(Cursor::new(gzip(&plain))).unwrap();
        let all: Vec<Record> = records.by_ref().map(Result::unwrap).collect();
        let places: Vec<(u64, usize)> = all.iter().map(|r| (r.offset, r.within)).collect();
        assert_eq!(places, [(0, 0), (0, 1), (0, 2)]);
        assert_eq!(records.read_at(0, 2).unwrap().block, b"c");
    }

    #[test]
    fn a_record_followed_by_stray_bytes_is_kept() {
        let (a, c) = (record("http://x/a", "one"), record("http://x/c", "three"));
        let stray = [a.clone(), b"stray bytes\r\n".to_vec(), c.clone()].concat();
        let offset_c = (stray.len() - c.len()) as u64;
        assert_eq!(
            read(stray),
            [
                Ok((0, "http://x/a".into())),
                Ok((offset_c, "http://x/c".into()))
            ]
        );
        // A Content-Length too long swallows the next record's start: that block is
        // not the record's, and the next record is still found.
        let long = String::from_utf8(a)
            .unwrap()
            .replace("Length: 3", "Length: 30");
        let items = read([long.into_bytes(), c].concat());
        assert_eq!(items[0], Err(0));
        assert!(matches!(&items[1], Ok((_, uri)) if uri == "http://x/c"));
    }
}
