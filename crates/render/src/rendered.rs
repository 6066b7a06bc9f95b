//! What a render produces, as the renderer returns it and as the cache and stored
//! render files keep it: one definition for every place that reads or writes one.

use serde::{Deserialize, Serialize};
use twinpage_util::body::MAX_BODY_BYTES;

use crate::pack::MAX_RENDER_BYTES;

/// Names what a render produces; part of the cache key, so bump it whenever the
/// renderer's output changes (flags, settle rule, measurements, serialisation, the
/// charset a page is served in: 7 when valid UTF-8 came before a stale `<meta charset>`).
pub const RENDERER_VERSION: &str = "twinpage-render-7";

/// A rendered document.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Rendered {
    /// The serialised DOM after load and settle, with its doctype if it has one.
    pub synthetic_body: String,
    /// `document.body.innerText`: the text a reader sees.
    pub visible_text: String,
    /// `<img>` elements in the rendered DOM.
    pub image_count: usize,
    /// Share of the page (full scroll size) covered by visible images, in [0, 1].
    pub image_area: f64,
    /// Share of the page covered by visible text boxes, in [0, 1].
    pub text_area: f64,
    /// Share of the DOM's text (not counting whitespace) that is not visible, in [0, 1].
    pub hidden_text_share: f64,
    /// The deadline fired before load and settle finished; what had rendered is kept.
    pub cut_off: bool,
    /// The viewport as a PNG, when screenshots were asked for (else empty). Not in
    /// the JSON: the cache stores it as a file of its own.
    #[serde(skip)]
    pub screenshot_png: Vec<u8>,
}

/// The most of a rendered body (the synthetic body, the visible text) a render
/// keeps, as fetched bodies are cut at the same size: a page that builds a DOM of
/// 70 MB is judged on its first 4 MB either way.
pub const MAX_RENDERED_BYTES: usize = MAX_BODY_BYTES;

// Whatever a render holds, its JSON (every character escaped at worst to six
// bytes) stays within what a reader of stored renders and packs takes.
const _: () = assert!((2 * 6 * MAX_RENDERED_BYTES + (1 << 16)) as u64 <= MAX_RENDER_BYTES);

impl Rendered {
    /// Cuts the synthetic body and the visible text at `MAX_RENDERED_BYTES` (on a
    /// character boundary); renders made before the cut existed are cut on storing.
    pub fn cap_bodies(&mut self) {
        for text in [&mut self.synthetic_body, &mut self.visible_text] {
            if text.len() > MAX_RENDERED_BYTES {
                let end = (0..=MAX_RENDERED_BYTES)
                    .rev()
                    .find(|&i| text.is_char_boundary(i))
                    .unwrap_or(0);
                text.truncate(end);
            }
        }
    }
}

/// A render as the cache and stored render files keep it: the render, or why
/// there is none (then the fetched body stands in for the rendered one).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub enum StoredRender {
    Failed { failed: String },
    Rendered(Rendered),
}
