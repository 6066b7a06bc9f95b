//! Request interception that keeps a tab's navigations on its slot's server, so that
//! a page cannot take its tab away to an error page (see [`confine`]).

use anyhow::Result;
use headless_chrome::browser::tab::RequestPausedDecision;
use headless_chrome::protocol::cdp::Fetch::{self, events::RequestPausedEvent};
use headless_chrome::protocol::cdp::Network;
use headless_chrome::Tab;
use std::sync::Arc;

/// Keeps the tab's navigations on the slot's server. Every other request is already
/// stopped by the browser-wide proxy and resolver rules; a navigation elsewhere (a
/// form, a script setting `location`) would fail there too but leave an error page in
/// the tab, so navigations are intercepted and answered "204 No Content", which keeps
/// the page where it is. Only documents are intercepted: each interception costs a
/// protocol round trip, and pages have dozens of subresources.
pub(super) fn confine(tab: &Tab, origin: &str) -> Result<()> {
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
