//! Documents: pair files (read and written), bodies read and decoded, and the
//! attributes of a body (Table 1 of the seed) that every test compares.
//!
//! Nothing here knows about signals, models or browsers: a body goes in, its
//! attributes come out, from one parse.

/// A CSS selector compiled once per process, as a `&'static Matcher` for
/// `select_matcher`: every page of a crawl is asked the same few selectors, and
/// compiling one costs more than matching it on a small page.
macro_rules! css {
    ($selector:expr) => {{
        static MATCHER: std::sync::LazyLock<dom_query::Matcher> = std::sync::LazyLock::new(|| {
            dom_query::Matcher::new($selector).expect("a valid CSS selector")
        });
        &*MATCHER
    }};
}

pub mod attributes;
pub mod decode;
pub mod idf;
pub mod pairs;
pub mod record;
pub mod rows;
pub mod text;
pub mod url;

pub use attributes::Document;
pub use idf::IdfTable;
pub use pairs::{Pair, PairFile};
pub use rows::Skipped;
