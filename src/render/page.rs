//! One document on one tab: navigate, wait for load and network idle (or the
//! deadline), measure the rendered page, then blank the tab for the next document.

use super::Rendered;
use anyhow::{anyhow, bail, Context, Result};
use base64::prelude::{Engine, BASE64_STANDARD};
use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::protocol::cdp::{Page, Runtime, Storage};
use headless_chrome::Tab;
use serde::Deserialize;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

/// The network counts as idle after this long with no request in flight.
const QUIET: Duration = Duration::from_millis(500);

/// The script that serialises and measures the page (see its comments).
const MEASURE: &str = include_str!("measure.js");

/// Follows the tab's events: which document the main frame shows, whether it has
/// fired `load`, and which requests are in flight. Chromium's own `networkIdle`
/// lifecycle event comes about a second after the network went quiet (it is checked
/// lazily), which would double the time of every render; counting requests is exact.
pub(crate) struct PageWatch {
    main_frame: String,
    state: Mutex<WatchState>,
    changed: Condvar,
}

struct WatchState {
    /// Loader ids of the documents committed in the main frame since the last reset.
    documents: Vec<String>,
    /// The last committed document has fired `load`.
    loaded: bool,
    in_flight: HashSet<String>,
    last_activity: Instant,
}

impl PageWatch {
    /// Starts following `tab`'s events. JavaScript dialogs are dismissed here: an open
    /// `alert()` blocks the page's main thread, and with it every later protocol call.
    pub(crate) fn follow(tab: &Arc<Tab>) -> Result<Arc<PageWatch>> {
        let watch = Arc::new(PageWatch {
            main_frame: tab.get_target_id().clone(),
            state: Mutex::new(WatchState {
                documents: Vec::new(),
                loaded: false,
                in_flight: HashSet::new(),
                last_activity: Instant::now(),
            }),
            changed: Condvar::new(),
        });
        let (listener_watch, weak_tab) = (watch.clone(), Arc::downgrade(tab));
        tab.add_event_listener(Arc::new(move |event: &Event| {
            listener_watch.on_event(event, &weak_tab);
        }))?;
        Ok(watch)
    }

    fn state(&self) -> MutexGuard<'_, WatchState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn on_event(&self, event: &Event, tab: &Weak<Tab>) {
        let mut state = self.state();
        match event {
            Event::PageLifecycleEvent(event) if event.params.frame_id == self.main_frame => {
                let loader = &event.params.loader_id;
                match event.params.name.as_str() {
                    "init" => {
                        // A new document: the old one's requests were cancelled with it.
                        state.documents.push(loader.clone());
                        state.loaded = false;
                        state.in_flight.clear();
                    }
                    "load" if state.documents.last() == Some(loader) => state.loaded = true,
                    _ => return,
                }
            }
            Event::NetworkRequestWillBeSent(event) => {
                state.in_flight.insert(event.params.request_id.clone());
            }
            Event::NetworkLoadingFinished(event) => {
                state.in_flight.remove(&event.params.request_id);
            }
            Event::NetworkLoadingFailed(event) => {
                state.in_flight.remove(&event.params.request_id);
            }
            Event::PageJavascriptDialogOpening(_) => {
                drop(state);
                dismiss_dialog(tab);
                return;
            }
            _ => return,
        }
        state.last_activity = Instant::now();
        self.changed.notify_all();
    }

    fn reset(&self) {
        let mut state = self.state();
        state.documents.clear();
        state.loaded = false;
        state.in_flight.clear();
        state.last_activity = Instant::now();
    }

    /// Waits until the document of `loader` (or one it navigated to) has loaded and
    /// no request has been in flight for `QUIET`; false if `deadline` came first.
    fn wait_settled(&self, loader: &str, deadline: Instant) -> bool {
        let mut state = self.state();
        loop {
            let now = Instant::now();
            let ours = state.documents.iter().any(|document| document == loader);
            let quiet_since = now.saturating_duration_since(state.last_activity);
            if ours && state.loaded && state.in_flight.is_empty() && quiet_since >= QUIET {
                return true;
            }
            if now >= deadline {
                return false;
            }
            let wake = (state.last_activity + QUIET).max(now + Duration::from_millis(10));
            let timeout = wake.min(deadline) - now;
            state = self
                .changed
                .wait_timeout(state, timeout)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
        }
    }
}

fn dismiss_dialog(tab: &Weak<Tab>) {
    if let Some(tab) = tab.upgrade() {
        let _ = tab.call_method(Page::HandleJavaScriptDialog {
            accept: true,
            prompt_text: None,
        });
    }
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

/// Renders the page at `url` on `tab`; `navigating` tells the watchdog whether
/// `Page.navigate` is still waiting for the document.
pub(crate) fn render(
    tab: &Tab,
    watch: &PageWatch,
    url: &str,
    deadline: Instant,
    navigating: &AtomicBool,
    screenshots: bool,
) -> Result<Rendered> {
    watch.reset();
    navigating.store(true, Ordering::SeqCst);
    let loader = navigate(tab, url);
    navigating.store(false, Ordering::SeqCst);
    let loader = loader?.ok_or_else(|| anyhow!("navigation to {url} created no document"))?;
    let settled = watch.wait_settled(&loader, deadline);
    if !settled {
        // Freeze the network so that what is measured is what had rendered.
        tab.stop_loading()?;
    }
    // The screenshot comes first: measuring blanks the text a reader cannot see.
    let screenshot_png = if screenshots {
        screenshot(tab)?
    } else {
        Vec::new()
    };
    let measured = measure(tab, &watch.main_frame)?;
    Ok(Rendered {
        synthetic_body: measured.synthetic_body,
        visible_text: measured.visible_text,
        image_count: measured.image_count,
        image_area: measured.image_area.clamp(0.0, 1.0),
        text_area: measured.text_area.clamp(0.0, 1.0),
        hidden_text_share: measured.hidden_text_share.clamp(0.0, 1.0),
        cut_off: !settled,
        screenshot_png,
    })
}

/// The viewport as a PNG, encoded for speed (zlib's fastest level): the encoding
/// ran in Chromium's browser process and was a large share of a render's CPU time.
fn screenshot(tab: &Tab) -> Result<Vec<u8>> {
    let capture = tab
        .call_method(Page::CaptureScreenshot {
            format: Some(Page::CaptureScreenshotFormatOption::Png),
            quality: None,
            clip: None,
            from_surface: Some(true),
            capture_beyond_viewport: Some(false),
            optimize_for_speed: Some(true),
        })
        .context("screenshot failed")?;
    BASE64_STANDARD
        .decode(capture.data)
        .context("screenshot is not base64")
}

/// Starts loading `url`; returns the loader id of the new document, if one was made.
fn navigate(tab: &Tab, url: &str) -> Result<Option<String>> {
    let navigation = tab.call_method(Page::Navigate {
        url: url.to_string(),
        referrer: None,
        transition_Type: None,
        frame_id: None,
        referrer_policy: None,
    })?;
    if let Some(error) = navigation.error_text {
        bail!("navigation to {url} failed: {error}");
    }
    Ok(navigation.loader_id)
}

/// Runs `measure.js` in an isolated world: it shares the DOM with the page but not
/// its JavaScript globals, which the page may have replaced.
fn measure(tab: &Tab, main_frame: &str) -> Result<Measured> {
    let world = tab.call_method(Page::CreateIsolatedWorld {
        frame_id: main_frame.to_string(),
        world_name: Some("twinpage-measure".into()),
        grant_univeral_access: Some(false),
    })?;
    let evaluation = tab.call_method(Runtime::Evaluate {
        expression: MEASURE.to_string(),
        object_group: None,
        include_command_line_api: None,
        silent: Some(true),
        context_id: Some(world.execution_context_id),
        return_by_value: Some(true),
        generate_preview: None,
        user_gesture: None,
        await_promise: None,
        throw_on_side_effect: None,
        timeout: None,
        disable_breaks: Some(true),
        repl_mode: None,
        allow_unsafe_eval_blocked_by_csp: Some(true),
        unique_context_id: None,
        serialization_options: None,
    })?;
    if let Some(exception) = evaluation.exception_details {
        bail!("measuring the page failed: {}", exception.text);
    }
    let json = evaluation
        .result
        .value
        .and_then(|value| value.as_str().map(str::to_string))
        .ok_or_else(|| anyhow!("measuring the page returned no result"))?;
    serde_json::from_str(&json).context("measuring the page returned malformed JSON")
}

/// Leaves the tab on a blank page with no trace of the last document: its scripts
/// stopped, and its cookies, storage and service workers gone, so the next document
/// renders as it would in a fresh browser.
pub(crate) fn blank(tab: &Tab, origin: &str) -> Result<()> {
    navigate(tab, "about:blank")?;
    tab.call_method(Storage::ClearDataForOrigin {
        origin: origin.to_string(),
        storage_Types: "all".into(),
    })?;
    Ok(())
}
