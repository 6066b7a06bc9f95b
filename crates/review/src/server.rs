//! The review page's HTTP server: on 127.0.0.1 for one person, or on any address
//! for a team, where only people signed in with an invitation get in.
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
//!
//! A team's server (`--bind`) answers any `Host` (a proxy names it), but every
//! `/api/` and `/doc/` request needs a session: the cookie an invitation's sign-in
//! link set (HttpOnly, SameSite=Strict), whose name is the reviewer's, whatever a
//! request body says. A state-changing request must also carry the session's CSRF
//! token in `X-CSRF-Token`, and its `Origin`, when sent, must be the page's own.
//! Wrong sign-in tokens are counted per address; past [`MAX_FAILED_SIGN_INS`] in
//! [`SIGN_IN_WINDOW`] the address gets 429.

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use axum::body::Body;
use axum::extract::{Path as UrlPath, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde::Deserialize;
use serde_json::json;

use super::agreement;
use super::background::Retrainer;
use super::diff::word_diff;
use super::order::{QueueOrder, Reason};
use super::store::{ReviewStore, Serving, SignedIn, Verdict};
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
const STATS_HTML: &str = include_str!("page/stats.html");
const STATS_JS: &str = include_str!("page/stats.js");

/// The queue's pair ids in serving order, each with why it is there, and the
/// pairs that take a second look; shared between requests until the queue changes.
type Ranking = Arc<Ranked>;

struct Ranked {
    order: Vec<(i64, Reason)>,
    second_looks: HashSet<i64>,
}

struct App {
    db: PathBuf,
    /// The order the queue is served in, and how.
    options: Options,
    /// The queue ranked in that order, and the queue version it was ranked at:
    /// ranking reads every queued pair, so it is done again only when the queue changes.
    ranked: Mutex<Option<(String, Ranking)>>,
    /// The `Host` values this server answers to.
    hosts: [String; 2],
    /// The origins its own page has.
    origins: [String; 2],
    /// [`DOCUMENT_POLICY`] with those origins as frame ancestors.
    document_policy: HeaderValue,
    /// A team's server: sign-in needed.
    team: Option<Team>,
    /// Wrong sign-in tokens per address, since when.
    failed_sign_ins: Mutex<HashMap<IpAddr, (u32, Instant)>>,
}

/// How a team's server is reached and shares its pairs.
#[derive(Debug, Clone, Copy)]
pub struct Team {
    /// A reverse proxy in front: the client's address is the last of
    /// `X-Forwarded-For`, and `X-Forwarded-Proto: https` makes cookies Secure.
    pub trust_proxy: bool,
    /// Share of the pairs served to two reviewers, blind to each other (their
    /// agreement is what `review stats` measures).
    pub overlap: f64,
}

/// The share of pairs a team's second look takes unless told otherwise.
pub const DEFAULT_OVERLAP: f64 = 0.1;

impl Default for Team {
    fn default() -> Team {
        Team {
            trust_proxy: false,
            overlap: DEFAULT_OVERLAP,
        }
    }
}

/// How the queue is served: its order, whether the page hides the model's score
/// and its reasons until the reviewer has given a verdict, and whether a model is
/// retrained in the background as labels come.
#[derive(Clone, Default)]
pub struct Options {
    pub order: QueueOrder,
    pub blind: bool,
    pub retraining: Option<Arc<Retrainer>>,
}

impl From<QueueOrder> for Options {
    fn from(order: QueueOrder) -> Options {
        Options {
            order,
            ..Options::default()
        }
    }
}

/// Wrong sign-in tokens an address may send in [`SIGN_IN_WINDOW`] before it is
/// refused (429) until the window ends.
pub const MAX_FAILED_SIGN_INS: u32 = 20;
pub const SIGN_IN_WINDOW: Duration = Duration::from_secs(600);
/// The session cookie's name.
const SESSION_COOKIE: &str = "twinpage_session";

/// The address a connection came from.
#[derive(Clone, Copy)]
struct Peer(SocketAddr);

/// A running review server.
pub struct ReviewServer {
    address: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<Result<()>>>,
}

impl ReviewServer {
    /// Brings the database's schema up to date and serves it on 127.0.0.1:`port`
    /// (0: any free port) from a thread of its own, the queue in `order`.
    pub fn start(db: PathBuf, port: u16, options: impl Into<Options>) -> Result<ReviewServer> {
        Self::serve(
            db,
            SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
            options.into(),
            None,
        )
    }

    /// The same for a team, on `address`: only people signed in get in.
    pub fn start_team(
        db: PathBuf,
        address: SocketAddr,
        options: impl Into<Options>,
        team: Team,
    ) -> Result<ReviewServer> {
        anyhow::ensure!(
            (0.0..=1.0).contains(&team.overlap),
            "the overlap is a share of the pairs, from 0 to 1"
        );
        Self::serve(db, address, options.into(), Some(team))
    }

    fn serve(
        db: PathBuf,
        address: SocketAddr,
        options: Options,
        team: Option<Team>,
    ) -> Result<ReviewServer> {
        ReviewStore::open_existing(&db)?;
        let listener = std::net::TcpListener::bind(address)
            .with_context(|| format!("cannot listen on {address}; try another --port"))?;
        listener.set_nonblocking(true)?;
        let address = listener.local_addr()?;
        let port = address.port();
        let origins = [
            format!("http://127.0.0.1:{port}"),
            format!("http://localhost:{port}"),
        ];
        let document_policy = if team.is_some() {
            // Behind a proxy the page's origin is the proxy's: its own frames.
            HeaderValue::from_str(&format!("{DOCUMENT_POLICY} *"))?
        } else {
            HeaderValue::from_str(&format!("{DOCUMENT_POLICY} {}", origins.join(" ")))?
        };
        let app = Arc::new(App {
            db,
            options,
            ranked: Mutex::new(None),
            hosts: [format!("127.0.0.1:{port}"), format!("localhost:{port}")],
            origins,
            document_policy,
            team,
            failed_sign_ins: Mutex::new(HashMap::new()),
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
                            Ok((stream, peer)) => drop(tokio::spawn(serve_connection(stream, routes.clone().layer(Extension(Peer(peer)))))),
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

    /// The address it listens on.
    pub fn address(&self) -> SocketAddr {
        self.address
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

/// The page's own files: path, body, content type.
const OWN_FILES: [(&str, &str, &str); 5] = [
    ("/", INDEX_HTML, "text/html; charset=utf-8"),
    ("/app.js", APP_JS, "text/javascript; charset=utf-8"),
    ("/app.css", APP_CSS, "text/css; charset=utf-8"),
    ("/stats", STATS_HTML, "text/html; charset=utf-8"),
    ("/stats.js", STATS_JS, "text/javascript; charset=utf-8"),
];

fn router(app: Arc<App>) -> Router {
    let files = OWN_FILES
        .into_iter()
        .fold(Router::new(), |router, (path, body, content_type)| {
            router.route(path, get(move || async move { page(body, content_type) }))
        });
    files
        .route("/signin", get(sign_in))
        .route("/api/me", get(me))
        .route("/api/stats", get(stats))
        .route("/api/next", post(next))
        .route("/api/pair/{id}", post(open_pair))
        .route("/api/progress", get(progress))
        .route("/api/verdict", post(verdict))
        .route("/api/undo", post(undo))
        .route("/doc/{hash}/{view}", get(document))
        .layer(middleware::from_fn(body_in_time))
        .layer(middleware::from_fn_with_state(app.clone(), session))
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
    if hosts.next().is_some() || host.is_none() {
        return Some("one Host header, please");
    }
    // A team's server answers whatever name its proxy gives it: its sessions, not
    // its name, keep others out (a rebound name carries no session cookie).
    let own_host = |h: &str| app.hosts.iter().any(|ok| ok == h);
    if app.team.is_none() && !host.is_some_and(own_host) {
        return Some("unknown Host: open the address twinpage printed");
    }
    let own_origin = |o: &str| match app.team {
        None => app.origins.iter().any(|ok| ok == o),
        Some(_) => o
            .split_once("://")
            .is_some_and(|(scheme, rest)| matches!(scheme, "http" | "https") && Some(rest) == host),
    };
    let writes = request.method() != Method::GET && request.method() != Method::HEAD;
    if writes || request.uri().path().starts_with("/api/") {
        if text(header::ORIGIN).is_some_and(|o| !own_origin(o)) {
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

/// On a team's server, lets `/api/` and `/doc/` requests through only with a
/// session (401 without), and state-changing ones only with its CSRF token (403);
/// the signed-in person goes to the handlers as an extension.
async fn session(State(app): State<Arc<App>>, mut request: Request, next: Next) -> Response {
    let path = request.uri().path();
    if app.team.is_none() || !(path.starts_with("/api/") || path.starts_with("/doc/")) {
        return next.run(request).await;
    }
    let id = cookie(request.headers(), SESSION_COOKIE);
    let signed = match id {
        Some(id) => with_store(&app, move |store| Ok(store.signed_in(&id)?)).await,
        None => Ok(None),
    };
    let who = match signed {
        Ok(Some(who)) => who,
        Ok(None) => {
            let why = "sign in: open the invitation link `twinpage review invite` printed";
            return Failure(StatusCode::UNAUTHORIZED, why.into()).into_response();
        }
        Err(e) => return e.into_response(),
    };
    let writes = request.method() != Method::GET && request.method() != Method::HEAD;
    let token = request
        .headers()
        .get("x-csrf-token")
        .map(HeaderValue::as_bytes);
    if writes && token != Some(who.csrf.as_bytes()) {
        return refuse("missing or wrong X-CSRF-Token");
    }
    request.extensions_mut().insert(who);
    next.run(request).await
}

/// The value of cookie `name`, if the request carries it.
fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| {
            let (key, value) = pair.trim().split_once('=')?;
            (key == name).then(|| value.to_string())
        })
}

/// The client's address: the connection's, or behind a trusted proxy the last
/// address it forwarded for.
fn client(app: &App, headers: &HeaderMap, peer: SocketAddr) -> IpAddr {
    let forwarded = || {
        let last = headers
            .get("x-forwarded-for")?
            .to_str()
            .ok()?
            .rsplit(',')
            .next()?;
        last.trim().parse().ok()
    };
    match app.behind_proxy() {
        true => forwarded().unwrap_or(peer.ip()),
        false => peer.ip(),
    }
}

#[derive(Deserialize)]
struct Invitation {
    #[serde(default)]
    token: String,
}

/// `/signin?token=T`: an invitation's link. Starts a session and goes to the page;
/// a wrong token is counted against the address.
async fn sign_in(
    State(app): State<Arc<App>>,
    Extension(Peer(peer)): Extension<Peer>,
    headers: HeaderMap,
    Query(invitation): Query<Invitation>,
) -> Response {
    if app.team.is_none() {
        return (StatusCode::NOT_FOUND, "this review page needs no sign-in").into_response();
    }
    let address = client(&app, &headers, peer);
    if too_many_failures(&app, address, false) {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            "too many wrong sign-in links from this address: wait ten minutes",
        )
            .into_response();
    }
    let token = invitation.token;
    let started = with_store(&app, move |store| Ok(store.sign_in(&token)?)).await;
    let (id, _) = match started {
        Ok(Some(session)) => session,
        Ok(None) => {
            too_many_failures(&app, address, true);
            let why = "this sign-in link is unknown, used or expired: ask for a new one";
            return (StatusCode::FORBIDDEN, why).into_response();
        }
        Err(e) => return e.into_response(),
    };
    let https = app.behind_proxy()
        && headers
            .get("x-forwarded-proto")
            .is_some_and(|p| p.as_bytes() == b"https");
    let max_age = super::store::SESSION_LIFETIME_MS / 1000;
    let secure = if https { "; Secure" } else { "" };
    let set = format!(
        "{SESSION_COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age}{secure}"
    );
    (
        StatusCode::SEE_OTHER,
        [
            (header::SET_COOKIE, set),
            (header::LOCATION, "/".to_string()),
        ],
    )
        .into_response()
}

/// Whether `address` is over its allowance of wrong tokens (counting one more
/// when `failed`).
fn too_many_failures(app: &App, address: IpAddr, failed: bool) -> bool {
    let mut failures = app
        .failed_sign_ins
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let now = Instant::now();
    failures.retain(|_, (_, since)| now.duration_since(*since) < SIGN_IN_WINDOW);
    let entry = failures.entry(address).or_insert((0, now));
    entry.0 += u32::from(failed);
    entry.0 > MAX_FAILED_SIGN_INS
}

/// Who the page is for: a team's signed-in person with the session's CSRF token,
/// or, on one person's server, nobody in particular (the page asks a name).
async fn me(State(app): State<Arc<App>>, signed: Option<Extension<SignedIn>>) -> Response {
    let blind = app.options.blind;
    match signed {
        Some(Extension(who)) => Json(json!({
            "team": true,
            "reviewer": who.name,
            "role": who.role,
            "csrf": who.csrf,
            "blind": blind,
        })),
        None => Json(json!({ "team": false, "blind": blind })),
    }
    .into_response()
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
    #[serde(default)]
    reviewer: String,
}

/// Who asks, and what they may see and settle.
#[derive(Debug, Clone)]
struct Reader {
    name: String,
    /// A team's reviewer sees only their own labels (a second look is blind).
    team: bool,
    /// Settles the pairs reviewers disagree on, and sees every label.
    adjudicator: bool,
}

impl Reader {
    /// Sees the labels of others.
    fn sees_all_labels(&self) -> bool {
        !self.team || self.adjudicator
    }
}

/// The reader of a request: a team's session's person, else the name typed.
fn who(signed: Option<Extension<SignedIn>>, typed: &str) -> Result<Reader, Failure> {
    match signed {
        Some(Extension(who)) => Ok(Reader {
            adjudicator: who.role == "adjudicator",
            name: who.name,
            team: true,
        }),
        None => Ok(Reader {
            name: reviewer(typed)?,
            team: false,
            adjudicator: false,
        }),
    }
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
    /// A team's server whose forwarded headers are to be believed.
    fn behind_proxy(&self) -> bool {
        self.team.is_some_and(|t| t.trust_proxy)
    }

    /// The queue in the server's order, ranked again only if the queue changed.
    fn ranked(&self, store: &ReviewStore) -> Result<Ranking> {
        let version = store.queue_version()?;
        let mut cached = self.ranked.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, ranked)) = cached.as_ref() {
            if *at == version {
                return Ok(ranked.clone());
            }
        }
        let overlap = self.team.map_or(0.0, |t| t.overlap);
        let ranked = Arc::new(Ranked {
            order: store.ranked(self.options.order)?,
            second_looks: store.second_looks(overlap)?,
        });
        *cached = Some((version, ranked.clone()));
        Ok(ranked)
    }
}

/// The pair (with why the queue put it where it is), its texts' differences,
/// where the queue stands and the hint; what `reader` may not see left out.
fn pair_response(
    store: &mut ReviewStore,
    id: Option<i64>,
    reader: &Reader,
    ranked: &[(i64, Reason)],
    app: &App,
) -> Result<serde_json::Value, Failure> {
    let mut progress = store.progress(&reader.name)?;
    if !reader.sees_all_labels() {
        progress.conflicts.clear();
    }
    let hint = store.hint()?;
    let retraining = app.options.retraining.as_ref().map(|r| r.status());
    let Some(id) = id else {
        return Ok(
            json!({ "pair": null, "progress": progress, "hint": hint, "retraining": retraining }),
        );
    };
    let mut pair = store.pair(id)?;
    pair.reason = ranked.iter().find(|(i, _)| *i == id).map(|(_, r)| *r);
    let disputed = reader.adjudicator && store.disputed(id, &reader.name)?;
    let judged = pair.labels.iter().any(|(r, _)| *r == reader.name);
    if !reader.sees_all_labels() {
        pair.labels.retain(|(r, _)| *r == reader.name);
    }
    let summary = |hash: &str| -> Result<_, Failure> {
        store
            .document_summary(hash)?
            .ok_or_else(|| Failure(StatusCode::NOT_FOUND, format!("document {hash} is missing")))
    };
    let (a, b) = (summary(&pair.doc_a)?, summary(&pair.doc_b)?);
    let diff = word_diff(&a.core_text, &b.core_text);
    let mut pair = serde_json::to_value(pair).map_err(anyhow::Error::from)?;
    let hidden = app.options.blind && !judged;
    if hidden {
        pair["p_duplicate"] = serde_json::Value::Null;
        pair["explanation"] = serde_json::Value::Null;
    }
    Ok(json!({
        "pair": pair,
        "hidden": hidden,
        "disputed": disputed,
        "documents": {
            "a": { "render": a.has_render, "screenshot": a.has_screenshot },
            "b": { "render": b.has_render, "screenshot": b.has_screenshot },
        },
        "diff": diff,
        "progress": progress,
        "hint": hint,
        "retraining": retraining,
    }))
}

/// Leases the next pair to the reviewer: a POST, since it changes the queue.
async fn next(
    State(app): State<Arc<App>>,
    signed: Option<Extension<SignedIn>>,
    Json(typed): Json<Who>,
) -> Result<Response, Failure> {
    let reader = who(signed, &typed.reviewer)?;
    let body = with_store(&app.clone(), move |store| {
        let ranked = app.ranked(store)?;
        let serving = Serving {
            ranked: &ranked.order,
            second_looks: Some(&ranked.second_looks),
            adjudicator: reader.adjudicator,
        };
        let id = store.next(&reader.name, &serving)?.map(|p| p.id);
        pair_response(store, id, &reader, &ranked.order, &app)
    })
    .await?;
    Ok(Json(body).into_response())
}

/// Leases one pair to the reviewer (going back to an earlier one): a POST too.
async fn open_pair(
    State(app): State<Arc<App>>,
    UrlPath(id): UrlPath<i64>,
    signed: Option<Extension<SignedIn>>,
    Json(typed): Json<Who>,
) -> Result<Response, Failure> {
    let reader = who(signed, &typed.reviewer)?;
    let body = with_store(&app.clone(), move |store| {
        if store.open_pair(id, &reader.name)?.is_none() {
            return Err(Failure(StatusCode::NOT_FOUND, format!("no pair {id}")));
        }
        let ranked = app.ranked(store)?;
        pair_response(store, Some(id), &reader, &ranked.order, &app)
    })
    .await?;
    Ok(Json(body).into_response())
}

async fn progress(
    State(app): State<Arc<App>>,
    signed: Option<Extension<SignedIn>>,
    Query(typed): Query<Who>,
) -> Result<Response, Failure> {
    let reader = who(signed, &typed.reviewer)?;
    let body = with_store(&app.clone(), move |store| {
        pair_response(store, None, &reader, &[], &app)
    })
    .await?;
    Ok(Json(body).into_response())
}

/// Whether the reviewers agree (the stats page), and where the queue stands.
async fn stats(State(app): State<Arc<App>>) -> Result<Response, Failure> {
    let overlap = app.team.map_or(0.0, |t| t.overlap);
    let retraining = app.options.retraining.as_ref().map(|r| r.status());
    let body = with_store(&app, move |store| {
        Ok(json!({
            "retraining": retraining,
            "agreement": agreement::stats(&store.active_labels()?),
            "progress": store.progress("")?,
            "hint": store.hint()?,
            "overlap": overlap,
        }))
    })
    .await?;
    Ok(Json(body).into_response())
}

#[derive(Deserialize)]
struct Judgement {
    pair_id: i64,
    #[serde(default)]
    reviewer: String,
    verdict: Verdict,
}

/// Records a verdict: an adjudicator's on a pair its reviewers disagree on
/// settles it. On a blind page the answer reveals what the model said.
async fn verdict(
    State(app): State<Arc<App>>,
    signed: Option<Extension<SignedIn>>,
    Json(j): Json<Judgement>,
) -> Result<Response, Failure> {
    let reader = who(signed, &j.reviewer)?;
    let blind = app.options.blind;
    let retraining = app.options.retraining.clone();
    let db = app.db.clone();
    let revealed = with_store(&app, move |store| {
        if !store.has_pair(j.pair_id)? {
            return Err(Failure(
                StatusCode::NOT_FOUND,
                format!("no pair {}", j.pair_id),
            ));
        }
        let adjudicates = reader.adjudicator && store.disputed(j.pair_id, &reader.name)?;
        let source = if adjudicates { "adjudication" } else { "page" };
        store.judge(j.pair_id, &reader.name, j.verdict, source)?;
        if let Some(retraining) = retraining {
            retraining.maybe_start(&db, store.labels_given()?);
        }
        let pair = blind.then(|| store.pair(j.pair_id)).transpose()?;
        Ok(pair.map(|p| {
            json!({ "pair_id": p.id, "p_duplicate": p.p_duplicate, "explanation": p.explanation })
        }))
    })
    .await?;
    Ok(Json(json!({ "ok": true, "revealed": revealed })).into_response())
}

async fn undo(
    State(app): State<Arc<App>>,
    signed: Option<Extension<SignedIn>>,
    Json(typed): Json<Who>,
) -> Result<Response, Failure> {
    let name = who(signed, &typed.reviewer)?.name;
    let undone = with_store(&app, move |store| Ok(store.undo(&name)?)).await?;
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
