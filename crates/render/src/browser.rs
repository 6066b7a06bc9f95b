//! The renderer's browsers: a few Chromium processes, each holding many tabs.
//!
//! A browser process costs CPU of its own (its main thread, the GPU and network
//! service processes), whatever it renders; tabs cost only their page. So a renderer
//! runs few browsers, each with up to [`TABS_PER_BROWSER`] tabs, rather than one
//! browser per page in flight. A browser that dies (or is killed because one of its
//! tabs hung beyond rescue) fails the renders in flight on it, and the next tab that
//! needs it launches a new one.

use crate::cdp::Connection;
use crate::options::RenderOptions;
use crate::process::{kill_group, Process};
use crate::protocol::{GetVersion, Timed};
use crate::sync::lock;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Tabs one browser holds at most.
pub(crate) const TABS_PER_BROWSER: usize = 8;

/// One running Chromium and its DevTools connection.
pub(crate) struct Browser {
    pub(crate) connection: Connection,
    group: i32,
    // Last, so that it is dropped (killed) after the connection.
    process: Mutex<Process>,
}

impl Browser {
    fn launch(options: &RenderOptions, profile: &Path) -> Result<Browser> {
        let (process, connection) = Process::spawn(options, profile)?;
        let browser = Browser {
            connection,
            group: process.group(),
            process: Mutex::new(process),
        };
        if let Err(error) = browser.command(&GetVersion {}) {
            let log = lock(&browser.process).log_tail();
            return Err(error.context(format!("Chromium did not start: {log}")));
        }
        Ok(browser)
    }

    /// Whether the browser still runs and its pipe is open.
    pub(crate) fn alive(&self) -> bool {
        !self.connection.closed() && lock(&self.process).running()
    }

    /// A browser-level command (no tab), waited for at most its timeout.
    pub(crate) fn command<C: Timed>(&self, command: &C) -> Result<C::Response> {
        self.connection.call(command)
    }

    /// Kills the browser's whole process group; its tabs' renders fail.
    pub(crate) fn kill(&self) {
        kill_group(self.group);
    }
}
/// The browsers of a renderer, launched on demand and replaced when they die.
pub(crate) struct Browsers {
    options: RenderOptions,
    profiles: PathBuf,
    running: Mutex<Vec<Option<Arc<Browser>>>>,
    launches: Mutex<usize>,
}

impl Browsers {
    /// Room for enough browsers to hold `tabs` tabs.
    pub(crate) fn new(options: &RenderOptions, profiles: &Path) -> Browsers {
        let count = options.tabs.max(1).div_ceil(TABS_PER_BROWSER);
        Browsers {
            options: options.clone(),
            profiles: profiles.to_path_buf(),
            running: Mutex::new(vec![None; count]),
            launches: Mutex::new(0),
        }
    }

    /// The browser for the tab in slot `slot`, launched if it is missing or dead.
    pub(crate) fn for_slot(&self, slot: usize) -> Result<Arc<Browser>> {
        let mut running = lock(&self.running);
        if running.is_empty() {
            bail!("the renderer is closing");
        }
        let place = slot % running.len();
        if let Some(browser) = running[place].as_ref().filter(|b| b.alive()) {
            return Ok(browser.clone());
        }
        running[place] = None;
        let profile = self
            .profiles
            .join(format!("browser{place}-{}", self.launch()));
        let browser =
            Arc::new(Browser::launch(&self.options, &profile).context("launching Chromium")?);
        running[place] = Some(browser.clone());
        Ok(browser)
    }

    fn launch(&self) -> usize {
        let mut launches = lock(&self.launches);
        *launches += 1;
        *launches
    }

    /// Lets go of every browser; each is killed once its last tab is closed.
    pub(crate) fn clear(&self) {
        lock(&self.running).clear();
    }
}
