//! Chromium's processes: launching a browser, and making sure none outlives us.
//!
//! We start Chromium ourselves instead of through headless_chrome's launcher, in a
//! process group of its own, and connect to it: headless_chrome can leave child
//! processes behind when a browser is dropped, while killing the group takes the
//! zygotes, renderers and utility processes with it. The groups are out of the
//! terminal's reach, so the live ones are registered here for the Ctrl-C handler.
//!
//! Chromium's version is read here too: it is part of the render cache's key.

use crate::cdp::Connection;
use crate::options::RenderOptions;
use crate::sync::lock;
use anyhow::{bail, Context, Result};
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};

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
    // Every connection, loopback included, goes to a proxy on a closed port and fails.
    // Pages get their files from the tab itself (Fetch interception), never a socket.
    "--proxy-server=http://127.0.0.1:1",
    "--proxy-bypass-list=<-loopback>",
    // A page gets no window but its own: window.open returns null (a page opening
    // 1,000 popups took 5.1 GB and 46.7 s against a 10 s deadline).
    "--block-new-web-contents",
    // WebRTC sends UDP around the proxy; forbid that.
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    // The DevTools protocol on fds 3 and 4 (see `cdp.rs`): no port to find or guard.
    "--remote-debugging-pipe",
];

/// The Chromium process group; killed, reaped and its profile removed when dropped.
pub(crate) struct Process {
    child: Child,
    group: i32,
    profile: PathBuf,
}

impl Process {
    /// Starts a browser with its profile in `profile`; the connection to it.
    pub(crate) fn spawn(options: &RenderOptions, profile: &Path) -> Result<(Process, Connection)> {
        std::fs::create_dir_all(profile)?;
        let log = File::create(profile.join("chromium.log"))?;
        let (browser_reads, commands) = pipe()?;
        let (answers, browser_writes) = pipe()?;
        // Held from spawn to registration, so that an interrupt cannot fall between.
        let mut live = live();
        let mut command = Command::new(&options.chromium);
        command
            .args(FLAGS)
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
            .process_group(0);
        set_memory(&mut command, options.memory_per_process);
        hand_over_pipe(
            &mut command,
            browser_reads.as_raw_fd(),
            browser_writes.as_raw_fd(),
        );
        let child = spawn_bound_to_us(command)
            .with_context(|| format!("cannot run {}", options.chromium.display()))?;
        let group = i32::try_from(child.id())?;
        live.groups.push(group);
        drop((browser_reads, browser_writes));
        let process = Process {
            child,
            group,
            profile: profile.to_path_buf(),
        };
        Ok((process, Connection::new(commands, answers)?))
    }

    /// Why the browser stopped, from the end of its log.
    pub(crate) fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.profile.join("chromium.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(5)..].join(" | ")
    }

    pub(crate) fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The process group: the browser and every process it started.
    pub(crate) fn group(&self) -> i32 {
        self.group
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

/// A pipe as (read end, write end), both closed on exec and numbered 10 or above, so
/// that placing the browser's ends at 3 and 4 can never overwrite one of them.
fn pipe() -> Result<(File, File)> {
    let mut ends = [0; 2];
    // SAFETY: pipe2(2) writes two descriptors into the array it is given.
    if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        bail!("cannot make a pipe: {}", std::io::Error::last_os_error());
    }
    let [read, write] = ends.map(|end| {
        // SAFETY: `end` was just opened and is owned here alone.
        let end = unsafe { OwnedFd::from_raw_fd(end) };
        // SAFETY: fcntl(2) duplicates a descriptor we own; the copy is owned here.
        let high = unsafe { libc::fcntl(end.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 10) };
        (high >= 0).then(|| unsafe { OwnedFd::from_raw_fd(high) })
    });
    match (read, write) {
        (Some(read), Some(write)) => Ok((File::from(read), File::from(write))),
        _ => bail!("cannot number a pipe: {}", std::io::Error::last_os_error()),
    }
}

/// Gives the child the browser's ends of the pipes as fds 3 (commands) and 4
/// (answers), where `--remote-debugging-pipe` expects them. dup2 leaves the copies
/// open across exec; the originals close there.
fn hand_over_pipe(command: &mut Command, reads: RawFd, writes: RawFd) {
    // SAFETY: the closure runs between fork and exec and calls only dup2(2), which is
    // async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            if libc::dup2(reads, 3) < 0 || libc::dup2(writes, 4) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
}

/// Bounds the data memory of the browser and of every process it starts (they
/// inherit the limit), and gives them the kernel's transparent huge pages back.
/// Chromium reserves terabytes of address space it never uses, so the address-space
/// limit cannot serve; the data limit counts only what is made writable, which is what
/// a page's buffers, heap and DOM take. Huge pages: the `twinpage` binary turns them
/// off for itself (its allocator's fresh memory was zeroed 2 MB at a time) and children
/// inherit that, but the browser's allocator was not measured without them.
fn set_memory(command: &mut Command, bytes: u64) {
    let limit = libc::rlimit {
        rlim_cur: bytes,
        rlim_max: bytes,
    };
    // SAFETY: the closure runs between fork and exec and calls only setrlimit(2) and
    // prctl(2), which are async-signal-safe and touch no memory of ours.
    unsafe {
        command.pre_exec(move || {
            if libc::setrlimit(libc::RLIMIT_DATA, &limit) != 0
                || libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

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
    lock(&LIVE)
}

/// Whether interrupts are handled: by twinpage's handler, or left to the host.
static INTERRUPTS: OnceLock<()> = OnceLock::new();

/// On SIGINT or SIGTERM: kill every browser, remove their profiles, exit 130.
/// Installed once per process; if the program already has a handler, that one stays
/// (and `Renderer`'s Drop still cleans up on the normal path).
pub(crate) fn install_interrupt_handler() {
    INTERRUPTS.get_or_init(|| {
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

/// Leaves SIGINT and SIGTERM to the program twinpage runs in (Python: an interrupt
/// is `KeyboardInterrupt`, and a notebook's kernel must survive it); browsers are
/// still cleaned up when a run ends, and killed with the process if it dies.
pub fn leave_interrupts_to_host() {
    INTERRUPTS.get_or_init(|| ());
}

// ---------------------------------------------------------------------------------
// Death of twinpage.

/// Starts `command` so that the kernel kills it (SIGKILL) when twinpage dies, even by
/// `kill -9`, which no handler sees: the child asks for a parent-death signal before
/// it becomes Chromium (the request survives `exec`). That signal follows the thread
/// that forked, not the process, so every browser is forked by one thread that lives
/// as long as twinpage; a worker thread that relaunched a hung browser and then ended
/// would take the new browser with it. Chromium's own children (zygotes, renderers)
/// exit when their browser does.
fn spawn_bound_to_us(command: Command) -> std::io::Result<Child> {
    type Request = (Command, std::sync::mpsc::Sender<std::io::Result<Child>>);
    static LAUNCHER: OnceLock<Mutex<std::sync::mpsc::Sender<Request>>> = OnceLock::new();
    let launcher = LAUNCHER.get_or_init(|| {
        let (requests, incoming) = std::sync::mpsc::channel::<Request>();
        std::thread::Builder::new()
            .name("chromium-launcher".into())
            .spawn(move || {
                for (mut command, answer) in incoming {
                    let _ = answer.send(spawn_with_parent_death_signal(&mut command));
                }
            })
            .expect("a thread to launch browsers from");
        Mutex::new(requests)
    });
    let (answer, reply) = std::sync::mpsc::channel();
    lock(launcher)
        .send((command, answer))
        .map_err(|_| std::io::Error::other("the browser launcher thread is gone"))?;
    reply
        .recv()
        .map_err(|_| std::io::Error::other("the browser launcher thread is gone"))?
}

fn spawn_with_parent_death_signal(command: &mut Command) -> std::io::Result<Child> {
    // SAFETY: getpid(2) has no memory effects.
    let parent = unsafe { libc::getpid() };
    // SAFETY: the closure runs between fork and exec and calls only prctl(2),
    // getppid(2) and _exit(2), which are async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // twinpage died between fork and prctl: the signal will never come.
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        })
    };
    command.spawn()
}

/// Profile roots are named `<PROFILE_ROOT_PREFIX><random>` in the temporary folder,
/// with the owning twinpage's pid in [`OWNER_FILE`].
pub(crate) const PROFILE_ROOT_PREFIX: &str = "twinpage-chromium-";
const OWNER_FILE: &str = "owner.pid";

/// Creates the folder for a renderer's browser profiles, and first removes those
/// that twinpage runs killed by `kill -9` left behind: their owner is gone and no
/// process uses them any more.
pub(crate) fn new_profile_root() -> Result<tempfile::TempDir> {
    sweep_stale_profile_roots(&std::env::temp_dir());
    let root = tempfile::Builder::new()
        .prefix(PROFILE_ROOT_PREFIX)
        .tempdir()
        .context("cannot create a folder for browser profiles")?;
    std::fs::write(root.path().join(OWNER_FILE), std::process::id().to_string())
        .context("cannot write in the folder for browser profiles")?;
    Ok(root)
}

fn sweep_stale_profile_roots(temp: &Path) {
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for root in entries.flatten().map(|entry| entry.path()) {
        let ours = root
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(PROFILE_ROOT_PREFIX));
        if ours && is_stale(&root) {
            let _ = std::fs::remove_dir_all(&root);
        }
    }
}

/// A profile root whose owner process has exited and that no process names.
fn is_stale(root: &Path) -> bool {
    let Some(owner) = std::fs::read_to_string(root.join(OWNER_FILE))
        .ok()
        .and_then(|text| text.trim().parse::<i32>().ok())
    else {
        return false;
    };
    twinpage_util::process_is_gone(owner)
        && processes_mentioning(&profile_root_marker(root)).is_empty()
}

/// Records a folder whose browsers the interrupt handler must kill and remove.
pub(crate) fn register_profile_root(root: &Path) {
    live().profile_roots.push(root.to_path_buf());
}

pub(crate) fn unregister_profile_root(root: &Path) {
    live().profile_roots.retain(|known| known != root);
}

pub(crate) fn kill_group(group: i32) {
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
