//! One document on one tab: navigate, wait for load and network idle (or the
//! deadline), measure the rendered page, then close the windows it opened. The next
//! document, at an origin of its own, replaces it in the tab.
//!
//! The render is one loop on the rendering thread: while it waits for an answer
//! or for the page to settle, it answers the tab's paused requests, follows its
//! lifecycle and network events, dismisses dialogs, and keeps the deadline. Past
//! the deadline it stops loading; a little later it terminates the page's script
//! (a script that never yields blocks every call into the page); later still it
//! gives the tab up as hung, and the tab is closed (see [`Tab`]'s Drop).

use crate::cdp::{Lost, Message};
use crate::protocol::{
    CaptureScreenshot, CloseTarget, Command, CreateIsolatedWorld, Evaluate, Event, GetTargets,
    HandleJavaScriptDialog, Lifecycle, Navigate, StopLoading, TerminateExecution,
};
use crate::rendered::Rendered;
use crate::serve::{Reply, Site};
use crate::tab::Tab;
use anyhow::{anyhow, bail, Context, Result};
use base64::prelude::{Engine, BASE64_STANDARD};
use serde::Deserialize;
use std::time::{Duration, Instant};

/// The network counts as idle after this long with no request in flight.
const QUIET: Duration = Duration::from_millis(500);
/// After the deadline: when a page still holding the main thread gets its script
/// terminated, and when the tab is declared hung.
const INTERRUPT_AFTER: Duration = Duration::from_secs(3);
const GIVE_UP_AFTER: Duration = Duration::from_secs(8);

/// Asks the page's own world what `startup_timers.js` kept.
const ASK_STARTUP_TIMERS: &str = "(window[Symbol.for('twinpage.startupTimers')] || (() => 0))()";
/// The script that serialises and measures the page (see its comments).
const MEASURE: &str = include_str!("measure.js");

/// Renders `site`'s document on `tab` within `budget`.
pub(crate) fn render(
    tab: &Tab,
    site: &Site,
    budget: Duration,
    screenshots: bool,
) -> Result<Rendered> {
    let mut page = Page::new(tab, site, Instant::now() + budget);
    let url = site.url();
    let navigation = page.call(&Navigate { url: &url })?;
    if let Some(error) = navigation.error_text.filter(|e| !e.is_empty()) {
        bail!("navigation to {url} failed: {error}");
    }
    let loader = navigation
        .loader_id
        .ok_or_else(|| anyhow!("navigation to {url} created no document"))?;
    let settled = page.settle(&loader)?;
    if !settled {
        // Freeze the network so that what is measured is what had rendered.
        page.call(&StopLoading {})?;
    }
    // The screenshot comes first: measuring blanks the text a reader cannot see.
    let screenshot_png = if screenshots {
        page.screenshot()?
    } else {
        Vec::new()
    };
    let measured = page.measure()?;
    let cut_off = !settled || page.interrupted;
    page.close_opened_windows()?;
    let mut rendered = Rendered {
        synthetic_body: measured.synthetic_body,
        visible_text: measured.visible_text,
        image_count: measured.image_count,
        image_area: measured.image_area.clamp(0.0, 1.0),
        text_area: measured.text_area.clamp(0.0, 1.0),
        hidden_text_share: measured.hidden_text_share.clamp(0.0, 1.0),
        cut_off,
        screenshot_png,
    };
    rendered.cap_bodies();
    Ok(rendered)
}

/// The fields `measure.js` returns.
#[derive(Deserialize)]
struct Measured {
    synthetic_body: String,
    visible_text: String,
    image_count: usize,
    image_area: f64,
    text_area: f64,
    hidden_text_share: f64,
}

/// A render in progress.
struct Page<'a> {
    tab: &'a Tab,
    site: &'a Site,
    deadline: Instant,
    /// `Page.stopLoading` was sent at the deadline.
    stopped: bool,
    /// The page's script was terminated: what is measured is cut off.
    interrupted: bool,
    /// Loader ids of the documents committed in the main frame.
    documents: Vec<String>,
    /// The last committed document has fired `load`.
    loaded: bool,
    last_activity: Instant,
    /// When the last start-up timer the page had set when last asked is due.
    timers_due: Instant,
}

impl<'a> Page<'a> {
    fn new(tab: &'a Tab, site: &'a Site, deadline: Instant) -> Page<'a> {
        Page {
            tab,
            site,
            deadline,
            stopped: false,
            interrupted: false,
            documents: Vec::new(),
            loaded: false,
            last_activity: Instant::now(),
            timers_due: Instant::now(),
        }
    }

    /// Sends a command to the tab and handles its events until the answer comes.
    fn call<C: Command>(&mut self, command: &C) -> Result<C::Response> {
        let id = self.tab.send(command)?;
        loop {
            match self.next()? {
                Message::Answer(answer) if answer.id == id => return answer.parse::<C>(),
                Message::Answer(_) => {}
                Message::Event(event) => self.on_event(event)?,
            }
        }
    }

    /// The tab's next message, applying the deadline's remedies while none comes.
    fn next(&mut self) -> Result<Message> {
        loop {
            let wake = self.escalate()?;
            if let Some(message) = self.tab.receive(wake)? {
                return Ok(message);
            }
        }
    }

    /// Applies what is due past the deadline; when to look again.
    fn escalate(&mut self) -> Result<Instant> {
        let now = Instant::now();
        if now < self.deadline {
            return Ok(self.deadline);
        }
        if !self.stopped {
            self.stopped = true;
            self.tab.send(&StopLoading {})?;
        }
        if now < self.deadline + INTERRUPT_AFTER {
            return Ok(self.deadline + INTERRUPT_AFTER);
        }
        if !self.interrupted {
            self.interrupted = true;
            self.tab.send(&TerminateExecution {})?;
        }
        if now < self.deadline + GIVE_UP_AFTER {
            return Ok(self.deadline + GIVE_UP_AFTER);
        }
        bail!("the page hung its tab past its deadline; the tab was closed")
    }

    fn on_event(&mut self, event: Event) -> Result<()> {
        match event {
            // Every request of the page pauses here and is answered at once: when the
            // last one was is when the network last did something.
            Event::RequestPaused(paused) => {
                match self.site.answer(&paused) {
                    Reply::Fulfil(fulfil) => self.tab.send(&fulfil)?,
                    Reply::Fail(fail) => self.tab.send(&fail)?,
                };
            }
            Event::Lifecycle(lifecycle) => {
                if !self.follow_lifecycle(lifecycle) {
                    return Ok(());
                }
            }
            // An open alert() blocks the page's main thread, and every call into it.
            Event::DialogOpening => {
                self.tab.send(&HandleJavaScriptDialog { accept: true })?;
                return Ok(());
            }
            Event::TargetCrashed => return Err(Lost::Renderer.into()),
        }
        self.last_activity = Instant::now();
        Ok(())
    }

    /// Notes a main-frame document starting or loading; whether it was one of these.
    fn follow_lifecycle(&mut self, lifecycle: Lifecycle) -> bool {
        if lifecycle.frame_id != self.tab.target {
            return false;
        }
        match lifecycle.name.as_str() {
            "init" => {
                self.documents.push(lifecycle.loader_id);
                self.loaded = false;
            }
            "load" if self.documents.last() == Some(&lifecycle.loader_id) => self.loaded = true,
            _ => return false,
        }
        true
    }

    /// Waits until the document of `loader` (or one it navigated to) has loaded, no
    /// request has been made for `QUIET` and no start-up timer of the page is still
    /// to fire (see `startup_timers.js`); false if the deadline came first. The
    /// renderer answers every request the moment it is made, so none is ever in
    /// flight for long. Chromium's own `networkIdle` lifecycle event comes about a
    /// second after the network went quiet (it is checked lazily), which would double
    /// the time of every render.
    fn settle(&mut self, loader: &str) -> Result<bool> {
        loop {
            let now = Instant::now();
            let ours = self.documents.iter().any(|document| document == loader);
            let quiet_since = now.saturating_duration_since(self.last_activity);
            if ours && self.loaded && quiet_since >= QUIET && now >= self.timers_due {
                match self.startup_timers_pending()? {
                    Some(wait) => self.timers_due = Instant::now() + wait,
                    None => return Ok(true),
                }
            }
            if now >= self.deadline {
                return Ok(false);
            }
            let wake = (self.last_activity + QUIET)
                .max(self.timers_due)
                .max(now + Duration::from_millis(10));
            match self.tab.receive(wake.min(self.deadline))? {
                Some(Message::Event(event)) => self.on_event(event)?,
                Some(Message::Answer(_)) | None => {}
            }
        }
    }

    /// How long until the page's last kept start-up timer fires; None if none is
    /// kept (or the page broke the question: then it is not waited for).
    fn startup_timers_pending(&mut self) -> Result<Option<Duration>> {
        let evaluation = self.call(&Evaluate {
            expression: ASK_STARTUP_TIMERS,
            context_id: None,
            silent: true,
            return_by_value: true,
        })?;
        let wait = evaluation.value::<f64>().unwrap_or(0.0);
        Ok((wait > 0.0).then(|| Duration::from_secs_f64(wait.min(1e6) / 1000.0)))
    }

    /// The viewport as a PNG, encoded for speed (zlib's fastest level): the encoding
    /// runs in Chromium's browser process.
    fn screenshot(&mut self) -> Result<Vec<u8>> {
        let capture = self.call(&CaptureScreenshot {
            format: "png",
            from_surface: true,
            capture_beyond_viewport: false,
            optimize_for_speed: true,
        })?;
        BASE64_STANDARD
            .decode(capture.data)
            .context("screenshot is not base64")
    }

    /// Runs `measure.js` in an isolated world: it shares the DOM with the page but not
    /// its JavaScript globals, which the page may have replaced.
    fn measure(&mut self) -> Result<Measured> {
        let tab = self.tab;
        let world = self.call(&CreateIsolatedWorld {
            frame_id: &tab.target,
            world_name: "twinpage-measure",
            grant_universal_access: false,
        })?;
        let evaluation = self.call(&Evaluate {
            expression: MEASURE,
            context_id: Some(world.execution_context_id),
            silent: true,
            return_by_value: true,
        })?;
        if let Some(exception) = evaluation.exception_details {
            bail!("measuring the page failed: {}", exception.said());
        }
        let json = evaluation
            .value::<String>()
            .ok_or_else(|| anyhow!("measuring the page returned no result"))?;
        serde_json::from_str(&json).context("measuring the page returned malformed JSON")
    }

    /// Closes any window the page opened: it would run on beside the tab's next
    /// documents. The page itself runs until the next document replaces it (or the
    /// tab closes); the next document, at an origin of its own, sees nothing it left.
    fn close_opened_windows(&mut self) -> Result<()> {
        let targets = self.tab.browser_command(&GetTargets {})?.target_infos;
        for target in targets {
            let opened = target.browser_context_id.as_deref() == Some(self.tab.context())
                && target.target_id != self.tab.target;
            if opened {
                let close = CloseTarget {
                    target_id: &target.target_id,
                };
                self.tab.browser_command(&close)?;
            }
        }
        Ok(())
    }
}
