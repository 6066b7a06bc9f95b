//! The review page's HTTP server, on 127.0.0.1 only.
//!
//! Untrusted page HTML is served from `/doc/…` under `Content-Security-Policy:
//! sandbox`, with no `allow-scripts`: it gets an opaque origin and runs no script
//! even when opened outside its frame, and the page frames it with an empty
//! `sandbox` attribute as well. The page itself runs only its own script
//! (`script-src 'self'`). The API takes JSON only (a form cannot send it without a
//! CORS preflight, which is never granted), refuses requests whose `Origin` or
//! `Sec-Fetch-Site` says they come from elsewhere, and refuses any `Host` but its
//! own (DNS rebinding). Each request opens its own connection to the database;
//! SQLite's transactions keep concurrent reviewers apart.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use axum::body::Body;
use axum::extract::{Path as UrlPath, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;

use super::diff::word_diff;
use super::order::{QueueOrder, Reason};
use super::store::{ReviewStore, Verdict};
use twinpage::render::StoredRender;

/// The policy of the review page: its own script, style, images and frames only.
const PAGE_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    img-src 'self'; frame-src 'self'; connect-src 'self'; base-uri 'none'; \
    form-action 'none'; frame-ancestors 'none'";
/// The policy of an untrusted document: sandboxed (opaque origin, no script, no
/// forms, no popups), nothing loaded from anywhere, inline styles kept for looks.
/// The page's origins are appended as the only allowed frame ancestors (`'self'`
/// would mean the sandbox's opaque origin, which matches no parent).
const DOCUMENT_POLICY: &str = "sandbox; default-src 'none'; style-src 'unsafe-inline'; \
    img-src data:; font-src data:; frame-ancestors";

const INDEX_HTML: &str = include_str!("page/index.html");
const APP_JS: &str = include_str!("page/app.js");
const APP_CSS: &str = include_str!("page/app.css");

/// The queue's pair ids in serving order, each with why it is there; shared
/// between requests until the queue changes.
type Ranking = Arc<Vec<(i64, Reason)>>;

struct App {
    db: PathBuf,
    /// The order the queue is served in.
    order: QueueOrder,
    /// The queue ranked in that order, and the queue version it was ranked at:
    /// ranking reads every queued pair, so it is done again only when the queue changes.
    ranked: Mutex<Option<(String, Ranking)>>,
    /// The `Host` values this server answers to.
    hosts: [String; 2],
    /// The origins its own page has.
    origins: [String; 2],
    /// [`DOCUMENT_POLICY`] with those origins as frame ancestors.
    document_policy: HeaderValue,
}

/// A running review server.
pub struct ReviewServer {
    address: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<Result<()>>>,
}

impl ReviewServer {
    /// Brings the database's schema up to date and serves it on 127.0.0.1:`port`
    /// (0: any free port) from a thread of its own, the queue in `order`.
    pub fn start(db: PathBuf, port: u16, order: QueueOrder) -> Result<ReviewServer> {
        ReviewStore::open_existing(&db)?;
        let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, port))
            .with_context(|| format!("cannot listen on 127.0.0.1:{port}; try another --port"))?;
        listener.set_nonblocking(true)?;
        let address = listener.local_addr()?;
        let port = address.port();
        let origins = [
            format!("http://127.0.0.1:{port}"),
            format!("http://localhost:{port}"),
        ];
        let document_policy =
            HeaderValue::from_str(&format!("{DOCUMENT_POLICY} {}", origins.join(" ")))?;
        let app = Arc::new(App {
            db,
            order,
            ranked: Mutex::new(None),
            hosts: [format!("127.0.0.1:{port}"), format!("localhost:{port}")],
            origins,
            document_policy,
        });
        let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || -> Result<()> {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()?;
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener)?;
                let routes = router(app);
                tokio::pin!(stopped);
                loop {
                    tokio::select! {
                        _ = &mut stopped => return Ok(()),
                        accepted = listener.accept() => match accepted {
                            Ok((stream, _)) => drop(tokio::spawn(serve_connection(stream, routes.clone()))),
                            // Out of file descriptors, say: wait for connections to close.
                            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
                        },
                    }
                }
            })
        });
        Ok(ReviewServer {
            address,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }

    /// The page's address, e.g. `http://127.0.0.1:8410/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.address)
    }

    /// Stops serving and waits for the server thread.
    pub fn stop(mut self) -> Result<()> {
        self.shut()
    }

    fn shut(&mut self) -> Result<()> {
        if let Some(s) = self.shutdown.take() {
            let _ = s.send(());
        }
        match self.thread.take() {
            Some(t) => t
                .join()
                .map_err(|_| anyhow::anyhow!("the review server panicked"))?,
            None => Ok(()),
        }
    }
}

impl Drop for ReviewServer {
    fn drop(&mut self) {
        let _ = self.shut();
    }
}

/// How long a connection may take to send a request's head, and stay silent between
/// requests: a page's requests take milliseconds, and connections opened and left
/// silent (300 of them held the server 35 s) must not pile up.
const HEAD_TIMEOUT: Duration = Duration::from_secs(5);

/// Serves one connection (keep-alive, for the page's many requests) until the client
/// closes it or stays silent past [`HEAD_TIMEOUT`].
async fn serve_connection(stream: tokio::net::TcpStream, routes: Router) {
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(HEAD_TIMEOUT)
        .serve_connection(
            hyper_util::rt::TokioIo::new(stream),
            hyper_util::service::TowerToHyperService::new(routes),
        )
        .await;
}

/// How long a request's body may take once its head has come: the page's bodies
/// are a few hundred bytes, sent with their head. A head that announces a body which
/// never comes held its connection 80 s and more, a thousand of them at once.
const BODY_TIMEOUT: Duration = HEAD_TIMEOUT;
/// The largest body the API takes (a verdict with its note is well under 1 KB).
const MAX_BODY_BYTES: usize = 64 << 10;

/// Reads a request's whole body within [`BODY_TIMEOUT`] before any handler runs;
/// a body too slow or too large is answered at once and the connection closed.
async fn body_in_time(request: Request, next: Next) -> Response {
    let (head, body) = request.into_parts();
    let read = axum::body::to_bytes(body, MAX_BODY_BYTES);
    let (status, why) = match tokio::time::timeout(BODY_TIMEOUT, read).await {
        Ok(Ok(bytes)) => return next.run(Request::from_parts(head, Body::from(bytes))).await,
        Ok(Err(_)) => (
            StatusCode::PAYLOAD_TOO_LARGE,
            "request body too large or broken",
        ),
        Err(_) => (StatusCode::REQUEST_TIMEOUT, "request body too slow"),
    };
    let close = [(header::CONNECTION, "close")];
    (status, close, Json(json!({ "error": why }))).into_response()
}

fn router(app: Arc<App>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { page(INDEX_HTML, "text/html; charset=utf-8") }),
        )
        .route(
            "/app.js",
            get(|| async { page(APP_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/app.css",
            get(|| async { page(APP_CSS, "text/css; charset=utf-8") }),
        )
        .route("/api/next", post(next))
        .route("/api/pair/{id}", post(open_pair))
        .route("/api/progress", get(progress))
        .route("/api/verdict", post(verdict))
        .route("/api/undo", post(undo))
        .route("/doc/{hash}/{view}", get(document))
        .layer(middleware::from_fn(body_in_time))
        .layer(middleware::from_fn_with_state(app.clone(), guard))
        .with_state(app)
}

/// Refuses requests that do not come from this server's own page (see the module
/// doc), and gives every answer, refusals included, the same security headers.
async fn guard(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let mut response = match refusal(&app, &request) {
        Some(why) => refuse(why),
        None => next.run(request).await,
    };
    let h = response.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.entry(header::CONTENT_SECURITY_POLICY)
        .or_insert(HeaderValue::from_static(PAGE_POLICY));
    response
}

/// Why a request is refused, if it is. Exactly one `Host`, one of the server's own
/// (a second one could smuggle a foreign host past a check of the first). The API,
/// whose calls lease pairs and take labels, answers only this server's own page,
/// reads included; a write must also be JSON, which no form can send.
fn refusal(app: &App, request: &Request) -> Option<&'static str> {
    let headers = request.headers();
    let text = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    let mut hosts = headers.get_all(header::HOST).iter();
    let host = hosts.next().and_then(|h| h.to_str().ok());
    if hosts.next().is_some() || !host.is_some_and(|h| app.hosts.iter().any(|ok| ok == h)) {
        return Some("unknown Host: open the address twinpage printed");
    }
    let writes = request.method() != Method::GET && request.method() != Method::HEAD;
    if writes || request.uri().path().starts_with("/api/") {
        if text(header::ORIGIN).is_some_and(|o| !app.origins.iter().any(|ok| ok == o)) {
            return Some("cross-origin request");
        }
        if headers
            .get("sec-fetch-site")
            .is_some_and(|s| s.as_bytes() != b"same-origin")
        {
            return Some("cross-site request");
        }
    }
    if writes && !text(header::CONTENT_TYPE).is_some_and(|t| t.starts_with("application/json")) {
        return Some("the API takes application/json");
    }
    None
}

fn refuse(why: &'static str) -> Response {
    (StatusCode::FORBIDDEN, Json(json!({ "error": why }))).into_response()
}

fn page(body: &'static str, content_type: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

/// An API error: the status and a message the page shows.
struct Failure(StatusCode, String);

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        Failure(StatusCode::INTERNAL_SERVER_ERROR, format!("{e:#}"))
    }
}

/// Runs `work` on a fresh connection, off the async threads.
async fn with_store<T: Send + 'static>(
    app: &App,
    work: impl FnOnce(&mut ReviewStore) -> Result<T, Failure> + Send + 'static,
) -> Result<T, Failure> {
    let db = app.db.clone();
    tokio::task::spawn_blocking(move || work(&mut ReviewStore::connect(&db)?))
        .await
        .map_err(|e| Failure(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
}

#[derive(Deserialize)]
struct Who {
    reviewer: String,
}

/// A reviewer's name: what they typed, trimmed; 1 to 64 printable characters.
fn reviewer(raw: &str) -> Result<String, Failure> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > 64 || name.chars().any(char::is_control) {
        return Err(Failure(
            StatusCode::BAD_REQUEST,
            "give a reviewer name of 1 to 64 characters".into(),
        ));
    }
    Ok(name.to_string())
}

impl App {
    /// The queue in the server's order, ranked again only if the queue changed.
    fn ranked(&self, store: &ReviewStore) -> Result<Ranking> {
        let version = store.queue_version()?;
        let mut cached = self.ranked.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, ranked)) = cached.as_ref() {
            if *at == version {
                return Ok(ranked.clone());
            }
        }
        let ranked = Arc::new(store.ranked(self.order)?);
        *cached = Some((version, ranked.clone()));
        Ok(ranked)
    }
}

/// The pair (with why the queue put it where it is), its texts' differences,
/// where the queue stands and the hint.
fn pair_response(
    store: &mut ReviewStore,
    id: Option<i64>,
    who: &str,
    ranked: &[(i64, Reason)],
) -> Result<serde_json::Value, Failure> {
    let progress = store.progress(who)?;
    let hint = store.hint()?;
    let Some(id) = id else {
        return Ok(json!({ "pair": null, "progress": progress, "hint": hint }));
    };
    let mut pair = store.pair(id)?;
    pair.reason = ranked.iter().find(|(i, _)| *i == id).map(|(_, r)| *r);
    let summary = |hash: &str| -> Result<_, Failure> {
        store
            .document_summary(hash)?
            .ok_or_else(|| Failure(StatusCode::NOT_FOUND, format!("document {hash} is missing")))
    };
    let (a, b) = (summary(&pair.doc_a)?, summary(&pair.doc_b)?);
    let diff = word_diff(&a.core_text, &b.core_text);
    Ok(json!({
        "pair": pair,
        "documents": {
            "a": { "render": a.has_render, "screenshot": a.has_screenshot },
            "b": { "render": b.has_render, "screenshot": b.has_screenshot },
        },
        "diff": diff,
        "progress": progress,
        "hint": hint,
    }))
}

/// Leases the next pair to the reviewer: a POST, since it changes the queue.
async fn next(State(app): State<Arc<App>>, Json(who): Json<Who>) -> Result<Response, Failure> {
    let who = reviewer(&who.reviewer)?;
    let body = with_store(&app.clone(), move |store| {
        let ranked = app.ranked(store)?;
        let id = store.next(&who, &ranked)?.map(|p| p.id);
        pair_response(store, id, &who, &ranked)
    })
    .await?;
    Ok(Json(body).into_response())
}

/// Leases one pair to the reviewer (going back to an earlier one): a POST too.
async fn open_pair(
    State(app): State<Arc<App>>,
    UrlPath(id): UrlPath<i64>,
    Json(who): Json<Who>,
) -> Result<Response, Failure> {
    let who = reviewer(&who.reviewer)?;
    let body = with_store(&app.clone(), move |store| {
        if store.open_pair(id, &who)?.is_none() {
            return Err(Failure(StatusCode::NOT_FOUND, format!("no pair {id}")));
        }
        pair_response(store, Some(id), &who, &app.ranked(store)?)
    })
    .await?;
    Ok(Json(body).into_response())
}

async fn progress(
    State(app): State<Arc<App>>,
    Query(who): Query<Who>,
) -> Result<Response, Failure> {
    let who = reviewer(&who.reviewer)?;
    let body = with_store(&app, move |store| pair_response(store, None, &who, &[])).await?;
    Ok(Json(body).into_response())
}

#[derive(Deserialize)]
struct Judgement {
    pair_id: i64,
    reviewer: String,
    verdict: Verdict,
}

async fn verdict(
    State(app): State<Arc<App>>,
    Json(j): Json<Judgement>,
) -> Result<Response, Failure> {
    let who = reviewer(&j.reviewer)?;
    with_store(&app, move |store| {
        if !store.has_pair(j.pair_id)? {
            return Err(Failure(
                StatusCode::NOT_FOUND,
                format!("no pair {}", j.pair_id),
            ));
        }
        Ok(store.judge(j.pair_id, &who, j.verdict, "page")?)
    })
    .await?;
    Ok(Json(json!({ "ok": true })).into_response())
}

async fn undo(State(app): State<Arc<App>>, Json(who): Json<Who>) -> Result<Response, Failure> {
    let who = reviewer(&who.reviewer)?;
    let undone = with_store(&app, move |store| Ok(store.undo(&who)?)).await?;
    Ok(Json(json!({ "pair_id": undone })).into_response())
}

/// A stored document: `fetched` (the body as served), `rendered` (the synthetic
/// body) or `screenshot` (PNG), the HTML ones sandboxed.
async fn document(
    State(app): State<Arc<App>>,
    UrlPath((hash, view)): UrlPath<(String, String)>,
) -> Result<Response, Failure> {
    let stored = with_store(&app, move |store| Ok(store.document(&hash)?))
        .await?
        .ok_or_else(|| Failure(StatusCode::NOT_FOUND, "no such document".into()))?;
    let (content_type, bytes) = match view.as_str() {
        "fetched" => ("text/html", stored.fetched),
        "rendered" => {
            let json = stored
                .rendered
                .ok_or_else(|| Failure(StatusCode::NOT_FOUND, "no render stored".into()))?;
            ("text/html; charset=utf-8", synthetic_body(json))
        }
        "screenshot" => (
            "image/png",
            stored
                .screenshot
                .ok_or_else(|| Failure(StatusCode::NOT_FOUND, "no screenshot stored".into()))?,
        ),
        _ => return Err(Failure(StatusCode::NOT_FOUND, format!("no view `{view}`"))),
    };
    let mut headers = HeaderMap::new();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CONTENT_SECURITY_POLICY, app.document_policy.clone());
    Ok((headers, Body::from(bytes)).into_response())
}

/// The synthetic body of a stored render (JSON), or the stored bytes themselves
/// when they are a bare synthetic body.
fn synthetic_body(stored: Vec<u8>) -> Vec<u8> {
    match serde_json::from_slice::<StoredRender>(&stored) {
        Ok(StoredRender::Rendered(r)) => r.synthetic_body.into_bytes(),
        Ok(StoredRender::Failed { failed }) => format!(
            "<p>The render of this document failed: {}</p>",
            escape(&failed)
        )
        .into_bytes(),
        Err(_) => stored,
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
