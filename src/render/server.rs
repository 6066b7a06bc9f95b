//! A loopback HTTP server that hands documents to Chromium.
//!
//! Pages loaded from `file://` cannot `fetch()` their siblings, so each document is
//! served over HTTP on 127.0.0.1, under a path unique to one render
//! (`/r<N>/<file name>`), rooted at the document's folder. Unique paths and
//! `Cache-Control: no-store` keep the browser from reusing an earlier render's files.
//! The server only answers GET and HEAD, for the document and, as its
//! [`ServePolicy`] allows, regular files inside the root whose path has no name
//! starting with `.`: a page is untrusted, and whatever it can read ends up in the
//! synthetic body.
//!
//! HTTP is hyper's, routed by axum, on a small tokio runtime of the server's own:
//! dropping the server drops the runtime, which closes the port and every connection.

use super::{lock, ServePolicy};
use anyhow::{Context, Result};
use axum::body::Bytes;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path as UrlPath, Request, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;

/// How long a connection may take to send its request and take the answer. Chromium
/// preconnects sockets it may never use, and stops reading when its page is stuck;
/// without a bound each would pin a task (and the bytes it serves) forever.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest request head accepted; browsers send well under this.
const MAX_HEAD: usize = 32 * 1024;
/// Largest sibling file served, so a huge file cannot exhaust memory.
const MAX_FILE: u64 = 64 * 1024 * 1024;
/// Threads that read sibling files, beside the one that runs the connections: a
/// read must not hold up the other connections.
const FILE_READERS: usize = 2;

/// One document on offer: its name in the URL, its (decompressed) bytes and the
/// folder whose files it may load (None: nothing but itself).
struct Published {
    siblings: Option<PathBuf>,
    name: String,
    body: Bytes,
}

/// The documents on offer by token. A panic while holding it leaves it consistent
/// (single inserts and removes), so a poisoned lock is used as it is.
type Catalogue = Arc<Mutex<HashMap<String, Published>>>;

pub(crate) struct Server {
    port: u16,
    catalogue: Catalogue,
    next_token: AtomicU64,
    /// Runs the accept loop and the connections; dropping it stops them and waits
    /// for its threads.
    _runtime: Runtime,
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
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .max_blocking_threads(FILE_READERS)
            .thread_name("render-server")
            .enable_io()
            .enable_time()
            .build()
            .context("cannot start the render server's runtime")?;
        let listener = runtime
            .block_on(TcpListener::bind((Ipv4Addr::LOCALHOST, 0)))
            .context("cannot bind a loopback port for the render server")?;
        let port = listener.local_addr()?.port();
        let catalogue: Catalogue = Arc::default();
        runtime.spawn(accept_loop(listener, routes(catalogue.clone())));
        Ok(Server {
            port,
            catalogue,
            next_token: AtomicU64::new(0),
            _runtime: runtime,
        })
    }

    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// The origin pages are served from; the only one the browser may reach.
    pub(crate) fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Offers `body` as `name` in the folder `root`, with the files there that `serve`
    /// allows, until the publication is dropped.
    pub(crate) fn publish(
        &self,
        root: &Path,
        name: &str,
        body: Vec<u8>,
        serve: ServePolicy,
    ) -> Result<Publication<'_>> {
        let siblings = match serve {
            ServePolicy::Siblings => Some(
                root.canonicalize()
                    .with_context(|| format!("cannot resolve folder {}", root.display()))?,
            ),
            ServePolicy::DocumentOnly => None,
        };
        let token = format!("r{}", self.next_token.fetch_add(1, Ordering::Relaxed));
        let url = format!("{}/{}/{}", self.origin(), token, percent_encode(name));
        let published = Published {
            siblings,
            name: name.to_string(),
            body: Bytes::from(body),
        };
        lock(&self.catalogue).insert(token.clone(), published);
        Ok(Publication {
            server: self,
            token,
            url,
        })
    }
}

async fn accept_loop(listener: TcpListener, routes: Router) {
    loop {
        match listener.accept().await {
            // A task per connection: a slow or idle connection never holds up others.
            Ok((stream, _)) => drop(tokio::spawn(serve_connection(stream, routes.clone()))),
            // Out of file descriptors, say: wait for connections to close rather than spin.
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
}

/// Answers one request and closes the connection. Without keep-alive, the timeout
/// bounds the connection's whole life; the browser opens several in parallel anyway.
async fn serve_connection(stream: TcpStream, routes: Router) {
    let connection = http1::Builder::new()
        .keep_alive(false)
        .auto_date_header(false)
        .max_header_size(MAX_HEAD)
        .serve_connection(TokioIo::new(stream), TowerToHyperService::new(routes));
    // Timing out drops the connection, which closes it.
    let _ = tokio::time::timeout(EXCHANGE_TIMEOUT, connection).await;
}

/// `/token/relative/path` names the published document or a file beside it.
fn routes(catalogue: Catalogue) -> Router {
    Router::new()
        .route("/{token}/{*relative}", get(lookup))
        .fallback(|| async { status(StatusCode::NOT_FOUND) })
        .layer(middleware::from_fn(reads_only))
        .with_state(catalogue)
}

/// Around every answer: only GET and HEAD are served, and never cached.
async fn reads_only(request: Request, next: Next) -> Response {
    let mut response = match *request.method() {
        Method::GET | Method::HEAD => next.run(request).await,
        _ => status(StatusCode::METHOD_NOT_ALLOWED),
    };
    let no_store = HeaderValue::from_static("no-store");
    response.headers_mut().insert(CACHE_CONTROL, no_store);
    response
}

/// The published document or a file beside it; `path` comes percent-decoded.
async fn lookup(
    State(catalogue): State<Catalogue>,
    path: Result<UrlPath<(String, String)>, PathRejection>,
) -> Response {
    let Ok(UrlPath((token, relative))) = path else {
        return status(StatusCode::BAD_REQUEST);
    };
    let root = {
        let catalogue = lock(&catalogue);
        let Some(published) = catalogue.get(&token) else {
            return status(StatusCode::NOT_FOUND);
        };
        if relative == published.name {
            return ok("text/html", published.body.clone());
        }
        let Some(root) = published.siblings.clone() else {
            return status(StatusCode::NOT_FOUND);
        };
        root
    };
    let content_type = content_type(&relative);
    match tokio::task::spawn_blocking(move || read_sibling(&root, &relative)).await {
        Ok(Some(bytes)) => ok(content_type, Bytes::from(bytes)),
        _ => status(StatusCode::NOT_FOUND),
    }
}

fn ok(content_type: &'static str, body: Bytes) -> Response {
    ([(CONTENT_TYPE, content_type)], body).into_response()
}

/// An answer without a file: the status's reason as plain text.
fn status(code: StatusCode) -> Response {
    let reason = code.canonical_reason().unwrap_or_default();
    (code, [(CONTENT_TYPE, "text/plain")], reason).into_response()
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// An answer: its status code, its head in lower case, its body.
    struct Answer {
        code: u16,
        head: String,
        body: String,
    }

    /// Sends `request` ("METHOD /path") over a raw connection and reads the answer.
    fn ask(server: &Server, request: &str) -> Answer {
        let mut stream =
            std::net::TcpStream::connect((Ipv4Addr::LOCALHOST, server.port())).expect("connects");
        stream
            .set_read_timeout(Some(2 * EXCHANGE_TIMEOUT))
            .expect("sets a timeout");
        write!(stream, "{request} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").expect("sends");
        let mut answer = String::new();
        stream
            .read_to_string(&mut answer)
            .expect("reads to the end");
        let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
        let code = head.split(' ').nth(1).and_then(|code| code.parse().ok());
        Answer {
            code: code.expect("a status code"),
            head: head.to_ascii_lowercase(),
            body: body.to_string(),
        }
    }

    /// `top/site` holds a document's siblings; `top/secret.txt` lies outside, and
    /// symlinks in the site lead to it.
    fn site() -> tempfile::TempDir {
        let top = tempfile::tempdir().expect("temporary folder");
        let site = top.path().join("site");
        for (name, content) in [
            ("secret.txt", "secret"),
            ("site/data.json", "{}"),
            ("site/sub/style.css", "p {}"),
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

    #[test]
    fn serves_the_document_and_files_inside_its_folder_only() {
        let top = site();
        let server = Server::start().expect("starts");
        let publication = server
            .publish(
                &top.path().join("site"),
                "a page 100%.html",
                b"<p>hi</p>".to_vec(),
                ServePolicy::Siblings,
            )
            .expect("publishes");
        let path = publication.url().trim_start_matches(&server.origin());
        assert_eq!(path, "/r0/a%20page%20100%25.html");

        let page = ask(&server, &format!("GET {path}"));
        assert_eq!((page.code, page.body.as_str()), (200, "<p>hi</p>"));
        assert!(
            page.head.contains("\r\ncontent-type: text/html\r\n"),
            "{}",
            page.head
        );
        let css = ask(&server, "GET /r0/sub/style.css?v=1");
        assert_eq!((css.code, css.body.as_str()), (200, "p {}"));
        assert!(
            css.head.contains("\r\ncontent-type: text/css\r\n"),
            "{}",
            css.head
        );
        let head = ask(&server, "HEAD /r0/data.json");
        assert_eq!((head.code, head.body.as_str()), (200, ""));
        assert!(head.head.contains("\r\ncontent-length: 2"), "{}", head.head);
        assert!(head.head.contains("\r\ncontent-type: application/json"));

        for outside in [
            "/r0/missing.txt",
            "/r0/../secret.txt",
            "/r0/%2E%2E/secret.txt",
            "/r0/sub%2F..%2F..%2Fsecret.txt",
            "/r0/link.txt",
            "/r0/up/secret.txt",
            "/r0/.env",
            "/r0/%2Eenv",
            "/r0/sub/.hidden.css",
            "/r0/./.env",
            "/r0/sub",
            "/r0/big.bin",
            "/r0/.ssh/id_rsa",
            "/r0/sub/.git/config",
            "/r0/env.txt",
            "/r1/data.json",
            "/r0",
            "/",
        ] {
            let answer = ask(&server, &format!("GET {outside}"));
            assert_eq!(
                (answer.code, answer.body.as_str()),
                (404, "Not Found"),
                "{outside}"
            );
        }
        for request in [
            "POST /r0/data.json",
            "PUT /elsewhere",
            "OPTIONS /r0/data.json",
        ] {
            let answer = ask(&server, request);
            assert_eq!(answer.code, 405, "{request}");
            assert!(
                answer.head.contains("\r\ncache-control: no-store"),
                "{request}"
            );
        }
        assert!(page.head.contains("\r\ncache-control: no-store"));
        drop(publication);
        assert_eq!(ask(&server, "GET /r0/data.json").code, 404);
    }

    #[test]
    fn serving_the_document_only_serves_no_sibling() {
        let top = site();
        let server = Server::start().expect("starts");
        let _publication = server
            .publish(
                &top.path().join("site"),
                "page.html",
                b"<p>hi</p>".to_vec(),
                ServePolicy::DocumentOnly,
            )
            .expect("publishes");
        assert_eq!(ask(&server, "GET /r0/page.html").code, 200);
        for sibling in ["/r0/data.json", "/r0/sub/style.css"] {
            assert_eq!(
                ask(&server, &format!("GET {sibling}")).code,
                404,
                "{sibling}"
            );
        }
    }

    #[test]
    fn a_silent_connection_is_closed_and_a_dropped_server_frees_its_port() {
        let server = Server::start().expect("starts");
        let address = (Ipv4Addr::LOCALHOST, server.port());
        let mut silent = std::net::TcpStream::connect(address).expect("connects");
        silent
            .set_read_timeout(Some(2 * EXCHANGE_TIMEOUT))
            .expect("sets a timeout");
        let mut nothing = Vec::new();
        let read = silent.read_to_end(&mut nothing);
        assert!(matches!(read, Ok(0)), "{read:?}");
        drop(server);
        assert!(std::net::TcpStream::connect(address).is_err());
    }
}
