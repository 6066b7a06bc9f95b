//! One tab of a browser, in a browser context of its own (its own cookies, storage
//! and cache, and so its own renderer process), through which every request of its
//! pages is paused and answered by the renderer (see `serve.rs`).

use crate::browser::Browser;
use crate::cdp::{self, Answer, Message};
use crate::protocol::{
    AddScriptToEvaluateOnNewDocument, AttachToTarget, Command, CreateBrowserContext, CreateTarget,
    DisposeBrowserContext, EnableFetch, EnablePage, RequestPattern, SetDeviceMetricsOverride,
    SetLifecycleEventsEnabled, Timed,
};
use anyhow::{bail, Context, Result};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A tab is closed and replaced after this many renders, bounding what its renderer
/// process and its browser context accumulate.
const RECYCLE_AFTER: usize = 100;
/// Runs before each document's own scripts and keeps its start-up timers, so that a
/// render waits for the content they fetch (see the script's comments).
const STARTUP_TIMERS: &str = include_str!("startup_timers.js");
/// Keeps a page that sends itself elsewhere while it loads on the page (see the script).
const STAY_ON_PAGE: &str = include_str!("stay_on_page.js");

pub(crate) struct Tab {
    browser: Arc<Browser>,
    context: String,
    /// The target id, which is also the id of the tab's main frame.
    pub(crate) target: String,
    session: String,
    channel: Receiver<cdp::Delivery>,
    renders: usize,
}

impl Tab {
    /// Opens a blank tab of `window` size in a new browser context of `browser`, with
    /// its lifecycle and dialog events on and every request paused. The Network
    /// domain stays off: its events (about five per request, with headers and
    /// initiator stacks) cost the browser more than the requests themselves.
    pub(crate) fn open(browser: Arc<Browser>, window: (u32, u32)) -> Result<Tab> {
        let context = browser
            .command(&CreateBrowserContext {
                dispose_on_detach: true,
            })?
            .browser_context_id;
        let (target, session) = match open_target(&browser, &context) {
            Ok(opened) => opened,
            Err(error) => {
                let disposing = DisposeBrowserContext {
                    browser_context_id: &context,
                };
                let _ = browser.command(&disposing);
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

    /// Sends every setting-up command at once, then waits for their answers, which
    /// come in any order (each domain answers on its own).
    fn set_up(&self, window: (u32, u32)) -> Result<()> {
        let mut waiting = vec![
            self.start(&EnablePage {})?,
            self.start(&SetLifecycleEventsEnabled { enabled: true })?,
            self.start(&SetDeviceMetricsOverride {
                width: window.0,
                height: window.1,
                device_scale_factor: 1,
                mobile: false,
            })?,
            self.start(&AddScriptToEvaluateOnNewDocument {
                source: STARTUP_TIMERS,
            })?,
            self.start(&AddScriptToEvaluateOnNewDocument {
                source: STAY_ON_PAGE,
            })?,
            self.start(&EnableFetch {
                patterns: vec![RequestPattern {
                    url_pattern: "*",
                    request_stage: "Request",
                }],
            })?,
        ];
        while let Some(first) = waiting.iter().map(|setting| setting.deadline).min() {
            match self.receive(first)? {
                Some(Message::Answer(answer)) => {
                    if let Some(i) = waiting.iter().position(|setting| setting.id == answer.id) {
                        (waiting.swap_remove(i).check)(answer).context("setting up a tab")?;
                    }
                }
                Some(Message::Event(_)) => {}
                None => {
                    let late = waiting.iter().find(|setting| setting.deadline == first);
                    let late = late.expect("the first deadline is someone's");
                    bail!(
                        "setting up a tab: {} took over {:?}",
                        late.method,
                        late.timeout
                    );
                }
            }
        }
        Ok(())
    }

    /// Sends a setting-up command, to be waited for at most its timeout.
    fn start<C: Timed>(&self, command: &C) -> Result<Setting> {
        Ok(Setting {
            id: self.send(command)?,
            method: C::METHOD,
            timeout: C::TIMEOUT,
            deadline: Instant::now() + C::TIMEOUT,
            check: |answer| answer.parse::<C>().map(drop),
        })
    }

    /// Whether the tab can take another render: its browser lives, and it has not
    /// rendered enough to be recycled.
    pub(crate) fn usable(&self) -> bool {
        self.browser.alive() && self.renders < RECYCLE_AFTER
    }

    /// Counts a render.
    pub(crate) fn begin_render(&mut self) {
        self.renders += 1;
    }

    /// Sends a command to the tab; its answer comes through [`Tab::receive`].
    pub(crate) fn send<C: Command>(&self, command: &C) -> Result<u64> {
        self.browser.connection.send(&self.session, command)
    }

    /// The tab's next event or answer; None if `deadline` came first.
    pub(crate) fn receive(&self, deadline: Instant) -> Result<Option<Message>> {
        cdp::receive(&self.channel, deadline)
    }

    /// A browser-level command on behalf of the tab, waited for.
    pub(crate) fn browser_command<C: Timed>(&self, command: &C) -> Result<C::Response> {
        self.browser.command(command)
    }

    /// The browser context the tab lives in.
    pub(crate) fn context(&self) -> &str {
        &self.context
    }
}

/// A setting-up command sent and not yet answered.
struct Setting {
    id: u64,
    method: &'static str,
    timeout: Duration,
    deadline: Instant,
    /// Reads its answer: an error if the command failed.
    check: fn(Answer) -> Result<()>,
}

impl Drop for Tab {
    /// Closes the tab with its context (and so its renderer process). A browser that
    /// cannot even do that is hung: it is killed, and replaced when next needed.
    fn drop(&mut self) {
        self.browser.connection.forget(&self.session);
        let disposed = self.browser.command(&DisposeBrowserContext {
            browser_context_id: &self.context,
        });
        if disposed.is_err() && self.browser.alive() {
            self.browser.kill();
        }
    }
}

/// A blank page in `context`, attached to: its target and session ids.
fn open_target(browser: &Browser, context: &str) -> Result<(String, String)> {
    let target = browser
        .command(&CreateTarget {
            url: "about:blank",
            browser_context_id: context,
        })?
        .target_id;
    let attached = browser.command(&AttachToTarget {
        target_id: &target,
        flatten: true,
    })?;
    Ok((target, attached.session_id))
}
