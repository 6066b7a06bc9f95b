//! The pool of places to render.
//!
//! Each slot of the pool is one Chromium process with one tab and its own loopback
//! server: a page that crashes or hangs its browser then costs only its own render,
//! and each slot's pages have an origin (and so storage) of their own.
//!
//! Measured on these machines: every headless_chrome protocol call takes about 0.1 s
//! on a quiet connection (its WebSocket reader holds the socket for a 100 ms read
//! timeout, then sleeps 100 ms), and a render needs about six. A slot therefore spends
//! most of a render waiting, not computing, and the pool can usefully hold more slots
//! than there are cores.

use super::chromium::Chromium;
use super::server::Server;
use super::{lock, read_document, served_name, RenderOptions, Rendered};
use anyhow::{anyhow, Context, Result};
use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::sync::{Condvar, Mutex, MutexGuard};

/// One place to render: a loopback server and the browser that renders from it,
/// launched on first use and replaced when it dies, hangs or has rendered enough.
pub(crate) struct Slot {
    index: usize,
    launches: usize,
    server: Server,
    chromium: Option<Chromium>,
}

impl Slot {
    pub(crate) fn new(index: usize) -> Result<Slot> {
        Ok(Slot {
            index,
            launches: 0,
            server: Server::start()?,
            chromium: None,
        })
    }

    /// Makes sure a live browser is ready, launching a new one if needed.
    pub(crate) fn ready(&mut self, options: &RenderOptions, profiles: &Path) -> Result<()> {
        let usable = self.chromium.as_mut().is_some_and(Chromium::usable);
        if !usable {
            self.chromium = None;
            let profile = profiles.join(format!("slot{}-{}", self.index, self.launches));
            self.launches += 1;
            self.chromium = Some(Chromium::launch(options, &profile, &self.server)?);
        }
        Ok(())
    }

    /// Renders one document. Any failure after the document was read discards the
    /// browser: its state is unknown, and a fresh one costs well under a second.
    pub(crate) fn render(
        &mut self,
        document: &Path,
        options: &RenderOptions,
        profiles: &Path,
    ) -> Result<Rendered> {
        let body = read_document(document)?;
        let name = served_name(document)?;
        let folder = document
            .parent()
            .filter(|folder| !folder.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        self.ready(options, profiles)?;
        let publication = self.server.publish(folder, &name, body, options.serve)?;
        let chromium = self
            .chromium
            .as_mut()
            .ok_or_else(|| anyhow!("no browser in slot {}", self.index))?;
        let rendered = chromium.render(publication.url(), options);
        if rendered.is_err() {
            self.chromium = None;
        }
        rendered.with_context(|| format!("rendering {} failed", document.display()))
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

    /// Removes every slot, killing their browsers.
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
