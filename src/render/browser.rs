//! Launching and supervising Chromium, and the pool of tabs.
//!
//! Each slot of the pool is one Chromium process with one tab and its own loopback
//! server: a page that crashes or hangs its browser then costs only its own render,
//! and each slot's pages have an origin (and so storage) of their own.
//!
//! We start Chromium ourselves instead of through headless_chrome's launcher, in a
//! process group of its own, and connect to it: headless_chrome can leave child
//! processes behind when a browser is dropped, while killing the group takes the
//! zygotes, renderers and utility processes with it.
//!
//! Measured on these machines: every headless_chrome protocol call takes about 0.1 s
//! on a quiet connection (its WebSocket reader holds the socket for a 100 ms read
//! timeout, then sleeps 100 ms), and a render needs about six. A slot therefore spends
//! most of a render waiting, not computing, and the pool can usefully hold more slots
//! than there are cores.

use super::page::{self, PageWatch};
use super::server::Server;
use super::{read_document, served_name, RenderOptions, Rendered};
use anyhow::{anyhow, bail, Context, Result};
use headless_chrome::browser::tab::RequestPausedDecision;
use headless_chrome::protocol::cdp::Fetch::{self, events::RequestPausedEvent};
use headless_chrome::protocol::cdp::{Network, Runtime};
use headless_chrome::{Browser, Tab};
use std::fs::File;
use std::ops::{Deref, DerefMut};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Flags for every browser. Debian's Chromium keeps trying to reach the network
/// (component updates, sync, field trials) unless told not to; the network is closed
/// here, and a render must never depend on it anyway.
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox", // we run as root, where the sandbox cannot start
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-quic",
    "--disable-extensions",
    "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,\
     BackForwardCache",
    // One renderer process, reused by every document and by about:blank. Otherwise
    // site isolation and the back-forward cache start two new processes per render.
    "--renderer-process-limit=1",
    "--disable-site-isolation-trials",
    "--mute-audio",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
    "--deny-permission-prompts",
    // A render runs in the background of a batch; it must not be slowed as a hidden tab.
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    // Only 127.0.0.1 resolves: no DNS, no name of any other host.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    // Every connection, loopback included, goes to a proxy on a closed port and fails,
    // except the ones to the slot's server (the bypass list is added per launch).
    "--proxy-server=http://127.0.0.1:1",
    // WebRTC sends UDP around the proxy; forbid that.
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--remote-debugging-port=0",
];

/// How long Chromium may take to open its DevTools port.
const LAUNCH_TIMEOUT: Duration = Duration::from_secs(30);
/// headless_chrome's idle timeout bounds every protocol call and kills the connection
/// when it fires, so it must outlast a whole render: the deadline plus this margin.
const IDLE_MARGIN: Duration = Duration::from_secs(20);
/// After the deadline: when a page still holding the main thread gets its script
/// terminated, and when the browser is declared hung and killed.
const INTERRUPT_AFTER: Duration = Duration::from_secs(3);
const KILL_AFTER: Duration = Duration::from_secs(8);
/// A browser unused for this long is asked whether it still answers before a render.
const QUIET_BROWSER: Duration = Duration::from_secs(5);
/// A browser is replaced after this many renders, bounding what leaks in it
/// (and in headless_chrome, which keeps every response's metadata per tab).
const RECYCLE_AFTER: usize = 200;

// ---------------------------------------------------------------------------------
// Killing: process groups, profile folders, Ctrl-C.

/// Browsers alive in this process, so that an interrupt can kill them: they run in
/// groups of their own, where the terminal's SIGINT does not reach.
struct Live {
    groups: Vec<i32>,
    profile_roots: Vec<PathBuf>,
}

fn live() -> MutexGuard<'static, Live> {
    static LIVE: Mutex<Live> = Mutex::new(Live {
        groups: Vec::new(),
        profile_roots: Vec::new(),
    });
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// On SIGINT or SIGTERM: kill every browser, remove their profiles, exit 130.
/// Installed once per process; if the program already has a handler, that one stays
/// (and `Renderer`'s Drop still cleans up on the normal path).
pub(crate) fn install_interrupt_handler() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let _ = ctrlc::set_handler(|| {
            let live = live();
            for &group in &live.groups {
                kill_group(group);
            }
            for root in &live.profile_roots {
                kill_processes_mentioning(&profile_root_marker(root));
                let _ = std::fs::remove_dir_all(root);
            }
            std::process::exit(130);
        });
    });
}

/// Records a folder whose browsers the interrupt handler must kill and remove.
pub(crate) fn register_profile_root(root: &Path) {
    live().profile_roots.push(root.to_path_buf());
}

pub(crate) fn unregister_profile_root(root: &Path) {
    live().profile_roots.retain(|known| known != root);
}

fn kill_group(group: i32) {
    // SAFETY: kill(2) has no memory effects; a negative pid names a process group.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

/// Kills every process whose command line contains `needle` (our browsers all carry
/// `--user-data-dir=<profile>`): the last resort for a process that left its group.
pub(crate) fn kill_processes_mentioning(needle: &str) {
    for pid in processes_mentioning(needle) {
        // SAFETY: as in kill_group; the pid was read from /proc just now.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
}

/// Pids of the processes whose command line (arguments joined by NUL) contains `needle`.
pub(crate) fn processes_mentioning(needle: &str) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let needle = needle.as_bytes();
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmdline| cmdline.windows(needle.len()).any(|window| window == needle))
        })
        .collect()
}

/// The command-line fragment that marks every process of the browsers under `root`.
pub(crate) fn profile_root_marker(root: &Path) -> String {
    format!("--user-data-dir={}/", root.display())
}

// ---------------------------------------------------------------------------------
// Version.

/// `chromium --version` of the browser named by `RenderOptions::default()`, read
/// once: it is part of the cache key, since another Chromium may render differently.
pub(crate) fn installed_version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        version_of(&RenderOptions::default().chromium).unwrap_or_else(|_| "no chromium".into())
    })
}

fn version_of(chromium: &Path) -> Result<String> {
    let output = Command::new(chromium)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_string();
    if version.is_empty() {
        bail!("{} --version printed nothing", chromium.display());
    }
    Ok(version)
}

// ---------------------------------------------------------------------------------
// One browser.

/// The Chromium process group; killed, reaped and its profile removed when dropped.
struct Process {
    child: Child,
    group: i32,
    profile: PathBuf,
}

impl Process {
    fn spawn(options: &RenderOptions, profile: &Path, server_port: u16) -> Result<Process> {
        std::fs::create_dir_all(profile)?;
        let log = File::create(profile.join("chromium.log"))?;
        // Held from spawn to registration, so that an interrupt cannot fall between.
        let mut live = live();
        let child = Command::new(&options.chromium)
            .args(FLAGS)
            .arg(format!(
                "--proxy-bypass-list=<-loopback>;127.0.0.1:{server_port}"
            ))
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!(
                "--window-size={},{}",
                options.window.0, options.window.1
            ))
            .arg("about:blank")
            // Chromium keeps singleton sockets in TMPDIR, which a killed browser
            // cannot remove: inside the profile they go with it.
            .env("TMPDIR", profile)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .process_group(0)
            .spawn()
            .with_context(|| format!("cannot run {}", options.chromium.display()))?;
        let group = i32::try_from(child.id())?;
        live.groups.push(group);
        Ok(Process {
            child,
            group,
            profile: profile.to_path_buf(),
        })
    }

    /// Waits for the DevTools WebSocket URL, which Chromium writes to its profile.
    fn devtools_url(&mut self) -> Result<String> {
        let port_file = self.profile.join("DevToolsActivePort");
        let started = Instant::now();
        loop {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                let mut lines = text.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                    return Ok(format!("ws://127.0.0.1:{port}{path}"));
                }
            }
            if let Some(status) = self.child.try_wait()? {
                bail!("Chromium exited at start ({status}): {}", self.log_tail());
            }
            if started.elapsed() > LAUNCH_TIMEOUT {
                bail!(
                    "Chromium did not start in {LAUNCH_TIMEOUT:?}: {}",
                    self.log_tail()
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.profile.join("chromium.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(5)..].join(" | ")
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        kill_group(self.group);
        let _ = self.child.wait();
        // The NUL ends the argument, so that slot0-1 does not match slot0-10.
        kill_processes_mentioning(&format!("--user-data-dir={}\0", self.profile.display()));
        live().groups.retain(|&group| group != self.group);
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

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
    fn launch(options: &RenderOptions, profile: &Path, server: &Server) -> Result<Chromium> {
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
    fn usable(&mut self) -> bool {
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

    fn render(&mut self, url: &str, deadline: Duration) -> Result<Rendered> {
        self.renders += 1;
        let watchdog = Watchdog::start(self.tab.clone(), self.process.group, deadline);
        let rendered = page::render(
            &self.tab,
            &self.watch,
            url,
            watchdog.deadline,
            &watchdog.navigating,
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

/// Keeps the tab's navigations on the slot's server. Every other request is already
/// stopped by the browser-wide proxy and resolver rules; a navigation elsewhere (a
/// form, a script setting `location`) would fail there too but leave an error page in
/// the tab, so navigations are intercepted and answered "204 No Content", which keeps
/// the page where it is. Only documents are intercepted: each interception costs a
/// protocol round trip, and pages have dozens of subresources.
fn confine(tab: &Tab, origin: &str) -> Result<()> {
    let allowed = format!("{origin}/");
    tab.enable_request_interception(Arc::new(move |_, _, event: RequestPausedEvent| {
        decide(&allowed, &event)
    }))?;
    let documents = Fetch::RequestPattern {
        url_pattern: Some("*".into()),
        resource_Type: Some(Network::ResourceType::Document),
        request_stage: Some(Fetch::RequestStage::Request),
    };
    tab.enable_fetch(Some(&[documents]), None)?;
    Ok(())
}

fn decide(allowed: &str, event: &RequestPausedEvent) -> RequestPausedDecision {
    let request_id = event.params.request_id.clone();
    if event.params.request.url.starts_with(allowed) {
        RequestPausedDecision::Continue(None)
    } else {
        RequestPausedDecision::Fulfill(Fetch::FulfillRequest {
            request_id,
            response_code: 204,
            response_headers: None,
            binary_response_headers: None,
            body: None,
            response_phrase: None,
        })
    }
}

/// Watches one render from another thread. A protocol call can block far beyond the
/// deadline (navigate waits for a document that never comes; a script that never
/// yields blocks every call into the page), so the remedies come from outside:
/// stop loading at the deadline, terminate the page's script a little later, and
/// kill the browser if even that did not free it.
struct Watchdog {
    deadline: Instant,
    navigating: Arc<AtomicBool>,
    done: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<Intervention>>,
}

/// What the watchdog had to do to a render.
enum Intervention {
    None,
    /// The page's script was terminated: what was measured is cut off.
    Interrupted,
    /// The browser was killed: there is nothing to keep.
    Killed,
}

impl Watchdog {
    fn start(tab: Arc<Tab>, group: i32, budget: Duration) -> Watchdog {
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

    /// Ends the watch; says what the watchdog did.
    fn finish(mut self) -> Intervention {
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

// ---------------------------------------------------------------------------------
// The pool.

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
        let publication = self.server.publish(folder, &name, body)?;
        let chromium = self
            .chromium
            .as_mut()
            .ok_or_else(|| anyhow!("no browser in slot {}", self.index))?;
        let rendered = chromium.render(publication.url(), options.deadline);
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
        self.free
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
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
