//! One tab of a browser, in a browser context of its own (its own cookies, storage
//! and cache, and so its own renderer process), through which every request of its
//! pages is paused and answered by the renderer (see `serve.rs`).

use super::browser::Browser;
use super::cdp::{self, Message};
use anyhow::{anyhow, bail, Context, Result};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A tab is closed and replaced after this many renders, bounding what its renderer
/// process and its browser context accumulate.
const RECYCLE_AFTER: usize = 100;
/// How long setting a tab up may take.
const SETUP_TIMEOUT: Duration = Duration::from_secs(10);
/// Runs before each document's own scripts and keeps its start-up timers, so that a
/// render waits for the content they fetch (see the script's comments).
const STARTUP_TIMERS: &str = include_str!("startup_timers.js");
/// Keeps a page that sends itself elsewhere while it loads on the page (see the script).
const STAY_ON_PAGE: &str = include_str!("stay_on_page.js");

pub(super) struct Tab {
    browser: Arc<Browser>,
    context: String,
    /// The target id, which is also the id of the tab's main frame.
    pub(super) target: String,
    session: String,
    channel: Receiver<Message>,
    renders: usize,
}

impl Tab {
    /// Opens a blank tab of `window` size in a new browser context of `browser`, with
    /// its lifecycle and dialog events on and every request paused. The Network
    /// domain stays off: its events (about five per request, with headers and
    /// initiator stacks) cost the browser more than the requests themselves.
    pub(super) fn open(browser: Arc<Browser>, window: (u32, u32)) -> Result<Tab> {
        let context = browser.command(
            "Target.createBrowserContext",
            json!({ "disposeOnDetach": true }),
        )?;
        let context = string(&context, "browserContextId")?;
        let (target, session) = match open_target(&browser, &context) {
            Ok(opened) => opened,
            Err(error) => {
                let disposing = json!({ "browserContextId": context });
                let _ = browser.command("Target.disposeBrowserContext", disposing);
                return Err(error.context("cannot open a tab"));
            }
        };
        let channel = browser.connection.follow(&session);
        let tab = Tab {
            browser,
            context,
            target,
            session,
            channel,
            renders: 0,
        };
        tab.set_up(window)?;
        Ok(tab)
    }

    fn set_up(&self, window: (u32, u32)) -> Result<()> {
        let commands = [
            ("Page.enable", json!({})),
            ("Page.setLifecycleEventsEnabled", json!({ "enabled": true })),
            (
                "Emulation.setDeviceMetricsOverride",
                json!({ "width": window.0, "height": window.1, "deviceScaleFactor": 1, "mobile": false }),
            ),
            (
                "Page.addScriptToEvaluateOnNewDocument",
                json!({ "source": STARTUP_TIMERS }),
            ),
            (
                "Page.addScriptToEvaluateOnNewDocument",
                json!({ "source": STAY_ON_PAGE }),
            ),
            (
                "Fetch.enable",
                json!({ "patterns": [{ "urlPattern": "*", "requestStage": "Request" }] }),
            ),
        ];
        let mut waiting = commands
            .into_iter()
            .map(|(method, params)| self.send(method, params))
            .collect::<Result<HashSet<u64>>>()?;
        // Answers come in any order: each domain answers on its own.
        let deadline = Instant::now() + SETUP_TIMEOUT;
        while !waiting.is_empty() {
            match cdp::receive(&self.channel, deadline)? {
                Some(Message::Answer { id, result }) if waiting.remove(&id) => {
                    result.context("setting up a tab")?;
                }
                Some(_) => {}
                None => bail!("setting up a tab took over {SETUP_TIMEOUT:?}"),
            }
        }
        Ok(())
    }

    /// Whether the tab can take another render: its browser lives, and it has not
    /// rendered enough to be recycled.
    pub(super) fn usable(&self) -> bool {
        self.browser.alive() && self.renders < RECYCLE_AFTER
    }

    /// Counts a render.
    pub(super) fn begin_render(&mut self) {
        self.renders += 1;
    }

    /// Sends a command to the tab; its answer comes through [`Tab::receive`].
    pub(super) fn send(&self, method: &str, params: Value) -> Result<u64> {
        self.browser.connection.send(&self.session, method, params)
    }

    /// The tab's next event or answer; None if `deadline` came first.
    pub(super) fn receive(&self, deadline: Instant) -> Result<Option<Message>> {
        cdp::receive(&self.channel, deadline)
    }

    /// A browser-level command on behalf of the tab, waited for.
    pub(super) fn browser_command(&self, method: &str, params: Value) -> Result<Value> {
        self.browser.command(method, params)
    }

    /// The browser context the tab lives in.
    pub(super) fn context(&self) -> &str {
        &self.context
    }
}

impl Drop for Tab {
    /// Closes the tab with its context (and so its renderer process). A browser that
    /// cannot even do that is hung: it is killed, and replaced when next needed.
    fn drop(&mut self) {
        self.browser.connection.forget(&self.session);
        let disposed = self.browser.command(
            "Target.disposeBrowserContext",
            json!({ "browserContextId": self.context }),
        );
        if disposed.is_err() && self.browser.alive() {
            self.browser.kill();
        }
    }
}

/// A blank page in `context`, attached to: its target and session ids.
fn open_target(browser: &Browser, context: &str) -> Result<(String, String)> {
    let target = browser.command(
        "Target.createTarget",
        json!({ "url": "about:blank", "browserContextId": context }),
    )?;
    let target = string(&target, "targetId")?;
    let attached = browser.command(
        "Target.attachToTarget",
        json!({ "targetId": target, "flatten": true }),
    )?;
    Ok((target, string(&attached, "sessionId")?))
}

fn string(value: &Value, field: &str) -> Result<String> {
    value[field]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| anyhow!("the browser's answer has no {field}"))
}
