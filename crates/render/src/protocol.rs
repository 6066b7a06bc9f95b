//! The DevTools messages the renderer exchanges with Chromium, as types: each command
//! with its method name, its parameters, the answer it expects and how long that
//! answer may take; and the few events a render follows.
//!
//! Why our own structs rather than headless_chrome's generated `protocol::cdp` types,
//! which did read all 16,780 messages of 286 renders by Chromium 156 here:
//! - a render needs a dozen commands and four events, a few fields each; the crate
//!   generates the whole protocol (1.1 MB of Rust) and took 188 s to compile (release,
//!   2 shared cores), with tungstenite, regex, and ureq and rustls to build it, into
//!   every program above the renderer;
//! - its events are one internally tagged enum of every event of every domain:
//!   4.6 µs a message of those renders, against 1.8 µs here (3.9 µs as untyped JSON);
//! - its enums are closed at the protocol of its release: a resource type that a later
//!   Chromium adds would make a whole `Fetch.requestPaused` unreadable;
//! - its calls carry no session id (flat sessions need one) and no timeout, and its
//!   parameter structs have no `Default`, so every optional field is spelt out.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::time::Duration;

/// A DevTools command: its parameters serialise as the message's `params`.
pub(crate) trait Command: Serialize {
    /// `Domain.method`.
    const METHOD: &'static str;
    /// What its answer's `result` holds.
    type Response: DeserializeOwned;
}

/// A command waited for on its own, outside a render: its answer may take at most
/// [`Timed::TIMEOUT`]. A command that a render sends has no timeout of its own: the
/// render's deadline, and the remedies after it, bound every wait (see `page.rs`).
pub(crate) trait Timed: Command {
    const TIMEOUT: Duration;
}

/// Chromium answers its first command once it has started, which may take long on a
/// busy machine.
const LAUNCH: Duration = Duration::from_secs(30);
/// Opening, listing or closing tabs: browser-level work that a hung browser fails.
const BROWSER: Duration = Duration::from_secs(5);
/// Turning on a new tab's domains, scripts and request interception.
const TAB_SETUP: Duration = Duration::from_secs(10);

/// Declares `$command` as `$method`, answered with `$response` (within `$timeout`).
macro_rules! command {
    ($command:ty, $method:literal, $response:ty) => {
        impl Command for $command {
            const METHOD: &'static str = $method;
            type Response = $response;
        }
    };
    ($command:ty, $method:literal, $response:ty, $timeout:expr) => {
        command!($command, $method, $response);
        impl Timed for $command {
            const TIMEOUT: Duration = $timeout;
        }
    };
}

/// An answer, or event parameters, with nothing the renderer reads (their fields, if
/// any, are ignored).
#[derive(Debug, Deserialize)]
pub(crate) struct Done {}

// ---------------------------------------------------------------------------------
// The browser: its version, browser contexts and targets (tabs).

/// Asked first, to learn that Chromium runs and answers.
#[derive(Serialize)]
pub(crate) struct GetVersion {}
command!(GetVersion, "Browser.getVersion", Done, LAUNCH);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CreateBrowserContext {
    pub(crate) dispose_on_detach: bool,
}
command!(
    CreateBrowserContext,
    "Target.createBrowserContext",
    BrowserContext,
    BROWSER
);

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BrowserContext {
    pub(crate) browser_context_id: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DisposeBrowserContext<'a> {
    pub(crate) browser_context_id: &'a str,
}
command!(
    DisposeBrowserContext<'_>,
    "Target.disposeBrowserContext",
    Done,
    BROWSER
);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CreateTarget<'a> {
    pub(crate) url: &'a str,
    pub(crate) browser_context_id: &'a str,
}
command!(
    CreateTarget<'_>,
    "Target.createTarget",
    CreatedTarget,
    BROWSER
);

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CreatedTarget {
    pub(crate) target_id: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AttachToTarget<'a> {
    pub(crate) target_id: &'a str,
    /// One connection for every session, each message naming its session.
    pub(crate) flatten: bool,
}
command!(
    AttachToTarget<'_>,
    "Target.attachToTarget",
    Attached,
    BROWSER
);

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Attached {
    pub(crate) session_id: String,
}

#[derive(Serialize)]
pub(crate) struct GetTargets {}
command!(GetTargets, "Target.getTargets", Targets, BROWSER);

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Targets {
    pub(crate) target_infos: Vec<TargetInfo>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TargetInfo {
    pub(crate) target_id: String,
    pub(crate) browser_context_id: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CloseTarget<'a> {
    pub(crate) target_id: &'a str,
}
command!(CloseTarget<'_>, "Target.closeTarget", Done, BROWSER);

// ---------------------------------------------------------------------------------
// Setting a tab up.

#[derive(Serialize)]
pub(crate) struct EnablePage {}
command!(EnablePage, "Page.enable", Done, TAB_SETUP);

#[derive(Serialize)]
pub(crate) struct SetLifecycleEventsEnabled {
    pub(crate) enabled: bool,
}
command!(
    SetLifecycleEventsEnabled,
    "Page.setLifecycleEventsEnabled",
    Done,
    TAB_SETUP
);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetDeviceMetricsOverride {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) device_scale_factor: u32,
    pub(crate) mobile: bool,
}
command!(
    SetDeviceMetricsOverride,
    "Emulation.setDeviceMetricsOverride",
    Done,
    TAB_SETUP
);

#[derive(Serialize)]
pub(crate) struct AddScriptToEvaluateOnNewDocument<'a> {
    pub(crate) source: &'a str,
}
command!(
    AddScriptToEvaluateOnNewDocument<'_>,
    "Page.addScriptToEvaluateOnNewDocument",
    Done,
    TAB_SETUP
);

/// Pauses the requests that match `patterns` (see [`Event::RequestPaused`]).
#[derive(Serialize)]
pub(crate) struct EnableFetch {
    pub(crate) patterns: Vec<RequestPattern>,
}
command!(EnableFetch, "Fetch.enable", Done, TAB_SETUP);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RequestPattern {
    pub(crate) url_pattern: &'static str,
    pub(crate) request_stage: &'static str,
}

// ---------------------------------------------------------------------------------
// A render: navigating, stopping, evaluating, capturing.

#[derive(Serialize)]
pub(crate) struct Navigate<'a> {
    pub(crate) url: &'a str,
}
command!(Navigate<'_>, "Page.navigate", Navigation);

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Navigation {
    /// Absent when the navigation made no new document.
    pub(crate) loader_id: Option<String>,
    pub(crate) error_text: Option<String>,
}

#[derive(Serialize)]
pub(crate) struct StopLoading {}
command!(StopLoading, "Page.stopLoading", Done);

#[derive(Serialize)]
pub(crate) struct TerminateExecution {}
command!(TerminateExecution, "Runtime.terminateExecution", Done);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Evaluate<'a> {
    pub(crate) expression: &'a str,
    /// The world to run in; the page's own when None.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) context_id: Option<i64>,
    pub(crate) silent: bool,
    pub(crate) return_by_value: bool,
}
command!(Evaluate<'_>, "Runtime.evaluate", Evaluation);

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Evaluation {
    result: RemoteObject,
    pub(crate) exception_details: Option<ExceptionDetails>,
}

impl Evaluation {
    /// The value the expression returned, if it is a `T`: a script in the page's own
    /// world can return anything, and the caller decides what a wrong type means.
    pub(crate) fn value<T: DeserializeOwned>(&self) -> Option<T> {
        let value = self.result.value.as_deref()?;
        serde_json::from_str(value.get()).ok()
    }
}

#[derive(Deserialize)]
struct RemoteObject {
    /// Absent when the value cannot be returned as JSON (`undefined`, `NaN`).
    value: Option<Box<RawValue>>,
}

#[derive(Deserialize)]
pub(crate) struct ExceptionDetails {
    pub(crate) text: String,
    /// What was thrown (`RangeError: Array buffer allocation failed`, say).
    #[serde(default)]
    pub(crate) exception: Option<Thrown>,
}

/// The object a script threw, as `Runtime.RemoteObject` describes it.
#[derive(Deserialize)]
pub(crate) struct Thrown {
    #[serde(default)]
    pub(crate) description: Option<String>,
}

impl ExceptionDetails {
    /// The exception's text and, when given, what was thrown.
    pub(crate) fn said(&self) -> String {
        let thrown = self
            .exception
            .as_ref()
            .and_then(|e| e.description.as_deref());
        match thrown {
            Some(thrown) => format!("{} {}", self.text, thrown.lines().next().unwrap_or("")),
            None => self.text.clone(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CaptureScreenshot {
    pub(crate) format: &'static str,
    pub(crate) from_surface: bool,
    pub(crate) capture_beyond_viewport: bool,
    pub(crate) optimize_for_speed: bool,
}
command!(CaptureScreenshot, "Page.captureScreenshot", Screenshot);

#[derive(Deserialize)]
pub(crate) struct Screenshot {
    /// The image, base64-encoded.
    pub(crate) data: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CreateIsolatedWorld<'a> {
    pub(crate) frame_id: &'a str,
    pub(crate) world_name: &'a str,
    /// Spelt as the protocol spells it.
    #[serde(rename = "grantUniveralAccess")]
    pub(crate) grant_universal_access: bool,
}
command!(
    CreateIsolatedWorld<'_>,
    "Page.createIsolatedWorld",
    IsolatedWorld
);

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct IsolatedWorld {
    pub(crate) execution_context_id: i64,
}

#[derive(Serialize)]
pub(crate) struct HandleJavaScriptDialog {
    pub(crate) accept: bool,
}
command!(HandleJavaScriptDialog, "Page.handleJavaScriptDialog", Done);

// ---------------------------------------------------------------------------------
// Answering a paused request.

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FulfillRequest {
    pub(crate) request_id: String,
    pub(crate) response_code: u16,
    pub(crate) response_headers: Vec<Header>,
    /// The body, base64-encoded.
    pub(crate) body: String,
}
command!(FulfillRequest, "Fetch.fulfillRequest", Done);

#[derive(Debug, Serialize)]
pub(crate) struct Header {
    pub(crate) name: &'static str,
    pub(crate) value: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FailRequest {
    pub(crate) request_id: String,
    pub(crate) error_reason: &'static str,
}
command!(FailRequest, "Fetch.failRequest", Done);

// ---------------------------------------------------------------------------------
// Events.

/// The events a render follows; Chromium sends others, which are not read.
#[derive(Debug)]
pub(crate) enum Event {
    /// `Fetch.requestPaused`: a request of the page waits for the renderer's answer.
    RequestPaused(RequestPaused),
    /// `Page.lifecycleEvent`: a document of a frame reached a stage (`init`, `load`...).
    Lifecycle(Lifecycle),
    /// `Page.javascriptDialogOpening`: an alert() (or confirm, prompt) blocks the page.
    DialogOpening,
    /// `Inspector.targetCrashed`: the tab's renderer process died.
    TargetCrashed,
}

impl Event {
    /// The event `method` with `params` (JSON); None for an event the renderer does
    /// not follow, an error when a followed event's parameters are not as expected.
    pub(crate) fn parse(method: &str, params: &str) -> serde_json::Result<Option<Event>> {
        let event = match method {
            "Fetch.requestPaused" => Event::RequestPaused(serde_json::from_str(params)?),
            "Page.lifecycleEvent" => Event::Lifecycle(serde_json::from_str(params)?),
            "Page.javascriptDialogOpening" => {
                serde_json::from_str::<Done>(params)?;
                Event::DialogOpening
            }
            "Inspector.targetCrashed" => {
                serde_json::from_str::<Done>(params)?;
                Event::TargetCrashed
            }
            _ => return Ok(None),
        };
        Ok(Some(event))
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RequestPaused {
    pub(crate) request_id: String,
    pub(crate) request: PausedRequest,
    /// `Document`, `Script`, `Media`...: a string, so that a type a later Chromium
    /// adds is still read.
    pub(crate) resource_type: String,
}

#[derive(Debug, Deserialize)]
pub(crate) struct PausedRequest {
    pub(crate) url: String,
    pub(crate) method: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Lifecycle {
    pub(crate) frame_id: String,
    pub(crate) loader_id: String,
    pub(crate) name: String,
}
