//! A body's bytes: read from disk bounded, decompressed, and its character
//! encoding sniffed. Shared by the document layer, which decodes bodies for the
//! signals, and the renderer, which serves them to Chromium with a charset.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use anyhow::{bail, Context, Result};
use encoding_rs::Encoding;
use flate2::read::MultiGzDecoder;

/// Bodies are cut here. Real pages are well below it (the largest in the
/// training corpus is 1.6 MB); past it, extra bytes only cost time.
pub const MAX_BODY_BYTES: usize = 4 << 20;

/// Reads at most `limit` bytes of a file, decompressed when it is gzip (recognised
/// by its magic bytes, whatever the file is called), so a gzip bomb stops there.
pub fn read_decompressed(path: &Path, limit: u64) -> Result<Vec<u8>> {
    let file = open_regular(path)?;
    let mut reader = BufReader::new(file);
    let gzipped = reader
        .fill_buf()
        .with_context(|| format!("cannot read document {}", path.display()))?
        .starts_with(&[0x1f, 0x8b]);
    let reader: Box<dyn Read> = if gzipped {
        Box::new(MultiGzDecoder::new(reader))
    } else {
        Box::new(reader)
    };
    let mut bytes = Vec::new();
    reader
        .take(limit)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read document {} (corrupt gzip?)", path.display()))?;
    Ok(bytes)
}

/// Opens a document that is a regular file (after symbolic links). A FIFO would block
/// the read until some writer came, and a device could be endless; so the file is
/// opened without blocking and refused unless it is a plain file.
fn open_regular(path: &Path) -> Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .with_context(|| format!("cannot open document {}", path.display()))?;
    let meta = file
        .metadata()
        .with_context(|| format!("cannot read document {}", path.display()))?;
    if !meta.is_file() {
        bail!(
            "document {} is not a regular file (a folder, FIFO, socket or device); give the path of a page",
            path.display()
        );
    }
    Ok(file)
}

/// The encoding of a body: its BOM, then UTF-8 if it is valid and not all ASCII, then
/// a `<meta charset>` in the first 4 KB, then UTF-8 if it is valid, then a statistical
/// guess.
///
/// Valid UTF-8 goes before the `<meta>`, as trafilatura decodes: pages saved or
/// archived are often converted to UTF-8 with their old `<meta charset=gb2312>` left
/// in (a qq.com page read as GBK was all mojibake), while text in a legacy encoding
/// that happens to be valid UTF-8 beyond a few bytes does not occur. Pure ASCII still
/// follows its `<meta>`: ISO-2022-JP is written in ASCII bytes.
pub fn sniff_encoding(bytes: &[u8]) -> &'static Encoding {
    if let Some((encoding, _)) = Encoding::for_bom(bytes) {
        return encoding;
    }
    let utf8 = is_utf8(bytes);
    if utf8 && !bytes.is_ascii() {
        return encoding_rs::UTF_8;
    }
    if let Some(encoding) = meta_charset(&bytes[..bytes.len().min(4096)]) {
        return encoding;
    }
    if utf8 {
        return encoding_rs::UTF_8;
    }
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(
        &bytes[..bytes.len().min(64 * 1024)],
        bytes.len() <= 64 * 1024,
    );
    detector.guess(None, chardetng::Utf8Detection::Allow)
}

/// True when the bytes are UTF-8, but for a character the cut at the end may have
/// split.
fn is_utf8(bytes: &[u8]) -> bool {
    match std::str::from_utf8(bytes) {
        Ok(_) => true,
        Err(error) => error.error_len().is_none(),
    }
}

/// Finds `charset=NAME` in a `<meta>` tag of the head of the document (covers both
/// `<meta charset="x">` and `<meta http-equiv content="text/html; charset=x">`). Other
/// tags' `charset` is not the page's: the Wayback Machine puts
/// `<script charset="utf-8">` above a GB2312 page's own `<meta>`.
fn meta_charset(head: &[u8]) -> Option<&'static Encoding> {
    let lower: Vec<u8> = head.iter().map(u8::to_ascii_lowercase).collect();
    let mut from = 0;
    while let Some(pos) = find(&lower[from..], b"<meta") {
        let tag_start = from + pos;
        let tag_end =
            memchr::memchr(b'>', &lower[tag_start..]).map_or(lower.len(), |end| tag_start + end);
        if let Some(encoding) = charset_in(&lower[tag_start..tag_end]) {
            return Some(encoding);
        }
        from = tag_end;
    }
    None
}

/// The encoding a tag's `charset=NAME` names, if any.
fn charset_in(tag: &[u8]) -> Option<&'static Encoding> {
    let needle = b"charset=";
    let mut from = 0;
    while let Some(pos) = find(&tag[from..], needle) {
        let start = from + pos + needle.len();
        let rest = &tag[start..];
        let rest = rest
            .strip_prefix(b"\"")
            .or_else(|| rest.strip_prefix(b"'"))
            .unwrap_or(rest);
        let end = rest
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.')))
            .unwrap_or(rest.len());
        if let Some(encoding) = Encoding::for_label(&rest[..end]) {
            // A page that says UTF-16 in ASCII cannot be UTF-16 (WHATWG rule).
            if encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE {
                return Some(encoding_rs::UTF_8);
            }
            return Some(encoding);
        }
        from = start;
    }
    None
}

/// Position of `needle` in `haystack` (SIMD search: a page's scripts are scanned
/// for their closing tag with it).
pub fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

/// Text in UTF-16 or UTF-32, which a BOM may not announce (and whose UTF-32 BOM
/// the WHATWG sniffing that [`sniff_encoding`] follows does not know). Markup is
/// mostly ASCII, and an ASCII character leaves zero bytes at fixed places of its
/// 2- or 4-byte unit: those places give the encoding away. Without this a UTF-16
/// page read as UTF-8 is text with a NUL after every letter, taken for binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WideUnicode {
    Utf16Le,
    Utf16Be,
    Utf32Le,
    Utf32Be,
}

impl WideUnicode {
    /// The wide encoding of `bytes`, judged on their first 4 KB; None for text in
    /// any other encoding (UTF-16 with its BOM is left to [`sniff_encoding`]).
    pub fn sniff(bytes: &[u8]) -> Option<WideUnicode> {
        if bytes.starts_with(&[0xFF, 0xFE, 0, 0]) {
            return Some(WideUnicode::Utf32Le);
        }
        if bytes.starts_with(&[0, 0, 0xFE, 0xFF]) {
            return Some(WideUnicode::Utf32Be);
        }
        if Encoding::for_bom(bytes).is_some() {
            return None;
        }
        let head = &bytes[..bytes.len().min(4096) / 4 * 4];
        if head.is_empty() {
            return None;
        }
        // zeros[i]: the share of 4-byte units whose byte i is zero.
        let units = (head.len() / 4) as f64;
        let zeros: Vec<f64> = (0..4)
            .map(|i| head.iter().skip(i).step_by(4).filter(|&&b| b == 0).count() as f64 / units)
            .collect();
        // Any character of the Basic Multilingual Plane leaves two zero bytes in
        // UTF-32; an ASCII one a third, and in UTF-16 one of its two.
        let many = |share: f64| share >= 0.3;
        let few = |share: f64| share <= 0.1;
        let all = |share: f64| share >= 0.9;
        match zeros[..] {
            [a, _, c, d] if few(a) && all(c) && all(d) => Some(WideUnicode::Utf32Le),
            [a, b, _, d] if all(a) && all(b) && few(d) => Some(WideUnicode::Utf32Be),
            [a, b, c, d] if few(a) && few(c) && many(b) && many(d) => Some(WideUnicode::Utf16Le),
            [a, b, c, d] if many(a) && many(c) && few(b) && few(d) => Some(WideUnicode::Utf16Be),
            _ => None,
        }
    }

    /// `bytes` decoded (a leading BOM dropped; what is not a character becomes U+FFFD).
    pub fn decode(self, bytes: &[u8]) -> String {
        let text = match self {
            WideUnicode::Utf16Le => encoding_rs::UTF_16LE.decode_without_bom_handling(bytes).0,
            WideUnicode::Utf16Be => encoding_rs::UTF_16BE.decode_without_bom_handling(bytes).0,
            WideUnicode::Utf32Le | WideUnicode::Utf32Be => {
                let unit = |u: &[u8]| {
                    let u = [u[0], u[1], u[2], u[3]];
                    match self {
                        WideUnicode::Utf32Le => u32::from_le_bytes(u),
                        _ => u32::from_be_bytes(u),
                    }
                };
                let characters = bytes
                    .chunks_exact(4)
                    .map(|u| char::from_u32(unit(u)).unwrap_or(char::REPLACEMENT_CHARACTER));
                characters.collect::<String>().into()
            }
        };
        text.strip_prefix('\u{FEFF}').unwrap_or(&text).to_string()
    }
}
