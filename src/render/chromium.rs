//! One running browser and the one tab that renders in it: launched and connected
//! to, asked whether it can take another render, and rendering one page at a time
//! under a watchdog. A slot drops it and launches another when it fails.

use super::confine::confine;
use super::page::{self, PageWatch};
use super::process::Process;
use super::server::Server;
use super::watchdog::{Intervention, Watchdog};
use super::{RenderOptions, Rendered};
use anyhow::{bail, Context, Result};
use headless_chrome::protocol::cdp::Network;
use headless_chrome::{Browser, Tab};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// headless_chrome's idle timeout bounds every protocol call and kills the connection
/// when it fires, so it must outlast a whole render: the deadline plus this margin.
const IDLE_MARGIN: Duration = Duration::from_secs(20);
/// A browser unused for this long is asked whether it still answers before a render.
const QUIET_BROWSER: Duration = Duration::from_secs(5);
/// A browser is replaced after this many renders, bounding what leaks in it
/// (and in headless_chrome, which keeps every response's metadata per tab).
const RECYCLE_AFTER: usize = 200;

/// A running browser with the one tab that renders.
pub(crate) struct Chromium {
    browser: Browser,
    tab: Arc<Tab>,
    watch: Arc<PageWatch>,
    origin: String,
    renders: usize,
    last_used: Instant,
    // Last, so that it is dropped (killed) after the connection is closed.
    process: Process,
}

impl Chromium {
    pub(super) fn launch(
        options: &RenderOptions,
        profile: &Path,
        server: &Server,
    ) -> Result<Chromium> {
        let mut process = Process::spawn(options, profile, server.port())?;
        let url = process.devtools_url()?;
        let browser = Browser::connect_with_timeout(url, options.deadline + IDLE_MARGIN)
            .context("cannot connect to Chromium")?;
        let tab = browser.new_tab()?;
        let origin = server.origin();
        confine(&tab, &origin)?;
        let watch = PageWatch::follow(&tab)?;
        tab.call_method(Network::Enable {
            max_total_buffer_size: None,
            max_resource_buffer_size: None,
            max_post_data_size: None,
            report_direct_socket_traffic: None,
            enable_durable_messages: None,
        })?;
        let chromium = Chromium {
            browser,
            tab,
            watch,
            origin,
            renders: 0,
            last_used: Instant::now(),
            process,
        };
        chromium.close_other_tabs();
        Ok(chromium)
    }

    /// Whether the browser can take another render: its process runs, it has not
    /// rendered enough to be recycled, and, after a quiet spell, it still answers (the
    /// connection dies when idle for longer than headless_chrome's timeout). The
    /// question costs a round trip, about 0.1 s with headless_chrome, so a browser in
    /// steady use is not asked.
    pub(super) fn usable(&mut self) -> bool {
        self.process.running()
            && self.renders < RECYCLE_AFTER
            && (self.last_used.elapsed() < QUIET_BROWSER || self.browser.get_version().is_ok())
    }

    /// Closes the startup tab and any window a page opened.
    fn close_other_tabs(&self) {
        let tabs: Vec<Arc<Tab>> = self.browser.get_tabs().lock().map_or_else(
            |poisoned| poisoned.into_inner().clone(),
            |tabs| tabs.clone(),
        );
        for tab in tabs {
            if tab.get_target_id() != self.tab.get_target_id() {
                let _ = tab.close_target();
            }
        }
    }

    pub(super) fn render(&mut self, url: &str, options: &RenderOptions) -> Result<Rendered> {
        self.renders += 1;
        let watchdog = Watchdog::start(self.tab.clone(), self.process.group(), options.deadline);
        let rendered = page::render(
            &self.tab,
            &self.watch,
            url,
            watchdog.deadline(),
            watchdog.navigating(),
            options.screenshots,
        )
        .and_then(|rendered| {
            page::blank(&self.tab, &self.origin)?;
            Ok(rendered)
        });
        let rendered = match watchdog.finish() {
            Intervention::None => rendered,
            Intervention::Interrupted => rendered.map(|rendered| Rendered {
                cut_off: true,
                ..rendered
            }),
            Intervention::Killed => {
                bail!("the page hung the browser past its deadline; the browser was killed")
            }
        };
        self.close_other_tabs();
        self.last_used = Instant::now();
        rendered
    }
}
