//! What a page gets when it asks for something: answered by the tab itself.
//!
//! Every request a tab makes is paused by the DevTools `Fetch` domain and answered
//! here, so no HTTP server runs and nothing reaches a socket. A document is offered
//! at `<origin>/r<N>/<file name>`, a path unique to one render so that no render sees
//! another's files (answers also say `Cache-Control: no-store`). Under that path the
//! page gets the document and, as its [`ServePolicy`] allows, regular files inside
//! the document's folder whose path has no name starting with `.`; other paths of
//! the origin get 404, and any other address fails, except a navigation (a form, a
//! script setting `location`), answered "204 No Content" so that the tab stays on
//! the page instead of showing an error. A page is untrusted, and whatever it can
//! read ends up in the synthetic body.
//!
//! Requests for media, prefetches, pings, manifests and reports fail at once: they
//! cannot change the page's text or layout, and reading a video to hand it over
//! would cost more than the page.

use crate::options::ServePolicy;
use crate::protocol::{FailRequest, FulfillRequest, Header, RequestPaused};
use crate::replay::{archived_url, split_url, ReplayOf};
use anyhow::{Context, Result};
use base64::prelude::{Engine, BASE64_STANDARD};
use std::path::{Component, Path, PathBuf};
use twinpage_util::body::WideUnicode;

/// Largest sibling file served, so a huge file cannot exhaust memory.
const MAX_FILE: u64 = 64 * 1024 * 1024;
/// Resource types failed without looking: they cannot change text or layout.
const NEEDLESS: &[&str] = &[
    "Media",
    "Prefetch",
    "Ping",
    "Manifest",
    "CSPViolationReport",
    "SignedExchange",
];

/// How a paused request is answered.
#[derive(Debug)]
pub(crate) enum Reply {
    /// With a response made here.
    Fulfil(FulfillRequest),
    /// With a network error.
    Fail(FailRequest),
}

/// One document on offer to one render.
pub(crate) struct Site {
    origin: String,
    /// `<origin>/r<N>/`: what every file of this render's URL starts with.
    prefix: String,
    name: String,
    body: Vec<u8>,
    /// `text/html` with the charset twinpage decodes the fetched body in: without
    /// it, Chromium reads a page that declares none as windows-1252, and a UTF-8
    /// page's rendered text becomes mojibake unlike its fetched text.
    document_type: String,
    /// The folder whose files the page may read (None: nothing but itself).
    siblings: Option<PathBuf>,
    /// A page from a crawl: its requests are answered from the crawl's archive.
    replay: Option<ReplayOf>,
}

impl Site {
    /// Offers `body` as `name` in `folder`, with the files there that `serve` allows.
    pub(crate) fn new(
        origin: &str,
        token: u64,
        folder: &Path,
        name: &str,
        body: Vec<u8>,
        serve: ServePolicy,
    ) -> Result<Site> {
        let siblings = match serve {
            ServePolicy::Siblings => Some(
                folder
                    .canonicalize()
                    .with_context(|| format!("cannot resolve folder {}", folder.display()))?,
            ),
            ServePolicy::DocumentOnly => None,
        };
        let (body, document_type) = served_document(body);
        Ok(Site {
            origin: origin.to_string(),
            prefix: format!("{origin}/r{token}/"),
            name: name.to_string(),
            document_type,
            body,
            siblings,
            replay: None,
        })
    }

    /// Offers `body`, a page read from a crawl, at its own path on `origin`, its
    /// requests answered from its archive (see `replay.rs`).
    pub(crate) fn replaying(origin: &str, body: Vec<u8>, replay: ReplayOf) -> Site {
        let (_, path) = split_url(&replay.url);
        let (body, document_type) = served_document(body);
        Site {
            origin: origin.to_string(),
            prefix: format!("{origin}/"),
            name: path.to_string(),
            document_type,
            body,
            siblings: None,
            replay: Some(replay),
        }
    }

    /// The document's URL.
    pub(crate) fn url(&self) -> String {
        match self.replay {
            Some(_) => format!("{}{}", self.origin, self.name),
            None => format!("{}{}", self.prefix, percent_encode(&self.name)),
        }
    }

    /// The answer to a paused request.
    pub(crate) fn answer(&self, paused: &RequestPaused) -> Reply {
        match &self.replay {
            Some(replay) => self.answer_from_archive(paused, replay),
            None => self.answer_from_folder(paused),
        }
    }

    /// A replayed page's request: the document itself, else what the archive holds.
    /// No Content-Security-Policy: requests to other hosts must reach here, to be
    /// answered from the archive (every request is paused, so none leaves anyway).
    fn answer_from_archive(&self, paused: &RequestPaused, replay: &ReplayOf) -> Reply {
        let id = paused.request_id.clone();
        let (url, method) = (&paused.request.url, &paused.request.method);
        let resource = paused.resource_type.as_str();
        if method != "GET" && method != "HEAD" {
            return fulfil(id, 405, "text/plain", b"Method Not Allowed");
        }
        if url.split('#').next() == Some(self.url().as_str()) {
            return fulfil(id, 200, &self.document_type, &self.body);
        }
        if NEEDLESS.contains(&resource) {
            return fail(id);
        }
        let (site, _) = split_url(&replay.url);
        match replay
            .archive
            .answer(&archived_url(url, &self.origin, site))
        {
            Some(found) => {
                let body = if method == "HEAD" {
                    Vec::new()
                } else {
                    found.body
                };
                fulfil(id, found.status, &found.content_type, &body)
            }
            None if resource == "Document" => fulfil(id, 204, "text/plain", &[]),
            None => fail(id),
        }
    }

    /// A lone document's request: itself, or a file of its folder as allowed.
    fn answer_from_folder(&self, paused: &RequestPaused) -> Reply {
        let id = paused.request_id.clone();
        let (url, method) = (&paused.request.url, &paused.request.method);
        let resource = paused.resource_type.as_str();
        let Some(rest) = url.strip_prefix(&self.prefix) else {
            if resource == "Document" {
                return fulfil(id, 204, "text/plain", &[]);
            }
            if url.starts_with(&format!("{}/", self.origin)) {
                return not_found(id);
            }
            return fail(id);
        };
        if method != "GET" && method != "HEAD" {
            return fulfil(id, 405, "text/plain", b"Method Not Allowed");
        }
        let relative = percent_decode(rest.split(['?', '#']).next().unwrap_or_default());
        let (content_type, bytes) = if relative == self.name {
            (self.document_type.as_str(), self.body.clone())
        } else if NEEDLESS.contains(&resource) {
            return fail(id);
        } else {
            let file = self
                .siblings
                .as_deref()
                .and_then(|root| read_sibling(root, &relative));
            match file {
                Some(bytes) => (content_type(&relative), bytes),
                None => return not_found(id),
            }
        };
        let body = if method == "HEAD" { Vec::new() } else { bytes };
        let mut fulfilled = fulfilment(id, 200, content_type, &body);
        if relative == self.name {
            fulfilled.response_headers.push(Header {
                name: "Content-Security-Policy",
                value: OWN_ORIGIN_ONLY.into(),
            });
        }
        Reply::Fulfil(fulfilled)
    }
}

/// The document as served, and its type: `text/html` with the charset twinpage
/// decodes the fetched body in (see `Site`). A body in UTF-32 (which Chromium does
/// not read) or in UTF-16 without its BOM is served as the UTF-8 text twinpage
/// decodes it to.
fn served_document(body: Vec<u8>) -> (Vec<u8>, String) {
    if let Some(wide) = WideUnicode::sniff(&body) {
        let utf8 = wide.decode(&body).into_bytes();
        return (utf8, "text/html; charset=utf-8".to_string());
    }
    let charset = twinpage_util::body::sniff_encoding(&body).name();
    (body, format!("text/html; charset={charset}"))
}

/// Sent with the document: the page's renderer refuses every address outside the
/// render's origin itself, so the tens of requests a real page makes to other hosts
/// never reach the browser process nor twinpage (they would fail there anyway).
const OWN_ORIGIN_ONLY: &str = "default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:";

fn fulfilment(request_id: String, status: u16, content_type: &str, body: &[u8]) -> FulfillRequest {
    FulfillRequest {
        request_id,
        response_code: status,
        response_headers: vec![
            Header {
                name: "Content-Type",
                value: content_type.into(),
            },
            Header {
                name: "Cache-Control",
                value: "no-store".into(),
            },
        ],
        body: BASE64_STANDARD.encode(body),
    }
}

fn fulfil(request_id: String, status: u16, content_type: &str, body: &[u8]) -> Reply {
    Reply::Fulfil(fulfilment(request_id, status, content_type, body))
}

fn not_found(request_id: String) -> Reply {
    fulfil(request_id, 404, "text/plain", b"Not Found")
}

fn fail(request_id: String) -> Reply {
    Reply::Fail(FailRequest {
        request_id,
        error_reason: "BlockedByClient",
    })
}

/// Reads `relative` under `root` if it is a regular file that really lies inside it
/// (no `..`, no symlink leading out) and is no dotfile, nor in a dot-folder, even
/// through a symlink: a page must not read the rest of the disk, nor the secrets
/// (`.env`, `.ssh/`, `.git/`) kept beside it.
fn read_sibling(root: &Path, relative: &str) -> Option<Vec<u8>> {
    let relative = Path::new(relative);
    if !servable(relative) {
        return None;
    }
    let path = root.join(relative).canonicalize().ok()?;
    let metadata = path.metadata().ok()?;
    let inside = path.strip_prefix(root).is_ok_and(servable);
    if !inside || !metadata.is_file() || metadata.len() > MAX_FILE {
        return None;
    }
    std::fs::read(path).ok()
}

/// Whether a path relative to a document's folder stays in it and names no dotfile.
fn servable(relative: &Path) -> bool {
    relative.components().all(|component| match component {
        Component::Normal(name) => !name.as_encoded_bytes().starts_with(b"."),
        _ => false,
    })
}

fn content_type(path: &str) -> &'static str {
    let extension = path.rsplit('.').next().unwrap_or_default();
    match extension.to_ascii_lowercase().as_str() {
        "html" | "htm" => "text/html",
        "js" | "mjs" => "text/javascript",
        "css" => "text/css",
        "json" => "application/json",
        "txt" => "text/plain",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "mp4" => "video/mp4",
        "webm" => "video/webm",
        _ => "application/octet-stream",
    }
}

/// Escapes everything but unreserved characters, so any file name makes a valid URL.
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (byte as char).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// Undoes `%XX` escapes (a malformed one is kept as it is).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| text.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                decoded.push(byte);
                i += 3;
            }
            None => {
                decoded.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::PausedRequest;

    const ORIGIN: &str = "http://127.0.0.1:9";

    /// An answer: its status code (0 for a failed request) and its body.
    fn ask(site: &Site, method: &str, url: &str, resource: &str) -> (u16, String) {
        let paused = RequestPaused {
            request_id: "1".into(),
            request: PausedRequest {
                url: url.into(),
                method: method.into(),
            },
            resource_type: resource.into(),
        };
        let Reply::Fulfil(fulfilled) = site.answer(&paused) else {
            return (0, String::new());
        };
        let body = BASE64_STANDARD.decode(fulfilled.body).expect("base64");
        let headers = &fulfilled.response_headers;
        let no_store = |h: &Header| h.name == "Cache-Control" && h.value == "no-store";
        assert!(headers.iter().any(no_store), "{headers:?}");
        (
            fulfilled.response_code,
            String::from_utf8(body).expect("text"),
        )
    }

    /// `top/site` holds a document's siblings; `top/secret.txt` lies outside, and
    /// symlinks in the site lead to it.
    fn folder() -> tempfile::TempDir {
        let top = tempfile::tempdir().expect("temporary folder");
        let site = top.path().join("site");
        for (name, content) in [
            ("secret.txt", "secret"),
            ("site/data.json", "{}"),
            ("site/sub/style.css", "p {}"),
            ("site/clip.mp4", "video"),
            ("site/.env", "TOKEN=secret"),
            ("site/sub/.hidden.css", "p {}"),
            ("site/.ssh/id_rsa", "PRIVATE KEY"),
            ("site/sub/.git/config", "[core]"),
        ] {
            let path = top.path().join(name);
            std::fs::create_dir_all(path.parent().expect("in a folder")).expect("creates folders");
            std::fs::write(path, content).expect("writes a file");
        }
        std::os::unix::fs::symlink("../secret.txt", site.join("link.txt")).expect("symlink");
        std::os::unix::fs::symlink("..", site.join("up")).expect("symlink");
        std::os::unix::fs::symlink(".env", site.join("env.txt")).expect("symlink");
        let big = std::fs::File::create(site.join("big.bin")).expect("creates a file");
        big.set_len(MAX_FILE + 1).expect("grows a sparse file");
        top
    }

    fn site(top: &tempfile::TempDir, serve: ServePolicy) -> Site {
        let body = b"<p>hi</p>".to_vec();
        let folder = top.path().join("site");
        Site::new(ORIGIN, 0, &folder, "a page 100%.html", body, serve).expect("offers")
    }

    #[test]
    fn answers_the_document_and_files_inside_its_folder_only() {
        let top = folder();
        let site = site(&top, ServePolicy::Siblings);
        assert_eq!(site.url(), format!("{ORIGIN}/r0/a%20page%20100%25.html"));
        let get = |path: &str| ask(&site, "GET", &format!("{ORIGIN}{path}"), "Fetch");
        assert_eq!(get("/r0/a%20page%20100%25.html"), (200, "<p>hi</p>".into()));
        assert_eq!(get("/r0/sub/style.css?v=1"), (200, "p {}".into()));
        let head = ask(&site, "HEAD", &format!("{ORIGIN}/r0/data.json"), "Fetch");
        assert_eq!(head, (200, String::new()));
        for outside in [
            "/r0/missing.txt",
            "/r0/%2E%2E/secret.txt",
            "/r0/sub%2F..%2F..%2Fsecret.txt",
            "/r0/link.txt",
            "/r0/up/secret.txt",
            "/r0/.env",
            "/r0/%2Eenv",
            "/r0/sub/.hidden.css",
            "/r0/sub",
            "/r0/big.bin",
            "/r0/.ssh/id_rsa",
            "/r0/sub/.git/config",
            "/r0/env.txt",
            "/r1/data.json",
            "/r0",
            "/",
        ] {
            assert_eq!(get(outside), (404, "Not Found".into()), "{outside}");
        }
        let post = ask(&site, "POST", &format!("{ORIGIN}/r0/data.json"), "Fetch");
        assert_eq!(post.0, 405);
    }

    #[test]
    fn other_addresses_fail_and_navigations_to_them_stay_put() {
        let top = folder();
        let site = site(&top, ServePolicy::Siblings);
        for url in ["http://example.com/x", "http://127.0.0.1:8080/r0/data.json"] {
            assert_eq!(ask(&site, "GET", url, "Fetch").0, 0, "{url}");
            assert_eq!(ask(&site, "GET", url, "Document").0, 204, "{url}");
        }
        let video = ask(&site, "GET", &format!("{ORIGIN}/r0/clip.mp4"), "Media");
        assert_eq!(video.0, 0, "media is failed unread");
    }

    #[test]
    fn serving_the_document_only_serves_no_sibling() {
        let top = folder();
        let site = site(&top, ServePolicy::DocumentOnly);
        let get = |path: &str| ask(&site, "GET", &format!("{ORIGIN}{path}"), "Fetch").0;
        assert_eq!(get("/r0/a%20page%20100%25.html"), 200);
        assert_eq!(get("/r0/data.json"), 404);
        assert_eq!(get("/r0/sub/style.css"), 404);
    }
}
