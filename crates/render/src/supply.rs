//! Rendered bodies for a run, from the cheapest place that has them.
//!
//! For each document, in order: the stored render the pair file names
//! (`rendered_a`, `rendered_b`), used as it is; else the render cache; else
//! Chromium, whose renders then go into the cache. Chromium starts only when
//! something is missing, so a warm cache or self-contained pair files need no
//! browser at all.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::cache::RenderCache;
use crate::cdp::Lost;
use crate::document::read_document;
use crate::options::RenderOptions;
use crate::rendered::{Rendered, StoredRender};
use crate::replay::{Job, Replays};
use crate::stored::read_stored;
use crate::sync::lock;
use crate::Renderer;
use twinpage_util::Progress;

/// Where rendered bodies come from, and how to make the missing ones.
#[derive(Clone, Debug)]
pub struct RenderSettings {
    /// The render cache folder.
    pub cache: PathBuf,
    pub options: RenderOptions,
    /// Render again the documents whose failure the cache remembers.
    pub retry_failed: bool,
    /// The documents that are pages of crawls, rendered from their archives.
    pub replays: Replays,
}

/// The cache folder used when none is given: `$XDG_CACHE_HOME/twinpage/render`,
/// else `~/.cache/twinpage/render`, else `.twinpage-cache/render`.
pub fn default_cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cache")));
    match base {
        Some(base) => base.join("twinpage").join("render"),
        None => PathBuf::from(".twinpage-cache").join("render"),
    }
}

/// A document to get the rendered body of.
pub struct Request<'a> {
    /// The fetched body (what is rendered, and what keys the cache).
    pub document: &'a Path,
    /// A stored render the pair file gives for it, if any.
    pub stored: Option<&'a Path>,
    /// blake3 of the document's (decompressed, cut) bytes when the caller has it
    /// already; else the document is read to get it.
    pub content_hash: Option<[u8; 32]>,
}

impl Request<'_> {
    /// blake3 of the document's (decompressed, cut) bytes: the one given, or read now.
    pub fn hash(&self) -> Result<[u8; 32]> {
        match self.content_hash {
            Some(hash) => Ok(hash),
            None => Ok(*blake3::hash(&read_document(self.document)?).as_bytes()),
        }
    }
}

/// A rendered body as a run gets it.
pub enum RenderedBody {
    /// A render with the browser's measurements.
    Measured(Rendered),
    /// A stored synthetic body alone (HTML): no browser measurements come with it.
    SyntheticOnly(Vec<u8>),
    /// The document could not be rendered; why.
    Failed(String),
}

impl From<StoredRender> for RenderedBody {
    /// Drops the screenshot: signals do not need it, and a run holds many renders.
    fn from(stored: StoredRender) -> RenderedBody {
        match stored {
            StoredRender::Rendered(rendered) => RenderedBody::Measured(Rendered {
                screenshot_png: Vec::new(),
                ..rendered
            }),
            StoredRender::Failed { failed } => RenderedBody::Failed(failed),
        }
    }
}

/// What [`supply`] did, for the user.
#[derive(Debug, Default, Clone)]
pub struct SupplyReport {
    pub stored: usize,
    pub cached: usize,
    pub rendered: usize,
    pub failed: usize,
    /// Of the failed, those whose failure the cache remembered (no browser tried them).
    pub failed_before: usize,
    /// Renders made but not written to the cache (full disk, no permission), why.
    pub not_cached: Vec<String>,
}

/// The rendered body of every request, in order. Errors only when documents are
/// missing from the cache and no browser can start (the message says how to get
/// one); a document that fails to render is a [`RenderedBody::Failed`], not an error.
pub fn supply(
    requests: &[Request],
    settings: &RenderSettings,
) -> Result<(Vec<RenderedBody>, SupplyReport)> {
    let cache = RenderCache::open(&settings.cache, settings.options.serve)?;
    let found: Vec<Found> = requests
        .par_iter()
        .map(|request| look_up(request, &cache, &settings.replays, settings.retry_failed))
        .collect();
    let mut report = SupplyReport::default();
    let mut missing: Vec<(usize, String)> = Vec::new();
    let mut bodies: Vec<RenderedBody> = Vec::with_capacity(requests.len());
    for (i, found) in found.into_iter().enumerate() {
        bodies.push(match found {
            Found::Stored(body) => {
                report.stored += 1;
                body
            }
            Found::Cached(rendered) => {
                report.cached += 1;
                RenderedBody::from(StoredRender::Rendered(rendered))
            }
            Found::Unreadable(reason) => {
                report.failed += 1;
                RenderedBody::Failed(reason)
            }
            Found::FailedBefore(reason) => {
                report.failed += 1;
                report.failed_before += 1;
                RenderedBody::Failed(format!(
                    "{reason} (remembered; --retry-failed renders it again)"
                ))
            }
            Found::Missing(key) => {
                missing.push((i, key));
                RenderedBody::Failed("not rendered".into())
            }
        });
    }
    if !missing.is_empty() {
        render_missing(
            requests,
            &missing,
            settings,
            &cache,
            &mut bodies,
            &mut report,
        )?;
    }
    Ok((bodies, report))
}

/// The error of a page whose renderer or browser died even when it rendered alone
/// (in the run, the other pages of its browser die with it, and pass alone): the
/// page's own doing, most likely its memory.
fn lost_alone(error: anyhow::Error, options: &RenderOptions) -> anyhow::Error {
    if !Lost::caused(&error) {
        return error;
    }
    error.context(format!(
        "out of memory (a browser process may take {} MB: --render-memory) or a fault of \
         the browser; it failed alone too",
        options.memory_per_process >> 20
    ))
}

/// Renders the documents missing from the cache and caches them.
fn render_missing(
    requests: &[Request],
    missing: &[(usize, String)],
    settings: &RenderSettings,
    cache: &RenderCache,
    bodies: &mut [RenderedBody],
    report: &mut SupplyReport,
) -> Result<()> {
    let renderer = Renderer::start(settings.options.clone()).with_context(|| {
        format!(
            "{} document(s) have no rendered body in the cache {} and none can be made \
             (or use --no-render with a fetched-only model such as models/fetched-only.json)",
            missing.len(),
            settings.cache.display()
        )
    })?;
    let jobs: Vec<Job> = missing
        .iter()
        .map(|&(i, _)| Job {
            document: requests[i].document,
            replay: settings.replays.of(requests[i].document),
        })
        .collect();
    let progress = Progress::new(jobs.len(), "rendering documents");
    let done: Vec<Mutex<Option<RenderedBody>>> = missing.iter().map(|_| Mutex::new(None)).collect();
    let not_cached = Mutex::new(Vec::new());
    let keep = |index: usize, result: Result<Rendered>, last_try: bool| {
        let key = &missing[index].1;
        // Cached at once, so that an interrupted run keeps what it rendered.
        let (body, cached) = match result {
            Ok(rendered) => {
                let cached = cache.put(key, &rendered);
                (RenderedBody::from(StoredRender::Rendered(rendered)), cached)
            }
            Err(e) if last_try => {
                let reason = format!("{e:#}");
                let cached = cache.put_failure(key, &reason);
                (RenderedBody::Failed(reason), cached)
            }
            Err(e) => (RenderedBody::Failed(format!("{e:#}")), Ok(())),
        };
        if let Err(e) = cached {
            lock(&not_cached).push(format!("{e:#}"));
        }
        *lock(&done[index]) = Some(body);
    };
    renderer.render_each(&jobs, &|index, result| {
        keep(index, result, false);
        progress.inc();
    });
    progress.finish();
    // A page may fail only because the machine was too busy for it to finish in time:
    // failures are tried once more, one page at a time, and only then remembered.
    let failed: Vec<usize> = (0..missing.len())
        .filter(|&index| matches!(*lock(&done[index]), Some(RenderedBody::Failed(_))))
        .collect();
    for index in failed {
        let result = renderer.run(jobs[index]);
        keep(
            index,
            result.map_err(|e| lost_alone(e, &settings.options)),
            true,
        );
    }
    drop(renderer);
    report.not_cached = not_cached.into_inner().unwrap_or_else(|p| p.into_inner());
    for ((i, _), body) in missing.iter().zip(done) {
        let body = body.into_inner().unwrap_or_else(|p| p.into_inner());
        let body = body.unwrap_or_else(|| RenderedBody::Failed("not rendered".into()));
        match body {
            RenderedBody::Failed(_) => report.failed += 1,
            _ => report.rendered += 1,
        }
        bodies[*i] = body;
    }
    Ok(())
}

/// Where a request's rendered body was found.
enum Found {
    Stored(RenderedBody),
    Cached(Rendered),
    /// The cache remembers that it failed, and why.
    FailedBefore(String),
    Unreadable(String),
    /// Not in the cache; its key.
    Missing(String),
}

fn look_up(request: &Request, cache: &RenderCache, replays: &Replays, retry_failed: bool) -> Found {
    if let Some(stored) = request.stored {
        return match read_stored(stored) {
            Ok(body) => Found::Stored(body),
            Err(e) => Found::Unreadable(format!("{e:#}")),
        };
    }
    let content_hash = match request.hash() {
        Ok(hash) => hash,
        Err(e) => return Found::Unreadable(format!("{e:#}")),
    };
    let key = match replays.of(request.document) {
        Some(replay) => cache.key(&replay.content_hash(&content_hash)),
        None => cache.key(&content_hash),
    };
    if let Some(stored) = cache.get(&key) {
        return Found::Cached(stored);
    }
    match cache.failure(&key).filter(|_| !retry_failed) {
        Some(reason) => Found::FailedBefore(reason),
        None => Found::Missing(key),
    }
}

/// The rendered body a document already has, stored or cached, without starting a
/// browser; None when it has none yet or the cache remembers that it failed.
pub fn find_rendered(request: &Request, cache: &RenderCache) -> Option<RenderedBody> {
    match look_up(request, cache, &Replays::default(), false) {
        Found::Stored(body) => Some(body),
        Found::Cached(rendered) => Some(RenderedBody::from(StoredRender::Rendered(rendered))),
        Found::FailedBefore(_) | Found::Unreadable(_) | Found::Missing(_) => None,
    }
}
