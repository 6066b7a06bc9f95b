//! [`Renderer`]: browsers, a pool of their tabs, and the ways to render on them (one
//! document; many, in order; many, as each finishes). Its own file rather than the
//! crate's face, so that `supply.rs` uses it from where it is defined.

use crate::browser::Browsers;
use crate::options::RenderOptions;
use crate::pool::{Pool, Slot};
use crate::process;
use crate::rendered::Rendered;
use crate::replay::{Job, ReplayOf};
use crate::sync::lock;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

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
        self.run(Job {
            document,
            replay: None,
        })
    }

    /// Renders a page read from a crawl (its fetched body at `document`), every
    /// request it makes answered from its crawl's archive (see [`ReplayOf`]).
    pub fn replay(&self, document: &Path, replay: &ReplayOf) -> Result<Rendered> {
        self.run(Job {
            document,
            replay: Some(replay),
        })
    }

    /// Renders one job: a document alone, or replayed.
    pub fn run(&self, job: Job) -> Result<Rendered> {
        self.pool.take().run(job, &self.options, &self.browsers)
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
        let jobs: Vec<Job> = documents
            .iter()
            .map(|document| Job {
                document,
                replay: None,
            })
            .collect();
        self.render_each(&jobs, &|index, rendered| {
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

    /// Renders many jobs on the tab pool and hands each result, with the job's
    /// index, to `on_result` as soon as it is ready (from the rendering thread), so
    /// that a long run keeps nothing it does not need.
    pub fn render_each(&self, jobs: &[Job], on_result: &(dyn Fn(usize, Result<Rendered>) + Sync)) {
        let next = AtomicUsize::new(0);
        let workers = self.options.tabs.clamp(1, jobs.len().max(1));
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| {
                    let mut slot = self.pool.take();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&job) = jobs.get(index) else {
                            break;
                        };
                        let rendered = slot.run(job, &self.options, &self.browsers);
                        on_result(index, rendered);
                    }
                });
            }
        });
    }

    /// What the command line of every process of this renderer's browsers contains.
    pub(crate) fn marker(&self) -> String {
        process::profile_root_marker(self.profiles.path())
    }
}

impl Drop for Renderer {
    /// Closes every tab and kills every browser of this renderer (each one's whole
    /// process group), then anything still carrying one of its profiles, before the
    /// profiles are removed.
    fn drop(&mut self) {
        self.pool.clear();
        self.browsers.clear();
        process::kill_processes_mentioning(&self.marker());
        process::unregister_profile_root(self.profiles.path());
    }
}
