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
//! 1.6x the pages per second of one browser per tab (lab/RESULTS.md).
//!
//! This file is only the crate's face: what other crates use is defined in the
//! files below and named here.
//!
//! - [`Renderer`] (`renderer.rs`) owns the browsers (`browser.rs`) and a pool of tabs
//!   (`pool.rs`, `tab.rs`) and renders documents on them, as [`RenderOptions`] and
//!   [`ServePolicy`] (`options.rs`) say, into [`Rendered`] (`rendered.rs`);
//! - [`RenderCache`] (`cache.rs`) keeps renders on disk, keyed by content and version;
//! - [`supply()`] (`supply.rs`) gets a run its rendered bodies: stored, cached or rendered;
//! - `stored.rs` reads and writes stored renders, in a folder or a [`Pack`] (`pack.rs`);
//! - `process.rs` is a browser's processes (launch, kill, Ctrl-C, kill -9), `cdp.rs`
//!   the DevTools protocol over its pipe, `protocol.rs` its messages as types;
//! - `page.rs` is one render on one tab, `serve.rs` what the page gets when it asks,
//!   `replay.rs` what a page from a crawl gets: its crawl's own resources ([`Archive`]);
//! - `document.rs` reads a document as the fetched body is read, `sync.rs` locks.

mod browser;
mod cache;
mod cdp;
mod document;
mod options;
mod pack;
mod page;
mod pool;
mod process;
mod protocol;
mod rendered;
mod renderer;
mod replay;
mod serve;
mod stored;
mod supply;
mod sync;
mod tab;

pub use cache::RenderCache;
pub use document::read_document;
pub use options::{RenderOptions, ServePolicy, CHROMIUM_BINARIES, DEFAULT_MEMORY_PER_PROCESS};
pub use pack::{Pack, PACK_SUFFIX};
pub use process::leave_interrupts_to_host;
pub use rendered::{Rendered, StoredRender, RENDERER_VERSION};
pub use renderer::Renderer;
pub use replay::{Archive, Archived, Job, ReplayOf, Replays};
pub use stored::{already_stored, read_stored, store_all, stored_bytes};
pub use supply::{
    default_cache_dir, find_rendered, supply, RenderSettings, RenderedBody, Request, SupplyReport,
};

#[cfg(test)]
mod tests;
