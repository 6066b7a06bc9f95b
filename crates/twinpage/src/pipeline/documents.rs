//! The documents of a run, each read and parsed once however many pairs name
//! it: fetched bodies from disk, rendered bodies from the pair file, the render
//! cache or Chromium, all turned into attributes on every core.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::schedule::map_heaviest_first;
use crate::document::attributes::RenderedAttributes;
use crate::document::decode::{decode_bytes, decode_unicode, read_body, DecodedBody};
use crate::document::{Document, IdfTable, Pair};
use crate::signals::{Layout, PairBodies};
use twinpage_render::{self as render, RenderSettings, RenderedBody, Request, SupplyReport};
use twinpage_util::body::MAX_BODY_BYTES;
use twinpage_util::Progress;

/// One render request per distinct fetched body of `pairs`, in path order, with
/// the first stored render a pair file gives for it.
pub fn render_requests<'a>(pairs: impl IntoIterator<Item = &'a Pair>) -> Vec<Request<'a>> {
    let mut stored: BTreeMap<&Path, Option<&Path>> = BTreeMap::new();
    for side in pairs.into_iter().flat_map(|p| [&p.a, &p.b]) {
        let entry = stored.entry(side.html.as_path()).or_default();
        *entry = entry.or(side.rendered.as_deref());
    }
    stored
        .into_iter()
        .map(|(document, stored)| Request {
            document,
            stored,
            content_hash: None,
        })
        .collect()
}

/// The document a rendered body makes; Err with the reason when there was no render.
fn rendered_document(body: RenderedBody, idf: &IdfTable) -> Result<Document, String> {
    match body {
        RenderedBody::Measured(rendered) => {
            let decoded = decode_unicode(&rendered.synthetic_body);
            let measured = RenderedAttributes {
                image_area: rendered.image_area,
                text_area: rendered.text_area,
                hidden_text_share: rendered.hidden_text_share,
                cut_off: rendered.cut_off,
            };
            Ok(Document::from_rendered(
                &decoded,
                &rendered.visible_text,
                measured,
                idf,
            ))
        }
        RenderedBody::SyntheticOnly(bytes) => Ok(Document::from_body(&decode_cut(&bytes), idf)),
        RenderedBody::Failed(reason) => Err(reason),
    }
}

/// The length of a rendered body's synthetic body (0 for a failed render).
fn synthetic_len(body: &RenderedBody) -> u64 {
    let len = match body {
        RenderedBody::Measured(rendered) => rendered.synthetic_body.len(),
        RenderedBody::SyntheticOnly(bytes) => bytes.len(),
        RenderedBody::Failed(_) => 0,
    };
    len as u64
}

/// Decodes a bare synthetic body (bytes in the page's own charset), cut like a fetched body.
fn decode_cut(bytes: &[u8]) -> DecodedBody {
    let cut = &bytes[..bytes.len().min(MAX_BODY_BYTES)];
    decode_bytes(cut, bytes.len(), cut.len() < bytes.len())
}

/// The documents of a run, by path, each parsed once: fetched bodies, and rendered
/// bodies when the run renders.
#[derive(Debug, Default)]
pub struct DocumentSet {
    documents: HashMap<PathBuf, Arc<Document>>,
    failures: HashMap<PathBuf, String>,
    /// Rendered bodies by the path of their fetched body; None for fetched-only runs.
    rendered: Option<HashMap<PathBuf, Arc<Document>>>,
    /// Documents whose render failed (the fetched body stands in), with the reason.
    pub render_failures: Vec<(PathBuf, String)>,
    /// Where the rendered bodies came from.
    pub render_report: SupplyReport,
}

impl DocumentSet {
    /// Reads and parses every distinct fetched body named by `pairs`, on all cores,
    /// and, with `rendering`, gets and parses their rendered bodies. Unreadable
    /// documents are recorded, not fatal: the caller decides. The only error is a
    /// render that is needed and cannot be made (no Chromium).
    pub fn load(
        pairs: &[Pair],
        idf: &IdfTable,
        rendering: Option<&RenderSettings>,
    ) -> anyhow::Result<DocumentSet> {
        let paths: Vec<&Path> = pairs
            .iter()
            .flat_map(|p| [p.a.html.as_path(), p.b.html.as_path()])
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let progress = Progress::new(paths.len(), "reading documents");
        let file_len = |path: &&Path| std::fs::metadata(path).map_or(0, |m| m.len());
        let results = map_heaviest_first(paths, file_len, |path| {
            let result = read_body(path)
                .map(|body| Document::from_body(&body, idf))
                .map_err(|e| format!("{e:#}"));
            progress.inc();
            (path.to_path_buf(), result)
        });
        progress.finish();
        let mut set = DocumentSet::default();
        for (path, result) in results {
            match result {
                Ok(doc) => {
                    set.documents.insert(path, Arc::new(doc));
                }
                Err(e) => {
                    set.failures.insert(path, e);
                }
            }
        }
        if let Some(settings) = rendering {
            set.load_rendered(pairs, idf, settings)?;
        }
        Ok(set)
    }

    /// Gets the rendered body of every readable document of `pairs` (stored, cached
    /// or rendered now) and parses it; the set's rendered bodies are then those of
    /// `pairs` only (the cascade renders the pairs its first stage left open).
    pub fn load_rendered(
        &mut self,
        pairs: &[Pair],
        idf: &IdfTable,
        settings: &RenderSettings,
    ) -> anyhow::Result<()> {
        let mut requests = render_requests(pairs);
        // Only readable documents render; their hash keys the cache without a second read.
        requests.retain_mut(|request| match self.documents.get(request.document) {
            Some(document) => {
                request.content_hash = Some(document.body_hash);
                true
            }
            None => false,
        });
        let (bodies, report) = render::supply(&requests, settings)?;
        self.render_report = report;
        let progress = Progress::new(bodies.len(), "reading rendered bodies");
        let parsed = map_heaviest_first(bodies, synthetic_len, |body| {
            let parsed = rendered_document(body, idf);
            progress.inc();
            parsed
        });
        progress.finish();
        let mut rendered = HashMap::new();
        for (request, parsed) in requests.iter().zip(parsed) {
            let path = request.document.to_path_buf();
            let document = match parsed {
                Ok(document) => Arc::new(document),
                Err(reason) => {
                    self.render_failures.push((path.clone(), reason));
                    self.documents[&path].clone()
                }
            };
            rendered.insert(path, document);
        }
        self.rendered = Some(rendered);
        Ok(())
    }

    /// The layout of the vectors this set gives.
    pub fn layout(&self) -> Layout {
        match self.rendered {
            Some(_) => Layout::FetchedAndRendered,
            None => Layout::Fetched,
        }
    }

    /// Both documents of a pair, or the reason one of them could not be read.
    pub fn pair(&self, pair: &Pair) -> Result<(&Document, &Document), String> {
        Ok((self.get(&pair.a.html)?, self.get(&pair.b.html)?))
    }

    /// The bodies a pair's signal vector is computed from.
    pub fn bodies(&self, pair: &Pair) -> Result<PairBodies<'_>, String> {
        let fetched = self.pair(pair)?;
        let rendered = self.rendered.as_ref().map(|rendered| {
            let side = |path: &PathBuf| -> &Document { &rendered[path] };
            (side(&pair.a.html), side(&pair.b.html))
        });
        Ok(PairBodies { fetched, rendered })
    }

    fn get(&self, path: &Path) -> Result<&Document, String> {
        match self.documents.get(path) {
            Some(doc) => Ok(doc),
            None => Err(self
                .failures
                .get(path)
                .cloned()
                .unwrap_or_else(|| format!("document {} was not loaded", path.display()))),
        }
    }

    /// A measure of the work a pair's tests take: the bytes of its bodies (0 when one
    /// could not be read).
    pub fn weight(&self, pair: &Pair) -> u64 {
        let Ok(bodies) = self.bodies(pair) else {
            return 0;
        };
        let (a, b) = bodies.fetched;
        let rendered = bodies
            .rendered
            .map_or(0, |(ra, rb)| ra.body_len + rb.body_len);
        (a.body_len + b.body_len + rendered) as u64
    }

    /// How many documents have a rendered body.
    pub fn rendered_len(&self) -> usize {
        self.rendered.as_ref().map_or(0, HashMap::len)
    }

    /// Raw bytes of all documents read.
    pub fn total_bytes(&self) -> usize {
        self.documents.values().map(|d| d.body_len).sum()
    }

    pub fn len(&self) -> usize {
        self.documents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use twinpage_render::Rendered;

    /// A page served in ISO-8859-1 keeps its `<meta charset>` in the browser's DOM,
    /// which is Unicode: read by that label, every umlaut of its core was garbled,
    /// the garbled words were not in the visible text, and the core lost two thirds
    /// of its words (a prepended copy of such a page scored p 0.31, distinct).
    #[test]
    fn a_synthetic_body_is_unicode_whatever_charset_it_declares() {
        let text = "Die Erstellung von Baumgutachten für Gerichte erfordert Wissen und Erfahrung. ";
        let body = format!(
            "<html><head><meta http-equiv=\"content-type\" content=\"text/html; charset=ISO-8859-1\">\
             <title>Gutachten</title></head><body><article><p>{}</p></article></body></html>",
            text.repeat(8)
        );
        let rendered = Rendered {
            synthetic_body: body,
            visible_text: text.repeat(8),
            image_count: 0,
            image_area: 0.0,
            text_area: 0.5,
            hidden_text_share: 0.0,
            cut_off: false,
            screenshot_png: Vec::new(),
        };
        let document =
            rendered_document(RenderedBody::Measured(rendered), IdfTable::shipped()).unwrap();
        assert!(
            document.core_text.contains("für Gerichte"),
            "{}",
            document.core_text
        );
        assert!(!document.core_text.contains('Ã'), "{}", document.core_text);
    }
}
