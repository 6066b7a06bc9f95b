//! Rendering documents in a real headless Chromium.
//!
//! The method compares two versions of every document: the *fetched* body, the HTML
//! as it was served, and the *rendered* body, the page after a browser ran its
//! scripts, frames and requests. The two differ exactly where fetched-body signals
//! go wrong: a client-rendered page is an empty shell until its script fills it in
//! (so unrelated pages of one app look alike, and a page looks unlike its own
//! server-rendered copy), and keyword stuffing hidden with CSS is text in the
//! fetched body that no reader ever sees.
//!
//! A render loads the document in Chromium with scripts on, waits for the `load`
//! event and then for the network to be idle (no request for 500 ms), or for the
//! deadline, and returns the serialised DOM (the *synthetic body*) with what a reader
//! sees: the visible text, how much of the page images and text cover, how much of
//! the DOM's text is hidden, and a screenshot.
//!
//! Pages are untrusted and rendering never touches the network: every request a
//! page makes is paused in its tab and answered by the renderer, with the document
//! itself and the files of its folder (but no dotfile; see [`ServePolicy`]); any
//! other address fails, and the browser has no route out anyway.
//!
//! Where the time goes decided the design (measured on 2 cores): a browser process
//! costs CPU whatever it renders (its main thread is the busiest thread of a run),
//! and a DevTools call through headless_chrome waited ~0.1 s in its WebSocket
//! reader. So a few browsers hold many tabs, each tab in a browser context of its
//! own, driven over Chromium's DevTools pipe, with no HTTP server: about 1.4x to
//! 1.6x the pages per second of one browser per tab (README, Benchmark).
//!
//! - [`Renderer`] owns the browsers (`browser.rs`) and a pool of tabs (`pool.rs`,
//!   `tab.rs`) and renders documents on them;
//! - [`RenderCache`] (`cache.rs`) keeps renders on disk, keyed by content and version;
//! - [`supply`] (`supply.rs`) gets a run its rendered bodies: stored, cached or rendered;
//! - `process.rs` is a browser's processes (launch, kill, Ctrl-C, kill -9), `cdp.rs`
//!   the DevTools protocol over its pipe;
//! - `page.rs` is one render on one tab, `serve.rs` what the page gets when it asks.

mod browser;
mod cache;
mod cdp;
mod page;
mod pool;
mod process;
mod serve;
mod supply;
mod tab;

pub use cache::RenderCache;
pub use supply::{
    already_stored, default_cache_dir, find_rendered, read_stored, store_all, supply,
    RenderSettings, RenderedBody, Request, SupplyReport,
};

use anyhow::{bail, Context, Result};
use browser::Browsers;
use pool::{Pool, Slot};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;
use twinpage_util::body::MAX_BODY_BYTES;
use twinpage_util::Choice;

/// Names what a render produces; part of the cache key, so bump it whenever the
/// renderer's output changes (flags, settle rule, measurements, serialisation).
pub const RENDERER_VERSION: &str = "twinpage-render-6";

/// Where Chromium is looked for, best first. The headless shell (Debian's
/// `chromium-headless-shell`) is the browser without its desktop parts: on 120 pages
/// of `training-data/web` it rendered the same text with less than half the CPU of
/// the full browser (`--headless`), 44 against 94 CPU-seconds.
pub const CHROMIUM_BINARIES: &[&str] = &[
    "/usr/lib/chromium/chromium-headless-shell",
    "/usr/bin/chromium-headless-shell",
    "/usr/bin/chromium",
];

/// The first of [`CHROMIUM_BINARIES`] that is installed, else the last (whose
/// absence [`Renderer::start`] explains).
fn installed_chromium() -> PathBuf {
    let found = CHROMIUM_BINARIES
        .iter()
        .find(|path| Path::new(path).is_file());
    PathBuf::from(found.unwrap_or(&CHROMIUM_BINARIES[CHROMIUM_BINARIES.len() - 1]))
}

/// How to run the browsers.
#[derive(Clone, Debug)]
pub struct RenderOptions {
    /// The Chromium binary: `TWINPAGE_CHROMIUM` if set, else the first installed of
    /// [`CHROMIUM_BINARIES`].
    pub chromium: PathBuf,
    /// Time allowed for load and settle; after it, what has rendered is kept.
    pub deadline: Duration,
    /// Pages rendering at once, each in a tab (default: eight per core), eight tabs
    /// to a browser. A render spends most of its time waiting (500 ms of network
    /// quiet after `load`), so one tab per core would leave the cores idle.
    pub tabs: usize,
    /// Window (viewport) size in CSS pixels.
    pub window: (u32, u32),
    /// What a page may load from its folder besides itself.
    pub serve: ServePolicy,
    /// Take a screenshot of each page. Only a person reviewing a pair looks at one,
    /// and encoding it cost a large share of a render's CPU: off unless asked for
    /// (`score --review-db`, `--screenshots`).
    pub screenshots: bool,
}

/// What a page is given besides the document itself. A page is
/// untrusted, and whatever it can read ends up in the stored render.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ServePolicy {
    /// Files in the document's folder and below, except those under a name starting
    /// with `.` (`.env`, `.ssh/`, `.git/`).
    #[default]
    Siblings,
    /// Nothing but the document itself.
    DocumentOnly,
}

impl Choice for ServePolicy {
    const CHOICES: &'static [(ServePolicy, &'static str, &'static str)] = &[
        (
            ServePolicy::Siblings,
            "siblings",
            "Files in the document's folder and below, except those under a name starting with `.` (`.env`, `.ssh/`, `.git/`)",
        ),
        (ServePolicy::DocumentOnly, "none", "Nothing but the document itself"),
    ];
}

impl Default for RenderOptions {
    fn default() -> Self {
        let chromium =
            std::env::var_os("TWINPAGE_CHROMIUM").map_or_else(installed_chromium, PathBuf::from);
        let cores = std::thread::available_parallelism().map_or(1, |cores| cores.get());
        RenderOptions {
            chromium,
            deadline: Duration::from_secs(10),
            tabs: 8 * cores.max(1),
            window: (1280, 1024),
            screenshots: false,
            serve: ServePolicy::default(),
        }
    }
}

/// A rendered document.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Rendered {
    /// The serialised DOM after load and settle, with its doctype if it has one.
    pub synthetic_body: String,
    /// `document.body.innerText`: the text a reader sees.
    pub visible_text: String,
    /// `<img>` elements in the rendered DOM.
    pub image_count: usize,
    /// Share of the page (full scroll size) covered by visible images, in [0, 1].
    pub image_area: f64,
    /// Share of the page covered by visible text boxes, in [0, 1].
    pub text_area: f64,
    /// Share of the DOM's text (not counting whitespace) that is not visible, in [0, 1].
    pub hidden_text_share: f64,
    /// The deadline fired before load and settle finished; what had rendered is kept.
    pub cut_off: bool,
    /// The viewport as a PNG, when screenshots were asked for (else empty). Not in
    /// the JSON: the cache stores it as a file of its own.
    #[serde(skip)]
    pub screenshot_png: Vec<u8>,
}

/// A render as the cache and stored render files keep it: the render, or why
/// there is none (then the fetched body stands in for the rendered one).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub enum StoredRender {
    Failed { failed: String },
    Rendered(Rendered),
}

/// Headless Chromium browsers, and a pool of their tabs, that render local documents.
pub struct Renderer {
    options: RenderOptions,
    pool: Pool,
    browsers: Browsers,
    /// Holds every browser's profile; its path marks their processes.
    profiles: tempfile::TempDir,
}

impl Renderer {
    /// Starts the pool, opening one tab right away so that a Chromium that cannot
    /// run fails here, once, with its reason.
    pub fn start(options: RenderOptions) -> Result<Renderer> {
        if !options.chromium.is_file() {
            bail!(
                "Chromium not found at {}: install it with `apt-get install -y \
                 chromium-headless-shell` (or `chromium`, or set TWINPAGE_CHROMIUM to a \
                 Chromium binary)",
                options.chromium.display()
            );
        }
        process::install_interrupt_handler();
        let profiles = process::new_profile_root()?;
        process::register_profile_root(profiles.path());
        let slots = (0..options.tabs.max(1)).map(Slot::new).collect();
        let renderer = Renderer {
            browsers: Browsers::new(&options, profiles.path()),
            options,
            pool: Pool::new(slots),
            profiles,
        };
        renderer
            .pool
            .take()
            .ready(&renderer.options, &renderer.browsers)
            .context("Chromium does not start")?;
        Ok(renderer)
    }

    /// Renders one local document (a path to .html or .html.gz; gzip, recognised by its
    /// magic bytes 1f 8b, is decompressed before serving). The page may fetch its
    /// siblings (as `serve` allows); every request to any other address fails.
    pub fn render(&self, document: &Path) -> Result<Rendered> {
        self.pool
            .take()
            .render(document, &self.options, &self.browsers)
    }

    /// Renders many documents on the tab pool (in parallel, `tabs` at a time), calling
    /// `on_done` after each (for a progress bar); returns results in input order. A
    /// browser that dies or hangs is replaced and the run goes on (the page that
    /// killed it gets an Err, as may the others in flight on a browser that died).
    pub fn render_all(
        &self,
        documents: &[PathBuf],
        on_done: &(dyn Fn() + Sync),
    ) -> Vec<Result<Rendered>> {
        let results: Vec<Mutex<Option<Result<Rendered>>>> =
            documents.iter().map(|_| Mutex::new(None)).collect();
        self.render_each(documents, &|index, rendered| {
            *lock(&results[index]) = Some(rendered);
            on_done();
        });
        results
            .into_iter()
            .map(|result| {
                let result = result.into_inner().unwrap_or_else(|p| p.into_inner());
                result.unwrap_or_else(|| bail!("document was not rendered"))
            })
            .collect()
    }

    /// Renders many documents on the tab pool and hands each result, with the
    /// document's index, to `on_result` as soon as it is ready (from the rendering
    /// thread), so that a long run keeps nothing it does not need.
    pub fn render_each(
        &self,
        documents: &[PathBuf],
        on_result: &(dyn Fn(usize, Result<Rendered>) + Sync),
    ) {
        let next = AtomicUsize::new(0);
        let workers = self.options.tabs.clamp(1, documents.len().max(1));
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| {
                    let mut slot = self.pool.take();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(document) = documents.get(index) else {
                            break;
                        };
                        let rendered = slot.render(document, &self.options, &self.browsers);
                        on_result(index, rendered);
                    }
                });
            }
        });
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Drop for Renderer {
    /// Closes every tab and kills every browser of this renderer (each one's whole
    /// process group), then anything still carrying one of its profiles, before the
    /// profiles are removed.
    fn drop(&mut self) {
        self.pool.clear();
        self.browsers.clear();
        process::kill_processes_mentioning(&process::profile_root_marker(self.profiles.path()));
        process::unregister_profile_root(self.profiles.path());
    }
}

/// Reads a document as the fetched body is read (decompressed, cut at 4 MB, so a
/// huge page costs the browser no more than a big one). These are the bytes that
/// are rendered and that key the cache.
pub fn read_document(path: &Path) -> Result<Vec<u8>> {
    twinpage_util::body::read_decompressed(path, MAX_BODY_BYTES as u64)
}

/// The document's name in its URL: its file name without a `.gz` ending.
fn served_name(path: &Path) -> Result<String> {
    let Some(name) = path.file_name() else {
        bail!("{} is not a file", path.display());
    };
    let name = name.to_string_lossy();
    Ok(name.strip_suffix(".gz").unwrap_or(&name).to_string())
}

#[cfg(test)]
mod tests;
