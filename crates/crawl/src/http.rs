//! The HTTP response a `response` record holds: status, headers and the payload as
//! the page's reader gets it, with transfer and content encodings undone.

use std::io::Read;

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
        let mut slots = [httparse::EMPTY_HEADER; 256];
        let mut head = httparse::Response::new(&mut slots);
        let end = match head.parse(block) {
            Ok(httparse::Status::Complete(end)) => end,
            Ok(httparse::Status::Partial) => return Err("the HTTP header is cut off".into()),
            Err(e) => return Err(format!("not an HTTP response: {e}")),
        };
        let status = head.code.unwrap_or(0);
        let headers: Vec<(String, String)> = head
            .headers
            .iter()
            .map(|h| {
                let value = String::from_utf8_lossy(h.value).trim().to_string();
                (h.name.to_string(), value)
            })
            .collect();
        let mut response = Response {
            status,
            headers,
            body: Vec::new(),
        };
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
        reader
            .take(limit as u64)
            .read_to_end(&mut decoded)
            .map_err(|e| format!("Content-Encoding {encoding}: {e}"))?;
        bytes = decoded;
    }
    bytes.truncate(limit);
    Ok(bytes)
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
    fn a_bomb_stops_at_the_limit() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&vec![b'a'; 10 << 20]).unwrap();
        let mut block = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n".to_vec();
        block.extend(gz.finish().unwrap());
        assert_eq!(Response::parse(&block, 1000).unwrap().body.len(), 1000);
    }
}
