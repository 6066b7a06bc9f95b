//! A loopback HTTP server that hands documents to Chromium.
//!
//! Pages loaded from `file://` cannot `fetch()` their siblings, so each document is
//! served over HTTP on 127.0.0.1, under a path unique to one render
//! (`/r<N>/<file name>`), rooted at the document's folder. Unique paths and
//! `Cache-Control: no-store` keep the browser from reusing an earlier render's files.
//! The server only answers GET and HEAD for regular files inside the root: a page is
//! untrusted, and whatever it can read ends up in the synthetic body.

use anyhow::{Context, Result};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// How long a connection may stay silent. Chromium preconnects sockets it may never
/// use; without a timeout each would pin a thread forever.
const IO_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest request head accepted; browsers send well under this.
const MAX_HEAD: u64 = 32 * 1024;
/// Largest sibling file served, so a huge file cannot exhaust memory.
const MAX_FILE: u64 = 64 * 1024 * 1024;

/// One document on offer: its folder, its name in the URL and its (decompressed) bytes.
struct Published {
    root: PathBuf,
    name: String,
    body: Arc<Vec<u8>>,
}

type Catalogue = Arc<Mutex<HashMap<String, Published>>>;

pub(crate) struct Server {
    port: u16,
    catalogue: Catalogue,
    next_token: AtomicU64,
    stopping: Arc<AtomicBool>,
    accept_loop: Option<JoinHandle<()>>,
}

/// A document published on the server; it is withdrawn when this is dropped.
pub(crate) struct Publication<'a> {
    server: &'a Server,
    token: String,
    url: String,
}

impl Publication<'_> {
    pub(crate) fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for Publication<'_> {
    fn drop(&mut self) {
        lock(&self.server.catalogue).remove(&self.token);
    }
}

impl Server {
    /// Binds a free port on 127.0.0.1 and starts answering in the background.
    pub(crate) fn start() -> Result<Server> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .context("cannot bind a loopback port for the render server")?;
        let port = listener.local_addr()?.port();
        let catalogue: Catalogue = Arc::default();
        let stopping = Arc::new(AtomicBool::new(false));
        let accept_loop = {
            let (catalogue, stopping) = (catalogue.clone(), stopping.clone());
            std::thread::Builder::new()
                .name(format!("render-server-{port}"))
                .spawn(move || accept_loop(listener, catalogue, stopping))?
        };
        Ok(Server {
            port,
            catalogue,
            next_token: AtomicU64::new(0),
            stopping,
            accept_loop: Some(accept_loop),
        })
    }

    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// The origin pages are served from; the only one the browser may reach.
    pub(crate) fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Offers `body` as `name` in the folder `root` until the publication is dropped.
    pub(crate) fn publish(
        &self,
        root: &Path,
        name: &str,
        body: Vec<u8>,
    ) -> Result<Publication<'_>> {
        let root = root
            .canonicalize()
            .with_context(|| format!("cannot resolve folder {}", root.display()))?;
        let token = format!("r{}", self.next_token.fetch_add(1, Ordering::Relaxed));
        let url = format!("{}/{}/{}", self.origin(), token, percent_encode(name));
        let published = Published {
            root,
            name: name.to_string(),
            body: Arc::new(body),
        };
        lock(&self.catalogue).insert(token.clone(), published);
        Ok(Publication {
            server: self,
            token,
            url,
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        // accept() blocks; one last connection wakes it up to see the flag.
        let _ = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port));
        if let Some(handle) = self.accept_loop.take() {
            let _ = handle.join();
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding the map leaves it consistent (single inserts/removes).
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn accept_loop(listener: TcpListener, catalogue: Catalogue, stopping: Arc<AtomicBool>) {
    for stream in listener.incoming() {
        if stopping.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        let catalogue = catalogue.clone();
        // One thread per connection: a slow or idle connection never holds up others.
        let _ = std::thread::Builder::new()
            .name("render-server-conn".into())
            .spawn(move || {
                let _ = serve_connection(stream, &catalogue);
            });
    }
}

/// Answers one request and closes the connection (no keep-alive: simpler, and the
/// browser opens several connections in parallel anyway).
fn serve_connection(stream: TcpStream, catalogue: &Catalogue) -> std::io::Result<()> {
    stream.set_read_timeout(Some(IO_TIMEOUT))?;
    stream.set_write_timeout(Some(IO_TIMEOUT))?;
    let Some((method, target)) = read_request_head(&stream)? else {
        return Ok(());
    };
    let response = match method.as_str() {
        "GET" | "HEAD" => lookup(catalogue, &target),
        _ => Response::status(405, "Method Not Allowed"),
    };
    response.write_to(stream, method == "HEAD")
}

/// Reads the request line and skips the headers; None when the peer sent nothing usable.
fn read_request_head(stream: &TcpStream) -> std::io::Result<Option<(String, String)>> {
    let mut reader = BufReader::new(stream.take(MAX_HEAD));
    let mut request_line = String::new();
    if reader.read_line(&mut request_line)? == 0 {
        return Ok(None);
    }
    let mut header = String::new();
    loop {
        header.clear();
        if reader.read_line(&mut header)? == 0 || header == "\r\n" || header == "\n" {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    match (parts.next(), parts.next()) {
        (Some(method), Some(target)) => Ok(Some((method.to_string(), target.to_string()))),
        _ => Ok(None),
    }
}

struct Response {
    code: u16,
    reason: &'static str,
    content_type: &'static str,
    body: Arc<Vec<u8>>,
}

impl Response {
    fn status(code: u16, reason: &'static str) -> Response {
        Response {
            code,
            reason,
            content_type: "text/plain",
            body: Arc::new(reason.as_bytes().to_vec()),
        }
    }

    fn ok(content_type: &'static str, body: Arc<Vec<u8>>) -> Response {
        Response {
            code: 200,
            reason: "OK",
            content_type,
            body,
        }
    }

    fn write_to(&self, mut stream: TcpStream, head_only: bool) -> std::io::Result<()> {
        let head = format!(
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n\
             Cache-Control: no-store\r\nConnection: close\r\n\r\n",
            self.code,
            self.reason,
            self.content_type,
            self.body.len()
        );
        stream.write_all(head.as_bytes())?;
        if !head_only {
            stream.write_all(&self.body)?;
        }
        stream.flush()
    }
}

/// Maps `/token/relative/path?query` to the published document or a file beside it.
fn lookup(catalogue: &Catalogue, target: &str) -> Response {
    let path = target.split(['?', '#']).next().unwrap_or_default();
    let Some(path) = percent_decode(path) else {
        return Response::status(400, "Bad Request");
    };
    let mut segments = path.trim_start_matches('/').splitn(2, '/');
    let token = segments.next().unwrap_or_default();
    let relative = segments.next().unwrap_or_default();
    let root = {
        let catalogue = lock(catalogue);
        let Some(published) = catalogue.get(token) else {
            return Response::status(404, "Not Found");
        };
        if relative == published.name {
            return Response::ok("text/html", published.body.clone());
        }
        published.root.clone()
    };
    match read_sibling(&root, relative) {
        Some(bytes) => Response::ok(content_type(relative), Arc::new(bytes)),
        None => Response::status(404, "Not Found"),
    }
}

/// Reads `relative` under `root` if it is a regular file that really lies inside it
/// (no `..`, no symlink leading out): a page must not read the rest of the disk.
fn read_sibling(root: &Path, relative: &str) -> Option<Vec<u8>> {
    let relative = Path::new(relative);
    if !relative
        .components()
        .all(|component| matches!(component, Component::Normal(_)))
    {
        return None;
    }
    let path = root.join(relative).canonicalize().ok()?;
    let metadata = path.metadata().ok()?;
    if !path.starts_with(root) || !metadata.is_file() || metadata.len() > MAX_FILE {
        return None;
    }
    std::fs::read(path).ok()
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

/// Decodes `%XX` escapes; None for malformed escapes or non-UTF-8 results.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(decoded).ok()
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
