//! The per-render watchdog. A protocol call can block far beyond the deadline, so
//! each render is watched from another thread, which stops loading, terminates the
//! page's script and at last kills the browser.

use super::process::kill_group;
use anyhow::Result;
use headless_chrome::protocol::cdp::Runtime;
use headless_chrome::Tab;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// After the deadline: when a page still holding the main thread gets its script
/// terminated, and when the browser is declared hung and killed.
const INTERRUPT_AFTER: Duration = Duration::from_secs(3);
const KILL_AFTER: Duration = Duration::from_secs(8);

/// Watches one render from another thread. A protocol call can block far beyond the
/// deadline (navigate waits for a document that never comes; a script that never
/// yields blocks every call into the page), so the remedies come from outside:
/// stop loading at the deadline, terminate the page's script a little later, and
/// kill the browser if even that did not free it.
pub(super) struct Watchdog {
    deadline: Instant,
    navigating: Arc<AtomicBool>,
    done: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<Intervention>>,
}

/// What the watchdog had to do to a render.
pub(super) enum Intervention {
    None,
    /// The page's script was terminated: what was measured is cut off.
    Interrupted,
    /// The browser was killed: there is nothing to keep.
    Killed,
}

impl Watchdog {
    pub(super) fn start(tab: Arc<Tab>, group: i32, budget: Duration) -> Watchdog {
        let deadline = Instant::now() + budget;
        let navigating = Arc::new(AtomicBool::new(false));
        let (done, finished) = mpsc::channel();
        let watched = navigating.clone();
        let thread =
            std::thread::spawn(move || supervise(&finished, &tab, group, deadline, &watched));
        Watchdog {
            deadline,
            navigating,
            done: Some(done),
            thread: Some(thread),
        }
    }

    /// When the page's time is up.
    pub(super) fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Set while `Page.navigate` waits for the document: then the deadline stops loading.
    pub(super) fn navigating(&self) -> &AtomicBool {
        &self.navigating
    }

    /// Ends the watch; says what the watchdog did.
    pub(super) fn finish(mut self) -> Intervention {
        drop(self.done.take());
        self.thread.take().map_or(Intervention::None, |thread| {
            thread.join().unwrap_or(Intervention::Killed)
        })
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        drop(self.done.take());
    }
}

/// The watchdog's schedule.
fn supervise(
    finished: &mpsc::Receiver<()>,
    tab: &Arc<Tab>,
    group: i32,
    deadline: Instant,
    navigating: &AtomicBool,
) -> Intervention {
    let finished_by = |moment: Instant| {
        let wait = moment.saturating_duration_since(Instant::now());
        !matches!(finished.recv_timeout(wait), Err(RecvTimeoutError::Timeout))
    };
    if finished_by(deadline) {
        return Intervention::None;
    }
    if navigating.load(Ordering::SeqCst) {
        // Page.navigate returns only once the document answers; stopping unblocks it.
        call_detached(tab, |tab| tab.stop_loading().map(drop));
    }
    if finished_by(deadline + INTERRUPT_AFTER) {
        return Intervention::None;
    }
    call_detached(tab, |tab| {
        tab.call_method(Runtime::TerminateExecution(None)).map(drop)
    });
    if finished_by(deadline + KILL_AFTER) {
        return Intervention::Interrupted;
    }
    kill_group(group);
    Intervention::Killed
}

/// Makes a protocol call without waiting for its answer, which may never come.
fn call_detached(tab: &Arc<Tab>, call: fn(&Tab) -> Result<()>) {
    let tab = tab.clone();
    std::thread::spawn(move || {
        let _ = call(&tab);
    });
}
