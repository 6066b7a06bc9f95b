//! The pool of places to render: one slot per page rendering at once, each holding
//! a tab of one of the renderer's few browsers (see `browser.rs`).
//!
//! Measured on these machines (2 cores): a render spends most of its time waiting,
//! for the network to be quiet for 500 ms after `load`, so the pool holds more
//! slots than there are cores; tabs, unlike browsers, cost almost nothing while
//! they wait.

use crate::browser::Browsers;
use crate::document::{read_document, served_name};
use crate::options::RenderOptions;
use crate::page;
use crate::rendered::Rendered;
use crate::replay::{Job, ReplayOf};
use crate::serve::Site;
use crate::sync::lock;
use crate::tab::Tab;
use anyhow::{anyhow, Context, Result};
use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::sync::{Condvar, Mutex, MutexGuard};

/// The origin a document is offered at: one of its own for every render (tab
/// `slot`, its `render`-th document), so that a page finds no cookie, storage or
/// service worker of the pages before it in the tab, and the tab needs no cleaning
/// between renders (a blank page and a storage wipe after each render made 120
/// pages take 11 % longer). `https`, as pages are served today: a page that finds
/// itself on `http:` sends itself to `https:` (a common head script). A `.localhost`
/// host keeps pages a secure context; its only parent domain is `localhost`, for
/// which no cookie can be set, so renders share none. No request to it leaves the
/// tab (see `serve.rs`), so no certificate is ever asked for.
fn origin(slot: usize, render: u64) -> String {
    format!("https://t{slot}-r{render}.localhost")
}

/// One place to render: a tab, opened on first use and replaced when it fails or
/// has rendered enough.
pub(crate) struct Slot {
    index: usize,
    renders: u64,
    tab: Option<Tab>,
}

impl Slot {
    pub(crate) fn new(index: usize) -> Slot {
        Slot {
            index,
            renders: 0,
            tab: None,
        }
    }

    /// Makes sure a live tab is ready, opening a new one (and launching its browser)
    /// if needed.
    pub(crate) fn ready(&mut self, options: &RenderOptions, browsers: &Browsers) -> Result<()> {
        if !self.tab.as_ref().is_some_and(Tab::usable) {
            self.tab = None;
            let browser = browsers.for_slot(self.index)?;
            self.tab = Some(Tab::open(browser, options.window)?);
        }
        Ok(())
    }

    /// Renders one document. Any failure after the document was read discards the
    /// tab: its state is unknown, and a fresh one costs a few milliseconds.
    fn render(
        &mut self,
        document: &Path,
        options: &RenderOptions,
        browsers: &Browsers,
    ) -> Result<Rendered> {
        let body = read_document(document)?;
        let name = served_name(document)?;
        let folder = document
            .parent()
            .filter(|folder| !folder.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        self.renders += 1;
        let site = Site::new(
            &origin(self.index, self.renders),
            self.renders,
            folder,
            &name,
            body,
            options.serve,
        )?;
        self.render_site(&site, options, browsers)
            .with_context(|| format!("rendering {} failed", document.display()))
    }

    /// Renders a job: its document alone, or replayed from its archive.
    pub(crate) fn run(
        &mut self,
        job: Job,
        options: &RenderOptions,
        browsers: &Browsers,
    ) -> Result<Rendered> {
        match job.replay {
            Some(replay) => self.replay(job.document, replay, options, browsers),
            None => self.render(job.document, options, browsers),
        }
    }

    /// Renders a page read from a crawl, answering its requests from its archive.
    fn replay(
        &mut self,
        document: &Path,
        replay: &ReplayOf,
        options: &RenderOptions,
        browsers: &Browsers,
    ) -> Result<Rendered> {
        let body = read_document(document)?;
        self.renders += 1;
        let site = Site::replaying(&origin(self.index, self.renders), body, replay.clone());
        self.render_site(&site, options, browsers)
            .with_context(|| format!("replaying {} ({}) failed", replay.url, document.display()))
    }

    fn render_site(
        &mut self,
        site: &Site,
        options: &RenderOptions,
        browsers: &Browsers,
    ) -> Result<Rendered> {
        self.ready(options, browsers)?;
        let tab = self
            .tab
            .as_mut()
            .ok_or_else(|| anyhow!("no tab in slot {}", self.index))?;
        tab.begin_render();
        let rendered = page::render(tab, site, options.deadline, options.screenshots);
        if rendered.is_err() {
            self.tab = None;
        }
        rendered
    }
}

/// Slots not in use; a render borrows one and gives it back when done.
pub(crate) struct Pool {
    free: Mutex<Vec<Slot>>,
    returned: Condvar,
}

impl Pool {
    pub(crate) fn new(slots: Vec<Slot>) -> Pool {
        Pool {
            free: Mutex::new(slots),
            returned: Condvar::new(),
        }
    }

    fn free(&self) -> MutexGuard<'_, Vec<Slot>> {
        lock(&self.free)
    }

    /// Waits for a free slot.
    pub(crate) fn take(&self) -> Lease<'_> {
        let mut free = self.free();
        loop {
            if let Some(slot) = free.pop() {
                return Lease {
                    pool: self,
                    slot: Some(slot),
                };
            }
            free = self
                .returned
                .wait(free)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    /// Removes every slot, closing their tabs.
    pub(crate) fn clear(&self) {
        self.free().clear();
    }
}

/// A borrowed slot; back in the pool when dropped, even by a panic.
pub(crate) struct Lease<'a> {
    pool: &'a Pool,
    slot: Option<Slot>,
}

impl Deref for Lease<'_> {
    type Target = Slot;
    fn deref(&self) -> &Slot {
        self.slot
            .as_ref()
            .expect("a lease holds its slot until dropped")
    }
}

impl DerefMut for Lease<'_> {
    fn deref_mut(&mut self) -> &mut Slot {
        self.slot
            .as_mut()
            .expect("a lease holds its slot until dropped")
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let Some(slot) = self.slot.take() {
            self.pool.free().push(slot);
            self.pool.returned.notify_one();
        }
    }
}
