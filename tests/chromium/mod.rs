//! The real headless Chromium the page tests drive (review page, report).

use std::path::PathBuf;
use std::time::Duration;

use headless_chrome::{Browser, LaunchOptions};

/// A headless Chromium (`TWINPAGE_CHROMIUM`, else `/usr/bin/chromium`), with
/// its window `window` pixels wide and high when given.
pub fn browser(window: Option<(u32, u32)>) -> Browser {
    let chromium = std::env::var_os("TWINPAGE_CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    Browser::new(
        LaunchOptions::default_builder()
            .path(Some(chromium))
            .sandbox(false)
            .headless(true)
            .window_size(window)
            .idle_browser_timeout(Duration::from_secs(60))
            .build()
            .unwrap(),
    )
    .expect("Chromium starts (apt-get install -y chromium, or set TWINPAGE_CHROMIUM)")
}
