//! What the signal modules' tests share.

use super::query::Query;
use super::signal::{BodyPair, Signal};
use crate::document::pairs::{Metadata, Side};
use crate::document::url::UrlParts;
use crate::document::{Document, Pair};

/// A document with this title and nothing else.
pub(crate) fn titled(title: &str) -> Document {
    Document {
        title: title.into(),
        title_words: crate::document::text::word_set(title),
        ..Document::default()
    }
}

/// A pair of two documents with this metadata, at no URL.
pub(crate) fn pair(a: Metadata, b: Metadata) -> Pair {
    let side = |metadata| Side {
        url: String::new(),
        html: "x".into(),
        rendered: None,
        metadata,
    };
    Pair {
        file: "f".into(),
        line: 2,
        a: side(a),
        b: side(b),
        query: None,
        label: None,
        rendered_stage: false,
        fields: vec![],
    }
}

/// The value of the signal `name` of `list` for two documents fetched from two URLs.
pub(crate) fn signal(
    list: &[Signal],
    name: &str,
    (a, b): (&Document, &Document),
    (url_a, url_b): (&str, &str),
) -> f64 {
    let (url_a, url_b) = (UrlParts::parse(url_a), UrlParts::parse(url_b));
    let query = Query::default();
    let pair = BodyPair {
        a,
        b,
        url_a: &url_a,
        url_b: &url_b,
        query: &query,
    };
    let signal = list
        .iter()
        .find(|s| s.name == name)
        .expect("a signal of that name");
    (signal.compute)(&pair)
}
