//! The HTTP response a `response` record holds: status, headers and the payload as
//! the page's reader gets it, with transfer and content encodings undone.

use std::io::{self, Read};

use flate2::read::{GzDecoder, ZlibDecoder};

/// An HTTP response as archived.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// The payload, decoded (no chunking, no content encoding), cut at the limit given.
    pub body: Vec<u8>,
}

impl Response {
    /// Parses a response block; `limit` bounds the decoded payload (a compression
    /// bomb stops there).
    pub fn parse(block: &[u8], limit: usize) -> Result<Response, String> {
        let (mut response, end) = Response::head(block)?;
        let payload = &block[end..];
        let payload = match response.header("Transfer-Encoding") {
            Some(te) if te.to_ascii_lowercase().contains("chunked") => {
                // Writers differ: some keep the chunks as sent, some store the payload
                // already joined but keep the header. Joined bytes do not parse as chunks.
                dechunk(payload).unwrap_or_else(|| payload.to_vec())
            }
            _ => payload.to_vec(),
        };
        let encoding = response
            .header("Content-Encoding")
            .unwrap_or("")
            .to_ascii_lowercase();
        response.body = decode(&payload, &encoding, limit)?;
        Ok(response)
    }

    /// The status and headers of a response block, and where its payload starts; the
    /// body is left empty. A revisit's block is this: the header of the new response,
    /// whose payload is the original's (and may say `Content-Encoding` all the same).
    ///
    /// Lenient as replay tools are, because a crawl records what servers sent: any
    /// `HTTP/…` version (`HTTP/2`, `http/1.1`), no reason phrase, spaces before a
    /// header's colon, folded header lines; a header line that is not one (no colon,
    /// control characters) is skipped, not the page.
    pub fn head(block: &[u8]) -> Result<(Response, usize), String> {
        let (status, headers_start) = status_line(block)?;
        let headers_end = block.len().min(headers_start + MAX_HEAD_BYTES);
        // httparse checks the status line strictly: it is given one it accepts.
        let mut head = STATUS_LINE_PARSED.to_vec();
        head.extend_from_slice(&block[headers_start..headers_end]);
        let mut slots = [httparse::EMPTY_HEADER; 256];
        let mut parsed = httparse::Response::new(&mut slots);
        let end = match httparse::ParserConfig::default()
            .allow_spaces_after_header_name_in_responses(true)
            .allow_obsolete_multiline_headers_in_responses(true)
            .ignore_invalid_headers_in_responses(true)
            .parse_response(&mut parsed, &head)
        {
            Ok(httparse::Status::Complete(end)) => end - STATUS_LINE_PARSED.len() + headers_start,
            // A response with no blank line after its header is all header.
            Ok(httparse::Status::Partial) if headers_end == block.len() => block.len(),
            Ok(httparse::Status::Partial) => {
                return Err(format!("the HTTP header is over {MAX_HEAD_BYTES} bytes"))
            }
            Err(e) => return Err(format!("not an HTTP response: {e}")),
        };
        let headers = parsed
            .headers
            .iter()
            .map(|h| {
                let value = String::from_utf8_lossy(h.value).trim().to_string();
                (h.name.to_string(), value)
            })
            .collect();
        let response = Response {
            status,
            headers,
            body: Vec::new(),
        };
        Ok((response, end))
    }

    /// The value of the named header (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// The media type of `Content-Type`, lower case, without parameters.
    pub fn media_type(&self) -> Option<String> {
        let value = self.header("Content-Type")?;
        let media = value.split(';').next().unwrap_or("").trim();
        Some(media.to_ascii_lowercase()).filter(|m| !m.is_empty())
    }

    /// The `charset` parameter of `Content-Type`, when the server named one.
    pub fn charset(&self) -> Option<String> {
        let value = self.header("Content-Type")?;
        value.split(';').skip(1).find_map(|param| {
            let (name, value) = param.split_once('=')?;
            name.trim()
                .eq_ignore_ascii_case("charset")
                .then(|| value.trim().trim_matches(['"', '\'']).to_string())
        })
    }
}

/// An HTTP header longer than this is not one.
const MAX_HEAD_BYTES: usize = 1 << 20;

/// The status line handed to httparse in place of the recorded one.
const STATUS_LINE_PARSED: &[u8] = b"HTTP/1.1 200 OK\r\n";

/// The status code of a response's first line (`HTTP/… CODE [reason]`), and where
/// the header lines start.
fn status_line(block: &[u8]) -> Result<(u16, usize), String> {
    let end = memchr::memchr(b'\n', block).ok_or("the HTTP header is cut off")?;
    let line = String::from_utf8_lossy(&block[..end]);
    let mut words = line.split_ascii_whitespace();
    let is_http = words
        .next()
        .is_some_and(|version| version.to_ascii_lowercase().starts_with("http/"));
    let code = words
        .next()
        .and_then(|code| code.parse::<u16>().ok())
        .filter(|code| (100..1000).contains(code));
    match (is_http, code) {
        (true, Some(code)) => Ok((code, end + 1)),
        _ => {
            let start: String = line.trim_end().chars().take(40).collect();
            Err(format!("not an HTTP response: it starts with `{start}`"))
        }
    }
}

/// The value of the named header (case-insensitive).
pub(crate) fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Joins a chunked payload; None when it is not chunked after all.
fn dechunk(mut rest: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(rest.len());
    loop {
        let line_end = memchr::memchr(b'\n', rest)?;
        let line = std::str::from_utf8(&rest[..line_end]).ok()?;
        let size = line.split(';').next()?.trim();
        let size = usize::from_str_radix(size, 16).ok()?;
        rest = &rest[line_end + 1..];
        if size == 0 {
            return Some(out);
        }
        // A chunk cut off by the end of the record keeps what arrived.
        let take = size.min(rest.len());
        out.extend_from_slice(&rest[..take]);
        rest = &rest[take..];
        if rest.is_empty() {
            return Some(out);
        }
        rest = rest
            .strip_prefix(b"\r\n")
            .or_else(|| rest.strip_prefix(b"\n"))?;
    }
}

/// Undoes a Content-Encoding (gzip, deflate, br, zstd; several, in order).
fn decode(payload: &[u8], encodings: &str, limit: usize) -> Result<Vec<u8>, String> {
    let mut bytes = payload.to_vec();
    // Encodings are listed in the order they were applied: undo the last first.
    for encoding in encodings.split(',').map(str::trim).rev() {
        let reader: Box<dyn Read + '_> = match encoding {
            "" | "identity" | "none" => continue,
            "gzip" | "x-gzip" => Box::new(GzDecoder::new(bytes.as_slice())),
            "deflate" if bytes.first().is_some_and(|b| b & 0x0f == 8) => {
                Box::new(ZlibDecoder::new(bytes.as_slice()))
            }
            "deflate" => Box::new(flate2::read::DeflateDecoder::new(bytes.as_slice())),
            "br" => Box::new(brotli_decompressor::Decompressor::new(
                bytes.as_slice(),
                4096,
            )),
            "zstd" => Box::new(
                zstd::stream::read::Decoder::new(bytes.as_slice())
                    .map_err(|e| format!("Content-Encoding zstd: {e}"))?,
            ),
            other => return Err(format!("unknown Content-Encoding `{other}`")),
        };
        let mut decoded = Vec::new();
        let read = reader.take(limit as u64).read_to_end(&mut decoded);
        match read {
            Ok(_) => bytes = decoded,
            // A payload cut short (a crawler's size limit, `WARC-Truncated`) keeps
            // what it holds, as a browser shows what arrived.
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof && !decoded.is_empty() => {
                bytes = decoded
            }
            // A writer that stored the payload decoded may have kept the header, as
            // with `Transfer-Encoding`: plain text is read as it is.
            Err(_) if is_plain_text(&bytes) => {}
            Err(e) => return Err(format!("Content-Encoding {encoding}: {e}")),
        }
    }
    bytes.truncate(limit);
    Ok(bytes)
}

/// Whether bytes read as text rather than compressed data: no control byte but
/// tab, line ends and form feed in their first 512 (compressed data has several).
fn is_plain_text(bytes: &[u8]) -> bool {
    let control = |b: &u8| *b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | b'\x0c');
    !bytes.is_empty() && !bytes[..bytes.len().min(512)].iter().any(control)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn chunked_and_gzipped_payloads_are_decoded() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"<p>Hello, world</p>").unwrap();
        let gzipped = gz.finish().unwrap();
        let (first, second) = gzipped.split_at(7);
        let mut block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=\"windows-1251\"\r\n\
            Transfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n"
            .to_vec();
        for chunk in [first, second] {
            block.extend(format!("{:x}\r\n", chunk.len()).bytes());
            block.extend(chunk);
            block.extend(b"\r\n");
        }
        block.extend(b"0\r\n\r\n");
        let response = Response::parse(&block, 1 << 20).unwrap();
        assert_eq!(response.status, 200);
        assert_eq!(response.body, b"<p>Hello, world</p>");
        assert_eq!(response.media_type().as_deref(), Some("text/html"));
        assert_eq!(response.charset().as_deref(), Some("windows-1251"));
    }

    #[test]
    fn a_payload_stored_joined_under_a_chunked_header_is_kept() {
        let block = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n<html>joined</html>";
        assert_eq!(
            Response::parse(block, 100).unwrap().body,
            b"<html>joined</html>"
        );
    }

    #[test]
    fn a_response_as_servers_send_it_is_read() {
        // A status line of HTTP/2 without a reason, a space before a colon, a
        // folded line, and a line that is no header (Common Crawl and wget captures).
        let block =
            b"HTTP/2 200\r\nP3P : CP=\"NOI\"\r\nContent-Type: text/html;\r\n charset=utf-8\r\n\
            no header here\r\nX-Bad: a\x01b\r\n\r\n<p>Hi</p>";
        let response = Response::parse(block, 100).unwrap();
        assert_eq!(response.status, 200);
        assert_eq!(response.body, b"<p>Hi</p>");
        assert_eq!(response.header("P3P"), Some("CP=\"NOI\""));
        assert_eq!(response.charset().as_deref(), Some("utf-8"));
        let lower = Response::parse(b"http/1.1 404 Not Found\r\n\r\n", 100).unwrap();
        assert_eq!(lower.status, 404);
        assert!(Response::parse(b"<html>no header</html>\r\n", 100)
            .unwrap_err()
            .starts_with("not an HTTP response: it starts with `<html>"));
    }

    #[test]
    fn a_payload_stored_decoded_under_its_content_encoding_is_kept() {
        let block = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n<html>plain</html>";
        assert_eq!(
            Response::parse(block, 100).unwrap().body,
            b"<html>plain</html>"
        );
        // A revisit's header may name the encoding of a payload it does not hold.
        let revisit = b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n\r\n";
        let (head, end) = Response::head(revisit).unwrap();
        assert_eq!(
            (head.status, head.header("Content-Encoding"), end),
            (200, Some("br"), revisit.len())
        );
    }

    #[test]
    fn a_compressed_payload_cut_short_keeps_what_it_holds() {
        let text = "<p>".to_string() + &"words of a page ".repeat(2000);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text.as_bytes()).unwrap();
        let gzipped = gz.finish().unwrap();
        let mut block = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n".to_vec();
        block.extend(&gzipped[..gzipped.len() / 2]);
        let body = Response::parse(&block, 1 << 20).unwrap().body;
        assert!(!body.is_empty() && body.len() < text.len());
        assert!(text.as_bytes().starts_with(&body));
    }

    #[test]
    fn a_bomb_stops_at_the_limit() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&vec![b'a'; 10 << 20]).unwrap();
        let mut block = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n".to_vec();
        block.extend(gz.finish().unwrap());
        assert_eq!(Response::parse(&block, 1000).unwrap().body.len(), 1000);
    }
}
