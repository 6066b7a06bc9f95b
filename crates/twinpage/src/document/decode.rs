//! From bytes on disk to a Unicode string a parser can take.
//!
//! Pages arrive gzip'd or not, in any charset, sometimes binary, sometimes enormous.
//! Everything here is bounded: a body is cut at [`MAX_BODY_BYTES`] before decoding so
//! a 50 MB page costs the same as a 4 MB one, and gzip is read through a `take` so a
//! compression bomb cannot fill memory. What no reader sees of a word (its soft
//! hyphens, how its accents are encoded) is settled here, once, so that every reading
//! of the body has the words a reader reads.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use anyhow::{Context, Result};
use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

use twinpage_util::body::{find, read_decompressed, sniff_encoding, WideUnicode, MAX_BODY_BYTES};

/// File names a folder of pages holds documents under.
const HTML_SUFFIXES: [&str; 4] = [".html", ".htm", ".html.gz", ".htm.gz"];

/// The pages in a folder and its subfolders (`.html`, `.htm`, gzip'd or not), sorted.
/// Symbolic links are followed, but each folder and each file is taken once, so a
/// link back to a parent folder (a loop) or a second path to the same page adds
/// nothing.
pub fn html_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut seen = HashSet::new();
    list_html(dir, &mut seen, &mut files)?;
    files.sort();
    Ok(files)
}

fn list_html(dir: &Path, seen: &mut HashSet<(u64, u64)>, out: &mut Vec<PathBuf>) -> Result<()> {
    let listing = || format!("cannot list {}", dir.display());
    if !seen.insert(identity(&std::fs::metadata(dir).with_context(listing)?)) {
        return Ok(());
    }
    // In name order, so that of two paths to one page the first in order is kept.
    let mut paths = std::fs::read_dir(dir)
        .with_context(listing)?
        .map(|entry| Ok(entry?.path()))
        .collect::<std::io::Result<Vec<PathBuf>>>()
        .with_context(listing)?;
    paths.sort();
    for path in paths {
        // A dangling link is not a page: skip it as `is_dir` and `is_file` would.
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            list_html(&path, seen, out)?;
        } else if is_html_name(&path) && seen.insert(identity(&meta)) {
            out.push(path);
        }
    }
    Ok(())
}

/// What a file is, whatever path reached it: its device and inode.
fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

fn is_html_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|name| {
            let lower = name.to_ascii_lowercase();
            HTML_SUFFIXES.iter().any(|s| lower.ends_with(s))
        })
}

/// A body as read from disk, cut and decoded.
#[derive(Debug, Clone)]
pub struct DecodedBody {
    /// The body as text (lossy where the declared charset was wrong).
    pub text: String,
    /// Length of the raw body in bytes, before the cut.
    pub raw_len: usize,
    /// Hash of the raw bytes read (after the cut), for the identical-bodies test.
    pub raw_hash: [u8; 32],
    /// True when the body was longer than [`MAX_BODY_BYTES`].
    pub truncated: bool,
    /// True when the bytes do not look like text at all.
    pub binary: bool,
}

/// Reads a document file (`.html` or `.html.gz`), cut to [`MAX_BODY_BYTES`].
pub fn read_body(path: &Path) -> Result<DecodedBody> {
    let mut bytes = read_decompressed(path, MAX_BODY_BYTES as u64 + 1)?;
    let truncated = bytes.len() > MAX_BODY_BYTES;
    let raw_len = if truncated {
        let on_disk = std::fs::metadata(path).map_or(0, |m| m.len() as usize);
        on_disk.max(bytes.len())
    } else {
        bytes.len()
    };
    bytes.truncate(MAX_BODY_BYTES);
    Ok(decode_bytes(&bytes, raw_len, truncated))
}

/// Decodes raw bytes: UTF-16 or UTF-32 (with a BOM or without), else BOM first, then
/// a `<meta charset>` in the first 4 KB, then a statistical guess. Binary bodies
/// decode to an empty text.
pub fn decode_bytes(bytes: &[u8], raw_len: usize, truncated: bool) -> DecodedBody {
    let raw_hash = *blake3::hash(bytes).as_bytes();
    let wide = WideUnicode::sniff(bytes);
    let binary = wide.is_none() && looks_binary(bytes);
    let text = match wide {
        Some(wide) => wide.decode(bytes),
        None if binary => String::new(),
        None => sniff_encoding(bytes).decode(bytes).0.into_owned(),
    };
    bounded(text, raw_hash, raw_len, truncated, binary)
}

/// A body that is Unicode already: a browser's serialised DOM (a synthetic body),
/// cut to [`MAX_BODY_BYTES`] at a character boundary. Nothing is sniffed: its
/// `<meta charset>` names the bytes the page was served in, not these, and decoding
/// them as ISO-8859-1 would garble every accented letter.
pub fn decode_unicode(text: &str) -> DecodedBody {
    let mut end = text.len().min(MAX_BODY_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = &text[..end];
    let raw_hash = *blake3::hash(cut.as_bytes()).as_bytes();
    bounded(
        cut.to_owned(),
        raw_hash,
        text.len(),
        end < text.len(),
        false,
    )
}

/// The decoded body, with what would make parsing it slow cut off.
fn bounded(
    mut text: String,
    raw_hash: [u8; 32],
    raw_len: usize,
    truncated: bool,
    binary: bool,
) -> DecodedBody {
    let nested_too_deep = cut_deep_nesting(&mut text);
    let attributes_cut = cut_attribute_floods(&mut text);
    DecodedBody {
        text: as_read(text),
        raw_len,
        raw_hash,
        truncated: truncated || nested_too_deep || attributes_cut,
        binary,
    }
}

/// The soft hyphen, as a character and as the references that write it: where a long
/// word may break at the end of a line, which no reader sees. German public sites'
/// publishing system sets one in every long word (`Mit&shy;tel&shy;al&shy;ter`), and a
/// copy of their text without them showed the same words as other words: of 28 real
/// pages that carry them, 4 were called distinct from themselves without them.
const SOFT_HYPHENS: [&str; 4] = ["\u{ad}", "&shy;", "&#173;", "&#xad;"];

/// `text` as a reader reads it: without its soft hyphens (the character and its
/// references), and with every accented letter written as one character (Unicode's
/// composed form, NFC). A letter and its accent written apart (`e` and U+0301) look the
/// same as the letter written whole, but are other bytes and so other words: 47 of the
/// 922 pages of trafilatura's evaluation write some letters apart (text pasted from a
/// Mac or a PDF), and their copies as a reading app extracts them write them whole.
/// A text that needs neither change is returned as it is.
pub fn as_read(text: String) -> String {
    static HYPHENS: LazyLock<AhoCorasick> = LazyLock::new(|| {
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(SOFT_HYPHENS)
            .expect("four short patterns build a matcher")
    });
    let text = if HYPHENS.is_match(&text) {
        HYPHENS.replace_all(&text, &[""; SOFT_HYPHENS.len()])
    } else {
        text
    };
    match is_nfc_quick(text.chars()) {
        IsNormalized::Yes => text,
        IsNormalized::No | IsNormalized::Maybe => text.nfc().collect(),
    }
}

/// Attributes a start tag keeps; the rest of the tag is dropped. The HTML tokenizer
/// checks each attribute against the tag's earlier ones (a repeated name is dropped),
/// so one tag with 100 000 attributes cost 2.4 s and with a million 43 s. Real tags
/// carry a few dozen.
pub const MAX_TAG_ATTRIBUTES: usize = 256;

/// Drops what follows the [`MAX_TAG_ATTRIBUTES`]th attribute of any start tag (up to
/// its `>`); returns whether it did. One linear pass, script and style contents
/// skipped as in [`cut_deep_nesting`].
fn cut_attribute_floods(text: &mut String) -> bool {
    let bytes = text.as_bytes();
    let mut cuts: Vec<std::ops::Range<usize>> = Vec::new();
    let mut i = 0;
    while let Some(offset) = memchr::memchr(b'<', &bytes[i..]) {
        i += offset + 1;
        let rest = &bytes[i..];
        if !rest.first().is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        let name_len = rest
            .iter()
            .position(|b| !b.is_ascii_alphanumeric())
            .unwrap_or(rest.len());
        let name = &rest[..name_len];
        let (end, cut_from) = scan_start_tag(bytes, i + name_len);
        cuts.extend(cut_from.map(|from| from..end));
        i = end;
        if let Some(raw_text) = raw_text_element(name) {
            i = find_closing_tag(bytes, i, raw_text).unwrap_or(bytes.len());
        }
    }
    if cuts.is_empty() {
        return false;
    }
    let mut kept = String::with_capacity(text.len());
    let mut from = 0;
    for cut in cuts {
        kept.push_str(&text[from..cut.start]);
        from = cut.end;
    }
    kept.push_str(&text[from..]);
    *text = kept;
    true
}

/// Reads a start tag from just after its name: where it ends (its `>` outside quoted
/// values, or the text's end), and where its first attribute beyond
/// [`MAX_TAG_ATTRIBUTES`] starts, if it has that many. An attribute starts at a
/// character after white space, outside quotes and not after `=`.
fn scan_start_tag(bytes: &[u8], from: usize) -> (usize, Option<usize>) {
    let (mut attributes, mut cut_from) = (0, None);
    let (mut quote, mut after_space, mut after_equals) = (None, false, false);
    for (j, &b) in bytes.iter().enumerate().skip(from) {
        if let Some(q) = quote {
            if b == q {
                quote = None;
            }
            continue;
        }
        match b {
            b'>' => return (j, cut_from),
            b'"' | b'\'' if after_equals => quote = Some(b),
            b if b.is_ascii_whitespace() => {
                after_space = true;
                continue;
            }
            b'=' => {
                after_equals = true;
                after_space = false;
                continue;
            }
            _ if after_space && !after_equals => {
                attributes += 1;
                if attributes == MAX_TAG_ATTRIBUTES + 1 {
                    cut_from = Some(j);
                }
            }
            _ => {}
        }
        after_space = false;
        after_equals = false;
    }
    (bytes.len(), cut_from)
}

/// Open elements a body may nest before it is cut. The HTML tree builder scans the
/// stack of open elements at every start tag, so 100 000 nested `<div>`s cost
/// minutes; browsers cap nesting too (Chromium at 512). Real pages stay far below
/// this estimate even with unclosed `<p>` and `<li>`.
pub const MAX_OPEN_ELEMENTS: usize = 4096;

/// Elements that never take a closing tag.
const VOID_ELEMENTS: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// Cuts `text` where a rough count of open elements first passes
/// [`MAX_OPEN_ELEMENTS`]; returns whether it did. Script and style contents are
/// skipped (their `<` are code, not tags).
fn cut_deep_nesting(text: &mut String) -> bool {
    let bytes = text.as_bytes();
    let mut open: usize = 0;
    let mut i = 0;
    while let Some(offset) = memchr::memchr(b'<', &bytes[i..]) {
        let at = i + offset;
        let rest = &bytes[at + 1..];
        let name_len = rest
            .iter()
            .position(|b| !b.is_ascii_alphanumeric())
            .unwrap_or(rest.len());
        i = at + 1;
        if rest.first() == Some(&b'/') {
            open = open.saturating_sub(1);
        } else if name_len > 0 && rest[0].is_ascii_alphabetic() {
            let name = &rest[..name_len];
            if let Some(raw_text) = raw_text_element(name) {
                i = find_closing_tag(bytes, i, raw_text).unwrap_or(bytes.len());
            } else if !VOID_ELEMENTS
                .iter()
                .any(|void| name.eq_ignore_ascii_case(void.as_bytes()))
            {
                open += 1;
                if open > MAX_OPEN_ELEMENTS {
                    text.truncate(at);
                    return true;
                }
            }
        }
    }
    false
}

/// `script` or `style` (lower-cased) when `name` is one of them, in any case: their
/// contents are code, whose `<` are no tags.
fn raw_text_element(name: &[u8]) -> Option<&'static str> {
    ["script", "style"]
        .into_iter()
        .find(|element| name.eq_ignore_ascii_case(element.as_bytes()))
}

/// A body whose first 8 KB hold NUL bytes or mostly control characters is not a page.
fn looks_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(8192)];
    if head.is_empty() {
        return false;
    }
    // UTF-16 pages carry NULs legitimately; their BOM says so.
    if head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
        return false;
    }
    let control = head
        .iter()
        .filter(|&&b| b == 0 || (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0C)))
        .count();
    head.contains(&0) || control * 10 > head.len()
}

/// Position of the next `</name` (any case) from `from`.
fn find_closing_tag(bytes: &[u8], from: usize, name: &str) -> Option<usize> {
    let mut j = from;
    while let Some(offset) = find(&bytes[j..], b"</") {
        let k = j + offset;
        let tag = &bytes[k + 2..];
        if tag.len() >= name.len() && tag[..name.len()].eq_ignore_ascii_case(name.as_bytes()) {
            return Some(k);
        }
        j = k + 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use std::fs::File;

    use super::*;

    fn mkfifo(path: &Path) {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    #[test]
    fn a_flood_of_attributes_is_cut_and_the_page_kept() {
        let flood: String = (0..100_000).map(|i| format!(" a{i}=\"x > y\"")).collect();
        let page = format!(
            "<html><body><div id=\"top\"{flood}>kept text</div><p class='q'>more</p></body></html>"
        );
        let body = decode(page.as_bytes());
        assert!(body.truncated);
        assert!(body.text.len() < 20_000, "{} bytes left", body.text.len());
        assert!(body
            .text
            .contains(" a254=\"x > y\" >kept text</div><p class='q'>more</p>"));
        assert!(!body.text.contains("a255="));
        // An ordinary tag, quoted `>` and all, is left alone.
        let plain = "<p title=\"a > b\" data-x='1' hidden>text</p><script>if (a<b) x = '<p a b c>'</script>";
        let body = decode(plain.as_bytes());
        assert!(!body.truncated);
        assert_eq!(body.text, plain);
    }

    /// A page in UTF-16 or UTF-32 with no BOM reads as the same text as its UTF-8
    /// copy (it read as binary, no text: two copies of one page scored p 0.18).
    #[test]
    fn wide_unicode_without_a_bom_reads_as_its_text() {
        let page = "<html><head><title>Привет, мир</title></head><body><p>Один и тот же \
            текст, the same text, 一样的文字 — and an emoji 🦀.</p></body></html>";
        let utf16 = |le: bool| -> Vec<u8> {
            let unit = |u: u16| if le { u.to_le_bytes() } else { u.to_be_bytes() };
            page.encode_utf16().flat_map(unit).collect()
        };
        let utf32 = |le: bool| -> Vec<u8> {
            let unit = |c: char| {
                if le {
                    (c as u32).to_le_bytes()
                } else {
                    (c as u32).to_be_bytes()
                }
            };
            page.chars().flat_map(unit).collect()
        };
        let mut bom32 = vec![0xFF, 0xFE, 0, 0];
        bom32.extend(utf32(true));
        for (name, bytes) in [
            ("UTF-16LE", utf16(true)),
            ("UTF-16BE", utf16(false)),
            ("UTF-32LE", utf32(true)),
            ("UTF-32BE", utf32(false)),
            ("UTF-32LE with its BOM", bom32),
        ] {
            let body = decode(&bytes);
            assert!(!body.binary, "{name} taken for binary");
            assert_eq!(body.text, page, "{name}");
        }
        // Binary with zeros stays binary; UTF-8 stays UTF-8.
        let binary: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        assert!(decode(&binary).binary);
        assert_eq!(decode(page.as_bytes()).text, page);
    }

    #[test]
    fn a_fifo_is_refused_at_once_not_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("page.html");
        mkfifo(&fifo);
        let (done, wait) = std::sync::mpsc::channel();
        let path = fifo.clone();
        std::thread::spawn(move || done.send(read_body(&path).map(|_| ())).unwrap());
        let outcome = wait
            .recv_timeout(std::time::Duration::from_secs(5))
            .expect("reading a FIFO must not block");
        let e = format!("{:#}", outcome.unwrap_err());
        assert!(
            e.contains("not a regular file") && e.contains("page.html"),
            "{e}"
        );
        let e = format!("{:#}", read_body(dir.path()).unwrap_err());
        assert!(e.contains("not a regular file"), "{e}");
    }

    #[test]
    fn folders_are_listed_once_through_links_and_loops() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("sub")).unwrap();
        std::fs::write(d.join("a.html"), "a").unwrap();
        std::fs::write(d.join("sub/b.html"), "b").unwrap();
        // A loop back to the top, a second path to a page, a dangling link.
        std::os::unix::fs::symlink(d, d.join("sub/loop")).unwrap();
        std::os::unix::fs::symlink(d.join("a.html"), d.join("sub/again.html")).unwrap();
        std::os::unix::fs::symlink(d.join("gone"), d.join("sub/gone.html")).unwrap();
        let files = html_files(d).unwrap();
        assert_eq!(files, [d.join("a.html"), d.join("sub/b.html")]);
    }

    fn decode(bytes: &[u8]) -> DecodedBody {
        decode_bytes(bytes, bytes.len(), false)
    }

    #[test]
    fn utf8_bom_is_stripped() {
        let body = decode(b"\xEF\xBB\xBF<p>caf\xC3\xA9</p>");
        assert_eq!(body.text, "<p>café</p>");
    }

    #[test]
    fn meta_charset_decides_legacy_encodings() {
        let body = decode(b"<meta charset=\"windows-1251\"><p>\xcf\xf0\xe8\xe2\xe5\xf2</p>");
        assert!(body.text.contains("Привет"), "{}", body.text);
        let body = decode(
            b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=ISO-8859-1\"><p>caf\xe9</p>",
        );
        assert!(body.text.contains("café"));
    }

    #[test]
    fn utf8_wins_over_a_stale_meta_charset() {
        // A page converted to UTF-8 with its old `<meta>` left in (Readability's qq.com page).
        let body = decode("<meta charset=gb2312><p>人工智能迈上新台阶</p>".as_bytes());
        assert!(body.text.contains("人工智能迈上新台阶"), "{}", body.text);
    }

    #[test]
    fn only_a_meta_tag_names_the_charset() {
        // The Wayback Machine's scripts say utf-8 above the archived page's own `<meta>`.
        let mut page = b"<script src=/wombat.js charset=\"utf-8\"></script>\
            <meta http-equiv=\"Content-Type\" content=\"text/html; charset=gb2312\"/><p>"
            .to_vec();
        page.extend_from_slice(&encoding_rs::GBK.encode("话剧在河北各市巡演结束").0);
        let body = decode(&page);
        assert!(
            body.text.contains("话剧在河北各市巡演结束"),
            "{}",
            body.text
        );
    }

    #[test]
    fn ascii_follows_its_meta_charset() {
        // ISO-2022-JP is written in ASCII bytes, which are valid UTF-8 too.
        let mut page = b"<meta charset=iso-2022-jp><p>".to_vec();
        page.extend_from_slice(&encoding_rs::ISO_2022_JP.encode("欲張りなイヌ").0);
        assert!(page.is_ascii());
        let body = decode(&page);
        assert!(body.text.contains("欲張りなイヌ"), "{}", body.text);
    }

    #[test]
    fn undeclared_legacy_bytes_are_guessed_not_dropped() {
        let body = decode("<p>Größe und Übermaß, schön für Jürgen</p>".as_bytes());
        assert!(body.text.contains("Größe"));
        let latin1: Vec<u8> = "<p>Größe und Übermaß, schön für Jürgen</p>"
            .chars()
            .map(|c| c as u32 as u8)
            .collect();
        let body = decode(&latin1);
        assert!(body.text.contains("Größe"), "{}", body.text);
    }

    #[test]
    fn binary_bodies_are_flagged_and_empty() {
        let body = decode(&[0x89, b'P', b'N', b'G', 0, 0, 0, 13, 1, 2, 3]);
        assert!(body.binary);
        assert!(body.text.is_empty());
        assert!(!decode(b"").binary);
    }

    #[test]
    fn hostile_nesting_is_cut_but_real_markup_is_not() {
        let deep = "<div>".repeat(MAX_OPEN_ELEMENTS + 10) + "deep";
        let body = decode(deep.as_bytes());
        assert!(body.truncated);
        assert_eq!(body.text.len(), 5 * MAX_OPEN_ELEMENTS);
        let flat = "<p>a<br>b</p><script>if (a<b) { x = '<div>'; }</script>".repeat(5000);
        let body = decode(flat.as_bytes());
        assert!(!body.truncated);
        assert_eq!(body.text.len(), flat.len());
    }

    #[test]
    fn gzip_files_are_read_and_cut() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        // Named .html: gzip is known by its magic bytes.
        let path = dir.path().join("page.html");
        let mut gz = flate2::write::GzEncoder::new(
            File::create(&path).unwrap(),
            flate2::Compression::fast(),
        );
        gz.write_all(&vec![b'a'; MAX_BODY_BYTES + 10]).unwrap();
        gz.finish().unwrap();
        let body = read_body(&path).unwrap();
        assert!(body.truncated);
        assert_eq!(body.text.len(), MAX_BODY_BYTES);
    }
}
