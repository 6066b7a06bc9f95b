//! How a renderer runs its browsers, and what a page may read: settings that the
//! renderer, its browsers, its tabs and the render cache all consult, so they live
//! apart from any of them.

use std::path::{Path, PathBuf};
use std::time::Duration;
use twinpage_util::Choice;

/// Where Chromium is looked for, best first. The headless shell (Debian's
/// `chromium-headless-shell`) is the browser without its desktop parts: on 120 pages
/// of `training-data/web` it rendered the same text with less than half the CPU of
/// the full browser (`--headless`), 44 against 94 CPU-seconds.
pub const CHROMIUM_BINARIES: &[&str] = &[
    "/usr/lib/chromium/chromium-headless-shell",
    "/usr/bin/chromium-headless-shell",
    "/usr/bin/chromium",
];

/// The first of [`CHROMIUM_BINARIES`] that is installed, else the last (whose
/// absence [`crate::Renderer::start`] explains).
fn installed_chromium() -> PathBuf {
    let found = CHROMIUM_BINARIES
        .iter()
        .find(|path| Path::new(path).is_file());
    PathBuf::from(found.unwrap_or(&CHROMIUM_BINARIES[CHROMIUM_BINARIES.len() - 1]))
}

/// [`RenderOptions::memory_per_process`] unless told otherwise: 4 GiB. Eight tabs
/// share a renderer, and heavy real pages take a few hundred megabytes each.
pub const DEFAULT_MEMORY_PER_PROCESS: u64 = 4 << 30;

/// How to run the browsers.
#[derive(Clone, Debug)]
pub struct RenderOptions {
    /// The Chromium binary: `TWINPAGE_CHROMIUM` if set, else the first installed of
    /// [`CHROMIUM_BINARIES`].
    pub chromium: PathBuf,
    /// Time allowed for load and settle; after it, what has rendered is kept.
    pub deadline: Duration,
    /// Pages rendering at once, each in a tab (default: eight per core), eight tabs
    /// to a browser. A render spends most of its time waiting (500 ms of network
    /// quiet after `load`), so one tab per core would leave the cores idle.
    pub tabs: usize,
    /// Window (viewport) size in CSS pixels.
    pub window: (u32, u32),
    /// What a page may load from its folder besides itself.
    pub serve: ServePolicy,
    /// The most memory, in bytes, that each process of a browser (its page renderer
    /// among them, shared by its tabs) may take for its data (`RLIMIT_DATA`): beyond
    /// it allocations fail. A page that fills ArrayBuffers is refused them; one whose
    /// scripts or DOM outgrow it crashes its renderer, and its render fails. Without
    /// it one page took Chromium to 7.4 GB.
    pub memory_per_process: u64,
    /// Take a screenshot of each page. Only a person reviewing a pair looks at one,
    /// and encoding it cost a large share of a render's CPU: off unless asked for
    /// (`score --review-db`, `--screenshots`).
    pub screenshots: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        let chromium =
            std::env::var_os("TWINPAGE_CHROMIUM").map_or_else(installed_chromium, PathBuf::from);
        let cores = std::thread::available_parallelism().map_or(1, |cores| cores.get());
        RenderOptions {
            chromium,
            deadline: Duration::from_secs(10),
            tabs: 8 * cores.max(1),
            window: (1280, 1024),
            memory_per_process: DEFAULT_MEMORY_PER_PROCESS,
            screenshots: false,
            serve: ServePolicy::default(),
        }
    }
}

/// What a page is given besides the document itself. A page is
/// untrusted, and whatever it can read ends up in the stored render.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ServePolicy {
    /// Files in the document's folder and below, except those under a name starting
    /// with `.` (`.env`, `.ssh/`, `.git/`).
    #[default]
    Siblings,
    /// Nothing but the document itself.
    DocumentOnly,
}

impl Choice for ServePolicy {
    const CHOICES: &'static [(ServePolicy, &'static str, &'static str)] = &[
        (
            ServePolicy::Siblings,
            "siblings",
            "Files in the document's folder and below, except those under a name starting with `.` (`.env`, `.ssh/`, `.git/`)",
        ),
        (ServePolicy::DocumentOnly, "none", "Nothing but the document itself"),
    ];
}
